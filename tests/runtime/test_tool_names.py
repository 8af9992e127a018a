"""A tool's own name from its runtime id, whichever server serves it."""

import pytest

from agent_orchestrator.runtime.tool_names import forwarded_id, tool_name


def test_a_forwarded_tool_is_named_by_what_follows_its_server() -> None:
    runtime_id = forwarded_id("retail-analytics", "query_data")
    assert runtime_id == "retail-analytics-query_data"
    assert tool_name(runtime_id, None) == "query_data"


def test_an_attached_servers_tool_keeps_its_mcp_name() -> None:
    assert tool_name("weather-forecast", "forecast") == "forecast"
    assert tool_name("bash", None) == "bash"  # the runtime's own tools have no server


def test_a_tool_whose_name_would_be_ambiguous_is_refused() -> None:
    with pytest.raises(ValueError, match="no '-'"):
        forwarded_id("retail-analytics", "query-data")

"""One grounded question on the default route: the embedded model calls the retail MCP tool through the
real runtime and answers from the tool's data."""

from pathlib import Path

import pytest

from agent_orchestrator.mcp_server import copilot_mcp_config
from agent_orchestrator.mcp_server.profile import retail_profile
from agent_orchestrator.retail import open_readonly, queries
from agent_orchestrator.retail.generator import GeneratorConfig, generate_dataset
from agent_orchestrator.runtime import CopilotRuntime, RuntimeSettings

pytestmark = pytest.mark.real_model


async def test_the_embedded_model_answers_from_the_tool_result(tmp_path: Path, model_weights: Path):
    db = generate_dataset(tmp_path / "retail.sqlite", GeneratorConfig(customers=300, transactions=3000))
    customer_id = 20_017
    with open_readonly(db) as conn:
        expected = queries.get_customer(conn, customer_id).segment.value
    settings = RuntimeSettings(data_dir=tmp_path, local_model_path=model_weights, turn_timeout=600)
    async with (
        CopilotRuntime(settings, profile=retail_profile(mcp=copilot_mcp_config(db))) as runtime,
        await runtime.create_session("grounded-1") as session,
    ):
        answer = await runtime.ask(session, f"What is customer {customer_id}'s segment?")
        events = await session.get_events()
    tool_results = [e for e in events if e.type.value == "tool.execution_complete"]
    assert tool_results and tool_results[0].data.success, tool_results
    assert expected.lower() in answer.lower(), answer


async def test_an_unknown_customer_is_not_found_and_gets_no_segment(tmp_path: Path, model_weights: Path):
    """The 0.5B model used to answer "High Value" for a customer that does not exist."""
    db = generate_dataset(tmp_path / "retail.sqlite", GeneratorConfig(customers=300, transactions=3000))
    settings = RuntimeSettings(data_dir=tmp_path, local_model_path=model_weights, turn_timeout=600)
    async with (
        CopilotRuntime(settings, profile=retail_profile(mcp=copilot_mcp_config(db))) as runtime,
        await runtime.create_session("grounded-2") as session,
    ):
        answer = await runtime.ask(session, "What is customer 99999999's segment?")
    assert "no customer with id 99999999" in answer, answer
    assert not any(s in answer for s in ("High Value", "Regular", "At Risk", "New")), answer

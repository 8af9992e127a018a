"""The retail-analytics MCP server through a real MCP client over stdio (a spawned process)."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from mcp_helpers import REPO, call_json, mcp_session, text_of

from agent_orchestrator.mcp_server import MAX_LIMIT, SERVER_NAME, TOOL_NAMES, copilot_mcp_config
from agent_orchestrator.retail import open_readonly

TOOL_SEGMENTS = {"High Value", "Regular", "At Risk", "New"}


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


async def test_lists_the_tools_with_short_read_only_descriptions(retail_db: Path) -> None:
    async with mcp_session(["--db", str(retail_db)]) as session:
        assert session.server_info is not None and session.server_info.name == SERVER_NAME
        tools = (await session.list_tools()).tools
    assert sorted(t.name for t in tools) == sorted(TOOL_NAMES)
    for tool in tools:
        assert tool.description and len(tool.description) <= 220, tool.name
        assert tool.annotations is not None and tool.annotations.read_only_hint is True


async def test_every_tool_answers_compact_json(retail_db: Path) -> None:
    async with mcp_session(["--db", str(retail_db)]) as session:
        segments = await call_json(session, "list_segments")
        assert [s["segment"] for s in segments["segments"]] == ["High Value", "Regular", "At Risk", "New"]
        assert segments["all"]["customers"] == 300 and len(segments["rules"]) == 4

        page = await call_json(session, "list_transactions", {"country": "united kingdom", "limit": 3})
        assert page["total"] > 3 and len(page["items"]) == 3
        first = page["items"][0]
        assert await call_json(session, "get_transaction", {"transaction_id": first["id"]}) == first

        customer = await call_json(session, "get_customer_summary", {"customer_id": first["customer"]})
        assert customer["id"] == first["customer"] and customer["segment"] in TOOL_SEGMENTS
        assert set(customer["rfm"]) == {"r", "f", "m"} and len(customer["top_products"]) <= 3

        own = await call_json(
            session,
            "predict_segment",
            {
                "recency_days": customer["recency_days"],
                "frequency": customer["orders"],
                "monetary": customer["revenue"],
            },
        )
        assert own["segment"] == customer["segment"] and own["rfm"] == customer["rfm"]

        top = await call_json(session, "top_customers", {"segment": "at_risk", "limit": 7})  # lenient name
        assert top["filters"] == {"segment": "At Risk"} and len(top["customers"]) == 7
        assert [c["revenue"] for c in top["customers"]] == sorted(
            (c["revenue"] for c in top["customers"]), reverse=True
        )
        everyone = await call_json(session, "top_customers", {})
        assert everyone["filters"] == {} and len(everyone["customers"]) == 5

        trend = await call_json(session, "monthly_trend", {"segment": "High Value", "months": 3})
        assert [p["month"] for p in trend["months"]] == ["2025-10", "2025-11", "2025-12"]

        biggest = await session.call_tool("list_transactions", {"limit": MAX_LIMIT})
        assert not biggest.is_error and len(text_of(biggest)) < 12_000  # bounded for a small model


BAD_CALLS = [
    (
        "list_transactions",
        {"limit": MAX_LIMIT + 1},
        f"limit: Input should be less than or equal to {MAX_LIMIT}",
    ),
    ("list_transactions", {"limit": 0}, "limit"),
    (
        "list_transactions",
        {"date_from": "2025-02-01", "date_to": "2025-01-01"},
        "date_from must not be after",
    ),
    ("list_transactions", {"date_from": "last week"}, "date_from"),
    ("get_transaction", {"transaction_id": "abc"}, "transaction_id"),
    ("get_transaction", {}, "transaction_id: Field required"),
    ("get_transaction", {"transaction_id": 10**9}, "no transaction with id 1000000000"),
    ("get_customer_summary", {"customer_id": 1}, "no customer with id 1"),
    ("predict_segment", {"recency_days": -1, "frequency": 1, "monetary": 5}, "recency_days"),
    ("predict_segment", {"recency_days": 1, "frequency": 0, "monetary": 5}, "frequency"),
    ("top_customers", {"segment": "VIP"}, "unknown segment 'VIP'; use one of: High Value"),
    ("monthly_trend", {"segment": "New", "months": 25}, "months"),
    ("no_such_tool", {}, "no_such_tool"),
]


async def test_bad_arguments_are_tool_errors_not_crashes(retail_db: Path) -> None:
    """One server process for all cases: it must keep serving after every rejected call."""
    async with mcp_session(["--db", str(retail_db)]) as session:
        for tool, arguments, expected in BAD_CALLS:
            result = await session.call_tool(tool, arguments)
            assert result.is_error, (tool, arguments)
            assert expected in text_of(result), (tool, arguments, text_of(result))
            assert "pydantic.dev" not in text_of(result)  # one short line, no links
        assert not (await session.call_tool("list_segments", {})).is_error


async def test_missing_database_is_reported_by_every_tool(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "retail.sqlite"
    async with mcp_session(["--db", str(missing)]) as session:
        assert len((await session.list_tools()).tools) == len(TOOL_NAMES)
        result = await session.call_tool("list_segments", {})
        assert result.is_error
        assert f"retail database not found at {missing}" in text_of(result)
        assert "python -m agent_orchestrator.retail generate" in text_of(result)
    assert not missing.exists()  # read-only: the server never creates it


async def test_database_path_from_environment(retail_db: Path) -> None:
    async with mcp_session([], env={"RETAIL_DB": str(retail_db)}) as session:
        assert (await call_json(session, "list_segments"))["all"]["customers"] == 300


def test_without_a_database_path_it_exits_with_usage() -> None:
    env = {k: v for k, v in os.environ.items() if k != "RETAIL_DB"}
    done = subprocess.run(
        [sys.executable, "-m", "agent_orchestrator.mcp_server"],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "pass --db PATH or set RETAIL_DB" in done.stderr
    assert done.stdout == ""  # stdout is the protocol channel


def test_read_only_connection_refuses_writes(retail_db: Path) -> None:
    conn = open_readonly(retail_db)
    try:
        for statement in (
            "DELETE FROM transactions",
            "INSERT INTO meta (key, value) VALUES ('x', 'y')",
            "CREATE TABLE evil (x)",
        ):
            with pytest.raises(sqlite3.OperationalError, match=r"readonly|read-only|query_only"):
                conn.execute(statement)
        # query_only is only the second lock: with it switched off, mode=ro still refuses.
        conn.execute("PRAGMA query_only = OFF")
        with pytest.raises(sqlite3.OperationalError, match="attempt to write a readonly database"):
            conn.execute("DELETE FROM transactions")
    finally:
        conn.close()


HOSTILE = "x'; DROP TABLE transactions; --"
EVERY_TOOL = {
    "list_segments": {},
    "find_customers": {"country": HOSTILE},
    "top_customers": {"country": HOSTILE},
    "get_customer_summary": {"customer_id": 20_001},
    "predict_segment": {"recency_days": 5, "frequency": 2, "monetary": 100},
    "sales_summary": {"product": HOSTILE},
    "monthly_trend": {"country": HOSTILE},
    "top_products": {"product": HOSTILE},
    "country_breakdown": {"segment": HOSTILE},
    "list_transactions": {"country": HOSTILE},
    "get_transaction": {"transaction_id": 1},
    "analyze_sales": {"countries": [HOSTILE]},  # answers "not in the data" as a result, not an error
    "query_data": {
        "metrics": ["revenue"],
        "filters": [{"column": "country", "op": "in", "values": [HOSTILE]}],
    },
}


async def test_a_session_never_changes_the_file(retail_db: Path) -> None:
    """Hostile-looking arguments are bound as parameters, and the connection is read-only anyway.

    Every tool is called once: a hostile name is an unknown country, product or segment (an error
    quoting it, not a query built from it); the others answer from the unchanged file.
    """
    assert set(EVERY_TOOL) == set(TOOL_NAMES)
    before = _digest(retail_db)
    async with mcp_session(["--db", str(retail_db)]) as session:
        for tool, arguments in EVERY_TOOL.items():
            result = await session.call_tool(tool, arguments)
            assert result.is_error == (HOSTILE in arguments.values()), (tool, text_of(result))
            if result.is_error:
                assert repr(HOSTILE) in text_of(result)
    assert _digest(retail_db) == before


def test_copilot_config_launches_this_server(retail_db: Path) -> None:
    config = copilot_mcp_config(retail_db)
    assert config["command"] == sys.executable
    assert config["args"] == ["-m", "agent_orchestrator.mcp_server", "--db", str(retail_db.resolve())]
    assert config["tools"] == ["*"] and config["type"] == "local"

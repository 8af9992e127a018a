"""Names, limits and the launch command of the MCP server, importable without the ``mcp`` package.

The session side attaches the server with ``copilot_mcp_config``; it is a plain dict in the
shape of the Copilot SDK's ``MCPStdioServerConfig`` (``mcp_servers={SERVER_NAME: ...}``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

SERVER_NAME = "retail-analytics"
MAX_LIMIT = 20
"""Most rows a customer, product or transaction list returns (small-model context budgets)."""
MAX_COUNTRY_ROWS = 40
"""Most rows of ``country_breakdown``: one per country, and a dataset has a few dozen."""
MAX_MONTHS = 24
TOOL_NAMES = (
    "analyze_sales",
    "query_data",
    "list_segments",
    "find_customers",
    "top_customers",
    "get_customer_summary",
    "predict_segment",
    "sales_summary",
    "monthly_trend",
    "top_products",
    "country_breakdown",
    "list_transactions",
    "get_transaction",
)
"""Every tool of the server; the session's tool allow-list and permission handler are built from it."""


def stdio_command(db_path: Path | str) -> list[str]:
    """argv that starts the server on stdio with this interpreter (so the venv's packages are used)."""
    return [sys.executable, "-m", "agent_orchestrator.mcp_server", "--db", str(Path(db_path).resolve())]


def copilot_mcp_config(db_path: Path | str, timeout_ms: int = 30_000) -> dict[str, Any]:
    """Copilot SDK stdio MCP server config exposing every tool of this server."""
    command, *args = stdio_command(db_path)
    return {"type": "local", "command": command, "args": args, "tools": ["*"], "timeout": timeout_ms}

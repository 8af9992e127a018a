"""The ``retail-analytics`` MCP server: read-only tools over the retail SQLite file.

Design choices, because the reader is often a 0.5B local model:

- **Read-only by construction.** Every call opens the file through ``open_readonly``
  (``file:...?mode=ro`` plus ``query_only``); no tool takes SQL, and every value is bound as a
  parameter. A fresh connection per call also means a database created or re-imported after
  the server started is picked up without a restart.
- **A tool per kind of question.** Customers (``find_customers``, ``top_customers``, one
  customer), segments, sales totals, monthly trends, products, countries, raw transactions. Sales
  tools count invoice lines in scope; customer tools use each customer's whole history.
- **Small answers.** Compact JSON text (no indentation, short keys, money rounded to cents, shares
  0-1 with 4 digits), the filters that were applied, and hard caps: ``MAX_LIMIT`` rows per list,
  ``MAX_COUNTRY_ROWS`` countries, ``MAX_MONTHS`` trend points, 3 top products per customer.
- **Small schemas with exact choices.** Segment, country and sort arguments advertise an ``enum``
  (a grammar-constrained decoder then cannot misspell them); ``list_tools`` drops what a model
  does not need (titles, ``anyOf`` with null for optional arguments).
- **Errors are tool errors, never crashes.** Bad arguments fail the input schema or raise
  ``ToolError``; both reach the model as ``isError`` results with a one-line reason. A missing
  database is reported the same way, with the command that creates it.
- **Short, precise descriptions** (at most 220 characters): what the tool returns, in the words
  an analyst would use, and when to use it.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import Tool as MCPTool
from pydantic import ValidationError

from agent_orchestrator.errors import RetailDatabaseError
from agent_orchestrator.mcp_server import (
    tools_analysis,
    tools_customers,
    tools_sales,
    tools_segments,
    tools_transactions,
)
from agent_orchestrator.mcp_server.arguments import compact_validation_error
from agent_orchestrator.mcp_server.config import SERVER_NAME
from agent_orchestrator.mcp_server.toolkit import ToolKit
from agent_orchestrator.retail import queries
from agent_orchestrator.retail.db import open_readonly

log = logging.getLogger(__name__)

INSTRUCTIONS = (
    "Read-only retail data: customers, orders, products, countries, segments (High Value, Regular, "
    "At Risk, New). Money is net revenue in the shop currency. Dates are YYYY-MM-DD. "
    "Recency is measured to the dataset's as-of date (see list_segments)."
)


def compact_input_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The input schema without what only costs a small model tokens.

    Drops titles (they repeat the property names) and length bounds next to an enum, and turns
    pydantic's shape of an optional argument, ``{"anyOf": [{"type": "string"}, {"type": "null"}],
    "default": null}``, into the plain type: an argument that is not required may simply be left
    out. Validation is unaffected: it runs on the tool's own argument model, not on this schema.
    """
    properties = {}
    for name, prop in schema.get("properties", {}).items():
        prop = {key: value for key, value in prop.items() if key != "title"}
        alternatives = [a for a in prop.pop("anyOf", []) if a != {"type": "null"}]
        if len(alternatives) == 1:
            prop = {**alternatives[0], **prop}
        elif alternatives:
            prop["anyOf"] = alternatives
        if "default" in prop and prop["default"] is None:
            del prop["default"]
        if "enum" in prop:  # the length bound only guards the lenient parsing of free text
            prop.pop("maxLength", None)
        properties[name] = prop
    compact = {key: value for key, value in schema.items() if key not in ("title", "properties")}
    return {**compact, "properties": properties}


class RetailMCPServer(MCPServer):
    """MCPServer with one-line argument errors and compact input schemas."""

    async def list_tools(self) -> list[MCPTool]:
        tools = await super().list_tools()
        return [t.model_copy(update={"input_schema": compact_input_schema(t.input_schema)}) for t in tools]

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                message = f"invalid arguments for {name}: {compact_validation_error(exc.__cause__)}"
                raise ToolError(message) from exc.__cause__
            raise


def _countries_for_schema(db_path: Path) -> list[str]:
    """The dataset's countries, alphabetically; none when the database does not exist (yet)."""
    try:
        conn = open_readonly(db_path)
    except RetailDatabaseError as exc:
        log.info("no country list for the tool schemas: %s", exc)
        return []
    try:
        return sorted(queries.country_names(conn))
    finally:
        conn.close()


def build_server(db_path: Path) -> MCPServer:
    """The server with its tools bound to ``db_path`` (which may not exist yet)."""
    server = RetailMCPServer(name=SERVER_NAME, instructions=INSTRUCTIONS)
    kit = ToolKit(server, db_path, _countries_for_schema(db_path))
    for module in (tools_analysis, tools_segments, tools_customers, tools_sales, tools_transactions):
        module.register(kit)
    return server

"""The ``retail-analytics`` MCP server: read-only tools over the retail SQLite file.

Design choices, because the reader is often a 0.5B local model:

- **Read-only by construction.** Every call opens the file through ``open_readonly``
  (``file:...?mode=ro`` plus ``query_only``); no tool takes SQL, and every value is bound as a
  parameter. A fresh connection per call also means a database created or re-imported after
  the server started is picked up without a restart.
- **Follows the active dataset.** The server may be given a path provider (the web app gives
  ``DatasetLibrary.current_path``) instead of a path: every call opens the file it names then, and
  when it names another file than the tools were built for, the tools are built again first, so
  their country enums are the new data's (docs/architecture.md#dataset-versions).
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
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import Tool as MCPTool
from pydantic import ValidationError

from agent_orchestrator.errors import InvalidInputError, RetailDatabaseError
from agent_orchestrator.mcp_server import (
    tools_analysis,
    tools_customers,
    tools_query,
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
    """MCPServer with one-line argument errors and compact input schemas, whose tools follow the
    file its path provider names."""

    def __init__(self, current_path: Callable[[], Path], **options: Any) -> None:
        super().__init__(**options)
        self._current_path = current_path
        self._built_for: Path | None = None
        self._semantic: tools_query.SemanticData | None = None

    def follow_data(self) -> None:
        """(Re)register the tools if the provider names another file than they were built for."""
        try:
            path = self._current_path()
        except RetailDatabaseError as exc:  # the call itself reports it, as a tool error
            log.warning("tools not rebuilt: %s", exc)
            return
        if path == self._built_for:
            return
        for tool in self._tool_manager.list_tools():
            self.remove_tool(tool.name)
        kit = ToolKit(self, self._current_path, _countries_for_schema(path))
        for module in (tools_analysis, tools_segments, tools_customers, tools_sales, tools_transactions):
            module.register(kit)
        self._semantic = _semantic_data(path)
        tools_query.register(kit, self._semantic)
        self._built_for = path

    async def list_tools(self) -> list[MCPTool]:
        self.follow_data()
        tools = await super().list_tools()
        semantic = self._semantic
        return [
            t.model_copy(
                update={
                    "input_schema": semantic.schema
                    if semantic is not None and t.name == "query_data"
                    else compact_input_schema(t.input_schema)
                }
            )
            for t in tools
        ]

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        self.follow_data()
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                message = f"invalid arguments for {name}: {compact_validation_error(exc.__cause__)}"
                raise ToolError(message) from exc.__cause__
            raise


def _semantic_data(db_path: Path) -> tools_query.SemanticData | None:
    """The semantic model and engine of the dataset file, or ``None`` (no ``query_data`` tool) when
    there is no data yet or its rows cannot be read."""
    if not db_path.is_file():
        return None
    try:
        return tools_query.semantic_data(db_path)
    except (RetailDatabaseError, InvalidInputError, OSError) as exc:
        log.warning("no query_data tool for %s: %s", db_path.name, exc)
        return None


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


def build_server(db: Path | Callable[[], Path]) -> RetailMCPServer:
    """The server with its tools over ``db``: a file (which may not exist yet), or a provider of
    the file to read at the time of each call."""
    current_path = db if callable(db) else (lambda: db)
    server = RetailMCPServer(current_path, name=SERVER_NAME, instructions=INSTRUCTIONS)
    server.follow_data()
    return server

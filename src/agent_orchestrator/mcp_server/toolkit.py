"""What every tool module shares: registration, read-only connections, name and id checks, JSON.

Each ``tools_*`` module has one ``register(kit)`` that defines its tools as closures over the kit,
so a tool's signature (its input schema) can use types built from the database, such as the
country enum, and every tool opens its connection the same way.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel

from agent_orchestrator.errors import EmptyDatasetError, RetailDatabaseError
from agent_orchestrator.mcp_server.arguments import SEGMENT_CHOICES, country_arg, is_no_filter
from agent_orchestrator.retail import queries
from agent_orchestrator.retail.countries import match_country
from agent_orchestrator.retail.db import open_readonly

_READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
_LISTED_COUNTRIES = 12
"""Countries named in an unknown-country error (most customers first); the rest are counted."""


def to_json(value: Any) -> str:
    """Compact JSON: no spaces, dates as YYYY-MM-DD, non-ASCII kept (fewer tokens)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)


def with_headline(
    result: dict[str, Any], headline: Callable[[dict[str, Any]], str], currency: str | None = None
) -> str:
    """The result as JSON, led by its one-sentence headline (see ``headlines``). ``currency``, the
    dataset's when it names one, goes into the result so that the headline's amounts and the chart
    drawn from it later (``web/charts.py``) carry the currency the figures were computed in."""
    if currency:
        result = {**result, "currency": currency}
    return to_json({"headline": headline(result), **result})


def applied(filters: BaseModel) -> dict[str, Any]:
    """The filters a result was computed with, so an answer can say what was counted."""
    return filters.model_dump(mode="json", exclude_none=True)


class ToolKit:
    """Tools of one server over the database file ``current_path`` names at the time of each call
    (which may not exist when the server starts)."""

    def __init__(self, server: MCPServer, current_path: Callable[[], Path], countries: Sequence[str]) -> None:
        self.server = server
        self.current_path = current_path
        self.countries = list(countries)
        self.segments = list(SEGMENT_CHOICES)
        self.country_type = country_arg(countries)
        """Type of every ``country`` argument (with the countries known at build time as its enum)."""

    def tool(self, description: str) -> Callable[[Callable[..., str]], Callable[..., str]]:
        return self.server.tool(description=description, annotations=_READ_ONLY, structured_output=False)

    @contextmanager
    def connect(self) -> Iterator[sqlite3.Connection]:
        """A fresh read-only connection per call, to the file named now: a database created,
        re-imported or switched to another version later is seen."""
        try:
            conn = open_readonly(self.current_path())
        except RetailDatabaseError as exc:
            raise ToolError(str(exc)) from exc
        try:
            yield conn
        except EmptyDatasetError as exc:
            raise ToolError(str(exc)) from exc
        finally:
            conn.close()


def resolve_country(conn: sqlite3.Connection, text: str | None) -> str | None:
    """The dataset's name for ``text`` ("UK" -> "United Kingdom"), ``None`` for no filter.

    Looked up per call rather than from the build-time enum, so it follows the current file.
    """
    if text is None or is_no_filter(text):
        return None
    if not queries.records_countries(conn):
        raise ToolError(queries.NO_COUNTRIES)
    names = queries.country_names(conn)
    found = match_country(text, names)
    if found is None:
        listed = ", ".join(names[:_LISTED_COUNTRIES])
        more = f" and {len(names) - _LISTED_COUNTRIES} more" if len(names) > _LISTED_COUNTRIES else ""
        raise ToolError(f"no country named {text!r} in the data; countries: {listed}{more}")
    return found


def known_product(conn: sqlite3.Connection, text: str | None) -> str | None:
    """``text`` if some product's code or name matches it; a typo is an error, not zero sales."""
    if text is None or not text.strip():
        return None
    if not queries.count_products(conn, text.strip()):
        raise ToolError(f"no product matching {text!r} in the data")
    return text.strip()


def known_customer(conn: sqlite3.Connection, customer_id: int | None) -> int | None:
    """``customer_id`` if it is in the data: an unknown id is an error, not an empty result."""
    if customer_id is not None and not queries.customer_exists(conn, customer_id):
        raise ToolError(f"no customer with id {customer_id}")
    return customer_id

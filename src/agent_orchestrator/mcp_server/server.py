"""The ``retail-analytics`` MCP server: read-only tools over the retail SQLite file.

Design choices, because the reader is often a 0.5B local model:

- **Read-only by construction.** Every call opens the file through ``open_readonly``
  (``file:...?mode=ro`` plus ``query_only``); no tool takes SQL, and every value is bound as a
  parameter. A fresh connection per call also means a database created or re-imported after
  the server started is picked up without a restart.
- **Small answers.** Compact JSON text (no indentation, short keys, money rounded to cents) and
  hard caps: ``MAX_LIMIT`` rows per list, ``MAX_MONTHS`` trend points, 3 top products.
- **Errors are tool errors, never crashes.** Bad arguments fail the input schema or raise
  ``ToolError``; both reach the model as ``isError`` results with a one-line reason. A missing
  database is reported the same way, with the command that creates it.
- **Short, precise descriptions**: what the tool returns and the units, nothing else.
"""

from __future__ import annotations

import json
import logging
import re
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field, ValidationError

from agent_orchestrator.mcp_server.config import MAX_LIMIT, MAX_MONTHS, SERVER_NAME
from agent_orchestrator.retail import queries
from agent_orchestrator.retail.db import RetailDatabaseError, open_readonly
from agent_orchestrator.retail.models import CustomerListItem, SegmentSummary, Transaction, TransactionFilter
from agent_orchestrator.retail.segments import SEGMENT_ORDER, Segment

log = logging.getLogger(__name__)

SEGMENT_NAMES = ", ".join(s.value for s in SEGMENT_ORDER)

INSTRUCTIONS = (
    "Read-only retail data: customers, orders, segments (High Value, Regular, At Risk, New). "
    "Money is net revenue in the shop currency. Dates are YYYY-MM-DD. "
    "Recency is measured to the dataset's as-of date (see list_segments)."
)

_READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
_SEGMENT_KEYS = {re.sub(r"[^a-z]", "", s.value.lower()): s for s in Segment}


def parse_segment(text: str) -> Segment:
    """Lenient on purpose: small models write "at risk", "AT_RISK" or "High-Value"."""
    segment = _SEGMENT_KEYS.get(re.sub(r"[^a-z]", "", text.lower()))
    if segment is None:
        raise ToolError(f"unknown segment {text!r}; use one of: {SEGMENT_NAMES}")
    return segment


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)


def _transaction(t: Transaction) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": t.transaction_id,
        "invoice": t.invoice,
        "date": t.invoiced_at.strftime("%Y-%m-%d %H:%M"),
        "customer": t.customer_id,
        "country": t.country,
        "product": t.description,
        "qty": t.quantity,
        "price": t.unit_price,
        "amount": t.amount,
    }
    if t.is_cancellation:
        out["cancelled"] = True
    return out


def _segment(s: SegmentSummary) -> dict[str, Any]:
    return {
        "segment": s.segment,
        "customers": s.customers,
        "share": s.customer_share,
        "revenue": s.revenue,
        "revenue_share": s.revenue_share,
        "orders": s.orders,
        "avg_order_value": s.avg_order_value,
        "avg_recency_days": s.avg_recency_days,
        "repeat_rate": s.repeat_rate,
        "retention_rate": s.retention_rate,
    }


def _customer(c: CustomerListItem) -> dict[str, Any]:
    return {
        "id": c.customer_id,
        "country": c.country,
        "segment": c.segment.value,
        "orders": c.orders,
        "revenue": c.revenue,
        "last_purchase": c.last_purchase.isoformat(),
    }


def compact_validation_error(exc: ValidationError) -> str:
    """``limit: Input should be less than or equal to 50`` rather than pydantic's multi-line text.

    The default message carries the model class name and a documentation URL per error: noise
    that a small model may copy into its answer instead of fixing the argument.
    """
    parts = []
    for err in exc.errors():
        where = ".".join(str(part) for part in err["loc"])
        message = err["msg"].removeprefix("Value error, ")
        parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts)


class RetailMCPServer(MCPServer):
    """MCPServer whose argument-validation errors are one short line."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                message = f"invalid arguments for {name}: {compact_validation_error(exc.__cause__)}"
                raise ToolError(message) from exc.__cause__
            raise


def build_server(db_path: Path) -> MCPServer:
    """The server with its tools bound to ``db_path`` (which may not exist yet)."""
    server = RetailMCPServer(name=SERVER_NAME, instructions=INSTRUCTIONS)

    @contextmanager
    def connect() -> Iterator[sqlite3.Connection]:
        try:
            conn = open_readonly(db_path)
        except RetailDatabaseError as exc:
            raise ToolError(str(exc)) from exc
        try:
            yield conn
        except queries.EmptyDatasetError as exc:
            raise ToolError(str(exc)) from exc
        finally:
            conn.close()

    def tool(description: str) -> Callable[[Callable[..., str]], Callable[..., str]]:
        return server.tool(description=description, annotations=_READ_ONLY, structured_output=False)

    @tool(
        f"List transactions (invoice lines), newest first. All filters optional. Returns total and up to "
        f"limit (max {MAX_LIMIT}) items. Dates YYYY-MM-DD inclusive; amounts compare the line amount."
    )
    def list_transactions(
        customer_id: Annotated[int | None, Field(ge=1, description="Customer id")] = None,
        date_from: Annotated[date | None, Field(description="First day, YYYY-MM-DD")] = None,
        date_to: Annotated[date | None, Field(description="Last day, YYYY-MM-DD")] = None,
        min_amount: Annotated[float | None, Field(description="Minimum line amount")] = None,
        max_amount: Annotated[float | None, Field(description="Maximum line amount")] = None,
        country: Annotated[str | None, Field(max_length=64, description="Country name")] = None,
        limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description=f"Rows, 1-{MAX_LIMIT}")] = 10,
    ) -> str:
        try:
            filters = TransactionFilter(
                customer_id=customer_id,
                date_from=date_from,
                date_to=date_to,
                min_amount=min_amount,
                max_amount=max_amount,
                country=country or None,
            )
        except ValidationError as exc:
            raise ToolError(compact_validation_error(exc)) from exc
        with connect() as conn:
            page = queries.list_transactions(conn, filters, limit=limit)
        return _json({"total": page.total, "items": [_transaction(t) for t in page.items]})

    @tool("Get one transaction (invoice line) by its id.")
    def get_transaction(transaction_id: Annotated[int, Field(ge=1, description="Transaction id")]) -> str:
        with connect() as conn:
            found = queries.get_transaction(conn, transaction_id)
        if found is None:
            raise ToolError(f"no transaction with id {transaction_id}")
        return _json(_transaction(found))

    @tool(
        "Segment overview: customers, revenue, average order value, repeat and retention rates per "
        "segment (High Value, Regular, At Risk, New), rules, as-of date. Use for any segment question."
    )
    def list_segments() -> str:
        with connect() as conn:
            overview = queries.segment_overview(conn)
        return _json(
            {
                "as_of": overview.as_of,
                "segments": [_segment(s) for s in overview.segments],
                "all": _segment(overview.overall),
                "rules": overview.rules.rules if overview.rules else [],
            }
        )

    @tool(
        "One customer's details, only when the user gives that customer's id number: segment and why, "
        "orders, net revenue, average order value, first/last purchase, recency, RFM scores, top products."
    )
    def get_customer_summary(customer_id: Annotated[int, Field(ge=1, description="Customer id")]) -> str:
        with connect() as conn:
            found = queries.get_customer(conn, customer_id)
        if found is None:
            raise ToolError(f"no customer with id {customer_id}")
        return _json(
            {
                "id": found.customer_id,
                "country": found.country,
                "segment": found.segment.value,
                "reason": found.segment_reason,
                "orders": found.orders,
                "revenue": found.revenue,
                "avg_order_value": found.avg_order_value,
                "first_purchase": found.first_purchase.isoformat(),
                "last_purchase": found.last_purchase.isoformat(),
                "recency_days": found.recency_days,
                "rfm": found.rfm.model_dump(),
                "cancellations": found.cancellations,
                "top_products": [
                    {"product": p.description, "revenue": p.revenue} for p in found.top_products[:3]
                ],
            }
        )

    @tool(
        "Which segment a customer with these numbers would be in, using this dataset's rules. "
        "recency_days: days since last order; frequency: number of orders; monetary: net spend."
    )
    def predict_segment(
        recency_days: Annotated[int, Field(ge=0, le=36_500, description="Days since last order")],
        frequency: Annotated[int, Field(ge=1, le=1_000_000, description="Number of orders")],
        monetary: Annotated[float, Field(ge=-1e9, le=1e9, description="Net spend")],
    ) -> str:
        with connect() as conn:
            prediction = queries.predict_segment(conn, recency_days, frequency, monetary)
        return _json(
            {
                "segment": prediction.segment.value,
                "reason": prediction.reason,
                "rfm": prediction.rfm.model_dump(),
            }
        )

    @tool(
        f"Top customers by net revenue, optionally of one segment ({SEGMENT_NAMES}). "
        f"Up to limit (max {MAX_LIMIT}) customers."
    )
    def top_customers(
        segment: Annotated[str | None, Field(max_length=32, description=f"One of: {SEGMENT_NAMES}")] = None,
        limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description=f"Customers, 1-{MAX_LIMIT}")] = 10,
    ) -> str:
        chosen = parse_segment(segment) if segment else None
        with connect() as conn:
            customers = queries.top_customers(conn, chosen, limit)
        return _json(
            {"segment": chosen.value if chosen else "All", "customers": [_customer(c) for c in customers]}
        )

    @tool(
        f"Monthly revenue, orders and buyers of the customers now in a segment, for the last "
        f"months (max {MAX_MONTHS}) up to the as-of date, oldest first."
    )
    def segment_trend(
        segment: Annotated[str, Field(max_length=32, description=f"One of: {SEGMENT_NAMES}")],
        months: Annotated[int, Field(ge=1, le=MAX_MONTHS, description=f"Months, 1-{MAX_MONTHS}")] = 6,
    ) -> str:
        chosen = parse_segment(segment)
        with connect() as conn:
            trend = queries.segment_trend(conn, chosen, months)
        return _json(
            {
                "segment": trend.segment.value,
                "customers": trend.customers,
                "months": [
                    {"month": p.month, "revenue": p.revenue, "orders": p.orders, "buyers": p.active_customers}
                    for p in trend.months
                ],
            }
        )

    return server

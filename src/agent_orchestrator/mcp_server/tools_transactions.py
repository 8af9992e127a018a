"""Transaction tools: filtered invoice lines (a few, newest first) and one line by id.

No ``from __future__ import annotations``: see ``tools_customers``.
"""

from typing import TYPE_CHECKING, Annotated, Any, TypeAlias

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from agent_orchestrator.mcp_server import headlines
from agent_orchestrator.mcp_server.arguments import CustomerId, DateFrom, DateTo, Limit, validated
from agent_orchestrator.mcp_server.toolkit import (
    ToolKit,
    applied,
    known_customer,
    resolve_country,
    to_json,
    with_headline,
)
from agent_orchestrator.retail import queries
from agent_orchestrator.retail.models import Transaction, TransactionFilter


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


def register(kit: ToolKit) -> None:
    if TYPE_CHECKING:  # the type checker's view of the per-server type: see tools_customers
        Country: TypeAlias = str | None
    else:
        Country = kit.country_type

    @kit.tool(
        "List individual transactions (invoice lines), newest first, by customer, country, dates or line "
        "amount: the matching count and a few rows. For totals use sales_summary."
    )
    def list_transactions(
        customer_id: CustomerId = None,
        date_from: DateFrom = None,
        date_to: DateTo = None,
        min_amount: Annotated[float | None, Field(description="Minimum line amount")] = None,
        max_amount: Annotated[float | None, Field(description="Maximum line amount")] = None,
        country: Country = None,
        limit: Limit = 10,
    ) -> str:
        with kit.connect() as conn:
            filters = validated(
                TransactionFilter,
                customer_id=known_customer(conn, customer_id),
                date_from=date_from,
                date_to=date_to,
                min_amount=min_amount,
                max_amount=max_amount,
                country=resolve_country(conn, country),
            )
            page = queries.list_transactions(conn, filters, limit=limit)
        return with_headline(
            {
                "filters": applied(filters),
                "total": page.total,
                "items": [_transaction(t) for t in page.items],
            },
            headlines.transactions,
        )

    @kit.tool("Get one transaction (invoice line) by its id.")
    def get_transaction(transaction_id: Annotated[int, Field(ge=1, description="Transaction id")]) -> str:
        with kit.connect() as conn:
            found = queries.get_transaction(conn, transaction_id)
        if found is None:
            raise ToolError(f"no transaction with id {transaction_id}")
        return to_json(_transaction(found))

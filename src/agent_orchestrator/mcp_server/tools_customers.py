"""Customer tools: find and count customers by filters, the biggest spenders, one customer's summary.

No ``from __future__ import annotations`` here: the tool signatures use ``kit.country_type``, a local
name that MCP's signature inspection could not resolve from a string annotation.
"""

from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from agent_orchestrator.mcp_server import headlines
from agent_orchestrator.mcp_server.arguments import (
    DateFrom,
    DateTo,
    Limit,
    SegmentArg,
    parse_segment,
    validated,
)
from agent_orchestrator.mcp_server.toolkit import ToolKit, applied, resolve_country, with_headline
from agent_orchestrator.retail import queries
from agent_orchestrator.retail.analysis import dataset_currency
from agent_orchestrator.retail.models import CustomerFilter, CustomerListItem, CustomerSortKey

Days = Annotated[int | None, Field(ge=0, le=36_500)]
Orders = Annotated[int | None, Field(ge=0, le=1_000_000)]


def _customer(c: CustomerListItem) -> dict[str, Any]:
    return {
        "id": c.customer_id,
        "country": c.country,
        "segment": c.segment.value,
        "orders": c.orders,
        "revenue": c.revenue,
        "last_purchase": c.last_purchase.isoformat(),
        "recency_days": c.recency_days,
    }


def register(kit: ToolKit) -> None:
    # Built per server, with the dataset's countries as its enum: a value, not a type, to a type checker,
    # which sees what it annotates instead, an optional country name.
    if TYPE_CHECKING:
        Country: TypeAlias = str | None
    else:
        Country = kit.country_type

    @kit.tool(
        "How many customers, and which ones, in a segment (e.g. At Risk) and/or country; by days or "
        "months since they last bought, spend or number of orders (e.g. more than 10). Count and list; "
        "churn, inactive."
    )
    def find_customers(
        segment: SegmentArg = None,
        country: Country = None,
        min_recency_days: Annotated[Days, Field(description="Last order at least this many days ago")] = None,
        max_recency_days: Annotated[Days, Field(description="Last order within this many days")] = None,
        min_revenue: Annotated[float | None, Field(description="Net spend at least")] = None,
        max_revenue: Annotated[float | None, Field(description="Net spend up to")] = None,
        min_orders: Annotated[Orders, Field(description="Orders at least")] = None,
        max_orders: Annotated[Orders, Field(description="Orders up to")] = None,
        first_purchase_from: Annotated[DateFrom, Field(description="First order on or after")] = None,
        first_purchase_to: Annotated[DateTo, Field(description="First order on or before")] = None,
        last_purchase_from: Annotated[DateFrom, Field(description="Last order on or after")] = None,
        last_purchase_to: Annotated[DateTo, Field(description="Last order on or before")] = None,
        sort_by: Annotated[CustomerSortKey, Field(description="recency = days since last order")] = "revenue",
        order: Annotated[Literal["desc", "asc"], Field(description="desc = largest/latest first")] = "desc",
        limit: Limit = 10,
        offset: Annotated[int, Field(ge=0, le=1_000_000, description="Rows to skip")] = 0,
    ) -> str:
        with kit.connect() as conn:
            filters = validated(
                CustomerFilter,
                segment=parse_segment(segment),
                country=resolve_country(conn, country),
                min_recency_days=min_recency_days,
                max_recency_days=max_recency_days,
                min_revenue=min_revenue,
                max_revenue=max_revenue,
                min_orders=min_orders,
                max_orders=max_orders,
                first_purchase_from=first_purchase_from,
                first_purchase_to=first_purchase_to,
                last_purchase_from=last_purchase_from,
                last_purchase_to=last_purchase_to,
            )
            page = queries.find_customers(
                conn, filters, sort_by=sort_by, descending=order == "desc", limit=limit, offset=offset
            )
            revenue = queries.customers_revenue(conn, filters)
            currency = dataset_currency(conn)
        return with_headline(
            {
                "filters": applied(filters),
                "total": page.total,
                "total_revenue": revenue,
                "offset": offset,
                "customers": [_customer(c) for c in page.items],
            },
            headlines.find_customers,
            currency,
        )

    @kit.tool("Top customers by net revenue: the biggest spenders, optionally of one segment and/or country.")
    def top_customers(segment: SegmentArg = None, country: Country = None, limit: Limit = 5) -> str:
        with kit.connect() as conn:
            filters = CustomerFilter(segment=parse_segment(segment), country=resolve_country(conn, country))
            customers = queries.find_customers(conn, filters, limit=limit).items
            currency = dataset_currency(conn)
        return with_headline(
            {"filters": applied(filters), "customers": [_customer(c) for c in customers]},
            headlines.top_customers,
            currency,
        )

    @kit.tool(
        "One customer's details, only when the user gives that customer's id number: segment and why, "
        "country, orders, net revenue, average order value, first/last purchase, recency, top products."
    )
    def get_customer_summary(customer_id: Annotated[int, Field(ge=1, description="Customer id")]) -> str:
        with kit.connect() as conn:
            found = queries.get_customer(conn, customer_id)
            currency = dataset_currency(conn)
        if found is None:
            raise ToolError(f"no customer with id {customer_id}")
        return with_headline(
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
            },
            headlines.customer_summary,
            currency,
        )

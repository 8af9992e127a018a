"""Sales tools: totals, monthly trends, best-selling products and the breakdown by country.

They count invoice lines in scope (net of cancellations), so a date range applies; a segment means
the customers now in it. No ``from __future__ import annotations``: see ``tools_customers``.
"""

import sqlite3
from datetime import date
from typing import TYPE_CHECKING, Annotated, Any, TypeAlias

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from agent_orchestrator.mcp_server import headlines
from agent_orchestrator.mcp_server.arguments import (
    CustomerId,
    DateFrom,
    DateTo,
    Limit,
    ProductArg,
    SegmentArg,
    parse_segment,
    validated,
)
from agent_orchestrator.mcp_server.config import MAX_COUNTRY_ROWS, MAX_MONTHS
from agent_orchestrator.mcp_server.toolkit import (
    ToolKit,
    applied,
    known_customer,
    known_product,
    resolve_country,
    with_headline,
)
from agent_orchestrator.retail import queries
from agent_orchestrator.retail.analysis import dataset_currency
from agent_orchestrator.retail.models import ProductSortKey, SalesFilter, TrendPoint
from agent_orchestrator.retail.money import cents
from agent_orchestrator.retail.queries import month_index
from agent_orchestrator.retail.stats import load_as_of


def register(kit: ToolKit) -> None:
    if TYPE_CHECKING:  # the type checker's view of the per-server type: see tools_customers
        Country: TypeAlias = str | None
    else:
        Country = kit.country_type

    @kit.tool(
        "Totals for a month, quarter, year or other period, and/or a country, segment, customer or "
        "product: revenue, orders, buyers, units, average order value. How much: e.g. revenue in March 2024."
    )
    def sales_summary(
        date_from: DateFrom = None,
        date_to: DateTo = None,
        country: Country = None,
        segment: SegmentArg = None,
        customer_id: CustomerId = None,
        product: ProductArg = None,
    ) -> str:
        with kit.connect() as conn:
            filters = _sales_filter(conn, segment, country, customer_id, product, date_from, date_to)
            totals = queries.sales_summary(conn, filters)
            currency = dataset_currency(conn)
        return with_headline(
            {
                "filters": applied(filters),
                "revenue": totals.revenue,
                "orders": totals.orders,
                "customers": totals.buyers,
                "units": totals.units,
                "avg_order_value": totals.avg_order_value,
                "first_day": totals.first_day,
                "last_day": totals.last_day,
            },
            headlines.sales_summary,
            currency,
        )

    @kit.tool(
        "Monthly trend: revenue, orders and buyers per month, oldest first, for the last N months or the "
        "months from date_from to date_to; overall or for a segment and/or country. For growth, seasonality."
    )
    def monthly_trend(
        months: Annotated[int, Field(ge=1, le=MAX_MONTHS, description=f"Last N months, 1-{MAX_MONTHS}")] = 6,
        date_from: Annotated[DateFrom, Field(description="First month, YYYY-MM (instead of months)")] = None,
        date_to: Annotated[DateTo, Field(description="Last month, YYYY-MM (default: the latest)")] = None,
        segment: SegmentArg = None,
        country: Country = None,
    ) -> str:
        with kit.connect() as conn:
            filters = validated(
                SalesFilter,
                segment=parse_segment(segment),
                country=resolve_country(conn, country),
                date_from=date_from,
                date_to=date_to,
            )
            last = date_to or load_as_of(conn)
            if date_from and last and month_index(last) - month_index(date_from) >= MAX_MONTHS:
                raise ToolError(f"date_from to date_to spans more than {MAX_MONTHS} months; narrow it")
            points = queries.monthly_trend(
                conn, months, segment=filters.segment, country=filters.country, first=date_from, last=date_to
            )
            currency = dataset_currency(conn)
        return with_headline(
            {
                "filters": applied(filters),
                "summary": trend_summary(points),
                "months": [
                    {"month": p.month, "revenue": p.revenue, "orders": p.orders, "buyers": p.active_customers}
                    for p in points
                ],
            },
            headlines.monthly_trend,
            currency,
        )

    @kit.tool(
        "Best-selling products by net revenue or units, optionally for one segment, country, customer or "
        "period, or products matching a name: revenue, units, orders and buyers per product."
    )
    def top_products(
        sort_by: Annotated[ProductSortKey, Field(description="Rank by revenue or units sold")] = "revenue",
        product: ProductArg = None,
        segment: SegmentArg = None,
        country: Country = None,
        customer_id: CustomerId = None,
        date_from: DateFrom = None,
        date_to: DateTo = None,
        limit: Limit = 5,
    ) -> str:
        with kit.connect() as conn:
            filters = _sales_filter(conn, segment, country, customer_id, product, date_from, date_to)
            products = queries.top_products(conn, filters, sort_by=sort_by, limit=limit)
            currency = dataset_currency(conn)
        return with_headline(
            {
                "filters": applied(filters),
                "by": sort_by,
                "products": [
                    {
                        "product": p.description,
                        "code": p.stock_code,
                        "revenue": p.revenue,
                        "quantity": p.quantity,
                        "orders": p.orders,
                        "buyers": p.buyers,
                    }
                    for p in products
                ],
            },
            headlines.top_products,
            currency,
        )

    @kit.tool(
        "Revenue by country, biggest first: which country buys most, its revenue share, customers, orders, "
        "average order value; optionally for one segment or period. Breakdown of sales per country."
    )
    def country_breakdown(
        segment: SegmentArg = None,
        date_from: DateFrom = None,
        date_to: DateTo = None,
        limit: Annotated[
            int, Field(ge=1, le=MAX_COUNTRY_ROWS, description=f"Countries, 1-{MAX_COUNTRY_ROWS}")
        ] = 10,
    ) -> str:
        filters = validated(SalesFilter, segment=parse_segment(segment), date_from=date_from, date_to=date_to)
        with kit.connect() as conn:
            if not queries.records_countries(conn):
                raise ToolError(queries.NO_COUNTRIES)
            countries = queries.country_breakdown(conn, filters)
            currency = dataset_currency(conn)
        return with_headline(
            {
                "filters": applied(filters),
                "total": len(countries),
                "countries": [
                    {
                        "country": c.country,
                        "customers": c.buyers,
                        "revenue": c.revenue,
                        "revenue_share": c.revenue_share,
                        "orders": c.orders,
                        "avg_order_value": c.avg_order_value,
                    }
                    for c in countries[:limit]
                ],
            },
            headlines.country_breakdown,
            currency,
        )


def trend_summary(points: list[TrendPoint]) -> dict[str, Any]:
    """The facts a trend question asks for, computed here so a small model copies rather than
    compares twelve numbers itself: totals, the strongest and weakest month, the change."""
    if not points:
        return {}
    best = max(points, key=lambda p: (p.revenue, p.month))
    worst = min(points, key=lambda p: (p.revenue, p.month))
    first, last = points[0], points[-1]
    change = None if not first.revenue else round((last.revenue - first.revenue) / abs(first.revenue), 4)
    return {
        "total_revenue": cents(sum(p.revenue for p in points)),
        "total_orders": sum(p.orders for p in points),
        "highest_revenue_month": best.month,
        "highest_revenue": best.revenue,
        "lowest_revenue_month": worst.month,
        "lowest_revenue": worst.revenue,
        "revenue_change_rate": change,
    }


def _sales_filter(
    conn: sqlite3.Connection,
    segment: str | None,
    country: str | None,
    customer_id: int | None,
    product: str | None,
    date_from: date | None,
    date_to: date | None,
) -> SalesFilter:
    """The filter of the sales tools, every name checked against the data (unknown: a ToolError)."""
    return validated(
        SalesFilter,
        segment=parse_segment(segment),
        country=resolve_country(conn, country),
        customer_id=known_customer(conn, customer_id),
        product=known_product(conn, product),
        date_from=date_from,
        date_to=date_to,
    )

"""Result and filter models shared by the query layer, the REST API and the MCP server.

Pydantic rather than dataclasses because the same classes are the API's response models (their
field descriptions become the OpenAPI docs) and the filters validate untrusted input in both the
API and the MCP tools. Filters use ``extra="forbid"`` so a misspelt filter is an error, not a
silently ignored field.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Generic, Literal, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from agent_orchestrator.retail.segments import Segment

MAX_PAGE = 500
"""Largest page the REST API serves; the MCP server has its own, smaller MAX_LIMIT."""
MAX_ID = 2**63 - 1
"""Largest id the REST API looks up: SQLite's integers are 64-bit signed, so a larger one cannot be in
the data, and binding it would fail."""

Money = Annotated[float, Field(description="Amount in the shop's currency, 2 decimals.")]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


class SegmentSummary(_Frozen):
    segment: str = Field(description='A segment name, or "All" for the whole customer base.')
    customers: int = Field(description="Customers in the segment.")
    customer_share: float = Field(description="Share of all segmented customers (0-1).")
    revenue: Money = Field(description="Net revenue of these customers over the whole dataset.")
    revenue_share: float = Field(description="Share of total net revenue (0-1).")
    orders: int = Field(description="Non-cancelled orders (invoices).")
    avg_order_value: Money | None = Field(description="revenue / orders.")
    avg_recency_days: float | None = Field(description="Mean days since the last purchase.")
    repeat_rate: float | None = Field(description="Share of customers with 2+ orders.")
    retention_rate: float | None = Field(
        description="Of customers whose first purchase is 90+ days old, the share who bought again "
        "90+ days after it; null when none qualify (all New customers)."
    )


class SegmentRulesInfo(_Frozen):
    active_days: int = Field(description="At Risk = no purchase in this many days.")
    high_value_above: Money = Field(description="High Value = active repeat buyer spending more than this.")
    rules: list[str] = Field(description="The rules in the order they are applied; first match wins.")


class SegmentOverview(_Frozen):
    as_of: date | None = Field(description="Date of the latest purchase; recency is measured to it.")
    rules: SegmentRulesInfo | None
    segments: list[SegmentSummary] = Field(description="One entry per segment, in the lab's order.")
    overall: SegmentSummary


class RfmScores(_Frozen):
    r: int = Field(ge=1, le=5, description="Recency quintile, 5 = bought most recently.")
    f: int = Field(ge=1, le=5, description="Frequency quintile, 5 = most orders.")
    m: int = Field(ge=1, le=5, description="Monetary quintile, 5 = highest spend.")


class CustomerListItem(_Frozen):
    customer_id: int
    country: str
    segment: Segment
    orders: int
    revenue: Money
    last_purchase: date
    recency_days: int
    rfm: RfmScores


class ProductShare(_Frozen):
    stock_code: str
    description: str
    quantity: int = Field(description="Net units (cancelled units subtract).")
    revenue: Money


class ProductSales(ProductShare):
    orders: int = Field(description="Non-cancelled invoices with the product.")
    buyers: int = Field(description="Customers who bought it.")


class SalesTotals(_Frozen):
    revenue: Money = Field(description="Net revenue of the lines in scope (cancellations subtract).")
    orders: int = Field(description="Non-cancelled invoices.")
    buyers: int = Field(description="Customers with a non-cancelled purchase.")
    units: int = Field(description="Net units sold.")
    avg_order_value: Money | None = Field(description="revenue / orders.")
    first_day: date | None = Field(description="Day of the first line in scope; null when there is none.")
    last_day: date | None = Field(description="Day of the last line in scope.")


class CountrySales(_Frozen):
    country: str
    buyers: int = Field(description="Customers with a non-cancelled purchase from this country.")
    revenue: Money
    revenue_share: float = Field(description="Share of the revenue of all countries in scope (0-1).")
    orders: int
    avg_order_value: Money | None


class CustomerDetail(CustomerListItem):
    first_purchase: date
    tenure_days: int = Field(description="Days since the first purchase.")
    cancellations: int = Field(description="Cancelled invoices.")
    avg_order_value: Money | None
    segment_reason: str = Field(description="Which rule put the customer in the segment.")
    top_products: list[ProductShare] = Field(description="Up to 5 products by net revenue.")


class Transaction(_Frozen):
    transaction_id: int
    invoice: str = Field(
        description='Invoice or order number; a "C..." invoice of the Online Retail files is a cancellation.'
    )
    invoiced_at: datetime
    customer_id: int
    country: str
    stock_code: str
    description: str
    quantity: int = Field(description="Negative on cancellation lines.")
    unit_price: Money
    amount: Money = Field(description="quantity * unit_price.")
    is_cancellation: bool


T = TypeVar("T")


class Page(_Frozen, Generic[T]):
    total: int = Field(description="Rows matching the filters, ignoring limit/offset.")
    limit: int
    offset: int
    items: list[T]


class TrendPoint(_Frozen):
    month: str = Field(description="YYYY-MM")
    revenue: Money
    orders: int
    active_customers: int = Field(
        description="Customers with a purchase that month (of the segment or country, if one is given)."
    )


class SegmentTrend(_Frozen):
    segment: Segment
    customers: int = Field(description="Customers currently in the segment.")
    months: list[TrendPoint] = Field(description="Oldest first, ending with the as-of month.")


class CustomerTrend(_Frozen):
    customer_id: int
    months: list[TrendPoint] = Field(description="Oldest first, ending with the as-of month.")


class SegmentPrediction(_Frozen):
    segment: Segment
    reason: str
    rfm: RfmScores


def _require_ordered(model: BaseModel, low: str, high: str) -> None:
    """``low <= high`` when both bounds are given; the message names the fields for the caller."""
    lo, hi = getattr(model, low), getattr(model, high)
    if lo is not None and hi is not None and lo > hi:
        verb = "be after" if isinstance(lo, date) else "exceed"
        raise ValueError(f"{low} must not {verb} {high}")


CustomerSortKey = Literal["revenue", "orders", "recency", "last_purchase"]
"""What a customer list can be ordered by; ``recency`` is days since the last order."""

ProductSortKey = Literal["revenue", "quantity"]

Country = Annotated[str, Field(min_length=1, max_length=64, description="Country name, case-insensitive.")]


class CustomerFilter(BaseModel):
    """Filters for customer lists over ``customer_stats``; every field optional, ranges inclusive."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    segment: Segment | None = None
    country: Country | None = None
    min_recency_days: int | None = Field(default=None, ge=0, description="Last order at least this old.")
    max_recency_days: int | None = Field(default=None, ge=0, description="Last order at most this old.")
    min_revenue: float | None = Field(default=None, description="Smallest net revenue included.")
    max_revenue: float | None = Field(default=None, description="Largest net revenue included.")
    min_orders: int | None = Field(default=None, ge=0, description="Fewest orders included.")
    max_orders: int | None = Field(default=None, ge=0, description="Most orders included.")
    first_purchase_from: date | None = None
    first_purchase_to: date | None = None
    last_purchase_from: date | None = None
    last_purchase_to: date | None = None

    @model_validator(mode="after")
    def _ranges_ordered(self) -> Self:
        for low, high in (
            ("min_recency_days", "max_recency_days"),
            ("min_revenue", "max_revenue"),
            ("min_orders", "max_orders"),
            ("first_purchase_from", "first_purchase_to"),
            ("last_purchase_from", "last_purchase_to"),
        ):
            _require_ordered(self, low, high)
        return self


class SalesFilter(BaseModel):
    """Which invoice lines a sales figure counts; every field optional, dates inclusive.

    ``segment`` means the customers *now* in that segment (segments are not kept per month).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    segment: Segment | None = None
    country: Country | None = None
    customer_id: int | None = Field(default=None, ge=1)
    product: str | None = Field(
        default=None, min_length=1, max_length=64, description="Stock code, or part of the product name."
    )
    date_from: date | None = None
    date_to: date | None = None

    @model_validator(mode="after")
    def _ranges_ordered(self) -> Self:
        _require_ordered(self, "date_from", "date_to")
        return self


class TransactionFilter(BaseModel):
    """Filters for transaction lists; every field optional, bounds checked across fields."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    customer_id: int | None = Field(default=None, ge=1, le=MAX_ID, description="Only this customer's lines.")
    date_from: date | None = Field(default=None, description="First day included (YYYY-MM-DD).")
    date_to: date | None = Field(default=None, description="Last day included (YYYY-MM-DD).")
    min_amount: float | None = Field(default=None, description="Smallest line amount included.")
    max_amount: float | None = Field(default=None, description="Largest line amount included.")
    country: Country | None = None

    @model_validator(mode="after")
    def _ranges_ordered(self) -> Self:
        _require_ordered(self, "date_from", "date_to")
        _require_ordered(self, "min_amount", "max_amount")
        return self

"""``/customers``: pages of customers by revenue (filters: segment, country), one customer's summary
and their purchases per month."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Path, Query, status
from pydantic import BaseModel, ConfigDict, Field

from agent_orchestrator.retail import queries
from agent_orchestrator.retail.api.deps import RetailDb
from agent_orchestrator.retail.models import (
    MAX_ID,
    MAX_PAGE,
    CustomerDetail,
    CustomerListItem,
    CustomerTrend,
    Page,
)
from agent_orchestrator.retail.segments import Segment

router = APIRouter(prefix="/customers", tags=["retail: customers"])


class CustomerQuery(BaseModel):
    """Query string of the customer list; unknown parameters are rejected (422), not ignored."""

    model_config = ConfigDict(extra="forbid")

    segment: Segment | None = Field(default=None, description="Only customers of this segment.")
    country: str | None = Field(default=None, min_length=1, max_length=64, description="Case-insensitive.")
    limit: int = Field(default=50, ge=1, le=MAX_PAGE)
    offset: int = Field(default=0, ge=0, le=10_000_000)


@router.get(
    "",
    response_model=Page[CustomerListItem],
    summary="List customers",
    description="Customers ordered by net revenue (highest first), with segment and RFM scores.",
)
def list_customers(db: RetailDb, query: Annotated[CustomerQuery, Query()]) -> Page[CustomerListItem]:
    return queries.list_customers(
        db, segment=query.segment, country=query.country, limit=query.limit, offset=query.offset
    )


@router.get(
    "/{customer_id}",
    response_model=CustomerDetail,
    summary="Customer summary",
    description="Orders, revenue, recency, RFM scores, segment (and the rule that applied), top products.",
    responses={404: {"description": "No customer with purchases has this id."}},
)
def get_customer(db: RetailDb, customer_id: Annotated[int, Path(ge=1, le=MAX_ID)]) -> CustomerDetail:
    customer = queries.get_customer(db, customer_id)
    if customer is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"customer {customer_id} not found")
    return customer


@router.get(
    "/{customer_id}/trend",
    response_model=CustomerTrend,
    summary="A customer's purchases per month",
    description="Revenue and orders per month for one customer, ending with the as-of month; months "
    "without purchases are zeros (a purchase timeline).",
    responses={404: {"description": "No customer has this id."}, 409: {"description": "No purchases yet."}},
)
def get_customer_trend(
    db: RetailDb,
    customer_id: Annotated[int, Path(ge=1, le=MAX_ID)],
    months: Annotated[
        int, Query(ge=1, le=36, description="How many months, ending with the as-of month.")
    ] = 24,
) -> CustomerTrend:
    trend = queries.customer_trend(db, customer_id, months)
    if trend is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"customer {customer_id} not found")
    return trend

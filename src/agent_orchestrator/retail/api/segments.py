"""``/segments``: the lab's segments with summaries, a monthly trend, and a what-if classifier."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from agent_orchestrator.retail import queries
from agent_orchestrator.retail.api.deps import RetailDb
from agent_orchestrator.retail.models import SegmentOverview, SegmentPrediction, SegmentTrend
from agent_orchestrator.retail.segments import Segment

router = APIRouter(prefix="/segments", tags=["retail: segments"])


@router.get(
    "",
    response_model=SegmentOverview,
    summary="List segments with summaries",
    description="Customers, revenue, average order value, repeat and retention rates per segment "
    "(High Value, Regular, At Risk, New), plus the rules and the dataset's as-of date.",
)
def list_segments(db: RetailDb) -> SegmentOverview:
    return queries.segment_overview(db)


@router.get(
    "/predict",
    response_model=SegmentPrediction,
    summary="Classify a hypothetical customer",
    description="Applies the same segment rules and RFM cut points to the given values.",
    responses={409: {"description": "The dataset has no purchases yet."}},
)
def predict_segment(
    db: RetailDb,
    recency_days: Annotated[int, Query(ge=0, le=36_500, description="Days since the last purchase.")],
    frequency: Annotated[int, Query(ge=1, le=1_000_000, description="Number of orders.")],
    monetary: Annotated[float, Query(ge=-1e9, le=1e9, description="Net spend.")],
) -> SegmentPrediction:
    return queries.predict_segment(db, recency_days, frequency, monetary)


@router.get(
    "/{segment}/trend",
    response_model=SegmentTrend,
    summary="Monthly trend of a segment",
    description="Revenue, orders and active buyers per month for the customers now in the segment, "
    "ending with the as-of month; months without purchases are zeros.",
    responses={409: {"description": "The dataset has no purchases yet."}},
)
def segment_trend(
    db: RetailDb,
    segment: Segment,
    months: Annotated[
        int, Query(ge=1, le=36, description="How many months, ending with the as-of month.")
    ] = 12,
) -> SegmentTrend:
    return queries.segment_trend(db, segment, months)

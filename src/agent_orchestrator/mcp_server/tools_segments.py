"""Segment tools: the overview of the four segments, and the what-if classifier."""

from typing import Annotated, Any

from pydantic import Field

from agent_orchestrator.mcp_server import headlines
from agent_orchestrator.mcp_server.toolkit import ToolKit, with_headline
from agent_orchestrator.retail import queries
from agent_orchestrator.retail.analysis import dataset_currency
from agent_orchestrator.retail.models import SegmentSummary
from agent_orchestrator.retail.money import cents


def _segment(s: SegmentSummary) -> dict[str, Any]:
    return {
        "segment": s.segment,
        "customers": s.customers,
        "share": s.customer_share,
        "revenue": s.revenue,
        "revenue_share": s.revenue_share,
        "orders": s.orders,
        "avg_order_value": s.avg_order_value,
        "revenue_per_customer": cents(s.revenue / s.customers) if s.customers else None,
        "avg_recency_days": s.avg_recency_days,
        "repeat_rate": s.repeat_rate,
        "retention_rate": s.retention_rate,
    }


def register(kit: ToolKit) -> None:
    @kit.tool(
        "How many customers are in each segment (High Value, Regular, At Risk, New), their share of "
        "customers and revenue, average order value, revenue per customer, retention; rules, as-of date."
    )
    def list_segments() -> str:
        with kit.connect() as conn:
            overview = queries.segment_overview(conn)
            currency = dataset_currency(conn)
        return with_headline(
            {
                "as_of": overview.as_of,
                "segments": [_segment(s) for s in overview.segments],
                "all": _segment(overview.overall),
                "rules": overview.rules.rules if overview.rules else [],
            },
            headlines.segments,
            currency,
        )

    @kit.tool(
        "Which segment a customer with these numbers would be in, using this dataset's rules. "
        "recency_days: days since last order; frequency: number of orders; monetary: net spend."
    )
    def predict_segment(
        recency_days: Annotated[int, Field(ge=0, le=36_500, description="Days since last order")],
        frequency: Annotated[int, Field(ge=1, le=1_000_000, description="Number of orders")],
        monetary: Annotated[float, Field(ge=-1e9, le=1e9, description="Net spend")],
    ) -> str:
        with kit.connect() as conn:
            prediction = queries.predict_segment(conn, recency_days, frequency, monetary)
        return with_headline(
            {
                "segment": prediction.segment.value,
                "reason": prediction.reason,
                "rfm": prediction.rfm.model_dump(),
            },
            headlines.prediction,
        )

"""``/analysis/options``: what each part of a sales reading can be changed to.

A chat answer computed by the ``analyze_sales`` tool shows its reading as chips (measure, countries,
period, comparison, ranking) that the analyst can change (docs/architecture.md#editing-a-reading).
The choices come from the data itself, so a chip never offers a country or a month the data does not
hold: the measures with their labels, the countries and segments, and every year and month the sales
cover, newest first.
"""

from __future__ import annotations

import sqlite3
from datetime import date

from fastapi import APIRouter
from pydantic import BaseModel

from agent_orchestrator.retail import queries
from agent_orchestrator.retail.analysis import Measure
from agent_orchestrator.retail.analysis.query import MAX_ROWS, month_period
from agent_orchestrator.retail.analysis.render import MEASURE_LABELS
from agent_orchestrator.retail.api.deps import RetailDb
from agent_orchestrator.retail.segments import SEGMENT_ORDER

router = APIRouter(prefix="/analysis", tags=["retail: analysis"])


class Choice(BaseModel):
    value: str
    label: str


class AnalysisOptions(BaseModel):
    """The values a reading's parts can take; ``periods`` in the query's own notation
    (``YYYY``, ``YYYY-MM``)."""

    measures: list[Choice]
    countries: list[str]
    segments: list[str]
    periods: list[Choice]
    max_rows: int


@router.get(
    "/options",
    response_model=AnalysisOptions,
    summary="Choices for changing a sales reading",
    description="Measures, countries (alphabetical), segments and the years and months with sales "
    "(newest first), as the analyze_sales tool takes them.",
)
def analysis_options(db: RetailDb) -> AnalysisOptions:
    return AnalysisOptions(
        measures=[Choice(value=m.value, label=MEASURE_LABELS[m]) for m in Measure],
        countries=sorted(queries.country_names(db)),
        segments=[s.value for s in SEGMENT_ORDER],
        periods=_periods(db),
        max_rows=MAX_ROWS,
    )


def _periods(conn: sqlite3.Connection) -> list[Choice]:
    """Each year with sales, followed by its months, newest first (an index lookup each end)."""
    first, last = conn.execute("SELECT MIN(invoiced_at), MAX(invoiced_at) FROM transactions").fetchone()
    if first is None:
        return []
    start, end = date.fromisoformat(first[:10]), date.fromisoformat(last[:10])
    choices: list[Choice] = []
    for year in range(end.year, start.year - 1, -1):
        choices.append(Choice(value=str(year), label=str(year)))
        newest = end.month if year == end.year else 12
        oldest = start.month if year == start.year else 1
        for month in range(newest, oldest - 1, -1):
            choices.append(Choice(value=f"{year}-{month:02d}", label=month_period(year, month).label))
    return choices

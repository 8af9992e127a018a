"""``/api/datasets/model``: the active version's semantic model, as the chips and the Data page read it.

Every column with its role and, for a dimension, its values (the choices a chip offers); the
metrics with their titles; the years and months the data covers, newest first. Read from the same
model and engine the ``query_data`` tool answers with (docs/architecture.md#the-semantic-model), so
a chip never offers a column, a value or a month the data does not hold.
"""

from __future__ import annotations

import asyncio
import calendar
from datetime import date

from fastapi import APIRouter
from pydantic import BaseModel

from agent_orchestrator.semantic import Role
from agent_orchestrator.semantic.query import MAX_ROWS
from agent_orchestrator.web.deps import CurrentActor, ServicesDep
from agent_orchestrator.web.readings import semantic_data

router = APIRouter(prefix="/api/datasets/model", tags=["datasets"])


class Choice(BaseModel):
    value: str
    label: str


class ColumnOut(BaseModel):
    name: str
    header: str
    """The file's own header."""
    label: str
    role: str
    entity: str | None
    values: list[str] | None
    """A dimension's values when there are few enough to choose from."""


class ModelOut(BaseModel):
    dataset: str
    currency: str | None
    metrics: list[Choice]
    columns: list[ColumnOut]
    periods: list[Choice]
    """``start..end`` of every year and month with data, newest first."""
    max_rows: int


@router.get("", summary="The active dataset's semantic model: its columns, roles, metrics and periods")
async def data_model(actor: CurrentActor, services: ServicesDep) -> ModelOut:
    data = await asyncio.to_thread(semantic_data, services.datasets.current_path())
    model = data.model
    first, last = await asyncio.to_thread(data.engine.span)
    return ModelOut(
        dataset=model.dataset,
        currency=model.currency,
        metrics=[Choice(value=m.name, label=m.title) for m in model.metrics],
        columns=[
            ColumnOut(
                name=c.name,
                header=c.source,
                label=c.title,
                role=c.role.value,
                entity=c.entity.value if c.entity else None,
                values=data.values.get(c.name) if c.role is Role.dimension else None,
            )
            for c in model.columns
        ],
        periods=_periods(first, last),
        max_rows=MAX_ROWS,
    )


def _periods(first: date | None, last: date | None) -> list[Choice]:
    if first is None or last is None:
        return []
    found: list[Choice] = []
    for year in range(last.year, first.year - 1, -1):
        found.append(Choice(value=f"{year}-01-01..{year}-12-31", label=str(year)))
        months = range(
            12 if year < last.year else last.month, 0 if year > first.year else first.month - 1, -1
        )
        for month in months:
            end = calendar.monthrange(year, month)[1]
            found.append(
                Choice(
                    value=f"{year}-{month:02d}-01..{year}-{month:02d}-{end:02d}",
                    label=f"{calendar.month_name[month]} {year}",
                )
            )
    return found

"""``/api/datasets/model``: the active version's semantic model, as the chips and the Data page read it,
and an admin's changes to it.

Every column with its role, its profile (type, distinct values, nulls, samples: what the Data page's
Columns show an admin deciding a role) and, for a dimension, its values (the choices a chip offers);
the metrics with their titles and synonyms; the years and months the data covers, newest first. Read
from the same model and engine the ``query_data`` tool answers with
(docs/architecture.md#the-semantic-model), so a chip never offers a column, a value or a month the
data does not hold.

``PUT`` (admins) changes roles, labels and synonyms: a new version of the dataset, as a settings
change is (``DatasetLibrary.update_model``), refused in one ``422`` naming the column when the rows
cannot be read so, and followed by every reader as any switch is (docs/architecture.md#the-data-page).
"""

from __future__ import annotations

import asyncio
import calendar
import dataclasses
from datetime import date
from pathlib import Path
from typing import Annotated, Literal

from fastapi import APIRouter, HTTPException, status
from pydantic import BaseModel, ConfigDict, Field

from agent_orchestrator.mcp_server.tools_query import semantic_data
from agent_orchestrator.planner.start import StartScreen
from agent_orchestrator.retail.datasets.semantic import (
    ColumnChange,
    MetricChange,
    ModelChanges,
    rows_profile,
)
from agent_orchestrator.semantic import ColumnProfile, Entity, Role
from agent_orchestrator.semantic.model import MAX_SYNONYMS
from agent_orchestrator.semantic.query import MAX_ROWS
from agent_orchestrator.sessions.store import AuditEvent
from agent_orchestrator.web.deps import AdminFirstRoute, CurrentActor, CurrentAdmin, ServicesDep
from agent_orchestrator.web.fields import NulFree

router = APIRouter(prefix="/api/datasets/model", tags=["datasets"], route_class=AdminFirstRoute)


class Choice(BaseModel):
    value: str
    label: str


class MetricOut(Choice):
    """A metric: its name (``value``), title, what else people call it, and its unit."""

    synonyms: list[str]
    unit: str


class ProfileOut(BaseModel):
    """What the column holds, read from the version's rows: an admin's evidence for its role."""

    type: str
    """DuckDB's type of the values (``VARCHAR``, ``BIGINT``, ``DOUBLE``, ``DATE``...)."""
    distinct: int
    nulls: int
    samples: list[str]
    """Up to five distinct values."""


class ColumnOut(BaseModel):
    name: str
    header: str
    """The file's own header."""
    label: str
    role: str
    entity: str | None
    values: list[str] | None
    """A dimension's values when there are few enough to choose from."""
    synonyms: list[str]
    unit: str | None
    """A measure's: money, number or percent."""
    mapped: str | None
    """What the import's mapping confirmed the column holds (the order number, the line total...)."""
    of_order: bool
    """A measure of the whole order, written on its first line only: never split among its items."""
    profile: ProfileOut | None


class ModelOut(BaseModel):
    dataset: str
    currency: str | None
    metrics: list[MetricOut]
    columns: list[ColumnOut]
    periods: list[Choice]
    """``start..end`` of every year and month with data, newest first."""
    max_rows: int
    items_from: list[str]
    """The file's headers that were items, when it was written one column per item and is read as
    one line per item sold (its columns are then the lines' ``item`` and ``quantity``); else empty."""


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


Key = Annotated[NulFree, Field(min_length=1, max_length=200)]
Synonym = Annotated[NulFree, Field(max_length=60)]
Synonyms = Annotated[list[Synonym], Field(max_length=MAX_SYNONYMS)]
Label = Annotated[NulFree, Field(max_length=80)]


class ColumnIn(_In):
    """A column's changes; those left out stay. ``entity`` for a key or a label, ``unit`` for a
    measure. ``synonyms`` replace the column's (blank ones and repeats are dropped)."""

    role: Role | None = None
    entity: Entity | None = None
    unit: Literal["money", "number", "percent"] | None = None
    label: Label | None = None
    synonyms: Synonyms | None = None


class MetricIn(_In):
    """A metric's title and synonyms; those left out stay."""

    label: Label | None = None
    synonyms: Synonyms | None = None


class ModelIn(_In):
    """Columns by name (or by the file's header), metrics by name, each with its changes."""

    columns: Annotated[dict[Key, ColumnIn], Field(max_length=200)] = {}
    metrics: Annotated[dict[Key, MetricIn], Field(max_length=100)] = {}

    def changes(self) -> ModelChanges:
        """The changes as ``DatasetLibrary.update_model`` takes them."""
        return ModelChanges(
            columns={
                key: ColumnChange(
                    role=change.role,
                    entity=change.entity,
                    unit=change.unit,
                    label=change.label,
                    synonyms=change.synonyms,
                )
                for key, change in self.columns.items()
            },
            metrics={
                key: MetricChange(label=change.label, synonyms=change.synonyms)
                for key, change in self.metrics.items()
            },
        )


@router.get("", summary="The active dataset's semantic model: its columns, roles, metrics and periods")
async def data_model(actor: CurrentActor, services: ServicesDep) -> ModelOut:
    return await asyncio.to_thread(_model_out, services.datasets.current_path())


@dataclasses.dataclass(frozen=True)
class StartOut(StartScreen):
    """What a new chat shows (``planner/start.py``), and ``brief``: the same in two or three
    sentences, the chat's answer to "what can you do?"; ``currency_note``: what the amounts are in."""

    brief: str
    currency_note: str


@router.get(
    "/start",
    summary="A new chat's start screen: what is loaded and questions made from the data",
    responses={404: {"description": "No dataset is loaded"}},
)
async def start(actor: CurrentActor, services: ServicesDep) -> StartOut:
    screen = await asyncio.to_thread(services.start.start_screen)
    if screen is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "No dataset is loaded.")
    return StartOut(
        **dataclasses.asdict(screen), brief=screen.in_brief(), currency_note=screen.amounts_in_words()
    )


@router.put(
    "",
    summary="Change the roles, labels and synonyms of the dataset's columns and metrics (admins)",
    responses={
        409: {"description": "An import is running"},
        422: {"description": "The rows cannot be read so (one message, naming the column); nothing changed"},
    },
)
async def change_model(body: ModelIn, admin: CurrentAdmin, services: ServicesDep) -> ModelOut:
    services.imports.refuse_while_running("change the columns")
    await asyncio.to_thread(services.datasets.update_model, admin.user.username, body.changes())
    if services.dataset_switch is not None:  # the chats' next turn reads the new model's tools
        await services.dataset_switch.check()
    event = AuditEvent(
        action="data_model",
        user_id=admin.user.id,
        username=admin.user.username,
        client_addr=admin.client_addr,
        details={
            "version_id": services.datasets.current_version_id(),
            "columns": {key: change.model_dump(exclude_unset=True) for key, change in body.columns.items()},
            "metrics": sorted(body.metrics),
        },
    )
    await asyncio.to_thread(services.sessions.audit.record, event)
    return await asyncio.to_thread(_model_out, services.datasets.current_path())


def _model_out(path: Path) -> ModelOut:
    """The model of the version at ``path`` as the pages read it (blocking: DuckDB reads the rows)."""
    data = semantic_data(path)
    model = data.model
    first, last = data.engine.span()
    profiles = rows_profile(data.engine.source)
    return ModelOut(
        dataset=model.dataset,
        currency=model.currency,
        metrics=[
            MetricOut(value=m.name, label=m.title, synonyms=m.synonyms, unit=m.unit) for m in model.metrics
        ],
        columns=[
            ColumnOut(
                name=c.name,
                header=c.source,
                label=c.title,
                role=c.role.value,
                entity=c.entity.value if c.entity else None,
                values=data.values.get(c.name) if c.role is Role.dimension else None,
                synonyms=c.synonyms,
                unit=c.unit,
                mapped=c.mapped,
                of_order=c.of_order,
                profile=_profile(profiles, c.source),
            )
            for c in model.columns
        ],
        periods=_periods(first, last),
        max_rows=MAX_ROWS,
        items_from=model.items_from,
    )


def _profile(profiles: dict[str, ColumnProfile], header: str) -> ProfileOut | None:
    found = profiles.get(header)
    if found is None:
        return None
    samples = list(found.samples)
    return ProfileOut(type=found.type, distinct=found.distinct, nulls=found.nulls, samples=samples)


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

"""What the dataset library hands its callers: reports, versions, facts and settings.

Plain dataclasses with no behaviour, so the web layer can serialise them as it likes; times are
aware UTC datetimes, dates ``YYYY-MM-DD`` text as the retail file stores them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from agent_orchestrator.retail.segments import ACTIVE_DAYS, HIGH_VALUE_QUINTILE


@dataclass
class ImportReport:
    """What an import did. ``skipped_by_reason`` counts every skipped record by its reason (the
    rows themselves are in ``DatasetLibrary.skipped_rows_path(version_id)``); ``customers``,
    ``products``, ``countries`` and the dates describe the new version as a whole (with ``append``:
    the old rows too)."""

    version_id: str
    mode: str
    rows_read: int
    imported: int
    skipped: int
    skipped_by_reason: dict[str, int]
    cancellations: int
    customers: int
    products: int
    countries: int
    first_date: str | None
    last_date: str | None
    seconds: float


@dataclass
class DatasetVersion:
    """One version. ``mode`` is how it was made: ``replace`` or ``append`` (an import), ``settings``
    (a settings change), ``model`` (the columns' roles or words changed on the Data page),
    ``default`` (version zero: the install's own dataset, id ``default``)."""

    id: str
    created_at: datetime
    created_by: str
    source_name: str
    mode: str
    rows: int
    active: bool


@dataclass(frozen=True)
class SegmentRules:
    """The dataset's segment parameters (``retail.segments``): a customer who bought within
    ``active_days`` of the data's last day is active (else At Risk); an active repeat buyer whose
    spend scores at least ``high_value_quintile`` (5: the top 20 %, 4: the top 40 %, ...) is High
    Value."""

    active_days: int = ACTIVE_DAYS
    high_value_quintile: int = HIGH_VALUE_QUINTILE


@dataclass
class DatasetFacts:
    """The active version at a glance, and its settings."""

    name: str
    currency: str | None
    first_date: str | None
    last_date: str | None
    rows: int
    customers: int
    products: int
    countries: int
    last_import_at: datetime | None
    last_import_by: str | None
    version_id: str
    segment_rules: SegmentRules = field(default_factory=SegmentRules)

"""The Data page's request and response bodies (``routes/datasets.py``), and the one check a mapping
gets before its import starts: that it names the upload's columns and maps every required field,
so a wrong mapping is one ``422`` now rather than a failed job later."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agent_orchestrator.errors import InvalidInputError
from agent_orchestrator.retail.datasets import (
    FIELDS,
    CsvFormat,
    DatasetFacts,
    DatasetVersion,
    ImportProgress,
    ImportReport,
    SegmentRules,
)
from agent_orchestrator.retail.datasets.formats import OPTIONAL_FIELDS, missing_fields
from agent_orchestrator.retail.datasets.semantic import UploadColumn
from agent_orchestrator.web.charts import MoneyFormat
from agent_orchestrator.web.fields import NulFree
from agent_orchestrator.web.import_jobs import ImportJob, JobState, Mode
from agent_orchestrator.web.uploads import Upload

FieldName = Literal[
    "invoice",
    "stock_code",
    "description",
    "quantity",
    "invoiced_at",
    "unit_price",
    "customer_id",
    "country",
    "line_total",
]
Column = NulFree


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FormatBody(_In):
    """How the file writes its values (``CsvFormat``)."""

    delimiter: Literal[",", ";", "\t", "|"] = ","
    date_format: NulFree | None = Field(
        None, min_length=2, max_length=40, description="strptime, e.g. %d/%m/%Y"
    )
    decimal: Literal[".", ","] = "."
    thousands: Literal["", ",", ".", " ", "'"] = ""
    encoding: NulFree = Field("utf-8", min_length=1, max_length=20)

    @classmethod
    def of(cls, fmt: CsvFormat) -> FormatBody:
        return cls.model_construct(**dataclasses.asdict(fmt))

    def csv_format(self) -> CsvFormat:
        """The format, or ``InvalidInputError`` for one no file can be read in."""
        try:  # a text encoding: rot13 is a codec, not one; idna reads no bytes it cannot decode
            "a".encode(self.encoding)
            b"\xff".decode(self.encoding, errors="replace")
        except (LookupError, UnicodeError):
            raise InvalidInputError(f"Unknown encoding {self.encoding!r}.") from None
        if self.decimal == self.thousands or self.decimal == self.delimiter:
            raise InvalidInputError(
                "The decimal mark must differ from the delimiter and the thousands separator."
            )
        if self.date_format is not None and "%" not in self.date_format:
            raise InvalidInputError("A date format is a strptime pattern, such as %d/%m/%Y %H:%M.")
        return CsvFormat(**self.model_dump())


class UploadColumnOut(BaseModel):
    """One column of an upload, from its first lines: the mapping step's evidence for it."""

    header: str
    type: str
    """DuckDB's type of its values (``VARCHAR``, ``BIGINT``, ``DOUBLE``, ``DATE``...)."""
    distinct: int
    samples: list[str]
    looks_like: Literal["names", "categories", "amounts", "keys", "dates"] | None
    """What it seems to hold: a column that holds names, categories or amounts and is mapped to no
    field is pointed out before the import."""

    @classmethod
    def of(cls, column: UploadColumn) -> UploadColumnOut:
        profile = column.profile
        return cls(
            header=profile.header,
            type=profile.type,
            distinct=profile.distinct,
            samples=list(profile.samples),
            looks_like=column.looks_like,
        )


class PreviewOut(BaseModel):
    """An upload as it was read: its first rows and how each column was understood."""

    upload_id: str
    name: str
    size: int
    header: list[str]
    rows: list[list[str]]
    layout: str | None
    mapping: dict[str, str | None]
    format: FormatBody
    date_formats: list[str]
    source_key: str
    problems: list[str]
    remembered: bool = Field(
        description="mapping and format are the ones confirmed last time for this source"
    )
    fields: list[str] = Field(description="every field, in order")
    optional_fields: list[str]
    columns: list[UploadColumnOut] = Field(description="each column's profile, from the file's first lines")

    @classmethod
    def of(
        cls, upload: Upload, remembered: Mapping[str, str | None] | None, columns: Sequence[UploadColumn] = ()
    ) -> PreviewOut:
        """The upload as last read; ``remembered``: the mapping confirmed last time for its source
        (the upload was then read with that time's format), instead of the suggested one;
        ``columns``: its columns' profiles (``upload_columns``)."""
        preview = upload.preview
        mapping = dict(remembered if remembered is not None else preview.mapping)
        return cls(
            upload_id=upload.id,
            name=upload.name,
            size=upload.size,
            header=list(preview.header),
            rows=[list(row) for row in preview.rows],
            layout=preview.layout,
            mapping={name: mapping.get(name) for name in FIELDS},
            format=FormatBody.of(preview.format),
            date_formats=list(preview.date_formats),
            source_key=preview.source_key,
            problems=list(preview.problems),
            remembered=remembered is not None,
            fields=list(FIELDS),
            optional_fields=sorted(OPTIONAL_FIELDS),
            columns=[UploadColumnOut.of(column) for column in columns],
        )


class ReadIn(_In):
    """How to read an upload again, when the detected reading was wrong."""

    format: FormatBody
    date_column: Column | None = Field(
        None,
        max_length=1000,
        description="the column mapped to the date, whose values a typed format must read",
    )


class ImportIn(_In):
    upload_id: NulFree = Field(min_length=1, max_length=40)
    mapping: dict[FieldName, Column | None] = Field(description="field -> the header column that holds it")
    format: FormatBody = FormatBody()
    mode: Mode = "replace"
    remember: bool = Field(True, description="pre-fill this mapping for the next file of the same source")


def checked_mapping(mapping: Mapping[FieldName, str | None], header: list[str]) -> dict[str, str]:
    """The fields given a column, or ``InvalidInputError`` naming the unknown columns or the
    required fields left without one. The library checks again (and the dates) when the import
    starts; this check answers before there is a job."""
    chosen: dict[str, str] = {name: column for name, column in mapping.items() if column}
    unknown = sorted(set(chosen.values()) - set(header))
    if unknown:
        raise InvalidInputError(f"The file has no column {', '.join(map(repr, unknown))}.")
    if missing := missing_fields(chosen):
        raise InvalidInputError(f"Choose a column for {', '.join(missing)}.")
    return chosen


class ProgressOut(BaseModel):
    phase: str
    rows_read: int
    bytes_read: int
    total_bytes: int
    rows_per_second: float
    seconds_left: float | None
    percent: float = Field(description="the whole import's, estimated: reading, then indexes and statistics")

    @classmethod
    def of(cls, progress: ImportProgress) -> ProgressOut:
        return cls.model_validate(dataclasses.asdict(progress))


class ReportOut(BaseModel):
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
    first_date: date | None
    last_date: date | None
    seconds: float

    @classmethod
    def of(cls, report: ImportReport) -> ReportOut:
        return cls.model_validate(dataclasses.asdict(report))


class JobOut(BaseModel):
    id: str
    state: JobState
    mode: Mode
    source_name: str
    started_by: str
    started_at: datetime
    ended_at: datetime | None
    progress: ProgressOut | None
    report: ReportOut | None
    error: str | None

    @classmethod
    def of(cls, job: ImportJob) -> JobOut:
        return cls(
            id=job.id,
            state=job.state,
            mode=job.mode,
            source_name=job.source_name,
            started_by=job.started_by,
            started_at=datetime.fromtimestamp(job.started_at).astimezone(),
            ended_at=datetime.fromtimestamp(job.ended_at).astimezone() if job.ended_at else None,
            progress=ProgressOut.of(job.progress) if job.progress else None,
            report=ReportOut.of(job.report) if job.report else None,
            error=job.error,
        )


class JobStatusOut(BaseModel):
    job: JobOut | None


class VersionOut(BaseModel):
    id: str
    created_at: datetime
    created_by: str
    source_name: str
    mode: str
    rows: int
    active: bool

    @classmethod
    def of(cls, version: DatasetVersion) -> VersionOut:
        return cls.model_validate(dataclasses.asdict(version))


class VersionsOut(BaseModel):
    items: list[VersionOut]


class SegmentRulesBody(_In):
    """The segment parameters (``SegmentRules``): At Risk after ``active_days`` without a purchase;
    High Value from the ``high_value_quintile``-th spend quintile up (5: the top 20 %)."""

    active_days: int = Field(ge=1, le=3650)
    high_value_quintile: int = Field(ge=2, le=5)


class FactsOut(BaseModel):
    """The active version's facts. ``money`` is how its currency is written (``£`` before, ``CHF``
    after, nothing when none is named): the pages and their charts format every amount with it, the
    way the answers do, and pick up a change on their next load."""

    name: str
    currency: str | None
    money: MoneyFormat
    first_date: date | None
    last_date: date | None
    rows: int
    customers: int
    products: int
    countries: int
    last_import_at: datetime | None
    last_import_by: str | None
    version_id: str
    segment_rules: SegmentRulesBody
    importing: bool

    @classmethod
    def of(cls, facts: DatasetFacts, *, importing: bool) -> FactsOut:
        values = dataclasses.asdict(facts)
        return cls.model_validate({**values, "money": MoneyFormat.of(facts.currency), "importing": importing})


class SettingsIn(_In):
    """The settings to change; those left out stay. ``currency`` ``null`` clears it."""

    name: NulFree | None = Field(None, min_length=1, max_length=100)
    currency: NulFree | None = Field(None, pattern=r"^[A-Z]{3}$", description="ISO 4217, e.g. GBP")
    segment_rules: SegmentRulesBody | None = None

    def changes(self) -> dict[str, Any]:
        """The settings given, as ``DatasetLibrary.update_settings`` takes them."""
        changes: dict[str, Any] = {}
        if self.name is not None:
            changes["name"] = self.name
        if "currency" in self.model_fields_set:
            changes["currency"] = self.currency
        if self.segment_rules is not None:
            changes["segment_rules"] = SegmentRules(**self.segment_rules.model_dump())
        return changes

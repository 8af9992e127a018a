"""Each dataset version's semantic model and rows, kept inside the version's file.

An import keeps the file as its tool exported it (docs/architecture.md#the-semantic-model): every
column with its role, suggested from the header and the values and pinned by the admin's mapping,
and the rows as Parquet named by the model. Both are stored in the version's SQLite file
(``semantic_files``), so they go wherever a version goes (the shared store, another server, a
restore) with no second kind of blob. A version without them (the generated data, an append, a
version made before this) gets a model of the retail tables instead: the same questions answer on
it, over fewer columns.

Readers call :func:`semantic_source`, which writes the rows next to the version's file once
(``<id>.rows.parquet``) and keeps the model in memory for as long as the file is unchanged.

An admin confirms or changes the model on the Data page (:func:`changed_model`, checked against the
rows by :func:`check_model_rows` and kept by :func:`keep_model` in a new version:
``DatasetLibrary.update_model``); the page shows each column's profile (:func:`rows_profile`).
"""

from __future__ import annotations

import csv
import itertools
import os
import sqlite3
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypeVar

import duckdb
from pydantic import ValidationError

from agent_orchestrator.errors import InvalidInputError
from agent_orchestrator.retail.datasets.formats import CsvFormat
from agent_orchestrator.retail.db import open_readonly
from agent_orchestrator.retail.schema import get_meta, set_meta
from agent_orchestrator.semantic import (
    Cancellation,
    Column,
    ColumnProfile,
    Entity,
    Metric,
    Role,
    SemanticModel,
    default_metrics,
    profile_csv,
    suggest_model,
)
from agent_orchestrator.semantic.compile import quote
from agent_orchestrator.semantic.engine import DAY_TIME_TYPE
from agent_orchestrator.semantic.profile import FEW_VALUES, SAMPLES, CsvReading
from agent_orchestrator.semantic.source import check_rows, write_parquet
from agent_orchestrator.semantic.suggest import KNOWN
from agent_orchestrator.semantic.wide import as_lines, read_as

ROWS_SUFFIX = ".rows.parquet"
_TABLE = "CREATE TABLE IF NOT EXISTS semantic_files (name TEXT PRIMARY KEY, body BLOB NOT NULL)"
_KNOWN_FIELDS = {
    "invoice": "order",
    "stock_code": "product",
    "description": "product_name",
    "quantity": "quantity",
    "invoiced_at": "time",
    "unit_price": "unit_price",
    "customer_id": "customer",
    "country": "country",
    "line_total": "line_total",
}
"""Our import fields -> what the semantic suggestion calls the same columns (``suggest.KNOWN``)."""
_RETAIL_ROWS = (
    "SELECT t.invoice, t.stock_code, p.description, t.customer_id, t.country, "
    "COALESCE(s.segment, ''), substr(t.invoiced_at, 1, 10), t.quantity, t.unit_price, t.amount "
    "FROM transactions t JOIN products p USING (stock_code) "
    "LEFT JOIN customer_stats s USING (customer_id)"
)
_RETAIL_HEADER = (
    "Invoice",
    "StockCode",
    "Description",
    "Customer ID",
    "Country",
    "Segment",
    "Invoice Date",
    "Quantity",
    "Price",
    "Line Total",
)
_RETAIL_KNOWN = {
    "order": "Invoice",
    "product": "StockCode",
    "product_name": "Description",
    "customer": "Customer ID",
    "country": "Country",
    "time": "Invoice Date",
    "quantity": "Quantity",
    "unit_price": "Price",
    "line_total": "Line Total",
    "segment": "Segment",
}


def store_semantic(
    conn: sqlite3.Connection,
    path: Path,
    mapping: dict[str, str],
    fmt: CsvFormat,
    date_formats: Sequence[str],
    *,
    dataset: str,
) -> bool:
    """Keep the imported file's model and rows in the version being built (``conn``). ``False``, and
    nothing kept, when DuckDB cannot read the file the way the import did (a date format it does not
    share, say): the version then answers over its retail tables, as before."""
    known = {_KNOWN_FIELDS[field]: column for field, column in mapping.items() if field in _KNOWN_FIELDS}
    reading = CsvReading(
        delimiter=fmt.delimiter,
        decimal=fmt.decimal,
        date_format=date_formats[0] if len(date_formats) == 1 else None,
    )
    with tempfile.TemporaryDirectory(prefix=".semantic-", dir=path.parent) as folder:
        utf8 = _as_utf8(path, fmt.encoding, Path(folder))
        try:
            profile = profile_csv(utf8, reading)
            lines = as_lines(utf8, reading, profile, Path(folder))  # one column per item: its lines
            if lines is not None:
                utf8, profile = lines.path, profile_csv(lines.path, reading)
                known |= lines.known
            model = suggest_model(profile, dataset, known=known)
            if lines is not None:  # the receipt's total is no item's
                model = read_as(model, lines)
            rows = Path(folder) / "rows.parquet"
            write_parquet(model, utf8, rows, reading)
        except InvalidInputError:
            return False
        if model.currency and not get_meta(conn, "currency"):  # the file names it: the shop's own
            set_meta(conn, "currency", model.currency)
        conn.execute(_TABLE)
        conn.execute("DELETE FROM semantic_files")
        conn.executemany(
            "INSERT INTO semantic_files (name, body) VALUES (?, ?)",
            [("model.json", model.model_dump_json().encode()), ("rows.parquet", rows.read_bytes())],
        )
    return True


def drop_semantic(conn: sqlite3.Connection) -> None:
    """Forget the file kept by an earlier import (an append's rows are the retail tables' now)."""
    conn.execute(_TABLE)
    conn.execute("DELETE FROM semantic_files")


_cache: dict[Path, tuple[tuple[int, int], SemanticModel, Path]] = {}
_lock = threading.Lock()


def semantic_source(db: Path) -> tuple[SemanticModel, Path]:
    """The model and the Parquet rows of the retail file ``db`` (a version or the default data)."""
    stat = db.stat()
    stamp = (stat.st_mtime_ns, stat.st_size)
    with _lock:
        cached = _cache.get(db)
        if cached is not None and cached[0] == stamp and cached[2].is_file():
            return cached[1], cached[2]
        model, rows = _materialise(db)
        _cache[db] = (stamp, model, rows)
        return model, rows


def _materialise(db: Path) -> tuple[SemanticModel, Path]:
    stem = db.name.removesuffix(".sqlite")
    target = db.with_name(stem + ROWS_SUFFIX)
    partial = db.with_name(f".{stem}.{os.getpid()}.partial{ROWS_SUFFIX}")  # swept if this process dies
    conn = open_readonly(db)
    try:
        currency = get_meta(conn, "currency")
        name = get_meta(conn, "dataset_name")
        stored = _stored(conn)
        if stored is not None:
            model_json, rows = stored
            model = SemanticModel.model_validate_json(model_json)
            partial.write_bytes(rows)
        else:
            model = _retail_model(conn, partial, name or "Sales")
    finally:
        conn.close()
    os.replace(partial, target)
    update = {"currency": currency or model.currency, "dataset": name or model.dataset}
    return model.model_copy(update=update), target


def _stored(conn: sqlite3.Connection) -> tuple[bytes, bytes] | None:
    try:
        found = dict(conn.execute("SELECT name, body FROM semantic_files").fetchall())
    except sqlite3.OperationalError:  # a version made before models were kept
        return None
    if "model.json" not in found or "rows.parquet" not in found:
        return None
    return found["model.json"], found["rows.parquet"]


def _retail_model(conn: sqlite3.Connection, target: Path, name: str) -> SemanticModel:
    """A model of the retail tables (order, product, customer, country, segment, date, quantity,
    price, line total), its rows written to ``target``."""
    with tempfile.TemporaryDirectory(prefix=".semantic-", dir=target.parent) as folder:
        lines = Path(folder) / "lines.csv"
        with lines.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(_RETAIL_HEADER)
            cursor = conn.execute(_RETAIL_ROWS)
            while batch := cursor.fetchmany(50_000):
                writer.writerows(batch)
        reading = CsvReading(date_format="%Y-%m-%d")
        model = suggest_model(profile_csv(lines, reading), name, known=_RETAIL_KNOWN)
        write_parquet(model, lines, target, reading)
    return model


@dataclass(frozen=True, slots=True)
class UploadColumn:
    """One column of an upload as its first lines show it, and what it looks like it holds."""

    profile: ColumnProfile
    looks_like: Looks | None


Looks = Literal["names", "categories", "amounts", "keys", "dates"]
_LOOKS: dict[Role, Looks] = {
    Role.label: "names",
    Role.dimension: "categories",
    Role.measure: "amounts",
    Role.key: "keys",
    Role.time: "dates",
}
_PROFILED_LINES = 5_000
"""Lines of an upload profiled for the mapping step: enough to tell names from categories, quick
however large the file."""


def upload_columns(path: Path, fmt: CsvFormat, date_formats: Sequence[str]) -> list[UploadColumn]:
    """Each column of an upload with its profile (type, distinct values, samples) and the role the
    semantic model would give it, from the file's first lines: what the Data page's mapping step
    shows, so a column that holds names, categories or amounts is not left unused unnoticed. Empty
    when DuckDB cannot read those lines so (the preview says why the file is hard to read)."""
    reading = CsvReading(
        delimiter=fmt.delimiter,
        decimal=fmt.decimal,
        date_format=date_formats[0] if len(date_formats) == 1 else None,
    )
    with tempfile.TemporaryDirectory(prefix=".profile-", dir=path.parent) as folder:
        head = Path(folder) / "head.csv"
        with (
            path.open(encoding=fmt.encoding, errors="replace", newline="") as source,
            head.open("w", encoding="utf-8", newline="") as target,
        ):
            target.writelines(itertools.islice(source, _PROFILED_LINES + 1))
        try:
            profile = profile_csv(head, reading)
        except InvalidInputError:
            return []
    model = suggest_model(profile, "upload")
    roles = {column.source: column.role for column in model.columns}
    return [UploadColumn(column, _looks_like(column, roles.get(column.header))) for column in profile.columns]


def _looks_like(column: ColumnProfile, role: Role | None) -> Looks | None:
    """Names when a column of text has many values (a product's, a customer's), categories when it
    has few (a region, a channel), else what its suggested role says."""
    if role is Role.dimension and column.distinct > FEW_VALUES:
        return "names"
    return _LOOKS.get(role) if role is not None else None


def _as_utf8(path: Path, encoding: str, folder: Path) -> Path:
    """The file itself when it is UTF-8, else a UTF-8 copy in ``folder`` (DuckDB reads UTF-8)."""
    if encoding.lower().replace("_", "-") in ("utf-8", "utf8"):
        return path
    copy = folder / "utf8.csv"
    with (
        path.open(encoding=encoding, errors="replace", newline="") as source,
        copy.open("w", encoding="utf-8", newline="") as target,
    ):
        while chunk := source.read(1 << 20):
            target.write(chunk)
    return copy


# --- the admin's changes (the Data page's Columns) --------------------------------------------------

Unit = Literal["money", "number", "percent"]
_Item = TypeVar("_Item", Column, Metric)
MAX_SYNONYMS = 30
SYNONYM_CHARS = 60


@dataclass(frozen=True, slots=True)
class ColumnChange:
    """What an admin changes of one column; ``None`` leaves that part as it is. ``entity`` is for a
    key or a label (a column that becomes one keeps the entity it had, so a customer's key can become
    its label without naming the customer again); ``unit`` for a measure (``number`` when a column
    without one becomes a measure)."""

    role: Role | None = None
    entity: Entity | None = None
    unit: Unit | None = None
    label: str | None = None
    synonyms: Sequence[str] | None = None


@dataclass(frozen=True, slots=True)
class MetricChange:
    """An admin's words for one metric: how the pages title it and what else people call it."""

    label: str | None = None
    synonyms: Sequence[str] | None = None


@dataclass(frozen=True, slots=True)
class ModelChanges:
    """The changes of one save. Columns by their name in the model, or by the file's header when no
    column has that name (an admin knows ``Postal Code``); metrics by name. Metric changes apply after
    the metrics are derived again, so one save can make a column a measure and name its sum."""

    columns: Mapping[str, ColumnChange] = field(default_factory=dict)
    metrics: Mapping[str, MetricChange] = field(default_factory=dict)


def changed_model(model: SemanticModel, changes: ModelChanges) -> SemanticModel:
    """``model`` with ``changes``, validated as a whole, or one :class:`InvalidInputError` naming what
    cannot be. When a role changes the metrics are derived again from the roles (a column that is no
    longer a measure takes its sum with it, a new measure brings one), since a metric over a column
    of the wrong role would be refused or wrong; the labels and synonyms of metrics that remain are
    kept, so an admin's words survive a later change of another column. The values are not read
    here: :func:`check_model_rows` does that."""
    columns = list(model.columns)
    for key, change in changes.columns.items():
        at = _column_at(columns, key)
        columns[at] = _changed_column(columns[at], change)
    metrics = list(model.metrics)
    if any(_shape(old) != _shape(new) for old, new in zip(model.columns, columns, strict=True)):
        metrics = _derived_metrics(columns, model.metrics, model.cancellation)
    for name, metric_change in changes.metrics.items():
        found = next((i for i, metric in enumerate(metrics) if metric.name == name), None)
        if found is None:
            raise InvalidInputError(f"The dataset has no metric {name!r}.")
        metrics[found] = _changed(
            metrics[found], f"metric {name!r}", _words(metric_change.label, metric_change.synonyms)
        )
    try:
        return SemanticModel(
            dataset=model.dataset,
            currency=model.currency,
            columns=columns,
            metrics=metrics,
            cancellation=model.cancellation,
            items_from=model.items_from,
        )
    except ValidationError as error:
        raise InvalidInputError(f"The columns cannot be so: {_first_error(error)}.") from None


def check_model_rows(model: SemanticModel, rows: Path, before: SemanticModel | None = None) -> None:
    """Every value of ``rows`` reads as ``model`` says, or one :class:`InvalidInputError` naming the
    column that does not and one of its values. The columns that became a measure or a time column
    since ``before`` are looked at one by one, so that the message names the column (DuckDB's cast
    error names only the value); the whole projection is then read once more, as the engine will."""
    earlier = {column.source: column.role for column in before.columns} if before is not None else {}
    connection = duckdb.connect()
    try:
        source = f"read_parquet({_string(str(rows))})"
        for column in model.with_role(Role.measure, Role.time):
            if earlier.get(column.source) is column.role:
                continue  # read so at the import, or at an earlier change
            measure = column.role is Role.measure
            typed = "DOUBLE" if measure else DAY_TIME_TYPE[column.day_time]
            quoted = quote(column.source)
            found = connection.execute(
                f"SELECT {quoted}::VARCHAR FROM {source} WHERE {quoted} IS NOT NULL "
                f"AND TRY_CAST({quoted} AS {typed}) IS NULL LIMIT 1"
            ).fetchone()
            if found is not None:
                role, kind = ("a measure", "a number") if measure else ("a time column", "a date")
                raise InvalidInputError(
                    f"The column {column.source!r} cannot be {role}: its value {str(found[0])[:40]!r} "
                    f"is not {kind}."
                )
        check_rows(connection, model, rows)
    except duckdb.Error as error:
        raise InvalidInputError(f"The rows do not read as these columns say: {_first_line(error)}") from error
    finally:
        connection.close()


def editable_model(db: Path) -> tuple[SemanticModel, Path, bool]:
    """The model the version ``db`` answers with, as an admin changes it; its rows; and whether the
    version keeps them itself. A kept model is returned as stored (its dataset name and currency are
    the version's settings, applied at each load, not copied into it); a version without one (the
    generated data, an append) gets the model it is answered with now, derived from its retail
    tables, and must keep its rows too once it is changed (:func:`keep_model`)."""
    model, rows = semantic_source(db)
    conn = open_readonly(db)
    try:
        stored = _stored_model(conn)
    finally:
        conn.close()
    if stored is not None:
        return SemanticModel.model_validate_json(stored), rows, True
    return model.model_copy(update={"currency": None}), rows, False


def keep_model(conn: sqlite3.Connection, model: SemanticModel, rows: Path | None) -> None:
    """Store ``model`` in the version being built (``conn``, a copy of the one it changes), and
    ``rows`` when that version kept none, so the new version reads exactly what it was checked
    against."""
    conn.execute(_TABLE)
    conn.execute(
        "INSERT OR REPLACE INTO semantic_files (name, body) VALUES ('model.json', ?)",
        (model.model_dump_json().encode(),),
    )
    if rows is not None:
        conn.execute(
            "INSERT OR REPLACE INTO semantic_files (name, body) VALUES ('rows.parquet', ?)",
            (rows.read_bytes(),),
        )


def _stored_model(conn: sqlite3.Connection) -> bytes | None:
    """The kept model's JSON, when the version keeps both it and its rows (read without the rows)."""
    try:
        names = dict(conn.execute("SELECT name, length(body) FROM semantic_files").fetchall())
    except sqlite3.OperationalError:
        return None
    if "model.json" not in names or "rows.parquet" not in names:
        return None
    (body,) = conn.execute("SELECT body FROM semantic_files WHERE name = 'model.json'").fetchone()
    return bytes(body)


def _column_at(columns: list[Column], key: str) -> int:
    for by_name in (True, False):
        for at, column in enumerate(columns):
            if (column.name if by_name else column.source) == key:
                return at
    raise InvalidInputError(f"The dataset has no column {key!r}.")


def _changed_column(column: Column, change: ColumnChange) -> Column:
    where = f"column {column.source!r}"
    role = Role(change.role) if change.role else column.role  # the enums, whatever the caller passed
    entity = Entity(change.entity) if change.entity else column.entity
    if role in (Role.key, Role.label):
        if entity is None:
            raise InvalidInputError(
                f"The {where} as a {role} needs the entity it identifies: order, customer or product."
            )
    elif change.entity is not None:
        raise InvalidInputError(f"Only a key or a label identifies an entity, not the {where} as a {role}.")
    else:
        entity = None
    unit: str | None
    if role is Role.measure:
        unit = change.unit or column.unit or "number"
    elif change.unit is not None:
        raise InvalidInputError(f"Only a measure has a unit, not the {where} as a {role}.")
    else:
        unit = None
    updates: dict[str, object] = {
        "role": role,
        "entity": entity,
        "unit": unit,
        "date_format": column.date_format if role is Role.time else None,
        **_words(change.label, change.synonyms),
    }
    return _changed(column, where, updates)


def _words(label: str | None, synonyms: Sequence[str] | None) -> dict[str, object]:
    """The label and synonyms given, trimmed; synonyms without blanks or repeats (case aside)."""
    updates: dict[str, object] = {}
    if label is not None:
        updates["label"] = label.strip()
    if synonyms is not None:
        kept: dict[str, str] = {}
        for synonym in synonyms:
            text = " ".join(synonym.split())
            if text:
                kept.setdefault(text.lower(), text)
        if len(kept) > MAX_SYNONYMS:
            raise InvalidInputError(f"At most {MAX_SYNONYMS} synonyms each, not {len(kept)}.")
        if long := next((s for s in kept.values() if len(s) > SYNONYM_CHARS), None):
            raise InvalidInputError(f"A synonym is at most {SYNONYM_CHARS} characters: {long[:24]!r}...")
        updates["synonyms"] = list(kept.values())
    return updates


def _changed(item: _Item, where: str, updates: Mapping[str, object]) -> _Item:
    try:
        return type(item).model_validate({**item.model_dump(), **updates})
    except ValidationError as error:
        raise InvalidInputError(f"The {where} cannot be so: {_first_error(error)}.") from None


def _shape(column: Column) -> tuple[Role, Entity | None, str | None]:
    """What the metrics over a column depend on."""
    return column.role, column.entity, column.unit


def _derived_metrics(
    columns: list[Column], before: Sequence[Metric], cancellation: Cancellation | None
) -> list[Metric]:
    """The default metrics of ``columns``, with the words of the metrics of the same names in
    ``before``. The confirmed columns (``mapped``: the quantity, the line total...) still decide
    revenue and units while they keep the role they were confirmed with; one an admin has since
    turned into something else (a line total ignored) no longer can."""
    chosen = {
        column.mapped: column.name
        for column in columns
        if column.mapped is not None and column.mapped in KNOWN and KNOWN[column.mapped][0] is column.role
    }
    kept = {metric.name: metric for metric in before}
    metrics = []
    for metric in default_metrics(columns, chosen, cancellation):
        old = kept.get(metric.name)
        if old is not None:
            metric = metric.model_copy(
                update={"label": old.label, "synonyms": old.synonyms, "description": old.description}
            )
        metrics.append(metric)
    return metrics


def _first_error(error: ValidationError) -> str:
    """Pydantic's first complaint, as one sentence without its prefix."""
    first = error.errors()[0] if error.errors() else {"msg": str(error)}
    return str(first.get("msg", "")).removeprefix("Value error, ").rstrip(".")


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _string(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


# --- the columns' profiles (the Data page's Columns) ------------------------------------------------

_profiles: dict[Path, tuple[tuple[int, int], dict[str, ColumnProfile]]] = {}
_profiles_lock = threading.Lock()
_PROFILES_KEPT = 4
"""Rows files whose profiles are kept: the active version's and a few recent ones."""


def rows_profile(rows: Path) -> dict[str, ColumnProfile]:
    """Each column of ``rows`` by its header, as the Data page shows it: DuckDB's type, distinct
    values, nulls and up to :data:`SAMPLES` values. One scan counts every column, then one small
    query per column finds its samples (about 0.1 s for 500,000 rows); kept while the file is
    unchanged, so the page's every visit costs nothing."""
    stat = rows.stat()
    stamp = (stat.st_mtime_ns, stat.st_size)
    with _profiles_lock:
        cached = _profiles.get(rows)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        found = _profile_rows(rows)
        if len(_profiles) >= _PROFILES_KEPT:
            _profiles.clear()
        _profiles[rows] = (stamp, found)
        return found


def _profile_rows(rows: Path) -> dict[str, ColumnProfile]:
    connection = duckdb.connect()
    try:
        source = f"read_parquet({_string(str(rows))})"
        described = connection.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()
        counts = ", ".join(
            f"count(DISTINCT {quote(header)}), count(*) - count({quote(header)})" for header, *_ in described
        )
        figures = connection.execute(f"SELECT {counts} FROM {source}").fetchone() or ()
        profiles = {}
        for at, (header, type_, *_) in enumerate(described):
            quoted = quote(header)
            samples = connection.execute(
                f"SELECT DISTINCT {quoted}::VARCHAR FROM {source} WHERE {quoted} IS NOT NULL LIMIT {SAMPLES}"
            ).fetchall()
            profiles[header] = ColumnProfile(
                header=header,
                type=str(type_),
                distinct=int(figures[2 * at]),
                nulls=int(figures[2 * at + 1]),
                samples=tuple(str(value) for (value,) in samples),
            )
        return profiles
    finally:
        connection.close()

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
"""

from __future__ import annotations

import csv
import os
import sqlite3
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

from agent_orchestrator.errors import InvalidInputError
from agent_orchestrator.retail.datasets.formats import CsvFormat
from agent_orchestrator.retail.db import open_readonly
from agent_orchestrator.retail.schema import get_meta, set_meta
from agent_orchestrator.semantic import SemanticModel, profile_csv, suggest_model
from agent_orchestrator.semantic.profile import CsvReading
from agent_orchestrator.semantic.source import write_parquet

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
            model = suggest_model(profile_csv(utf8, reading), dataset, known=known)
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

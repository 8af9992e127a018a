"""Reading a CSV file's records and writing its good lines into a retail SQLite file.

One loader serves both callers: ``retail.importer`` (the CLI's import into a given file, in place)
and the dataset library (a new version). Two ways to write:

- **fresh** (``upsert=False``): into a file with tables but no indexes yet, plain ``INSERT`` s;
  the caller builds the indexes afterwards. Several times faster than keeping them up to date row
  by row (docs/architecture.md#dataset-versions).
- **upsert**: into a file with its indexes, a line replacing the one of the same natural key
  ``(invoice, stock code, n)`` (see ``retail.schema``), so importing a file again changes nothing.

Customers, products and product names are few (thousands, against hundreds of thousands of lines):
they are gathered in memory and written once at the end.
"""

from __future__ import annotations

import csv
import io
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from agent_orchestrator.errors import InvalidInputError
from agent_orchestrator.retail.datasets.formats import CsvFormat, unreadable_line
from agent_orchestrator.retail.datasets.rows import Line, RowsOnly, Skip

BATCH = 20_000
"""Lines per ``executemany``: big enough to amortise the call, small enough to report progress often."""

OnSkip = Callable[[int, str, str, list[str]], None]
"""``(line number, reason, message, record)`` for every skipped record."""

_INSERT_LINE = (
    "INSERT INTO transactions (invoice, stock_code, seq, customer_id, quantity, unit_price, amount, "
    "invoiced_at, country, is_cancellation) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_UPSERT_LINE = (
    _INSERT_LINE
    + " ON CONFLICT (invoice, stock_code, seq) DO UPDATE SET customer_id = excluded.customer_id, "
    "quantity = excluded.quantity, unit_price = excluded.unit_price, amount = excluded.amount, "
    "invoiced_at = excluded.invoiced_at, country = excluded.country, "
    "is_cancellation = excluded.is_cancellation"
)
_UPSERT_CUSTOMER = (
    "INSERT INTO customers (customer_id, country) VALUES (?, ?) "
    "ON CONFLICT (customer_id) DO UPDATE SET country = excluded.country"
)
_UPSERT_PRODUCT = (
    "INSERT INTO products (stock_code, description, unit_price) VALUES (?, ?, ?) "
    "ON CONFLICT (stock_code) DO UPDATE SET unit_price = excluded.unit_price, "
    "description = CASE WHEN excluded.description = '' THEN products.description "
    "ELSE excluded.description END"
)
_INSERT_NAME = "INSERT OR IGNORE INTO product_names (stock_code, description) VALUES (?, ?)"


@dataclass
class LoadCounts:
    """What the loader has done so far; read by the progress reporter while the load runs."""

    rows_read: int = 0
    bytes_read: int = 0
    imported: int = 0
    skipped: int = 0
    cancellations: int = 0
    skipped_by_reason: dict[str, int] = field(default_factory=dict)
    rows_only: int = 0
    """Lines kept only in the file's own rows: it has no customer or product column."""


def _reading_encoding(fmt: CsvFormat) -> str:
    """UTF-8 is read as ``utf-8-sig``: a byte-order mark (spreadsheet exports write one) is dropped."""
    return "utf-8-sig" if fmt.encoding.lower().replace("_", "-") in ("utf-8", "utf8") else fmt.encoding


@contextmanager
def open_csv(path: Path, fmt: CsvFormat) -> Iterator[tuple[BinaryIO, Any]]:
    """The file's bytes (whose ``tell()`` is how far the reader got) and a ``csv.reader`` over it."""
    try:
        binary = path.open("rb")
    except OSError as error:
        raise InvalidInputError(f"cannot read {path.name}: {error.strerror or error}") from None
    with (
        binary,
        io.TextIOWrapper(binary, encoding=_reading_encoding(fmt), errors="replace", newline="") as text,
    ):
        yield binary, csv.reader(text, delimiter=fmt.delimiter)


def load(
    conn: sqlite3.Connection,
    reader: Any,
    binary: BinaryIO,
    parse: Callable[[list[str]], Line],
    *,
    upsert: bool,
    counts: LoadCounts,
    on_skip: OnSkip,
    on_batch: Callable[[], None] = lambda: None,
) -> None:
    """Every record after the header through ``parse`` into ``conn`` (inside the caller's transaction).

    ``on_batch`` runs after each batch written (the caller's progress and cancellation point).
    """
    insert = _UPSERT_LINE if upsert else _INSERT_LINE
    conn.execute("PRAGMA defer_foreign_keys = ON")  # a line comes before its customer is written
    seen: dict[str, int] = {}  # invoice + stock code -> lines so far, the key's n
    customers: dict[int, str] = {}
    products: dict[str, tuple[str, float]] = {}
    names: set[tuple[str, str]] = set()
    batch: list[tuple[Any, ...]] = []
    reasons = counts.skipped_by_reason
    try:  # around the loop, not per row: free until a record is past the reader's field limit
        for row in reader:
            if not row:  # csv yields [] for a blank line: not data
                continue
            counts.rows_read += 1
            try:
                line = parse(row)
            except RowsOnly:
                counts.imported += 1  # into the file's own rows (store_semantic), which answer it
                counts.rows_only += 1
                continue
            except Skip as skip:
                counts.skipped += 1
                reasons[skip.reason] = reasons.get(skip.reason, 0) + 1
                on_skip(reader.line_num, skip.reason, str(skip), row)
                continue
            invoice, code, description, quantity, invoiced_at, price, customer_id, country, amount = line
            key = f"{invoice}\x1f{code}"
            seq = seen.get(key, 0)
            seen[key] = seq + 1
            cancelled = quantity < 0  # a "C" invoice with a positive quantity never gets here (rows.py)
            batch.append(
                (
                    invoice,
                    code,
                    seq,
                    customer_id,
                    quantity,
                    price,
                    amount,
                    invoiced_at,
                    country,
                    cancelled,
                )
            )
            customers[customer_id] = country
            if description:
                products[code] = (description, price)
                names.add((code, description))
            else:
                products[code] = (products[code][0] if code in products else "", price)
            if len(batch) >= BATCH:
                _write(conn, insert, batch, counts)
                counts.bytes_read = binary.tell()
                on_batch()
    except csv.Error as error:
        raise InvalidInputError(unreadable_line(Path(binary.name).name, reader.line_num, error)) from None
    _write(conn, insert, batch, counts)
    counts.bytes_read = binary.tell()
    conn.executemany(_UPSERT_CUSTOMER, customers.items())
    conn.executemany(_UPSERT_PRODUCT, [(code, desc, price) for code, (desc, price) in products.items()])
    conn.executemany(_INSERT_NAME, names)
    on_batch()


def _write(conn: sqlite3.Connection, insert: str, batch: list[tuple[Any, ...]], counts: LoadCounts) -> None:
    conn.executemany(insert, batch)
    counts.imported += len(batch)
    counts.cancellations += sum(1 for row in batch if row[9])
    batch.clear()

"""Import a CSV in the "Online Retail II" layout into a retail database.

Expected header (names matched case-insensitively, ignoring spaces/underscores, in any order;
the older "Online Retail" spellings InvoiceNo, UnitPrice and CustomerID are accepted too)::

    Invoice,StockCode,Description,Quantity,InvoiceDate,Price,Customer ID,Country

Guarantees:

- **Layout first.** A file without those columns raises ``InvalidInputError`` before the database
  is touched: a file that is not this layout imports nothing.
- **Row errors are reported, not fatal.** A bad row is skipped and reported as ``(line, message)``
  (physical line number in the file, header = line 1); counts are complete even when the list
  of errors is capped.
- **Atomic.** All good rows, the customers/products they mention and the refreshed customer
  statistics are written in one transaction: all or nothing.
- **Idempotent.** A line's identity is ``(invoice, stock code, n)`` where n counts earlier lines
  with the same invoice and stock code in the file (the real data repeats lines). Re-importing
  the same file updates those rows in place instead of adding copies.

Cancellations: invoices starting with "C" are cancellations and must have a negative quantity
(a positive one is reported as an error). They are stored with ``is_cancellation = 1`` and a
negative amount: they reduce a customer's net revenue but never count as orders or purchases.
Any other negative-quantity line (a return or stock adjustment) is treated the same way.
Rows without a Customer ID (a quarter of the real file: anonymous sales) cannot be attributed
to a customer and are skipped as errors.

Dates: ``YYYY-MM-DD HH:MM[:SS]`` (the CSV export of the UCI file) or ``M/D/YYYY H:MM`` (the
Kaggle copy). Prices must be >= 0; quantities non-zero integers.
"""

from __future__ import annotations

import csv
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

from agent_orchestrator.errors import InvalidInputError
from agent_orchestrator.retail.db import open_readwrite
from agent_orchestrator.retail.progress import ProgressCallback
from agent_orchestrator.retail.schema import ensure_schema, set_meta
from agent_orchestrator.retail.stats import refresh_customer_stats

MAX_LISTED_ERRORS = 1_000

COLUMNS = ("invoice", "stockcode", "description", "quantity", "invoicedate", "price", "customerid", "country")
EXPECTED_HEADER = "Invoice,StockCode,Description,Quantity,InvoiceDate,Price,Customer ID,Country"
_ALIASES = {"invoiceno": "invoice", "unitprice": "price"}
_DATE_FORMATS = ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%m/%d/%Y %H:%M", "%m/%d/%Y %H:%M:%S")
_CHUNK = 5_000


class RowError(NamedTuple):
    line: int
    message: str


@dataclass
class ImportResult:
    """What an import did. ``imported`` counts good rows written (new or updated)."""

    rows_read: int = 0
    imported: int = 0
    new_transactions: int = 0
    skipped: int = 0
    cancellations: int = 0
    errors: list[RowError] = field(default_factory=list)

    @property
    def errors_truncated(self) -> bool:
        return self.skipped > len(self.errors)


class _Line(NamedTuple):
    invoice: str
    stock_code: str
    description: str
    quantity: int
    invoiced_at: str
    price: float
    customer_id: int
    country: str


def _normalise(name: str) -> str:
    key = re.sub(r"[^a-z]", "", name.lower())
    return _ALIASES.get(key, key)


def _column_positions(header: list[str]) -> dict[str, int]:
    positions = {_normalise(name): i for i, name in enumerate(header)}
    missing = [EXPECTED_HEADER.split(",")[i] for i, name in enumerate(COLUMNS) if name not in positions]
    if missing:
        raise InvalidInputError(
            "not an Online Retail II CSV: missing column(s) "
            + ", ".join(missing)
            + f"; expected header {EXPECTED_HEADER} (got {','.join(header)[:200]!r})"
        )
    return {name: positions[name] for name in COLUMNS}


def _parse_date(text: str) -> datetime:
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt)
        except ValueError:
            continue
    raise ValueError(f"invalid InvoiceDate {text!r} (expected YYYY-MM-DD HH:MM[:SS] or M/D/YYYY H:MM)")


def _parse_customer(text: str) -> int:
    if not text:
        raise ValueError("missing Customer ID")
    try:
        value = float(text)  # the UCI export writes ids as 13085.0
    except ValueError:
        raise ValueError(f"invalid Customer ID {text!r}") from None
    if not value.is_integer() or value < 1:
        raise ValueError(f"invalid Customer ID {text!r}")
    return int(value)


def _parse_row(row: list[str], pos: dict[str, int], width: int) -> _Line:
    """One CSV record to a line, or ``ValueError`` with a message meant for the user."""
    if len(row) != width:
        raise ValueError(f"expected {width} columns, found {len(row)}")
    cell = {name: row[i].strip() for name, i in pos.items()}
    invoice, stock_code = cell["invoice"], cell["stockcode"].upper()
    if not invoice:
        raise ValueError("missing Invoice")
    if not stock_code:
        raise ValueError("missing StockCode")
    try:
        quantity = int(cell["quantity"])
    except ValueError:
        raise ValueError(f"invalid Quantity {cell['quantity']!r} (expected an integer)") from None
    if quantity == 0:
        raise ValueError("Quantity is 0")
    if invoice.upper().startswith("C") and quantity > 0:
        raise ValueError(f"cancelled invoice {invoice} with positive Quantity {quantity}")
    invoiced_at = _parse_date(cell["invoicedate"])
    try:
        price = float(cell["price"])
    except ValueError:
        raise ValueError(f"invalid Price {cell['price']!r}") from None
    if not price >= 0 or price == float("inf"):
        raise ValueError(f"invalid Price {cell['price']!r} (must be >= 0)")
    customer_id = _parse_customer(cell["customerid"])
    return _Line(
        invoice=invoice.upper(),
        stock_code=stock_code,
        description=cell["description"],
        quantity=quantity,
        invoiced_at=invoiced_at.strftime("%Y-%m-%d %H:%M:%S"),
        price=round(price, 4),
        customer_id=customer_id,
        country=cell["country"] or "Unspecified",
    )


def _read_header(reader: Iterator[list[str]]) -> tuple[dict[str, int], int]:
    header = next(reader, None)
    if header is None:
        raise InvalidInputError("empty file: expected an Online Retail II CSV header")
    return _column_positions(header), len(header)


def _good_lines(reader: Any, pos: dict[str, int], width: int, result: ImportResult) -> Iterator[_Line]:
    """Parsed good lines; bad ones are counted and listed in ``result`` with their line numbers."""
    for row in reader:
        if not row:  # csv yields [] for blank lines; they are not data
            continue
        result.rows_read += 1
        try:
            yield _parse_row(row, pos, width)
        except ValueError as exc:
            result.skipped += 1
            if len(result.errors) < MAX_LISTED_ERRORS:
                result.errors.append(RowError(reader.line_num, str(exc)))


def import_online_retail_csv(
    db_path: Path | str, csv_path: Path | str, progress: ProgressCallback | None = None
) -> ImportResult:
    """Import ``csv_path`` into ``db_path`` (created if missing) and refresh customer stats.

    Raises ``InvalidInputError`` (nothing imported, database untouched) for a file in another
    layout; every problem with a single row is listed in ``ImportResult.errors`` instead.
    """
    report = progress or (lambda stage, done, total: None)
    result = ImportResult()
    with Path(csv_path).open(newline="", encoding="utf-8-sig", errors="replace") as handle:
        reader = csv.reader(handle)
        pos, width = _read_header(reader)  # before the database is opened
        conn = open_readwrite(db_path)
        try:
            ensure_schema(conn)
            conn.execute("BEGIN IMMEDIATE")
            try:
                before = conn.execute("SELECT COUNT(*) FROM transactions").fetchone()[0]
                _write(conn, _good_lines(reader, pos, width, result), result, report)
                after = conn.execute("SELECT COUNT(*) FROM transactions").fetchone()[0]
                result.new_transactions = after - before
                report("customer stats", 0, 1)
                refresh_customer_stats(conn)
                set_meta(conn, "source", "imported")
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        finally:
            conn.close()
    report("done", 1, 1)
    return result


def _write(
    conn: sqlite3.Connection, lines: Iterator[_Line], result: ImportResult, report: ProgressCallback
) -> None:
    seen: dict[tuple[str, str], int] = {}  # (invoice, stock code) -> lines so far, for the key's n
    batch: list[_Line] = []
    for line in lines:
        batch.append(line)
        if len(batch) >= _CHUNK:
            _flush(conn, batch, seen, result)
            report("importing rows", result.rows_read, 0)
    _flush(conn, batch, seen, result)


def _flush(
    conn: sqlite3.Connection, batch: list[_Line], seen: dict[tuple[str, str], int], result: ImportResult
) -> None:
    if not batch:
        return
    customers = {line.customer_id: line.country for line in batch}
    conn.executemany(
        "INSERT INTO customers (customer_id, country) VALUES (?, ?) "
        "ON CONFLICT (customer_id) DO UPDATE SET country = excluded.country",
        customers.items(),
    )
    products: dict[str, tuple[str, float]] = {}
    for line in batch:
        if line.description or line.stock_code not in products:
            products[line.stock_code] = (line.description, line.price)
    conn.executemany(
        "INSERT INTO products (stock_code, description, unit_price) VALUES (?, ?, ?) "
        "ON CONFLICT (stock_code) DO UPDATE SET unit_price = excluded.unit_price, "
        "description = CASE WHEN excluded.description = '' THEN products.description "
        "ELSE excluded.description END",
        [(code, desc, price) for code, (desc, price) in products.items()],
    )
    conn.executemany(
        "INSERT OR IGNORE INTO product_names (stock_code, description) VALUES (?, ?)",
        {(line.stock_code, line.description) for line in batch if line.description},
    )
    rows = []
    for line in batch:
        key = (line.invoice, line.stock_code)
        seq = seen.get(key, 0)
        seen[key] = seq + 1
        cancelled = line.invoice.startswith("C") or line.quantity < 0
        result.cancellations += cancelled
        amount = round(line.quantity * line.price, 2)
        key_and_values = (line.invoice, line.stock_code, seq, line.customer_id, line.quantity, line.price)
        rows.append((*key_and_values, amount, line.invoiced_at, line.country, int(cancelled)))
    conn.executemany(
        "INSERT INTO transactions (invoice, stock_code, seq, customer_id, quantity, unit_price, amount, "
        "invoiced_at, country, is_cancellation) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (invoice, stock_code, seq) DO UPDATE SET customer_id = excluded.customer_id, "
        "quantity = excluded.quantity, unit_price = excluded.unit_price, amount = excluded.amount, "
        "invoiced_at = excluded.invoiced_at, country = excluded.country, "
        "is_cancellation = excluded.is_cancellation",
        rows,
    )
    result.imported += len(batch)
    batch.clear()

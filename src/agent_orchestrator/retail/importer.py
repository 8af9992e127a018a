"""Import a CSV into a retail database file, in place: the CLI's ``import`` (and the tests' fixtures).

The file's columns are named by a mapping (field -> header column, see
``retail.datasets.formats.FIELDS``); without one the header must be in an Online Retail layout
(names matched case-insensitively, ignoring spaces/underscores, in any order; the older "Online
Retail" spellings InvoiceNo, UnitPrice and CustomerID are accepted too)::

    Invoice,StockCode,Description,Quantity,InvoiceDate,Price,Customer ID,Country

The web app imports into a new dataset version instead (``retail.datasets.DatasetLibrary``); both
read rows with the same parser and write them with the same loader (``retail.datasets.rows`` and
``load``), so they accept and skip exactly the same lines.

Guarantees:

- **Layout first.** A file without the mapped columns raises ``InvalidInputError`` before the
  database is touched: a file that is not this layout imports nothing.
- **Row errors are reported, not fatal.** A bad row is skipped and reported as ``(line, message)``
  (physical line number in the file, header = line 1); counts are complete even when the list
  of errors is capped.
- **Atomic.** All good rows, the customers/products they mention and the refreshed customer
  statistics are written in one transaction: all or nothing.
- **Idempotent.** A line's identity is ``(invoice, stock code, n)`` where n counts earlier lines
  with the same invoice and stock code in the file (the real data repeats lines). Re-importing
  the same file updates those rows in place instead of adding copies.
- **Bulk into an empty file.** There are no rows to update, so the lines go in with plain inserts
  and the indexes are built once at the end (the real 541,909-line file: 10 s instead of two
  minutes).

Cancellations: in the Online Retail layouts, invoices starting with "C" are cancellations and must
have a negative quantity (a positive one is reported as an error); in any other file a "C" is just
part of the order number. Cancellations are stored with ``is_cancellation = 1`` and a negative
amount: they reduce a customer's net revenue but never count as orders or purchases. Any other
negative-quantity line (a return or stock adjustment) is treated the same way. An order's later
lines take a blank date, customer or country from its first line (shop exports write them once an
order: ``retail.datasets.rows``). Rows without a customer (a quarter of the real file: anonymous
sales) cannot be attributed to a customer and are skipped as errors. A customer key that is not a
number (an e-mail address) becomes a stable id of its own (``retail.datasets.rows``).

Dates: in the given format; without one, an Online Retail file's ``YYYY-MM-DD HH:MM[:SS]`` (the
CSV export of the UCI file) or ``M/D/YYYY H:MM`` (the Kaggle copy), any other file's format as
detected from its first rows. Prices must be >= 0; quantities non-zero integers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from agent_orchestrator.errors import InvalidInputError
from agent_orchestrator.retail.datasets.formats import (
    LAYOUTS,
    CsvFormat,
    c_marks_cancellations,
    normalise,
    suggest_mapping,
)
from agent_orchestrator.retail.datasets.inspect import date_formats_for, inspect_csv
from agent_orchestrator.retail.datasets.load import LoadCounts, load, open_csv
from agent_orchestrator.retail.datasets.rows import line_parser
from agent_orchestrator.retail.db import open_readwrite
from agent_orchestrator.retail.progress import ProgressCallback
from agent_orchestrator.retail.schema import create_indexes, drop_indexes, ensure_schema, set_meta
from agent_orchestrator.retail.stats import refresh_customer_stats

MAX_LISTED_ERRORS = 1_000
EXPECTED_HEADER = "Invoice,StockCode,Description,Quantity,InvoiceDate,Price,Customer ID,Country"


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
    skipped_by_reason: dict[str, int] = field(default_factory=dict)

    @property
    def errors_truncated(self) -> bool:
        return self.skipped > len(self.errors)


def import_online_retail_csv(
    db_path: Path | str,
    csv_path: Path | str,
    progress: ProgressCallback | None = None,
    *,
    mapping: dict[str, str] | None = None,
    fmt: CsvFormat | None = None,
) -> ImportResult:
    """Import ``csv_path`` into ``db_path`` (created if missing) and refresh customer stats.

    ``mapping`` and ``fmt`` default to what the file's beginning suggests (``inspect_csv``); without
    a mapping the file must be in an Online Retail layout. Raises ``InvalidInputError`` (nothing
    imported, database untouched) for a file that cannot be read that way; every problem with a
    single row is listed in ``ImportResult.errors`` instead.
    """
    report = progress or (lambda stage, done, total: None)
    csv_path = Path(csv_path)
    # Before the database is opened; a given date format that reads none of the file's dates is
    # refused here, as on the Data page, rather than skipping every row.
    dated = (mapping or {}).get("invoiced_at")
    preview = inspect_csv(csv_path, rows=0, given=fmt, date_column=dated)
    fmt = fmt or preview.format
    if mapping is None:
        if preview.layout is None:
            raise InvalidInputError(_not_online_retail(preview.header))
        mapping = {name: column for name, column in suggest_mapping(preview.header).items() if column}
    date_formats = date_formats_for(fmt, preview, csv_path.name)
    try:
        c_cancels = c_marks_cancellations(preview.header, mapping)
        parse = line_parser(preview.header, mapping, fmt, date_formats, c_cancels=c_cancels)
    except ValueError as error:
        raise InvalidInputError(f"{csv_path.name}: {error}") from None
    result = ImportResult()
    counts = LoadCounts(skipped_by_reason=result.skipped_by_reason)

    def on_skip(line: int, reason: str, message: str, record: list[str]) -> None:
        if len(result.errors) < MAX_LISTED_ERRORS:
            result.errors.append(RowError(line, message))

    with open_csv(csv_path, fmt) as (binary, reader):
        next(reader, None)  # the header
        conn = open_readwrite(db_path)
        try:
            ensure_schema(conn)
            # The loader writes every line's customer and product itself, in this transaction,
            # after the lines; a deferred foreign-key check would look each new product's lines up
            # with no index by stock code (minutes for a real file).
            conn.execute("PRAGMA foreign_keys = OFF")
            conn.execute("BEGIN IMMEDIATE")
            try:
                before = conn.execute("SELECT COUNT(*) FROM transactions").fetchone()[0]
                conn.execute("PRAGMA cache_size = -65536")  # 64 MB: index pages stay in memory
                if not before:  # an empty file: plain inserts, indexes built once at the end
                    drop_indexes(conn)
                load(
                    conn,
                    reader,
                    binary,
                    parse,
                    upsert=bool(before),
                    counts=counts,
                    on_skip=on_skip,
                    on_batch=lambda: report("importing rows", counts.rows_read, 0),
                )
                if not before:
                    report("indexing", 0, 1)
                    create_indexes(conn)
                after = conn.execute("SELECT COUNT(*) FROM transactions").fetchone()[0]
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
    result.rows_read, result.imported, result.skipped = counts.rows_read, counts.imported, counts.skipped
    result.cancellations, result.new_transactions = counts.cancellations, after - before
    return result


def _not_online_retail(header: list[str]) -> str:
    names = {normalise(name) for name in header}
    expected = EXPECTED_HEADER.split(",")
    missing = [
        expected[i]
        for i, spellings in enumerate(zip(*LAYOUTS.values(), strict=True))
        if not names.intersection(spellings)
    ]
    return (
        f"not an Online Retail II CSV: missing column(s) {', '.join(missing)}; expected header "
        f"{EXPECTED_HEADER} (got {','.join(header)[:200]!r}), or give a column mapping"
    )


__all__ = ["EXPECTED_HEADER", "LAYOUTS", "ImportResult", "RowError", "import_online_retail_csv"]

"""What a sales file holds, column by column, read by DuckDB: the basis of a suggested semantic model
and of the Data page's column profiles (type, distinct values, samples).

DuckDB's CSV sniffer finds the delimiter, the header, each column's type and the date format
(``11/8/2016`` as ``%m/%d/%Y``); amounts a sheet wrote for people ("$600,000 ") are read as numbers
(``semantic.written``). The profile is one pass of aggregates over the file, never a Python loop over
its rows.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import duckdb

from agent_orchestrator.errors import InvalidInputError
from agent_orchestrator.semantic.compile import literal, quote
from agent_orchestrator.semantic.written import (
    read_as_text,
    sql_day,
    sql_fraction,
    sql_marked,
    sql_matches,
    sql_no_value,
    sql_number,
    sql_symbol,
    year_twin,
)

SAMPLES = 5
"""Distinct example values kept per column."""
FEW_VALUES = 30
"""A column of text with at most this many values holds categories to break figures down by (a
region, not a city); with more, names of things (products, customers)."""


@dataclass(frozen=True, slots=True)
class ColumnProfile:
    """One column as the file holds it."""

    header: str
    type: str
    """DuckDB's type for it: ``VARCHAR``, ``BIGINT``, ``DOUBLE``, ``DATE``, ``TIMESTAMP``, …"""
    distinct: int
    nulls: int
    samples: tuple[str, ...]
    date_format: str | None = None
    """The format the sniffer read a date column with, when the file writes dates as text."""
    maximum: float | None = None
    """For a numeric column: its largest value (a discount of at most 1 is a fraction)."""
    times_of_day: bool = False
    """For a timestamp column: its times of day differ (not all midnight), so hours can be asked."""
    monthly: bool = False
    """For a date column: every value is the first of a month, over at least three months. The rows
    are then a month's figures each (a monthly summary), not a day's sales."""
    weekly: bool = False
    """For a date column: every value is at midnight on one day of the week, over at least eight weeks
    (a store's sales each Friday). The rows are then a week's figures each, not a day's sales."""
    marked: str | None = None
    """For a text column of numbers: the letter that starts some of them ("C536379" among "536365"s:
    the Online Retail layout's cancelled invoices; a rare other letter, an adjustment, aside)."""
    spellings: tuple[tuple[str, str], ...] = ()
    """For a text column of few values: a value written another way (case, spaces: "Paypal") and the
    way the file mostly writes it ("PayPal")."""
    respelled: int = 0
    """For a text column: how many of its values are another's but for case and spaces."""
    symbol: str = ""
    """For a column of amounts written for people ("$600,000 "): the currency symbol they carry."""

    @property
    def numeric(self) -> bool:
        return self.type in _NUMERIC or self.type.startswith("DECIMAL")

    @property
    def whole(self) -> bool:
        """The engine read whole numbers only (a store's number, a 0/1 flag, pieces sold)."""
        return self.type in _WHOLE

    @property
    def temporal(self) -> bool:
        return self.type in ("DATE", "TIME", *_STAMPS)


@dataclass(frozen=True, slots=True)
class TableProfile:
    rows: int
    columns: tuple[ColumnProfile, ...]
    date_format: str | None = None


_STAMPS = ("TIMESTAMP", "TIMESTAMP WITH TIME ZONE")
_WHOLE = frozenset(
    {"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT"}
)
_NUMERIC = _WHOLE | {"FLOAT", "DOUBLE"}


@dataclass(frozen=True, slots=True)
class CsvReading:
    """How a UTF-8 file writes its values, when an admin has confirmed it (else DuckDB sniffs it):
    the delimiter, the decimal mark and the ``strptime`` format of its dates."""

    delimiter: str = ","
    decimal: str = "."
    date_format: str | None = None


def read_csv_sql(
    path: Path, date_format: str | None = None, reading: CsvReading | None = None, as_text: bool = False
) -> str:
    """The ``read_csv`` call DuckDB reads ``path`` with (the path bound as a literal, quoted); every
    value as the file writes it when ``as_text``."""
    date_format = date_format or (reading.date_format if reading else None)
    options = ", all_varchar = true" if as_text else ""
    if date_format and "%z" in date_format:  # moments with their offset: read as text, then local
        options += f", auto_type_candidates = {_NO_MOMENTS}"
    elif date_format and year_twin(date_format):  # days in two year widths: read as text, then days
        # (a column of days all in the short width is read by that format too: "31/5/18" is no
        # 2031-05-18; DuckDB's %Y would read "18" as the year 18, so never by the long one)
        short = date_format if "%y" in date_format else year_twin(date_format)
        options += f", auto_type_candidates = {_NO_DAYS}, timestampformat = {literal(str(short))}"
    elif date_format:
        option = "timestampformat" if "%H" in date_format else "dateformat"
        options += f", {option} = {literal(date_format)}"
    if reading is not None:
        options += f", delim = {literal(reading.delimiter)}, decimal_separator = {literal(reading.decimal)}"
    return f"read_csv({literal(str(path))}, header = true, sample_size = -1{options})"


SCAN_MEMORY = "64MB"
"""What a connection that reads a whole file once may hold in memory; the rest spills to disk (a
file of half a million lines held whole took 280 MB more, beside the import's own)."""


@contextlib.contextmanager
def scanning() -> Iterator[duckdb.DuckDBPyConnection]:
    """A DuckDB connection for reading a whole file once (a profile, the Parquet rows): bounded in
    memory, spilling to a folder of its own that goes with it (docs/architecture.md#dataset-versions)."""
    with tempfile.TemporaryDirectory(prefix="duckdb-spill-") as spill:
        connection = duckdb.connect(config={"memory_limit": SCAN_MEMORY, "temp_directory": spill})
        try:
            yield connection
        finally:
            connection.close()


def profile_csv(path: Path, reading: CsvReading | None = None) -> TableProfile:
    """Profile a CSV file (one clear :class:`InvalidInputError` for a file DuckDB cannot read), read
    as ``reading`` says when one is given."""
    with scanning() as connection:
        try:
            return _profile(connection, path, reading)
        except duckdb.Error as error:
            raise InvalidInputError(f"The file could not be read as CSV: {_first_line(error)}") from error


def _profile(connection: duckdb.DuckDBPyConnection, path: Path, reading: CsvReading | None) -> TableProfile:
    if reading is not None:
        date_format = reading.date_format
    else:
        sniffed = connection.execute(
            f"SELECT * FROM sniff_csv({literal(str(path))}, sample_size = -1)"
        ).fetchone()
        date_format = _date_format(sniffed)
    read = read_csv_sql(path, date_format, reading)
    connection.execute(f"CREATE TEMP TABLE profiled AS SELECT * FROM {read}")
    source = "profiled"  # read once; each column's figures are then a scan of memory
    decimal = reading.decimal if reading is not None else "."
    symbols = written_numbers(connection, source, decimal)
    days = written_days(connection, source, date_format)
    if symbols or days:  # "$600,000 ": amounts, not text; "04-30-22", "04-01-2022": days
        typed = typed_select(source, symbols, decimal, days)
        connection.execute(f"CREATE OR REPLACE TEMP TABLE profiled AS {typed}")
    described = connection.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()
    rows = int(connection.execute(f"SELECT count(*) FROM {source}").fetchone()[0])  # type: ignore[index]
    columns = []
    for header, type_, *_ in described:
        quoted = quote(header)
        numeric = type_ in _NUMERIC or type_.startswith("DECIMAL")
        top = f"max({quoted})::DOUBLE" if numeric else "NULL"
        distinct, nulls, maximum = connection.execute(
            f"SELECT count(DISTINCT {quoted}), count(*) - count({quoted}), {top} FROM {source}"
        ).fetchone()  # type: ignore[misc]
        samples = connection.execute(
            f"SELECT DISTINCT {quoted}::VARCHAR FROM {source} WHERE {quoted} IS NOT NULL LIMIT {SAMPLES}"
        ).fetchall()
        marked = None if numeric else _marked(connection, source, quoted)
        few = not numeric and type_ == "VARCHAR" and int(distinct) <= SPELLED_VALUES
        spellings = _spellings(connection, source, quoted) if few else ()
        respelled = len(spellings) if few or type_ != "VARCHAR" else _respelled(connection, source, quoted)
        times_of_day = type_ in _STAMPS and bool(
            connection.execute(
                f"SELECT count(DISTINCT CAST({quoted}::TIMESTAMP AS TIME)) > 1 FROM {source}"
            ).fetchone()[0]  # type: ignore[index]
        )
        monthly = type_ in ("DATE", *_STAMPS) and _monthly(connection, source, quoted)
        weekly = type_ in ("DATE", *_STAMPS) and not monthly and _weekly(connection, source, quoted)
        columns.append(
            ColumnProfile(
                header=header,
                type=type_,
                distinct=int(distinct),
                nulls=int(nulls),
                samples=tuple(str(value) for (value,) in samples),
                date_format=date_format if type_ in ("DATE", "TIMESTAMP") else None,
                maximum=None if maximum is None else float(maximum),
                times_of_day=times_of_day,
                monthly=monthly,
                weekly=weekly,
                marked=marked,
                spellings=spellings,
                respelled=respelled,
                symbol=symbols[header].symbol if header in symbols else "",
            )
        )
    return TableProfile(rows, tuple(columns), date_format)


MONTHLY_MONTHS = 3
"""Months a column of first days must cover to be read as months (two could be chance)."""


def _monthly(connection: duckdb.DuckDBPyConnection, source: str, quoted: str) -> bool:
    """Every value the first of a month at midnight, as the import reads such dates
    (``retail/datasets/dates.of_months``)."""
    start = f"date_trunc('month', {quoted}::TIMESTAMP)"
    found = connection.execute(
        f"SELECT bool_and({quoted}::TIMESTAMP = {start}), count(DISTINCT {start}) "
        f"FROM {source} WHERE {quoted} IS NOT NULL"
    ).fetchone()
    return found is not None and bool(found[0]) and int(found[1]) >= MONTHLY_MONTHS


WEEKLY_WEEKS = 8
"""Weeks a column of one weekday must cover to be read as weeks (a few could be chance)."""


def _weekly(connection: duckdb.DuckDBPyConnection, source: str, quoted: str) -> bool:
    """Every value at midnight on one day of the week: a week's figures each (Walmart's weekly sales
    by store, dated each Friday)."""
    found = connection.execute(
        f"SELECT count(DISTINCT dayofweek({quoted}::TIMESTAMP)), count(DISTINCT {quoted}::DATE), "
        f"bool_and({quoted}::TIMESTAMP = date_trunc('day', {quoted}::TIMESTAMP)) "
        f"FROM {source} WHERE {quoted} IS NOT NULL"
    ).fetchone()
    return found is not None and found[0] == 1 and int(found[1]) >= WEEKLY_WEEKS and bool(found[2])


@dataclass(frozen=True, slots=True)
class Written:
    """A text column of numbers written for people: the currency symbol they carry ('' for none), and
    whether all of them are whole numbers."""

    symbol: str
    whole: bool


def written_numbers(connection: duckdb.DuckDBPyConnection, source: str, decimal: str) -> dict[str, Written]:
    """The text columns of ``source`` whose every value is a number written for people, at least one
    with its marks ("$600,000 ", "1,200", "35%"): columns of amounts, read as such
    (``semantic.written``)."""
    found = {}
    for header, type_, *_ in connection.execute(f"DESCRIBE SELECT * FROM {source}").fetchall():
        if type_ != "VARCHAR":
            continue
        quoted = quote(header)
        values, odd, marked, symbol, fractions = connection.execute(
            f"SELECT count(*) FILTER (WHERE NOT {sql_no_value(quoted)}), "
            f"count(*) FILTER (WHERE NOT {sql_matches(quoted, decimal)}), "
            f"count(*) FILTER (WHERE {sql_marked(quoted)}), max({sql_symbol(quoted)}), "
            f"count(*) FILTER (WHERE {sql_fraction(quoted, decimal)}) "
            f"FROM {source} WHERE {quoted} IS NOT NULL AND trim({quoted}) <> ''"
        ).fetchone()  # type: ignore[misc]
        if values and not odd and marked:
            found[str(header)] = Written(str(symbol or ""), whole=not fractions)
    return found


def typed_select(
    source: str, columns: Mapping[str, Written], decimal: str, days: Mapping[str, str] | None = None
) -> str:
    """``SELECT`` of every column of ``source``, with ``columns`` (numbers written for people) read as
    numbers: whole ones ("1,200" units) as integers, the others as exact decimals; and ``days``
    (:func:`written_days`) as the days their format, or its year twin, writes."""
    replaced = ", ".join(
        [f"{sql_number(quote(c), decimal, whole=kind.whole)} AS {quote(c)}" for c, kind in columns.items()]
        + [f"{sql_day(quote(c), fmt)} AS {quote(c)}" for c, fmt in (days or {}).items()]
    )
    return f"SELECT * REPLACE ({replaced}) FROM {source}" if replaced else f"SELECT * FROM {source}"


_NO_DAYS = "['BOOLEAN', 'BIGINT', 'DOUBLE', 'TIME', 'TIMESTAMP', 'VARCHAR']"
"""DuckDB's types to sniff, less days: a format of days alone is read by :func:`written_days`."""
_NO_MOMENTS = "['BOOLEAN', 'BIGINT', 'DOUBLE', 'TIME', 'VARCHAR']"
"""DuckDB's types to sniff, less days and moments: moments with an offset are read by
:func:`written_days` at the hour they were written."""


def written_days(
    connection: duckdb.DuckDBPyConnection, source: str, date_format: str | None
) -> dict[str, str]:
    """The text columns of ``source`` whose every value is a day written by ``date_format`` or its
    year twin ("04-30-22", "04-01-2022"), or a moment with its offset, each with the format: read by
    :func:`typed_select` (``read_csv_sql`` leaves them text for such a format, :func:`read_as_text`)."""
    if not date_format or not read_as_text(date_format):
        return {}
    found = {}
    for header, type_, *_ in connection.execute(f"DESCRIBE SELECT * FROM {source}").fetchall():
        if type_ != "VARCHAR":
            continue
        quoted = quote(header)
        values, odd = connection.execute(
            f"SELECT count({quoted}), count(*) FILTER (WHERE {sql_day(quoted, date_format)} IS NULL) "
            f"FROM {source} WHERE {quoted} IS NOT NULL AND trim({quoted}) <> ''"
        ).fetchone()  # type: ignore[misc]
        if values and not odd:
            found[str(header)] = date_format
    return found


SPELLED_VALUES = 500
"""Text columns with at most this many values are checked for one value written several ways."""


def _spellings(
    connection: duckdb.DuckDBPyConnection, source: str, quoted: str
) -> tuple[tuple[str, str], ...]:
    """Values equal but for case and surrounding spaces, each with the spelling most lines use (ties:
    the first in sort order), so that "PayPal" and "Paypal" are one payment method."""
    found = connection.execute(f"{spelled_as_most_lines(source, quoted)} ORDER BY 1").fetchall()
    return tuple((str(value), str(spelled)) for value, spelled in found)


def _respelled(connection: duckdb.DuckDBPyConnection, source: str, quoted: str) -> int:
    """How many values of a text column of many are another's but for case and spaces."""
    found = connection.execute(
        f"SELECT count(DISTINCT {quoted}) - count(DISTINCT lower(trim({quoted}))) FROM {source}"
    ).fetchone()
    return int(found[0]) if found else 0


def spelled_as_most_lines(reader: str, quoted: str) -> str:
    """SQL for each value of a column that other lines write another way (case, surrounding spaces)
    and the way most lines write it (ties: the first in sort order): ``value``, ``spelled``."""
    return (
        "SELECT value, spelled FROM (SELECT value, count(*) OVER (PARTITION BY folded) AS ways, "
        "first(value ORDER BY lines DESC, value) OVER (PARTITION BY folded) AS spelled FROM "
        f"(SELECT {quoted}::VARCHAR AS value, lower(trim({quoted}::VARCHAR)) AS folded, count(*) AS lines "
        f"FROM {reader} WHERE {quoted} IS NOT NULL GROUP BY 1, 2)) WHERE ways > 1 AND value <> spelled"
    )


def _marked(connection: duckdb.DuckDBPyConnection, source: str, quoted: str) -> str | None:
    """The one letter that starts some values of a column of numbers, when most are plain numbers."""
    found = connection.execute(
        f"SELECT regexp_extract({quoted}::VARCHAR, '^([A-Za-z]?)[0-9]+$', 1) AS mark, count(*) AS n "
        f"FROM {source} WHERE regexp_matches({quoted}::VARCHAR, '^[A-Za-z]?[0-9]+$') GROUP BY mark"
    ).fetchall()
    counts = {str(mark): int(n) for mark, n in found}
    marks = sorted((mark for mark in counts if mark), key=counts.__getitem__, reverse=True)
    if not marks:
        return None
    top, rest = counts[marks[0]], sum(counts[mark] for mark in marks[1:])
    # one letter, on fewer values than the plain numbers; another letter only on a few (adjustments)
    return marks[0] if counts.get("", 0) > top and top >= 10 * rest else None


def _date_format(sniffed: tuple[object, ...] | None) -> str | None:
    """The date format in ``sniff_csv``'s answer (its ``DateFormat`` column), if it found one."""
    if not sniffed:
        return None
    for value in sniffed:
        if isinstance(value, str) and value.startswith("%") and any(part in value for part in ("%d", "%m")):
            return value
    return None


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__

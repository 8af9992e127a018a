"""Running compiled queries on DuckDB, over a dataset's file through its semantic model.

The engine's one view, ``sales``, names the file's columns by the model's names, reads dates with the
model's formats, and keeps keys, labels and dimensions as text (a customer key is ``SM-20320`` or
``12345`` exactly as the file writes it). Queries run in-process on a connection of their own, with
the file read by DuckDB itself (CSV or Parquet): the Python around it builds SQL and reads the result
table once (docs/architecture.md#the-semantic-model).
"""

from __future__ import annotations

import calendar
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb

from agent_orchestrator.errors import InvalidInputError
from agent_orchestrator.semantic.compile import VIEW, Compiled, compile_holding, compile_query, literal, quote
from agent_orchestrator.semantic.model import Column, Role, SemanticModel
from agent_orchestrator.semantic.profile import (
    read_csv_sql,
    spelled_as_most_lines,
    typed_select,
    written_days,
    written_numbers,
)
from agent_orchestrator.semantic.query import ENUM_LIMIT, SemanticQuery


@dataclass(frozen=True)
class Result:
    """A query's answer as one table: its column names, in order, and its rows."""

    columns: list[str]
    rows: list[tuple[Any, ...]]
    compiled: Compiled

    def records(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]


class Engine:
    """One dataset's file under its model; safe to share between threads (a cursor per query)."""

    def __init__(self, model: SemanticModel, source: Path) -> None:
        self.model = model
        self.source = source
        self._db = duckdb.connect()
        self._lock = threading.Lock()
        self._parents: dict[str, list[Column]] = {}
        parquet = source.suffix.lower() == ".parquet"  # written by source.py: the file's own columns
        dated = _date_format(model)
        reader = f"read_parquet({literal(str(source))})" if parquet else read_csv_sql(source, dated)
        if not parquet:  # a file read as it is: its amounts written for people ("$600,000 ") as numbers
            numbers, days = written_numbers(self._db, reader, "."), written_days(self._db, reader, dated)
            reader = f"({typed_select(reader, numbers, '.', days)})"
        joins, spelled = "", {}
        for n, column in enumerate(c for c in model.columns if c.folded and c.role is not Role.ignore):
            table = f"__spelled{n}"  # each value other lines write another way, and the way most do
            found = spelled_as_most_lines(reader, quote(column.source))
            self._db.execute(
                f"CREATE TABLE {table} AS SELECT value AS __value, spelled AS __spelled FROM ({found})"
            )
            joins += f" LEFT JOIN {table} ON CAST({quote(column.source)} AS VARCHAR) = {table}.__value"
            spelled[column.name] = table
        self._db.execute(f"CREATE VIEW {VIEW} AS SELECT {projection(model, spelled)} FROM {reader}{joins}")

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def run(self, query: SemanticQuery) -> Result:
        compiled = compile_query(self.model, query)
        return self.execute(compiled)

    def execute(self, compiled: Compiled) -> Result:
        with self._lock:
            cursor = self._db.cursor()
        try:
            try:
                cursor.execute(compiled.sql, compiled.params)
            except duckdb.ConversionException as error:
                raise InvalidInputError(
                    f"A value of the question does not fit its column: {error}"
                ) from error
            except duckdb.Error as error:  # a query the compiler should not have written: one line
                first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
                raise InvalidInputError(f"The question could not be computed: {first}") from error
            columns = [d[0] for d in cursor.description or []]
            return Result(columns, [tuple(map(_plain, row)) for row in cursor.fetchall()], compiled)
        finally:
            cursor.close()

    def holding(self, query: SemanticQuery) -> dict[str, Any] | None:
        """The line that holds the extreme ``query`` asks for, with how many do (``__lines``):
        :func:`~agent_orchestrator.semantic.compile.compile_holding`."""
        compiled = compile_holding(self.model, query)
        if compiled is None:
            return None
        records = self.execute(compiled).records()
        return records[0] if records else None

    def group_count(self, query: SemanticQuery) -> int:
        """How many groups the query has before its limit ("the top 5 of 24")."""
        compiled = compile_query(self.model, query)
        unlimited = compiled.sql.rsplit(" LIMIT ", 1)[0]
        (count,) = self._one(f"SELECT count(*) FROM ({unlimited})", compiled.params)
        return int(count)

    def _one(self, sql: str, params: Any = ()) -> tuple[Any, ...]:
        """The one row an aggregate query returns."""
        with self._lock:
            cursor = self._db.cursor()
        try:
            row = cursor.execute(sql, params).fetchone()
        finally:
            cursor.close()
        assert row is not None  # an aggregate always has its row
        return tuple(row)

    def matches(self, column: Column, text: str, limit: int = 8) -> list[str]:
        """The values of ``column`` that ``text`` names: the one equal to it (case aside), else those
        holding all of its words ("Chand" -> every Chand), at most ``limit`` -- or the one of them
        that holds its words as written, in a row ("Land of Toys" is Land of Toys Inc., not Toys of
        Finland)."""
        name = quote(column.name)
        words = [w for w in text.lower().split() if w]
        if not words:
            return []
        with self._lock:
            cursor = self._db.cursor()
        try:
            exact = cursor.execute(
                f"SELECT DISTINCT {name} FROM {VIEW} WHERE lower({name}) = ? LIMIT 2", [text.strip().lower()]
            ).fetchall()
            if exact:
                return [str(value) for (value,) in exact]
            where = " AND ".join(f"contains(lower({name}), ?)" for _ in words)
            rows = cursor.execute(
                f"SELECT DISTINCT {name} FROM {VIEW} WHERE {where} ORDER BY 1 LIMIT {limit + 1}", words
            ).fetchall()
        finally:
            cursor.close()
        found = [str(value) for (value,) in rows]
        joined = r"\W+(?:(?:of|the|and|&|de|du|la|le|von|van)\W+)?".join(re.escape(w) for w in words)
        said = re.compile(rf"(?<!\w){joined}(?!\w)")  # "land toys": Land of Toys, as read without "of"
        phrased = [value for value in found if said.search(value.lower())]
        return phrased if len(phrased) == 1 else found  # "Land of Toys": not "Toys of Finland"

    def names_of(self, key: Column, values: list[str]) -> dict[str, str]:
        """What the file calls each of these values of an entity's ``key`` (its label's most common
        value), by ``column=value``: a product asked by its stock code is named in the answer."""
        label = self.model.label_of(key.entity) if key.entity is not None else None
        if label is None or not values:
            return {}
        marks = ", ".join("?" for _ in values)
        with self._lock:
            cursor = self._db.cursor()
        try:
            rows = cursor.execute(
                f"SELECT {quote(key.name)}::VARCHAR, mode({quote(label.name)}) FROM {VIEW} "
                f"WHERE {quote(key.name)}::VARCHAR IN ({marks}) GROUP BY 1",
                [str(v) for v in values],
            ).fetchall()
        finally:
            cursor.close()
        return {f"{key.name}={k}": str(name).strip() for k, name in rows if name is not None}

    def under(
        self, column: Column, value: str, kept: Mapping[str, Sequence[str]] = {}
    ) -> tuple[Column, list[str]] | None:
        """The values of the column ``value`` of ``column`` sits under several of ("Portland": in
        Maine and in Oregon; the "Neon": a Dodge and a Plymouth), when it names several things; None
        when it names one. A parent is a dimension that nearly every value of ``column`` sits under
        one value of: a city's state, a model's brand (:meth:`parents`). ``kept``: the values the
        question already keeps, by column ("Springfield" in Virginia is one city)."""
        where = " ".join(
            f"AND {quote(name)}::VARCHAR IN ({', '.join('?' for _ in values)})"
            for name, values in kept.items()
            if name != column.name and values
        )
        params = [str(v) for name, values in kept.items() if name != column.name for v in values]
        for parent in self.parents(column):
            if parent.name in kept:
                continue
            found = self._under(column, value, parent, where, params)
            if 2 <= len(found) <= _CHOICES:
                return parent, found
        return None

    def grouped_in(self, column: Column, value: str) -> str | None:
        """What groups ``value`` of ``column``, when one value of its closest grouping column does
        ("Aurora", a model: an Oldsmobile), to tell it apart from other things of that name."""
        for parent in self.parents(column)[:1]:
            found = self._under(column, value, parent, "", [])
            if len(found) == 1:
                return found[0]
        return None

    def _under(self, column: Column, value: str, parent: Column, where: str, params: list[str]) -> list[str]:
        rows = self._rows(
            f"SELECT DISTINCT {quote(parent.name)}::VARCHAR FROM {VIEW} WHERE {quote(column.name)} = ? "
            f"AND {quote(parent.name)} IS NOT NULL {where} ORDER BY 1 LIMIT {_CHOICES + 1}",
            [value, *params],
        )
        return [str(found) for (found,) in rows]

    def parents(self, column: Column) -> list[Column]:
        """The dimensions that group the values of ``column`` (a city's state), closest first: each
        with fewer values than it, and at most :data:`_SHARED` of its values under more than one of
        them. None for the status that marks cancellations: a line's state is no name, and
        "Cancelled" by Amazon or by a merchant is one status. Worked out once per column."""
        with self._lock:
            known = self._parents.get(column.name)
        if known is not None:
            return known
        name = quote(column.name)
        found: list[tuple[int, Column]] = []
        cancelling = self.model.cancellation
        status = cancelling is not None and cancelling.column == column.name
        for parent in [] if status else self.model.with_role(Role.dimension):
            if parent.name == column.name or _NAMING & set(parent.name.split("_")):
                continue
            under = quote(parent.name)
            values, shared, parents = self._one(
                f"SELECT count(*), count(*) FILTER (WHERE n > 1), "
                f"(SELECT count(DISTINCT {under}) FROM {VIEW}) FROM (SELECT {name}, "
                f"count(DISTINCT {under}) AS n FROM {VIEW} WHERE {name} IS NOT NULL GROUP BY 1)"
            )
            # two values are a flag (B2B or not), no grouping of places or things
            if 3 <= int(parents) < int(values) and int(shared) <= int(values) * _SHARED:
                found.append((-int(parents), parent))  # the finest grouping first: a state before a region
        chosen = [parent for _, parent in sorted(found, key=lambda pair: pair[0])]
        with self._lock:
            self._parents[column.name] = chosen
        return chosen

    def _rows(self, sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
        with self._lock:
            cursor = self._db.cursor()
        try:
            return cursor.execute(sql, params).fetchall()
        finally:
            cursor.close()

    def span(self, column: Column | None = None) -> tuple[date | None, date | None]:
        """The first and last day of the data (of the model's time column, or ``column``). A column of
        months (each dated on its 1st) ends on its last month's last day: December's figures are the
        whole of December, and "the last 3 months" are October to December."""
        time = column or self.model.time
        if time is None:
            return None, None
        first, last = self._one(f"SELECT min({quote(time.name)}), max({quote(time.name)}) FROM {VIEW}")
        end = _day(last)
        if time.monthly and end is not None:
            end = end.replace(day=calendar.monthrange(end.year, end.month)[1])
        return _day(first), end

    def row_count(self) -> int:
        """How many rows the dataset has (what the start screen says is loaded)."""
        (count,) = self._one(f"SELECT count(*) FROM {VIEW}")
        return int(count)

    def blank(self, column: Column) -> int:
        """How many rows leave ``column`` empty (a guest checkout's lines have no customer)."""
        (count,) = self._one(f"SELECT count(*) FROM {VIEW} WHERE {quote(column.name)} IS NULL")
        return int(count)

    def words(self, limit: int = 200_000) -> dict[str, list[str]]:
        """The distinct values of every dimension, key and label (up to ``limit`` each): what a
        question's words are matched against (:class:`~agent_orchestrator.semantic.vocabulary.Vocabulary`)."""
        return self._distinct(self.model.groupable, limit)

    def values(self, limit: int = ENUM_LIMIT) -> dict[str, list[str]]:
        """The distinct values of each dimension with at most ``limit`` of them: the enums of the
        query's schema."""
        return self._distinct(self.model.with_role(Role.dimension), limit)

    def _distinct(self, columns: list[Column], limit: int) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        with self._lock:
            cursor = self._db.cursor()
        try:
            for column in columns:
                name = quote(column.name)
                distinct = f"SELECT DISTINCT {name} FROM {VIEW} WHERE {name} IS NOT NULL"
                rows = cursor.execute(f"{distinct} ORDER BY 1 LIMIT {limit + 1}").fetchall()
                if len(rows) <= limit:
                    found[column.name] = [str(value) for (value,) in rows]
        finally:
            cursor.close()
        return found


def _date_format(model: SemanticModel) -> str | None:
    formats = {c.date_format for c in model.with_role(Role.time) if c.date_format}
    return formats.pop() if len(formats) == 1 else None


_SHARED = 0.2
"""At most this share of a column's values may sit under several values of a column that groups it
(a tenth of the US cities of a store's export share their name across states; a model sold in every
region is grouped by none)."""
_NAMING = frozenset({"id", "no", "nr", "num", "number", "code", "key"})
"""Words of a header that make it another name of the same thing ("Dealer_No" beside "Dealer_Name"),
which tells nothing apart for an analyst."""
_CHOICES = 8
"""The most choices a clarifying question offers."""
DAY_TIME_TYPE = {"date": "DATE", "date_time": "TIMESTAMP", "time": "TIME"}
"""A time column's type in the view: a day, or a day with its time of day kept, or a time alone."""
MEASURE_TYPE = "DECIMAL(18, 6)"
"""Measures' type: exact to six decimals, up to a trillion a line (sums widen to 38 digits)."""


_MISSING = "'', 'NA', 'N/A', '#N/A', 'NULL', 'NONE', 'NAN', '-'"
"""What exports write in a key's place when there is none: such a line has no customer (a guest)."""


def projection(model: SemanticModel, spelled: Mapping[str, str] | None = None) -> str:
    """The model's columns (not the ignored ones), read under the file's own headers, each cast to
    its role's type and named by the model; a folded column's values as the table ``spelled`` names
    for it writes them."""
    spelled = spelled or {}
    parts = []
    for column in model.columns:
        if column.role is Role.ignore:
            continue
        source = quote(column.source)
        if column.role in (Role.key, Role.label, Role.dimension):
            expression = f"CAST({source} AS VARCHAR)"
            if column.spellings:  # literals from the validated model, never from a question
                cases = " ".join(f"WHEN {literal(k)} THEN {literal(v)}" for k, v in column.spellings.items())
                expression = f"CASE {expression} {cases} ELSE {expression} END"
            if column.name in spelled:
                expression = f"coalesce({spelled[column.name]}.__spelled, {expression})"
            if column.role is Role.key:  # "NA", "N/A", "-": an export's word for no key (a walk-in)
                expression = (
                    f"CASE WHEN upper(trim({expression})) IN ({_MISSING}) THEN NULL ELSE {expression} END"
                )
        elif column.role is Role.time:
            expression = f"CAST({source} AS {DAY_TIME_TYPE[column.day_time]})"
        else:
            # Exact decimals: a sum of 10,000 amounts is the shop's own to the cent (a binary
            # double drifts, and 118,447.825 then shows as .82).
            expression = f"CAST({source} AS {MEASURE_TYPE})"
        parts.append(f"{expression} AS {quote(column.name)}")
    return ", ".join(parts)


def _plain(value: Any) -> Any:
    """A decimal result as the float it reads as: its shortest repr is the exact decimal (at most
    15 significant digits), which ``render.figure`` rounds half up, as a spreadsheet does."""
    if isinstance(value, datetime):  # a moment's day: dates are what answers say (hours are grouped)
        return value.date()
    return float(value) if isinstance(value, Decimal) else value


def _day(value: Any) -> date | None:
    if value is None:
        return None
    value = _plain(value)
    return value if isinstance(value, date) else date.fromisoformat(str(value)[:10])

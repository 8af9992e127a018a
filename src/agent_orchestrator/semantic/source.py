"""A dataset's rows as the engine reads them: the file as exported, once more, as Parquet.

An import writes the file it was given into this form once (docs/architecture.md#the-semantic-model):
every column under its own header, typed as the confirmed reading reads it (its delimiter, decimal
mark and date format; amounts written for people, "$600,000 ", as numbers). The semantic model is
a view over it (``engine.projection``), so changing a column's role later needs no file: the rows
keep every column, used or not. Every question reads a
columnar file of a few megabytes instead of parsing the CSV again, and the file travels inside the
dataset's version wherever the version goes (a server of its own, the shared store).
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from agent_orchestrator.errors import InvalidInputError
from agent_orchestrator.semantic.compile import quote
from agent_orchestrator.semantic.engine import projection
from agent_orchestrator.semantic.model import Entity, SemanticModel
from agent_orchestrator.semantic.profile import (
    CsvReading,
    read_csv_sql,
    scanning,
    typed_select,
    written_days,
    written_numbers,
)


def write_parquet(model: SemanticModel, csv: Path, target: Path, reading: CsvReading | None = None) -> None:
    """``csv`` (UTF-8, read as ``reading`` says, the model's date format for its dates) to ``target``
    as Parquet, checked against the model: one clear :class:`InvalidInputError` when a value does
    not fit its column's role."""
    with scanning() as connection:
        _written(connection, model, csv, target, reading)


def _written(
    connection: duckdb.DuckDBPyConnection,
    model: SemanticModel,
    csv: Path,
    target: Path,
    reading: CsvReading | None,
) -> None:
    try:
        literal = str(target).replace("'", "''")
        date_format = next((c.date_format for c in model.columns if c.date_format), None)
        read = read_csv_sql(csv, date_format, reading)
        decimal = reading.decimal if reading is not None else "."
        connection.execute(f"CREATE TEMP TABLE lines AS SELECT * FROM {read}")
        days = written_days(connection, "lines", date_format or (reading.date_format if reading else None))
        typed = typed_select("lines", written_numbers(connection, "lines", decimal), decimal, days)
        order = model.key_of(Entity.order)
        try:
            filled = typed if order is None else _orders_fields_on_each_line(connection, typed, order.source)
            connection.execute(f"COPY ({filled}) TO '{literal}' (FORMAT parquet, COMPRESSION zstd)")
        except duckdb.OutOfMemoryException:  # a file too wide to group in the scan's memory: as written
            connection.execute(f"COPY ({typed}) TO '{literal}' (FORMAT parquet, COMPRESSION zstd)")
        check_rows(connection, model, target)
    except duckdb.Error as error:
        target.unlink(missing_ok=True)
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise InvalidInputError(f"The file's rows could not be read by their columns: {first}") from error


_CHECKED_AT_ONCE = 8
_NUMBERS = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "FLOAT", "DOUBLE", "DECIMAL")


def _orders_fields_on_each_line(connection: duckdb.DuckDBPyConnection, typed: str, order: str) -> str:
    """``typed`` with an order's own fields on each of its lines: a web shop's export writes an
    order's status, dates, address and channel on its first line only, and an order's line is of its
    order ("units shipped to California", "revenue of refunded orders"). A field is the order's when
    no order has two values of it and some order leaves it blank on a line; amounts are never copied
    (an order's total, on one line, sums once)."""
    described = connection.execute(f"DESCRIBE {typed}").fetchall()
    fields = [str(r[0]) for r in described if r[0] != order and not str(r[1]).startswith(_NUMBERS)]
    if fields:  # only a column with a blank may be one: one scan, no grouping
        blank = connection.execute(
            f"SELECT {', '.join(f'count(*) > count({quote(f)})' for f in fields)} FROM ({typed})"
        ).fetchone()
        fields = [f for f, some in zip(fields, blank or (), strict=False) if some]
    if not fields:
        return typed
    key = quote(order)
    filled = []
    for at in range(0, len(fields), _CHECKED_AT_ONCE):  # a few columns a scan: bounded in memory
        some = fields[at : at + _CHECKED_AT_ONCE]
        per_order = ", ".join(  # min and max, not a count of distinct values: a few bytes an order
            f"min({quote(f)}) = max({quote(f)}) AS one{i}, "
            f"count(*) > count({quote(f)}) AND count({quote(f)}) > 0 AS gap{i}"
            for i, f in enumerate(some)
        )
        checks = ", ".join(
            f"coalesce(bool_and(one{i}), true) AND coalesce(bool_or(gap{i}), false)" for i in range(len(some))
        )
        found = connection.execute(
            f"SELECT {checks} FROM (SELECT {per_order} FROM ({typed}) WHERE {key} IS NOT NULL GROUP BY {key})"
        ).fetchone()
        filled += [f for f, fill in zip(some, found or (), strict=False) if fill]
    if not filled:
        return typed
    copies = ", ".join(
        f"coalesce({quote(f)}, max({quote(f)}) OVER (PARTITION BY {key})) AS {quote(f)}" for f in filled
    )
    return f"SELECT * REPLACE ({copies}) FROM ({typed})"


def check_rows(connection: duckdb.DuckDBPyConnection, model: SemanticModel, rows: Path) -> None:
    """Every value of the rows read as the model says (a date as a date, a measure as a number), or
    ``duckdb.Error`` naming the first that does not."""
    literal = str(rows).replace("'", "''")
    connection.execute(f"SELECT count(*) FROM (SELECT {projection(model)} FROM read_parquet('{literal}'))")

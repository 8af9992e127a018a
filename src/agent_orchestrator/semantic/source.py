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
from agent_orchestrator.semantic.engine import projection
from agent_orchestrator.semantic.model import SemanticModel
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
        connection.execute(f"COPY ({typed}) TO '{literal}' (FORMAT parquet, COMPRESSION zstd)")
        check_rows(connection, model, target)
    except duckdb.Error as error:
        target.unlink(missing_ok=True)
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise InvalidInputError(f"The file's rows could not be read by their columns: {first}") from error


def check_rows(connection: duckdb.DuckDBPyConnection, model: SemanticModel, rows: Path) -> None:
    """Every value of the rows read as the model says (a date as a date, a measure as a number), or
    ``duckdb.Error`` naming the first that does not."""
    literal = str(rows).replace("'", "''")
    connection.execute(f"SELECT count(*) FROM (SELECT {projection(model)} FROM read_parquet('{literal}'))")

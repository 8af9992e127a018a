"""A dataset's rows as the engine reads them: one Parquet file named and typed by the semantic model.

An import writes the file it was given into this form once (docs/architecture.md#the-semantic-model):
every column the model keeps, cast to its role's type (keys, labels and dimensions as text exactly
as the file writes them, measures as numbers, dates as dates) and named by the model. Every later
question reads a columnar file of a few megabytes instead of parsing the CSV again, and the file
travels inside the dataset's version wherever the version goes (a server of its own, the shared
store).
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from agent_orchestrator.errors import InvalidInputError
from agent_orchestrator.semantic.engine import projection
from agent_orchestrator.semantic.model import SemanticModel
from agent_orchestrator.semantic.profile import CsvReading, read_csv_sql


def write_parquet(model: SemanticModel, csv: Path, target: Path, reading: CsvReading | None = None) -> None:
    """``csv`` (UTF-8, read as ``reading`` says) to ``target`` as Parquet; one clear
    :class:`InvalidInputError` when a value does not fit its column's role."""
    connection = duckdb.connect()
    try:
        literal = str(target).replace("'", "''")
        date_format = next((c.date_format for c in model.columns if c.date_format), None)
        read = read_csv_sql(csv, date_format, reading)
        connection.execute(
            f"COPY (SELECT {projection(model)} FROM {read}) TO '{literal}' (FORMAT parquet, COMPRESSION zstd)"
        )
    except duckdb.Error as error:
        target.unlink(missing_ok=True)
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise InvalidInputError(f"The file's rows could not be read by their columns: {first}") from error
    finally:
        connection.close()

"""Versions of the retail data, imported from uploaded CSV files (docs/architecture.md#dataset-versions).

    preview = inspect_csv(upload)                     # header, rows, suggested mapping and format
    library = DatasetLibrary(data_dir)                # or DatasetLibrary(data_dir, engine=postgres)
    report = library.import_csv(upload, mapping, preview.format, mode="replace",
                                actor="admin", source_name="orders.csv")
    library.current_path()                            # what every reader opens, at the time of the call

One concern per module: ``formats`` (fields, format, suggested mapping), ``dates``, ``inspect`` (the
first look), ``arrival`` (an upload made a plain table: lines above its header, totals, Excel's serial
days), ``date_parts`` (a date written as year, month and day columns), ``rows`` (a record to a
line), ``load`` (lines into SQLite), ``skipped``, ``progress``, ``build`` (a version's file),
``cache`` (local copies), ``store`` (records, pointer, shared blobs), ``models`` and ``library``
(the API).
"""

from agent_orchestrator.retail.datasets.arrival import inspect_upload
from agent_orchestrator.retail.datasets.formats import FIELDS, CsvFormat
from agent_orchestrator.retail.datasets.inspect import CsvPreview, inspect_csv
from agent_orchestrator.retail.datasets.library import DEFAULT_ID, KEEP_VERSIONS, UNSET, DatasetLibrary
from agent_orchestrator.retail.datasets.models import (
    DatasetFacts,
    DatasetVersion,
    ImportReport,
    SegmentRules,
)
from agent_orchestrator.retail.datasets.progress import ImportProgress

__all__ = [
    "DEFAULT_ID",
    "FIELDS",
    "KEEP_VERSIONS",
    "UNSET",
    "CsvFormat",
    "CsvPreview",
    "DatasetFacts",
    "DatasetLibrary",
    "DatasetVersion",
    "ImportProgress",
    "ImportReport",
    "SegmentRules",
    "inspect_csv",
    "inspect_upload",
]

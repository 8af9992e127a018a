"""Every skipped record of an import, kept as a CSV file beside its version.

All of them, not the first thousand: an admin fixing the export needs each line and why, and a
quarter of the real Online Retail file (135,080 lines without a customer) is not too many to write
(about a second). Columns: ``line`` (the physical line in the uploaded file, the header is 1),
``reason`` (the category counted in ``ImportReport.skipped_by_reason``), ``message`` (the detail),
then the record's own cells under the file's own header.
"""

from __future__ import annotations

import csv
from pathlib import Path
from types import TracebackType


class SkippedRows:
    """A writer of the skipped-rows file; call it for each skipped record (a ``load.OnSkip``)."""

    def __init__(self, path: Path, header: list[str]) -> None:
        self.path = path
        self._handle = path.open("w", newline="", encoding="utf-8")
        self._writer = csv.writer(self._handle)
        self._writer.writerow(["line", "reason", "message", *header])

    def __call__(self, line: int, reason: str, message: str, record: list[str]) -> None:
        self._writer.writerow([line, reason, message, *record])

    def __enter__(self) -> SkippedRows:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._handle.close()

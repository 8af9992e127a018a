"""An upload as a spreadsheet or a report exported it, made a plain table once, as it arrives.

The importer reads one header line and then one sale a line (docs/architecture.md#dataset-versions).
Files exported from a sheet or a reporting tool often are that table with a little around it, and an
admin should not have to edit the file by hand to import it:

- **Lines before the header**: a report's title, the date it was run, a blank line. The header is
  the first line that fills (almost) as many cells as the widest line near the top and does not
  look like data; the lines above it, each filling one cell at most, are dropped.
- **Totals**: a "Total" or "Grand Total" line at the end, which would count every sale twice. A line
  whose first written cell is such a word and whose date is blank is dropped, wherever it is
  (subtotals of a grouped report too); the end of the file is looked at to know whether to look.
- **Dates as Excel writes them unformatted**: serial numbers of days since 1899-12-30 ("45292" for
  2024-01-01, a fraction the time of day), in a column whose header names a date, are written ISO.
- **A date written in parts** (``date_parts``): a column each for its year, month and day.

Nothing else changes, the file is rewritten once and in place (a crash leaves the upload as it came),
and a file that needs none of this is never rewritten.
"""

from __future__ import annotations

import csv
import dataclasses
import os
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from agent_orchestrator.retail.datasets.date_parts import DateParts, date_parts, iso
from agent_orchestrator.retail.datasets.formats import CsvFormat
from agent_orchestrator.retail.datasets.inspect import CsvPreview, head_text, inspect_csv, looks_like_data
from agent_orchestrator.retail.datasets.load import open_csv
from agent_orchestrator.semantic.suggest import header_words

_SAMPLED = 500
"""Lines of the file's beginning whose values are checked (parts of dates, serial days)."""
_SHOWN = 10
"""Lines of the file the preview shows (``inspect_csv``'s own default)."""
_TOP = 30
"""Lines at the top of a file among which its header is looked for."""
_FILLED = 0.8
"""Of the widest line near the top, the share of cells the header fills at least."""
_TAIL_BYTES = 64 * 1024
_TOTAL = re.compile(r"(?:grand\s+|sub-?\s*)?totals?(?:\s*:)?|sum", re.IGNORECASE)
_EXCEL_EPOCH = datetime(1899, 12, 30)
_SERIAL_DAYS = (20_000, 80_000)
"""Serial days of 1954 to 2119: a column of them under a date's header is dates."""
_DATE_WORDS = frozenset({"date", "day", "time", "timestamp", "datetime", "created", "ordered", "invoiced"})


@dataclass(frozen=True)
class _Fixes:
    serial: dict[int, bool]
    """Columns of serial days, and whether they hold times of day."""
    parts: list[DateParts]
    dated: int | None
    totals: bool

    def any(self) -> bool:
        return bool(self.serial or self.parts or self.totals)


def inspect_upload(path: Path) -> CsvPreview:
    """The first look at an uploaded file (``inspect_csv``), after it is made a plain table (the file
    rewritten in place when it needs it: see the module docstring)."""
    skip = _lines_before_header(path)
    if skip:  # read past the title first: the header is what everything else is found by
        _drop_lines(path, skip)
    preview = inspect_csv(path, rows=_SAMPLED)
    dated = preview.mapping.get("invoiced_at")
    fixes = _Fixes(
        serial=_serial_dates(preview.header, preview.rows),
        parts=date_parts(preview.header, preview.rows),
        dated=preview.header.index(dated) if dated else None,
        totals=_ends_in_totals(path, preview.format),
    )
    if not fixes.any():  # the look already taken is the file's: its first rows are the preview's
        return dataclasses.replace(preview, rows=preview.rows[:_SHOWN])
    _rewrite(path, preview.format, fixes)
    return inspect_csv(path, rows=_SHOWN)


def _lines_before_header(path: Path) -> int:
    """How many lines come before the header: a report's title and blank lines, each filling at most
    one cell (a line that cannot be read is no title: the file is read as it is, and refused there)."""
    text, _, delimiter = head_text(path)
    lines = text.splitlines()[:_TOP]
    cells = [_cells(line, delimiter) for line in lines]
    filled = [sum(1 for cell in row if cell.strip()) if row is not None else 0 for row in cells]
    widest = max(filled, default=0)
    for at, (row, count) in enumerate(zip(cells, filled, strict=True)):
        if row is None:
            return 0
        if count >= max(2, _FILLED * widest):
            plain = [cell.strip() for cell in row]
            return at if sum(1 for c in plain if looks_like_data(c)) <= len(plain) // 2 else 0
        if count > 1:  # two cells or more, yet not the header's width: no title, a table of its own
            return 0
    return 0


def _cells(line: str, delimiter: str) -> list[str] | None:
    try:
        return next(csv.reader([line], delimiter=delimiter), [])
    except csv.Error:
        return None


def _serial_dates(header: list[str], body: list[list[str]]) -> dict[int, bool]:
    """The columns headed as dates whose values are all Excel's serial days, and whether any has a
    fraction (a time of day)."""
    found = {}
    for at, name in enumerate(header):
        if not _DATE_WORDS & set(header_words(name)):
            continue
        cells = [record[at].strip() for record in body if at < len(record) and record[at].strip()]
        days = [_serial(cell) for cell in cells]
        if days and all(day is not None for day in days):
            found[at] = any(day is not None and (day.hour or day.minute) for day in days)
    return found


def _serial(cell: str) -> datetime | None:
    try:
        days = float(cell)
    except ValueError:
        return None
    if not _SERIAL_DAYS[0] <= days < _SERIAL_DAYS[1]:
        return None
    return _EXCEL_EPOCH + timedelta(days=days)


def _written_serial(cell: str, clocked: bool) -> str:
    when = _serial(cell.strip())
    if when is None:
        return cell
    return when.strftime("%Y-%m-%d %H:%M") if clocked else when.strftime("%Y-%m-%d")


def _ends_in_totals(path: Path, fmt: CsvFormat) -> bool:
    """Whether a line of the file's end is a total ("Grand Total,,,,1234.50")."""
    with path.open("rb") as handle:
        handle.seek(max(0, path.stat().st_size - _TAIL_BYTES))
        tail = handle.read().decode(fmt.encoding.removesuffix("-sig"), errors="replace")
    return any(_is_total(_cells(line, fmt.delimiter) or [], None) for line in tail.splitlines()[1:])


def _is_total(record: list[str], dated: int | None) -> bool:
    """A line of totals: its first written cell says so, and its date (when known) is blank."""
    first = next((cell.strip() for cell in record if cell.strip()), "")
    if not _TOTAL.fullmatch(first):
        return False
    return dated is None or dated >= len(record) or not record[dated].strip()


def _drop_lines(path: Path, skip: int) -> None:
    """``path`` without its first ``skip`` lines (a report's title), in its own encoding otherwise."""
    _, encoding, _ = head_text(path)
    written = path.with_name(path.name + ".plain")
    with path.open(encoding=encoding, errors="replace", newline="") as source:
        for _ in range(skip):
            source.readline()
        with written.open("w", encoding="utf-8", newline="") as out:
            while chunk := source.read(1 << 20):
                out.write(chunk)
    os.replace(written, path)


def _rewrite(path: Path, fmt: CsvFormat, fixes: _Fixes) -> None:
    """Write ``path`` again with ``fixes`` made (UTF-8 from then on), and put it in its place."""
    written = path.with_name(path.name + ".plain")
    with open_csv(path, fmt) as (_, reader), written.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out, delimiter=fmt.delimiter)
        header = next(reader, None)
        if header is None:
            return
        writer.writerow([*header, *(part.name for part in fixes.parts)])
        for record in reader:
            if fixes.totals and _is_total(record, fixes.dated):
                continue
            for at, clocked in fixes.serial.items():
                if at < len(record):
                    record[at] = _written_serial(record[at], clocked)
            writer.writerow([*record, *(iso(part, record) for part in fixes.parts)])
    os.replace(written, path)

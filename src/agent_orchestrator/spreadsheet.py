"""Cells a spreadsheet must not run: every CSV or tab-separated output of ours goes through here
(docs/architecture.md#spreadsheet-cells).

A cell that starts with ``=``, ``+``, ``-`` or ``@`` (or a tab or a carriage return, which some
spreadsheets skip before reading one of those) is read as a formula when the file is opened:
``=HYPERLINK(...)`` becomes a live link, ``+cmd|' /C calc'!A0`` a DDE call. Text that came from
somebody else (an uploaded file's cells, a country's name in the data) is therefore written with a
single quote in front, as OWASP's CSV-injection guidance says: the spreadsheet shows the text as it
was, and the quote tells a reader of the raw file that it was escaped. A plain number (``-12.5``,
``+3``, ``1e-3``) cannot run and stays a number; the quoting of a cell that holds the separator, a
quote or a line break is the CSV writer's (``csv.writer``).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Iterator

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def safe_cell(value: object) -> object:
    """``value``, with a single quote in front when it is text a spreadsheet would read as a formula
    (numbers, and text that is a plain number, unchanged)."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def safe_row(row: Iterable[object]) -> list[object]:
    """Every cell of ``row`` through :func:`safe_cell`."""
    return [safe_cell(cell) for cell in row]


def safe_csv(lines: Iterable[str], *, rows_per_chunk: int = 1000) -> Iterator[str]:
    """A CSV text (``lines``, as a file opened with ``newline=""`` gives them) written again with
    every cell through :func:`safe_cell`, in chunks of ``rows_per_chunk`` rows: a file written
    before the cells were escaped, or by a writer that does not escape them, is safe to download."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for number, row in enumerate(csv.reader(lines), start=1):
        writer.writerow(safe_row(row))
        if number % rows_per_chunk == 0:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    if buffer.tell():
        yield buffer.getvalue()

"""Cells a spreadsheet must not run (docs/architecture.md#spreadsheet-cells): text starting with a
formula's first character gets a single quote in front; numbers, and text that is a plain number,
stay numbers; a CSV written again keeps every other cell and its quoting."""

import csv
import io

import pytest

from agent_orchestrator.spreadsheet import safe_cell, safe_csv, safe_row

FORMULAS = [
    '=HYPERLINK("http://evil.example","Click")',
    "+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(A1:A9)",
    "\t=1+1",
    "\r=1+1",
    "=1",
    "-",
    "+",
]


@pytest.mark.parametrize("cell", FORMULAS)
def test_a_formula_is_written_as_text(cell: str) -> None:
    assert safe_cell(cell) == "'" + cell


@pytest.mark.parametrize("cell", ["-12.5", "+3", "-0.25", "1e-3", "-1E+5", ".5", "-7.", "12", "", "Germany"])
def test_plain_numbers_and_other_text_stay_as_they_are(cell: str) -> None:
    assert safe_cell(cell) == cell


def test_numbers_of_ours_are_never_touched() -> None:
    assert safe_row([-12.5, 3, None, "=x"]) == [-12.5, 3, None, "'=x"]


def test_a_csv_written_again_escapes_only_what_would_run() -> None:
    rows = [["line", "reason", "Description", "Quantity"]]
    rows += [[str(n), "missing customer", cell, "-5"] for n, cell in enumerate(FORMULAS, start=2)]
    rows += [["99", "bad, quoted", 'say "hi"\nnext line', "-12.5"]]
    source = io.StringIO()
    csv.writer(source).writerows(rows)
    chunks = list(safe_csv(io.StringIO(source.getvalue(), newline=""), rows_per_chunk=4))
    assert len(chunks) == 3  # 11 rows, 4 at a time
    back = list(csv.reader(io.StringIO("".join(chunks), newline="")))
    assert back[0] == rows[0]
    assert [row[2] for row in back[1:-1]] == ["'" + cell for cell in FORMULAS]
    assert back[-1] == rows[-1]  # the separator, a quote and a line break inside a cell survive
    assert {row[3] for row in back[1:]} == {"-5", "-12.5"}

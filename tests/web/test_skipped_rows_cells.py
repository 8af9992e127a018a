"""The skipped rows' download gives an uploaded file's cells back as text, never as formulas a
spreadsheet would run (docs/architecture.md#spreadsheet-cells): each formula's first character, in
any column, gets a single quote in front; line numbers, quantities and plain numbers stay numbers."""

import csv
import io
from pathlib import Path

from sales_csv import ONLINE_RETAIL
from test_data_api import SMALL_RETAIL, import_and_wait, upload

from agent_orchestrator.retail import generate_dataset

FORMULAS = [
    '=HYPERLINK("http://evil.example","Click")',
    "+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(A1:A9)",
    "\t=1+1",
    "\r=1+1",
]


def _orders(path: Path) -> Path:
    """Eight good lines, then one line per formula without a customer (skipped), the formula as its
    description and its country, and one whose description is a plain negative number."""
    rows = [list(ONLINE_RETAIL)]
    rows += [
        [f"5360{n}", "P001", "Mug", "2", f"2011-01-0{n + 1} 10:00:00", "3.25", "12000", "France"]
        for n in range(8)
    ]
    for n, formula in enumerate([*FORMULAS, "-12.5"]):
        rows.append([f"5370{n}", "P002", formula, "-3", "2011-01-02 10:00:00", "1.5", "", formula])
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    return path


def test_the_skipped_rows_download_escapes_every_formula(tmp_path: Path, start_app) -> None:
    generate_dataset(tmp_path / "retail.sqlite", SMALL_RETAIL)
    app = start_app(retail_dataset=True)
    alice = app.client("alice")
    preview = upload(alice, _orders(tmp_path.parent / f"{tmp_path.name}-orders.csv")).json()
    report = import_and_wait(alice, preview)["report"]
    assert (report["imported"], report["skipped"]) == (8, len(FORMULAS) + 1)

    download = alice.get(f"/api/datasets/versions/{report['version_id']}/skipped.csv")
    assert download.status_code == 200 and download.headers["content-type"].startswith("text/csv")
    assert download.headers["content-disposition"].startswith("attachment")
    rows = list(csv.DictReader(io.StringIO(download.text, newline="")))
    assert [row["Description"] for row in rows] == [*("'" + f for f in FORMULAS), "-12.5"]
    assert [row["Country"] for row in rows] == [*("'" + f for f in FORMULAS), "-12.5"]
    assert {row["Quantity"] for row in rows} == {"-3"}
    lines = [int(row["line"]) for row in rows]  # numbers of ours, as they were
    assert lines == sorted(lines) and lines[0] == 10

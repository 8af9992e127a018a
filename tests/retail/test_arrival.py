"""An upload is made a plain table as it arrives: a date written in parts (year, month and day
columns) becomes a date column of its own, lines above the header and lines of totals go, Excel's
serial days are dates (docs/architecture.md#dataset-versions)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_orchestrator.errors import InvalidInputError
from agent_orchestrator.retail.datasets import inspect_upload
from agent_orchestrator.retail.datasets.date_parts import date_parts


def _parts(header: str, *rows: str) -> list[tuple[str, int, int, int, int | None]]:
    found = date_parts(header.split(","), [row.split(",") for row in rows])
    return [(p.name, p.year, p.month, p.day, p.time) for p in found]


def test_each_date_of_the_header_is_found_by_its_shared_words() -> None:
    header = (
        "Order YearMonth,Order Year,Order Month,Order Day,Order Time,Qty,"
        "Shipment Year,Shipment Month,Shipment Day"
    )
    row = "201502,2015,2,21,14:07,1,2015,2,27"
    assert _parts(header, row) == [("Order Date", 1, 2, 3, 4), ("Shipment Date", 6, 7, 8, None)]
    # a file's own spellings: run together, in lower case, a month by its name, no prefix at all
    assert _parts("ship_year,ship_month,ship_day,qty", "2020,3,4,1") == [("Ship Date", 0, 1, 2, None)]
    assert _parts("OrderYear,OrderMonth,OrderDay", "2020,3,4") == [("Order Date", 0, 1, 2, None)]
    assert _parts("Year,Month,Day,Sales", "2021,March,9,5") == [("Date", 0, 1, 2, None)]


def test_parts_that_are_not_a_date_or_a_date_the_file_has_are_left_alone() -> None:
    assert _parts("Year,Month,Sales", "2021,3,5") == []  # no day: a month of its own
    assert _parts("Year,Month,Day,Sales", "2021,13,40,5", "2021,14,41,5") == []  # a score, not a date
    assert _parts("Date,Year,Month,Day", "2021-03-09,2021,3,9") == []  # the file has its date
    assert _parts("Fiscal Year,Fiscal Month,Fiscal Day", "1,2,3") == []  # no year of a calendar


def test_an_upload_gets_its_dates_appended_and_is_read_with_them(tmp_path: Path) -> None:
    path = tmp_path / "orders.csv"
    path.write_text(
        "Order ID,Order Year,Order Month,Order Day,Order Time,Product,Qty,Sales\n"
        "1,2024,2,29,9:05,Tent,1,40\n"
        "2,2024,3,1,,Stove,2,30\n"
        + "3,2024,3,2,11:30,Stove,1,15\n" * 18
        + "4,2024,2,30,10:00,Tent,1,40\n"  # no such day: its date is left blank, the line kept
    )
    preview = inspect_upload(path)
    assert [row[-1] for row in preview.rows[:3]] == [
        "2024-02-29 09:05",
        "2024-03-01 00:00",
        "2024-03-02 11:30",
    ]
    assert path.read_text().splitlines()[-1] == "4,2024,2,30,10:00,Tent,1,40,"
    assert preview.mapping["invoiced_at"] == "Order Date" and preview.format.date_format == "%Y-%m-%d %H:%M"
    unchanged = tmp_path / "plain.csv"
    unchanged.write_bytes(b"Order ID,Date,Qty,Sales\r\n1,2024-01-02,1,4\r\n")
    inspect_upload(unchanged)
    assert unchanged.read_bytes() == b"Order ID,Date,Qty,Sales\r\n1,2024-01-02,1,4\r\n"


def test_a_reports_title_its_totals_and_serial_days_are_not_sales(tmp_path: Path) -> None:
    path = tmp_path / "report.csv"
    path.write_text(
        "Sales report,,,,\nRun on 2024-05-01,,,,\n,,,,\n"
        "Order ID,Order Date,Product,Qty,Amount\n"
        "1,45292,Mug,2,10.00\n2,45293.5,Cup,1,4.50\n"
        "Subtotal,,,3,14.50\n3,45294,Mug,1,5.00\nGrand Total,,,4,19.50\n"
    )
    preview = inspect_upload(path)
    assert preview.header == ["Order ID", "Order Date", "Product", "Qty", "Amount"]
    assert preview.rows == [
        ["1", "2024-01-01 00:00", "Mug", "2", "10.00"],
        ["2", "2024-01-02 12:00", "Cup", "1", "4.50"],
        ["3", "2024-01-03 00:00", "Mug", "1", "5.00"],
    ]
    assert preview.mapping["invoiced_at"] == "Order Date" and preview.format.date_format == "%Y-%m-%d %H:%M"


def test_a_total_with_a_date_or_a_serial_under_no_date_header_is_data(tmp_path: Path) -> None:
    path = tmp_path / "plain.csv"
    text = "Order ID,Date,Product,Qty,Code\n1,2024-01-02,Total,2,45292\n2,2024-01-03,Cup,1,45293\n"
    path.write_text(text)
    inspect_upload(path)
    assert path.read_text() == text  # a product called "Total" sold that day; a code is no date


def test_a_header_that_cannot_be_read_is_refused_not_read_past(tmp_path: Path) -> None:
    """Lines above the header fill one cell at most: a header with a field past the CSV reader's limit
    is the file's own problem, named (never skipped for the next line as if it were a title)."""
    path = tmp_path / "wide.csv"
    path.write_text("Order," + "x" * 200_000 + ",Qty,Amount\n" + "1,Mug P1,2,10.00\n" * 5)
    with pytest.raises(InvalidInputError, match=r"line 1 of wide\.csv has a field longer than"):
        inspect_upload(path)

"""The dataset library on real SQLite files: mappings and formats, skipped rows, versions, switches."""

from __future__ import annotations

import asyncio
import codecs
import csv
import json
import os
import sqlite3
import subprocess
import threading
from pathlib import Path

import pytest
from retail_fixtures import HEADER, KNOWN_ROWS, SMALL

from agent_orchestrator.errors import (
    DatasetChangedError,
    ImportCancelledError,
    InvalidInputError,
    NotFoundError,
)
from agent_orchestrator.mcp_server.server import build_server
from agent_orchestrator.retail import generate_dataset
from agent_orchestrator.retail.datasets import (
    DEFAULT_ID,
    FIELDS,
    CsvFormat,
    DatasetLibrary,
    ImportProgress,
    SegmentRules,
    inspect_csv,
)
from agent_orchestrator.retail.datasets import library as library_module
from agent_orchestrator.retail.datasets.dates import candidate_formats, of_months
from agent_orchestrator.retail.datasets.inspect import SAMPLE_BYTES
from agent_orchestrator.retail.datasets.rows import KEYED_ID_BASE, keyed_customer_id
from agent_orchestrator.retail.datasets.semantic import semantic_source
from agent_orchestrator.retail.db import open_readonly
from agent_orchestrator.semantic import Engine, SemanticQuery

SHOPIFY = (
    "Name,Email,Created at,Lineitem quantity,Lineitem name,Lineitem price,Lineitem sku,Billing Country\n"
    "#1001,ada@example.com,2024-03-05 10:12:00 +0100,2,Blue Mug,12.50,MUG-B,Germany\n"
    "#1001,ada@example.com,2024-03-05 10:12:00 +0100,1,Tea Towel,4.00,TT-1,Germany\n"
    "#1002,Bob@Example.com,2024-03-06 09:00:00 +0100,3,Blue Mug,12.50,MUG-B,Austria\n"
    "#1003,ADA@example.com,2024-04-01 16:30:00 +0200,1,Red Mug,13.00,MUG-R,Germany\n"
)
EURO = (
    "Invoice;SKU;Description;Qty;Date;Price;Customer;Country\n"
    "5001;A1;Kaffeebecher;2;31.01.2024 10:00;1.234,50;17;Deutschland\n"
    "5002;A2;Teller;1;01.02.2024 11:30;2,75;18;Österreich\n"
)
SHOPIFY_EXPORT = Path(__file__).parent / "data" / "shopify_orders_export.csv"
"""A Shopify orders export as the platform writes it: five orders of one to three lines."""
MAPPING_EURO = dict(
    zip(
        FIELDS, ("Invoice", "SKU", "Description", "Qty", "Date", "Price", "Customer", "Country"), strict=False
    )
)


def _write(folder: Path, text: str, name: str = "data.csv", encoding: str = "utf-8") -> Path:
    path = folder / name
    path.write_bytes(text.encode(encoding))
    return path


def _mapping(path: Path) -> dict[str, str]:
    return {field: column for field, column in inspect_csv(path).mapping.items() if column}


def _import(library: DatasetLibrary, path: Path, mode: str = "replace", **options: object):  # type: ignore[no-untyped-def]
    preview = inspect_csv(path)
    return library.import_csv(
        path,
        _mapping(path),
        preview.format,
        mode=mode,
        actor="admin",
        source_name=path.name,
        **options,  # type: ignore[arg-type]
    )


def _query(path: Path, sql: str) -> list[tuple[object, ...]]:
    conn = open_readonly(path)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


@pytest.fixture
def library(tmp_path: Path) -> DatasetLibrary:
    found = DatasetLibrary(tmp_path / "data", keep=3)
    yield found
    found.close()


STORE_EXPORT = (
    "Row ID,Order ID,Order Date,Customer ID,Segment,Region,Product ID,Product Name,Sales,Quantity,Profit\n"
    "1,CA-2016-152156,11/8/2016,CG-12520,Consumer,South,FUR-BO-1,Bookcase,261.96,2,41.91\n"
    "2,CA-2016-152156,11/8/2016,CG-12520,Consumer,South,FUR-CH-4,Chairs,731.94,3,219.58\n"
    "3,CA-2016-138688,6/30/2016,DV-13045,Corporate,West,OFF-LA-1,Labels,14.62,2,6.87\n"
    "4,US-2015-108966,10/11/2015,SO-20335,Consumer,South,FUR-TA-5,Table,957.5775,5,-383.03\n"
)
"""A store's export with a line total (``Sales``) and no unit price, text customer keys."""


def test_a_file_with_line_totals_and_no_unit_price_imports_as_exported(
    library: DatasetLibrary, tmp_path: Path
) -> None:
    path = _write(tmp_path, STORE_EXPORT, "store.csv")
    preview = inspect_csv(path)
    assert preview.problems == []
    assert preview.mapping["line_total"] == "Sales" and preview.mapping["unit_price"] is None
    mapping = {field: column for field, column in preview.mapping.items() if column}
    report = library.import_csv(
        path, mapping, preview.format, mode="replace", actor="admin", source_name="store.csv"
    )
    assert report.imported == 4 and report.skipped == 0
    conn = sqlite3.connect(library.current_path())
    try:
        total, prices = conn.execute(
            "SELECT ROUND(SUM(amount), 2), GROUP_CONCAT(unit_price) FROM transactions"
        ).fetchone()
    finally:
        conn.close()
    assert total == round(261.96 + 731.94 + 14.62 + 957.58, 2)  # the file's own totals, not price x qty
    assert "130.98" in prices.split(",")


def test_a_mapping_without_a_price_or_a_total_is_refused_naming_both(
    library: DatasetLibrary, tmp_path: Path
) -> None:
    path = _write(tmp_path, STORE_EXPORT, "store.csv")
    preview = inspect_csv(path)
    mapping = {field: column for field, column in preview.mapping.items() if column and field != "line_total"}
    with pytest.raises(InvalidInputError, match="unit_price or line_total"):
        library.import_csv(
            path, mapping, preview.format, mode="replace", actor="admin", source_name="store.csv"
        )


def test_a_shop_platform_export_is_mapped_and_its_emails_become_stable_ids(
    library: DatasetLibrary, tmp_path: Path
) -> None:
    path = _write(tmp_path, SHOPIFY, "orders_export.csv")
    preview = inspect_csv(path)
    assert preview.layout is None and preview.problems == []
    assert preview.mapping == {
        "invoice": "Name",
        "stock_code": "Lineitem sku",
        "description": "Lineitem name",
        "quantity": "Lineitem quantity",
        "invoiced_at": "Created at",
        "unit_price": "Lineitem price",
        "customer_id": "Email",
        "country": "Billing Country",
        "line_total": None,
    }
    assert preview.format.date_format == "%Y-%m-%d %H:%M:%S %z"
    report = _import(library, path)
    assert (report.imported, report.skipped, report.customers, report.countries) == (4, 0, 2, 2)
    assert (report.first_date, report.last_date) == ("2024-03-05", "2024-04-01")
    ids = {row[0] for row in _query(library.current_path(), "SELECT customer_id FROM customers")}
    assert ids == {keyed_customer_id("ada@example.com"), keyed_customer_id("bob@example.com")}
    assert all(KEYED_ID_BASE <= i < 2**53 for i in ids)  # case-insensitive, exact in a browser
    assert _query(library.current_path(), "SELECT MIN(invoiced_at) FROM transactions") == [
        ("2024-03-05 10:12:00",)
    ]


def test_a_shopify_orders_export_imports_as_it_is_its_orders_filled_down(
    library: DatasetLibrary,
) -> None:
    """The export writes an order's date, e-mail and country on its first line only; its other
    lines take them from there. 40 columns, quoted cells with commas and quotes, a line without a
    SKU (a custom item: skipped, as any line without a product code)."""
    preview = inspect_csv(SHOPIFY_EXPORT)
    assert (preview.layout, preview.problems, preview.format.date_format) == (
        None,
        [],
        "%Y-%m-%d %H:%M:%S %z",
    )
    assert len(preview.header) == 40
    report = _import(library, SHOPIFY_EXPORT)
    assert (report.rows_read, report.imported, report.skipped, report.skipped_by_reason) == (
        11,
        10,
        1,
        {"no stock code": 1},
    )
    assert (report.customers, report.products, report.countries, report.cancellations) == (3, 5, 3, 0)
    assert (report.first_date, report.last_date) == ("2024-03-05", "2024-04-15")
    db = library.current_path()
    orders = _query(
        db,
        "SELECT invoice, COUNT(*), ROUND(SUM(amount), 2), MIN(invoiced_at), MAX(invoiced_at), "
        "COUNT(DISTINCT customer_id), MIN(country), MAX(country) FROM transactions GROUP BY invoice",
    )
    ada, bob = keyed_customer_id("ada@example.com"), keyed_customer_id("bob@example.com")
    assert orders == [
        ("#1001", 3, 34.0, "2024-03-05 10:12:00", "2024-03-05 10:12:00", 1, "Germany", "Germany"),
        ("#1002", 1, 37.5, "2024-03-06 09:00:00", "2024-03-06 09:00:00", 1, "Austria", "Austria"),
        ("#1003", 2, 21.0, "2024-04-01 16:30:00", "2024-04-01 16:30:00", 1, "Germany", "Germany"),
        ("#1004", 2, 11.4, "2024-04-02 08:05:00", "2024-04-02 08:05:00", 1, "France", "France"),
        ("#1005", 2, 21.4, "2024-04-15 19:45:00", "2024-04-15 19:45:00", 1, "Austria", "Austria"),
    ]
    assert _query(db, "SELECT ROUND(SUM(amount), 2), SUM(quantity) FROM transactions") == [(125.3, 18)]
    by_customer = _query(db, "SELECT customer_id, COUNT(DISTINCT invoice) FROM transactions GROUP BY 1")
    assert dict(by_customer) == {ada: 2, bob: 2, keyed_customer_id("chloe@example.fr"): 1}
    assert _query(db, "SELECT description FROM products WHERE stock_code = 'CST-4'") == [("Coaster, cork",)]


def test_order_level_cells_are_filled_down_within_an_order_only(
    library: DatasetLibrary, tmp_path: Path
) -> None:
    """A blank cell is filled from the first line of the same order while its lines follow one
    another: never from the order before, nor across a line without an order number."""
    text = (
        "Order,SKU,Qty,Date,Price,Customer,Country\n"
        "A1,X,1,2024-05-01,2.00,7,Spain\n"
        "A1,Y,1,,3.00,,\n"  # filled from A1's first line
        "A1,Z,1,2024-05-03,4.00,8,\n"  # its own date and customer, A1's country
        "A2,X,1,,1.00,9,Italy\n"  # a new order without a date: not A1's
        ",X,1,2024-05-04,1.00,9,Italy\n"  # no order number
        "A2,Y,1,2024-05-05,1.00,,\n"  # A2 again, but after another line: a new start, no customer
    )
    report = _import(library, _write(tmp_path, text))
    assert (report.imported, report.skipped_by_reason) == (
        3,
        {"bad date": 1, "no invoice": 1, "no customer": 1},
    )
    rows = _query(
        library.current_path(),
        "SELECT stock_code, invoiced_at, customer_id, country FROM transactions ORDER BY stock_code",
    )
    assert rows == [
        ("X", "2024-05-01 00:00:00", 7, "Spain"),
        ("Y", "2024-05-01 00:00:00", 7, "Spain"),
        ("Z", "2024-05-03 00:00:00", 8, "Spain"),
    ]


def test_a_leading_c_cancels_only_in_the_online_retail_layouts(
    library: DatasetLibrary, tmp_path: Path
) -> None:
    """A shop's order "CA-1001" is a sale; a negative quantity is a return wherever it is. In the
    Online Retail layout "C" still marks a cancellation, which must have a negative quantity."""
    shop = "Order,SKU,Qty,Date,Price,Customer,Country\n" + (
        "CA-1001,X,2,2024-05-01,2.00,7,Spain\n"
        "CA-1002,Y,1,2024-05-02,3.00,7,Spain\n"
        "R-1003,X,-1,2024-05-03,2.00,7,Spain\n"
    )
    report = _import(library, _write(tmp_path, shop, "shop.csv"))
    assert (report.imported, report.skipped, report.cancellations) == (3, 0, 1)
    rows = _query(
        library.current_path(), "SELECT invoice, is_cancellation FROM transactions ORDER BY invoice"
    )
    assert rows == [("CA-1001", 0), ("CA-1002", 0), ("R-1003", 1)]

    online_retail = HEADER + (
        "C100,X,MUG,2,2024-05-01 10:00:00,2.00,7,Spain\n"
        "C101,X,MUG,-2,2024-05-01 10:00:00,2.00,7,Spain\n"
        "102,X,MUG,-1,2024-05-01 10:00:00,2.00,7,Spain\n"
        "103,X,MUG,4,2024-05-01 10:00:00,2.00,7,Spain\n"
    )
    report = _import(library, _write(tmp_path, online_retail, "online-retail.csv"))
    assert (report.imported, report.cancellations) == (3, 2)
    assert report.skipped_by_reason == {"cancellation with positive quantity": 1}


def test_semicolons_decimal_commas_thousands_and_latin_1(library: DatasetLibrary, tmp_path: Path) -> None:
    path = _write(tmp_path, EURO, encoding="latin-1")
    preview = inspect_csv(path)
    assert preview.format == CsvFormat(
        delimiter=";", date_format="%d.%m.%Y %H:%M", decimal=",", thousands=".", encoding="cp1252"
    )
    report = library.import_csv(
        path, MAPPING_EURO, preview.format, mode="replace", actor="a", source_name="x.csv"
    )
    assert report.imported == 2
    rows = _query(
        library.current_path(), "SELECT unit_price, invoiced_at, country FROM transactions ORDER BY invoice"
    )
    assert rows == [
        (1234.5, "2024-01-31 10:00:00", "Deutschland"),
        (2.75, "2024-02-01 11:30:00", "Österreich"),
    ]


def test_a_byte_order_mark_and_tabs_are_read(library: DatasetLibrary, tmp_path: Path) -> None:
    path = _write(tmp_path, "\ufeff" + (HEADER + KNOWN_ROWS).replace(",", "\t"))
    preview = inspect_csv(path)
    assert (preview.format.delimiter, preview.format.encoding, preview.layout) == (
        "\t",
        "utf-8-sig",
        "Online Retail II",
    )
    assert _import(library, path).imported == 18


def test_excel_unicode_text_utf_16_with_tabs_is_read_not_refused_as_binary(
    library: DatasetLibrary, tmp_path: Path
) -> None:
    """Excel's "Unicode text": UTF-16 LE with a byte-order mark, tab-separated."""
    text = (HEADER + KNOWN_ROWS.replace("ITEM B", "Crème £5")).replace(",", "\t")
    path = tmp_path / "unicode.txt"
    path.write_bytes(codecs.BOM_UTF16_LE + text.encode("utf-16-le"))
    preview = inspect_csv(path)
    assert (preview.format.encoding, preview.format.delimiter, preview.layout) == (
        "utf-16",
        "\t",
        "Online Retail II",
    )
    assert preview.rows[2][2] == "Crème £5"
    assert _import(library, path).imported == 18
    assert _query(library.current_path(), "SELECT description FROM products WHERE stock_code = 'B'") == [
        ("Crème £5",)
    ]


def test_a_file_ascii_for_its_first_256_kb_is_read_as_what_its_later_lines_are(
    library: DatasetLibrary, tmp_path: Path
) -> None:
    """The encoding is the whole file's: a cp1252 "£" after 256 KB of ASCII is not read as UTF-8
    (whose reading would store a replacement character), and a UTF-8 file stays UTF-8."""
    ascii_lines = "".join(
        f"{200000 + i},A,ITEM A,1,2024-01-10 10:00:00,2.5,{1 + i % 50},United Kingdom\n" for i in range(5_000)
    )
    late = "300000,Z,Crème £5,1,2024-02-01 10:00:00,5,7,France\n"
    assert len(ascii_lines) > SAMPLE_BYTES
    for encoding, detected in [("cp1252", "cp1252"), ("utf-8", "utf-8")]:
        path = _write(tmp_path, HEADER + ascii_lines + late, f"late-{encoding}.csv", encoding=encoding)
        preview = inspect_csv(path)
        assert preview.format.encoding == detected
        assert _import(library, path).imported == 5_001
        stored = _query(library.current_path(), "SELECT description FROM products WHERE stock_code = 'Z'")
        assert stored == [("Crème £5",)], encoding


def test_ambiguous_dates_are_candidates_and_an_import_needs_one(
    library: DatasetLibrary, tmp_path: Path
) -> None:
    text = "Order,SKU,Qty,Date,Price,Customer\n1,A,1,03/04/2024,1.0,7\n2,B,1,05/06/2024,2.0,8\n"
    path = _write(tmp_path, text)
    preview = inspect_csv(path)
    assert preview.date_formats == ["%m/%d/%Y", "%d/%m/%Y"] and preview.format.date_format is None
    assert any("day/month" in problem for problem in preview.problems)
    with pytest.raises(InvalidInputError, match="day/month and month/day"):
        library.import_csv(path, _mapping(path), preview.format, mode="replace", actor="a", source_name="x")
    assert library.current_version_id() == DEFAULT_ID
    typed = CsvFormat(date_format="%Y.%m.%d")  # a typed format that reads none of the dates
    with pytest.raises(
        InvalidInputError, match=r"the date format '%Y.%m.%d' reads none of the dates in 'Date'"
    ):
        library.import_csv(path, _mapping(path), typed, mode="replace", actor="a", source_name="x")
    assert library.current_version_id() == DEFAULT_ID
    chosen = CsvFormat(date_format="%d/%m/%Y")
    library.import_csv(path, _mapping(path), chosen, mode="replace", actor="a", source_name="x")
    assert _query(library.current_path(), "SELECT MIN(invoiced_at) FROM transactions") == [
        ("2024-04-03 00:00:00",)
    ]
    unambiguous = _write(tmp_path, text.replace("05/06/2024", "25/06/2024"), "b.csv")
    assert inspect_csv(unambiguous).format.date_format == "%d/%m/%Y"
    # a long file sorted by date: its first lines fit both, its later ones only day/month
    early = "".join(f"{n},A,1,0{1 + n % 9}-01-2015,1.0,7\n" for n in range(12_000))
    sorted_by_date = _write(
        tmp_path, text.split("\n")[0] + "\n" + early + "9,A,1,25-01-2015,1.0,7\n", "c.csv"
    )
    assert sorted_by_date.stat().st_size > 256 * 1024
    assert inspect_csv(sorted_by_date).format.date_format == "%d-%m-%Y"


def test_every_skip_reason_is_counted_and_every_skipped_row_kept_with_its_line(
    library: DatasetLibrary, tmp_path: Path
) -> None:
    body = (
        "489434,85048,GLASS BALL,12,2009-12-01 07:45:00,6.95,13085.0,United Kingdom\n"  # 2 good
        "489435,22350,CAT BOWL,twelve,2009-12-01 07:46:00,2.55,13085.0,United Kingdom\n"  # 3
        "489436,48173C,DOOR MAT,10,2009-13-01 09:06:00,5.95,13078.0,United Kingdom\n"  # 4
        "489437,22143,HEART,6,2009-12-01 09:08:00,2.1,,United Kingdom\n"  # 5
        "489438,21329,WRITING SET,28,2009-12-01 09:24:00\n"  # 6
        "C489450,22087,BUNTING,12,2009-12-01 10:34:00,2.95,16321.0,Australia\n"  # 7
        "A506401,B,Adjust bad debt,1,2010-04-29 13:36:00,-53594.36,13085,United Kingdom\n"  # 8
        "489440,21232,MUG,0,2009-12-01 10:02:00,1.25,18102,France\n"  # 9
        "489441,21232,MUG,1,2009-12-01 10:03:00,1.25,13085.5,France\n"  # 10
        ",21232,MUG,1,2009-12-01 10:03:00,1.25,13085,France\n"  # 11
        "489442,,MUG,1,2009-12-01 10:03:00,1.25,13085,France\n"  # 12
        "489443,21232,MUG,1,2009-12-01 10:03:00,cheap,13085,France\n"  # 13
    )
    path = _write(tmp_path, HEADER + body)
    report = _import(library, path)
    assert report.skipped_by_reason == {
        "bad quantity": 1,
        "bad date": 1,
        "no customer": 1,
        "wrong column count": 1,
        "cancellation with positive quantity": 1,
        "negative price": 1,
        "zero quantity": 1,
        "bad customer id": 1,
        "no invoice": 1,
        "no stock code": 1,
        "bad price": 1,
    }
    assert (report.rows_read, report.imported, report.skipped) == (12, 1, 11)
    with library.skipped_rows_path(report.version_id).open(newline="") as handle:
        kept = list(csv.reader(handle))
    assert kept[0] == ["line", "reason", "message", *HEADER.strip().split(",")]
    assert [(int(row[0]), row[1]) for row in kept[1:4]] == [
        (3, "bad quantity"),
        (4, "bad date"),
        (5, "no customer"),
    ]
    assert [int(row[0]) for row in kept[1:]] == list(range(3, 14))
    assert kept[2][3:6] == ["489436", "48173C", "DOOR MAT"] and kept[2][7] == "2009-13-01 09:06:00"


def test_append_adds_to_the_active_version_and_replace_starts_again(
    library: DatasetLibrary, tmp_path: Path
) -> None:
    lines = KNOWN_ROWS.splitlines(keepends=True)
    first = _import(library, _write(tmp_path, HEADER + "".join(lines[:10]), "a.csv"))
    appended = _import(library, _write(tmp_path, HEADER + "".join(lines[5:]), "b.csv"), mode="append")
    assert appended.mode == "append" and appended.version_id != first.version_id
    assert _query(library.current_path(), "SELECT COUNT(*) FROM transactions") == [
        (18,)
    ]  # overlap not doubled
    replaced = _import(library, _write(tmp_path, HEADER + "".join(lines[:3]), "c.csv"))
    assert replaced.customers == 2
    assert _query(library.current_path(), "SELECT COUNT(*) FROM transactions") == [(3,)]
    assert [v.mode for v in library.versions()] == ["replace", "append", "replace", "default"][
        : len(library.versions())
    ]


def test_a_reader_sees_the_old_version_until_the_switch(library: DatasetLibrary, tmp_path: Path) -> None:
    generate_dataset(library.default_path, SMALL)
    before = _query(library.current_path(), "SELECT COUNT(*) FROM transactions")
    seen: list[tuple[str, list[tuple[object, ...]]]] = []

    def progress(update: ImportProgress) -> None:  # runs while the new version is being built
        seen.append((update.phase, _query(library.current_path(), "SELECT COUNT(*) FROM transactions")))

    path = _write(tmp_path, HEADER + KNOWN_ROWS * 1)
    report = _import(library, path, progress=progress)
    assert seen and all(count == before for phase, count in seen if phase != "done")
    assert seen[-1][0] == "done"
    assert _query(library.current_path(), "SELECT COUNT(*) FROM transactions") == [(report.imported,)]
    assert [p.name for p in library.files.folder.iterdir() if p.name.startswith(".")] == []


def test_restore_and_pruning_keep_the_last_versions(library: DatasetLibrary, tmp_path: Path) -> None:
    generate_dataset(library.default_path, SMALL)
    path = _write(tmp_path, HEADER + KNOWN_ROWS)
    ids = [_import(library, path).version_id for _ in range(4)]
    listed = library.versions()
    assert [v.id for v in listed] == [*reversed(ids[1:]), DEFAULT_ID]  # keep=3, version zero is not counted
    assert [v.active for v in listed] == [True, False, False, False]
    assert not library.files.path(ids[0]).exists() and not library.files.path(ids[0], "skipped").exists()
    restored = library.activate(ids[1], "admin")
    assert restored.active and library.current_path() == library.files.path(ids[1])
    newest = _import(library, path).version_id  # the new one is active: the restored one may go
    assert [v.id for v in library.versions()] == [newest, ids[3], ids[2], DEFAULT_ID]
    library.activate(DEFAULT_ID, "admin")
    assert library.current_path() == library.default_path
    with pytest.raises(NotFoundError):
        library.activate(ids[0], "admin")


def test_a_sweep_of_unlisted_copies_never_deletes_the_version_store(
    library: DatasetLibrary, tmp_path: Path
) -> None:
    """The SQLite version store lives beside the version files (``versions.sqlite``): it is no
    version, so dropping the local copies the store does not list leaves it, and it stays writable."""
    path = _write(tmp_path, HEADER + KNOWN_ROWS)
    first = _import(library, path).version_id
    stray = library.files.path("20200101T000000-0badc0de")
    stray.write_bytes(b"")
    library._drop_unlisted()
    assert (library.files.folder / "versions.sqlite").is_file() and not stray.exists()
    assert library.files.path(first).is_file()
    assert _import(library, path).version_id != first  # the store still takes new versions


def test_bad_files_raise_one_line_and_change_nothing(library: DatasetLibrary, tmp_path: Path) -> None:
    _import(library, _write(tmp_path, HEADER + KNOWN_ROWS))
    active, listed = library.current_version_id(), library.versions()
    binary = tmp_path / "x.xlsx"
    binary.write_bytes(b"PK\x03\x04\x00\x00binary")
    cases = {
        binary: "binary",
        _write(tmp_path, "", "empty.csv"): "empty",
        _write(tmp_path, "just one column\nx\n", "one.csv"): "one column",
        _write(tmp_path, "1,2,3\n4,5,6\n", "noheader.csv"): "no header",
    }
    for path, message in cases.items():
        with pytest.raises(InvalidInputError, match=message) as raised:
            inspect_csv(path)
        assert "\n" not in str(raised.value)
        with pytest.raises(InvalidInputError):
            library.import_csv(
                path, {f: f for f in FIELDS}, CsvFormat(), mode="replace", actor="a", source_name="x"
            )
    wrong = _write(tmp_path, "name,email\nada,a@b\n", "wrong.csv")
    assert "no column looks like a date" in inspect_csv(wrong).problems  # a customer or product may lack
    with pytest.raises(InvalidInputError, match=r"has no column .*'Invoice'"):
        library.import_csv(
            wrong, {f: f.title() for f in FIELDS}, CsvFormat(), mode="replace", actor="a", source_name="x"
        )
    all_bad = _write(tmp_path, HEADER + "1,A,x,1,2024-01-01 10:00:00,1.0,,UK\n", "allbad.csv")
    with pytest.raises(InvalidInputError, match=r"no row of allbad\.csv could be imported"):
        _import(library, all_bad)
    assert (library.current_version_id(), library.versions()) == (active, listed)
    assert [p.name for p in library.files.folder.iterdir() if p.name.startswith(".")] == []


def test_a_cancelled_import_changes_nothing(library: DatasetLibrary, tmp_path: Path) -> None:
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(ImportCancelledError):
        _import(library, _write(tmp_path, HEADER + KNOWN_ROWS), cancel=cancel)
    assert library.versions() == [] and library.current_version_id() == DEFAULT_ID


def test_a_switch_during_an_import_fails_it_and_keeps_the_switch(
    library: DatasetLibrary, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A restore (here, or on another server) while a file is being appended to the old active
    version: the import is refused rather than publishing a version without the restored rows."""
    generate_dataset(library.default_path, SMALL)
    first = _import(library, _write(tmp_path, HEADER + KNOWN_ROWS)).version_id
    real_finish = library_module.finish

    def restore_meanwhile(conn: sqlite3.Connection, *, source: str) -> None:
        library.activate(DEFAULT_ID, "other admin")
        real_finish(conn, source=source)

    monkeypatch.setattr(library_module, "finish", restore_meanwhile)
    with pytest.raises(DatasetChangedError, match="changed while this version was being built"):
        _import(library, _write(tmp_path, HEADER + KNOWN_ROWS, "more.csv"), mode="append")
    assert library.current_version_id() == DEFAULT_ID
    assert [v.id for v in library.versions()] == [first, DEFAULT_ID]
    assert [p.name for p in library.files.folder.iterdir() if p.name.startswith(".")] == []


def test_files_left_by_a_dead_import_are_swept_at_start(tmp_path: Path) -> None:
    folder = tmp_path / "datasets"
    folder.mkdir()
    dead = subprocess.Popen(["true"])
    dead.wait()
    leftovers = [folder / f".v1.{dead.pid}.building.sqlite", folder / f".v1.{dead.pid}.download.sqlite"]
    ours = folder / f".v2.{os.getpid()}.building.sqlite"  # a live process's build is not touched
    for path in [*leftovers, ours]:
        path.write_bytes(b"partial")
    DatasetLibrary(tmp_path).close()
    assert [p.name for p in folder.iterdir() if p.name.startswith(".")] == [ours.name]


def test_settings_make_a_version_and_rules_recompute_segments(
    library: DatasetLibrary, tmp_path: Path
) -> None:
    report = _import(library, _write(tmp_path, HEADER + KNOWN_ROWS))
    facts = library.facts()
    assert (facts.name, facts.currency, facts.segment_rules) == ("data.csv", None, SegmentRules(90, 5))
    assert (facts.rows, facts.customers, facts.last_import_by, facts.version_id) == (
        18,
        9,
        "admin",
        report.version_id,
    )
    segment = "SELECT segment FROM customer_stats WHERE customer_id = 7"
    assert _query(library.current_path(), segment) == [("At Risk",)]  # last order 91 days before
    changed = library.update_settings(
        "boss", name="Our shop", currency="gbp", segment_rules=SegmentRules(120, 5)
    )
    assert (changed.name, changed.currency, changed.segment_rules.active_days) == ("Our shop", "GBP", 120)
    assert changed.version_id != report.version_id and changed.last_import_by == "admin"
    assert _query(library.current_path(), segment) == [("Regular",)]
    assert library.update_settings("boss", name="Our shop") == changed  # nothing different: no version
    kept = _import(library, _write(tmp_path, HEADER + KNOWN_ROWS, "next.csv"))  # a replace keeps the settings
    assert library.facts().version_id == kept.version_id
    assert (library.facts().name, library.facts().currency) == ("Our shop", "GBP")
    with pytest.raises(InvalidInputError):
        library.update_settings("boss", currency="pounds")
    with pytest.raises(InvalidInputError):
        library.update_settings("boss", segment_rules=SegmentRules(0, 5))


def test_a_mapping_is_remembered_per_source(library: DatasetLibrary, tmp_path: Path) -> None:
    preview = inspect_csv(_write(tmp_path, EURO, encoding="latin-1"))
    assert library.mapping_for(preview.source_key) is None
    library.remember_mapping(preview.source_key, MAPPING_EURO, preview.format)
    assert library.mapping_for(preview.source_key) == (MAPPING_EURO, preview.format)
    same_header = inspect_csv(_write(tmp_path, EURO.splitlines()[0].upper() + "\n1;2;3;4;5;6;7;8\n", "b.csv"))
    assert same_header.source_key == preview.source_key


def test_a_tool_call_after_a_switch_answers_on_the_new_data(library: DatasetLibrary, tmp_path: Path) -> None:
    generate_dataset(library.default_path, SMALL)
    server = build_server(library.current_path)

    async def countries() -> list[str]:
        tools = {tool.name: tool for tool in await server.list_tools()}
        return tools["analyze_sales"].input_schema["properties"]["countries"]["items"].get("enum", [])

    async def answer() -> dict[str, object]:
        result = await server.call_tool("analyze_sales", {"measure": "customers"})
        assert not result.is_error
        return json.loads(result.content[0].text)

    assert "Atlantis" not in asyncio.run(countries())
    _import(library, _write(tmp_path, HEADER + KNOWN_ROWS.replace("Italy", "Atlantis")))
    assert "Atlantis" in asyncio.run(countries())
    assert "9 customers" in asyncio.run(answer())["answer"]  # type: ignore[operator]


def test_cli_import_takes_a_mapping_and_a_format(tmp_path: Path) -> None:
    from agent_orchestrator.retail.__main__ import main

    path = _write(tmp_path, EURO, encoding="latin-1")
    db = tmp_path / "euro.sqlite"
    mapping = ",".join(f"{field}={column}" for field, column in MAPPING_EURO.items())
    assert (
        main(
            [
                "import",
                str(path),
                "--db",
                str(db),
                "--mapping",
                mapping,
                "--delimiter",
                ";",
                "--decimal",
                ",",
                "--thousands",
                ".",
                "--date-format",
                "%d.%m.%Y %H:%M",
                "--encoding",
                "latin-1",
            ]
        )
        == 0
    )
    assert sqlite3.connect(db).execute("SELECT SUM(unit_price) FROM transactions").fetchone() == (1237.25,)


def test_cli_import_refuses_a_date_format_that_reads_none_of_the_files_dates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agent_orchestrator.retail.__main__ import main

    path = _write(tmp_path, EURO, encoding="latin-1")
    db = tmp_path / "euro.sqlite"
    mapping = ",".join(f"{field}={column}" for field, column in MAPPING_EURO.items())
    options = ["--mapping", mapping, "--delimiter", ";", "--encoding", "latin-1", "--date-format", "%Y-%m-%d"]
    assert main(["import", str(path), "--db", str(db), *options]) == 1
    error = capsys.readouterr().err.strip()
    assert error.startswith("error: the date format '%Y-%m-%d' reads none of the dates in")
    assert "\n" not in error  # one line, no traceback
    assert not db.exists()  # nothing imported, no empty database left behind


TILL_EXPORT = (
    "Invoice ID,Branch,Customer type,Gender,Product line,Unit price,Quantity,Date,Payment,Rating\n"
    "750-67-8428,A,Member,Female,Health and beauty,74.69,7,1/25/2019,Ewallet,9.1\n"
    "226-31-3081,C,Normal,Female,Electronic accessories,15.28,5,3/8/2019,Cash,9.6\n"
    "631-41-3108,A,Normal,Male,Home and lifestyle,46.33,7,3/3/2019,Credit card,7.4\n"
)


def test_a_till_export_without_customers_or_products_imports_as_its_own_rows(
    library: DatasetLibrary, tmp_path: Path
) -> None:
    """No customer and no product column: the lines are the file's own rows, answered by its
    semantic model; a "Customer type" or "Product line" groups, it names no customer or product;
    a rating is averaged."""
    path = _write(tmp_path, TILL_EXPORT, "till.csv")
    preview = inspect_csv(path)
    mapping = {field: column for field, column in preview.mapping.items() if column}
    assert "customer_id" not in mapping and "stock_code" not in mapping
    assert [p.split(":")[0] for p in preview.problems] == ["no column looks like a customer id"]
    report = library.import_csv(
        path, mapping, preview.format, mode="replace", actor="a", source_name="till.csv"
    )
    assert (report.rows_read, report.imported, report.skipped) == (3, 3, 0)
    model, _ = semantic_source(library.current_path())
    roles = {c.name: (c.role.value, c.entity) for c in model.columns}
    assert roles["customer_type"] == ("dimension", None) and roles["product_line"] == ("dimension", None)
    assert model.metric("rating").kind.value == "average"
    with pytest.raises(InvalidInputError, match="replace the data, not be appended"):
        library.import_csv(path, mapping, preview.format, mode="append", actor="a", source_name="till.csv")


def test_run_together_capitals_and_a_name_for_the_customer_are_mapped(tmp_path: Path) -> None:
    """A distributor's export in capitals (``QUANTITYORDERED``), customers by name only."""
    path = _write(
        tmp_path,
        "ORDERNUMBER,QUANTITYORDERED,PRICEEACH,SALES,ORDERDATE,PRODUCTCODE,CUSTOMERNAME,COUNTRY\n"
        "10107,30,95.70,2871.00,2/24/2003 0:00,S10_1678,Land of Toys Inc.,USA\n",
    )
    mapping = _mapping(path)
    assert (mapping["quantity"], mapping["customer_id"]) == ("QUANTITYORDERED", "CUSTOMERNAME")


def test_a_file_kept_as_its_own_rows_needs_no_quantity_beside_a_line_total(
    library: DatasetLibrary, tmp_path: Path
) -> None:
    path = _write(tmp_path, "Invoice,Shop,Amount,Date\nR1,North,12.50,1/25/2019\nR2,South,7.25,1/26/2019\n")
    preview = inspect_csv(path)
    assert not any(p.startswith("no column looks like a quantity") for p in preview.problems)
    report = _import(library, path)
    assert (report.rows_read, report.imported, report.skipped) == (2, 2, 0)


def test_a_file_without_a_quantity_sells_one_unit_a_line(library: DatasetLibrary, tmp_path: Path) -> None:
    """A car dealer's export: a sale a line, its price, no quantity column. It imports as exported
    (before, an admin had to add a column of 1s), a unit a line, in its own rows and, with a product
    chosen, in the retail tables."""
    path = _write(
        tmp_path,
        "Car_id,Date,Customer Name,Model,Price ($)\n"
        "C_1,1/25/2022,Geraldine,Expedition,26000\nC_2,1/26/2022,Gia,Durango,19000\n",
    )
    preview = inspect_csv(path)
    assert preview.mapping["quantity"] is None
    assert not any("quantity" in problem for problem in preview.problems)  # its own rows: lines are units
    mapping = {field: column for field, column in preview.mapping.items() if column} | {
        "description": "Model"
    }
    report = library.import_csv(
        path, mapping, preview.format, mode="replace", actor="admin", source_name="cars"
    )
    assert (report.rows_read, report.imported, report.skipped) == (2, 2, 0)
    sold = "SELECT SUM(quantity), SUM(amount) FROM transactions"
    assert _query(library.current_path(), sold) == [(2, 45000)]


def test_a_total_on_every_line_is_the_lines_total(tmp_path: Path) -> None:
    taxed = _write(
        tmp_path, "Invoice ID,Unit price,Quantity,Tax 5%,Total,Date\n1,10.00,2,1.00,21.00,1/25/2019\n"
    )
    assert inspect_csv(taxed).mapping["line_total"] == "Total"  # what the customer paid, tax and all
    order_level = _write(
        tmp_path,
        "Name,Total,Lineitem price,Lineitem quantity,Created at\n"
        "#1,30.00,10.00,1,2024-01-25\n#1,,20.00,1,2024-01-25\n",
        "orders.csv",
    )
    assert inspect_csv(order_level).mapping["line_total"] is None  # an order's total, on its first line only
    marketplace = _write(
        tmp_path,
        "Order ID,Date,Status,Qty,Amount\nA-1,2022-04-30,Shipped,1,647.62\nA-2,2022-04-30,Cancelled,0,\n"
        "A-3,2022-04-30,Shipped,2,406\nA-3,2022-04-30,Shipped,1,120\n",
        "report.csv",
    )
    assert inspect_csv(marketplace).mapping["line_total"] == "Amount"  # blank only on a cancelled order


def test_a_price_that_grows_with_the_quantity_is_the_lines_total(tmp_path: Path) -> None:
    """A mall's export headed "price" whose figure is the quantity times one price a category (a
    line of 3 shirts at 300.08 is written 900.24): the line's total, summed as its revenue; a price
    that stays put whatever the quantity, or a header that says "unit", is a unit's."""
    lines = [
        f"I{i},{category},{quantity},{round(quantity * unit, 2)},5/8/2022"
        for i, (category, unit, quantity) in enumerate(
            (c, u, q)
            for c, u in (("Clothing", 300.08), ("Shoes", 600.17), ("Books", 15.15))
            for q in (1, 2, 3, 5)
        )
    ]
    mall = _write(tmp_path, "invoice_no,category,quantity,price,invoice_date\n" + "\n".join(lines) + "\n")
    mapping = inspect_csv(mall).mapping
    assert (mapping["unit_price"], mapping["line_total"]) == (None, "price")
    shop = _write(
        tmp_path,
        "invoice_no,category,quantity,price,invoice_date\n"
        + "".join(f"I{i},Shoes,{1 + i % 4},{20 + i * 3}.50,5/8/2022\n" for i in range(12)),
        "shop.csv",
    )
    assert (inspect_csv(shop).mapping["unit_price"], inspect_csv(shop).mapping["line_total"]) == (
        "price",
        None,
    )
    said = _write(tmp_path, mall.read_text().replace(",price,", ",unit price,"), "said.csv")
    assert inspect_csv(said).mapping["unit_price"] == "unit price"


def test_headers_no_list_names_are_mapped_by_their_words(tmp_path: Path) -> None:
    """A coffee chain's export ("transaction_id", "transaction_date", "transaction_time") and a
    till's ("Receipt No", "Sale Date", "Item Name"): the kind of thing and a key's word (or a date's)
    say the field; a time of day alone and a ship date are no date of sale."""
    coffee = tmp_path / "coffee.csv"
    coffee.write_text(
        "transaction_id,transaction_time,transaction_date,product_id,product_name,quantity,unit_price,"
        "total_price,customer_id,location\n"
        "1,10:10:19,2025-03-13,P302,Croissant,1,3.0,3.0,C624,Airport\n"
        "2,13:13:41,2024-09-26,P103,Latte,2,4.5,9.0,C549,University\n"
    )
    mapping = inspect_csv(coffee).mapping
    assert (mapping["invoice"], mapping["invoiced_at"]) == ("transaction_id", "transaction_date")
    assert (mapping["stock_code"], mapping["description"]) == ("product_id", "product_name")
    till = tmp_path / "till.csv"
    till.write_text(
        "Receipt No,Ship Date,Sale Date,Item Code,Item Name,Qty,Price\nR1,1/2/2024,1/1/2024,A,Tea,1,2\n"
    )
    mapping = inspect_csv(till).mapping
    assert (mapping["invoice"], mapping["invoiced_at"]) == ("Receipt No", "Sale Date")
    assert (mapping["stock_code"], mapping["description"]) == ("Item Code", "Item Name")


FORMATTED_SHEET = (
    "Retailer,Invoice Date,Region,Product,Price per Unit,Units Sold,Total Sales,Operating Profit,"
    "Operating Margin,Sales Method\n"
    'Foot Locker,1/13/2020,Northeast,Street Footwear,$50.00,"1,200","$600,000 ","$300,000 ",50%,In-store\n'
    'Walmart,1/2/2020,South,Apparel,$45.00,"1,000","$450,000 ","($13,500)",-3%,Online\n'
    'Kohl\'s,2/3/2021,West,Street Footwear,$40.00,850,"$340,000 ","$102,000 ",30%,Outlet\n'
)
"""An export of a formatted sheet: amounts with a currency symbol, digit groups and a trailing space,
a loss in parentheses, rates with a percent sign, a price and a line total by their words only."""


def test_a_marketplace_report_imports_as_exported(library: DatasetLibrary, tmp_path: Path) -> None:
    """An "Amount" blank on cancelled orders is still each line's total, and days written in two
    year widths ("04-30-22" where the sheet took the cell for a date, "04-01-2022" where it did not)
    are one format: every line imports, in the retail tables and in the rows alike."""
    path = _write(
        tmp_path,
        "index,Order ID,Date,Status,Qty,currency,Amount,ship-state\n"
        "0,A-1,04-30-22,Shipped,1,INR,647.62,MAHARASHTRA\n1,A-2,04-30-22,Cancelled,0,,,KERALA\n"
        "2,A-3,04-01-2022,Shipped,2,INR,406,KARNATAKA\n3,A-3,04-01-2022,Shipped,1,INR,120,KARNATAKA\n",
        "report.csv",
    )
    preview = inspect_csv(path)
    assert (preview.mapping["line_total"], preview.format.date_format) == (
        "Amount",
        "%m-%d-%Y",
    )  # a tie: the first
    report = _import(library, path)
    assert (report.rows_read, report.imported) == (4, 4)
    model, rows = semantic_source(library.current_path())
    with Engine(model, rows) as engine:
        days = engine.run(SemanticQuery(metrics=["revenue"], group_by=[{"column": "date", "grain": "day"}]))
    assert [(str(day)[:10], revenue) for day, revenue in days.rows] == [
        ("2022-04-01", 526.0),
        ("2022-04-30", 647.62),
    ]


def test_a_formatted_sheets_amounts_import_as_numbers_mapped_by_their_words(
    library: DatasetLibrary, tmp_path: Path
) -> None:
    """Before, no column looked like a price or a line total ("$600,000 " is no number) and the
    import was refused; "Sales Method" is no line total."""
    path = _write(tmp_path, FORMATTED_SHEET, "sheet.csv")
    preview = inspect_csv(path)
    assert (preview.mapping["unit_price"], preview.mapping["line_total"]) == ("Price per Unit", "Total Sales")
    assert preview.mapping["quantity"] == "Units Sold"
    report = _import(library, path)
    assert (report.rows_read, report.imported, report.skipped) == (3, 3, 0)
    model, rows = semantic_source(library.current_path())
    assert model.currency == "USD"
    assert {c.name: c.role.value for c in model.columns if c.name.startswith("operating")} == {
        "operating_profit": "measure",
        "operating_margin": "measure",
    }
    with Engine(model, rows) as engine:
        result = engine.run(SemanticQuery(metrics=["revenue", "units", "operating_profit"]))
    assert result.records() == [{"revenue": 1_390_000.0, "units": 3050, "operating_profit": 388_500.0}]


def test_a_sheets_export_of_month_names_and_grouped_amounts_imports_as_written(tmp_path: Path) -> None:
    """ "04-Jan-22" is a day by its month's name; "$5,320 " in a file of commas groups its digits (the
    decimal mark is never the delimiter); "Boxes Shipped" is how many went."""
    sheet = _write(
        tmp_path,
        "\ufeffSales Person,Country,Product,Date,Amount,Boxes Shipped\r\n"
        'Jehu Rudeforth,UK,Mint Chip Choco,04-Jan-22,"$5,320 ",180\r\n'
        'Van Tuxwell,India,85% Dark Bars,01-Aug-22,"$7,896 ",94\r\n'
        'Gigi Bohling,USA,Peanut Butter Cubes,14-Jul-22,"$4,501 ",91\r\n',
    )
    preview = inspect_csv(sheet)
    assert (preview.mapping["quantity"], preview.mapping["line_total"]) == ("Boxes Shipped", "Amount")
    assert (preview.format.decimal, preview.format.thousands) == (".", ",")
    assert preview.format.date_format == "%d-%b-%y"


def test_dates_written_with_their_weekday_or_a_twelve_hour_clock_are_read() -> None:
    assert candidate_formats(["Saturday, January 1, 2022", "Monday, January 3, 2022"]) == ["%A, %B %d, %Y"]
    assert candidate_formats(["3/5/2021 2:22 PM", "3/15/2021 11:02 AM"]) == ["%m/%d/%Y %I:%M %p"]
    assert candidate_formats(["2021-03-05 14:22:01.250"]) == ["%Y-%m-%d %H:%M:%S.%f"]


def test_two_formats_that_read_every_date_alike_are_one_not_a_choice() -> None:
    """ "2015-01-07T00:00:00Z" fits a literal "Z" and an offset alike: the file imports as it is
    (a dealer export was refused for it); day/month against month/day stays a choice."""
    assert candidate_formats(["2015-01-07T00:00:00Z", "2019-12-25T00:00:00Z"]) == ["%Y-%m-%dT%H:%M:%SZ"]
    assert candidate_formats(["2015-01-07T10:00:00+0100"]) == ["%Y-%m-%dT%H:%M:%S%z"]
    assert candidate_formats(["03/04/2011", "05/06/2011"]) == ["%m/%d/%Y", "%d/%m/%Y"]


def test_dates_all_on_the_first_of_a_month_are_a_file_of_months(tmp_path: Path) -> None:
    """A monthly summary dates each month on its 1st ("12/1/2011 0:00"): of the two readings, the one
    with every date the first of a month, over three months or more, is the file's; its other reading
    would put every date in one January. Two months are too few to tell."""
    months = [f"{m}/1/20{y} 0:00" for y in (10, 11) for m in range(1, 13)]
    both = ["%m/%d/%Y %H:%M", "%d/%m/%Y %H:%M"]
    assert candidate_formats(months) == both and of_months(both, months) == ["%m/%d/%Y %H:%M"]
    assert of_months(["%m/%d/%Y", "%d/%m/%Y"], [f"1/{m}/2020" for m in (3, 4, 5)]) == ["%d/%m/%Y"]
    assert of_months(["%m/%d/%Y", "%d/%m/%Y"], ["1/1/2020", "2/1/2020"]) == ["%m/%d/%Y", "%d/%m/%Y"]
    sales = [f"0{d}/01/2011 09:00" for d in range(1, 10)]  # a shop's sales at 9am: days, not months
    assert of_months(["%m/%d/%Y %H:%M", "%d/%m/%Y %H:%M"], sales) == ["%m/%d/%Y %H:%M", "%d/%m/%Y %H:%M"]
    rows = "".join(f"{m}/1/2011 0:00,{state},{100 + m}\n" for m in range(1, 13) for state in ("Ohio", "Utah"))
    path = _write(tmp_path, "Date,State,Sales\n" + rows, "months.csv")
    preview = inspect_csv(path)
    assert preview.format.date_format == "%m/%d/%Y %H:%M", preview.problems
    assert not any("day/month" in problem for problem in preview.problems), preview.problems


def test_a_dealers_name_is_no_name_of_what_was_sold() -> None:
    """A car dealer's sales: "Dealer_Name" names who sold, never the product ("pizza_name" does)."""
    from agent_orchestrator.retail.datasets.formats import suggest_mapping

    assert suggest_mapping(["Date", "Dealer_Name", "Company", "Model", "Price ($)"])["description"] is None
    assert (
        suggest_mapping(["order_date", "pizza_name", "quantity", "unit_price"])["description"] == "pizza_name"
    )

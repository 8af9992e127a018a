"""The Online Retail II importer: row errors with line numbers, atomicity, idempotent re-import."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from retail_fixtures import HEADER, KNOWN_ROWS

from agent_orchestrator.errors import InvalidInputError
from agent_orchestrator.retail import (
    RowError,
    dataset_fingerprint,
    import_online_retail_csv,
)
from agent_orchestrator.retail import importer as importer_module
from agent_orchestrator.retail.schema import ensure_schema

BROKEN = (
    HEADER  # line 1
    + "489434,85048,GLASS BALL,12,2009-12-01 07:45:00,6.95,13085.0,United Kingdom\n"  # 2 good
    + "489434,85048,GLASS BALL,12,2009-12-01 07:45:00,6.95,13085.0,United Kingdom\n"  # 3 good (a repeat)
    + "489435,22350,CAT BOWL,twelve,2009-12-01 07:46:00,2.55,13085.0,United Kingdom\n"  # 4 quantity
    + "489436,48173C,DOOR MAT,10,2009-13-01 09:06:00,5.95,13078.0,United Kingdom\n"  # 5 date
    + "489437,22143,HEART DECORATIONS,6,2009-12-01 09:08:00,2.1,,United Kingdom\n"  # 6 customer
    + "489438,21329,WRITING SET,28,2009-12-01 09:24:00\n"  # 7 column count
    + '489439,21232,"MUG, ""BEST"" DAD",6,12/1/2009 10:01,1.25,18102,France\n'  # 8 good (quoted, US date)
    + "C489449,22087,PAPER BUNTING,-12,2009-12-01 10:33:00,2.95,16321.0,Australia\n"  # 9 good cancellation
    + "C489450,22087,PAPER BUNTING,12,2009-12-01 10:34:00,2.95,16321.0,Australia\n"  # 10 C with qty > 0
    + "A506401,B,Adjust bad debt,1,2010-04-29 13:36:00,-53594.36,13085,United Kingdom\n"  # 11 price < 0
    + "\n"  # 12 blank: not a row
    + "489440,21232,MUG,0,2009-12-01 10:02:00,1.25,18102,France\n"  # 13 zero quantity
    + "489441,21232,MUG,1,2009-12-01 10:03:00,1.25,13085.5,France\n"  # 14 fractional customer id
)


def _write(tmp_path: Path, text: str, name: str = "data.csv") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _count(db: Path, sql: str = "SELECT COUNT(*) FROM transactions") -> int:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql).fetchone()[0]
    finally:
        conn.close()


def test_broken_rows_are_reported_with_line_numbers_and_skipped(tmp_path: Path) -> None:
    db = tmp_path / "retail.sqlite"
    result = import_online_retail_csv(db, _write(tmp_path, BROKEN))
    assert [e.line for e in result.errors] == [4, 5, 6, 7, 10, 11, 13, 14]
    messages = dict(result.errors)
    assert "Quantity 'twelve'" in messages[4]
    assert "InvoiceDate '2009-13-01 09:06:00'" in messages[5]
    assert messages[6] == "missing Customer ID"
    assert messages[7] == "expected 8 columns, found 5"
    assert "positive Quantity" in messages[10]
    assert "Price" in messages[11]
    assert "Quantity is 0" in messages[13]
    assert "Customer ID" in messages[14]
    assert (result.rows_read, result.imported, result.skipped) == (12, 4, 8)
    assert (result.new_transactions, result.cancellations) == (4, 1)
    assert not result.errors_truncated
    assert _count(db) == 4
    assert _count(db, "SELECT description FROM products WHERE stock_code = '21232'") == 'MUG, "BEST" DAD'
    # the cancellation subtracts from revenue but is not a purchase: customer 16321 has no stats row
    assert _count(db, "SELECT COUNT(*) FROM customer_stats WHERE customer_id = 16321") == 0
    assert _count(db, "SELECT orders FROM customer_stats WHERE customer_id = 13085") == 1


def test_re_import_is_idempotent(tmp_path: Path) -> None:
    db, csv_path = tmp_path / "retail.sqlite", _write(tmp_path, BROKEN)
    import_online_retail_csv(db, csv_path)
    before = dataset_fingerprint(db)
    again = import_online_retail_csv(db, csv_path)
    assert (again.imported, again.new_transactions) == (4, 0)
    assert _count(db) == 4
    assert dataset_fingerprint(db) == before


def _indexes(db: Path) -> set[str]:
    conn = sqlite3.connect(db)
    try:
        return {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    finally:
        conn.close()


def test_a_first_import_builds_the_indexes_once_and_keeps_every_reference(tmp_path: Path) -> None:
    """Into an empty file the lines go in without indexes (built at the end) and without the
    row-by-row foreign-key check; the file ends as complete as an upserted one."""
    db = tmp_path / "retail.sqlite"
    import_online_retail_csv(db, _write(tmp_path, HEADER + KNOWN_ROWS, "known.csv"))
    upserted = tmp_path / "upserted.sqlite"
    conn = sqlite3.connect(upserted)
    ensure_schema(conn)
    conn.commit()
    conn.close()
    assert _indexes(db) == _indexes(upserted)
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    finally:
        conn.close()


def test_a_failed_first_import_leaves_the_indexes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "retail.sqlite"
    import_online_retail_csv(db, _write(tmp_path, HEADER, "empty.csv"))
    before = _indexes(db)
    monkeypatch.setattr(importer_module, "refresh_customer_stats", lambda conn: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        import_online_retail_csv(db, _write(tmp_path, HEADER + KNOWN_ROWS, "known.csv"))
    assert _indexes(db) == before and _count(db) == 0


def test_overlapping_file_adds_only_new_lines(tmp_path: Path) -> None:
    db = tmp_path / "retail.sqlite"
    lines = KNOWN_ROWS.splitlines(keepends=True)
    import_online_retail_csv(db, _write(tmp_path, HEADER + "".join(lines[:10]), "first.csv"))
    second = import_online_retail_csv(db, _write(tmp_path, HEADER + "".join(lines[5:]), "second.csv"))
    assert second.new_transactions == len(lines) - 10
    assert _count(db) == len(lines)


def test_wrong_layout_imports_nothing(tmp_path: Path) -> None:
    db = tmp_path / "retail.sqlite"
    csv_path = _write(tmp_path, "name,email\nada,ada@example.com\n")
    with pytest.raises(InvalidInputError, match="missing column"):
        import_online_retail_csv(db, csv_path)
    assert not db.exists()  # the database is not even created
    with pytest.raises(InvalidInputError, match="empty file"):
        import_online_retail_csv(db, _write(tmp_path, "", "empty.csv"))


def test_wrong_layout_leaves_an_existing_database_untouched(known_db: Path, tmp_path: Path) -> None:
    before = dataset_fingerprint(known_db)
    with pytest.raises(InvalidInputError, match="not an Online Retail II CSV"):
        import_online_retail_csv(known_db, _write(tmp_path, "a;b;c\n1;2;3\n"))
    assert dataset_fingerprint(known_db) == before


def test_failure_mid_import_rolls_everything_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """All good rows or nothing: a crash after the rows were written leaves no trace of them."""
    db = tmp_path / "retail.sqlite"
    import_online_retail_csv(db, _write(tmp_path, HEADER + KNOWN_ROWS, "known.csv"))
    before = dataset_fingerprint(db)

    def explode(conn: sqlite3.Connection) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(importer_module, "refresh_customer_stats", explode)
    with pytest.raises(RuntimeError, match="disk on fire"):
        import_online_retail_csv(db, _write(tmp_path, BROKEN))
    assert dataset_fingerprint(db) == before


def test_online_retail_one_header_spellings_are_accepted(tmp_path: Path) -> None:
    text = (
        "InvoiceNo,StockCode,Description,Quantity,InvoiceDate,UnitPrice,CustomerID,Country\n"
        "536365,85123A,WHITE HANGING HEART T-LIGHT HOLDER,6,12/1/2010 8:26,2.55,17850,United Kingdom\n"
    )
    result = import_online_retail_csv(tmp_path / "retail.sqlite", _write(tmp_path, text))
    assert (result.imported, result.errors) == (1, [])


def test_error_list_is_capped_but_counts_are_complete(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(importer_module, "MAX_LISTED_ERRORS", 3)
    result = import_online_retail_csv(tmp_path / "retail.sqlite", _write(tmp_path, BROKEN))
    assert result.errors == [
        RowError(4, result.errors[0].message),
        RowError(5, result.errors[1].message),
        RowError(6, "missing Customer ID"),
    ]
    assert result.skipped == 8 and result.errors_truncated


def test_every_name_a_product_was_sold_under_can_find_it(tmp_path: Path) -> None:
    from agent_orchestrator.retail.analysis import Query, answer_query

    renamed = (
        HEADER
        + "489434,85123A,WHITE HANGING HEART T-LIGHT HOLDER,6,2010-12-01 08:26:00,2.55,17850,United Kingdom\n"
        + "489435,85123A,CREAM HANGING HEART T-LIGHT HOLDER,4,2011-06-01 08:26:00,2.95,17850,United Kingdom\n"
    )
    db = tmp_path / "retail.sqlite"
    import_online_retail_csv(db, _write(tmp_path, renamed))
    conn = sqlite3.connect(db)
    try:
        result = answer_query(conn, Query(measure="units", product="white hanging heart"))  # type: ignore[arg-type]
    finally:
        conn.close()
    assert result["answer"] == "Units sold, WHITE HANGING HEART T-LIGHT HOLDER (85123A), all time: 10 units."

"""The synthetic dataset: reproducible, the promised size, and shaped like a real shop."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from retail_fixtures import SMALL

from agent_orchestrator.errors import RetailDatabaseError
from agent_orchestrator.retail import (
    GeneratorConfig,
    dataset_fingerprint,
    ensure_dataset,
    generate_dataset,
)


def _one(path: Path, sql: str) -> object:
    return _rows(path, sql)[0][0]


def _rows(path: Path, sql: str) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_same_seed_same_dataset(small_db: Path, tmp_path: Path) -> None:
    again = generate_dataset(tmp_path / "again.sqlite", SMALL)
    assert dataset_fingerprint(again) == dataset_fingerprint(small_db)
    sql = "SELECT * FROM transactions ORDER BY transaction_id"
    assert _rows(again, sql) == _rows(small_db, sql)


def test_other_seed_other_dataset(small_db: Path, tmp_path: Path) -> None:
    config = GeneratorConfig(seed=8, customers=300, transactions=6_000, products=200)
    other = generate_dataset(tmp_path / "other.sqlite", config)
    assert dataset_fingerprint(other) != dataset_fingerprint(small_db)


def test_sizes_are_as_configured(small_db: Path) -> None:
    assert _rows(small_db, "SELECT COUNT(*) FROM transactions") == [(SMALL.transactions,)]
    assert _rows(small_db, "SELECT COUNT(*) FROM customers") == [(SMALL.customers,)]
    # every customer bought something, so every customer is segmented
    assert _rows(small_db, "SELECT COUNT(*) FROM customer_stats") == [(SMALL.customers,)]
    first, last = _rows(small_db, "SELECT MIN(invoiced_at), MAX(invoiced_at) FROM transactions")[0]
    assert first >= "2024-01-01" and last.startswith("2025-12")


def test_dataset_looks_like_a_shop(small_db: Path) -> None:
    # Q4 peak: the average Q4 month sells more than the average Q1 month.
    monthly = dict(
        _rows(
            small_db,
            "SELECT substr(invoiced_at, 6, 2), COUNT(DISTINCT invoice) FROM transactions "
            "WHERE is_cancellation = 0 GROUP BY 1",
        )
    )
    q1 = sum(monthly[m] for m in ("01", "02", "03"))
    q4 = sum(monthly[m] for m in ("10", "11", "12"))
    assert q4 > 1.3 * q1
    # Long tail: the best seller sells many times more than the median product.
    sql = "SELECT COUNT(*) FROM transactions GROUP BY stock_code ORDER BY 1"
    counts = [n for (n,) in _rows(small_db, sql)]
    assert counts[-1] > 5 * counts[len(counts) // 2]
    assert len(_rows(small_db, "SELECT DISTINCT country FROM customers")) >= 8
    segments = dict(_rows(small_db, "SELECT segment, COUNT(*) FROM customer_stats GROUP BY segment"))
    assert set(segments) == {"High Value", "Regular", "At Risk", "New"}
    # churned customers: long-silent repeat buyers; new customers: first purchase in the last 90 days
    assert _one(small_db, "SELECT COUNT(*) FROM customer_stats WHERE recency_days > 150 AND orders > 1") > 10
    assert _one(small_db, "SELECT COUNT(*) FROM customer_stats WHERE tenure_days < 90") > 5
    assert _one(small_db, "SELECT COUNT(*) FROM transactions WHERE invoice LIKE 'C%' AND quantity < 0") > 0


def test_ensure_dataset_creates_only_when_missing(tmp_path: Path) -> None:
    path = tmp_path / "data" / "retail.sqlite"
    stages: list[str] = []
    config = GeneratorConfig(seed=1, customers=50, transactions=500, products=40)
    assert ensure_dataset(path, config, progress=lambda stage, done, total: stages.append(stage)) is True
    assert stages[0] == "products" and stages[-1] == "done"
    fingerprint, mtime = dataset_fingerprint(path), path.stat().st_mtime_ns
    assert ensure_dataset(path, config) is False
    assert (dataset_fingerprint(path), path.stat().st_mtime_ns) == (fingerprint, mtime)
    assert sorted(p.name for p in path.parent.iterdir()) == ["retail.sqlite"]  # no temp file left


def test_ensure_dataset_never_overwrites_a_foreign_file(tmp_path: Path) -> None:
    path = tmp_path / "notes.sqlite"
    path.write_text("not a database")
    with pytest.raises(RetailDatabaseError):
        ensure_dataset(path)
    assert path.read_text() == "not a database"


@pytest.mark.parametrize("bad", [{"customers": 0}, {"customers": 100, "transactions": 150}])
def test_config_rejects_impossible_sizes(bad: dict[str, int]) -> None:
    with pytest.raises(ValueError):
        GeneratorConfig(**bad)

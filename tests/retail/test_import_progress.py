"""The import's progress: a percent that keeps moving through long SQL statements, and a cancel that
interrupts one (docs/architecture.md#the-data-page)."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest

from agent_orchestrator.retail.datasets.load import LoadCounts
from agent_orchestrator.retail.datasets.progress import READING_PERCENT, ProgressReporter

# Virtual-machine work in one statement: 30,000,000 is some seconds of it, like an index build.
COUNTING = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) SELECT SUM(i) FROM n"


def test_the_percent_follows_the_bytes_then_the_sql_work_and_ends_at_100() -> None:
    counts = LoadCounts(rows_read=1_000_000, bytes_read=500, imported=1_000_000)
    reporter = ProgressReporter(None, counts, total_bytes=1_000)
    assert reporter.snapshot().percent == READING_PERCENT / 2
    counts.bytes_read = 1_000
    assert reporter.snapshot().percent == READING_PERCENT

    reporter.phase = "indexing"
    conn = sqlite3.connect(":memory:")
    reporter.watch(conn, None)
    seen = [reporter.snapshot().percent]
    for _ in range(3):
        conn.execute(COUNTING, (20_000,))
        seen.append(reporter.snapshot().percent)
    assert seen == sorted(seen) and seen[0] < seen[-1] < 99
    reporter.finish()
    assert reporter.snapshot().percent == 100


def test_a_cancel_interrupts_a_long_statement() -> None:
    cancel = threading.Event()
    reporter = ProgressReporter(None, LoadCounts(imported=1), total_bytes=1)
    conn = sqlite3.connect(":memory:")
    reporter.watch(conn, cancel)
    threading.Timer(0.2, cancel.set).start()
    started = time.monotonic()
    with pytest.raises(sqlite3.OperationalError, match="interrupted"):
        conn.execute(COUNTING, (30_000_000,))
    assert time.monotonic() - started < 2

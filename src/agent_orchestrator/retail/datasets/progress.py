"""How far an import is, reported to the caller at a steady pace whatever the import is doing.

The import's slow steps are of two kinds: Python reading rows (which updates the counters every
batch) and single SQL statements that run for seconds (the indexes, the customer statistics). A
reporter thread calls the callback every ``interval`` seconds from what the counters say; during
those statements SQLite's progress handler counts the work done (:meth:`ProgressReporter.watch`),
so the bar keeps moving through both, and a cancel interrupts a statement rather than waiting for it.
"""

from __future__ import annotations

import math
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Final

from agent_orchestrator.retail.datasets.load import LoadCounts


@dataclass
class ImportProgress:
    """One report. ``phase`` is ``reading``, ``indexing``, ``statistics``, ``storing`` or ``done``;
    ``seconds_left`` is estimated from the bytes read against the file's size while reading
    (``None`` before the first batch and after the reading). ``percent`` is the whole import's:
    the reading's bytes up to :data:`READING_PERCENT`, then the SQL work done against the work a
    file of this many rows usually takes (an estimate that slows down rather than overshoots)."""

    phase: str
    rows_read: int
    bytes_read: int
    total_bytes: int
    rows_per_second: float
    seconds_left: float | None
    percent: float


READING_PERCENT: Final = 80.0
"""The share of the bar the reading fills: on 2 cores it is about four fifths of an import's time."""

WORK_TICK: Final = 50_000
"""SQLite virtual-machine instructions per progress-handler call: some hundreds of calls a second."""

TICKS_PER_ROW: Final = 0.0018
"""Progress-handler calls per imported row for the indexes and statistics, measured on the real Online
Retail file (0.0017) and on generated data (0.0018): the finishing part of the bar is scaled by it."""

ProgressListener = Callable[[ImportProgress], None]


class ProgressReporter:
    """Calls ``listener`` every ``interval`` seconds from a thread of its own while in a ``with``,
    and once more with phase ``done`` at the end of a successful import (:meth:`finish`)."""

    def __init__(
        self,
        listener: ProgressListener | None,
        counts: LoadCounts,
        total_bytes: int,
        *,
        interval: float = 0.5,
    ) -> None:
        self._listener = listener
        self._counts = counts
        self._total = total_bytes
        self._interval = interval
        self._started = time.monotonic()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()  # one report at a time: the thread's and finish()'s
        self._ticks = 0  # progress-handler calls during the SQL steps
        self.phase = "reading"

    def __enter__(self) -> ProgressReporter:
        if self._listener is not None:
            self._thread = threading.Thread(target=self._run, name="import-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def finish(self) -> None:
        self.phase = "done"
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self._report()

    def watch(self, conn: sqlite3.Connection, cancel: threading.Event | None) -> None:
        """Count ``conn``'s work from now on, and interrupt its statement (``sqlite3.OperationalError``)
        once ``cancel`` is set."""

        def tick() -> int:
            self._ticks += 1
            return 1 if cancel is not None and cancel.is_set() else 0

        conn.set_progress_handler(tick, WORK_TICK)

    def snapshot(self) -> ImportProgress:
        counts, elapsed = self._counts, max(time.monotonic() - self._started, 1e-6)
        rate = counts.rows_read / elapsed
        left: float | None = None
        if self.phase == "reading" and counts.bytes_read:
            left = elapsed * (self._total - counts.bytes_read) / counts.bytes_read
        return ImportProgress(
            self.phase, counts.rows_read, counts.bytes_read, self._total, rate, left, self._percent()
        )

    def _percent(self) -> float:
        if self.phase == "done":
            return 100.0
        if self.phase == "reading":
            return round(READING_PERCENT * self._counts.bytes_read / self._total, 1) if self._total else 0.0
        expected = max(self._counts.imported * TICKS_PER_ROW, 1.0)
        finishing = 1 - math.exp(-2 * self._ticks / expected)  # 86 % of the band at the usual work
        return round(READING_PERCENT + (99 - READING_PERCENT) * finishing, 1)

    def _run(self) -> None:
        self._report()  # at once: the import has begun (a first report after an interval left a gap)
        while not self._stop.wait(self._interval):
            self._report()

    def _report(self) -> None:
        if self._listener is not None:
            with self._lock:
                self._listener(self.snapshot())

"""Progress reporting for slow-ish work (dataset generation, CSV import), without a dependency.

A progress callback is ``(stage, done, total) -> None``. ``StderrProgress`` draws one tqdm-like
line on a terminal and prints only stage changes when stderr is a file or a pipe (logs stay short).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

ProgressCallback = Callable[[str, int, int], None]


class StderrProgress:
    """``label: stage  42% (42000/100000)`` on one line, redrawn at most every ``interval`` seconds."""

    def __init__(self, label: str = "retail dataset", stream: TextIO | None = None, interval: float = 0.1):
        self._label = label
        self._stream = stream if stream is not None else sys.stderr
        self._interval = interval
        self._stage = ""
        self._last_draw = 0.0
        self._tty = bool(getattr(self._stream, "isatty", lambda: False)())

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        new_stage = stage != self._stage
        finished = total > 0 and done >= total
        if not (new_stage or finished or now - self._last_draw >= self._interval):
            return
        if new_stage and self._stage and self._tty:
            self._stream.write("\n")
        self._stage = stage
        self._last_draw = now
        if total > 0:
            line = f"{self._label}: {stage:<24} {min(100, done * 100 // total):3d}% ({done}/{total})"
        else:  # unknown total (a CSV being read): just count
            line = f"{self._label}: {stage:<24} {done}"
        if self._tty:
            self._stream.write("\r" + line + ("\n" if stage == "done" else ""))
        elif new_stage or stage == "done":
            self._stream.write(line + "\n")
        self._stream.flush()

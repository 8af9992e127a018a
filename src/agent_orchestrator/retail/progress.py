"""Progress reporting for slow-ish work (dataset generation, CSV import).

A progress callback is ``(stage, done, total) -> None`` (``total`` 0 when unknown), so the generator
and importer stay free of any output. ``StderrProgress`` draws it with :mod:`agent_orchestrator.progress`
(tqdm): one bar per stage, in place on a terminal, a few plain lines when stderr is a file or a pipe.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from tqdm import tqdm

from agent_orchestrator.progress import progress_bar

ProgressCallback = Callable[[str, int, int], None]


class StderrProgress:
    """A :data:`ProgressCallback` with one bar per stage (``label: stage``); stage ``done`` ends it."""

    def __init__(self, label: str = "retail dataset", stream: TextIO | None = None) -> None:
        self._label = label
        self._stream = stream
        self._stage = ""
        self._bar: tqdm | None = None

    def __call__(self, stage: str, done: int, total: int) -> None:
        if stage != self._stage:
            self._end_stage()
            self._stage = stage
            if stage != "done":
                self._bar = progress_bar(f"{self._label}: {stage}", total, stream=self._stream)
        if self._bar is not None:
            self._bar.update(done - self._bar.n)

    def _end_stage(self) -> None:
        """A stage is complete when the next one starts, whatever its last report said."""
        if self._bar is None:
            return
        if self._bar.total:
            self._bar.update(self._bar.total - self._bar.n)
        self._bar.close()
        self._bar = None

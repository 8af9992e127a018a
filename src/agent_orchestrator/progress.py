"""Progress bars on stderr, drawn by tqdm: in place on a terminal, a plain line now and then in a log.

tqdm redraws with ``\\r`` even into a file or a pipe, which makes a CI log one endless line (or, where
the viewer splits on ``\\r``, hundreds of lines). So where the stream is no terminal,
:class:`LogLineBar` writes whole lines instead: the start, one at most every :data:`LOG_INTERVAL`
seconds, and the end.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from tqdm import tqdm

LOG_INTERVAL = 10.0
_LOG_FORMAT = "{desc}: {percentage:3.0f}% ({n_fmt}/{total_fmt}) [{elapsed}]"
_LOG_FORMAT_NO_TOTAL = "{desc}: {n_fmt} [{elapsed}]"


class LogLineBar(tqdm):
    """tqdm that writes each update as a line of its own, for logs; tqdm's documented extension point
    (overriding :meth:`display`) does the writing."""

    def __init__(self, **kwargs: Any) -> None:
        self._printed_n: float | None = None
        kwargs.setdefault("mininterval", LOG_INTERVAL)
        kwargs.setdefault("bar_format", _LOG_FORMAT if kwargs.get("total") else _LOG_FORMAT_NO_TOTAL)
        # tqdm "leaves" a bar by ending its line; ours are ended already, and close() prints the last.
        super().__init__(leave=False, **kwargs)

    # tqdm's stubs declare display() -> None, but tqdm reads its result (close() writes "\r" after a
    # clearing display that returned True), so the override returns a bool like tqdm's own.
    def display(self, msg: str | None = None, pos: int | None = None) -> bool:  # type: ignore[override]
        if msg == "":  # tqdm clearing the bar: a log keeps what it has
            return False
        self.fp.write(f"{self if msg is None else msg}\n")
        self.fp.flush()
        self._printed_n = self.n
        return True

    def close(self) -> None:
        if not self.disable and self._printed_n != self.n:
            self.display()
        super().close()


def progress_bar(
    desc: str, total: float | None, *, enabled: bool = True, stream: TextIO | None = None, **options: Any
) -> tqdm:
    """A bar on ``stream`` (default: stderr as it is now), or one that shows nothing if not ``enabled``.
    ``total`` ``None`` (or 0) counts without a percentage; ``options`` are tqdm's (``unit``, ...)."""
    stream = stream if stream is not None else sys.stderr
    on_terminal = bool(getattr(stream, "isatty", lambda: False)())
    bar_class = tqdm if on_terminal else LogLineBar
    return bar_class(total=total or None, desc=desc, file=stream, disable=not enabled, **options)

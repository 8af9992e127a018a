"""Warm sessions: runtime sessions a server keeps open between turns (docs/architecture.md#warm-sessions).

Resuming a session for every message replays its whole event log, reconnects its MCP server and appends
a resume and a shutdown record, so a turn got slower as its chat grew and a busy server spent most of
its time on that instead of on the turn. A warm copy skips all of it.

A warm copy may only be reused if nobody else can have written the session since this server's last
turn on it. Leases tell: every turn takes the session's lease under a fresh holder, which bumps the
session's fencing token by exactly one (docs/architecture.md#leases-and-fencing). So if the token of
the lease the new turn holds is the token of this server's last lease plus one, no other writer came in
between (no other server's turn, no rewind, no import); otherwise the warm copy is stale and is closed,
and the turn resumes the session fresh from the store.

The pool is bounded twice, both from settings: at most ``capacity`` sessions (least recently used
goes first), and none idle for longer than ``idle_timeout`` (a background sweep closes them).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from copilot import CopilotSession

logger = logging.getLogger(__name__)

# Called to close a copy that leaves the pool: (session id, session, fencing token of its last lease).
CloseWarm = Callable[[str, CopilotSession, int], Coroutine[Any, Any, None]]


@dataclass(slots=True)
class _Warm:
    session: CopilotSession
    fencing_token: int
    last_used: float


class WarmSessions:
    """An LRU of open runtime sessions, keyed by session id, each with its last lease's fencing token."""

    def __init__(self, *, capacity: int, idle_timeout: float, close: CloseWarm) -> None:
        self.capacity = capacity
        self.idle_timeout = idle_timeout
        self._close = close
        self._open: OrderedDict[str, _Warm] = OrderedDict()
        self._closing: dict[str, asyncio.Task[None]] = {}

    def __len__(self) -> int:
        return len(self._open)

    def __contains__(self, session_id: object) -> bool:
        return session_id in self._open

    async def take(self, session_id: str, fencing_token: int) -> CopilotSession | None:
        """The warm copy if it is current for a turn holding ``fencing_token``, else ``None``.

        A stale copy is closed before this returns, and so is one that an eviction is still closing:
        the caller resumes the session next, on the same runtime, which must not have it open twice.
        """
        await self._finish_closing(session_id)
        warm = self._open.pop(session_id, None)
        if warm is None:
            return None
        if warm.fencing_token + 1 == fencing_token:
            return warm.session
        logger.info("Warm copy of %s is stale (%d, now %d)", session_id, warm.fencing_token, fencing_token)
        await self._close(session_id, warm.session, warm.fencing_token)
        return None

    def keep(self, session_id: str, session: CopilotSession, fencing_token: int) -> None:
        """Keep ``session`` open after a turn that held ``fencing_token``."""
        self._open[session_id] = _Warm(session, fencing_token, time.monotonic())
        self._open.move_to_end(session_id)
        while len(self._open) > self.capacity:
            oldest = next(iter(self._open))
            self._start_closing(oldest)

    async def evict(self, session_id: str) -> None:
        """Close the warm copy now (delete, rename, a lost lease), and wait until it is closed."""
        self._start_closing(session_id)
        await self._finish_closing(session_id)

    async def sweep_every(self, interval: float) -> None:
        """Close copies idle for longer than ``idle_timeout``, every ``interval`` seconds (a task)."""
        while True:
            await asyncio.sleep(interval)
            self.close_idle()

    def close_idle(self) -> None:
        cutoff = time.monotonic() - self.idle_timeout
        for session_id in [sid for sid, warm in self._open.items() if warm.last_used <= cutoff]:
            self._start_closing(session_id)

    async def close_all(self) -> None:
        """Close every copy (server shutdown)."""
        for session_id in list(self._open):
            self._start_closing(session_id)
        if self._closing:
            await asyncio.gather(*self._closing.values(), return_exceptions=True)

    def _start_closing(self, session_id: str) -> None:
        warm = self._open.pop(session_id, None)
        if warm is None:
            return
        task = asyncio.create_task(self._close(session_id, warm.session, warm.fencing_token))
        self._closing[session_id] = task
        task.add_done_callback(lambda done: self._forget(session_id, done))

    def _forget(self, session_id: str, task: asyncio.Task[None]) -> None:
        if self._closing.get(session_id) is task:
            del self._closing[session_id]
        if not task.cancelled() and task.exception() is not None:
            logger.warning("Closing warm session %s failed: %s", session_id, task.exception())

    async def _finish_closing(self, session_id: str) -> None:
        if (task := self._closing.get(session_id)) is not None:
            await asyncio.gather(task, return_exceptions=True)

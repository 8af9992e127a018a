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

A copy can also be opened ahead of a turn, while the session's owner reads it (``open_ahead``): the
replay of a long log then happens while they type, not after they send. At most ``MAX_OPENING`` at once,
so that a user paging through old chats cannot keep the runtime busy replaying them.

When what every session is opened with changes (the retail tools' schemas after a dataset switch,
docs/architecture.md#dataset-versions), ``retire_all`` closes every copy, and a copy a turn or an
opening took before that is closed after it instead of kept: the next turn resumes with the new
configuration.
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
# Opens a copy ahead of a turn and ``keep``s it if it could (see ``open_ahead``).
OpenWarm = Callable[[], Coroutine[Any, Any, None]]
MAX_OPENING = 2


@dataclass(slots=True)
class WarmCopy:
    """An open runtime session; ``ahead`` if it was opened ahead of a turn rather than kept after one."""

    session: CopilotSession
    fencing_token: int
    last_used: float
    ahead: bool = False


class WarmSessions:
    """An LRU of open runtime sessions, keyed by session id, each with its last lease's fencing token."""

    def __init__(self, *, capacity: int, idle_timeout: float, close: CloseWarm) -> None:
        self.capacity = capacity
        self.idle_timeout = idle_timeout
        self._close = close
        self._open: OrderedDict[str, WarmCopy] = OrderedDict()
        self._generation = 0  # bumped by retire_all
        self._taken_in: dict[str, int] = {}  # session id -> generation its turn or opening began in
        self._closing: dict[str, asyncio.Task[None]] = {}
        self._opening: dict[str, asyncio.Task[None]] = {}

    def __len__(self) -> int:
        return len(self._open)

    def __contains__(self, session_id: object) -> bool:
        return session_id in self._open

    async def take(self, session_id: str, fencing_token: int) -> WarmCopy | None:
        """The warm copy if it is current for a turn holding ``fencing_token``, else ``None``.

        A stale copy is closed before this returns, and so is one that an eviction is still closing:
        the caller resumes the session next, on the same runtime, which must not have it open twice.
        """
        self._taken_in[session_id] = self._generation
        await self.settle(session_id)
        warm = self._open.pop(session_id, None)
        if warm is None:
            return None
        if warm.fencing_token + 1 == fencing_token:
            return warm
        logger.info("Warm copy of %s is stale (%d, now %d)", session_id, warm.fencing_token, fencing_token)
        await self._close(session_id, warm.session, warm.fencing_token)
        return None

    def keep(
        self, session_id: str, session: CopilotSession, fencing_token: int, *, ahead: bool = False
    ) -> None:
        """Keep ``session`` open after a turn (or an opening ahead) that held ``fencing_token``; one
        taken before a :meth:`retire_all` is closed instead."""
        if self._taken_in.pop(session_id, self._generation) != self._generation:
            self._open[session_id] = WarmCopy(session, fencing_token, time.monotonic(), ahead)
            self._start_closing(session_id)
            return
        self._open[session_id] = WarmCopy(session, fencing_token, time.monotonic(), ahead)
        self._open.move_to_end(session_id)
        while len(self._open) > self.capacity:
            oldest = next(iter(self._open))
            self._start_closing(oldest)

    def open_ahead(self, session_id: str, opener: OpenWarm) -> bool:
        """Run ``opener`` in the background unless the session is open or opening here, or
        ``MAX_OPENING`` copies are being opened already; ``opener`` calls :meth:`keep` if it opened one.
        A copy still closing (it just left a full pool) is opened again once it is closed: the runtime
        must not have the session open twice, and the owner who asks is about to write."""
        busy = session_id in self._open or session_id in self._opening
        if busy or self.capacity == 0 or len(self._opening) >= MAX_OPENING:
            return False
        self._taken_in[session_id] = self._generation
        task = asyncio.create_task(self._open_after_closing(self._closing.get(session_id), opener))
        self._opening[session_id] = task
        task.add_done_callback(lambda done: self._forget(self._opening, session_id, done))
        return True

    @staticmethod
    async def _open_after_closing(closing: asyncio.Task[None] | None, opener: OpenWarm) -> None:
        if closing is not None:
            await asyncio.gather(closing, return_exceptions=True)
        await opener()

    async def settle(self, session_id: str) -> None:
        """Wait until the session is neither being opened nor closed here."""
        for tasks in (self._opening, self._closing):
            if (task := tasks.get(session_id)) is not None:
                await asyncio.gather(task, return_exceptions=True)

    async def evict(self, session_id: str) -> None:
        """Close the warm copy now (delete, rename, a lost lease), and wait until it is closed; a copy
        being opened is waited for, then closed."""
        await self.settle(session_id)
        self._start_closing(session_id)
        await self.settle(session_id)

    async def sweep_every(self, interval: float) -> None:
        """Close copies idle for longer than ``idle_timeout``, every ``interval`` seconds (a task)."""
        while True:
            await asyncio.sleep(interval)
            self.close_idle()

    def close_idle(self) -> None:
        cutoff = time.monotonic() - self.idle_timeout
        for session_id in [sid for sid, warm in self._open.items() if warm.last_used <= cutoff]:
            self._start_closing(session_id)

    def retire_all(self) -> None:
        """Sessions are opened differently from now on: close every copy, and every copy taken
        before now when its turn or opening ends (see the module docstring)."""
        self._generation += 1
        for session_id in list(self._open):
            self._start_closing(session_id)

    async def close_all(self) -> None:
        """Close every copy (server shutdown)."""
        if self._opening:
            await asyncio.gather(*self._opening.values(), return_exceptions=True)
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
        task.add_done_callback(lambda done: self._forget(self._closing, session_id, done))

    @staticmethod
    def _forget(tasks: dict[str, asyncio.Task[None]], session_id: str, task: asyncio.Task[None]) -> None:
        if tasks.get(session_id) is task:
            del tasks[session_id]
        if not task.cancelled() and task.exception() is not None:
            logger.warning("Opening or closing warm session %s failed: %s", session_id, task.exception())

"""What this server is doing to a session under its lease, so that a delete can stop it and wait for it.

A delete must be final (docs/architecture.md#crash-safety-and-restart-recovery): a turn still talking
to the runtime when its chat is deleted would go on appending to the session's files, saving it,
publishing its answer and sealing with its key after they are gone. So every turn, and every change
of a session's history made under its lease (a rewind, a changed reading, an import's log), is a
:class:`Hold` here until everything it writes is written. A delete stops the turn (its task is
cancelled while it waits on the runtime, and it ends as a failed turn with the delete's reason) and
waits for the hold to be over before it removes anything.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any


@dataclass(eq=False)
class Hold:
    """One turn or history change of a session on this server. ``stopped`` is why it was stopped."""

    stopped: str | None = None
    _answering: asyncio.Task[Any] | None = None
    ends: list[asyncio.Future[Any]] = field(default_factory=list)

    def answering(self, task: asyncio.Task[Any] | None) -> None:
        """``task`` waits on the runtime from now on (``None``: no longer), so stopping cancels it; a
        hold stopped already cancels it at once."""
        self._answering = task
        if task is not None and self.stopped is not None:
            task.cancel()

    def stop(self, reason: str) -> None:
        self.stopped = reason
        if self._answering is not None:
            self._answering.cancel()


class Holds:
    """The holds of this server, by session id (one at a time per session: the lease's)."""

    def __init__(self) -> None:
        self._holds: dict[str, Hold] = {}

    def add(self, session_id: str, hold: Hold, *ends: Awaitable[Any]) -> None:
        """Register ``hold`` until every one of ``ends`` is done."""
        hold.ends = [asyncio.ensure_future(end) for end in ends]
        self._holds[session_id] = hold
        remaining = set(hold.ends)

        def ended(future: asyncio.Future[Any]) -> None:
            remaining.discard(future)
            if not remaining and self._holds.get(session_id) is hold:
                del self._holds[session_id]

        for end in hold.ends:
            end.add_done_callback(ended)

    def get(self, session_id: str) -> Hold | None:
        return self._holds.get(session_id)

    async def stop(self, session_id: str, reason: str) -> None:
        """Stop the session's hold, if this server has one, and wait until it is over (a caller that
        goes away meanwhile does not cancel it)."""
        hold = self._holds.get(session_id)
        if hold is None:
            return
        hold.stop(reason)
        await asyncio.wait(hold.ends)

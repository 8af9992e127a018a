"""The versions of a session's turns (docs/architecture.md#versions-of-a-turn).

A turn is found by its ``anchor``, the runtime's event id of the message before its question ("" for
the first turn). Its versions are numbered 1, 2, ... in the order they were made; the one the session's
log holds now is stored without a tail, every other one with its tail: the log from the turn's question
to the end, as it was when it was replaced. So a version keeps the turns that followed it, and the
turns inside it keep their own versions (their anchors are in its tail).

Each call is one short transaction; the caller holds the session's lease, so no two writers change the
same turn's versions at once. Tails are sealed with the session's key under a master key, like every
other text of the conversation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sqlalchemy import Engine, delete, func, insert, select, update

from agent_orchestrator.errors import InvalidInputError, NotFoundError
from agent_orchestrator.sessions.store.engine import read_connection, write_transaction
from agent_orchestrator.sessions.store.live_events import EventSealer
from agent_orchestrator.sessions.store.schema import turn_versions, utcnow

KeptVersions = Mapping[str, list[tuple[int, bytes | None]]]
"""Every version of a session's turns by anchor, in order: its number and its tail (``None``: the
version the log holds now)."""

MAX_VERSIONS = 50
"""How many versions one turn keeps: past it, an edit or a regenerate is refused (not silently
dropping the oldest), and the user branches into a new chat instead."""


@dataclass(frozen=True, slots=True)
class Versions:
    """Where a turn stands: the version shown (``number``) of ``count``."""

    number: int
    count: int


class TurnVersions:
    """Every session's turn versions, on the catalog's database."""

    def __init__(self, engine: Engine, *, sealer: EventSealer | None = None) -> None:
        self._engine = engine
        self._sealer = sealer

    def of_session(self, session_id: str) -> dict[str, Versions]:
        """The session's turns that have versions, by anchor (turns inside a version not shown now
        are listed too: their anchors are not in the log, so no message asks for them)."""
        t = turn_versions
        query = (
            select(t.c.anchor, func.count(), func.max(t.c.number).filter(t.c.tail.is_(None)))
            .where(t.c.session_id == session_id)
            .group_by(t.c.anchor)
        )
        with read_connection(self._engine) as conn:
            rows = conn.execute(query).all()
        return {anchor: Versions(number or count, count) for anchor, count, number in rows}

    def replace(self, session_id: str, anchor: str, tail: bytes) -> Versions:
        """Keep ``tail``, the turn's version shown until now, and make a new version the shown one;
        returns where the turn stands then. Refused past :data:`MAX_VERSIONS`."""
        t = turn_versions
        key = (t.c.session_id == session_id) & (t.c.anchor == anchor)
        now = utcnow()
        with write_transaction(self._engine) as conn:
            count = conn.scalar(select(func.count()).where(key)) or 0
            if count >= MAX_VERSIONS:
                raise InvalidInputError(
                    f"This question has {MAX_VERSIONS} versions already; branch into a new chat to ask again."
                )
            sealed = self._seal(session_id, tail)
            row = {"session_id": session_id, "anchor": anchor, "created_at": now}
            if count == 0:
                conn.execute(insert(t).values(**row, number=1, tail=sealed))
                count = 1
            else:
                conn.execute(update(t).where(key, t.c.tail.is_(None)).values(tail=sealed))
            conn.execute(insert(t).values(**row, number=count + 1, tail=None))
        return Versions(count + 1, count + 1)

    def switch(self, session_id: str, anchor: str, number: int, tail: bytes) -> bytes | None:
        """Make version ``number`` of the turn the shown one, keeping ``tail`` (the shown version's) in
        its place; returns the tail to put back in the log (``None``: that version is shown already).
        :class:`NotFoundError` if the turn has no such version."""
        t = turn_versions
        key = (t.c.session_id == session_id) & (t.c.anchor == anchor)
        with write_transaction(self._engine) as conn:
            target = conn.execute(select(t.c.tail).where(key, t.c.number == number)).first()
            if target is None:
                raise NotFoundError("This question has no such version.")
            if target.tail is None:
                return None
            conn.execute(update(t).where(key, t.c.tail.is_(None)).values(tail=self._seal(session_id, tail)))
            conn.execute(update(t).where(key, t.c.number == number).values(tail=None))
        return self._open(session_id, target.tail)

    def forget(self, session_id: str, anchor: str) -> None:
        """Drop every version of the turn at ``anchor`` (a rewind removed it from the conversation)."""
        t = turn_versions
        with write_transaction(self._engine) as conn:
            conn.execute(delete(t).where(t.c.session_id == session_id, t.c.anchor == anchor))

    def tails(self, session_id: str) -> KeptVersions:
        """Every version of every turn (what an export writes out)."""
        t = turn_versions
        query = select(t.c.anchor, t.c.number, t.c.tail).where(t.c.session_id == session_id)
        found: dict[str, list[tuple[int, bytes | None]]] = {}
        with read_connection(self._engine) as conn:
            for row in conn.execute(query.order_by(t.c.anchor, t.c.number)):
                tail = None if row.tail is None else self._open(session_id, row.tail)
                found.setdefault(row.anchor, []).append((row.number, tail))
        return found

    def _seal(self, session_id: str, tail: bytes) -> str:
        # The log is UTF-8 JSON lines cut at whole lines, so it is text.
        text = tail.decode("utf-8", errors="replace")
        return text if self._sealer is None else self._sealer.seal_text(session_id, text)

    def _open(self, session_id: str, stored: str) -> bytes:
        text = stored if self._sealer is None else self._sealer.open_text(session_id, stored)
        return text.encode()

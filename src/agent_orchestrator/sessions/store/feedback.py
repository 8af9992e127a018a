"""Feedback on answers: a thumbs up or down with an optional note (docs/architecture.md#feedback).

One row per answer (the session and the runtime's event id of the answer's message), written again
when its owner changes their mind and deleted with the session or its owner. The note is sealed with
the session's key under a master key, like everything else the user wrote. An admin exports the rows
of every user as eval cases; that walk goes by time, newest last.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal, get_args

from sqlalchemy import Engine, and_, delete, insert, select, update

from agent_orchestrator.errors import InvalidInputError
from agent_orchestrator.sessions.store.engine import read_connection, write_transaction
from agent_orchestrator.sessions.store.live_events import EventSealer
from agent_orchestrator.sessions.store.schema import message_feedback, sessions, utcnow

Rating = Literal["up", "down"]
RATINGS: frozenset[str] = frozenset(get_args(Rating))
NOTE_MAX = 2_000


@dataclass(frozen=True, slots=True)
class Rated:
    """One answer's feedback; ``public_id`` is the session's id as its owner names it."""

    session_id: str
    public_id: str
    owner_id: int
    event_id: str
    rating: Rating
    note: str
    updated_at: datetime


def validate_rating(rating: str, note: str) -> tuple[Rating, str]:
    if rating not in RATINGS:
        raise InvalidInputError("A rating is 'up' or 'down'.")
    note = note.strip()
    if len(note) > NOTE_MAX:
        raise InvalidInputError(f"A note has at most {NOTE_MAX} characters.")
    return rating, note  # type: ignore[return-value]


class FeedbackStore:
    """Every answer's feedback, on the catalog's database."""

    def __init__(self, engine: Engine, *, sealer: EventSealer | None = None) -> None:
        self._engine = engine
        self._sealer = sealer

    def _seal(self, session_id: str, text: str) -> str:
        return text if self._sealer is None or not text else self._sealer.seal_text(session_id, text)

    def _open(self, session_id: str, text: str) -> str:
        return text if self._sealer is None or not text else self._sealer.open_text(session_id, text)

    def rate(self, session_id: str, owner_id: int, event_id: str, rating: str, note: str) -> None:
        """Record (or replace) the feedback on one answer."""
        rating, note = validate_rating(rating, note)
        t = message_feedback
        values = {"rating": rating, "note": self._seal(session_id, note), "updated_at": utcnow()}
        key = and_(t.c.session_id == session_id, t.c.event_id == event_id)
        with write_transaction(self._engine) as conn:
            if conn.execute(update(t).where(key).values(**values)).rowcount == 0:
                conn.execute(
                    insert(t).values(session_id=session_id, event_id=event_id, owner_id=owner_id, **values)
                )

    def clear(self, session_id: str, event_id: str) -> bool:
        t = message_feedback
        with write_transaction(self._engine) as conn:
            done = conn.execute(delete(t).where(t.c.session_id == session_id, t.c.event_id == event_id))
        return done.rowcount > 0

    def of_session(self, session_id: str) -> dict[str, tuple[Rating, str]]:
        """The session's feedback by answer (event id): rating and note."""
        t = message_feedback
        with read_connection(self._engine) as conn:
            query = select(t.c.event_id, t.c.rating, t.c.note).where(t.c.session_id == session_id)
            rows = conn.execute(query)
            return {row.event_id: (row.rating, self._open(session_id, row.note)) for row in rows}

    def every(self, *, rating: Rating | None = None, limit: int = 10_000) -> list[Rated]:
        """Everyone's feedback, oldest first (an admin's export), at most ``limit`` rows."""
        t = message_feedback
        query = (
            select(t, sessions.c.public_id)
            .join(sessions, sessions.c.id == t.c.session_id)
            .order_by(t.c.updated_at, t.c.session_id, t.c.event_id)
            .limit(limit)
        )
        if rating is not None:
            query = query.where(t.c.rating == rating)
        with read_connection(self._engine) as conn:
            rows = conn.execute(query).all()
        return [
            Rated(
                row.session_id,
                row.public_id,
                row.owner_id,
                row.event_id,
                row.rating,
                self._open(row.session_id, row.note),
                row.updated_at,
            )
            for row in rows
        ]

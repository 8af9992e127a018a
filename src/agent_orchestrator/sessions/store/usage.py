"""The usage ledger: model tokens per turn, summed per session and per user
(docs/architecture.md#usage-ledger).

One row per turn, written after the turn from the runtime's own usage events (``assistant.usage``, one
per model call). Rows have no foreign keys: a user's daily total must still count a session they have
deleted since, and cost accounting outlives the conversation (the rows hold no conversation text).

Under a daily budget a turn's row is written when it starts, as a reservation of its estimated cost
(``reserved_tokens``), and settled by its end with what it spent: the ledger is otherwise only
written at the end of a turn, so every turn started before the first one ended would pass the check.
The check and the reservation are one transaction with the user's row locked, so turns starting at
once on any servers take turns at the budget. Totals count settled rows only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, delete, func, insert, select
from sqlalchemy.sql.elements import ColumnElement

from agent_orchestrator.sessions.store.engine import read_connection, write_transaction
from agent_orchestrator.sessions.store.schema import turn_usage, users, utcnow


@dataclass(frozen=True, slots=True)
class TokenTotals:
    input_tokens: int = 0
    output_tokens: int = 0
    turns: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


class UsageLedger:
    """Record a turn's tokens; sum them for a session or a user (since a time)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    @staticmethod
    def row(
        session_id: str,
        user_id: int,
        *,
        input_tokens: int,
        output_tokens: int,
        model: str | None,
        at: datetime | None = None,
    ) -> dict[str, object]:
        """A turn's row, for the write that ends the turn (``turn_end.TurnEnd.usage``)."""
        return {
            "session_id": session_id,
            "user_id": user_id,
            "at": at or utcnow(),
            "model": model[:200] if model else None,
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
        }

    def reserve(
        self, user_id: int, session_id: str, *, budget: int, since: datetime, default: int
    ) -> tuple[int | None, int]:
        """Hold a turn's estimated cost against the user's ``budget`` of tokens since ``since``: the
        new reservation's id, or ``None`` if what was spent and is held already reaches the budget;
        and that amount. The estimate is what the session's last settled turn cost (a conversation's
        next turn costs about as much, a little more), else the user's last, else ``default``."""
        t = turn_usage
        settled = t.c.reserved_tokens == 0
        with write_transaction(self._engine) as conn:
            conn.execute(select(users.c.id).where(users.c.id == user_id).with_for_update())  # one at a time
            held = conn.execute(
                select(
                    func.coalesce(func.sum(t.c.input_tokens + t.c.output_tokens + t.c.reserved_tokens), 0)
                ).where(t.c.user_id == user_id, t.c.at >= since)
            ).scalar_one()
            if held >= budget:
                return None, int(held)
            last_turn = select(t.c.input_tokens + t.c.output_tokens).order_by(t.c.at.desc()).limit(1)
            estimate = (
                conn.execute(last_turn.where(t.c.session_id == session_id, settled)).scalar()
                or conn.execute(last_turn.where(t.c.user_id == user_id, settled)).scalar()
                or default
            )
            row = self.row(session_id, user_id, input_tokens=0, output_tokens=0, model=None)
            reservation = conn.execute(
                insert(t).values(**row, reserved_tokens=max(1, int(estimate))).returning(t.c.id)
            ).scalar_one()
        return int(reservation), int(held)

    def release(self, reservation: int) -> None:
        """Give up a reservation its turn will not settle (it never started, or its end failed)."""
        t = turn_usage
        with write_transaction(self._engine) as conn:
            conn.execute(delete(t).where(t.c.id == reservation, t.c.reserved_tokens > 0))

    def for_session(self, session_id: str) -> TokenTotals:
        return self._totals(turn_usage.c.session_id == session_id)

    def for_user(self, user_id: int, *, since: datetime | None = None) -> TokenTotals:
        condition = turn_usage.c.user_id == user_id
        if since is not None:
            condition = condition & (turn_usage.c.at >= since)
        return self._totals(condition)

    def _totals(self, condition: ColumnElement[bool]) -> TokenTotals:
        t = turn_usage
        query = select(
            func.coalesce(func.sum(t.c.input_tokens), 0),
            func.coalesce(func.sum(t.c.output_tokens), 0),
            func.count(),
        ).where(condition, t.c.reserved_tokens == 0)
        with read_connection(self._engine) as conn:
            tokens_in, tokens_out, turns = conn.execute(query).one()
        return TokenTotals(int(tokens_in), int(tokens_out), int(turns))

"""The usage ledger: model tokens per turn, summed per session and per user
(docs/architecture.md#usage-ledger).

One row per turn, written after the turn from the runtime's own usage events (``assistant.usage``, one
per model call). Rows have no foreign keys: a user's daily total must still count a session they have
deleted since, and cost accounting outlives the conversation (the rows hold no conversation text).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, func, select
from sqlalchemy.sql.elements import ColumnElement

from agent_orchestrator.sessions.store.engine import read_connection
from agent_orchestrator.sessions.store.schema import turn_usage, utcnow


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
        ).where(condition)
        with read_connection(self._engine) as conn:
            tokens_in, tokens_out, turns = conn.execute(query).one()
        return TokenTotals(int(tokens_in), int(tokens_out), int(turns))

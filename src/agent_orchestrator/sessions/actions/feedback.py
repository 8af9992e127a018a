"""Feedback on answers, and an admin's export of it as eval cases (docs/architecture.md#feedback).

The owner of a chat rates one of its answers up or down, with an optional note; the rating is shown
with the answer on every device (the chat's live feed says ``feedback``) and audited. An admin exports
everyone's feedback as eval cases: the question the answer answered, the answer, what its tools
returned, the rating and the note, one JSON object per line, which ``bench/eval_assistant.py
--replay`` asks again through the app. The export is audited (``feedback_export``) and names no
user: a case is about an answer, not about who asked.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import asdict, dataclass

from agent_orchestrator.errors import NotFoundError
from agent_orchestrator.sessions.actor import Actor
from agent_orchestrator.sessions.history.transcript import TranscriptMessage
from agent_orchestrator.sessions.live.feed import session_stream
from agent_orchestrator.sessions.service import SessionService
from agent_orchestrator.sessions.store import Batch
from agent_orchestrator.sessions.store.feedback import FeedbackStore, Rated, Rating
from agent_orchestrator.sessions.turn_runner import logged_messages

NO_ANSWER = "No such answer in this chat."


@dataclass(frozen=True)
class EvalCase:
    """One rated answer as an eval case: ``question`` is the user's message it answered."""

    question: str
    answer: str
    rating: Rating
    note: str
    tool_results: list[dict[str, object]]
    rated_at: str


class Feedback:
    """Rate answers of the caller's chats; export everyone's ratings (admins: checked by the caller)."""

    def __init__(self, service: SessionService, store: FeedbackStore) -> None:
        self.service = service
        self.store = store

    async def rate(self, actor: Actor, public_id: str, event_id: str, rating: str, note: str = "") -> None:
        record = await self.service.get(actor, public_id)
        messages = await logged_messages(self.service.files, record.id)
        if _answer(messages, event_id) is None:
            raise NotFoundError(NO_ANSWER)
        await asyncio.to_thread(self.store.rate, record.id, actor.user.id, event_id, rating, note)
        said = {"event_id": event_id, "rating": rating}
        event = self.service.event("feedback", actor, record, details=said)
        await asyncio.to_thread(self.service.audit.record, event)
        feed = {"event_id": event_id, "rating": rating, "note": note.strip()}
        await self.service._announce(Batch(session_stream(record.id), [("feedback", feed)]))

    async def clear(self, actor: Actor, public_id: str, event_id: str) -> None:
        record = await self.service.get(actor, public_id)
        if not await asyncio.to_thread(self.store.clear, record.id, event_id):
            raise NotFoundError("This answer has no feedback.")
        event = self.service.event("feedback", actor, record, details={"event_id": event_id, "rating": ""})
        await asyncio.to_thread(self.service.audit.record, event)
        feed = {"event_id": event_id, "rating": None, "note": ""}
        await self.service._announce(Batch(session_stream(record.id), [("feedback", feed)]))

    async def of_session(self, session_id: str) -> dict[str, tuple[Rating, str]]:
        """The feedback of a session the caller already resolved (by runtime id), by answer."""
        return await asyncio.to_thread(self.store.of_session, session_id)

    async def export(self, admin: Actor, *, rating: Rating | None = None) -> AsyncIterator[str]:
        """Every rated answer still in its chat, as JSON lines of :class:`EvalCase` (oldest first)."""
        rated = await asyncio.to_thread(self.store.every, rating=rating)
        event = self.service.event("feedback_export", admin, None, details={"cases": str(len(rated))})
        await asyncio.to_thread(self.service.audit.record, event)
        return _cases(self.service, rated)


async def _cases(service: SessionService, rated: list[Rated]) -> AsyncIterator[str]:
    by_session: dict[str, list[Rated]] = {}
    for one in rated:
        by_session.setdefault(one.session_id, []).append(one)
    for session_id, ratings in by_session.items():
        messages = await logged_messages(service.files, session_id)
        for one in ratings:
            case = _case(messages, one)
            if case is not None:
                yield json.dumps(asdict(case), ensure_ascii=False) + "\n"


def _case(messages: list[TranscriptMessage], rated: Rated) -> EvalCase | None:
    index = _answer(messages, rated.event_id)
    if index is None:  # rewound since it was rated
        return None
    question = next((m.content for m in reversed(messages[:index]) if m.role == "user"), "")
    answer = messages[index]
    results: list[dict[str, object]] = [
        {"tool": r.tool, "arguments": r.arguments, "content": r.content} for r in answer.tool_results
    ]
    return EvalCase(question, answer.content, rated.rating, rated.note, results, rated.updated_at.isoformat())


def _answer(messages: list[TranscriptMessage], event_id: str) -> int | None:
    """Where the assistant message of that event id is, if it is one."""
    for index, message in enumerate(messages):
        if message.event_id == event_id and event_id and message.role == "assistant":
            return index
    return None

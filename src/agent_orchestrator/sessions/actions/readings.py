"""A changed reading, recorded as a turn of the conversation that no model answered.

An analyst who changes a part of an answer's reading (another country, another month, lowest instead
of highest) gets the answer computed again by code, and the change must then be part of the
conversation like anything said in it: on reload, on another device or server, and for the model in
later turns (docs/architecture.md#editing-a-reading). So it is written where the conversation lives,
the runtime's own event log, as the events the runtime writes for a tool turn (checked against CLI
1.0.102, which replays them to the model as its own): the user's line, an assistant message asking for
the tool with the edited arguments, the tool's start and completion with its result, and the answer.
No table of our own, and no note to smuggle into the next prompt.

The change is made under the session's lease, like a turn (a running turn makes it
:class:`~agent_orchestrator.errors.SessionBusyError`), after closing a warm copy, whose in-memory
history would otherwise not have the new turn; the next turn resumes the session from the log. Written
through the session files, it works for local files, sealed ones and the shared PostgreSQL store
(fenced by the lease there). Followers hear it on the live feed as the events of a turn.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from agent_orchestrator.errors import SessionNotFoundError
from agent_orchestrator.sessions.history.appending import event_lines, intact
from agent_orchestrator.sessions.history.transcript import TranscriptMessage, log_timestamp, parse_events
from agent_orchestrator.sessions.live.feed import describe, session_stream, user_stream
from agent_orchestrator.sessions.search.index import SearchIndex
from agent_orchestrator.sessions.service import Actor, SessionService
from agent_orchestrator.sessions.store import Batch, SessionRecord
from agent_orchestrator.sessions.turns.stream import Done, ToolFinished, ToolStarted

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ToolAnswer:
    """A turn answered by one tool call, computed by the caller: the user's line, the tool as the
    runtime names it (``retail-analytics-analyze_sales``), its arguments, its result text exactly as
    the tool returns it, and the answer."""

    prompt: str
    tool: str
    arguments: dict[str, Any]
    result: str
    answer: str


class Readings:
    """Record changed readings for an :class:`Actor`: owner-checked, leased, audited (``reading``)."""

    def __init__(self, service: SessionService, search: SearchIndex) -> None:
        self.service = service
        self.search_index = search

    async def change(
        self, actor: Actor, public_id: str, compute: Callable[[], ToolAnswer]
    ) -> list[TranscriptMessage]:
        """Run ``compute`` (blocking: in a worker thread) under the lease of the caller's session
        ``public_id`` and append its answer to the conversation as a turn; returns the turn's question
        and answer as the transcript shows them."""
        session = await self.service.get(actor, public_id)
        session_id = session.id
        service = self.service
        async with service.hold_lease(session_id):  # also closes a warm copy of the session
            answer = await asyncio.to_thread(compute)  # a reading it cannot answer changes nothing
            record = await asyncio.to_thread(service.catalog.get, session_id)
            raw = await service.files.read_events(session_id)
            if record is None or not raw:  # deleted meanwhile (a delete takes no lease)
                raise SessionNotFoundError("No such session.")
            if record.pending_prompt is not None:  # a crashed turn's message: kept, as a send keeps it
                await service.keep_interrupted_prompt(record)
            log, parent = intact(raw)
            turn = turn_events(answer, parent, log_timestamp(datetime.now(UTC)))
            await service.files.write_events(session_id, log + turn)
            messages = parse_events(turn.splitlines())
            await self._index(session_id, actor, messages)
            await asyncio.to_thread(
                service.catalog.set_history,
                session_id,
                turn_count=record.turn_count + 1,
                preview=answer.answer,
            )
            details = {"event_id": messages[-1].event_id, "tool": answer.tool}
            await asyncio.to_thread(
                service.audit.record, service.event("reading", actor, record, details=details)
            )
            # Published before the lease goes, so that no turn's events can come between.
            await service._announce(*_feed(record, messages))
        return messages

    async def _index(self, session_id: str, actor: Actor, messages: list[TranscriptMessage]) -> None:
        """Search rows for the new messages; a failure (sealing) costs the rows, not the change
        (``python -m agent_orchestrator.sessions reindex`` refills them)."""
        try:
            await asyncio.to_thread(self.search_index.add, session_id, actor.user.id, messages)
        except Exception:
            logger.exception("Indexing the changed reading of %s for search failed", session_id)


def turn_events(answer: ToolAnswer, parent: str | None, at: str) -> bytes:
    """The turn as the runtime logs a tool turn: two model rounds (the call, then the answer), each
    between ``assistant.turn_start`` and ``assistant.turn_end``, chained by ``parentId``."""
    call = f"call_{uuid.uuid4().hex[:24]}"
    request = {"toolCallId": call, "name": answer.tool, "arguments": answer.arguments, "type": "function"}
    asked = {"messageId": str(uuid.uuid4()), "content": "", "toolRequests": [request], "turnId": "0"}
    answered = {"messageId": str(uuid.uuid4()), "content": answer.answer, "toolRequests": [], "turnId": "1"}
    started = {"toolCallId": call, "toolName": answer.tool, "arguments": answer.arguments, "turnId": "0"}
    completed = {"toolCallId": call, "success": True, "result": {"content": answer.result}, "turnId": "0"}
    events: list[tuple[str, dict[str, Any]]] = [
        ("user.message", {"content": answer.prompt}),
        ("assistant.turn_start", {"turnId": "0"}),
        ("assistant.message", asked),
        ("tool.execution_start", started),
        ("tool.execution_complete", completed),
        ("assistant.turn_end", {"turnId": "0"}),
        ("assistant.turn_start", {"turnId": "1"}),
        ("assistant.message", answered),
        ("assistant.turn_end", {"turnId": "1"}),
    ]
    return event_lines(events, parent, at)


def _feed(session: SessionRecord, messages: list[TranscriptMessage]) -> tuple[Batch, Batch]:
    """The turn for the live feeds, as a turn's own events: its message, the tool, the answer with the
    tool's result (followers draw its chips and charts from it), and its end; on the session's stream
    (its runtime id's), and on its owner's list by its public id."""
    question, answer = messages
    (result,) = answer.tool_results
    call = f"reading-{answer.event_id}"
    events = [
        ("user", {"content": question.content}),
        describe(ToolStarted(call, result.tool)),
        describe(ToolFinished(call, True)),
        describe(Done(answer.content, answer.tool_results)),
        ("idle", {}),
    ]
    return (
        Batch(session_stream(session.id), events, ends_turn_from=0),
        Batch(user_stream(session.owner_id), [("idle", {"id": session.public_id})]),
    )

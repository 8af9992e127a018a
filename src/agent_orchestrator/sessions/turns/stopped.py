"""A turn stopped on request keeps what it had said (docs/architecture.md#stopping-an-answer).

The runtime's abort ends the turn with an ``abort`` event and no answer in the log: the model's words
so far exist only in the deltas the browser saw. We append them as the turn's answer, marked
``stopped``, so the transcript shows them on every device after a reload, and the model reads them in
later turns as what it said (as chat products keep a stopped answer). The runtime replays the
assistant message and ignores the extra field (checked against CLI 1.0.102).

A turn stopped before its first word keeps nothing to replay: the runtime's own ``abort`` event after
the question is what marks it, and the transcript shows it as an empty stopped answer. A stop that
reached the runtime before the question did is logged ahead of it; one more ``abort`` after the
question says the turn was stopped all the same.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from agent_orchestrator.runtime.session_files import SessionFiles
from agent_orchestrator.sessions.history.appending import event_lines, intact
from agent_orchestrator.sessions.history.transcript import TranscriptMessage, log_timestamp, parse_events
from agent_orchestrator.sessions.turns.stream import Stopped

STOP = "stop"
"""The live feed event that asks a session's running turn to stop."""


async def keep_stopped_answer(
    files: SessionFiles, session_id: str, stopped: Stopped
) -> list[TranscriptMessage]:
    """Append the stopped turn's words to its log (the caller holds the turn's lease and has closed
    its copy in the runtime); the messages added, for search."""
    raw = await files.read_events(session_id)
    if not raw:
        return []
    log, parent = intact(raw)
    if not stopped.text:
        if _aborted_after_question(log):
            return []
        abort = event_lines(
            [("abort", {"reason": "user_initiated"})], parent, log_timestamp(datetime.now(UTC))
        )
        await files.write_events(session_id, log + abort)
        return []
    message = {
        "messageId": str(uuid.uuid4()),
        "content": stopped.text,
        "toolRequests": [],
        "turnId": "stopped",
        "stopped": True,
    }
    events: list[tuple[str, dict[str, Any]]] = [
        ("assistant.turn_start", {"turnId": "stopped"}),
        ("assistant.message", message),
        ("assistant.turn_end", {"turnId": "stopped"}),
    ]
    added = event_lines(events, parent, log_timestamp(datetime.now(UTC)))
    await files.write_events(session_id, log + added)
    return parse_events(added.splitlines())


def _aborted_after_question(log: bytes) -> bool:
    """Whether the log's last question is followed by the runtime's ``abort``."""
    asked = log.rfind(b'{"type":"user.message"')
    return log.rfind(b'{"type":"abort"') > asked >= 0

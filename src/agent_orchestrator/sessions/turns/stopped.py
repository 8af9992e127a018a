"""A turn stopped on request keeps what it had said (docs/architecture.md#stopping-an-answer).

The runtime's abort ends the turn with an ``abort`` event and no answer in the log: the model's words
so far exist only in the deltas the browser saw. We append them as the turn's answer, marked
``stopped``, so the transcript shows them on every device after a reload, and the model reads them in
later turns as what it said (as chat products keep a stopped answer). The runtime replays the
assistant message and ignores the extra field (checked against CLI 1.0.102).
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
    its copy in the runtime); the messages added, for search. Nothing said: nothing appended."""
    raw = await files.read_events(session_id)
    if not stopped.text or not raw:
        return []
    log, parent = intact(raw)
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

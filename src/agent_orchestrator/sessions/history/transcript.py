"""A session's conversation, read from the runtime's append-only event log (``events.jsonl``).

The log is the source of truth: the catalog only keeps a preview. Reading it directly (rather than
resuming the session and calling ``get_events()``) costs no runtime round trip and works for a session
that another server is writing, which matters for "continue on another device".

Speed: a 1,000-turn log has ~7,000 lines, most of them usage records and turn markers; only lines whose
type is one we show are JSON-decoded, which keeps a full read well under the 100 ms budget.

Tool calls are paired with their results and kept with the answer they led to (``tool_results``), so
the web app can chart what a tool returned (docs/architecture.md#charts). Those of an imported chat
are kept apart (``imported_tool_results``): the file says what they returned, not our tools, so they
are text to show as imported and never data (docs/architecture.md#export-and-import).
"""

import json
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Literal

from agent_orchestrator.runtime.tool_names import tool_name
from agent_orchestrator.sessions.history.tool_results import ToolCalls, ToolResult

Role = Literal["user", "assistant"]

_SHOWN = (
    b'{"type":"user.message"',
    b'{"type":"assistant.message"',
    b'{"type":"assistant.turn_end"',
    b'{"type":"tool.execution_start"',
    b'{"type":"tool.execution_complete"',
    b'{"type":"session.error"',
    b'{"type":"abort"',
)


@dataclass(frozen=True)
class TranscriptMessage:
    """One visible message; ``interrupted`` marks a user turn that never got its answer, and
    ``tool_results`` are what this server's tools called for an assistant answer returned;
    ``imported_tool_results`` what an imported chat's file says its tools returned.

    ``event_id`` is the runtime's id of the event in the log (empty for a message the catalog kept
    after a crash): what forks, rewinds and search results point at.
    """

    role: Role
    content: str
    timestamp: str
    interrupted: bool = False
    event_id: str = ""
    tool_results: tuple[ToolResult, ...] = ()
    imported_tool_results: tuple[ToolResult, ...] = ()
    stopped: bool = False
    """An answer its reader stopped: what the model had said by then (``turns/stopped.py``)."""


def parse_events(lines: Iterable[bytes]) -> list[TranscriptMessage]:
    """Turn raw ``events.jsonl`` lines into the visible conversation.

    Assistant messages that only request tools (empty content) are skipped; a user message followed
    by neither an answer nor an ``assistant.turn_end`` is flagged as interrupted (the process died
    mid-turn), and so is one whose turn ended in a ``session.error`` without an answer (the model
    failed: the runtime ends the turn, then logs the error), so the UI can offer to retry it. A
    question stopped before its answer's first word (the runtime's ``abort`` after it) gets an empty
    answer marked stopped, which the words said so far replace when they follow
    (``turns/stopped.py``). Events of sub-agents (``agentId``) are not the conversation's tools.
    """
    messages: list[TranscriptMessage] = []
    open_user: int | None = None
    unanswered: int | None = None  # the last user message, until an answer follows it
    tools = ToolCalls()
    for line in lines:
        if not line.startswith(_SHOWN):
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue  # a torn last line after a crash: everything before it is intact
        kind, data = event["type"], event.get("data", {})
        at, event_id = event.get("timestamp", ""), event.get("id", "")
        if kind == "tool.execution_start" and not event.get("agentId"):
            tool = tool_name(data.get("toolName", ""), data.get("mcpToolName"))
            tools.started(data.get("toolCallId", ""), tool, data.get("mcpServerName"), data.get("arguments"))
        elif kind == "tool.execution_complete":
            result = data.get("result") or {}
            tools.finished(data.get("toolCallId", ""), bool(data.get("success")), result.get("content"))
        elif kind == "user.message":
            if open_user is not None:
                messages[open_user] = _interrupted(messages[open_user])
            tools.drop()
            messages.append(TranscriptMessage("user", data.get("content", ""), at, event_id=event_id))
            open_user = unanswered = len(messages) - 1
        elif kind == "abort" and unanswered is not None:
            messages.append(TranscriptMessage("assistant", "", at, event_id=event_id, stopped=True))
            open_user = unanswered = None
        elif kind == "assistant.message" and data.get("content"):
            if data.get("stopped") is True and _stopped_silent(messages):
                messages.pop()
            messages.append(
                TranscriptMessage(
                    "assistant",
                    data["content"],
                    at,
                    event_id=event_id,
                    tool_results=tools.take(),
                    imported_tool_results=tools.take_imported(),
                    stopped=data.get("stopped") is True,
                )
            )
            open_user = unanswered = None
        elif kind == "assistant.turn_end":
            open_user = None
        elif kind == "session.error" and unanswered is not None:
            messages[unanswered] = _interrupted(messages[unanswered])
            unanswered = None
    if open_user is not None:
        messages[open_user] = _interrupted(messages[open_user])
    return messages


def _stopped_silent(messages: list[TranscriptMessage]) -> bool:
    """Whether the last message is a stopped turn's empty answer (its words may follow the abort)."""
    last = messages[-1] if messages else None
    return last is not None and last.role == "assistant" and last.stopped and not last.content


def _interrupted(message: TranscriptMessage) -> TranscriptMessage:
    return replace(message, interrupted=True)


def log_timestamp(at: datetime) -> str:
    """A time as the runtime writes it in the log (ISO 8601, UTC, milliseconds, ``Z``), so messages
    from elsewhere sort among logged ones as text."""
    return at.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")

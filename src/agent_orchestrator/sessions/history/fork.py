"""A fork's event log, cut from its parent's: the history up to a message, under a new session id.

Why we cut the log ourselves instead of calling the runtime's ``sessions.fork`` RPC (checked with CLI
1.0.102, docs/architecture.md#branching-and-search): that RPC reads the parent only from this
server's local ``COPILOT_HOME`` ("Cannot fork session ...: no persisted or in-memory events found"
in shared mode, where the files are in PostgreSQL), and it picks the new id itself (a UUID), outside
our id policy. What it writes is the parent's log up to the boundary, verbatim, with the new id in
``session.start``; this module writes the same thing through our :class:`SessionFiles`, so it works
on every backend and the runtime resumes it like any session.

Cutting is byte work on the raw log: find the message's line by its event id, keep whole lines
before the cut, rewrite one line (``session.start``). A 1,000-turn log forks in milliseconds.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from agent_orchestrator.errors import InvalidInputError, NotFoundError

_USER_MESSAGE = b'{"type":"user.message"'
_SESSION_START = b'{"type":"session.start"'
_MESSAGE_TYPES = ("user.message", "assistant.message")


@dataclass(frozen=True)
class Cut:
    """Where a fork ends: ``offset`` bytes of the parent's log are kept; ``role`` is the message's."""

    offset: int
    role: str


def find_cut(raw: bytes, event_id: str, *, before: bool) -> Cut:
    """The cut for a fork at the message with ``event_id``.

    ``before=False`` keeps the message's whole turn (the question and its answer: the cut is at the
    next user message, or the end of the log). ``before=True`` keeps everything before the message,
    which must be a user message (edit and resend). :class:`NotFoundError` if the log has no such
    message.
    """
    start, end, event = _message_line(raw, event_id)
    if before:
        if event["type"] != "user.message":
            raise InvalidInputError("Only a message you sent can be edited and sent again.")
        return Cut(start, "user")
    following = raw.find(b"\n" + _USER_MESSAGE, end - 1)
    return Cut(following + 1 if following >= 0 else complete_lines(raw), event["type"].split(".")[0])


def forked_log(raw: bytes, cut: Cut, new_session_id: str) -> bytes:
    """The new session's ``events.jsonl``: the parent's whole lines before the cut, with the new id in
    ``session.start`` (as the runtime's own fork writes it; event ids are kept)."""
    kept = raw[: cut.offset]
    if not kept.startswith(_SESSION_START):
        raise InvalidInputError("This conversation's log does not start like a session; it cannot be forked.")
    first_end = kept.find(b"\n") + 1 or len(kept)
    start = json.loads(kept[:first_end])
    start["data"]["sessionId"] = new_session_id
    return json.dumps(start, separators=(",", ":"), ensure_ascii=False).encode() + b"\n" + kept[first_end:]


def _message_line(raw: bytes, event_id: str) -> tuple[int, int, dict]:
    """Start and end offsets of the message event's line (end past its newline), and the event."""
    needle = b'"id":"' + event_id.encode() + b'"'
    position = raw.find(needle) if event_id else -1
    if position < 0:
        raise NotFoundError("No such message in this conversation.")
    start = raw.rfind(b"\n", 0, position) + 1
    end = raw.find(b"\n", position)
    end = len(raw) if end < 0 else end + 1
    try:
        event = json.loads(raw[start:end])
    except json.JSONDecodeError:
        raise NotFoundError("No such message in this conversation.") from None
    if event.get("id") != event_id or event.get("type") not in _MESSAGE_TYPES:
        raise NotFoundError("No such message in this conversation.")
    return start, end, event


def complete_lines(raw: bytes) -> int:
    """The length of the log without a torn last line (a crash mid-write)."""
    return raw.rfind(b"\n") + 1

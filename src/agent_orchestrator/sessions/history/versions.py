"""Where a turn's versions are cut from the log, and how a turn is named while it has versions
(docs/architecture.md#versions-of-a-turn). Byte work on the log, like ``fork.py``.

A turn is named by its *anchor*: the event id of the message before its question ("" for the first
turn). Every version of a turn follows the same history, so they share it, and a version's tail put
back after that history reads as it did (the runtime's event ids and parent links are kept).
"""

from __future__ import annotations

from collections.abc import Iterable

from agent_orchestrator.errors import InvalidInputError, NotFoundError
from agent_orchestrator.sessions.history.fork import complete_lines, find_cut
from agent_orchestrator.sessions.history.transcript import TranscriptMessage


def anchors(messages: Iterable[TranscriptMessage]) -> dict[str, str]:
    """Each logged question's anchor, by the question's event id (kept messages without an event id
    are not in the log: they neither have versions nor anchor one)."""
    found: dict[str, str] = {}
    before = ""
    for message in messages:
        if not message.event_id:
            continue
        if message.role == "user":
            found[message.event_id] = before
        before = message.event_id
    return found


def question(messages: list[TranscriptMessage], event_id: str) -> tuple[int, TranscriptMessage]:
    """The question with ``event_id`` and its place in the conversation; only a question has versions."""
    for index, message in enumerate(messages):
        if message.event_id == event_id:
            if message.role != "user":
                raise InvalidInputError("Only a question you asked has versions.")
            return index, message
    raise NotFoundError("No such message in this conversation.")


def split_before(raw: bytes, event_id: str) -> tuple[bytes, bytes]:
    """The log before the question ``event_id`` and its tail from the question on (whole lines: a
    torn last line after a crash is left out)."""
    offset = find_cut(raw, event_id, before=True).offset
    return raw[:offset], raw[offset : complete_lines(raw)]

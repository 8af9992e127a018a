"""Cutting a fork's event log: at a message's whole turn or just before it, with the new id."""

import json

import pytest

from agent_orchestrator.errors import InvalidInputError, NotFoundError
from agent_orchestrator.sessions.history.fork import find_cut, forked_log
from agent_orchestrator.sessions.history.transcript import parse_events


def _log() -> bytes:
    def line(kind: str, event_id: str, **data: object) -> str:
        return json.dumps(
            {"type": kind, "data": data, "id": event_id, "timestamp": "t"}, separators=(",", ":")
        )

    lines = [
        line("session.start", "start", sessionId="parent"),
        line("user.message", "u1", content="one"),
        line("assistant.message", "a1a", content="", toolRequests=[{"name": "t"}]),
        line("assistant.message", "a1", content="answer one"),
        line("assistant.turn_end", "t1"),
        line("user.message", "u2", content="two"),
        line("assistant.message", "a2", content="answer two"),
        line("assistant.turn_end", "t2"),
    ]
    return ("\n".join(lines) + "\n").encode() + b'{"type":"user.mess'  # a torn last line


def _contents(log: bytes) -> list[str]:
    return [message.content for message in parse_events(log.splitlines())]


def test_a_fork_keeps_the_whole_turn_of_the_message_and_takes_the_new_id() -> None:
    raw = _log()
    for event_id in ("u1", "a1"):
        forked = forked_log(raw, find_cut(raw, event_id, before=False), "child-1")
        assert _contents(forked) == ["one", "answer one"]
    first = json.loads(forked.splitlines()[0])
    assert first["type"] == "session.start" and first["data"]["sessionId"] == "child-1"
    at_end = forked_log(raw, find_cut(raw, "a2", before=False), "child-2")
    assert _contents(at_end) == ["one", "answer one", "two", "answer two"]
    assert at_end.endswith(b"\n")  # the torn line is not carried over


def test_a_fork_before_a_question_keeps_what_came_before_it() -> None:
    raw = _log()
    assert _contents(forked_log(raw, find_cut(raw, "u2", before=True), "child")) == ["one", "answer one"]
    with pytest.raises(InvalidInputError):
        find_cut(raw, "a1", before=True)


def test_an_unknown_or_non_message_event_is_not_found() -> None:
    raw = _log()
    for event_id in ("nope", "t1", "start", ""):
        with pytest.raises(NotFoundError):
            find_cut(raw, event_id, before=False)

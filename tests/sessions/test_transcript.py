"""Reading the visible conversation out of the runtime's event log."""

import json

from agent_orchestrator.sessions.transcript import TranscriptMessage, parse_events


def _line(kind: str, **data) -> bytes:
    return json.dumps({"type": kind, "data": data, "timestamp": "t"}, separators=(",", ":")).encode()


def test_user_and_assistant_messages_in_order_without_bookkeeping_events():
    lines = [
        _line("session.start", sessionId="s"),
        _line("user.message", content="Hi"),
        _line("assistant.turn_start", turnId="0"),
        _line("session.usage_record", usage={}),
        _line("assistant.message", content="", toolRequests=[{"name": "x"}]),
        _line("assistant.message", content="Hello!"),
        _line("assistant.turn_end", turnId="0"),
    ]
    assert parse_events(lines) == [
        TranscriptMessage("user", "Hi", "t"),
        TranscriptMessage("assistant", "Hello!", "t"),
    ]


def test_a_turn_cut_off_by_a_crash_is_flagged_interrupted_and_a_torn_line_is_ignored():
    lines = [
        _line("user.message", content="one"),
        _line("assistant.message", content="answer one"),
        _line("assistant.turn_end"),
        _line("user.message", content="two"),
        _line("assistant.turn_start"),
        b'{"type":"assistant.message","data":{"content":"half a li',
    ]
    messages = parse_events(lines)
    assert [m.content for m in messages] == ["one", "answer one", "two"]
    assert [m.interrupted for m in messages] == [False, False, True]


def test_a_retried_turn_keeps_the_interrupted_flag_on_the_first_attempt():
    lines = [
        _line("user.message", content="two"),
        _line("session.resume"),
        _line("user.message", content="two"),
        _line("assistant.message", content="answer two"),
    ]
    assert [m.interrupted for m in parse_events(lines)] == [True, False, False]

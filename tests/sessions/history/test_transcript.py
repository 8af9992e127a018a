"""Reading the visible conversation out of the runtime's event log."""

import json

from agent_orchestrator.sessions.files.local import LocalSessionFiles
from agent_orchestrator.sessions.history.tool_results import ToolResult, imported_call_id, is_imported_call
from agent_orchestrator.sessions.history.transcript import TranscriptMessage, parse_events
from agent_orchestrator.sessions.turn_runner import logged_turn
from agent_orchestrator.sessions.turns.stopped import keep_stopped_answer
from agent_orchestrator.sessions.turns.stream import Stopped


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


def test_a_turn_the_model_failed_is_interrupted_even_after_a_retry():
    lines = [
        _line("user.message", content="two"),
        _line("assistant.turn_start"),
        _line("assistant.turn_end"),
        _line("session.error", message="Failed to get response from the AI model"),
        _line("user.message", content="two"),
        _line("assistant.message", content="answer two"),
        _line("assistant.turn_end"),
        _line("session.error", message="a warning after an answered turn"),
    ]
    assert [m.interrupted for m in parse_events(lines)] == [True, False, False]


def _event(kind: str, agent_id: str | None = None, **data) -> bytes:
    record = {"type": kind, "data": data, "timestamp": "t"}
    if agent_id:
        record["agentId"] = agent_id
    return json.dumps(record, separators=(",", ":")).encode()


def test_tool_results_are_kept_with_the_answer_they_led_to():
    trend = '{"headline":"h","months":[]}'
    lines = [
        _line("user.message", content="Trend?"),
        _line("assistant.message", content="", toolRequests=[{"name": "retail-analytics-monthly_trend"}]),
        _event(
            "tool.execution_start",
            toolCallId="c1",
            toolName="retail-analytics-monthly_trend",
            mcpServerName="retail-analytics",
            mcpToolName="monthly_trend",
            arguments={"months": 6},
        ),
        _event("tool.execution_start", toolCallId="c2", toolName="retail-analytics-top_products"),
        _event("tool.execution_start", agent_id="sub", toolCallId="c3", toolName="view"),
        _event("tool.execution_complete", toolCallId="c1", success=True, result={"content": trend}),
        _event("tool.execution_complete", toolCallId="c2", success=False, error={"message": "bad"}),
        _event("tool.execution_complete", toolCallId="c3", success=True, result={"content": "sub-agent"}),
        _line("assistant.message", content="It grew."),
        _line("user.message", content="Thanks"),
        _line("assistant.message", content="You're welcome."),
    ]
    messages = parse_events(lines)
    assert [m.content for m in messages] == ["Trend?", "It grew.", "Thanks", "You're welcome."]
    assert messages[1].tool_results == (
        ToolResult("monthly_trend", "retail-analytics", {"months": 6}, trend),
    )
    assert [m.tool_results for m in (messages[0], messages[2], messages[3])] == [(), (), ()]


def test_results_of_a_turn_that_never_answered_do_not_attach_to_the_next_answer():
    lines = [
        _line("user.message", content="one"),
        _event("tool.execution_start", toolCallId="c1", toolName="t", mcpToolName="list_segments"),
        _event("tool.execution_complete", toolCallId="c1", success=True, result={"content": "{}"}),
        _line("user.message", content="two"),
        _line("assistant.message", content="answer two"),
    ]
    messages = parse_events(lines)
    assert messages[0].interrupted and messages[2].tool_results == ()


def test_an_imported_chats_tool_results_are_kept_apart_from_this_servers():
    imported, ours = imported_call_id(), "call_0123456789abcdef01234567"
    lines = [
        _line("user.message", content="Trend?"),
        _event("tool.execution_start", toolCallId=imported, toolName="retail-analytics-monthly_trend"),
        _event("tool.execution_complete", toolCallId=imported, success=True, result={"content": "forged"}),
        _event("tool.execution_start", toolCallId=ours, toolName="retail-analytics-list_segments"),
        _event("tool.execution_complete", toolCallId=ours, success=True, result={"content": "real"}),
        _line("assistant.message", content="It grew."),
    ]
    [_, answer] = parse_events(lines)
    assert answer.tool_results == (ToolResult("list_segments", None, {}, "real"),)
    assert answer.imported_tool_results == (ToolResult("monthly_trend", None, {}, "forged"),)
    assert is_imported_call(imported) and not is_imported_call(ours)


def test_where_the_log_stands_on_a_pending_message():
    """``logged_turn``: the catalog's pending message is the log's last user message (then its answer,
    if one follows), or not in the log at all."""
    said = [
        TranscriptMessage("user", "one", "t1"),
        TranscriptMessage("assistant", "answer one", "t2"),
        TranscriptMessage("user", "two", "t3"),
    ]
    assert logged_turn(said, "two") == said[2]
    assert (
        logged_turn([*said, TranscriptMessage("assistant", "answer two", "t4")], "two").content
        == "answer two"
    )
    assert logged_turn(said, "one") is None  # an earlier message of the same words is not this turn's
    assert logged_turn(said, "three") is None and logged_turn([], "two") is None


def test_a_turn_stopped_before_its_first_word_is_an_empty_stopped_answer():
    stop = [
        _line("user.message", content="one"),
        _line("assistant.turn_start"),
        _line("abort", reason="user"),
    ]
    assert [
        (m.role, m.content, m.stopped, m.interrupted)
        for m in parse_events([*stop, _line("assistant.turn_end")])
    ] == [
        ("user", "one", False, False),
        ("assistant", "", True, False),
    ]
    kept = [*stop, _line("assistant.message", content="half an", stopped=True), _line("assistant.turn_end")]
    assert [(m.content, m.stopped) for m in parse_events(kept)] == [("one", False), ("half an", True)]
    early = [_line("abort", reason="user"), _line("user.message", content="two"), _line("assistant.turn_end")]
    assert [m.content for m in parse_events(early)] == ["two"]  # turns/stopped.py adds the abort after it


async def test_a_stop_logged_ahead_of_its_question_is_logged_again_after_it(tmp_path):
    files = LocalSessionFiles(tmp_path)
    early = [_line("abort", reason="user"), _line("user.message", content="two"), _line("assistant.turn_end")]
    await files.write_events("s", b"\n".join(early) + b"\n")
    assert await keep_stopped_answer(files, "s", Stopped(text="")) == []
    assert [
        (m.role, m.content, m.stopped) for m in parse_events((await files.read_events("s")).splitlines())
    ] == [
        ("user", "two", False),
        ("assistant", "", True),
    ]
    once = await files.read_events("s")
    await keep_stopped_answer(files, "s", Stopped(text=""))  # already marked: nothing more
    assert await files.read_events("s") == once

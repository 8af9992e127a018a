"""What an uploaded file holds is the uploader's choice: every bad one is one InvalidInputError (422)
naming what is wrong and where, never another exception, a 500 (docs/architecture.md#export-and-import)."""

import json
import math

import pytest

from agent_orchestrator.errors import InvalidInputError
from agent_orchestrator.sessions.exchange import parse_import


def _chatgpt(mapping: dict, current: object = "b", title: str = "Holiday") -> bytes:
    return json.dumps([{"title": title, "mapping": mapping, "current_node": current}]).encode()


def _message(role: str = "user", text: str = "hello", **fields: object) -> dict:
    return {"author": {"role": role}, "content": {"content_type": "text", "parts": [text]}, **fields}


def _tree(message: object) -> dict:
    return {
        "a": {"id": "a", "message": None, "parent": None, "children": ["b"]},
        "b": {"id": "b", "message": message, "parent": "a", "children": []},
    }


def _ours(*lines: dict) -> bytes:
    start = {"type": "session.start", "id": "s", "data": {}}
    events = "\n".join(json.dumps(line) for line in (start, *lines))
    return json.dumps({"format": 1, "session": {"title": "Mine"}, "events": events}).encode()


def _user(**changes: object) -> dict:
    """A user message as the runtime logs it, with ``changes``."""
    return {
        "type": "user.message",
        "id": "u",
        "timestamp": "2024-01-01T00:00:00.000Z",
        "data": {"content": "hi"},
    } | changes


@pytest.mark.parametrize(
    ("data", "detail"),
    [
        (b"[" * 100_000, "The file nests too deeply"),
        (
            _ours({"type": "user.message", "id": "u", "data": {"deep": [[[[[[]]]]]]}})
            .replace(b"[[[[[[", b"[" * 50_000)
            .replace(b"]]]]]]", b"]" * 50_000),
            "Event log line 2 nests too deeply",
        ),
        (
            _chatgpt({"a": "not a node"}, current="a"),
            "Conversation 1 ('Holiday') is malformed: node 'a' is not an object",
        ),
        (
            _chatgpt({"a": ["x"]}, current=None),
            "Conversation 1 ('Holiday') is malformed: node 'a' is not an object",
        ),
        (_chatgpt(_tree("text")), "node 'b' has a message that is not an object"),
        (_chatgpt(_tree(_message(author="me"))), "node 'b' has an author that is not an object"),
        (_chatgpt(_tree(_message(content=["hello"]))), "node 'b' has content that is not an object"),
        (_chatgpt(_tree(_message(create_time=1e300))), "node 'b' has a create_time that is no time (1e+300)"),
        (_chatgpt(_tree(_message(create_time=math.nan))), "node 'b' has a create_time that is no time (nan)"),
        (_chatgpt(_tree(_message(create_time=-1e15))), "node 'b' has a create_time that is no time"),
        (_chatgpt(_tree(_message()), current=["b"]), "its current_node is not a node id"),
        (
            _chatgpt({**_tree(_message()), "b": {"message": _message(), "parent": ["a"]}}),
            "node 'b' has a parent that is not a node id",
        ),
        (_ours(_user(data="hi")), "Event log line 2 is not a runtime event (its data is not an object)"),
        (
            _ours(_user(data={"content": 7})),
            "Event log line 2 is not a runtime event (data.content is not a string)",
        ),
        (
            _ours(_user(data={"content": "a\x00b"})),
            "Event log line 2 is not a runtime event (data.content contains a NUL character (U+0000))",
        ),
        (_chatgpt(_tree(_message(text="a\x00b"))), "node 'b' has text with a NUL character (U+0000)"),
        (_ours(_user(timestamp=7)), "Event log line 2 is not a runtime event (timestamp is not a string)"),
        (_ours(_user(id=7)), "Event log line 2 is not a runtime event (no type or id)"),
        (
            _ours({"type": "tool.execution_complete", "id": "t", "data": {"toolCallId": "c", "result": "x"}}),
            "Event log line 2 is not a runtime event (data.result is not an object)",
        ),
    ],
)
def test_a_bad_file_is_one_error_naming_what_is_wrong(data: bytes, detail: str) -> None:
    with pytest.raises(InvalidInputError) as raised:
        parse_import(data)
    assert detail in str(raised.value)


def test_a_good_chatgpt_message_keeps_its_time() -> None:
    [conversation] = parse_import(_chatgpt(_tree(_message(create_time=1_700_000_000.5))))
    assert conversation.events[0]["timestamp"] == "2023-11-14T22:13:20.500Z"

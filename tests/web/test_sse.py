"""Server-sent event frames: the exact bytes the web UI, the tests and OpenAI clients parse."""

import json

from agent_orchestrator.sse import DONE, frame


def test_a_named_event_of_json_is_one_event_line_one_data_line_and_a_blank_line() -> None:
    data = json.dumps({"text": "Grüße"}, ensure_ascii=False)
    assert frame(data, event="delta") == 'event: delta\ndata: {"text": "Grüße"}\n\n'


def test_an_openai_stream_ends_with_data_done() -> None:
    assert frame(DONE) == "data: [DONE]\n\n"


def test_each_line_of_the_data_is_a_data_line_of_its_own() -> None:
    assert frame("one\ntwo\r\nthree\rfour") == "data: one\ndata: two\ndata: three\ndata: four\n\n"


def test_only_the_specs_line_ends_split_the_data() -> None:
    """JSON with ensure_ascii=False keeps U+2028 raw: it is data, not a line end, for SSE."""
    data = json.dumps({"text": "a\u2028b"}, ensure_ascii=False)
    assert frame(data) == f"data: {data}\n\n"

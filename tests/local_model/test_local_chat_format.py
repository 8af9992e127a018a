"""Messages -> prompt (with the model's real template) and generated text -> OpenAI tool calls."""

import json

import pytest

from agent_orchestrator.local_model.chat_format import (
    ChatFormatError,
    ChatTemplate,
    TextDelta,
    ToolCall,
    ToolCallStreamParser,
    answer_after_tool_results,
    normalize_messages,
    split_tool_calls,
    validate_tools,
)
from agent_orchestrator.local_model.server import LocalModelServer

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_sales",
            "description": "Total sales for a region",
            "parameters": {"type": "object", "properties": {"region": {"type": "string"}}},
        },
    }
]
CALL = '<tool_call>\n{"name": "get_sales", "arguments": {"region": "North"}}\n</tool_call>'


# --- normalisation ---


def test_null_and_part_list_contents_become_strings() -> None:
    out = normalize_messages(
        [
            {
                "role": "developer",
                "content": [{"type": "text", "text": "Be "}, {"type": "text", "text": "brief."}],
            },
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "get_sales", "arguments": '{"region": "N"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "42"}]},
        ]
    )
    assert out[0] == {"role": "system", "content": "Be brief."}
    assert out[2]["content"] == ""
    assert out[2]["tool_calls"][0]["function"] == {"name": "get_sales", "arguments": {"region": "N"}}
    assert out[3] == {"role": "tool", "content": "42", "tool_call_id": "c1"}


def test_unparseable_arguments_are_kept_verbatim() -> None:
    out = normalize_messages(
        [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"function": {"name": "f", "arguments": "{oops"}}],
            }
        ]
    )
    assert out[0]["tool_calls"][0]["function"]["arguments"] == "{oops"


@pytest.mark.parametrize(
    ("messages", "match"),
    [
        ([], "at least one"),
        ([{"role": "robot", "content": "x"}], "role"),
        ([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}], "image_url"),
        ([{"role": "user", "content": 5}], "content"),
        ([{"role": "assistant", "content": None, "tool_calls": [{"function": {}}]}], "function.name"),
    ],
)
def test_invalid_messages_are_client_errors(messages: list, match: str) -> None:
    with pytest.raises(ChatFormatError, match=match):
        normalize_messages(messages)


def test_tools_must_be_named_functions() -> None:
    assert validate_tools(None) is None
    assert validate_tools(TOOLS)[0]["function"]["name"] == "get_sales"
    with pytest.raises(ChatFormatError, match="function tool"):
        validate_tools([{"type": "code_interpreter"}])
    with pytest.raises(ChatFormatError, match="name"):
        validate_tools([{"type": "function", "function": {"description": "x"}}])


def test_answered_tool_calls_are_folded_and_tools_withheld_for_the_answer() -> None:
    """The 0.5B model repeats its own call instead of answering when it sees it in the history."""
    call = {"id": "c1", "type": "function", "function": {"name": "get_sales", "arguments": "{}"}}
    history = normalize_messages(
        [
            {"role": "user", "content": "Sales?"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": "42"},
        ]
    )

    messages, tools = answer_after_tool_results(history, validate_tools(TOOLS))

    assert [m["role"] for m in messages] == ["user", "tool"]
    assert tools is None

    history += normalize_messages(
        [
            {"role": "assistant", "content": "It is 42."},
            {"role": "user", "content": "And the North?"},
            {"role": "assistant", "content": "Let me look.", "tool_calls": [call]},
        ]
    )
    messages, tools = answer_after_tool_results(history, validate_tools(TOOLS))

    assert [m["role"] for m in messages] == ["user", "tool", "assistant", "user", "assistant"]
    assert messages[-1]["tool_calls"]  # not answered yet: kept as is
    assert tools is not None


def test_without_tools_tags_are_plain_text() -> None:
    parser = ToolCallStreamParser(None, passthrough=True)
    assert parser.feed(CALL) == [TextDelta(CALL)]
    assert parser.finish() == []


# --- complete-text parsing ---


def test_tool_call_block_becomes_an_openai_tool_call() -> None:
    content, calls = split_tool_calls(CALL)

    assert content is None
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [("get_sales", {"region": "North"})]
    assert calls[0].id.startswith("call_")
    assert calls[0].to_openai(index=0)["function"]["name"] == "get_sales"


def test_several_calls_and_surrounding_text() -> None:
    content, calls = split_tool_calls(f"Let me check.\n{CALL}\n{CALL.replace('North', 'South')}\n")

    assert content == "Let me check."
    assert [json.loads(c.arguments)["region"] for c in calls] == ["North", "South"]


def test_string_arguments_are_accepted() -> None:
    _, calls = split_tool_calls('<tool_call>{"name": "f", "arguments": "{\\"a\\": 1}"}</tool_call>')
    assert json.loads(calls[0].arguments) == {"a": 1}


@pytest.mark.parametrize(
    "text",
    [
        "<tool_call>\n{not json}\n</tool_call>",
        '<tool_call>{"arguments": {}}</tool_call>',
        '<tool_call>{"name": "f", "arguments": [1, 2]}</tool_call>',
        '<tool_call>\n{"name": "f", "argu',  # cut off by max_tokens
    ],
)
def test_malformed_tool_json_stays_text(text: str) -> None:
    content, calls = split_tool_calls(text)
    assert calls == []
    assert content == text


def test_unclosed_but_complete_call_at_the_end_counts() -> None:
    _, calls = split_tool_calls('<tool_call>\n{"name": "f", "arguments": {}}\n')
    assert [c.name for c in calls] == ["f"]


def test_bare_json_call_is_recognised_only_for_offered_tools() -> None:
    fenced = '```json\n{"name": "get_sales", "arguments": {"region": "North"}}\n```'
    assert split_tool_calls(fenced, TOOLS)[1][0].name == "get_sales"
    assert split_tool_calls('{"name": "get_sales", "arguments": {}}', TOOLS)[1][0].name == "get_sales"
    other = [{"type": "function", "function": {"name": "other_tool"}}]
    assert split_tool_calls(fenced, other) == (fenced, [])
    assert split_tool_calls(fenced) == (fenced, [])
    code = "```python\nprint({'name': 1})\n```"
    assert split_tool_calls(code, TOOLS) == (code, [])


def test_bare_json_echoing_a_tool_result_is_not_a_call() -> None:
    """After a tool result the 0.5B model echoed it as {"name": tool, "arguments": <result>}; taking
    that for a new call (with undeclared arguments) would send the agent round in a loop."""
    echo = '{"name": "get_sales", "arguments": {"region": "North", "total_sales": 48213.5}}'
    assert split_tool_calls(echo, TOOLS) == (echo, [])
    required = [{"type": "function", "function": {"name": "f", "parameters": {"required": ["x"]}}}]
    assert split_tool_calls('{"name": "f", "arguments": {}}', required)[1] == []
    assert split_tool_calls('{"name": "f", "arguments": {"x": 1, "y": 2}}', required)[1][0].name == "f"


# --- incremental parsing ---


def feed_all(parser: ToolCallStreamParser, pieces: list[str]) -> list[list]:
    return [parser.feed(p) for p in pieces] + [parser.finish()]


def test_plain_text_streams_immediately() -> None:
    parser = ToolCallStreamParser()
    assert parser.feed("Hello") == [TextDelta("Hello")]
    assert parser.feed(", world") == [TextDelta(", world")]
    assert parser.finish() == []


def test_text_is_held_only_from_a_possible_tag_start() -> None:
    parser = ToolCallStreamParser()
    assert parser.feed("Sure <tool") == [TextDelta("Sure ")]
    assert parser.feed("bar>") == [TextDelta("<toolbar>")]  # not a tag after all: released


def test_incremental_matches_complete_parsing_for_any_split() -> None:
    text = f"Checking.\n{CALL}\nand {{broken <tool_call>x</tool_call> end"
    content, calls = split_tool_calls(text)
    for size in (1, 2, 3, 7, 50):
        parser = ToolCallStreamParser()
        events = [
            e
            for batch in feed_all(parser, [text[i : i + size] for i in range(0, len(text), size)])
            for e in batch
        ]
        assert "".join(e.text for e in events if isinstance(e, TextDelta)) == content
        assert [c.arguments for c in events if isinstance(c, ToolCall)] == [c.arguments for c in calls]


def test_whitespace_between_calls_is_dropped() -> None:
    parser = ToolCallStreamParser()
    events = [e for batch in feed_all(parser, [CALL, "\n", CALL, "\n"]) for e in batch]
    assert [type(e) for e in events] == [ToolCall, ToolCall]


def test_bare_json_is_held_to_the_end_when_tools_are_offered() -> None:
    parser = ToolCallStreamParser(TOOLS)
    assert parser.feed('{"name": "get_sales",') == []
    assert parser.feed(' "arguments": {}}') == []
    assert [e.name for e in parser.finish()] == ["get_sales"]

    parser = ToolCallStreamParser(TOOLS)
    assert parser.feed("Total") == [TextDelta("Total")]  # ordinary answers are not delayed


# --- the model's own template (real GGUF metadata) ---


@pytest.fixture(scope="module")
def template(local_server: LocalModelServer) -> ChatTemplate:
    bos, eos = local_server.engine.special_tokens
    return ChatTemplate(local_server.engine.chat_template, bos_token=bos, eos_token=eos)


@pytest.mark.real_model
def test_template_renders_chatml_with_generation_prompt(template: ChatTemplate) -> None:
    prompt = template.render(
        normalize_messages([{"role": "system", "content": "S"}, {"role": "user", "content": "U"}])
    )
    assert prompt == "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU<|im_end|>\n<|im_start|>assistant\n"


@pytest.mark.real_model
def test_template_renders_tools_calls_and_results(template: ChatTemplate) -> None:
    messages = normalize_messages(
        [
            {"role": "system", "content": "You analyse retail data."},
            {"role": "user", "content": "Sales in the North?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "get_sales", "arguments": '{"region": "North"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": '{"total": 1234}'},
        ]
    )
    prompt = template.render(messages, validate_tools(TOOLS))

    assert prompt.startswith("<|im_start|>system\nYou analyse retail data.\n\n# Tools")
    assert '"name": "get_sales"' in prompt.split("</tools>\n")[0]
    # arguments rendered as an object, the way the model itself writes them
    assert '<tool_call>\n{"name": "get_sales", "arguments": {"region": "North"}}\n</tool_call>' in prompt
    assert '<|im_start|>user\n<tool_response>\n{"total": 1234}\n</tool_response><|im_end|>' in prompt
    assert prompt.endswith("<|im_start|>assistant\n")

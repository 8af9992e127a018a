"""Titles made by code (docs/architecture.md#titles): the first message without its lead-in, and the
reading a tool stated for the first answer."""

import json

import pytest

from agent_orchestrator.sessions.history.tool_results import ToolResult
from agent_orchestrator.sessions.turns.titles import TITLE_CHARS, title_from_answer, title_from_message


@pytest.mark.parametrize(
    ("message", "title"),
    [
        ("Hi, can you tell me which products sell best in spring?", "Which products sell best in spring"),
        ("hello! could you please show me revenue by country", "Revenue by country"),
        ("I'd like to know how many customers we lost", "How many customers we lost"),
        ("Plan the spring campaign", "Plan the spring campaign"),
        ("  what\tabout\n\nGermany??  ", "What about Germany"),
        ("hi", "Hi"),  # nothing but a greeting stays itself
        ("?", ""),  # nothing to name it by: it stays "New chat"
    ],
)
def test_a_first_message_becomes_a_short_title(message: str, title: str) -> None:
    assert title_from_message(message) == title


def test_a_long_message_is_cut_at_a_word() -> None:
    title = title_from_message("Compare " + "very " * 30 + "long things")
    assert len(title) <= TITLE_CHARS and title.endswith("very…")


def _result(content: object) -> ToolResult:
    text = content if isinstance(content, str) else json.dumps(content)
    return ToolResult("analyze_sales", "retail-analytics", {}, text)


def test_the_first_reading_a_tool_stated_names_the_chat() -> None:
    results = (
        _result("plain text"),
        _result({"answered": False}),
        _result({"reading": "revenue by country, 2011", "answer": "…"}),
        _result({"reading": "Orders, France"}),
    )
    assert title_from_answer(results) == "Revenue by country, 2011"
    assert title_from_answer((_result(["a list"]), _result({"reading": "  "}))) is None
    assert title_from_answer(()) is None

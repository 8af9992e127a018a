"""The figure a question asks for, read out of a tool result (``tool_focus``)."""

from __future__ import annotations

import json

import pytest

from agent_orchestrator.local_model.lexicon import NEUTRAL, Lexicon
from agent_orchestrator.local_model.tool_focus import Focus
from agent_orchestrator.local_model.tool_focus import focus as find_focus
from agent_orchestrator.local_model.tool_results import render_result
from agent_orchestrator.mcp_server.lexicon import RETAIL


def focus(
    question: str, content: str, context: str = "", names: dict | None = None, lexicon: Lexicon = RETAIL
) -> Focus | None:
    """The lookup as the retail app's server makes it: with the retail tools' words."""
    return find_focus(question, content, context, names, lexicon)


def _segment(name: str, customers: int, share: float, revenue: float, per_customer: float) -> dict:
    return {
        "segment": name,
        "customers": customers,
        "share": share,
        "revenue": revenue,
        "revenue_share": 0.2,
        "orders": 900,
        "avg_order_value": 140.2,
        "revenue_per_customer": per_customer,
    }


SEGMENTS = json.dumps(
    {
        "headline": "Segments: …",
        "segments": [
            _segment("High Value", 1000, 0.2, 2_332_509.07, 2332.51),
            _segment("Regular", 1383, 0.2766, 733_656.57, 530.48),
            _segment("New", 276, 0.0552, 12_000.0, 43.48),
        ],
        "all": {"customers": 5000, "revenue": 3_900_000.0, "avg_order_value": 151.0},
    }
)
TREND = json.dumps(
    {
        "headline": "…",
        "filters": {"country": "Germany"},
        "months": [
            {"month": "2024-04", "revenue": 900.0, "orders": 20, "buyers": 10},
            {"month": "2025-03", "revenue": 1000.5, "orders": 40, "buyers": 30},
            {"month": "2025-04", "revenue": 1200.0, "orders": 50, "buyers": 33},
        ],
    }
)


@pytest.mark.parametrize(
    ("question", "line"),
    [
        ("What did the High Value segment spend in total?", "High Value: revenue 2,332,509.07"),
        (
            "What's the average revenue per customer in the Regular segment?",
            "Regular: revenue per customer 530.48",
        ),
        ("What share of our customers is New?", "New: customers 276, share 0.0552 (5.5%)"),
        ("What's the AOV of Regular customers?", "Regular: avg order value 140.20"),
        ("What's our average order value?", "avg order value 151.00"),
    ],
)
def test_the_named_row_and_the_column_the_question_uses(question: str, line: str) -> None:
    assert (found := focus(question, SEGMENTS)) is not None
    assert found.line == line


def test_a_columns_synonyms_come_from_the_lexicon() -> None:
    """Without the retail words "spend" names no column; the field's own words and arithmetic do."""
    assert focus("What did the High Value segment spend in total?", SEGMENTS, lexicon=NEUTRAL) is None
    found = focus(
        "What's the average revenue per customer in the Regular segment?", SEGMENTS, lexicon=NEUTRAL
    )
    assert found is not None and found.line == "Regular: revenue per customer 530.48"


@pytest.mark.parametrize(
    ("question", "line"),
    [
        ("How many orders did we get in March 2025?", "2025-03: orders 40"),
        ("How many customers bought in April 2025?", "2025-04: buyers 33"),
        ("What was the revenue in March?", "2025-03: revenue 1,000.50"),
    ],
)
def test_months_are_named_the_way_people_write_them(question: str, line: str) -> None:
    assert (found := focus(question, TREND)) is not None
    assert found.line == line


@pytest.mark.parametrize(
    "question",
    [
        "Which country is customer 24021 in?",  # the answer is a name, not a figure
        "How many segments are there?",  # no column asked for
        "What was the revenue in April?",  # April of which year: not ours to choose
        "Tell me about Germany.",
    ],
)
def test_no_line_when_no_single_figure_is_asked_for(question: str) -> None:
    assert focus(question, SEGMENTS) is None
    assert focus(question, TREND) is None


def test_a_follow_up_takes_its_column_from_the_question_before() -> None:
    previous = "What's the average revenue per customer in the Regular segment?"

    found = focus("And for New?", SEGMENTS, previous)

    assert found is not None
    assert found.line == "New: revenue per customer 43.48"


def test_results_without_a_lookup_get_no_line() -> None:
    assert focus("What were the sales?", '{"sales": 48213.5}') is None
    assert focus("What were the sales?", "MCP server error: no such table") is None


def test_the_line_leads_the_rendered_result_and_adds_no_figure() -> None:
    found = focus("What did the High Value segment spend in total?", SEGMENTS)
    assert found is not None
    rendered = render_result(SEGMENTS, found.line)

    assert rendered.splitlines()[0] == "Asked for: High Value: revenue 2,332,509.07."
    assert "2,332,509.07" in rendered.split("\n", 1)[1]


@pytest.mark.parametrize(
    ("question", "content", "line"),
    [
        ("Which of those months was the strongest?", TREND, "highest by revenue: 2025-04 (revenue 1,200.00)"),
        ("Which month had the fewest orders?", TREND, "lowest by orders: 2024-04 (orders 20)"),
        (
            "Which segment has the most customers?",
            SEGMENTS,
            "highest by customers: Regular (customers 1,383)",
        ),
        (
            "Which segment has the highest revenue per customer?",
            SEGMENTS,
            "highest by revenue per customer: High Value (revenue per customer 2,332.51)",
        ),
    ],
)
def test_which_row_leads_a_column(question: str, content: str, line: str) -> None:
    assert (found := focus(question, content)) is not None
    assert found.line == line


def test_a_list_asked_for_is_no_single_leader() -> None:
    assert focus("Top 3 segments by revenue?", SEGMENTS) is None


def test_an_answer_states_the_focus_with_or_without_separators() -> None:
    spent = focus("What did the High Value segment spend in total?", SEGMENTS)
    strongest = focus("Which of those months was the strongest?", TREND)
    assert spent is not None and strongest is not None

    assert spent.stated_in("High Value customers spent $2,332,509.07.")
    assert spent.stated_in("They spent 2332509.07 in total.")
    assert not spent.stated_in("The High Value segment spent 733,656.57.")
    assert strongest.stated_in("April 2025 was the strongest month.")
    assert strongest.stated_in("The strongest was 2025-04.")
    assert not strongest.stated_in("March 2025 was the strongest.")


def test_a_superlative_about_other_things_than_the_rows_is_left_alone() -> None:
    summary = json.dumps(
        {
            "id": 24021,
            "revenue": 1441.68,
            "orders": 17,
            "recency_days": 12,
            "top_products": [
                {"product": "RED MUG", "revenue": 80.0},
                {"product": "BLUE MUG", "revenue": 60.0},
            ],
        }
    )

    assert focus("What was the most recent purchase of customer 24021?", summary) is None


def test_several_rows_asked_for_are_no_single_leader() -> None:
    products = json.dumps(
        {
            "by": "quantity",
            "products": [
                {"product": "RED MUG", "revenue": 80.0, "quantity": 9},
                {"product": "BLUE MUG", "revenue": 60.0, "quantity": 12},
            ],
        }
    )

    assert focus("What are our best-selling products?", products) is None
    found = focus("What is our best-selling product?", products)
    assert found is not None
    assert found.line == "highest by quantity: BLUE MUG (quantity 12)"


CUSTOMER = json.dumps(
    {
        "headline": "Customer 20079 is in the Regular segment and based in France.",
        "id": 20079,
        "country": "France",
        "segment": "Regular",
        "revenue": 900.5,
        "orders": 2,
        "avg_order_value": 130.67,
        "recency_days": 41,
    }
)
NAMES = {"segment": ["High Value", "Regular", "At Risk", "New"], "country": ["France", "Germany"]}


def test_names_are_not_column_words_and_yes_no_questions_ask_for_the_attribute_they_name() -> None:
    assert focus("Tell me the High Value status of customer 20079", CUSTOMER) is None
    spent = focus("What did customer 20079 of the High Value team spend?", CUSTOMER)
    assert spent is not None and spent.line == "revenue 900.50"
    is_high_value = focus("Is customer 20079 a High Value customer?", CUSTOMER, names=NAMES)
    assert is_high_value is not None and is_high_value.line == "segment Regular"
    assert not is_high_value.stated_in("No, customer 20079 is not a High Value customer.")
    assert is_high_value.stated_in("No: customer 20079 is Regular.")


@pytest.mark.parametrize(
    ("question", "line"),
    [
        ("Which country is customer 20079 based in?", "country France"),
        ("What is customer 20079's segment?", "segment Regular"),
        ("How many days has it been since 20079's last order?", "recency days 41"),
        ("How many orders has customer 20079 placed?", "orders 2"),
    ],
)
def test_a_field_the_question_names_is_the_one_asked_for(question: str, line: str) -> None:
    assert (found := focus(question, CUSTOMER, names=NAMES)) is not None
    assert found.line == line


def test_a_question_for_each_month_asks_for_a_list() -> None:
    assert focus("Give me Germany's order count for each month of Q1 2025.", TREND) is None
    assert focus("What were the orders per month?", TREND) is None

"""Tool results are shown to the model as numbered lines with numbers formatted as answers write them."""

import json

from agent_orchestrator.local_model.grounding import Sources, unsupported_claims
from agent_orchestrator.local_model.tool_results import describe_result, render_result, stated_count

RESULT = json.dumps(
    {
        "filters": {"segment": "At Risk", "country": "Germany"},
        "total": 137,
        "customers": [
            {"id": 20033, "country": "Germany", "revenue": 272286.09, "orders": 1200},
            {"id": 20169, "country": "Germany", "revenue": 1234.5, "orders": 3},
        ],
        "share": 0.4523,
    }
)


def test_rows_are_numbered_in_order_and_numbers_formatted() -> None:
    text = render_result(RESULT)
    assert "filters: segment At Risk, country Germany" in text
    assert "total 137" in text
    assert "customers (in this order):" in text
    assert "1. id 20033, country Germany, revenue 272,286.09, orders 1,200" in text
    assert "share 0.4523 (45.2%)" in text


def test_long_lists_are_cut_and_a_headline_leads() -> None:
    rows = [{"id": i} for i in range(30)]
    text = render_result(json.dumps({"headline": "30 customers match.", "customers": rows}))
    assert text.splitlines()[0] == "30 customers match."
    assert "10. id 9" in text and "11." not in text


def test_text_results_stay_as_they_are() -> None:
    assert render_result("no customer with id 9") == "no customer with id 9"


def test_the_answer_of_last_resort_is_the_data_itself_and_grounded() -> None:
    text = describe_result(RESULT, "find_customers")
    assert "find_customers tool returned" in text and "272,286.09" in text
    assert unsupported_claims(text, Sources.of([RESULT])) == []


def test_the_count_a_how_many_question_asks_for_is_read_off_the_headline() -> None:
    sales = "Revenue 1,234.00 from 1,544 orders by 269 customers (33 units) (country France)."
    assert stated_count("How many orders came from France?", sales) == "1544"
    assert stated_count("How many different customers bought in France?", sales) == "269"
    segments = "Segments: High Value 1,000 customers (20.0%); At Risk 2,489 customers (49.8%)."
    assert stated_count("How many customers are in the At Risk segment?", segments) == "2489"
    assert stated_count("How many customers are there?", segments) is None  # which one is not said
    assert stated_count("Who is our top customer?", sales) is None

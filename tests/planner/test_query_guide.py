"""The query guide on the real retail tools' schema: questions read into arguments, answers taken
from the tool's own text, and what cannot be read said instead of guessed."""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from agent_orchestrator.local_model.guide import GuidedAnswer, GuidedCall
from agent_orchestrator.mcp_server.server import build_server
from agent_orchestrator.planner import QueryGuide
from agent_orchestrator.retail.analysis import Query, answer_query
from agent_orchestrator.retail.generator import GeneratorConfig, generate_dataset

TOOL = "retail-analytics-analyze_sales"


@pytest.fixture(scope="module")
def retail_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate_dataset(
        tmp_path_factory.mktemp("planner") / "retail.sqlite",
        GeneratorConfig(customers=300, transactions=3000),
    )


@pytest.fixture(scope="module")
def tools(retail_db: Path) -> list[dict[str, Any]]:
    """The tools as the runtime offers them to the model (OpenAI function tools)."""
    listed = asyncio.run(build_server(retail_db).list_tools())
    return [
        {
            "type": "function",
            "function": {
                "name": f"retail-analytics-{t.name}",
                "description": t.description,
                "parameters": t.input_schema,
            },
        }
        for t in listed
    ]


class Chat:
    """A conversation driven by the guide and the real tool function, as the runtime would run it."""

    def __init__(self, guide: QueryGuide, tools: list[dict[str, Any]], db: Path) -> None:
        self.guide, self.tools, self.db = guide, tools, db
        self.messages: list[dict[str, Any]] = []

    def ask(self, question: str) -> tuple[dict[str, Any] | None, str | None]:
        self.messages.append({"role": "user", "content": question})
        step = self.guide.step(self.messages, self.tools)
        if isinstance(step, GuidedAnswer):
            self.messages.append({"role": "assistant", "content": step.text})
            return None, step.text
        if step is None:
            self.messages.append({"role": "assistant", "content": "(the model's own answer)"})
            return None, None
        assert isinstance(step, GuidedCall) and step.name == TOOL
        with sqlite3.connect(self.db) as conn:
            result = answer_query(conn, Query(**step.arguments))
        call = {
            "id": f"c{len(self.messages)}",
            "type": "function",
            "function": {"name": step.name, "arguments": json.dumps(step.arguments)},
        }
        self.messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        self.messages.append(
            {"role": "tool", "tool_call_id": call["id"], "content": json.dumps(result, default=str)}
        )
        answer = self.guide.step(self.messages, self.tools)
        assert isinstance(answer, GuidedAnswer)
        self.messages.append({"role": "assistant", "content": answer.text})
        return step.arguments, answer.text


@pytest.fixture
def chat(tools, retail_db) -> Chat:
    return Chat(QueryGuide(), tools, retail_db)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "What was France's revenue in 2025?",
            {"measure": "revenue", "countries": ["France"], "period": "2025"},
        ),
        ("revenue germany 2025", {"measure": "revenue", "countries": ["Germany"], "period": "2025"}),
        ("how mnay custmers in canada", {"measure": "customers", "countries": ["Canada"]}),
        (
            "Revenue apart from the UK in March 2025",
            {"exclude_countries": ["United Kingdom"], "period": "2025-03"},
        ),
        ("Which country has the lowest revenue?", {"group_by": "country", "order": "lowest", "limit": 1}),
        ("revenue on the 14th of March 2025", {"period": "2025-03-14"}),
        ("What share of revenue comes from France?", {"countries": ["France"], "share": True}),
        (
            "Revenue in March 2025 compared with February 2025",
            {"period": "2025-03", "compare": "previous_period"},
        ),
        ("December 2025 vs December 2024 sales", {"period": "2025-12", "compare": "year_before"}),
        ("top 5 products by units in Germany", {"group_by": "product", "measure": "units", "limit": 5}),
        ("best-selling product", {"group_by": "product", "measure": "units", "order": "highest"}),
        ("Which segment brings the most revenue?", {"group_by": "segment", "measure": "revenue", "limit": 1}),
        ("How many customers are in the At Risk segment?", {"measure": "customers", "segments": ["At Risk"]}),
        ("How many countries do we sell to?", {"measure": "countries"}),
        ("what was the return rate in 2025", {"measure": "cancellation_rate", "period": "2025"}),
        (
            "Which country has the highest cancellation rate?",
            {"measure": "cancellation_rate", "group_by": "country", "order": "highest", "limit": 1},
        ),
        ("repeat purchase rate in France", {"measure": "repeat_rate", "countries": ["France"]}),
        ("what's our growth rate in 2025?", {"period": "2025", "compare": "previous_period"}),
        (
            "how many customers only ordered once in 2025?",
            {"measure": "one_time_customers", "period": "2025"},
        ),
        (
            "Of everything we sold in 2025, what share came from France?",
            {"measure": "revenue", "countries": ["France"], "share": True},
        ),
        (
            "monthly orders for the last 6 months",
            {"group_by": "month", "measure": "orders", "period": "last 6 months"},
        ),
        ("tell me about France", {"measure": "overview", "countries": ["France"]}),
        # the measure asked for, not the one that qualifies it; a count of what is ranked means nothing
        (
            "What percentage of revenue comes from High Value customers?",
            {"measure": "revenue", "share": True},
        ),
        ("What share of our customers is New?", {"measure": "customers", "group_by": None, "share": True}),
        (
            "three biggest spenders among the At Risk customers",
            {"group_by": "customer", "measure": None, "limit": 3},
        ),
        ("What fraction of orders came from EIRE?", {"countries": ["Ireland"], "share": True}),
        (
            "what percent of sales is from outside the uk",
            {"exclude_countries": ["United Kingdom"], "share": True},
        ),
        ("Revenue excluding Germany and France", {"exclude_countries": ["Germany", "France"]}),
        (
            "sales in france vs germany",
            {"group_by": "country", "countries": ["France", "Germany"], "compare": None},
        ),
        ("How much did we sell on 5 March 2025?", {"measure": "revenue", "period": "2025-03-05"}),
        # a day or a month without its year: the data's latest one
        ("how did december do compared with november", {"period": "--12", "compare": "previous_period"}),
        ("what were sales on christmas day", {"period": "--12-25"}),
        (
            "what's the trend of orders over the last 12 months",
            {"group_by": "month", "period": "last 12 months"},
        ),
        ("avg order value per country", {"measure": "avg_order_value", "group_by": "country"}),
        ("wat was the revenu in germany in 2025", {"measure": "revenue", "countries": ["Germany"]}),
        # periods analysts name without dates: halves, to-date, the last week, since, one over another
        ("How much revenue did we make in H1 2025?", {"period": "2025-01-01..2025-06-30"}),
        ("units sold in the second half of 2025", {"period": "2025-07-01..2025-12-31"}),
        ("YTD sales in the UK", {"period": "latest year", "countries": ["United Kingdom"]}),
        ("orders last week", {"period": "last 7 days", "measure": "orders"}),
        ("revenue since March 2025", {"period": "2025-03-01.."}),
        ("revenue this quarter vs last quarter", {"period": "latest quarter", "compare": "previous_period"}),
        ("month over month orders change", {"period": "latest month", "compare": "previous_period"}),
        (
            "how did orders change from October to November 2025",
            {"period": "2025-11", "compare": "previous_period"},
        ),
        (
            "what are the 3 least popular countries by orders",
            {"measure": "orders", "order": "lowest", "limit": 3},
        ),
        ("Which is bigger, Spain or Italy?", {"group_by": "country", "countries": ["Spain", "Italy"]}),
        (
            "Revenue in April 2025 vs the same month last year?",
            {"period": "2025-04", "compare": "year_before"},
        ),
        ("What percentage of 2025's revenue came in October?", {"period": "2025-10", "share_of": "2025"}),
        ("How many customers bought from us on Thursday 25 April 2024?", {"period": "2024-04-25"}),
        ("Rank the customer segments by revenue, biggest first.", {"group_by": "segment"}),
        ("Leaving the UK out, what's our best-selling product?", {"exclude_countries": ["United Kingdom"]}),
        (
            "What was our total revenue from France over the whole period?",
            {"countries": ["France"], "period": None},
        ),
        ("How did we do in March 2025?", {"measure": "overview", "period": "2025-03"}),
        (
            "I'd like a quick profile of the PINK LANTERN",
            {"measure": "overview", "products": ["PINK LANTERN"]},
        ),
        ("Tell me more about the Regular customers", {"measure": "overview", "segments": ["Regular"]}),
        ("total sales, 2025, uk excluded", {"exclude_countries": ["United Kingdom"], "period": "2025"}),
        ("Germany vs France revenue in 2025", {"group_by": "country", "countries": ["Germany", "France"]}),
        ("Has revenue grown since last year?", {"period": "latest year", "compare": "previous_period"}),
        ("What part of our 2025 orders came from Germany?", {"share": True, "measure": "orders"}),
        ("whch country has the most oders", {"group_by": "country", "measure": "orders", "limit": 1}),
        ("totl ordrs 2024", {"measure": "orders", "period": "2024"}),
        ("revenue for Q4 2025 in the UK compared to Q3", {"period": "2025-Q4", "compare": "previous_period"}),
        # exclusions however they are phrased; country names as people write them, spaces and all
        ("orders in 2025 other than from Germany", {"exclude_countries": ["Germany"], "countries": None}),
        ("Top 5 countries by revenue leaving out the UK", {"exclude_countries": ["United Kingdom"]}),
        ("How many orders outside Great Britain?", {"exclude_countries": ["United Kingdom"]}),
        ("How big a slice of orders does Germany account for?", {"share": True, "measure": "orders"}),
        # a series ranked by its steps: each month against the month before, or a year earlier
        ("Which month had the biggest drop in revenue?", {"group_by": "month", "rank_by": "decline"}),
        (
            "Which month grew most compared with the same month a year earlier?",
            {"group_by": "month", "rank_by": "growth", "compare": "year_before"},
        ),
        ("the three months with the biggest revenue growth", {"group_by": "month", "limit": 3}),
        (
            "What share of 2025 orders came from customers outside the UK?",
            {"measure": "orders", "share": True},
        ),
        ("How much of December 2025's revenue came from Germany?", {"share": True, "period": "2025-12"}),
        ("How many orders came from countries other than the UK and Germany?", {"group_by": None}),
        ("revenue on Christmas Eve 2024", {"period": "2024-12-24", "products": None}),
        ("How many new customers did we win in 2025?", {"measure": "new_customers"}),
        ("revenue ex UK 2025", {"exclude_countries": ["United Kingdom"], "period": "2025"}),
        ("how many customers besides those in the UK", {"exclude_countries": ["United Kingdom"]}),
        (
            "revenue in the first quarter of 2025 against the last quarter of 2024",
            {"period": "2025-Q1", "compare": "previous_period"},
        ),
        ("How much of total revenue does the UK represent?", {"share": True, "products": None}),
        ("How much does Germany contribute to total units?", {"share": True, "measure": "units"}),
        ("tell me abt germany", {"measure": "overview", "countries": ["Germany"]}),
        ("give me the lowdown on spain", {"measure": "overview", "countries": ["Spain"]}),
        ("how did the netherlands perform last year", {"measure": "overview", "period": "latest year"}),
        ("What was revenue on the first of June 2025?", {"period": "2025-06-01"}),
        ("busiest day in 2025", {"group_by": "day", "limit": 1}),
        (
            "orders from customers who aren't High Value",
            {"exclude_segments": ["High Value"], "group_by": None},
        ),
        ("revenue excl. France", {"exclude_countries": ["France"]}),
        ("the u.k. revenue Jan 2025", {"countries": ["United Kingdom"], "period": "2025-01"}),
        ("no. of distinct buyers October 2025", {"measure": "customers", "period": "2025-10"}),
        ("h1 v h2 2025 revenue", {"period": "2025-07-01..2025-12-31", "compare": "previous_period"}),
        ("what portion of 2025 revenue came in q4", {"period": "2025-Q4", "share_of": "2025"}),
        ("how did oders from spain in 2025 stack up against the previous year", {"compare": "year_before"}),
        ("how much did we make outside of great britain in 2025", {"measure": "revenue"}),
        ("how much did the states buy from us in 2025?", {"countries": ["United States"]}),
        # halves and ranges stepped back from by whole months
        (
            "Did France grow between the first half of 2025 and the second half?",
            {"period": "2025-07-01..2025-12-31", "compare": "previous_period"},
        ),
        (
            "revenue from 2025-03-01 to 2025-05-31 vs the period before",
            {"period": "2025-03-01..2025-05-31", "compare": "previous_period"},
        ),
        # one customer left out; cancellations and returns left out rather than netted
        ("what's revenue from everyone except customer 20017", {"exclude_customer_ids": [20017]}),
        ("revenue in 2025 excluding cancellations", {"exclude_cancellations": True, "measure": "revenue"}),
        ("units sold in france not counting the returns", {"exclude_cancellations": True}),
        ("gross revenue 2025", {"exclude_cancellations": True, "period": "2025"}),
        ("2025 revenue, cancellations excluded", {"exclude_cancellations": True}),
        ("how many cancellations in 2025?", {"measure": "cancellations", "exclude_cancellations": None}),
        # "by" after a participle or before a kind of customer says who, not how to break it down
        ("total spend by regular customers to date", {"segments": ["Regular"], "group_by": None}),
        ("orders placed by new customers in 2025", {"measure": "orders", "segments": ["New"]}),
        # the unit of the period asked about is that period; a trading day is a day
        ("was 16 March 2025 a busy day? how much did we sell", {"period": "2025-03-16", "group_by": None}),
        ("slowest trading day in 2025-03", {"group_by": "day", "order": "lowest"}),
        ("compare the UK and the rest of the world in 2025", {"versus_rest": True, "compare": None}),
        ("how many orders did 20017 place in 2025", {"customer_id": 20017, "measure": "orders"}),
        ("anything interesting about customer 20017?", {"customer_id": 20017, "measure": "overview"}),
    ],
)
def test_questions_are_read_into_the_tools_arguments(chat, question, expected):
    arguments, answer = chat.ask(question)
    assert arguments is not None, answer
    assert {k: arguments.get(k) for k in expected} == expected


def test_the_answer_is_the_tools_own_text_opening_with_what_was_computed(chat, retail_db):
    _, answer = chat.ask("What was France's revenue in 2025?")
    with sqlite3.connect(retail_db) as conn:
        truth = conn.execute(
            "SELECT SUM(amount) FROM transactions WHERE country = 'France' AND invoiced_at LIKE '2025%'"
        ).fetchone()[0]
    assert answer == f"Revenue, France, 2025: {truth:,.2f}."


def test_a_follow_up_changes_only_what_it_names(chat):
    chat.ask("What was France's revenue in March 2025?")
    assert chat.ask("And in Germany?")[0] == {
        "measure": "revenue",
        "countries": ["Germany"],
        "period": "2025-03",
    }
    assert chat.ask("How many orders was that?")[0] == {
        "measure": "orders",
        "countries": ["Germany"],
        "period": "2025-03",
    }
    assert chat.ask("What about the month before?")[0]["period"] == "2025-02"  # type: ignore[index]


def test_in_percent_after_a_comparison_is_its_change_and_of_a_whole_is_a_share(chat):
    compared = {
        "measure": "revenue",
        "countries": ["France"],
        "period": "2025-03",
        "compare": "previous_period",
    }
    assert chat.ask("France revenue in March 2025 vs the month before")[0] == compared
    arguments, answer = chat.ask("and in percent?")
    assert arguments == compared and answer is not None and re.search(r"\((?:up|down )?[\d.]+%\)", answer)
    assert chat.ask("as a percentage of all revenue?")[0] == compared | {"share": True}
    # A question of its own that opens the same way keeps nothing of the one before.
    own = chat.ask("As a share of all revenue, how much came from Germany?")[0]
    assert own == {"measure": "revenue", "countries": ["Germany"], "share": True}


def test_a_follow_up_steps_back_from_the_period_the_tool_placed(chat):
    chat.ask("Revenue in Germany last year")
    assert chat.ask("what about the year before?")[0]["period"] == "2024"  # type: ignore[index]
    chat.ask("Show me the last 6 months of revenue")
    arguments, answer = chat.ask("Which of those months was the strongest?")
    assert arguments is not None and arguments["period"] == "last 6 months"
    assert arguments["group_by"] == "month" and arguments["limit"] == 1, answer


def test_a_place_in_a_ranking_fresh_or_as_a_follow_up(chat):
    chat.ask("Which country brought in the most revenue?")
    second, answer = chat.ask("Which one comes second?")
    assert second is not None and second["group_by"] == "country" and second["rank"] == 2
    assert answer is not None and answer.startswith("Revenue, 2nd highest country, all time: ")
    third, _ = chat.ask("and the third?")
    assert third is not None and third["rank"] == 3
    product, _ = chat.ask("What is our second best-selling product?")
    assert product is not None and (product["group_by"], product["rank"]) == ("product", 2)


def test_they_in_a_follow_up_is_the_one_row_the_answer_before_named(chat):
    top, answer = chat.ask("Who's our top customer in Germany?")
    assert top is not None and answer is not None
    customer = int(answer.split("customer ")[1].split(":")[0])
    spent, _ = chat.ask("How much have they spent in total?")
    assert spent is not None and spent["customer_id"] == customer and "group_by" not in spent


def test_a_follow_up_can_cut_the_ranking_anew(chat):
    chat.ask("Which product sold best in Germany in 2025?")
    arguments, _ = chat.ask("show me the top 3 instead")
    assert arguments is not None and (arguments["group_by"], arguments["limit"]) == ("product", 3)
    assert arguments["countries"] == ["Germany"] and arguments["period"] == "2025"


def test_follow_ups_narrow_cut_and_point_into_the_answer_before(chat):
    chat.ask("Top 5 countries by orders")
    only, _ = chat.ask("Only for 2025")
    assert only is not None and (only["group_by"], only["period"], only["limit"]) == ("country", "2025", 5)
    bottom, answer = chat.ask("and just the bottom 3")
    assert bottom is not None and (bottom["order"], bottom["limit"]) == ("lowest", 3)
    first = answer.splitlines()[1].split(". ", 1)[1].split(":")[0] if answer else ""
    share, _ = chat.ask("What share of total revenue does the first one have?")
    assert share is not None and share["countries"] == [first] and share["share"] is True
    chat.ask("and just the bottom 3")
    lowest, _ = chat.ask("how many orders did the bottom one place?")  # of a list ranked lowest first
    assert lowest is not None and lowest["countries"] == [first]
    chat.ask("Revenue in Q3 2025")
    chat.ask("break it down by month")
    highest, _ = chat.ask("which was highest?")
    assert highest is not None and (highest["group_by"], highest["limit"]) == ("month", 1)
    assert highest["period"] == "2025-Q3"


def test_a_question_with_its_own_scope_is_new_even_when_it_ends_with_it(chat):
    chat.ask("top 5 products units sold")
    arguments, _ = chat.ask("Germany 2025 revenue, how much was it")
    assert arguments == {"period": "2025", "countries": ["Germany"], "measure": "revenue"}


def test_a_ranking_among_the_top_by_another_measure_is_one_query(chat):
    arguments, answer = chat.ask(
        "Of our ten biggest countries by revenue, which one placed the fewest orders?"
    )
    assert arguments == {
        "group_by": "country",
        "among_top": 10,
        "among_by": "revenue",
        "limit": 1,
        "measure": "orders",
        "order": "lowest",
    }
    assert answer is not None and answer.startswith(
        "Orders, lowest country of the top 10 by revenue, all time: "
    )


def test_two_rankings_in_one_question_are_said_not_guessed(chat):
    arguments, answer = chat.ask("which country has the most and the fewest orders")
    assert arguments is None
    assert answer is not None and answer.startswith("I can't answer that from this data in one step")


def test_a_longer_name_is_not_the_entity_it_starts_with(chat):
    arguments, answer = chat.ask("How much revenue did we make in New Zealand?")
    assert arguments is not None and "segments" not in arguments
    assert answer is not None and "nothing in the data matches 'New Zealand'" in answer


def test_a_comparison_with_an_earlier_period_from_a_follow_up_keeps_both(chat):
    chat.ask("How many orders did we get in March 2025?")
    arguments, answer = chat.ask("How does that compare with the same month a year earlier?")
    assert arguments == {"period": "2025-03", "measure": "orders", "compare": "year_before"}
    assert answer is not None and answer.startswith("Orders, March 2025, vs March 2024: ")


def test_a_calendar_word_the_reading_did_not_use_is_not_dropped_silently(chat):
    assert chat.ask("revenue before 2025")[0] == {"measure": "revenue", "period": "..2024-12-31"}
    assert chat.ask("orders 3 weeks ago")[0] is None  # not read as all time


def test_a_question_the_reading_does_not_cover_and_no_tool_knows_is_refused(chat):
    arguments, answer = chat.ask("what is the capital of france")
    assert arguments is None
    assert answer is not None and answer.startswith(
        "I can't answer that from this data: I don't know what 'capital'"
    )
    # a noun left over in a question for a figure may be a product typed in lower case: looked up
    arguments, answer = chat.ask("Which salesperson sold the most?")
    assert arguments is not None and arguments["products"] == ["salesperson"]
    assert answer is not None and answer.startswith(
        "I can't answer that from this data: nothing in the data matches 'salesperson'"
    )
    _, missing = chat.ask("What are the sales figures for Mexico?")
    assert missing is not None and "nothing in the data matches 'Mexico'" in missing
    _, stock = chat.ask("How many units are in stock?")
    assert stock is not None and "it holds no figures on stock" in stock


def test_a_new_question_takes_nothing_from_the_one_before(chat):
    chat.ask("What was France's revenue in March 2025?")
    arguments, answer = chat.ask("Which segment brings the most revenue?")
    assert arguments == {"group_by": "segment", "measure": "revenue", "order": "highest", "limit": 1}
    assert "France" not in (answer or "")


def test_what_the_data_does_not_hold_is_said_with_what_can_be_asked(chat):
    arguments, answer = chat.ask("What was our profit in 2025?")
    assert arguments is None
    assert answer is not None and answer.startswith(
        "I can't answer that from this data: it holds no figures on profit."
    )
    assert "revenue" in answer and "by country" in answer
    _, missing = chat.ask('What is the revenue of the product "Atlantis"?')
    assert missing is not None and "nothing in the data matches 'Atlantis'" in missing


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("least profitable country", "profit"),
        ("what is our profitability in 2025?", "profit"),
        ("costing of our products", "cost"),
    ],
)
def test_a_word_of_a_subject_the_data_lacks_is_that_subject_not_a_typo(chat, question, subject):
    """ "profitable" is about profit, never a typo of "profile" (an overview)."""
    arguments, answer = chat.ask(question)
    assert arguments is None and answer is not None
    assert answer.startswith(f"I can't answer that from this data: it holds no figures on {subject}.")


def test_a_customers_segment_or_country_is_in_their_figures(chat, retail_db):
    arguments, answer = chat.ask("What is customer 20017's segment?")
    assert arguments == {"customer_id": 20017, "measure": "overview"}
    with sqlite3.connect(retail_db) as conn:
        country, segment = conn.execute(
            "SELECT country, segment FROM customer_stats WHERE customer_id = 20017"
        ).fetchone()
    assert answer is not None and f"customer 20017 ({country}, {segment} segment)" in answer


def test_when_a_customer_last_bought_is_a_day_of_their_figures(chat):
    arguments, answer = chat.ask("When did customer 20017 last buy?")
    assert arguments == {"customer_id": 20017, "measure": "last_purchase"}
    assert answer is not None and answer.startswith("Last purchase, customer 20017 (")


def test_questions_for_other_tools_and_small_talk_are_left_to_the_server(chat):
    assert chat.ask("Would a customer with 8 orders and 1,900 spent be High Value?") == (None, None)
    assert chat.ask("hello") == (None, None)
    assert chat.ask("How much was 20017 worth?") == (None, None)  # an id without its label


def test_the_runtimes_constraint_lines_do_not_hide_the_aliases(tools):
    """The Copilot runtime appends a schema's constraints to descriptions ("\n\n{maxItems: 12}")."""
    as_sent = json.loads(json.dumps(tools))
    for tool in as_sent:
        for prop in tool["function"]["parameters"]["properties"].values():
            if "description" in prop:
                prop["description"] += "\n\n{maxItems: 12}"
    chat = Chat(QueryGuide(), as_sent, Path())
    step = chat.guide.step(
        [{"role": "user", "content": "What share of our orders come from the UK?"}], as_sent
    )
    assert isinstance(step, GuidedCall)
    assert step.arguments["countries"] == ["United Kingdom"] and step.arguments["measure"] == "orders"


def test_a_client_without_a_query_tool_is_not_guided():
    weather = [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Weather for a city",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
            },
        }
    ]
    assert QueryGuide().step([{"role": "user", "content": "hi"}], weather) is None


def test_a_follow_up_compares_with_the_period_or_the_name_it_names(chat):
    chat.ask("Revenue in Germany in 2025")
    arguments, answer = chat.ask("Compare that with 2024")
    assert arguments == {
        "period": "2025",
        "countries": ["Germany"],
        "measure": "revenue",
        "compare": "previous_period",
    }
    assert answer is not None and answer.startswith("Revenue, Germany, 2025, vs 2024: ")
    same, _ = chat.ask("How did France do in the same period?")
    assert same is not None and (same["countries"], same["period"]) == (["France"], "2025")
    chat.ask("What is the average order value in Germany?")
    both, answer = chat.ask("How does that compare to France?")
    assert both is not None and (both["countries"], both["group_by"]) == (["Germany", "France"], "country")
    assert answer is not None and answer.startswith(
        "Average order value, by country, Germany, France, all time:"
    )
    assert " is ahead of " in answer  # two names side by side: how far apart they are
    higher, _ = chat.ask("Which is higher?")
    assert higher is not None and (higher["limit"], higher["order"]) == (1, "highest")


def test_a_name_the_data_lacks_is_not_carried_into_the_next_question(chat):
    _, answer = chat.ask("What share of revenue comes from Champions?")
    assert answer is not None and "nothing in the data matches 'Champions'" in answer
    arguments, _ = chat.ask("And from At Risk customers?")
    assert arguments == {"measure": "revenue", "share": True, "segments": ["At Risk"]}  # still revenue


def test_an_unknown_name_of_a_list_is_refused_with_the_names_there_are(chat):
    arguments, answer = chat.ask("Which fraction of customers are in the Champions segment?")
    assert arguments is None and answer is not None
    assert answer.startswith("I can't answer that from this data: I don't know what 'champions' means here.")
    assert "The segments in this data are At Risk, High Value, New, Regular." in answer


def test_share_and_kind_words_analysts_use(chat):
    assert chat.ask("How many orders were cancelled in 2025?")[0] == {
        "period": "2025",
        "measure": "cancellations",
    }
    share, _ = chat.ask("How much of our total sales is the United Kingdom responsible for?")
    assert share == {"countries": ["United Kingdom"], "measure": "revenue", "share": True}


def test_a_product_can_be_left_out(chat, retail_db):
    with sqlite3.connect(retail_db) as conn:
        code, name = conn.execute("SELECT stock_code, description FROM products LIMIT 1").fetchone()
    arguments, answer = chat.ask(f"Top 5 products, ignoring {code}")
    assert (
        arguments is not None
        and arguments["exclude_products"] == [code]
        and arguments["group_by"] == "product"
    )
    assert (
        answer is not None
        and f"excluding {name} ({code})" in answer
        and f"({code})" not in answer.split(":", 1)[1]
    )


def test_measures_analysts_ask_for_beyond_the_totals(chat):
    assert chat.ask("How many new customers did we get in 2025?")[0] == {
        "period": "2025",
        "measure": "new_customers",
    }
    assert chat.ask("New customers by month in 2025")[0] == {
        "period": "2025",
        "group_by": "month",
        "measure": "new_customers",
    }
    segment, _ = chat.ask("How many New customers do we have?")  # written as the segment's name
    assert segment == {"segments": ["New"], "measure": "customers"}
    assert chat.ask("What's the average number of orders per customer?")[0] == {
        "measure": "orders_per_customer"
    }


def test_a_period_next_to_a_named_one(chat):
    assert chat.ask("How many orders did we have in the week before Christmas 2025?")[0] == {
        "period": "2025-12-18..2025-12-24",
        "measure": "orders",
    }
    assert chat.ask("Revenue the day after Christmas 2024")[0] == {
        "period": "2024-12-26",
        "measure": "revenue",
    }


def test_a_ranking_of_the_rows_just_shown_keeps_their_period(chat):
    chat.ask("Show me monthly revenue for 2025")
    weakest, answer = chat.ask("Which month was weakest?")
    assert weakest is not None and (weakest["period"], weakest["order"], weakest["limit"]) == (
        "2025",
        "lowest",
        1,
    )
    assert answer is not None and answer.startswith("Revenue, lowest month, 2025: ")


def test_a_dimension_counted_is_its_count_measure(chat):
    assert chat.ask("How many unique products were sold in December 2025?")[0] == {
        "period": "2025-12",
        "measure": "products",
    }
    assert chat.ask("How many different countries do we sell to?")[0] == {"measure": "countries"}


def test_a_kind_of_customers_named_with_them_is_the_measure(chat):
    assert chat.ask("How many customers bought more than once?")[0] == {"measure": "repeat_customers"}
    assert chat.ask("Returning customers by country, top 5")[0] == {
        "group_by": "country",
        "measure": "repeat_customers",
        "order": "highest",
        "limit": 5,
    }


def test_growth_and_decline_rank_by_the_change_a_plain_grow_compares(chat):
    grew, _ = chat.ask("Which country grew the most from 2024 to 2025?")
    assert grew is not None and (grew["period"], grew["compare"], grew["rank_by"], grew["limit"]) == (
        "2025",
        "previous_period",
        "growth",
        1,
    )
    fell, _ = chat.ask("Which 3 products declined the most last month?")
    assert fell is not None and (fell["rank_by"], fell["limit"], fell["compare"]) == (
        "decline",
        3,
        "previous_period",
    )
    assert chat.ask("Did revenue grow in 2025?")[0] == {
        "period": "2025",
        "measure": "revenue",
        "compare": "previous_period",
    }
    chat.ask("Revenue by country in 2025")
    faster, _ = chat.ask("Which one grew faster?")
    assert faster is not None and (faster["group_by"], faster["rank_by"], faster["limit"]) == (
        "country",
        "growth",
        1,
    )


def test_names_compared_side_by_side_and_names_that_qualify_customers(chat):
    both, _ = chat.ask("Compare Germany and France by orders in 2025")
    assert both is not None and (both["group_by"], both["countries"]) == ("country", ["Germany", "France"])
    assert chat.ask("Revenue from non-UK customers by month in 2025")[0] == {
        "period": "2025",
        "exclude_countries": ["United Kingdom"],
        "group_by": "month",
        "measure": "revenue",
    }
    top, _ = chat.ask("Top 5 UK customers by revenue")
    assert top is not None and (top["group_by"], top["countries"]) == ("customer", ["United Kingdom"])


def test_a_word_close_to_a_verb_of_change_is_not_corrected_into_it(chat):
    arguments, _ = chat.ask("And when is my deadline?")  # not "declined"
    assert arguments is None


def test_exclusions_read_with_every_word_for_leaving_out(chat):
    assert chat.ask("revenue all segments but Regular")[0] == {
        "exclude_segments": ["Regular"],
        "measure": "revenue",
    }
    assert chat.ask("total revenue without the At Risk segment")[0] == {
        "exclude_segments": ["At Risk"],
        "measure": "revenue",
    }
    everywhere, _ = chat.ask("orders from everywhere except france and spain in q3 2025")
    assert everywhere == {"period": "2025-Q3", "exclude_countries": ["France", "Spain"], "measure": "orders"}


def test_follow_ups_for_each_row_another_measure_and_a_month_of_the_same_year(chat):
    chat.ask("Revenue by segment in 2025")
    each, _ = chat.ask("What's each one's share?")
    assert each == {"period": "2025", "group_by": "segment", "measure": "revenue", "share": True}
    orders, _ = chat.ask("And for orders?")
    assert orders is not None and orders["measure"] == "orders" and orders["group_by"] == "segment"
    chat.ask("Sales in March 2025")
    february, answer = chat.ask("How does that compare to February?")
    assert february == {"period": "2025-03", "measure": "revenue", "compare": "previous_period"}
    assert answer is not None and answer.startswith("Revenue, March 2025, vs February 2025: ")


def test_an_exclusion_cue_that_leaves_nothing_out_is_not_understood(chat):
    """Read without "other than", the answer would include what was asked to be left out: said instead."""
    arguments, answer = chat.ask("revenue in 2025 other than that")
    assert arguments is None and "'other than'" in answer


def test_a_word_not_understood_is_quoted_as_typed_not_as_corrected(chat):
    arguments, answer = chat.ask("what is sincere about france")  # "sincere" is close to "since"
    assert arguments is None and "'sincere'" in answer and "'since'" not in answer


def test_which_was_higher_puts_the_last_two_answers_side_by_side(tools, retail_db):
    periods = Chat(QueryGuide(), tools, retail_db)
    periods.ask("What was revenue in December 2025?")
    periods.ask("How about November?")
    arguments, answer = periods.ask("which was higher?")
    assert arguments == {"measure": "revenue", "period": "2025-12", "compare": "previous_period"}
    assert answer.startswith("Revenue, December 2025, vs November 2025: ")
    names = Chat(QueryGuide(), tools, retail_db)
    names.ask("revenue in Spain in 2025")
    names.ask("and Italy?")
    arguments, answer = names.ask("which of the two was bigger?")
    assert arguments is not None and arguments["countries"] == ["Spain", "Italy"]
    assert arguments["group_by"] == "country"
    apart = Chat(QueryGuide(), tools, retail_db)
    apart.ask("orders in Spain in 2025")
    apart.ask("revenue in Italy in 2024")
    arguments, answer = apart.ask("which of the two was bigger?")
    assert arguments is None and answer.startswith("I can't answer that in one step")


def test_an_exclusion_said_as_a_verb_narrows_the_question_before(chat):
    chat.ask("Revenue by country in Q3 2025")
    arguments, _ = chat.ask("now exclude the UK")
    assert arguments is not None and arguments["exclude_countries"] == ["United Kingdom"]
    assert arguments["group_by"] == "country" and arguments["period"] == "2025-Q3"


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("revenue and orders in 2025", "it asks for several figures at once ('revenue' and 'orders')"),
        ("what % of revenue came from repeat customers in 2025", "it does not split revenue by repeat"),
        ("portion of revenue from cancelled orders", "it does not split revenue by cancel"),
        ("average order value of repeat customers", "does not split average order value by repeat customers"),
    ],
)
def test_a_second_figure_one_query_cannot_honour_is_said_not_dropped(chat, question, said):
    arguments, answer = chat.ask(question)
    assert arguments is None and said in answer


def test_a_why_question_gets_the_figures_and_says_the_data_has_no_reasons(chat):
    arguments, answer = chat.ask("why did revenue drop in December 2025?")
    assert arguments is not None and arguments["compare"] == "previous_period"
    assert answer.startswith("I can't answer why from this data: it shows what happened, not the reasons.")
    assert "What happened: Revenue, December 2025, vs November" in answer


def test_a_product_typed_in_lower_case_is_looked_up_and_named_in_the_answer(chat, retail_db):
    with sqlite3.connect(retail_db) as conn:
        name = conn.execute("SELECT description FROM products ORDER BY stock_code LIMIT 1").fetchone()[0]
    arguments, answer = chat.ask(f"how is the {name.lower()} doing?")
    assert arguments is not None and arguments["products"] == [name.lower()]
    assert answer is not None and name in answer


def test_a_ranking_of_who_buys_it_keeps_the_product_asked_about(chat):
    chat.ask("how many units of PINK LANTERN did we sell in 2025")
    arguments, _ = chat.ask("which countries buy it most?")
    assert arguments is not None and arguments["group_by"] == "country"
    assert (arguments["products"], arguments["period"]) == (["PINK LANTERN"], "2025")


def test_that_month_and_that_per_customer_refer_to_the_answer_before(chat):
    chat.ask("Revenue by month in 2025")
    chat.ask("and the worst?")
    arguments, _ = chat.ask("how did that month compare with the same month a year before?")
    assert arguments is not None and arguments["compare"] == "year_before"
    assert arguments["period"].startswith("2025-") and "group_by" not in arguments
    chat.ask("How many orders did France place in 2025?")
    arguments, _ = chat.ask("what's that per customer?")
    assert arguments == {"measure": "orders_per_customer", "countries": ["France"], "period": "2025"}


def test_a_follow_up_steps_on_from_the_period_before_and_the_future_is_no_data(chat):
    chat.ask("orders on 7 November 2025")
    assert chat.ask("what about the following day?")[0]["period"] == "2025-11-08"
    assert chat.ask("and the day after that?")[0]["period"] == "2025-11-09"
    fresh = Chat(QueryGuide(), chat.tools, chat.db)
    arguments, answer = fresh.ask("revenue next month")
    assert arguments is None and "it holds no figures on forecasts" in answer


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("rev uk nov 2025", {"measure": "revenue", "countries": ["United Kingdom"], "period": "2025-11"}),
        ("what happened on 2025-11-14", {"measure": "overview", "period": "2025-11-14"}),
        ("how many orders on black friday 2025", {"measure": "orders", "period": "2025-11-28"}),
    ],
)
def test_shorthand_and_named_days(chat, question, expected):
    arguments, answer = chat.ask(question)
    assert arguments is not None, answer
    assert {k: arguments.get(k) for k in expected} == expected


def test_follow_ups_about_the_one_row_named_the_whole_year_and_another_measure(chat):
    chat.ask("Who was our top customer in 2025?")
    where, _ = chat.ask("where are they based?")
    assert where is not None and where["group_by"] == "country" and "customer_id" in where
    chat.ask("revenue in Germany by month for 2025")
    chat.ask("which month was the peak?")
    total, _ = chat.ask("what was the total for the year?")
    assert total == {"period": "2025", "countries": ["Germany"], "measure": "revenue"}
    chat.ask("What are the top 3 countries by orders?")
    by, _ = chat.ask("and by customers?")
    assert by is not None and (by["group_by"], by["measure"], by["limit"]) == ("country", "customers", 3)
    chat.ask("What was our average order value in Q2 2025?")
    chat.ask("and Q3?")
    up, _ = chat.ask("did it go up?")
    assert up is not None and (up["period"], up["compare"]) == ("--Q3", "previous_period")


def test_compare_with_a_name_puts_it_beside_the_one_before(chat):
    chat.ask("revenue of High Value customers in Germany")
    both, _ = chat.ask("compare with Regular customers")
    assert both is not None and both["segments"] == ["High Value", "Regular"]
    assert (both["group_by"], both["countries"], both["measure"]) == ("segment", ["Germany"], "revenue")


def test_a_question_that_names_its_own_place_and_time_takes_nothing_from_the_one_before(chat):
    chat.ask("info on the High Value segment")
    arguments, _ = chat.ask("whats up with france in 2025")
    assert arguments == {"measure": "overview", "countries": ["France"], "period": "2025"}


def test_a_word_the_chat_said_before_is_the_chats_not_a_product(chat):
    chat.ask("Note for later: our target segment is Regular.")
    arguments, answer = chat.ask("Which segment are we targeting?")
    assert arguments is None and answer is None  # the model answers from the chat


def test_the_share_of_the_top_n_together_is_one_figure(chat):
    arguments, answer = chat.ask("what percent of our revenue comes from the top 3 customers")
    assert arguments is not None and arguments["together"] is True and arguments["limit"] == 3
    assert answer is not None and answer.startswith("Revenue, top 3 customers together, all time: ")
    assert "customer " not in answer.split(": ", 1)[1]  # one figure, no list of names
    each, _ = chat.ask("top 3 countries and their share of revenue")
    assert each is not None and "together" not in each


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("orders in may 2025 compared to september 2025", {"period": "2025-05", "compare_with": "2025-09"}),
        (
            "Spain or Germany, which had more customers in july 2025?",
            {"group_by": "country", "measure": "customers", "countries": ["Spain", "Germany"]},
        ),
        ("high value vs regular - who spent more in 2025?", {"group_by": "segment", "measure": "revenue"}),
        (
            "Between February 2025 and April 2025, which grew more in revenue: Germany or France?",
            {
                "group_by": "country",
                "rank_by": "growth",
                "countries": ["Germany", "France"],
                "period": "2025-02",
                "compare_with": "2025-04",
            },
        ),
        (
            "share of spain revenue coming from high value customers",
            {"measure": "revenue", "share": True, "segments": ["High Value"]},
        ),
    ],
)
def test_two_periods_or_two_names_side_by_side(chat, question, expected):
    arguments, answer = chat.ask(question)
    assert arguments is not None, answer
    assert {k: arguments.get(k) for k in expected} == expected


def test_follow_ups_about_the_rows_just_listed(chat):
    chat.ask("monthly revenue for 2025")
    biggest, _ = chat.ask("which of those was biggest?")
    assert biggest is not None and (biggest["limit"], biggest["order"]) == (1, "highest")
    month, _ = chat.ask("how many orders that month?")
    assert month is not None and month["measure"] == "orders" and len(month["period"]) == 7
    chat.ask("top 3 customers by revenue in 2025")
    theirs, _ = chat.ask("and what share was theirs?")
    assert theirs is not None and theirs["together"] is True and theirs["share"] is True
    new, _ = chat.ask("ok different question - what was the best month overall for revenue?")
    assert new == {"group_by": "month", "measure": "revenue", "order": "highest", "limit": 1}


def test_a_comparison_that_names_its_own_periods_takes_no_filter_from_the_question_before(chat):
    chat.ask("revenue in Germany in 2025")
    arguments, _ = chat.ask("compare revenue in March 2025 with March 2024")
    assert arguments == {"period": "2025-03", "compare": "year_before", "measure": "revenue"}
    arguments, _ = chat.ask("compare this month with last month")
    assert arguments is not None and "countries" not in arguments


def test_which_of_those_ranks_among_the_rows_listed_and_that_one_is_broken_down(chat):
    chat.ask("top 5 products in the UK by revenue")
    which, answer = chat.ask("which of those sold the most units?")
    assert which is not None and which["measure"] == "units" and which["limit"] == 1
    assert (which["among_top"], which["among_by"]) == (5, "revenue")
    assert answer is not None and "of the top 5 by revenue" in answer
    second, _ = chat.ask("how much revenue did the second one bring in?")
    assert second is not None and second["rank"] == 2
    months, answer = chat.ask("break that down by month")
    assert months is not None and months["group_by"] == "month" and "products" in months
    assert "among_top" not in months  # the five were products, the breakdown is of months


def test_a_product_named_with_a_hyphen_is_looked_up(chat, retail_db):
    with sqlite3.connect(retail_db) as conn:
        found = conn.execute("SELECT description FROM products WHERE description LIKE '%T-LIGHT%'").fetchone()
    if found is None:
        pytest.skip("the generated catalogue has no hyphenated name")
    named = found[0].title()  # "White Dolly Girl T-Light Holder"
    arguments, answer = chat.ask(f"{named} - tell me about it")
    assert arguments is not None and arguments.get("products") == [named], answer
    assert answer is not None and found[0] in answer


def test_which_of_those_three_ranks_the_names_of_the_last_three_answers(chat):
    chat.ask("revenue in the UK in November 2025")
    chat.ask("and Germany?")
    chat.ask("and France")
    arguments, answer = chat.ask("which of those three was lowest?")
    assert arguments is not None and arguments["group_by"] == "country" and arguments["order"] == "lowest"
    assert sorted(arguments["countries"]) == ["France", "Germany", "United Kingdom"]
    assert answer is not None and "(of 3 countries)" in answer
    follow, _ = chat.ask("how many customers did it have that month?")
    assert follow is not None and len(follow["countries"]) == 1 and follow["measure"] == "customers"
    _, refused = Chat(chat.guide, chat.tools, chat.db).ask("which of those four was lowest?")
    assert refused is None or "I can't" in refused


def test_that_country_is_the_one_the_answer_before_was_about(chat):
    chat.ask("how many customers in Germany in 2025?")
    arguments, _ = chat.ask("what share of all orders is that country?")
    assert arguments is not None and arguments["countries"] == ["Germany"]
    assert arguments["measure"] == "orders" and arguments["share"] is True and arguments["period"] == "2025"


def test_a_bare_number_before_a_verb_of_the_customer_is_that_customer(chat):
    arguments, answer = chat.ask("How much has 20017 spent with us?")
    assert arguments == {"customer_id": 20017, "measure": "revenue"}
    assert answer is not None and answer.startswith("Revenue, customer 20017 (")  # said whose it is
    assert chat.ask("revenue in 2025 from 2025 placed orders")[0] != {"customer_id": 2025}  # a year


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How many At Risk customers are there right now?", {"segments": ["At Risk"]}),
        ("total spend by new customers to date", {"segments": ["New"], "measure": "revenue"}),
        ("worst month for spain in terms of sales", {"group_by": "month", "order": "lowest"}),
        ("Of all customers, what share bought in the last 3 months?", {"measure": "customers"}),
        # a name before the measure says whose it is; a share's "of" may be its period's too
        ("How much of the UK's revenue comes from High Value customers?", {"measure": "revenue"}),
        ("how much of 2025 revenue came in q4", {"period": "2025-Q4", "share_of": "2025"}),
    ],
)
def test_common_phrases_around_the_reading_are_not_taken_for_names(chat, question, expected):
    arguments, answer = chat.ask(question)
    assert arguments is not None, answer
    assert {k: arguments.get(k) for k in expected} == expected and "products" not in arguments


def test_a_year_earlier_after_a_comparison_changes_the_comparison_and_a_breakdown_alone_follows(chat):
    chat.ask("Revenue in November 2025")
    chat.ask("compared with the month before?")
    earlier, _ = chat.ask("and a year earlier?")
    assert earlier is not None and (earlier["period"], earlier["compare"]) == ("2025-11", "year_before")
    split, _ = chat.ask("by country")
    assert split is not None and split["group_by"] == "country" and split["period"] == "2025-11"
    alone, _ = Chat(chat.guide, chat.tools, chat.db).ask("revenue by country")
    assert alone is not None and "period" not in alone


def test_excluding_them_leaves_out_the_customers_listed_and_theirs_is_their_share(chat):
    top, _ = chat.ask("who are our top 3 customers by revenue?")
    assert top is not None
    rest, answer = chat.ask("excluding them, what's total revenue?")
    assert rest is not None and len(rest["exclude_customer_ids"]) == 3 and "group_by" not in rest
    assert answer is not None and answer.startswith("Revenue, excluding customers ")
    theirs, _ = chat.ask("and what share was theirs?")
    assert theirs is not None and theirs.get("together") is True and theirs["limit"] == 3
    two, _ = Chat(chat.guide, chat.tools, chat.db).ask(
        "revenue from everyone except customer 20017 and customer 20018"
    )
    assert two is not None and two["exclude_customer_ids"] == [20017, 20018] and "customer_id" not in two


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Revenue for 2025 except for 'wooden spaceboy tin'?", {"exclude_products": ["wooden spaceboy tin"]}),
        ("Revenue in 2025 ex-At Risk customers?", {"exclude_segments": ["At Risk"], "period": "2025"}),
        ("how much did cust 20017 spend", {"customer_id": 20017, "measure": "revenue"}),
        ("GMV for February 2025?", {"measure": "revenue", "period": "2025-02"}),
        ("ok now something else. whats the total revenue for december 2025", {"period": "2025-12"}),
        ("revenue irelamd", {"countries": ["Ireland"]}),  # a slip of a neighbouring key
        (
            "Roughly what fraction of the orders in 2025 were from Germany?",
            {"measure": "orders", "countries": ["Germany"], "share": True},
        ),
        (
            "Among our ten best-selling products by revenue in 2025, which one brought in the least?",
            {"group_by": "product", "among_top": 10, "among_by": "revenue", "order": "lowest", "limit": 1},
        ),
        (
            "Of the countries that ordered in April 2025, which placed the fewest orders?",
            {"group_by": "country", "measure": "orders", "order": "lowest", "limit": 1},
        ),
        ("Q4 2025 as a percentage of the full year's revenue?", {"period": "2025-Q4", "share_of": "2025"}),
        (
            "Year-on-year, how did our number of customers change from 2024 to 2025?",
            {"measure": "customers", "period": "2025"},
        ),
    ],
)
def test_what_analysts_type_around_the_reading(chat, question, expected):
    arguments, answer = chat.ask(question)
    assert arguments is not None, answer
    assert {k: arguments.get(k) for k in expected} == expected


def test_a_country_a_letter_away_that_is_no_slip_is_not_swapped_for_one_in_the_data(chat):
    arguments, answer = chat.ask("Iceland sales in 2025?")
    assert (arguments or {}).get("countries") is None, answer
    assert answer is not None and "Iceland" in answer and "Ireland" not in answer


def test_several_products_named_are_ranked_side_by_side_or_left_out_together(chat, retail_db):
    """ "Of 'A', 'B' and 'C', which sold the fewest units?" ranks the three, not 'A' alone; "excluding
    A and B" leaves both out."""
    with sqlite3.connect(retail_db) as conn:
        names = [n for (n,) in conn.execute("SELECT description FROM products ORDER BY stock_code LIMIT 3")]
    quoted = ", ".join(f"'{n}'" for n in names[:2]) + f" and '{names[2]}'"
    arguments, answer = chat.ask(f"Of {quoted}, which sold the fewest units?")
    assert arguments is not None and answer is not None
    assert (arguments["products"], arguments["group_by"], arguments["order"]) == (names, "product", "lowest")
    assert all(name in answer for name in names)
    arguments, answer = chat.ask(f"revenue in 2025 excluding {names[0].lower()} and {names[1].lower()}")
    assert arguments is not None and arguments["exclude_products"] == [n.lower() for n in names[:2]]
    assert answer is not None and f"excluding {names[0]}" in answer and names[1] in answer


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("revenue in 2025 excluding December", {"period": "2025", "exclude_period": "2025-12"}),
        (
            "excluding Q4, how many orders did we get in 2025?",
            {"period": "2025", "exclude_period": "2025-Q4"},
        ),
        ("units sold apart from November 2025", {"period": None, "exclude_period": "2025-11"}),
        ("revenue in 2025 vs 2024", {"period": "2025", "exclude_period": None}),
    ],
)
def test_a_period_left_out_is_read_as_such_not_as_a_name(chat, question, expected):
    arguments, answer = chat.ask(question)
    assert arguments is not None and {k: arguments.get(k) for k in expected} == expected, answer
    assert "products" not in arguments and "exclude_products" not in arguments


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "average order value without our biggest customer",
            {"exclude_top": 1, "exclude_top_of": "customer"},
        ),
        (
            "revenue in 2025 excluding the top 3 countries",
            {"exclude_top": 3, "exclude_top_of": "country", "limit": None},
        ),
        ("Germany's orders without its two biggest customers", {"exclude_top": 2, "countries": ["Germany"]}),
        ("revenue of the top 3 countries", {"exclude_top": None, "group_by": "country", "limit": 3}),
    ],
)
def test_the_biggest_left_out_is_an_exclusion_not_a_ranking(chat, question, expected):
    arguments, answer = chat.ask(question)
    assert arguments is not None and {k: arguments.get(k) for k in expected} == expected, answer


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("how many new customers do we have?", {"segments": ["New"], "measure": "customers"}),
        ("how many new customers did we win in 2025?", {"segments": None, "measure": "new_customers"}),
        ("How many new customers did we get?", {"segments": None, "measure": "new_customers"}),
    ],
)
def test_new_customers_now_are_the_segment_and_in_a_period_the_first_timers(chat, question, expected):
    arguments, answer = chat.ask(question)
    assert arguments is not None and {k: arguments.get(k) for k in expected} == expected, answer


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What percentage of gross sales in 2025 was lost to cancellations?", {"share": True}),
        ("how much revenue did we lose to cancellations in 2025", {"share": None}),
        ("value of returns by country in 2025", {"group_by": "country"}),
    ],
)
def test_revenue_lost_to_cancellations_is_a_measure_of_its_own(chat, question, expected):
    arguments, answer = chat.ask(question)
    assert arguments is not None and arguments["measure"] == "cancelled_revenue", answer
    assert {k: arguments.get(k) for k in expected} == expected


def test_spending_per_customer_is_revenue_per_customer(chat):
    arguments, _ = chat.ask("average spending per customer in 2025")
    assert arguments is not None and arguments["measure"] == "revenue_per_customer"


def test_a_calendar_word_inside_a_name_in_capitals_is_the_names(chat):
    arguments, answer = chat.ask(
        "units sold in 2025: IVORY CHRISTMAS SHOPPER BAG versus REGENCY DOLLY GIRL LANTERN"
    )
    assert arguments is not None, answer
    assert arguments["products"] == ["IVORY CHRISTMAS SHOPPER BAG", "REGENCY DOLLY GIRL LANTERN"]
    assert (arguments["period"], arguments["group_by"]) == ("2025", "product") and "compare" not in arguments
    arguments, _ = chat.ask("revenue at CHRISTMAS 2025")  # one word in capitals is still the day
    assert arguments is not None and arguments["period"] == "2025-12-25"


def test_something_else_starts_a_new_question(chat):
    chat.ask("how many customers are in the New segment?")
    arguments, _ = chat.ask("ok now something else. whats the total revenue for december 2025")
    assert arguments == {"period": "2025-12", "measure": "revenue"}


def test_without_them_after_one_product_leaves_out_the_customer_asked_about(chat):
    chat.ask("How many orders has customer 20017 placed with us?")
    chat.ask("what's their top product?")
    arguments, _ = chat.ask("And what would the total revenue be without them?")
    assert arguments is not None and arguments.get("exclude_customer_ids") == [20017]
    assert "exclude_products" not in arguments


def test_which_has_the_most_counts_what_the_question_before_counted(chat):
    chat.ask("how many orders did Germany place in 2025?")
    arguments, answer = chat.ask("which month had the most?")
    assert arguments is not None, answer
    assert (arguments["measure"], arguments["countries"], arguments["period"]) == (
        "orders",
        ["Germany"],
        "2025",
    )
    assert (arguments["group_by"], arguments["order"], arguments["limit"]) == ("month", "highest", 1)


def test_the_first_rows_listed_can_be_left_out_whatever_their_kind(chat):
    _, listed = chat.ask("top 5 countries by revenue in 2025")
    assert listed is not None
    first_two = [line.split(". ", 1)[1].split(":")[0] for line in listed.splitlines()[1:3]]
    arguments, _ = chat.ask("and without the first two?")
    assert arguments is not None and arguments["exclude_countries"] == first_two
    assert (arguments["group_by"], arguments["limit"]) == ("country", 5)  # the ranking, less those two
    chat.ask("top 3 products in 2025")
    arguments, _ = chat.ask("excluding the first one, what's the revenue?")
    assert arguments is not None and len(arguments["exclude_products"]) == 1
    assert "products" not in arguments  # left out, not asked about


def test_who_are_the_top_3_ranks_the_customers_counted_before_by_what_they_bought(chat):
    chat.ask("How many customers do we have in France?")
    arguments, answer = chat.ask("who are the top 3?")
    assert arguments is not None, answer
    assert arguments == {"countries": ["France"], "group_by": "customer", "order": "highest", "limit": 3}


def test_one_article_before_a_name_with_and_in_it_is_one_name(chat, retail_db):
    """ "the gin and tonic diet metal sign" is one product; "lanterns and candles" two."""
    arguments, _ = chat.ask("what can you tell me about the salt and pepper shakers")
    assert arguments is not None and arguments["products"] == ["salt and pepper shakers"]
    arguments, _ = chat.ask("revenue of lanterns and candles")
    assert arguments is not None and arguments["products"] == ["lanterns", "candles"]


def test_a_segment_left_out_after_whose_is_an_exclusion_not_a_breakdown(chat):
    arguments, _ = chat.ask("revenue from customers outside the High Value segment in 2025")
    assert arguments is not None and arguments["exclude_segments"] == ["High Value"]
    assert "group_by" not in arguments


def test_the_single_biggest_month_is_one_row_of_a_ranking(chat):
    arguments, _ = chat.ask("what was our single biggest month in 2025?")
    assert arguments is not None
    assert (arguments["group_by"], arguments["order"], arguments["limit"]) == ("month", "highest", 1)


def test_those_rows_the_list_before_and_the_one_asked_about_in_follow_ups(chat):
    chat.ask("Top 5 countries by revenue in 2025, not counting the UK?")
    most, _ = chat.ask("Which of those had the most customers?")
    assert most is not None and (most["group_by"], most["measure"], most["among_top"]) == (
        "country",
        "customers",
        5,
    )
    top5 = _top_countries(chat.db)
    second, _ = chat.ask("ok, the second one on the list - what was its average order value?")
    assert second is not None and second["countries"] == [top5[1]] and second["measure"] == "avg_order_value"
    assert "group_by" not in second

    other = Chat(chat.guide, chat.tools, chat.db)
    other.ask("how many orders has customer 20017 placed?")
    rest, answer = other.ask("And what would the total revenue be without them?")
    assert rest is not None and rest["exclude_customer_ids"] == [20017] and "customer_id" not in rest, answer

    third = Chat(chat.guide, chat.tools, chat.db)
    third.ask("whats the total revenue for december 2025")
    share, answer = third.ask("what share of the year is that?")
    assert share is not None and (share["period"], share["share_of"]) == ("2025-12", "2025"), answer


def _top_countries(db: Path) -> list[str]:
    """The five countries but the UK with the most revenue in 2025, from the data itself."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT country FROM transactions WHERE invoiced_at LIKE '2025%' AND country != 'United Kingdom' "
            "GROUP BY country ORDER BY SUM(amount) DESC LIMIT 5"
        ).fetchall()
    return [r[0] for r in rows]


@pytest.mark.parametrize(
    ("question", "group_by", "order"),
    [
        ("worst quarter of 2025 for revenue?", "quarter", "lowest"),
        ("What's our slowest day of the week in terms of revenue?", "weekday", "lowest"),
        ("busiest weekday for orders in 2025", "weekday", "highest"),
    ],
)
def test_quarters_and_days_of_the_week_are_groupings(chat, question, group_by, order):
    arguments, answer = chat.ask(question)
    assert arguments is not None, answer
    assert (arguments["group_by"], arguments["order"], arguments["limit"]) == (group_by, order, 1)


def test_a_breakdown_by_day_of_the_week_lists_all_seven(chat):
    arguments, answer = chat.ask("revenue by day of the week")
    assert arguments is not None and arguments["group_by"] == "weekday" and "limit" not in arguments
    assert answer is not None and "- Monday: " in answer and "- Sunday: " in answer


def test_a_share_of_a_named_whole_is_of_that_whole(chat):
    of_segment, answer = chat.ask("what share of the Regular segment's revenue comes from the UK?")
    assert of_segment is not None and of_segment["share_within"] == "segments"
    assert answer is not None and "of the Regular segment total" in answer
    other = Chat(chat.guide, chat.tools, chat.db)
    of_country, _ = other.ask("what share of the UK's revenue comes from the Regular segment?")
    assert of_country is not None and of_country["share_within"] == "countries"
    alone = Chat(chat.guide, chat.tools, chat.db)
    one_name, _ = alone.ask("what share of revenue comes from the UK?")  # one name is the part
    assert one_name is not None and "share_within" not in one_name


def test_a_share_from_customers_outside_a_segment_is_one_figure_not_a_ranking(chat):
    arguments, _ = chat.ask(
        "In 2025, what share of revenue came from customers outside the High Value segment?"
    )
    assert arguments is not None and "group_by" not in arguments
    assert arguments["exclude_segments"] == ["High Value"] and arguments["share"] is True


@pytest.mark.parametrize(
    ("question", "period", "before"),
    [
        ("Compare the first and second half of 2025 on revenue.", "2025-07-01..2025-12-31", "2025-01-01"),
        ("compare the third and fourth quarter of 2025 on orders", "2025-Q4", "2025-07-01"),
    ],
)
def test_two_halves_or_quarters_sharing_their_noun_are_two_periods(chat, question, period, before):
    arguments, answer = chat.ask(question)
    assert arguments is not None and arguments["period"] == period, answer
    assert arguments.get("compare") == "previous_period" or arguments.get("compare_with", "").startswith(
        before
    )


def test_a_lead_in_sentence_that_names_nothing_leaves_the_question_that_reads_whole(chat):
    arguments, answer = chat.ask(
        "How concentrated are we? What share of revenue comes from our ten biggest customers?"
    )
    assert arguments is not None and arguments["together"] is True and arguments["limit"] == 10
    assert answer is not None and answer.startswith("Revenue, top 10 customers together")
    other = Chat(chat.guide, chat.tools, chat.db)
    arguments, _ = other.ask("Quick one for my deck. What was revenue in France in 2025?")  # no "dec"
    assert arguments == {"period": "2025", "countries": ["France"], "measure": "revenue"}


def test_a_sentence_that_names_data_is_no_lead_in(chat):
    """ "Sales in France were weird. What about Germany?" is not Germany alone: nothing is dropped."""
    arguments, answer = chat.ask("Sales in France were weird. What about Germany?")
    assert arguments is None or arguments.get("countries") != ["Germany"], answer


def test_a_greeting_before_a_question_about_the_chat_is_no_lead_in(chat):
    chat.ask("Note for later: our campaign budget is 12,500.")
    chat.ask("revenue in France in 2025")
    arguments, answer = chat.ask("Back again. What budget did I mention for the campaign?")
    assert arguments is None and answer is None  # the server's own pipeline: a question about the chat


def test_a_product_word_the_tool_does_not_hold_is_no_typo_of_a_subject_it_lacks(chat):
    """ "hot water bottle" is a product's name, not "hot weather"."""
    _, answer = chat.ask("units of hot water bottle in 2025")
    assert answer is not None and "weather" not in answer


def test_a_question_with_its_own_subject_carries_nothing_from_the_one_before(chat):
    """An earlier turn's names stay out of a question that names its own: a comparison it states
    ("the same quarter a year before"), a pronoun after its own name ("its share"), an id it gives
    ("customer N: … theirs?")."""
    chat.ask("revenue in Belgium in 2025")
    stated, _ = chat.ask("Q2 2025 against the same quarter a year before")
    assert stated == {"period": "2025-Q2", "compare": "year_before"}
    chat.ask("revenue of the United Kingdom's Regular customers in November 2025")
    its, _ = chat.ask("Compare Ireland's share of revenue in July 2025 with its share in December 2025.")
    assert its is not None and its["countries"] == ["Ireland"] and "segments" not in its
    top, _ = chat.ask("What share of Switzerland's revenue comes from its single largest customer?")
    assert top is not None and top["group_by"] == "customer"
    theirs, _ = chat.ask("customer 22681: what % of Sweden's revenue is theirs?")
    assert theirs is not None and theirs["customer_id"] == 22681 and "group_by" not in theirs


def test_a_product_asked_about_before_is_looked_up_again_not_taken_for_the_chats_words(chat):
    chat.ask("units of party bunting sold in 2025")
    arguments, _ = chat.ask("how are the party buntings doing")
    assert arguments is not None and arguments["products"] == ["party buntings"]


def test_how_about_a_product_in_lower_case_asks_the_question_before_of_it(chat, retail_db):
    """A name in lower case may hold the tool's words ("shopper", "rose"): they are the name's, and
    the question before is asked of the thing now named, not of a count of shoppers."""
    with sqlite3.connect(retail_db) as conn:
        first, second = (
            d
            for (d,) in conn.execute(
                "SELECT description FROM products WHERE description LIKE '%SHOPPER BAG' "
                "ORDER BY stock_code LIMIT 2"
            )
        )
    chat.ask(f"How many units of {first} did we sell in 2025?")
    arguments, answer = chat.ask(f"what about the {second.lower()}?")
    assert arguments == {"period": "2025", "measure": "units", "products": [second.lower()]}
    assert answer is not None and answer.startswith(f"Units sold, {second} (")
    arguments, _ = chat.ask(f"how many customers bought the {second.lower()}?")
    assert arguments is not None and arguments["measure"] == "customers"  # said outside the name
    with sqlite3.connect(retail_db) as conn:
        (rose,) = conn.execute(
            "SELECT description FROM products WHERE description LIKE '% ROSE %'"
        ).fetchone()
    chat.ask(f"How many units of {first} did we sell in 2025?")
    arguments, _ = chat.ask(f"How about {rose}?")  # "ROSE" inside the name is no growth
    assert arguments == {"period": "2025", "measure": "units", "products": [rose]}


def test_a_ranking_by_change_after_a_comparison_breaks_that_comparison_down(chat):
    chat.ask("revenue in Q3 2025 vs Q2 2025")
    arguments, answer = chat.ask("which products drove the increase?")
    assert arguments == {
        "period": "2025-Q3",
        "compare": "previous_period",
        "measure": "revenue",
        "group_by": "product",
        "rank_by": "growth",
    }
    assert answer is not None and answer.startswith("Revenue, top 5 products by growth, Q3 2025, vs Q2 2025")


def test_a_ranking_among_a_set_of_its_own_is_a_new_question_not_the_rows_before(chat):
    chat.ask("top 3 products by units in 2025")
    arguments, _ = chat.ask(
        "Among our ten best-selling products by revenue in 2025, which one brought in the least?"
    )
    assert arguments == {
        "period": "2025",
        "group_by": "product",
        "among_top": 10,
        "among_by": "revenue",
        "limit": 1,
        "order": "lowest",
    }


def test_a_top_thing_of_another_kind_after_a_count_ranks_by_what_sold(chat):
    """ "Their top product" after their orders is ranked by the tool's own measure; "which month had
    the most?" after a count of units keeps the units."""
    chat.ask("how many orders did Germany place in 2025?")
    arguments, _ = chat.ask("what was their top product?")
    assert arguments is not None and "measure" not in arguments and arguments["group_by"] == "product"
    chat.ask("how many units did we sell in France in 2025?")
    arguments, _ = chat.ask("which month had the most?")
    assert arguments is not None and arguments["measure"] == "units"

"""The eval's long-chat mode and its extra scoring, on hand-written answers: foreign entities (named,
but neither asked about nor in the truth), a right figure with a wrong unit, questions the data
cannot answer, ranked answers, one chat per category; and the tuned bank on a 13-month file like
the UCI one (no month a year earlier but the last)."""

import importlib
import sqlite3
import sys
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from agent_orchestrator.retail.generator import GeneratorConfig, generate_dataset

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
ea = importlib.import_module("eval_assistant")
q = importlib.import_module("eval_assistant_questions")

PRODUCTS = ["PINK LOVE SHOPPER BAG", "RED KITCHEN CANDLE", "HEART BIRD PHOTO FRAME", "RED ROSE MUG"]
FACTS = {20001: ("Germany", "At Risk"), 20002: ("United Kingdom", "Regular"), 20003: ("France", "High Value")}


def _vocab(currency: str | None = None) -> Any:
    countries = ["United Kingdom", "Germany", "France", "EIRE", "USA", "Spain"]
    return ea.Vocabulary.of(range(20001, 20010), countries, PRODUCTS, customer_facts=FACTS, currency=currency)


def _foreign(answer: str, *turns: Any) -> list[str]:
    asked = "\n".join(t.text for t in turns)
    return ea.foreign_entities(answer, asked, turns, _vocab())


GERMANY = q.Turn(
    "How many customers do we have in Germany?", "filter", (q.Num("customers in Germany", (95,)),)
)


@pytest.mark.parametrize(
    ("answer", "foreign"),
    [
        ("We have 95 customers in Germany.", []),
        ("We have 95 customers in Germany, a few more than France.", ["country 'France'"]),
        ("95 customers in Germany; the biggest is customer 20003.", ["customer 20003"]),
        ("Germany has 95 customers, 12 of them At Risk.", ["segment 'At Risk'"]),
        ("Germany buys the RED ROSE MUG most: 95 customers.", ["product 'RED ROSE MUG'"]),
        ("95 customers in Germany, against 400 in the UK.", ["country 'United Kingdom'"]),
        ("95 in Germany; EIRE has 3.", ["country 'EIRE'"]),
        ("95, e.g. customer 99999 in Germany.", ["customer 99999"]),  # an invented one is foreign too
    ],
)
def test_an_entity_neither_asked_about_nor_in_the_truth_is_foreign(answer: str, foreign: list[str]) -> None:
    assert _foreign(answer, GERMANY) == foreign


def test_the_truth_its_related_entities_and_an_asked_customers_own_facts_are_not_foreign() -> None:
    segment = q.Turn("What is customer 20001's segment?", "lookup", (q.Names("s", "segment", ("At Risk",)),))
    assert _foreign("Customer 20001 (Germany) is At Risk.", segment) == []
    assert _foreign("Customer 20001 is At Risk, like customer 20002.", segment) == ["customer 20002"]
    top = q.Turn(
        "Which country brings the most revenue?",
        "top_n",
        (q.Names("top", "country", ("United Kingdom",)),),
        related=(("country", "Germany"),),
    )
    assert _foreign("The UK, then Germany and France.", top) == ["country 'France'"]
    # a customer in the truth brings its country and segment too
    leader = q.Turn("Who is our top customer?", "top_n", (q.Names("top", "customer", ("20003",)),))
    assert _foreign("Customer 20003 from France, High Value.", leader) == []
    # a product named by part of its catalogue name, or as the question wrote it
    best = q.Turn("Best seller?", "top_n", (q.Names("best", "product", ("PINK LOVE SHOPPER BAG",)),))
    assert _foreign("The Pink Love Shopper Bags sold best.", best) == []
    # aliases: the user wrote "the UK", the answer "United Kingdom"
    outside = q.Turn("Revenue apart from the UK?", "exclusion", (q.Num("revenue outside", (10.0,)),))
    assert _foreign("Outside the United Kingdom revenue was 10.", outside) == []


def test_a_follow_up_may_name_what_its_chat_asked_before_but_a_long_chat_neighbour_may_not() -> None:
    follow = q.Turn(
        "And in France?", "follow_up", (q.Num("customers in France", (87,)),), needs_previous=True
    )
    spain = q.Turn("How many customers do we have in Spain?", "filter", (q.Num("customers in Spain", (40,)),))
    chats = [q.Chat("a", (GERMANY, follow)), q.Chat("b", (spain,))]
    by_title = {c.title: c for c in ea.long_chats(chats)}
    assert list(by_title) == ["long chat: filter", "long chat: follow_up"]
    filters, follow_ups = by_title["long chat: filter"], by_title["long chat: follow_up"]
    assert [t.text for t in filters.turns] == [GERMANY.text, spain.text] and filters.blocks == (0, 1)
    assert [t.category for t in follow_ups.turns] == [None, "follow_up"] and follow_ups.blocks == (0, 0)

    def score(chat: Any, index: int, text: str) -> Any:
        planned = ea.Planned(0, index, chat.turns[index], scored=True, restart=False)
        said = "\n".join(t.text for t in chat.turns[: index + 1])
        return ea.evaluate(planned, chat, ea.Answer(text, 1.0), _vocab(), said, [])

    neighbour = score(filters, 1, "Spain has 40 customers; Germany has 95.")
    assert neighbour.foreign == ["country 'Germany'"] and not neighbour.passed
    assert "foreign entity country 'Germany'" in neighbour.failures
    followed = score(follow_ups, 1, "France has 87 customers, against 95 in Germany.")
    assert followed.foreign == [] and followed.passed


def test_a_long_chat_plan_asks_a_follow_ups_block_once_and_scores_only_its_category() -> None:
    fact = q.Turn("Note: the budget is £12,500.", None)
    recall = q.Turn("What budget did I give?", "memory_restart", needs_previous=True, restart_before=True)
    chats = [
        q.Chat("a", (q.Turn("one", "lookup"), q.Turn("two", "lookup"))),
        q.Chat("b", (fact, q.Turn("three", "lookup"), recall)),
    ]
    long = ea.long_chats(chats)
    assert [c.title for c in long] == ["long chat: lookup", "long chat: memory_restart"]
    assert [t.text for t in long[0].turns] == ["one", "two", "three"]
    plan = ea.plan_turns(long, ["memory_restart"])
    assert [(p.turn.text, p.scored, p.restart) for p in plan] == [
        (fact.text, False, False),
        ("three", False, False),
        (recall.text, True, True),
    ]
    assert [p.turn.text for p in ea.plan_turns(long, limit=2)] == ["one", "two"]


REVENUE = q.Num("revenue in 2025-03", (13_332.33,))
UNITS = q.Num("units of RED ROSE MUG", (34_204,))
ORDERS = q.Num("orders in 2025-11", (1_987,))


@pytest.mark.parametrize(
    ("check", "answer", "currency", "wrong"),
    [
        (REVENUE, "Revenue in March 2025 was 13,332.33.", None, False),
        (REVENUE, "March 2025: 13,332.33 units.", None, True),
        (REVENUE, "Revenue was about 13.3k orders.", None, True),
        (REVENUE, "Revenue was £13,332.33.", None, True),  # the data declares no currency
        (REVENUE, "Revenue was £13,332.33.", "GBP", False),
        (REVENUE, "Revenue was 13,332.33 GBP.", "GBP", False),
        (REVENUE, "Revenue was $13,332.33.", "GBP", True),
        (REVENUE, "Revenue was 13,332.33 dollars.", "GBP", True),
        (REVENUE, "Revenue: 13,332.33 (shown elsewhere as £13,332.33).", None, False),  # once right
        (UNITS, "We sold 34,204 units of it.", None, False),
        (UNITS, "There are 34,204 units in stock.", None, True),
        (UNITS, "34,204 in stock.", None, True),
        (UNITS, "It brought in £34,204.", None, True),
        (UNITS, "34,204 orders contained it.", None, True),
        (ORDERS, "November had 1,987 orders.", None, False),
        (ORDERS, "November had 1,987 invoices from 800 customers.", None, False),
        (ORDERS, "November had 1,987 customers.", None, True),
        (ORDERS, "November had 1,987 High Value customers.", None, True),  # qualifiers between
        (ORDERS, "From 1,987 of our customers", None, False),  # "of": not the unit of 1,987
        (ORDERS, "1,987 (up 28%)", None, False),
    ],
)
def test_the_right_figure_with_a_wrong_unit_is_found(
    check: Any, answer: str, currency: str | None, wrong: bool
) -> None:
    assert bool(ea.wrong_units(answer, (check,), "a question", currency)) is wrong


def test_wrong_units_reads_figures_inside_alternatives_and_spares_what_the_user_wrote() -> None:
    either = q.AnyOf("change", (q.Nums("orders: both", ((1_987.0,), (1_551.0,)), need=2), REVENUE))
    assert ea.wrong_units("Orders went from 1,551 units to 1,987 units.", (either,), "", None) == [
        "1,987 labelled as units (expected orders: orders: both)",
        "1,551 labelled as units (expected orders: orders: both)",
    ]
    budget = q.Num("the budget", (12_500,))
    assert ea.wrong_units("You said £12,500.", (budget,), "Our budget is £12,500.", None) == []
    assert ea.wrong_units("You said £12,500.", (budget,), "Our budget is 12,500.", None) != []
    share = q.Num("share", (0.25,), percent=True)
    assert ea.wrong_units("25% of units", (share,), "", None) == []  # a share has no unit word


@pytest.mark.parametrize(
    ("label", "unit"),
    [
        ("revenue from France", "money"),
        ("average order value", "money"),
        ("Regular revenue per customer", "money"),
        ("orders of 20345", "orders"),
        ("customers in United Kingdom", "customers"),  # "United" is not "unit"
        ("units of PINK LOVE SHOPPER BAG", "units"),
        ("buyers in 2025-03", "customers"),
        ("recency of 20345", "days"),
        ("2 facts about Germany", ""),
    ],
)
def test_a_figures_unit_is_read_from_its_label(label: str, unit: str) -> None:
    assert q.unit_of(q.Num(label, (1.0,))) == unit
    assert q.unit_of(q.Num(label, (0.5,), percent=True)) == ""
    assert q.unit_of(q.Num(label, (1.0,), unit="orders")) == "orders"


PROFIT = q.CannotAnswer("profit", r"profit|margin")
ASKED = "What's our profit margin on the RED ROSE MUG?"


@pytest.mark.parametrize(
    ("answer", "ok"),
    [
        (
            "I can't answer that from this data: it has no costs. I can tell you the mug's revenue or units.",
            True,
        ),
        ("There is no cost data, so no profit figure. Its revenue was 1,234.50 over 300 orders.", True),
        ("The profit margin on the RED ROSE MUG is 35%.", False),  # a made-up figure
        ("I can't answer that.", False),  # offers nothing instead
        ("Profit isn't recorded, but the margin is about 35%.", False),  # a figure after "but"
        ("I cannot compute the profit on its 300 orders; ask me for its revenue instead.", True),
        ("Sales were strong: 1,234.50 in revenue.", False),  # never says it cannot
    ],
)
def test_an_unanswerable_question_is_declined_with_an_offer_and_no_made_up_figure(
    answer: str, ok: bool
) -> None:
    assert (ea.check_failures(answer, (PROFIT,), ASKED) == []) is ok


def test_a_ranking_must_name_every_item_in_order() -> None:
    ranked = q.Ranked("segments by revenue", "segment", ("High Value", "At Risk", "Regular", "New"))
    assert ea.check_failures("High Value leads, then At Risk, Regular and New.", (ranked,), "") == []
    assert ea.check_failures("At Risk leads, then High Value, Regular and New.", (ranked,), "") != []
    assert ea.check_failures("High Value, At Risk and Regular.", (ranked,), "") != []
    countries = q.Ranked("countries", "country", ("United Kingdom", "Germany"))
    assert ea.check_failures("1. UK 2. Germany", (countries,), "") == []
    products = q.Ranked("products", "product", ("RED ROSE MUG", "PINK LOVE SHOPPER BAG"))
    assert ea.check_failures("Red rose mugs first, then pink love shopper bags", (products,), "") == []
    assert ea.check_failures("Pink Love Shopper Bag, then the Red Rose Mug", (products,), "") != []


def test_the_summary_counts_foreign_entities_and_wrong_units(thirteen_months: Path) -> None:
    turn = q.Turn("How much revenue in March 2025?", "trend", (REVENUE,))
    chat = q.Chat("c", (turn,))
    planned = ea.Planned(0, 0, turn, scored=True, restart=False)
    result = ea.evaluate(
        planned, chat, ea.Answer("13,332.33 units, mostly Germany.", 1.0), _vocab(), turn.text
    )
    assert result.foreign == ["country 'Germany'"] and len(result.wrong_units) == 1 and not result.passed
    run = ea.Run([result], "m", "r", q.load_oracle(thirteen_months), 1.0, 0, 42, "tuned", True)
    summary = ea.summary(run)
    assert (summary["foreign_entities"], summary["wrong_units"], summary["long_chat"]) == (1, 1, True)


@pytest.fixture(scope="module")
def thirteen_months(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small file shaped like the UCI one: 1 December to 9 December a year later."""
    path = tmp_path_factory.mktemp("retail13") / "retail.sqlite"
    config = GeneratorConfig(
        customers=400, transactions=8_000, products=200, end_date=date(2011, 12, 9), days=374
    )
    return generate_dataset(path, config)


def test_the_tuned_bank_builds_on_a_thirteen_month_file_and_skips_what_it_cannot_ask(
    thirteen_months: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    oracle = q.load_oracle(thirteen_months)
    chats = q.build_chats(oracle, seed=42)
    counts = q.count_categories(chats)
    assert set(counts) == set(q.CATEGORIES) and sum(counts.values()) >= 105
    texts = [t.text for chat in chats for t in chat.turns]
    assert not any(" revenue compare with " in t for t in texts)  # no two full years: not asked
    assert any("December 2011" in t and "orders" in t for t in texts)  # the only month with a year before
    # --list's table: one line per category, and the total
    plan = ea.plan_turns(chats)
    printed = ea.print_plan(chats, plan)
    assert sum(printed["tuned"].values()) == sum(counts.values())
    assert f"{sum(counts.values()):9} scored" in capsys.readouterr().out


def test_the_oracle_reads_the_declared_currency(thirteen_months: Path, tmp_path: Path) -> None:
    assert q.load_oracle(thirteen_months).currency is None
    copy = tmp_path / "gbp.sqlite"
    copy.write_bytes(thirteen_months.read_bytes())
    with sqlite3.connect(copy) as conn:
        conn.execute("INSERT INTO meta (key, value) VALUES ('currency', 'gbp')")
    assert q.load_oracle(copy).currency == "GBP"

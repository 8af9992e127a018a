"""Readings in real Chromium (docs/architecture.md#editing-a-reading): under an answer computed by
analyze_sales, the tool's own answer and its reading as chips; changing a chip computes the answer
again without the model, and the new turn shows live on another device and after a reload."""

from collections.abc import Callable
from typing import Any

import pytest
from browser_ui import ASSISTANT, ASSISTANT_TEXT, PHONE, USER_TEXT, chart_values, login, new_chat, send
from chat_helpers import computed
from playwright.sync_api import BrowserContext, Locator, Page, expect

from agent_orchestrator.retail.db import open_readonly
from agent_orchestrator.testing.scripted_model import ScriptedModel, ToolCall

ASKED = {"measure": "revenue", "countries": ["Germany"], "period": "2025"}
MODEL_WORDS = "Germany had a good 2025."


def expect_changed_turn(page: Page, answer: str, prompt: str) -> Locator:
    """The chat ends with the changed reading's line and its answer, whose country chip says France."""
    expect(page.locator(USER_TEXT).last).to_have_text(prompt)
    expect(page.locator(ASSISTANT_TEXT).last).to_have_text(answer)
    reading = page.locator(ASSISTANT).last.get_by_test_id("reading")
    expect(reading.get_by_test_id("reading-country")).to_have_value("France")
    expect(reading.get_by_test_id("reading-answer")).to_have_count(0)  # the answer is the tool's text
    return reading


def test_a_reading_shown_as_chips_is_changed_and_the_answer_recomputed_on_every_device(
    page: Page,
    new_context: Callable[..., BrowserContext],
    user: Callable[[str], str],
    browser_app: Any,
    scripted_model: ScriptedModel,
    csp_violations: list[str],
) -> None:
    alice = user("alice")
    login(page, alice)
    new_chat(page)
    scripted_model.script(ToolCall("retail-analytics-analyze_sales", ASKED), MODEL_WORDS)
    expect(send(page, "How much did Germany sell in 2025?")).to_have_text(MODEL_WORDS)
    asked = computed(browser_app, ASKED)
    reading = page.locator(ASSISTANT).last.get_by_test_id("reading")
    expect(reading.get_by_test_id("reading-answer")).to_have_text(asked["answer"])  # under the model's words
    expect(reading.get_by_test_id("reading-chip")).to_have_count(4)  # measure, country, period, comparison
    expect(reading.get_by_test_id("reading-measure")).to_have_value("revenue")
    expect(reading.get_by_test_id("reading-period")).to_have_value("2025")
    expect(reading.get_by_test_id("reading-compare")).to_have_value("")
    country = reading.get_by_test_id("reading-country")
    expect(country).to_have_value("Germany")
    expect(country).to_be_enabled()  # once the data's countries are in

    laptop = new_context().new_page()  # a second device, with the chat open
    login(laptop, alice)
    expect(laptop.locator(ASSISTANT_TEXT)).to_have_text([MODEL_WORDS])

    model_calls = len(scripted_model.requests)
    country.select_option("France")
    changed = computed(browser_app, {**ASKED, "countries": ["France"]})
    prompt = "Reading changed: Revenue · France · 2025"
    expect_changed_turn(page, changed["answer"], prompt)
    expect_changed_turn(laptop, changed["answer"], prompt)  # live, from the feed
    assert len(scripted_model.requests) == model_calls  # recomputed by code, not by the model
    # The answer it was changed from stays as it was.
    expect(page.locator(ASSISTANT).first.get_by_test_id("reading-country")).to_have_value("Germany")

    page.reload()  # from the stored conversation
    expect(page.locator(ASSISTANT_TEXT)).to_have_text([MODEL_WORDS, changed["answer"]])
    expect_changed_turn(page, changed["answer"], prompt)

    # The reloaded chips change again, as any.
    page.locator(ASSISTANT).last.get_by_test_id("reading-measure").select_option("orders")
    orders = computed(browser_app, {**ASKED, "measure": "orders", "countries": ["France"]})
    expect(page.locator(ASSISTANT_TEXT).last).to_have_text(orders["answer"])
    assert csp_violations == []


def test_a_ranking_turns_from_highest_to_lowest_and_its_chart_follows(
    page: Page, user: Callable[[str], str], browser_app: Any, scripted_model: ScriptedModel
) -> None:
    login(page, user("alice"))
    new_chat(page)
    top = {"measure": "revenue", "group_by": "country", "limit": 3}
    scripted_model.script(ToolCall("retail-analytics-analyze_sales", top), "The top three countries.")
    send(page, "Which three countries bring the most revenue?")
    reading = page.locator(ASSISTANT).last.get_by_test_id("reading")
    expect(reading.get_by_test_id("reading-limit")).to_have_value("3")
    order = reading.get_by_test_id("reading-order")
    expect(order).to_have_text("highest first")
    order.click()
    bottom = computed(browser_app, {**top, "order": "lowest"})
    answer = page.locator(ASSISTANT_TEXT).last  # the tool's ranking, one row a list item
    expect(answer).to_contain_text("Revenue, bottom 3 countries, all time:")
    rows = [f"{row['label']}: {row['revenue']:,.2f}" for row in bottom["rows"]]
    expect(answer.locator("li")).to_contain_text(rows)
    expect(page.locator(ASSISTANT).last.get_by_test_id("reading-order")).to_have_text("lowest first")
    chart = page.locator(ASSISTANT).last.get_by_test_id("chart")
    assert chart_values(chart) == [[row["revenue"] for row in bottom["rows"]]]

    # "bottom 3 of N": Show all lists every country, computed again by code.
    groups = bottom["groups"]
    assert groups > 3
    show_all = page.locator(ASSISTANT).last.get_by_test_id("reading-show-all")
    expect(show_all).to_have_text(f"Show all {groups}")
    show_all.click()
    every = computed(browser_app, {**top, "order": "lowest", "limit": groups})
    expect(page.locator(ASSISTANT_TEXT).last.locator("li")).to_have_count(groups)
    expect(page.locator(ASSISTANT_TEXT).last).to_contain_text(every["answer"].splitlines()[0])
    expect(page.locator(ASSISTANT).last.get_by_test_id("reading-show-all")).to_have_count(0)  # all shown


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])
def test_products_and_a_period_left_out_are_chips_that_stay_when_another_is_changed(
    page: Page,
    user: Callable[[str], str],
    browser_app: Any,
    scripted_model: ScriptedModel,
    viewport: dict[str, int] | None,
) -> None:
    """Several products left out, a month left out of the year and the biggest customer left out
    read as chips of their own, wrapped within a phone's width; the query sent back keeps them when
    the measure changes."""
    conn = open_readonly(browser_app.web.retail_db)
    try:
        names = [n for (n,) in conn.execute("SELECT description FROM products ORDER BY stock_code LIMIT 2")]
    finally:
        conn.close()
    asked = {"period": "2025", "exclude_period": "2025-12", "exclude_products": names, "exclude_top": 1}
    login(page, user("alice"))
    new_chat(page)
    if viewport:
        page.set_viewport_size(viewport)
    scripted_model.script(ToolCall("retail-analytics-analyze_sales", asked), "Without them.")
    send(page, "2025 revenue without those two, December or our biggest customer?")
    first = computed(browser_app, asked)
    reading = page.locator(ASSISTANT).last.get_by_test_id("reading")
    expect(reading.get_by_test_id("reading-answer")).to_have_text(first["answer"])
    chips = reading.get_by_test_id("reading-chip")
    labels = [
        c["label"]
        for c in first["chips"]
        if c["field"] in ("exclude_products", "exclude_period", "exclude_top")
    ]
    assert len(labels) == 4 and labels[3] == "excluding December 2025"
    for label in labels:
        expect(chips.filter(has_text=label)).to_have_count(1)
    reading.get_by_test_id("reading-measure").select_option("orders")
    orders = computed(browser_app, {**asked, "measure": "orders"})
    expect(page.locator(ASSISTANT_TEXT).last).to_have_text(orders["answer"])
    assert "excluding December 2025" in orders["answer"] and names[1] in orders["answer"]
    if viewport:
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_the_chips_choices_are_fetched_again_once_a_minute_old(
    page: Page, user: Callable[[str], str], scripted_model: ScriptedModel
) -> None:
    """A tab kept open all day offers what the data holds now (an import's new months): the chips'
    choices are kept for a minute, then fetched again."""
    page.clock.install()  # the page's clock, moved on below instead of waiting a minute
    fetched: list[str] = []
    page.on(
        "request", lambda request: fetched.append(request.url) if "/analysis/options" in request.url else None
    )
    login(page, user("alice"))
    new_chat(page)
    for question in ("How much did Germany sell in 2025?", "And again?"):
        scripted_model.script(ToolCall("retail-analytics-analyze_sales", ASKED), MODEL_WORDS)
        expect(send(page, question)).to_have_text(MODEL_WORDS)
        expect(page.locator(ASSISTANT).last.get_by_test_id("reading-country")).to_be_enabled()
    assert len(fetched) == 1  # the second reading's chips used the choices fetched for the first
    page.clock.fast_forward("01:05")
    scripted_model.script(ToolCall("retail-analytics-analyze_sales", ASKED), MODEL_WORDS)
    expect(send(page, "Once more?")).to_have_text(MODEL_WORDS)
    expect(page.locator(ASSISTANT).last.get_by_test_id("reading-country")).to_be_enabled()
    assert len(fetched) == 2

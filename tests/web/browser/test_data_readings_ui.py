"""A store export's own columns asked about in real Chromium (docs/architecture.md#the-semantic-model):
the admin imports the file through the Data page, ``query_data`` answers with a reading shown as chips
of the file's columns, a changed chip computes the answer again without the model, and a name the data
holds several of is answered with its choices as buttons, one picked by a click; at a desktop's and at
a phone's width.

The import changes the dataset, so this module has an app of its own (the directory's app is shared
by every other browser test, which expect its generated data). The file is imported once per app,
in the fixture, through the page as an admin does it; each test then chats as a fresh analyst.
"""

import asyncio
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from browser_ui import ASSISTANT, ASSISTANT_TEXT, PASSWORD, PHONE, USER_TEXT, login, new_chat, send
from playwright.sync_api import Browser, ConsoleMessage, Locator, Page, expect
from sales_csv import STORE_EXPORT

from agent_orchestrator.background_server import BackgroundServer
from agent_orchestrator.retail import GeneratorConfig, generate_dataset
from agent_orchestrator.runtime import RuntimeSettings
from agent_orchestrator.sessions.store import UserStore, make_engine, migrate
from agent_orchestrator.settings import WebSettings
from agent_orchestrator.testing.scripted_model import ScriptedModel, Text, ToolCall
from agent_orchestrator.web.app import create_app

SMALL_RETAIL = GeneratorConfig(seed=7, customers=300, transactions=6_000, products=200)
TOOL = "retail-analytics-query_data"
# The store export of tests/web/test_data_readings.py: columns no Online Retail file has (Region,
# Segment, Profit) and two customers called Chand.
BY_REGION = {"metrics": ["profit"], "group_by": [{"column": "region"}]}
CHAND = {"metrics": ["orders"], "filters": [{"column": "customer_name", "op": "in", "values": ["Chand"]}]}
WHICH = "Which customer do you mean: Darrin Chand or Sean Chand?"


@dataclass
class StoreSite:
    url: str
    users: UserStore
    _numbers: Iterator[int]

    def new_user(self, prefix: str) -> str:
        """A fresh analyst (password :data:`PASSWORD`): each test starts with an empty sidebar."""
        username = f"{prefix}{next(self._numbers)}"
        self.users.create(username, PASSWORD)
        return username


def csp_watch(page: Page) -> list[str]:
    """Console errors about the Content Security Policy, collected from now on."""
    seen: list[str] = []

    def on_console(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text:
            seen.append(message.text)

    page.on("console", on_console)
    return seen


def import_store_file(page: Page, path: Path) -> None:
    """The admin uploads the file on the Data page, confirms the mapping as suggested and imports it
    (replacing the generated data, the form's default); returns once the report is shown."""
    page.get_by_test_id("nav-data").click()
    expect(page.get_by_test_id("data-facts")).to_contain_text("6,000")  # the generated version zero
    page.get_by_test_id("upload-file").set_input_files(path)
    page.get_by_test_id("upload-send").click()
    expect(page.get_by_test_id("mapping-form")).to_be_visible()
    expect(page.get_by_test_id("preview-table").locator("tbody tr")).to_have_count(4)
    expect(page.get_by_test_id("mode-replace")).to_be_checked()
    page.get_by_test_id("import-start").click()
    expect(page.get_by_test_id("import-report")).to_contain_text("Imported store.csv", timeout=60_000)
    expect(page.get_by_test_id("mapping-form")).to_be_hidden()
    versions = page.get_by_test_id("versions-table").locator("tbody tr")
    expect(versions.first).to_contain_text("store.csv")
    expect(versions.first.get_by_test_id("version-active")).to_be_visible()


@pytest.fixture(scope="module")
def store_site(
    tmp_path_factory: pytest.TempPathFactory,
    scripted_server: ScriptedModel,
    browser: Browser,
    playwright_loop: asyncio.AbstractEventLoop,
) -> Iterator[StoreSite]:
    """An app of its own, started like the directory's, with the store export imported through the
    Data page by ``owner`` (the first account: the admin)."""
    data_dir = tmp_path_factory.mktemp("data-readings")
    web = WebSettings(
        data_dir=data_dir,
        database_url=f"sqlite:///{data_dir / 'catalog.sqlite'}",
        lease_ttl=5.0,
        retail_dataset=True,
        live_feed_seconds=2.0,
    )
    generate_dataset(web.retail_db, SMALL_RETAIL)  # version zero; the app skips its own generation
    engine = make_engine(web.database_url)
    migrate(engine)
    users = UserStore(engine)
    assert users.create("owner", PASSWORD).is_admin  # the first account created
    runtime = RuntimeSettings(
        data_dir=data_dir, provider_base_url=scripted_server.base_url, model="scripted-model", turn_timeout=60
    )
    server = BackgroundServer(create_app(web, runtime), health_path="/api/health")
    url = server.start(timeout=60)
    try:
        path = data_dir / "store.csv"
        path.write_text(STORE_EXPORT)
        # Playwright's loop is marked running only while a browser test runs (tests/browser_fixtures.py):
        # mark it for the import, as for a test, and clear it again after.
        asyncio._set_running_loop(playwright_loop)
        try:
            context = browser.new_context(base_url=url)
            try:
                page = context.new_page()
                violations = csp_watch(page)
                login(page, "owner")
                import_store_file(page, path)
                assert violations == []
            finally:
                context.close()
        finally:
            asyncio._set_running_loop(None)
        yield StoreSite(url, users, itertools.count(1))
    finally:
        server.stop()
        engine.dispose()


@pytest.fixture(scope="module")
def browser_context_args(store_site: StoreSite) -> dict[str, Any]:
    """This module's pages open this module's app (``page.goto("/")``), not the directory's."""
    return {"base_url": store_site.url}


def option_values(select: Locator) -> list[str]:
    return select.locator("option").evaluate_all("(options) => options.map((o) => o.value)")


def expect_usable(control: Locator, viewport: dict[str, int] | None) -> None:
    """Shown, enabled and, on a phone, wholly inside the screen's width."""
    expect(control).to_be_visible()
    expect(control).to_be_enabled()
    if viewport:
        expect(control).to_be_in_viewport()
        box = control.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], box


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])
def test_the_files_own_columns_are_chips_a_change_recomputes_and_a_choice_answers(
    page: Page,
    store_site: StoreSite,
    scripted_model: ScriptedModel,
    csp_violations: list[str],
    viewport: dict[str, int] | None,
) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    login(page, store_site.new_user("analyst"))
    new_chat(page)
    if viewport:
        page.set_viewport_size(viewport)

    # query_data over the file's own columns: the tool's answer under the model's words, its reading
    # as chips whose choices are the file's (GET /api/datasets/model).
    answers = page.locator(ASSISTANT)
    scripted_model.script(ToolCall(TOOL, BY_REGION), Text("Here is the profit by region."))
    expect(send(page, "What is the profit by region?")).to_have_text("Here is the profit by region.")
    reading = answers.nth(0).get_by_test_id("reading")
    expect(reading.get_by_test_id("reading-answer")).to_have_text(  # its lines, whitespace folded
        "Profit by region, all time: 1. South: 261.50 2. West: -376.16 Total of the 2: -114.66"
    )
    assert reading.get_by_test_id("reading-answer").inner_text().splitlines() == [
        "Profit by region, all time:",
        "1. South: 261.50",
        "2. West: -376.16",
        "",
        "Total of the 2: -114.66",
    ]
    expect(reading.get_by_test_id("reading-chip")).to_have_count(3)  # metric, breakdown, period
    metric, group = reading.get_by_test_id("reading-metric"), reading.get_by_test_id("reading-group")
    period = reading.get_by_test_id("reading-period")
    expect(metric).to_have_value("profit")
    expect(group).to_have_value("region")
    expect(period).to_have_value("")  # all time
    expect(reading.get_by_test_id("reading-order")).to_have_text("highest first")
    expect(reading.get_by_test_id("reading-limit")).to_have_value("10")
    assert {"profit", "revenue"} <= set(option_values(metric))
    assert {"region", "segment"} <= set(option_values(group))  # the file's own columns
    periods = option_values(period)
    # All time, then the years and months of the file's dates (October 2015 to November 2016), newest first.
    assert periods[:3] == ["", "2016-01-01..2016-12-31", "2016-11-01..2016-11-30"], periods
    assert periods[-1] == "2015-10-01..2015-10-31" and len(periods) == 1 + 2 + 14, periods
    for chip in (metric, group, period):
        expect_usable(chip, viewport)

    # The breakdown changed: a new turn, computed by code, not by the model.
    model_calls = len(scripted_model.requests)
    group.select_option("segment")
    expect(page.locator(USER_TEXT).nth(1)).to_have_text("Reading changed: Profit · by segment · all time")
    by_segment = answers.nth(1)
    expect(by_segment.locator(".message-body p").first).to_have_text("Profit by segment, all time:")
    expect(by_segment.locator(".message-body li")).to_have_text(["Corporate: 6.87", "Consumer: -121.54"])
    changed = by_segment.get_by_test_id("reading")
    expect(changed.get_by_test_id("reading-group")).to_have_value("segment")
    expect(changed.get_by_test_id("reading-metric")).to_have_value("profit")
    expect(changed.get_by_test_id("reading-answer")).to_have_count(0)  # the answer is the tool's text
    expect(group).to_have_value("region")  # the reading it was changed from stays as it was
    assert len(scripted_model.requests) == model_calls

    # The new turn's metric changed in turn.
    expect_usable(changed.get_by_test_id("reading-metric"), viewport)
    changed.get_by_test_id("reading-metric").select_option("revenue")
    expect(page.locator(USER_TEXT).nth(2)).to_have_text("Reading changed: Revenue · by segment · all time")
    expect(answers.nth(2).locator(".message-body p").first).to_have_text("Revenue by segment, all time:")
    expect(answers.nth(2).get_by_test_id("reading-metric")).to_have_value("revenue")
    assert len(scripted_model.requests) == model_calls

    # A name the data holds two of: the choices as buttons, never one guessed; a click answers.
    scripted_model.script(ToolCall(TOOL, CHAND), Text(WHICH))
    expect(send(page, "How many orders did Chand place?")).to_have_text(WHICH)
    asked = answers.nth(3).get_by_test_id("reading")
    choices = asked.get_by_test_id("reading-choice")
    expect(choices).to_have_text(["Darrin Chand", "Sean Chand"])
    expect(asked.get_by_test_id("reading-chip")).to_have_count(0)
    expect(asked.get_by_test_id("reading-answer")).to_have_count(0)
    for choice in choices.all():
        expect_usable(choice, viewport)
    model_calls = len(scripted_model.requests)
    choices.filter(has_text="Sean Chand").click()
    expect(page.locator(USER_TEXT).nth(4)).to_have_text(
        "Reading changed: Orders · Customer name Sean Chand · all time"
    )
    expect(page.locator(ASSISTANT_TEXT).nth(4)).to_have_text("Orders, Customer name Sean Chand, all time: 1.")
    picked = answers.nth(4).get_by_test_id("reading")
    expect(picked.get_by_test_id("reading-metric")).to_have_value("orders")
    # Customer names are a label column, which offers no values to choose from (/api/datasets/model
    # lists a dimension's only): the name's chip is shown, not a control.
    expect(picked.get_by_test_id("reading-chip").filter(has_text="Customer name Sean Chand")).to_have_count(1)
    expect(picked.get_by_test_id("reading-filter")).to_have_count(0)
    assert len(scripted_model.requests) == model_calls
    expect(page.locator(ASSISTANT_TEXT)).to_have_count(5)  # two asked, three changed or picked

    if viewport:
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    assert csp_violations == []
    expect(choices.first).to_be_enabled()  # drawn again once the pick was sent: it can be made again
    assert errors == [], errors


def test_a_ranking_of_the_files_columns_shows_all_its_groups_on_request(
    page: Page, store_site: StoreSite, scripted_model: ScriptedModel
) -> None:
    login(page, store_site.new_user("analyst"))
    new_chat(page)
    scripted_model.script(ToolCall(TOOL, {**BY_REGION, "limit": 1}), Text("The top region."))
    expect(send(page, "Which region makes the most profit?")).to_have_text("The top region.")
    reading = page.locator(ASSISTANT).last.get_by_test_id("reading")
    expect(reading.get_by_test_id("reading-answer")).to_contain_text("(top 1 of 2)")
    reading.get_by_test_id("reading-show-all").click()
    expect(page.locator(ASSISTANT_TEXT).last.locator("li")).to_have_text(["South: 261.50", "West: -376.16"])
    expect(page.locator(ASSISTANT).last.get_by_test_id("reading-show-all")).to_have_count(0)

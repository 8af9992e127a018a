"""Charts in real Chromium: the chat draws what the tools returned, the retail pages draw the API's data.

Each chart is checked for the points or bars Chart.js actually drew against the data behind it, and
for its table. Chart.js comes from npm through our own origin under the strict CSP: a violation
would show up in the console, which the tests watch.
"""

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from browser_ui import (
    ASSISTANT,
    PHONE,
    api,
    chart_points,
    chart_values,
    current_session,
    last_tool_result,
    login,
    new_chat,
    send,
)
from playwright.sync_api import BrowserContext, Page, expect

from agent_orchestrator.testing.scripted_model import ScriptedModel, Text, ToolCall, message_text

TREND_QUESTION = "How did revenue develop over the last 6 months?"
# A figure the model makes up: the chart must not show it, because it is drawn from the tool's data.
INVENTED = 999_999.99


def answer_naming_the_top_customers(body: dict[str, Any]) -> Text:
    tool_messages = [m for m in body["messages"] if m["role"] == "tool"]
    rows = json.loads(message_text(tool_messages[-1]))["customers"]
    return Text(f"The top customer is customer {rows[0]['id']}, followed by {rows[1]['id']}.")


def expect_trend_chart(page: Page, months: list[dict[str, Any]]) -> None:
    figure = page.locator(ASSISTANT).last.get_by_test_id("chart")
    expect(figure).to_have_count(1)
    expect(figure).to_have_attribute("data-tool", "monthly_trend")
    assert chart_points(figure) == [len(months)] * 3  # revenue, orders, buyers
    revenue, orders, buyers = chart_values(figure)
    assert revenue == [m["revenue"] for m in months] and INVENTED not in revenue
    assert (orders, buyers) == ([m["orders"] for m in months], [m["buyers"] for m in months])
    figure.locator("summary").click()  # the text equivalent
    table = figure.get_by_test_id("chart-table")
    expect(table.locator("thead th")).to_have_text(["Month", "Revenue", "Orders", "Buyers"])
    expect(table.locator("tbody th")).to_have_text([m["month"] for m in months])


def test_a_trend_answer_shows_the_tools_data_as_a_chart_after_reload_and_on_another_device(
    page: Page,
    new_context: Callable[..., BrowserContext],
    user: Callable[[str], str],
    scripted_model: ScriptedModel,
    csp_violations: list[str],
) -> None:
    alice = user("alice")
    login(page, alice)
    new_chat(page)
    scripted_model.script(
        ToolCall("retail-analytics-monthly_trend", {"months": 6}), f"Revenue reached {INVENTED:,} last month."
    )
    answer = send(page, TREND_QUESTION)
    expect(answer).to_contain_text("Revenue reached")
    months = last_tool_result(scripted_model)["months"]
    assert len(months) == 6
    expect_trend_chart(page, months)  # live, from the SSE "done" event

    page.reload()  # from the stored conversation (the runtime's event log)
    expect_trend_chart(page, months)

    laptop = new_context().new_page()
    login(laptop, alice)
    expect_trend_chart(laptop, months)
    assert csp_violations == []


def _chart_before_text(page: Page) -> bool:
    """Whether the last answer's chart comes before its text."""
    return page.locator(ASSISTANT).last.evaluate(
        """item => {
            const chart = item.querySelector('[data-testid="chart"]');
            const body = item.querySelector('.message-body');
            return Boolean(chart.compareDocumentPosition(body) & Node.DOCUMENT_POSITION_FOLLOWING);
        }"""
    )


def test_a_chart_that_was_asked_for_comes_before_the_text(
    page: Page, user: Callable[[str], str], scripted_model: ScriptedModel
) -> None:
    login(page, user("alice"))
    new_chat(page)
    trend = ToolCall("retail-analytics-monthly_trend", {"months": 6})
    scripted_model.script(trend, "Revenue grew.")
    send(page, TREND_QUESTION)
    expect(page.locator(ASSISTANT).last.get_by_test_id("chart")).to_have_count(1)
    assert not _chart_before_text(page)  # not asked for: under the answer
    scripted_model.script(trend, "Here is the chart.")
    send(page, "Show me a chart of monthly revenue")
    expect(page.locator(ASSISTANT).last.get_by_test_id("chart")).to_have_count(1)
    assert _chart_before_text(page)  # live
    page.reload()
    expect(page.locator(ASSISTANT).last.get_by_test_id("chart")).to_have_count(1)
    assert _chart_before_text(page)  # and from the stored conversation
    assert not page.locator(ASSISTANT).first.evaluate(
        "i => i.firstElementChild.nextElementSibling.matches('[data-testid=chart]')"
    )


def test_customer_ids_in_an_answer_open_the_customer_page_and_back_returns_to_the_chat(
    page: Page, user: Callable[[str], str], scripted_model: ScriptedModel, csp_violations: list[str]
) -> None:
    login(page, user("alice"))
    new_chat(page)
    scripted_model.script(
        ToolCall("retail-analytics-top_customers", {"limit": 3}), answer_naming_the_top_customers
    )
    answer = send(page, "Who are our top 3 customers?")
    rows = last_tool_result(scripted_model)["customers"]
    links = answer.locator("a.customer-link")
    expect(links).to_have_text([f"customer {rows[0]['id']}", str(rows[1]["id"])])
    figure = page.locator(ASSISTANT).last.get_by_test_id("chart")
    assert chart_points(figure) == [3]
    assert chart_values(figure) == [[row["revenue"] for row in rows]]

    links.first.click()
    expect(page.get_by_test_id("customer-title")).to_have_text(f"Customer #{rows[0]['id']}")
    expect(page).to_have_url(re.compile(rf"#customer/{rows[0]['id']}$"))
    expect(page.get_by_test_id("nav-customers")).to_have_class(re.compile(r"\bactive\b"))
    page.go_back()
    expect(page.locator("#view-chat")).to_be_visible()
    expect(page.get_by_test_id("nav-chat")).to_have_class(re.compile(r"\bactive\b"))
    assert csp_violations == []


def test_segments_page_charts_the_shares_and_a_chosen_segments_trend(
    page: Page, user: Callable[[str], str], csp_violations: list[str]
) -> None:
    login(page, user("alice"))
    page.get_by_test_id("nav-segments").click()
    overview = api(page, "GET", "/api/retail/segments")["body"]

    shares = page.get_by_test_id("segments-share-chart").get_by_test_id("chart")
    assert chart_points(shares) == [4, 4]
    assert chart_values(shares) == [
        [s["customer_share"] for s in overview["segments"]],
        [s["revenue_share"] for s in overview["segments"]],
    ]

    trend = page.get_by_test_id("segments-trend-chart").get_by_test_id("chart")
    assert chart_points(trend) == [12, 12, 12]  # High Value, 12 months by default
    page.get_by_test_id("trend-segment").select_option("At Risk")
    page.get_by_test_id("trend-months").select_option("24")
    expect(trend.locator("figcaption")).to_have_text("At Risk: revenue, orders and buyers per month")
    expected = api(page, "GET", "/api/retail/segments/At%20Risk/trend?months=24")["body"]["months"]
    page.wait_for_function(
        "(canvas) => window.Chart.getChart(canvas)?.data.labels.length === 24",
        arg=trend.locator("canvas").element_handle(),
    )
    assert chart_points(trend) == [24, 24, 24]
    assert chart_values(trend) == [
        [p["revenue"] for p in expected],
        [p["orders"] for p in expected],
        [p["active_customers"] for p in expected],
    ]
    trend.locator("summary").click()
    expect(trend.get_by_test_id("chart-table").locator("tbody tr")).to_have_count(24)
    assert csp_violations == []


def test_the_customer_page_from_the_table_has_a_purchase_timeline_and_top_products(
    page: Page, user: Callable[[str], str], csp_violations: list[str]
) -> None:
    login(page, user("alice"))
    page.get_by_test_id("nav-customers").click()
    first = page.get_by_test_id("customers-table").locator("tbody a.customer-link").first
    customer_id = first.inner_text().removeprefix("#")
    first.click()
    expect(page.get_by_test_id("customer-title")).to_have_text(f"Customer #{customer_id}")
    detail = api(page, "GET", f"/api/retail/customers/{customer_id}")["body"]
    timeline = api(page, "GET", f"/api/retail/customers/{customer_id}/trend?months=24")["body"]["months"]
    expect(page.get_by_test_id("customer-segment")).to_have_text(detail["segment"])

    charts = page.get_by_test_id("customer-body").get_by_test_id("chart")
    expect(charts).to_have_count(2)
    assert chart_points(charts.first) == [len(timeline)] * 2  # revenue bars, orders line
    assert chart_values(charts.first) == [[p["revenue"] for p in timeline], [p["orders"] for p in timeline]]
    assert chart_points(charts.last) == [len(detail["top_products"])]
    products = page.get_by_test_id("customer-products").locator("tbody tr")
    expect(products).to_have_count(len(detail["top_products"]))

    page.reload()  # the page is in the URL
    expect(page.get_by_test_id("customer-title")).to_have_text(f"Customer #{customer_id}")
    page.get_by_test_id("customer-back").click()
    expect(page.get_by_test_id("customers-table")).to_be_visible()

    page.goto("/#customer/99999999")
    expect(page.locator("#customer-error")).to_have_text("There is no customer #99999999.")
    assert csp_violations == []


def test_an_imported_chats_tool_results_show_as_imported_text_and_never_as_a_chart(
    page: Page, user: Callable[[str], str], scripted_model: ScriptedModel, csp_violations: list[str], tmp_path
) -> None:
    login(page, user("alice"))
    new_chat(page)
    scripted_model.script(ToolCall("retail-analytics-monthly_trend", {"months": 6}), "Revenue grew.")
    send(page, TREND_QUESTION)
    original = current_session(page)
    expect(page.locator(ASSISTANT).last.get_by_test_id("chart")).to_have_count(1)
    with page.expect_download() as download:
        page.get_by_test_id("export-json").click()
    saved = tmp_path / "chat.json"
    download.value.save_as(saved)

    page.get_by_test_id("import-file").set_input_files(saved)
    expect(page.get_by_test_id("status-line")).to_have_text("Imported 1 chat.")
    answer = page.locator(ASSISTANT).last
    expect(answer.locator(".message-body")).to_have_text("Revenue grew.")
    assert current_session(page) != original
    expect(answer.get_by_test_id("chart")).to_have_count(0)  # the file's word, not our tool's
    imported = answer.get_by_test_id("imported-tools")
    expect(imported.locator("summary")).to_have_text(
        "Imported tool results (from the file, not this server's tools)"
    )
    imported.locator("summary").click()
    expect(imported.locator(".imported-tool-name")).to_have_text(["monthly_trend"])
    expect(imported.locator("pre")).to_contain_text('"months"')
    assert csp_violations == []


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])
def test_an_answer_and_its_charts_figures_can_be_copied(
    page: Page, user: Callable[[str], str], scripted_model: ScriptedModel, viewport: dict[str, int] | None
) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    login(page, user("alice"))
    new_chat(page)
    if viewport:
        page.set_viewport_size(viewport)
    scripted_model.script(
        ToolCall("retail-analytics-monthly_trend", {"months": 3}), "Revenue rose each month."
    )
    expect(send(page, TREND_QUESTION)).to_contain_text("Revenue rose each month.")
    months = last_tool_result(scripted_model)["months"]
    answer = page.locator(ASSISTANT).last
    answer.get_by_test_id("message-copy").click()
    assert page.evaluate("navigator.clipboard.readText()") == "Revenue rose each month."
    answer.get_by_test_id("message-copy-figures").click()
    lines = page.evaluate("navigator.clipboard.readText()").splitlines()
    assert lines[1].split("\t") == ["Month", "Revenue", "Orders", "Buyers"]
    rows = [line.split("\t") for line in lines[2:]]
    assert [(month, float(revenue)) for month, revenue, *_ in rows] == [
        (m["month"], m["revenue"]) for m in months
    ]

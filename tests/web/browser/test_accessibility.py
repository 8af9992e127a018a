"""Every page and panel of the app passes axe-core with no serious or critical violation
(docs/architecture.md#accessibility), at a desktop's and a phone's width: the sign-in page, the chat
(its start screen, a conversation with a chart's table open, a chat's menu, the share and activity
panels), the Segments, Customers (and one customer's), Data and Settings pages, and a shared chat.
The Data page's mapping step is checked where an admin uploads (``test_data_page.py``)."""

from collections.abc import Callable

import pytest
from browser_ui import PHONE, accessibility_problems, api, current_session, login, new_chat, send
from playwright.sync_api import Page, expect

from agent_orchestrator.testing.scripted_model import ScriptedModel, ToolCall


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])
def test_every_page_and_panel_has_no_serious_accessibility_problem(
    page: Page,
    user: Callable[[str], str],
    scripted_model: ScriptedModel,
    viewport: dict[str, int] | None,
) -> None:
    if viewport:
        page.set_viewport_size(viewport)
    problems: dict[str, list[str]] = {}

    def check(where: str) -> None:
        found = accessibility_problems(page)
        if found:
            problems[where] = found

    page.goto("/")
    expect(page.get_by_test_id("login-username")).to_be_visible()
    check("sign-in")
    login(page, user("alice"))
    if viewport:
        page.locator("#sidebar-toggle").click()  # New chat is in the drawer
    new_chat(page)
    expect(page.get_by_test_id("start-suggestion")).not_to_have_count(0)
    check("chat: start screen")
    scripted_model.script(ToolCall("retail-analytics-monthly_trend", {"months": 6}), "Revenue grew.")
    send(page, "How did revenue go?")
    expect(page.get_by_test_id("feedback")).to_be_visible()  # the answer's actions, rating included
    page.locator(".chart-data summary").first.click()  # its chart's figures as a table
    check("chat: a conversation with a chart")
    scripted_model.script("Revenue grew, said again.")
    page.get_by_test_id("message-regenerate").click()
    expect(page.get_by_test_id("version-count")).to_have_text("2 / 2")
    check("chat: a question with versions")
    page.get_by_test_id("share-open").click()
    expect(page.get_by_test_id("share-create")).to_be_visible()
    check("chat: share panel")
    page.get_by_test_id("activity-open").click()
    expect(page.get_by_test_id("activity-step")).not_to_have_count(0)
    check("chat: activity panel")
    if viewport:
        page.locator("#sidebar-toggle").click()
    page.get_by_test_id("session-item").first.get_by_test_id("session-menu").click()
    check("chat: a chat's menu")
    page.keyboard.press("Escape")
    if viewport:
        page.keyboard.press("Escape")  # the drawer closes too
    for view in ("segments", "customers", "data", "settings"):
        page.get_by_test_id(f"nav-{view}").click()
        expect(page.locator(f"#view-{view}")).to_be_visible()
        check(view)
        if view == "customers":
            page.locator("#view-customers .customer-link").first.click()
            expect(page.locator("#view-customer")).to_be_visible()
            check("a customer")

    link = api(page, "POST", f"/api/sessions/{current_session(page)}/shares", {})
    page.goto(link["body"]["url"])
    expect(page.get_by_test_id("share-messages")).to_be_visible()
    check("a shared chat")
    assert problems == {}, "\n".join(
        f"{where}: {line}" for where, found in problems.items() for line in found
    )

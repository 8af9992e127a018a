"""Share links in real Chromium (docs/architecture.md#share-links): the owner makes a link from the
chat, a fresh browser (no account) opens it and sees the conversation read-only, a signed-in viewer
continues it as their own chat, and a revoked or expired link looks exactly like a made-up one; the
shared answer's chart is drawn; the panel's expiry and signed-in-only choice hold and Refresh shares
the chat as it is now, and a link for signed-in users asks a viewer to sign in on its own page; on a
desktop and at a phone's width."""

import re
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest
from browser_ui import (
    ASSISTANT,
    ASSISTANT_TEXT,
    PASSWORD,
    PHONE,
    USER_TEXT,
    api,
    chart_points,
    chart_values,
    last_tool_result,
    login,
    new_chat,
    send,
)
from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page, expect
from sqlalchemy import update

from agent_orchestrator.sessions.store import make_engine
from agent_orchestrator.sessions.store.schema import share_links, utcnow
from agent_orchestrator.testing.scripted_model import ScriptedModel, Text, ToolCall

VIEWPORTS = pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])


@VIEWPORTS
def test_a_link_opens_in_a_fresh_browser_continues_as_a_copy_and_dies_when_revoked(
    page: Page,
    browser: Browser,
    new_context: Callable[..., BrowserContext],
    user: Callable[[str], str],
    scripted_model: ScriptedModel,
    base_url: str,
    viewport: dict[str, int] | None,
) -> None:
    alice = user("alice")
    login(page, alice)
    new_chat(page)
    if viewport:
        page.set_viewport_size(viewport)
    scripted_model.script(Text("Germany leads with 31 % of revenue."))
    expect(send(page, "Which country leads?")).to_have_text("Germany leads with 31 % of revenue.")

    page.get_by_test_id("share-open").click()
    page.get_by_test_id("share-create").click()
    url = page.get_by_test_id("share-url").input_value()
    assert url.startswith(base_url) and "/share/" in url
    expect(page.get_by_test_id("share-item")).to_have_count(1)

    stranger = browser.new_context(base_url=base_url, viewport=viewport).new_page()  # no account
    stranger.goto(url)
    expect(stranger.get_by_test_id("share-title")).to_have_text("Which country leads")  # its title
    expect(stranger.locator(USER_TEXT)).to_have_text(["Which country leads?"])
    expect(stranger.locator(ASSISTANT_TEXT)).to_have_text(["Germany leads with 31 % of revenue."])
    expect(stranger.get_by_test_id("share-copy")).to_be_hidden()  # no account: read only
    assert stranger.locator("textarea, [data-testid=composer-send]").count() == 0  # never a way to send
    if viewport:
        assert stranger.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]

    bob = new_context().new_page()
    login(bob, user("bob"))
    bob.goto(url)
    bob.get_by_test_id("share-copy").click()
    # The app, not the share page (it shows the same messages), with the copy open: its last step.
    bob.wait_for_url(re.compile(r"/$"))
    expect(bob.get_by_test_id("composer-input")).to_be_focused()
    expect(bob.locator(ASSISTANT_TEXT)).to_have_text(["Germany leads with 31 % of revenue."], timeout=30_000)
    scripted_model.script(Text("Then France."))
    expect(send(bob, "And then?")).to_have_text("Then France.")  # bob's own chat

    page.get_by_test_id("share-revoke").click()
    expect(page.get_by_test_id("share-state")).to_have_text(re.compile(r"^revoked"))
    stranger.reload()
    expect(stranger.get_by_test_id("share-status")).not_to_have_text("Loading…")  # read once loaded
    revoked = stranger.get_by_test_id("share-status").text_content()
    stranger.goto(url[:-6] + "abcdef")
    expect(stranger.get_by_test_id("share-status")).to_have_text(revoked or "")
    expect(stranger.get_by_test_id("share-title")).to_be_hidden()


def share(page: Page, *, days: str | None = None, signed_in_only: bool = False) -> str:
    """Share the open chat from its panel; the new link's URL."""
    page.get_by_test_id("share-open").click()
    if days:
        page.get_by_test_id("share-days").select_option(days)
    if signed_in_only:
        page.get_by_test_id("share-signed-in").check()
    page.get_by_test_id("share-create").click()
    return page.get_by_test_id("share-url").input_value()


def shown(viewer: Page) -> dict[str, object]:
    """What a viewer's share page shows once loaded: its status, title and messages, and its text."""
    expect(viewer.get_by_test_id("share-status")).not_to_have_text("Loading…")
    return {
        "status": viewer.get_by_test_id("share-status").inner_text(),
        "title": viewer.get_by_test_id("share-title").is_visible(),
        "messages": viewer.get_by_test_id("message").count(),
        "copy": viewer.get_by_test_id("share-copy").is_visible(),
        "login": viewer.get_by_test_id("share-login").is_visible(),
        "text": viewer.locator("main").inner_text(),
    }


def alices_new_chat(page: Page, user: Callable[[str], str], viewport: dict[str, int] | None) -> None:
    """Alice signed in with a new chat open, then at ``viewport`` (the sidebar's button is a
    desktop's)."""
    login(page, user("alice"))
    new_chat(page)
    if viewport:
        page.set_viewport_size(viewport)


@VIEWPORTS
def test_a_shared_answer_draws_its_chart_in_a_fresh_browser(
    page: Page,
    browser: Browser,
    user: Callable[[str], str],
    scripted_model: ScriptedModel,
    base_url: str,
    viewport: dict[str, int] | None,
) -> None:
    alices_new_chat(page, user, viewport)
    scripted_model.script(ToolCall("retail-analytics-monthly_trend", {"months": 6}), Text("Revenue rose."))
    expect(send(page, "How did revenue develop over the last 6 months?")).to_have_text("Revenue rose.")
    months = last_tool_result(scripted_model)["months"]
    url = share(page)

    stranger = browser.new_context(base_url=base_url, viewport=viewport).new_page()  # no account
    csp_violations: list[str] = []

    def on_console(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text:
            csp_violations.append(message.text)

    stranger.on("console", on_console)
    stranger.goto(url)
    expect(stranger.locator(ASSISTANT_TEXT)).to_have_text(["Revenue rose."])
    figure = stranger.locator(ASSISTANT).last.get_by_test_id("chart")
    expect(figure).to_have_count(1)
    expect(figure).to_have_attribute("data-tool", "monthly_trend")
    assert chart_points(figure) == [6, 6, 6]  # revenue, orders, buyers
    revenue, orders, _ = chart_values(figure)
    assert (revenue, orders) == ([m["revenue"] for m in months], [m["orders"] for m in months])
    figure.locator("summary").click()  # the text equivalent
    expect(figure.get_by_test_id("chart-table").locator("tbody th")).to_have_text(
        [m["month"] for m in months]
    )
    if viewport:
        assert stranger.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert csp_violations == []  # Chart.js from our origin, under the share page's CSP


@VIEWPORTS
def test_the_panels_expiry_and_sign_in_choice_hold_refresh_reshares_and_an_expired_link_is_unknown(
    page: Page,
    browser: Browser,
    new_context: Callable[..., BrowserContext],
    user: Callable[[str], str],
    scripted_model: ScriptedModel,
    browser_app: Any,
    base_url: str,
    viewport: dict[str, int] | None,
) -> None:
    alices_new_chat(page, user, viewport)
    scripted_model.script(Text("Germany leads."))
    expect(send(page, "Which country leads?")).to_have_text("Germany leads.")

    # 30 days, signed-in users only: what the owner's list says is what the link holds.
    url = share(page, days="30", signed_in_only=True)
    (link,) = api(page, "GET", "/api/shares")["body"]
    lasts = datetime.fromisoformat(link["expires_at"]) - datetime.fromisoformat(link["created_at"])
    assert timedelta(days=30) - timedelta(seconds=5) < lasts <= timedelta(days=30)
    assert link["signed_in_only"] is True
    until = page.evaluate("(iso) => new Date(iso).toLocaleDateString()", link["expires_at"])
    state = page.get_by_test_id("share-state")
    expect(state).to_have_text(f"active · 0 views · until {until} · signed-in only")

    # Not signed in: asked to sign in, on the link's own page, which then shows the conversation.
    stranger = browser.new_context(base_url=base_url, viewport=viewport).new_page()
    stranger.goto(url)
    refused = shown(stranger)
    assert refused["status"] == "Sign in to this server to see this conversation."
    assert (refused["title"], refused["messages"], refused["copy"], refused["login"]) == (
        False,
        0,
        False,
        True,
    )
    expect(stranger.get_by_test_id("share-login-username")).to_be_focused()
    carol = user("carol")
    stranger.get_by_test_id("share-login-username").fill(carol)
    stranger.get_by_test_id("share-login-password").fill("not the password")
    stranger.get_by_test_id("share-login-submit").click()
    expect(stranger.get_by_test_id("share-login-error")).to_have_text("Wrong username or password.")
    stranger.route("**/api/auth/login", lambda route: route.abort())  # the server out of reach
    stranger.get_by_test_id("share-login-submit").click()
    expect(stranger.get_by_test_id("share-login-error")).to_have_text(
        "Cannot reach the server. Check your connection and try again."
    )
    stranger.unroute("**/api/auth/login")
    stranger.get_by_test_id("share-login-password").fill(PASSWORD)
    stranger.get_by_test_id("share-login-submit").click()
    expect(stranger.locator(ASSISTANT_TEXT)).to_have_text(["Germany leads."])
    expect(stranger.get_by_test_id("share-login")).to_be_hidden()
    expect(stranger.get_by_test_id("share-status")).to_be_hidden()
    expect(stranger.get_by_test_id("share-copy")).to_be_visible()
    if viewport:
        assert stranger.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]

    bob = new_context(viewport=viewport).new_page()
    login(bob, user("bob"))
    bob.goto(url)
    expect(bob.locator(ASSISTANT_TEXT)).to_have_text(["Germany leads."])
    expect(bob.get_by_test_id("share-meta")).to_contain_text(f"the link expires {until}.")
    expect(bob.get_by_test_id("share-copy")).to_be_visible()

    # A snapshot: what is said after sharing shows only once the owner refreshes the link.
    scripted_model.script(Text("France follows."))
    expect(send(page, "And second?")).to_have_text("France follows.")
    bob.reload()
    expect(bob.locator(ASSISTANT_TEXT)).to_have_text(["Germany leads."])
    page.get_by_test_id("share-refresh").click()
    expect(page.get_by_test_id("status-line")).to_have_text("The link now shows the chat as it is.")
    bob.reload()
    expect(bob.locator(ASSISTANT_TEXT)).to_have_text(["Germany leads.", "France follows."])
    expect(bob.locator(USER_TEXT)).to_have_text(["Which country leads?", "And second?"])

    # Expired (its stored expiry moved into the past): to anyone, exactly a made-up link.
    engine = make_engine(browser_app.web.database_url)
    try:
        with engine.begin() as conn:
            past = utcnow() - timedelta(seconds=1)
            conn.execute(update(share_links).where(share_links.c.id == link["id"]).values(expires_at=past))
    finally:
        engine.dispose()
    anonymous = browser.new_context(base_url=base_url, viewport=viewport).new_page()
    for viewer in (anonymous, bob):
        viewer.goto(url[:-6] + "abcdef")
        guessed = shown(viewer)
        viewer.goto(url)
        assert shown(viewer) == guessed
        assert (guessed["title"], guessed["messages"], guessed["copy"], guessed["login"]) == (
            False,
            0,
            False,
            False,
        )
    page.reload()
    page.get_by_test_id("share-open").click()
    expect(state).to_have_text(re.compile(r"^expired · 4 views"))  # carol once, bob thrice
    expect(page.get_by_test_id("share-refresh")).to_have_count(0)  # nothing left to do with it

"""Share links in real Chromium (docs/architecture.md#share-links): the owner makes a link from the
chat, a fresh browser (no account) opens it and sees the conversation read-only, a signed-in viewer
continues it as their own chat, and a revoked link looks exactly like a made-up one; on a desktop and
at a phone's width."""

import re
from collections.abc import Callable

import pytest
from browser_ui import ASSISTANT_TEXT, PHONE, USER_TEXT, login, new_chat, send
from playwright.sync_api import Browser, BrowserContext, Page, expect

from agent_orchestrator.testing.scripted_model import ScriptedModel, Text


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])
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

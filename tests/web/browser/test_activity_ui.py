"""A chat's activity in real Chromium (docs/architecture.md#session-activity): the owner opens it
from the chat and reads what happened, newest first, with the device that sent each message; it fits
a phone's width as well as a desktop."""

import re
from collections.abc import Callable

import pytest
from browser_ui import PHONE, login, new_chat, send
from playwright.sync_api import Page, expect

from agent_orchestrator.testing.scripted_model import ScriptedModel, Text


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])
def test_the_owner_reads_the_chats_activity(
    page: Page, user: Callable[[str], str], scripted_model: ScriptedModel, viewport: dict[str, int] | None
) -> None:
    login(page, user("alice"))
    new_chat(page)
    if viewport:
        page.set_viewport_size(viewport)
    scripted_model.script(Text("Fine."))
    expect(send(page, "How are we doing?")).to_have_text("Fine.")
    page.get_by_test_id("activity-open").click()
    steps = page.get_by_test_id("activity-step")
    expect(steps).to_have_count(2)
    expect(steps.first).to_contain_text("Message answered — you")
    expect(steps.first).to_contain_text(re.compile(r"Chrome"))  # the device, from its User-Agent
    expect(steps.last).to_contain_text("Chat created — you")
    if viewport:
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.get_by_test_id("activity-open").click()
    expect(page.get_by_test_id("activity-panel")).to_be_hidden()

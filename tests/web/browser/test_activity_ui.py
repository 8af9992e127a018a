"""A chat's activity in real Chromium (docs/architecture.md#session-activity): the owner opens it
from the chat and reads what happened, newest first, with the device that sent each message; it fits
a phone's width as well as a desktop. Another user asking for the chat's id is counted above the
steps, with its time and without the user's name."""

import re
from collections.abc import Callable

import httpx
import pytest
from browser_ui import PASSWORD, PHONE, current_session, login, new_chat, send
from playwright.sync_api import Page, expect

from agent_orchestrator.testing.scripted_model import ScriptedModel, Text


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])
def test_the_owner_reads_the_chats_activity(
    page: Page,
    user: Callable[[str], str],
    base_url: str,
    scripted_model: ScriptedModel,
    viewport: dict[str, int] | None,
) -> None:
    login(page, user("alice"))
    new_chat(page)
    if viewport:
        page.set_viewport_size(viewport)
    scripted_model.script(Text("Fine."))
    expect(send(page, "How are we doing?")).to_have_text("Fine.")
    session_id = current_session(page)
    other = user("bob")
    with httpx.Client(base_url=base_url, timeout=30) as bob:
        bob.post("/api/auth/login", json={"username": other, "password": PASSWORD}).raise_for_status()
        assert bob.get(f"/api/sessions/{session_id}").status_code == 404  # as if there were none
    page.get_by_test_id("activity-open").click()
    steps = page.get_by_test_id("activity-step")
    expect(steps).to_have_count(2)
    expect(steps.first).to_contain_text("Message answered — you")
    expect(steps.first).to_contain_text(re.compile(r"Chrome"))  # the device, from its User-Agent
    expect(steps.last).to_contain_text("Chat created — you")
    refused = page.get_by_test_id("activity-refused")
    expect(refused).to_contain_text("Refused attempts by others: 1.")
    (refusal,) = page.get_by_test_id("activity-refusal").all()
    asked = re.compile(r"Another user asked for a chat with this id .*: 1 \(last .+\)")
    expect(refusal).to_contain_text(asked)
    refusal.locator("summary").click()
    expect(refusal.locator("time")).to_have_count(1)
    expect(page.get_by_test_id("activity-panel")).not_to_contain_text(other)
    expect(page.get_by_test_id("activity-panel")).not_to_contain_text("null")
    if viewport:
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.get_by_test_id("activity-open").click()
    expect(page.get_by_test_id("activity-panel")).to_be_hidden()

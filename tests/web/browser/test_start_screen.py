"""A new chat's start screen in real Chromium (docs/architecture.md#the-start-screen): what the active
dataset holds, and questions made from it that a click sends; at a desktop's and a phone's width."""

import re
from collections.abc import Callable

import pytest
from browser_ui import ASSISTANT_TEXT, PHONE, USER_TEXT, login, new_chat
from playwright.sync_api import Page, expect

from agent_orchestrator.testing.scripted_model import ScriptedModel, Text, message_text


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])
def test_the_start_screen_says_what_is_loaded_and_a_suggestion_is_one_click(
    page: Page, user: Callable[[str], str], scripted_model: ScriptedModel, viewport: dict[str, int] | None
) -> None:
    login(page, user("alice"))
    new_chat(page)
    if viewport:
        page.set_viewport_size(viewport)
    start = page.get_by_test_id("start-screen")
    loaded = re.compile(r"^Loaded: \w.* \([\d,]+ rows, .+ to .+\)\.$")
    expect(page.get_by_test_id("start-loaded")).to_have_text(loaded)
    expect(start).to_contain_text("Measures: revenue")
    # What the amounts are in, said once here (the demo data names no currency), not in every answer.
    expect(page.get_by_test_id("start-amounts")).to_contain_text("an admin can set one on the Data page")
    suggestions = page.get_by_test_id("start-suggestion")
    expect(suggestions).not_to_have_count(0)
    assert 4 <= suggestions.count() <= 6
    question = suggestions.first.text_content() or ""
    assert re.fullmatch(r"What was revenue in \w+ \d{4}\?", question), question

    scripted_model.script(Text("Here it is."))
    suggestions.first.click()
    expect(page.locator(USER_TEXT)).to_have_text([question])
    expect(page.locator(ASSISTANT_TEXT)).to_have_text(["Here it is."], timeout=30_000)
    expect(start).to_be_hidden()
    assert message_text(scripted_model.requests[-1]["messages"][-1]).endswith(question)
    if viewport:
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]

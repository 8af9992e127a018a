"""Stopping an answer in real Chromium (docs/architecture.md#stopping-an-answer): the Stop button of
any device of the chat stops the answer being written, every device shows the words said so far
marked Stopped, and so does a reload; on a desktop and at a phone's width."""

import re
from collections.abc import Callable

import pytest
from browser_ui import ASSISTANT, ASSISTANT_TEXT, PHONE, login, new_chat, send
from playwright.sync_api import BrowserContext, Page, expect

from agent_orchestrator.testing.scripted_model import ScriptedModel, Text

LONG = " ".join(f"word{i}" for i in range(80))


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])
def test_another_device_stops_the_answer_and_both_keep_its_words(
    page: Page,
    new_context: Callable[..., BrowserContext],
    user: Callable[[str], str],
    scripted_model: ScriptedModel,
    viewport: dict[str, int] | None,
) -> None:
    alice = user("alice")
    login(page, alice)
    new_chat(page)  # from the sidebar, which on a phone is behind the drawer button
    if viewport:
        page.set_viewport_size(viewport)
    expect(send(page, "Hello")).to_have_text("OK")  # the chat's first message makes it
    laptop = new_context().new_page()
    login(laptop, alice)  # which opens it there too

    scripted_model.script(Text(LONG, pace=0.5, pieces=80))  # a word every half second
    page.get_by_test_id("composer-input").fill("Tell me everything")
    page.get_by_test_id("composer-send").click()
    streaming = laptop.locator(f"{ASSISTANT} .message-body.streaming")
    expect(streaming).to_have_text(re.compile(r"^word0 word1 word2"), timeout=30_000)
    expect(page.get_by_test_id("composer-stop")).to_be_visible()  # the sender's device offers it too
    laptop.get_by_test_id("composer-stop").click()

    for device in (page, laptop):
        expect(device.get_by_test_id("message-stopped")).to_have_text(["Stopped"], timeout=30_000)
        expect(device.get_by_test_id("composer-stop")).to_be_hidden()
        expect(device.get_by_test_id("composer-send")).to_be_enabled()
    kept = page.locator(ASSISTANT_TEXT).last.text_content() or ""
    assert kept.startswith("word0 word1 word2") and "word79" not in kept
    expect(laptop.locator(ASSISTANT_TEXT).last).to_have_text(kept)

    page.reload()  # the stopped answer is stored, not only drawn
    expect(page.get_by_test_id("message-stopped")).to_have_text(["Stopped"], timeout=30_000)
    expect(page.locator(ASSISTANT_TEXT).last).to_have_text(kept)
    if viewport:
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], "the composer's buttons fit the phone's width"
    expect(send(page, "Thanks")).to_have_text("OK")


def test_an_answer_stopped_before_its_first_word_stays_with_retry(
    page: Page, user: Callable[[str], str], scripted_model: ScriptedModel
) -> None:
    login(page, user("alice"))
    new_chat(page)
    asked = len(scripted_model.requests)
    scripted_model.script(Text("Too late", delay=60))
    page.get_by_test_id("composer-input").fill("Think hard")
    page.get_by_test_id("composer-send").click()
    scripted_model.wait_for_requests(asked + 1, timeout=30)  # the model is thinking: no word yet
    page.get_by_test_id("composer-stop").click()

    stopped = page.get_by_test_id("message-stopped")
    expect(stopped).to_have_text(["Stopped before the answer began"], timeout=30_000)
    page.reload()  # kept, not only drawn: the turn stays, with a way to run it again
    expect(stopped).to_have_text(["Stopped before the answer began"], timeout=30_000)
    expect(page.locator(ASSISTANT)).to_have_count(1)
    scripted_model.script(Text("Thought it through."))
    page.get_by_test_id("message-retry-stopped").click()
    expect(page.locator(ASSISTANT_TEXT).last).to_have_text("Thought it through.", timeout=30_000)
    expect(page.locator(ASSISTANT)).to_have_count(2)
    expect(stopped).to_have_count(1)  # the stopped turn is still there, above the new answer

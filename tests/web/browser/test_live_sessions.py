"""Live sessions in real Chromium, two browser contexts as two devices on one server: a device sees
another's answer stream in without reloading, a reload mid-turn joins the stream, a stale tab's send is
refused and succeeds once caught up, and the sessions list follows along. No message is ever lost or
shown twice (docs/architecture.md#live-sessions)."""

import re
from collections.abc import Callable

from browser_ui import (
    ASSISTANT,
    ASSISTANT_TEXT,
    USER_TEXT,
    chat_action,
    current_session,
    login,
    new_chat,
    send,
    send_refused,
)
from playwright.sync_api import BrowserContext, Page, expect

from agent_orchestrator.testing.scripted_model import ScriptedModel, Text

ANSWER = "Germany leads with 31 % of revenue, then France with 18 %, then Spain with 9 %."
SESSION_FEED = "**/api/sessions/*/events**"


def _streaming(page: Page):
    return page.locator(f"{ASSISTANT} .message-body.streaming")


def test_another_device_sees_the_answer_stream_in_without_reloading(
    page: Page,
    new_context: Callable[..., BrowserContext],
    user: Callable[[str], str],
    scripted_model: ScriptedModel,
) -> None:
    alice = user("alice")
    login(page, alice)
    new_chat(page)
    send(page, "Hello")  # the chat's first message makes it
    session_id = current_session(page)
    laptop = new_context().new_page()
    login(laptop, alice)
    assert current_session(laptop) == session_id

    scripted_model.script(Text(ANSWER, pace=0.5))
    page.get_by_test_id("composer-input").fill("Which countries lead?")
    page.get_by_test_id("composer-send").click()

    # The laptop shows the question and the answer as it is written, with nothing reloaded.
    expect(laptop.locator(USER_TEXT)).to_have_text(["Hello", "Which countries lead?"], timeout=30_000)
    expect(_streaming(laptop)).to_have_text(re.compile(r"^Germany leads"), timeout=30_000)
    partial = _streaming(laptop).text_content()
    assert partial and ANSWER.startswith(partial) and partial != ANSWER
    expect(laptop.get_by_test_id("composer-send")).to_be_disabled()  # a turn is being answered
    expect(laptop.locator(ASSISTANT_TEXT)).to_have_text(["OK", ANSWER], timeout=30_000)
    expect(laptop.get_by_test_id("composer-send")).to_be_enabled()
    expect(page.locator(ASSISTANT_TEXT)).to_have_text(["OK", ANSWER])
    # Both devices show the turn once; the laptop carries on, the phone sees that in turn.
    expect(send(laptop, "Thanks")).to_have_text("OK")
    for device in (page, laptop):
        expect(device.locator(USER_TEXT)).to_have_text(["Hello", "Which countries lead?", "Thanks"])
        expect(device.locator(ASSISTANT_TEXT)).to_have_text(["OK", ANSWER, "OK"])


def test_a_reload_mid_turn_joins_the_stream(
    page: Page, user: Callable[[str], str], scripted_model: ScriptedModel
) -> None:
    login(page, user("alice"))
    new_chat(page)
    scripted_model.script(Text(ANSWER, pace=0.5))
    page.get_by_test_id("composer-input").fill("Which countries lead?")
    page.get_by_test_id("composer-send").click()
    expect(_streaming(page)).to_have_text(re.compile(r"^Germany"), timeout=30_000)

    page.reload()
    # After the reload: the question once, the answer so far, then the rest as it comes.
    expect(page.locator(USER_TEXT)).to_have_text(["Which countries lead?"], timeout=30_000)
    expect(_streaming(page)).to_have_text(re.compile(r"^Germany leads"))
    expect(page.get_by_test_id("composer-send")).to_be_disabled()
    expect(page.locator(ASSISTANT_TEXT)).to_have_text([ANSWER], timeout=30_000)
    expect(page.locator(USER_TEXT)).to_have_text(["Which countries lead?"])
    expect(page.get_by_test_id("composer-send")).to_be_enabled()


def test_a_stale_tab_is_refused_keeps_its_draft_and_sends_once_caught_up(
    page: Page,
    new_context: Callable[..., BrowserContext],
    user: Callable[[str], str],
    scripted_model: ScriptedModel,
) -> None:
    alice = user("alice")
    login(page, alice)
    new_chat(page)
    send(page, "Hello")
    laptop = new_context().new_page()
    # The laptop's live feed is cut off (a proxy that buffers, a network that drops it): it falls behind.
    laptop.route(SESSION_FEED, lambda route: route.abort())
    login(laptop, alice)
    expect(laptop.locator(USER_TEXT)).to_have_text(["Hello"])
    scripted_model.script(Text("Spain is growing fastest."))
    expect(send(page, "Who grows fastest?")).to_have_text("Spain is growing fastest.")

    assert send_refused(laptop, "So should we invest in France?") == 409
    composer = laptop.get_by_test_id("composer-input")
    expect(laptop.get_by_test_id("status-line")).to_contain_text("New messages arrived in this chat")
    # It shows what it missed, marked, and the draft is still there; nothing was sent.
    expect(laptop.locator(USER_TEXT)).to_have_text(["Hello", "Who grows fastest?"])
    expect(laptop.locator(ASSISTANT_TEXT)).to_have_text(["OK", "Spain is growing fastest."])
    expect(laptop.locator(".message-missed")).to_have_count(2)
    expect(composer).to_have_value("So should we invest in France?")

    laptop.unroute(SESSION_FEED)
    expect(send(laptop, None)).to_have_text("OK")
    for device in (page, laptop):
        expect(device.locator(USER_TEXT)).to_have_text(
            ["Hello", "Who grows fastest?", "So should we invest in France?"]
        )
        expect(device.locator(ASSISTANT_TEXT)).to_have_text(["OK", "Spain is growing fastest.", "OK"])


def test_the_sessions_list_is_live_on_every_device(
    page: Page, new_context: Callable[..., BrowserContext], user: Callable[[str], str]
) -> None:
    alice = user("alice")
    login(page, alice)
    new_chat(page)
    send(page, "Hello")
    first = current_session(page)
    laptop = new_context().new_page()
    login(laptop, alice)
    items = laptop.get_by_test_id("session-item")
    expect(items).to_have_count(1)

    new_chat(page)  # nothing in the list until the chat's first message
    expect(items).to_have_count(1)
    send(page, "Revenue by country")  # makes the chat, named after it
    expect(items).to_have_count(2)
    second = current_session(page)
    item = laptop.locator(f'[data-testid="session-item"][data-session-id="{second}"]')
    expect(item.locator(".session-title")).to_have_text("Revenue by country")

    # The laptop has the first chat open; the phone deletes it: the laptop says so and drops it.
    laptop.locator(f'[data-testid="session-item"][data-session-id="{first}"] .session-open').click()
    expect(laptop.locator('[data-testid="session-item"].active')).to_have_attribute("data-session-id", first)
    page.once("dialog", lambda dialog: dialog.accept())
    chat_action(page.locator(f'[data-testid="session-item"][data-session-id="{first}"]'), "session-delete")
    expect(items).to_have_count(1)
    expect(laptop.get_by_test_id("status-line")).to_have_text("This chat was deleted on another device.")

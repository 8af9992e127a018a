"""One turn at a time per session, across devices: the second sender is told, and keeps their text."""

from collections.abc import Callable

from browser_ui import ASSISTANT, ASSISTANT_TEXT, USER_TEXT, current_session, login, new_chat, send
from playwright.sync_api import BrowserContext, Page, expect

from agent_orchestrator.testing.eventually import eventually
from agent_orchestrator.testing.scripted_model import ScriptedModel, Text

WAITING = "Are you still there?"
FEED = "**/api/sessions/*/events**"


def test_sending_while_another_device_is_answering(
    page: Page,
    new_context: Callable[..., BrowserContext],
    user: Callable[[str], str],
    scripted_model: ScriptedModel,
) -> None:
    """The rejected device used to keep a stale transcript: after the 409 it never showed the other
    device's turn, and its next message went on below a conversation missing a question and answer.
    Now it waits for that answer, which its live feed brings in, then unlocks with the text intact.

    A device whose feed works sees the other turn start and locks its composer by itself; this one's
    feed is cut off until after the refusal, so it can still press Send: the race the 409 is for."""
    alice = user("alice")
    login(page, alice)
    new_chat(page)
    send(page, "Hello")
    session_id = current_session(page)
    laptop = new_context().new_page()
    laptop.route(FEED, lambda route: route.abort())
    login(laptop, alice)
    expect(laptop.locator(USER_TEXT)).to_have_text(["Hello"])
    assert current_session(laptop) == session_id

    scripted_model.script(Text("slow", delay=5))
    page.get_by_test_id("composer-input").fill("Take your time")
    page.get_by_test_id("composer-send").click()
    expect(page.get_by_test_id("status-line")).to_have_text("Thinking…")
    # Until the slow turn has reached the model; Playwright's wait keeps its event loop running.
    eventually(
        lambda: len(scripted_model.requests) >= 2, timeout=30, sleep=lambda s: page.wait_for_timeout(s * 1000)
    )

    with laptop.expect_response(f"**/api/sessions/{session_id}/messages") as rejected:
        laptop.get_by_test_id("composer-input").fill(WAITING)
        laptop.get_by_test_id("composer-send").click()
    assert rejected.value.status == 409
    expect(laptop.get_by_test_id("status-line")).to_contain_text(
        "try again when the other answer has finished"
    )
    composer = laptop.get_by_test_id("composer-input")
    expect(composer).to_have_value(WAITING)
    expect(composer).to_be_disabled()  # until the other device's answer is done
    expect(laptop.locator(USER_TEXT)).to_have_text(["Hello"])  # the rejected prompt is not shown as sent
    laptop.unroute(FEED)

    expect(page.locator(f"{ASSISTANT}:not([aria-busy]) .message-body").last).to_have_text(
        "slow", timeout=30_000
    )
    # The laptop picks up the other device's turn by itself and unlocks, the kept text still there...
    expect(laptop.locator(USER_TEXT)).to_have_text(["Hello", "Take your time"], timeout=15_000)
    expect(laptop.locator(ASSISTANT_TEXT)).to_have_text(["OK", "slow"])
    expect(composer).to_be_enabled()
    expect(composer).to_have_value(WAITING)
    expect(laptop.get_by_test_id("status-line")).to_have_text("")
    # ...and sends it as it is.
    expect(send(laptop, None)).to_have_text("OK")
    expect(laptop.locator(USER_TEXT)).to_have_text(["Hello", "Take your time", WAITING])
    expect(composer).to_have_value("")

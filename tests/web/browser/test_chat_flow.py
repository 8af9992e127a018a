"""A person's way through the chat: sign in, chat, reload, and carry on from a second device."""

import re
from collections.abc import Callable

from browser_ui import ASSISTANT_TEXT, USER_TEXT, current_session, login, new_chat, send
from playwright.sync_api import BrowserContext, Page, expect

from agent_orchestrator.testing.scripted_model import ScriptedModel, user_messages

REMEMBER = "Remember this: my favourite retail segment is 'At Risk'. Reply with just OK."
ASK = "Which retail segment did I say was my favourite?"


def test_login_then_a_new_chat_streams_an_answer(page: Page, user: Callable[[str], str]) -> None:
    alice = user("alice")
    page.goto("/")
    page.get_by_test_id("login-username").fill(alice)
    page.get_by_test_id("login-password").fill("not the password")
    page.get_by_test_id("login-submit").click()
    expect(page.get_by_test_id("login-error")).to_have_text("Wrong username or password.")
    expect(page.get_by_test_id("current-user")).not_to_be_visible()

    login(page, alice)
    expect(page.get_by_test_id("login-error")).not_to_be_visible()
    expect(page.get_by_test_id("usage")).to_have_text("0 tokens today")
    new_chat(page)
    expect(page.get_by_test_id("session-item")).to_have_count(0)  # a chat is made by its first message

    answer = send(page, "Hello, who are you?")
    session_id = current_session(page)

    expect(answer).to_have_text("OK")
    expect(page.get_by_test_id("usage")).to_have_text(re.compile(r"^[1-9][\d,]* tokens today$"))
    expect(page.locator(USER_TEXT)).to_have_text(["Hello, who are you?"])
    expect(page.get_by_test_id("status-line")).to_have_text("")
    # The server names an untitled chat after its first message, greeting and question mark left
    # out (docs/architecture.md#titles); the sidebar shows it.
    item = page.locator(f'[data-testid="session-item"][data-session-id="{session_id}"]')
    expect(item.locator(".session-title")).to_have_text("Who are you")


def test_reload_keeps_the_conversation(page: Page, user: Callable[[str], str]) -> None:
    login(page, user("alice"))
    new_chat(page)
    send(page, "First question")
    send(page, "Second question")
    session_id = current_session(page)

    with page.expect_response(f"**/api/sessions/{session_id}/messages") as transcript:
        page.reload()
    assert transcript.value.ok  # the messages come from the server, not from the browser

    expect(page.get_by_test_id("current-user")).to_be_visible()
    expect(page.locator(USER_TEXT)).to_have_text(["First question", "Second question"])
    expect(page.locator(ASSISTANT_TEXT)).to_have_text(["OK", "OK"])
    assert current_session(page) == session_id
    active = page.locator('[data-testid="session-item"].active')
    expect(active).to_have_attribute("data-session-id", session_id)


def test_second_device_continues_the_same_conversation(
    page: Page,
    new_context: Callable[..., BrowserContext],
    user: Callable[[str], str],
    scripted_model: ScriptedModel,
) -> None:
    alice = user("alice")
    login(page, alice)
    new_chat(page)
    expect(send(page, REMEMBER)).to_have_text("OK")
    session_id = current_session(page)

    # A second device: its own cookies and storage, nothing shared with the first but the account.
    phone = new_context().new_page()
    login(phone, alice)
    expect(phone.locator(USER_TEXT)).to_have_text([REMEMBER])  # the latest chat opens by itself
    assert current_session(phone) == session_id

    answer = send(phone, ASK)

    expect(answer).to_have_text(re.compile(r"Your favourite retail segment is 'At Risk'"))
    # The model got the whole conversation (the CLI prefixes each turn with a <current_datetime> tag).
    turns = user_messages(scripted_model.requests[-1])
    assert len(turns) == 2
    assert turns[0].endswith(REMEMBER)
    assert turns[1].endswith(ASK)
    # And the first device sees the phone's turn when it reloads.
    page.reload()
    expect(page.locator(USER_TEXT)).to_have_text([REMEMBER, ASK])


def test_typing_in_a_chat_tells_the_server_once_a_minute(page: Page, user: Callable[[str], str]) -> None:
    login(page, user("alice"))
    new_chat(page)
    send(page, "Hello")  # a chat is made by its first message: the typing after it is hinted
    session_id = current_session(page)
    composer = page.get_by_test_id("composer-input")
    # The first keystroke says a message is being written (the server opens a chat's copy ahead)...
    with page.expect_request(f"**/api/sessions/{session_id}/composing") as hint:
        composer.press_sequentially("Fir")
    response = hint.value.response()
    assert hint.value.method == "POST" and response is not None and response.status == 204
    # ...and the next ones, within the minute, say nothing more.
    hints: list[str] = []
    page.on("request", lambda request: hints.append(request.url) if "/composing" in request.url else None)
    composer.press_sequentially("st question")
    send(page, None)
    assert hints == []


def test_the_first_chat_of_a_visit_has_its_actions_from_its_first_message(
    page: Page, user: Callable[[str], str]
) -> None:
    """A new user's first message starts the chat; its Export, Share and Activity show at once, not
    only once it is opened again."""
    login(page, user("alice"))
    expect(page.get_by_test_id("export-json")).to_have_count(0)
    expect(send(page, "Hello")).to_have_text("OK")
    for action in ("export-json", "export-markdown", "share-open", "activity-open"):
        expect(page.get_by_test_id(action)).to_be_visible()
    assert current_session(page)

"""What the browser must never do: show another user's chat, run model output, or keep message text."""

import json
import re
from collections.abc import Callable

from browser_ui import ASSISTANT_TEXT, USER_TEXT, api, current_session, login, new_chat, send
from playwright.sync_api import BrowserContext, Page, expect

from agent_orchestrator.testing.scripted_model import ScriptedModel, Text

XSS = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script> **bold**'


def test_another_user_cannot_open_the_session(
    page: Page, new_context: Callable[..., BrowserContext], user: Callable[[str], str]
) -> None:
    """Bob gets alice's session id (a shared link, a borrowed laptop): it is as good as an unknown id."""
    alice, bob = user("alice"), user("bob")
    login(page, alice)
    new_chat(page)
    send(page, "The launch code is pineapple-42")
    session_id = current_session(page)

    bob_page = new_context().new_page()
    login(bob_page, bob)
    bob_page.evaluate("(id) => localStorage.setItem('ao.currentSession', id)", session_id)
    with bob_page.expect_response(f"**/api/sessions/{session_id}/messages") as opened:
        bob_page.reload()
    assert opened.value.status == 404
    bob_page.wait_for_function("() => localStorage.getItem('ao.currentSession') === null")  # forgotten
    expect(bob_page.get_by_test_id("current-user")).to_have_text(bob)
    expect(bob_page.get_by_test_id("composer-input")).to_be_focused()  # the app has settled
    expect(bob_page.locator("#empty-state")).to_be_visible()
    expect(bob_page.get_by_test_id("message")).to_have_count(0)
    expect(bob_page.get_by_test_id("session-item")).to_have_count(0)
    expect(bob_page.get_by_test_id("status-line")).to_have_text("")  # dropped silently, like a stale id

    # The API from bob's page: every verb answers exactly what an id that never existed answers.
    unknown = "no-such-session-0000"
    for method, suffix, body in [
        ("GET", "", None),
        ("GET", "/messages", None),
        ("PATCH", "", {"title": "Mine now"}),
        ("POST", "/messages", {"content": "What did alice say?"}),
        ("DELETE", "", None),
    ]:
        theirs = api(bob_page, method, f"/api/sessions/{session_id}{suffix}", body)
        missing = api(bob_page, method, f"/api/sessions/{unknown}{suffix}", body)
        assert theirs["status"] == 404, (method, suffix, theirs)
        assert theirs == missing, (method, suffix)
    listed = api(bob_page, "GET", "/api/sessions")
    assert listed == {"status": 200, "body": {"items": [], "next_cursor": None}}
    assert "pineapple" not in bob_page.content()

    # Alice's chat is untouched.
    page.reload()
    expect(page.locator(USER_TEXT)).to_have_text(["The launch code is pineapple-42"])
    item = page.locator(f'[data-testid="session-item"][data-session-id="{session_id}"]')
    expect(item.locator(".session-title")).to_have_text("The launch code is pineapple-42")


def test_html_in_a_model_answer_is_shown_as_text(
    page: Page, user: Callable[[str], str], scripted_model: ScriptedModel
) -> None:
    login(page, user("alice"))
    new_chat(page)
    scripted_model.script(Text(XSS))

    answer = send(page, "Show me something dangerous")

    assert page.evaluate("typeof window.__xss") == "undefined"
    expect(answer).to_contain_text('<img src=x onerror="window.__xss=1">')
    expect(answer).to_contain_text("<script>window.__xss=2</script>")
    expect(answer.locator("strong")).to_have_text("bold")  # markdown still renders
    expect(answer.locator("img, script")).to_have_count(0)

    # The transcript re-rendered from the server after a reload is just as inert.
    page.reload()
    reloaded = page.locator(ASSISTANT_TEXT).last
    expect(reloaded.locator("strong")).to_have_text("bold")
    expect(reloaded).to_contain_text('<img src=x onerror="window.__xss=1">')
    expect(reloaded.locator("img, script")).to_have_count(0)
    assert page.evaluate("typeof window.__xss") == "undefined"


def test_browser_storage_holds_only_the_session_id_and_prefs(
    page: Page, context: BrowserContext, user: Callable[[str], str], scripted_model: ScriptedModel
) -> None:
    login(page, user("alice"))
    new_chat(page)
    scripted_model.script(
        Text("The At Risk segment holds 1,234 customers worth watching."),
        Text("You are most welcome, analyst."),
    )
    send(page, "How many customers are At Risk in Portugal?")
    session_id = current_session(page)
    send(page, "Thank you kindly")
    page.get_by_test_id("nav-segments").click()  # a preference worth remembering
    page.get_by_test_id("nav-chat").click()
    item = page.locator(f'[data-testid="session-item"][data-session-id="{session_id}"]')
    # The sidebar lists again when the live feed says the turn is over, a moment after the answer.
    expect(item.locator(".session-title")).not_to_have_text("New chat")
    expect(item.locator(".session-preview")).not_to_have_text("")
    title = item.locator(".session-title").inner_text()
    preview = item.locator(".session-preview").inner_text()
    assert title and preview

    local = page.evaluate("Object.fromEntries(Object.entries(localStorage))")
    session = page.evaluate("Object.fromEntries(Object.entries(sessionStorage))")

    assert set(local) == {"ao.currentSession", "ao.prefs"}
    assert local["ao.currentSession"] == session_id
    assert json.loads(local["ao.prefs"]) == {"view": "chat", "customerSegment": ""}
    assert session == {}
    stored = json.dumps([local, session, context.cookies()])
    for text in [
        "How many customers",
        "Portugal",
        "1,234",
        "worth watching",
        "Thank you kindly",
        "most welcome",
        title,
        preview,
    ]:
        assert not re.search(re.escape(text), stored, re.IGNORECASE), text


def test_the_api_docs_draw_every_operation_under_the_csp(page: Page, csp_violations: list[str]) -> None:
    """``/docs`` is Swagger UI from the app's own origin (docs/architecture.md#api-docs): it draws the
    operations, with nothing refused by the Content Security Policy and nothing fetched elsewhere."""
    elsewhere: list[str] = []
    page.on(
        "request", lambda request: elsewhere.append(request.url) if "127.0.0.1" not in request.url else None
    )
    page.goto("/docs")
    expect(page.locator(".opblock-summary-path", has_text="/api/sessions").first).to_be_visible(
        timeout=20_000
    )
    assert page.locator(".opblock").count() > 20
    assert csp_violations == [] and [url for url in elsewhere if not url.startswith("data:")] == []

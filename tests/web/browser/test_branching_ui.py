"""Branching in the UI: Branch here (a new chat), Edit and Regenerate (versions of the turn with a
switch between them, seen on a second device), and the sidebar search that finds message text and
opens the chat at the message."""

from collections.abc import Callable
from pathlib import Path

from browser_ui import ASSISTANT_TEXT, PHONE, USER_TEXT, api, current_session, login, new_chat, send
from playwright.sync_api import BrowserContext, Page, Route, expect

from agent_orchestrator.testing.scripted_model import ScriptedModel, Text


def test_branch_edit_regenerate_and_search_in_the_chat(page: Page, user: Callable[[str], str]) -> None:
    login(page, user("alice"))
    new_chat(page)
    for text in ("Remember kiwi", "Remember mango"):
        send(page, text)
    original = current_session(page)
    expect(page.locator(USER_TEXT)).to_have_text(["Remember kiwi", "Remember mango"])

    # Branch at the first answer: a new chat with the first turn only, linked to its parent.
    page.get_by_test_id("message-branch").nth(1).click()
    expect(page.locator(USER_TEXT)).to_have_text(["Remember kiwi"])
    branch = current_session(page)
    assert branch != original
    expect(page.get_by_test_id("parent-link")).to_contain_text("Branched from")
    page.get_by_test_id("parent-link").click()
    expect(page.locator(USER_TEXT)).to_have_text(["Remember kiwi", "Remember mango"])
    assert current_session(page) == original

    # Regenerate the last answer in place: still two turns.
    page.get_by_test_id("message-regenerate").click()
    expect(page.get_by_test_id("version-count")).to_have_text("2 / 2")
    expect(page.locator(USER_TEXT)).to_have_text(["Remember kiwi", "Remember mango"])
    assert current_session(page) == original

    # The sidebar search finds message text, marks the words, and opens the chat at the message.
    page.get_by_test_id("session-search").fill("mango")
    hit = page.get_by_test_id("search-hit")
    expect(hit).to_have_count(1)
    expect(hit.locator("mark")).to_have_text(["mango"])
    hit.click()
    expect(page.locator(".message.highlighted .message-body")).to_have_text("Remember mango")
    assert current_session(page) == original


def test_edits_and_regenerations_are_versions_of_the_turn_seen_on_a_second_device(
    page: Page,
    new_context: Callable[..., BrowserContext],
    user: Callable[[str], str],
    scripted_model: ScriptedModel,
) -> None:
    alice = user("alice")
    login(page, alice)
    new_chat(page)
    for text in ("Remember kiwi", "Remember mango", "Remember plum"):
        send(page, text)
    chat = current_session(page)
    phone = new_context(viewport=PHONE).new_page()
    login(phone, alice)
    assert current_session(phone) == chat

    # Edit the second question: the same chat, the edited turn in place of it and what followed.
    page.get_by_test_id("message-edit").nth(1).click()
    page.get_by_test_id("message-edit-input").fill("Remember papaya")
    scripted_model.script(Text("Papaya noted."))
    page.get_by_test_id("message-edit-send").click()
    expect(page.locator(USER_TEXT)).to_have_text(["Remember kiwi", "Remember papaya"])
    expect(page.locator(ASSISTANT_TEXT)).to_have_text(["OK", "Papaya noted."])
    expect(page.get_by_test_id("version-count")).to_have_text("2 / 2")
    assert current_session(page) == chat
    assert len(api(page, "GET", "/api/sessions")["body"]["items"]) == 1  # no new chat in the list
    # The phone follows without reloading.
    expect(phone.locator(USER_TEXT)).to_have_text(["Remember kiwi", "Remember papaya"])
    expect(phone.get_by_test_id("version-count")).to_have_text("2 / 2")

    # Back to the first version: the old question with the turn after it; the phone sees it too.
    page.get_by_role("button", name="Previous version").click()
    expect(page.locator(USER_TEXT)).to_have_text(["Remember kiwi", "Remember mango", "Remember plum"])
    expect(page.get_by_test_id("version-count")).to_have_text("1 / 2")
    expect(page.get_by_role("button", name="Previous version")).to_be_disabled()
    expect(phone.locator(USER_TEXT)).to_have_text(["Remember kiwi", "Remember mango", "Remember plum"])

    # The phone moves forward again; the desktop follows.
    phone.get_by_role("button", name="Next version").click()
    expect(phone.get_by_test_id("version-count")).to_have_text("2 / 2")
    expect(page.locator(USER_TEXT)).to_have_text(["Remember kiwi", "Remember papaya"])
    expect(page.locator(ASSISTANT_TEXT)).to_have_text(["OK", "Papaya noted."])

    # Regenerate on the phone: a version of the last turn, with its own switch.
    scripted_model.script(Text("Papaya, again."))
    phone.get_by_test_id("message-regenerate").click()
    expect(page.locator(ASSISTANT_TEXT)).to_have_text(["OK", "Papaya, again."])
    expect(page.get_by_test_id("version-count")).to_have_text("3 / 3")


def test_a_chat_clicked_while_another_regenerates_is_the_one_shown(
    page: Page, user: Callable[[str], str]
) -> None:
    login(page, user("alice"))
    new_chat(page)
    send(page, "Remember kiwi")
    first = current_session(page)
    new_chat(page)
    send(page, "Remember mango")
    second = current_session(page)

    # The click on the first chat is still loading when the second's regenerate has started.
    held: list[Route] = []
    page.route(f"**/api/sessions/{first}/messages", lambda route: held.append(route))
    page.locator(f'[data-testid="session-item"][data-session-id="{first}"] .session-open').click()
    with page.expect_response(lambda r: r.url.endswith(f"/api/sessions/{second}/regenerate")):
        page.get_by_test_id("message-regenerate").click()
    held[0].continue_()
    page.unroute(f"**/api/sessions/{first}/messages")

    expect(page.locator(USER_TEXT)).to_have_text(["Remember kiwi"])
    expect(page.locator(ASSISTANT_TEXT)).to_have_count(1)
    assert current_session(page) == first
    # The regenerated answer went to its own chat, in the background, and left this one on show.
    page.wait_for_function(
        """async (id) => {
            const body = await (await fetch(`/api/sessions/${id}/messages`)).json();
            return !body.live_turn && body.messages.length === 2;
        }""",
        arg=second,
        polling=100,
    )
    expect(page.locator(USER_TEXT)).to_have_text(["Remember kiwi"])
    assert current_session(page) == first


def test_export_a_chat_and_import_it_back_from_the_sidebar(
    page: Page, user: Callable[[str], str], tmp_path
) -> None:
    login(page, user("alice"))
    new_chat(page)
    send(page, "Remember quince")
    with page.expect_download() as download:
        page.get_by_test_id("export-json").click()
    saved = tmp_path / "chat.json"
    download.value.save_as(saved)
    with page.expect_download() as markdown:
        page.get_by_test_id("export-markdown").click()
    assert "Remember quince" in Path(markdown.value.path()).read_text()

    broken = tmp_path / "broken.json"
    broken.write_text("[1, 2")
    page.get_by_test_id("import-file").set_input_files(broken)
    expect(page.get_by_test_id("status-line")).to_contain_text(
        "Nothing was imported: The file is not valid JSON"
    )
    expect(page.get_by_test_id("session-item")).to_have_count(1)

    page.get_by_test_id("import-file").set_input_files(saved)
    expect(page.get_by_test_id("status-line")).to_have_text("Imported 1 chat.")
    expect(page.get_by_test_id("session-item")).to_have_count(2)
    expect(page.locator(USER_TEXT)).to_have_text(["Remember quince"])

"""Branching in the UI: Branch here, Edit (a new branch; the original stays), Regenerate, and the
sidebar search that finds message text and opens the chat at the message."""

from collections.abc import Callable
from pathlib import Path

from browser_ui import ASSISTANT_TEXT, USER_TEXT, api, current_session, login, new_chat, send
from playwright.sync_api import Page, Route, expect


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

    # Edit the second question: a new branch answers the edited text; the original is unchanged.
    page.get_by_test_id("message-edit").nth(1).click()
    page.get_by_test_id("message-edit-input").fill("Remember papaya")
    page.get_by_role("button", name="Send as a new branch").click()
    expect(page.locator(USER_TEXT)).to_have_text(["Remember kiwi", "Remember papaya"])
    expect(page.locator(ASSISTANT_TEXT)).to_have_count(2)
    edited = current_session(page)
    assert edited not in (original, branch)
    stored = api(page, "GET", f"/api/sessions/{original}/messages")["body"]["messages"]
    assert stored[2]["content"] == "Remember mango"

    # Regenerate the last answer in place: still two turns.
    page.get_by_test_id("message-regenerate").click()
    expect(page.locator(USER_TEXT)).to_have_text(["Remember kiwi", "Remember papaya"])
    assert current_session(page) == edited

    # The sidebar search finds message text, marks the words, and opens the chat at the message.
    page.get_by_test_id("session-search").fill("mango")
    hit = page.get_by_test_id("search-hit")
    expect(hit).to_have_count(1)
    expect(hit.locator("mark")).to_have_text(["mango"])
    hit.click()
    expect(page.locator(".message.highlighted .message-body")).to_have_text("Remember mango")
    assert current_session(page) == original


def test_a_chat_clicked_while_another_regenerates_is_the_one_shown(page: Page, user: Callable[[str], str]) -> None:
    login(page, user("alice"))
    new_chat(page)
    send(page, "Remember kiwi")
    first = current_session(page)
    new_chat(page)
    send(page, "Remember mango")
    second = current_session(page)

    # The click on the first chat is still loading when the second's regenerate has rewound and sent.
    held: list[Route] = []
    page.route(f"**/api/sessions/{first}/messages", lambda route: held.append(route))
    page.locator(f'[data-testid="session-item"][data-session-id="{first}"] .session-open').click()
    with page.expect_response(lambda r: r.url.endswith(f"/api/sessions/{second}/messages") and r.request.method == "POST"):
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

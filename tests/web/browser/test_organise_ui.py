"""Organising chats and rating answers in real Chromium (docs/architecture.md#organising-chats,
docs/architecture.md#feedback): pin, folder, tags, archive and restore from the sidebar, the filter,
several chats changed at once with one confirmation, thumbs and a note under an answer; every change
shows on a second device without a reload; on a desktop and at a phone's width (the chats in a drawer).
"""

from collections.abc import Callable

import pytest
from browser_ui import ASSISTANT, PHONE, api, chat_action, login, send
from playwright.sync_api import BrowserContext, Locator, Page, expect

from agent_orchestrator.testing.scripted_model import ScriptedModel, Text

VIEWPORTS = pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])


def chats(page: Page, viewport: dict[str, int] | None) -> Locator:
    """The sidebar's chats, the drawer opened first on a phone."""
    if viewport and not page.locator("#sidebar").is_visible():
        page.locator("#sidebar-toggle").click()
    expect(page.locator("#sidebar")).to_be_visible()
    return page.get_by_test_id("session-item")


def item(page: Page, session_id: str) -> Locator:
    return page.locator(f'[data-testid="session-item"][data-session-id="{session_id}"]')


def titles(page: Page) -> Locator:
    return page.get_by_test_id("session-item").locator(".session-title")


def device(
    new_context: Callable[..., BrowserContext], username: str, viewport: dict[str, int] | None
) -> Page:
    page = new_context().new_page()
    if viewport:
        page.set_viewport_size(viewport)
    login(page, username)
    return page


@VIEWPORTS
def test_pin_file_tag_archive_and_restore_show_on_both_devices(
    new_context: Callable[..., BrowserContext], user: Callable[[str], str], viewport: dict[str, int] | None
) -> None:
    alice = user("alice")
    page = device(new_context, alice, viewport)
    ids = {
        t: api(page, "POST", "/api/sessions", {"title": t})["body"]["id"] for t in ("Alpha", "Beta", "Gamma")
    }
    laptop = device(new_context, alice, None)
    expect(titles(laptop)).to_have_text(["Gamma", "Beta", "Alpha"])
    expect(chats(page, viewport)).to_have_count(3)
    expect(titles(page)).to_have_text(["Gamma", "Beta", "Alpha"])

    # Pin: first in the list with a mark, here and on the laptop.
    chat_action(item(page, ids["Alpha"]), "session-pin")
    for where in (page, laptop):
        expect(titles(where)).to_have_text(["Alpha", "Gamma", "Beta"])
        expect(item(where, ids["Alpha"]).get_by_test_id("session-pinned")).to_have_text("Pinned")
    for where in (page, laptop):  # the "Pinned" filter: the pinned chats only
        where.get_by_test_id("session-filter").select_option("pinned")
        expect(titles(where)).to_have_text(["Alpha"])
        where.get_by_test_id("session-filter").select_option("")
        expect(titles(where)).to_have_text(["Alpha", "Gamma", "Beta"])

    # A folder and tags, typed in place.
    chat_action(item(page, ids["Beta"]), "session-move")
    page.get_by_test_id("session-folder-input").fill("Cases")
    page.get_by_test_id("session-folder-input").press("Enter")
    chat_action(item(page, ids["Beta"]), "session-tags")
    page.get_by_test_id("session-tags-input").fill("q3, board")
    page.get_by_test_id("session-tags-input").press("Enter")
    for where in (page, laptop):
        expect(item(where, ids["Beta"]).get_by_test_id("session-folder")).to_have_text("▸ Cases")
        expect(item(where, ids["Beta"]).get_by_test_id("session-tag")).to_have_text(["#board", "#q3"])
    laptop.get_by_test_id("session-filter").select_option("folder:Cases")
    expect(titles(laptop)).to_have_text(["Beta"])
    laptop.get_by_test_id("session-filter").select_option("tag:q3")
    expect(titles(laptop)).to_have_text(["Beta"])
    laptop.get_by_test_id("session-filter").select_option("")

    # Archive: out of the list on both devices, under Archived, and still found by search.
    chat_action(item(page, ids["Gamma"]), "session-archive")
    for where in (page, laptop):
        expect(titles(where)).to_have_text(["Alpha", "Beta"])
    laptop.get_by_test_id("session-search").fill("gam")
    expect(titles(laptop)).to_have_text(["Gamma"])
    expect(item(laptop, ids["Gamma"]).get_by_test_id("session-archived")).to_have_text("Archived")
    laptop.get_by_test_id("session-search").fill("")
    page.get_by_test_id("session-filter").select_option("archived")
    expect(titles(page)).to_have_text(["Gamma"])
    chat_action(item(page, ids["Gamma"]), "session-archive")  # "Restore" here
    expect(titles(page)).to_have_count(0)
    page.get_by_test_id("session-filter").select_option("")
    for where in (page, laptop):
        expect(titles(where)).to_have_text(["Alpha", "Gamma", "Beta"])
    if viewport:
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


@VIEWPORTS
def test_several_chats_are_changed_at_once_and_deleted_with_one_confirmation(
    new_context: Callable[..., BrowserContext], user: Callable[[str], str], viewport: dict[str, int] | None
) -> None:
    alice = user("alice")
    page = device(new_context, alice, viewport)
    ids = {t: api(page, "POST", "/api/sessions", {"title": t})["body"]["id"] for t in ("One", "Two", "Three")}
    laptop = device(new_context, alice, None)
    expect(chats(page, viewport)).to_have_count(3)

    page.get_by_test_id("session-select").click()
    expect(page.get_by_test_id("bulk-bar")).to_be_visible()
    item(page, ids["One"]).get_by_test_id("session-select-box").check()
    item(page, ids["Three"]).get_by_test_id("session-select-box").check()
    expect(page.get_by_test_id("bulk-count")).to_have_text("2 selected")
    page.get_by_test_id("bulk-folder").fill("Spring")
    page.get_by_test_id("bulk-move").click()
    # The outcome shows in the chat list, where the change was made (on a phone it covers the chat).
    status, undo = page.get_by_test_id("list-status"), page.get_by_test_id("status-undo")
    expect(status).to_have_text("2 chats moved. Undo")
    expect(page.get_by_test_id("bulk-bar")).to_be_hidden()
    for where in (page, laptop):
        expect(item(where, ids["One"]).get_by_test_id("session-folder")).to_have_text("▸ Spring")
        expect(item(where, ids["Three"]).get_by_test_id("session-folder")).to_have_text("▸ Spring")
    # Moving is taken back with one click: each chat returns to the folder it was in (none, or its own).
    api(page, "PATCH", f"/api/sessions/{ids['Two']}", {"folder": "Autumn"})
    expect(item(page, ids["Two"]).get_by_test_id("session-folder")).to_have_text("▸ Autumn")
    page.get_by_test_id("session-select").click()
    item(page, ids["Two"]).get_by_test_id("session-select-box").check()
    item(page, ids["Three"]).get_by_test_id("session-select-box").check()
    page.get_by_test_id("bulk-folder").fill("Winter")
    page.get_by_test_id("bulk-move").click()
    expect(item(laptop, ids["Two"]).get_by_test_id("session-folder")).to_have_text("▸ Winter")
    expect(undo).to_be_in_viewport()
    if viewport:
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    undo.click()
    expect(status).to_have_text("Undone: the 2 chats are as they were.")
    for where in (page, laptop):
        expect(item(where, ids["Two"]).get_by_test_id("session-folder")).to_have_text("▸ Autumn")
        expect(item(where, ids["Three"]).get_by_test_id("session-folder")).to_have_text("▸ Spring")

    page.get_by_test_id("session-select").click()
    item(page, ids["One"]).get_by_test_id("session-select-box").check()
    item(page, ids["Two"]).get_by_test_id("session-select-box").check()
    page.get_by_test_id("bulk-archive").click()
    for where in (page, laptop):
        expect(titles(where)).to_have_text(["Three"])
    undo.click()  # archived by mistake: back in the list, then archived again
    for where in (page, laptop):
        expect(titles(where)).to_have_count(3)
    page.get_by_test_id("session-select").click()
    item(page, ids["One"]).get_by_test_id("session-select-box").check()
    item(page, ids["Two"]).get_by_test_id("session-select-box").check()
    page.get_by_test_id("bulk-archive").click()
    for where in (page, laptop):
        expect(titles(where)).to_have_text(["Three"])

    page.get_by_test_id("session-filter").select_option("archived")
    expect(titles(page)).to_have_text(["Two", "One"])
    page.get_by_test_id("session-select").click()
    for session_id in (ids["One"], ids["Two"]):
        item(page, session_id).get_by_test_id("session-select-box").check()
    dialogs: list[str] = []
    page.once("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.get_by_test_id("bulk-delete").click()
    expect(titles(page)).to_have_count(2)  # dismissed: nothing deleted
    page.once("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.accept()))
    page.get_by_test_id("bulk-delete").click()
    expect(status).to_have_text("2 chats deleted.")  # no undo for that
    assert dialogs == ["Delete these 2 chats? This cannot be undone."] * 2
    expect(titles(page)).to_have_count(0)
    for where in (page, laptop):
        where.get_by_test_id("session-filter").select_option("")
        expect(titles(where)).to_have_text(["Three"])
    assert api(page, "GET", f"/api/sessions/{ids['One']}")["status"] == 404


def answered_on_two_devices(
    new_context: Callable[..., BrowserContext],
    user: Callable[[str], str],
    scripted_model: ScriptedModel,
    viewport: dict[str, int] | None,
) -> tuple[Page, Page]:
    """A chat answered on one device (at ``viewport``), open on a laptop too, titled by its first
    message there."""
    alice = user("alice")
    page = device(new_context, alice, viewport)
    scripted_model.script(Text("Revenue in May was 1,234."))
    send(page, "Hi, could you tell me the revenue in May?")
    laptop = device(new_context, alice, None)
    expect(laptop.locator(".session-item.active .session-title")).to_have_text("The revenue in May")
    return page, laptop


@VIEWPORTS
def test_an_answer_is_rated_with_a_note_and_the_chat_is_titled_by_its_first_message(
    new_context: Callable[..., BrowserContext],
    user: Callable[[str], str],
    scripted_model: ScriptedModel,
    viewport: dict[str, int] | None,
) -> None:
    page, laptop = answered_on_two_devices(new_context, user, scripted_model, viewport)

    answer = page.locator(ASSISTANT).last
    answer.get_by_test_id("feedback-down").click()
    page.get_by_test_id("feedback-note").fill("May was 1,432.")
    page.get_by_test_id("feedback-note-save").click()
    expect(answer.get_by_test_id("feedback-down")).to_have_attribute("aria-pressed", "true")
    rated = laptop.locator(ASSISTANT).last
    expect(rated.get_by_test_id("feedback-down")).to_have_attribute("aria-pressed", "true")  # live
    expect(rated.get_by_test_id("feedback-note-text")).to_have_text("“May was 1,432.”")

    page.reload()
    answer = page.locator(ASSISTANT).last
    expect(answer.get_by_test_id("feedback-down")).to_have_attribute("aria-pressed", "true")
    answer.get_by_test_id("feedback-down").click()  # pressed again: taken back
    expect(answer.get_by_test_id("feedback-down")).to_have_attribute("aria-pressed", "false")
    expect(rated.get_by_test_id("feedback-down")).to_have_attribute("aria-pressed", "false")
    if viewport:
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


@VIEWPORTS
def test_a_chat_renamed_in_the_sidebar_keeps_its_name_after_later_answers_on_both_devices(
    new_context: Callable[..., BrowserContext],
    user: Callable[[str], str],
    scripted_model: ScriptedModel,
    viewport: dict[str, int] | None,
) -> None:
    page, laptop = answered_on_two_devices(new_context, user, scripted_model, viewport)

    chat_action(chats(page, viewport).first, "session-rename")
    field = page.get_by_test_id("session-rename-input")
    field.fill("May check")
    field.press("Enter")
    expect(laptop.locator(".session-item.active .session-title")).to_have_text("May check")  # live
    if viewport:
        page.locator("#sidebar-toggle").click()  # the drawer closed: back to the chat
    scripted_model.script(Text("June was 2,345."))
    send(page, "And June?")
    expect(page.locator(ASSISTANT).last).to_contain_text("June was 2,345.")
    expect(titles(laptop)).to_have_text(["May check"])  # the owner's title, never a generated one
    page.reload()
    expect(titles(page)).to_have_text(["May check"])
    if viewport:
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


@VIEWPORTS
def test_each_chat_is_one_tab_stop_and_its_menu_works_from_the_keyboard(
    new_context: Callable[..., BrowserContext], user: Callable[[str], str], viewport: dict[str, int] | None
) -> None:
    """One "…" menu per chat holds every action; the keyboard reaches each chat with one Tab stop,
    the arrows move between chats and open the menu, Escape closes it; Share, Activity and the
    exports open from it too."""
    page = device(new_context, user("alice"), viewport)
    ids = {t: api(page, "POST", "/api/sessions", {"title": t})["body"]["id"] for t in ("One", "Two", "Three")}
    page.reload()
    expect(page.get_by_test_id("composer-input")).to_be_focused()  # the app's last step after loading
    expect(chats(page, viewport)).to_have_count(3)
    menu = item(page, ids["Three"]).get_by_test_id("session-menu")
    expect(menu).to_have_text("…")
    stops = page.evaluate(
        """() => [...document.querySelectorAll('[data-testid="session-item"] button, '
                + '[data-testid="session-item"] input')].filter((n) => n.tabIndex >= 0).length"""
    )
    assert stops == 3  # one per chat: its title; the menu button is reached with the arrows

    first = item(page, ids["Three"]).locator(".session-open")
    first.focus()
    page.keyboard.press("ArrowDown")
    expect(item(page, ids["Two"]).locator(".session-open")).to_be_focused()
    page.keyboard.press("ArrowRight")  # the chat's menu, its first action focused
    entries = item(page, ids["Two"]).get_by_role("menuitem")
    expect(entries).to_have_text(
        [
            "Rename…",
            "Pin",
            "Archive",
            "Move to folder…",
            "Tags…",
            "Share…",
            "Export JSON",
            "Export Markdown",
            "Activity",
            "Delete…",
        ]
    )
    expect(entries.first).to_be_focused()
    page.keyboard.press("ArrowUp")  # wraps round to the last
    expect(entries.last).to_be_focused()
    page.keyboard.press("Escape")
    expect(entries).to_have_count(0)
    expect(item(page, ids["Two"]).locator(".session-open")).to_be_focused()
    page.keyboard.press("Shift+F10")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")  # Pin
    expect(titles(page)).to_have_text(["Two", "Three", "One"])
    expect(item(page, ids["Two"]).get_by_test_id("session-pinned")).to_have_text("Pinned")

    for action, shown in (("session-share", "share-create"), ("session-activity", "activity-panel")):
        drawer(page, viewport)
        chat_action(item(page, ids["One"]), action)  # opens the chat (closing the drawer), then its panel
        expect(
            page.get_by_test_id(shown) if shown == "share-create" else page.locator(f"#{shown}")
        ).to_be_visible()
    drawer(page, viewport)
    with page.expect_download() as exported:
        chat_action(item(page, ids["One"]), "session-export-markdown")
    assert exported.value.suggested_filename.endswith(".md")


def drawer(page: Page, viewport: dict[str, int] | None) -> None:
    """The chats in view: on a phone, the drawer opened unless it is (not while it slides shut)."""
    if viewport and not page.evaluate("document.body.classList.contains('sidebar-open')"):
        page.locator("#sidebar-toggle").click()
    expect(page.locator("#sidebar")).to_be_visible()

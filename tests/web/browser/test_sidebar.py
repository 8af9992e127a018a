"""The sidebar: every chat of the user, searchable by title, renamed and deleted in place."""

from collections.abc import Callable

from browser_ui import USER_TEXT, api, chat_action, current_session, login, new_chat, send
from playwright.sync_api import Page, expect

CHATS = ["Plan the spring campaign", "Review churned customers", "Summarise revenue by country"]


def titles(page: Page) -> list[str]:
    return page.get_by_test_id("session-item").locator(".session-title").all_inner_texts()


def test_rename_search_and_delete(page: Page, user: Callable[[str], str]) -> None:
    login(page, user("alice"))
    ids = {}
    for text in CHATS:
        new_chat(page)
        send(page, text)
        ids[text] = current_session(page)
    expect(page.get_by_test_id("session-item").locator(".session-title")).to_have_text(CHATS[::-1])

    # Search filters the list (server-side, by title, case-insensitively) and clearing it restores it.
    search = page.get_by_test_id("session-search")
    search.fill("CUSTOMERS")
    expect(page.get_by_test_id("session-item")).to_have_count(1)
    expect(page.get_by_test_id("session-item")).to_have_attribute("data-session-id", ids[CHATS[1]])
    search.fill("nothing like this")
    expect(page.get_by_test_id("session-item")).to_have_count(0)
    expect(page.locator("#session-list-empty")).to_have_text("No chat titles match your search.")
    search.fill("")
    expect(page.get_by_test_id("session-item")).to_have_count(3)

    # Rename the spring chat in place; the new title is on the server and searchable.
    spring = page.locator(f'[data-testid="session-item"][data-session-id="{ids[CHATS[0]]}"]')
    chat_action(spring, "session-rename")
    field = page.get_by_test_id("session-rename-input")
    expect(field).to_have_value(CHATS[0])
    field.fill("Quarterly review")
    field.press("Enter")
    expect(spring.locator(".session-title")).to_have_text("Quarterly review")
    assert api(page, "GET", f"/api/sessions/{ids[CHATS[0]]}")["body"]["title"] == "Quarterly review"
    search.fill("quarterly")
    expect(page.get_by_test_id("session-item")).to_have_count(1)
    expect(page.get_by_test_id("session-item")).to_have_attribute("data-session-id", ids[CHATS[0]])
    search.fill("spring")
    expect(page.get_by_test_id("session-item")).to_have_count(0)
    search.fill("")
    expect(page.get_by_test_id("session-item")).to_have_count(3)

    # Delete asks first: dismissing keeps the chat, accepting removes it everywhere.
    current = page.locator(f'[data-testid="session-item"][data-session-id="{ids[CHATS[2]]}"]')
    assert current_session(page) == ids[CHATS[2]]
    page.once("dialog", lambda dialog: dialog.dismiss())
    chat_action(current, "session-delete")
    expect(page.get_by_test_id("session-item")).to_have_count(3)
    page.once("dialog", lambda dialog: dialog.accept())
    chat_action(current, "session-delete")
    expect(page.get_by_test_id("status-line")).to_have_text("Chat deleted.")
    expect(page.get_by_test_id("session-item")).to_have_count(2)
    # The open chat was the deleted one: the next most recent opens in its place.
    expect(page.locator(USER_TEXT)).to_have_text([CHATS[1]])
    assert current_session(page) == ids[CHATS[1]]
    assert api(page, "GET", f"/api/sessions/{ids[CHATS[2]]}")["status"] == 404

    page.reload()
    expect(page.get_by_test_id("session-item").locator(".session-title")).to_have_text(
        [CHATS[1], "Quarterly review"]
    )

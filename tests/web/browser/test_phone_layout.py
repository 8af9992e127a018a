"""A 390 x 844 phone: every page fits the width, "Log out" stays on screen, the chats are a drawer.

Screenshots of each page are saved in the test's temporary folder for a person to look at.
"""

from collections.abc import Callable
from pathlib import Path

from browser_ui import ASSISTANT, PHONE, chart_points, login, new_chat, send
from playwright.sync_api import Page, expect

from agent_orchestrator.testing.scripted_model import ScriptedModel, ToolCall


def expect_fits_the_phone(page: Page, shot: Path) -> None:
    """No horizontal scrolling of the page, and "Log out" wholly inside the viewport."""
    page.screenshot(path=shot)
    widths = page.evaluate("() => [document.documentElement.scrollWidth, document.body.scrollWidth]")
    assert max(widths) <= PHONE["width"], (shot.name, widths)
    logout = page.get_by_test_id("logout")
    expect(logout).to_be_visible()
    box = logout.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], (shot.name, box)


def test_every_page_fits_a_phone_with_the_chats_in_a_drawer(
    page: Page, user: Callable[[str], str], scripted_model: ScriptedModel, tmp_path: Path
) -> None:
    login(page, user("alice"))
    new_chat(page)  # from the sidebar, which on a phone is behind the drawer button
    page.set_viewport_size(PHONE)
    scripted_model.script(ToolCall("retail-analytics-top_products", {"limit": 8}), "These sell best.")
    send(page, "What are the best-selling products?")
    assert chart_points(page.locator(ASSISTANT).last.get_by_test_id("chart")) == [8]
    expect_fits_the_phone(page, tmp_path / "chat.png")

    # The chats are a drawer: off screen until opened, closed again with Escape.
    sidebar = page.locator("#sidebar")
    expect(sidebar).not_to_be_visible()
    page.locator("#sidebar-toggle").click()
    expect(sidebar).to_be_visible()
    expect(page.get_by_test_id("new-chat")).to_be_in_viewport()
    expect_fits_the_phone(page, tmp_path / "drawer.png")
    page.keyboard.press("Escape")
    expect(sidebar).not_to_be_visible()
    # Open, then widened to a desktop and narrowed again: the drawer does not come back over the chat.
    page.locator("#sidebar-toggle").click()
    page.set_viewport_size({"width": 1280, "height": 800})
    expect(sidebar).to_be_visible()  # on a desktop the sidebar is always there
    page.set_viewport_size(PHONE)
    expect(sidebar).not_to_be_visible()
    expect(page.locator("#sidebar-backdrop")).not_to_be_visible()

    page.get_by_test_id("nav-segments").click()
    expect(page.get_by_test_id("segments-trend-chart").locator("canvas")).to_be_visible()
    # The wide table scrolls inside its own box instead of widening the page.
    table_box = page.get_by_test_id("segments-table").locator("xpath=..")
    assert table_box.evaluate("(box) => box.scrollWidth > box.clientWidth")
    expect_fits_the_phone(page, tmp_path / "segments.png")

    page.get_by_test_id("nav-customers").click()
    expect(page.get_by_test_id("customers-table").locator("tbody tr").first).to_be_visible()
    expect_fits_the_phone(page, tmp_path / "customers.png")

    page.get_by_test_id("customers-table").locator("tbody a.customer-link").first.click()
    expect(page.get_by_test_id("customer-body").get_by_test_id("chart")).to_have_count(2)
    expect_fits_the_phone(page, tmp_path / "customer.png")


def test_a_reading_with_every_kind_of_chip_fits_a_phone(
    page: Page, user: Callable[[str], str], scripted_model: ScriptedModel, tmp_path: Path
) -> None:
    login(page, user("alice"))
    new_chat(page)
    page.set_viewport_size(PHONE)
    query = {
        "measure": "units",
        "group_by": "country",
        "exclude_countries": ["United Kingdom"],
        "segments": ["At Risk"],
        "period": "2025-Q2",
        "compare": "year_before",
        "share": True,
        "limit": 5,
    }
    scripted_model.script(ToolCall("retail-analytics-analyze_sales", query), "Here is the breakdown.")
    send(page, "Units by country outside the UK for At Risk customers, Q2 2025 vs a year before, as shares")
    reading = page.locator(ASSISTANT).last.get_by_test_id("reading")
    expect(reading.get_by_test_id("reading-limit")).to_have_value("5")
    for chip in ("reading-measure", "reading-period", "reading-compare", "reading-order"):
        expect(reading.get_by_test_id(chip)).to_be_in_viewport()
    shot = Path(__import__("os").environ.get("AGENT_SHOTS", tmp_path)) / "reading-phone.png"
    expect_fits_the_phone(page, shot)
    box = reading.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box

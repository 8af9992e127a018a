"""The Segments and Customers pages render the retail dataset as tables."""

from collections.abc import Callable

from browser_ui import login
from playwright.sync_api import Page, expect

SEGMENTS = ["High Value", "Regular", "At Risk", "New"]


def test_segments_and_customers_tables(page: Page, user: Callable[[str], str]) -> None:
    login(page, user("alice"))

    page.get_by_test_id("nav-segments").click()
    segments = page.get_by_test_id("segments-table")
    expect(segments).to_be_visible()
    rows = segments.locator("tbody tr")
    expect(rows).to_have_count(len(SEGMENTS))
    expect(rows.locator("td:first-child")).to_have_text(SEGMENTS, use_inner_text=True)
    expect(segments.locator("tfoot tr")).to_have_count(1)  # the overall row
    expect(page.locator("#segments-meta")).to_contain_text("As of 2025-12-31")
    expect(page.locator("#segments-error")).to_be_hidden()

    # A segment name leads to its customers.
    rows.get_by_role("button", name="At Risk").click()
    customers = page.get_by_test_id("customers-table")
    expect(customers).to_be_visible()
    expect(page.get_by_test_id("customers-segment")).to_have_value("At Risk")
    body = customers.locator("tbody tr")
    expect(body.first.locator("td").nth(2)).to_have_text("At Risk")
    assert set(body.locator("td:nth-child(3)").all_inner_texts()) == {"At Risk"}

    # All segments: the first page of the 300 customers, then the next one.
    page.get_by_test_id("customers-segment").select_option("")
    expect(page.locator("#customers-range")).to_have_text("1\N{EN DASH}50 of 300")
    expect(body).to_have_count(50)
    page.get_by_test_id("customers-next").click()
    expect(page.locator("#customers-range")).to_have_text("51\N{EN DASH}100 of 300")
    expect(page.locator("#customers-error")).to_be_hidden()

    # The tab is a preference: a reload comes back to it.
    page.reload()
    expect(page.get_by_test_id("customers-table")).to_be_visible()
    expect(page.get_by_test_id("customers-table").locator("tbody tr")).to_have_count(50)

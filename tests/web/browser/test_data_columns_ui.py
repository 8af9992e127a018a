"""The Data page's Columns in Chromium (docs/architecture.md#the-data-page): an admin reads what each
column holds, changes a role and a column's synonyms and saves (a new version in the list); a role the
values cannot have is one line under the table and changes nothing; an analyst reads the same table
without controls; on a phone the page keeps its width.

The saves change the dataset, so the module has an app of its own (the directory's app is shared by
every other browser test, which expect its generated data)."""

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from browser_ui import PASSWORD, PHONE, accessibility_problems, login
from playwright.sync_api import Locator, Page, expect

from agent_orchestrator.background_server import BackgroundServer
from agent_orchestrator.retail import GeneratorConfig, generate_dataset
from agent_orchestrator.runtime import RuntimeSettings
from agent_orchestrator.sessions.store import UserStore, make_engine, migrate
from agent_orchestrator.settings import WebSettings
from agent_orchestrator.testing.scripted_model import ScriptedModel
from agent_orchestrator.web.app import create_app

SMALL_RETAIL = GeneratorConfig(seed=7, customers=120, transactions=2_000, products=80)


@contextmanager
def site_on(data_dir: Path, scripted_server: ScriptedModel) -> Iterator[str]:
    """An app over generated data in ``data_dir``, with ``owner`` (the admin) and ``analyst``."""
    data_dir.mkdir(exist_ok=True)
    web = WebSettings(
        data_dir=data_dir,
        database_url=f"sqlite:///{data_dir / 'catalog.sqlite'}",
        lease_ttl=5.0,
        retail_dataset=True,
    )
    generate_dataset(web.retail_db, SMALL_RETAIL)
    engine = make_engine(web.database_url)
    migrate(engine)
    users = UserStore(engine)
    users.create("owner", PASSWORD)
    users.create("analyst", PASSWORD)
    engine.dispose()
    runtime = RuntimeSettings(
        data_dir=data_dir, provider_base_url=scripted_server.base_url, model="scripted-model", turn_timeout=60
    )
    server = BackgroundServer(create_app(web, runtime), health_path="/api/health")
    try:
        yield server.start(timeout=60)
    finally:
        server.stop()


@pytest.fixture(scope="module")
def columns_site(tmp_path_factory: pytest.TempPathFactory, scripted_server: ScriptedModel) -> Iterator[str]:
    """The module's app: its saves change the dataset every test of the module reads."""
    with site_on(tmp_path_factory.mktemp("data-columns"), scripted_server) as url:
        yield url


def open_columns(page: Page, site: str, username: str) -> Locator:
    """The Data page's columns table, filled."""
    login(page, username, url=site)
    page.get_by_test_id("nav-data").click()
    table = page.get_by_test_id("columns-table")
    expect(table.locator('tr[data-column="country"]')).to_be_visible()
    return table


def test_an_admin_changes_a_role_and_synonyms_and_a_wrong_role_is_one_line(
    page: Page, columns_site: str
) -> None:
    table = open_columns(page, columns_site, "owner")
    country, segment = table.locator('tr[data-column="country"]'), table.locator('tr[data-column="segment"]')
    expect(country.locator("th")).to_contain_text("Country")
    expect(country.locator("td").first).to_have_text("VARCHAR")
    expect(country.locator("td.samples").first).not_to_be_empty()
    expect(segment.get_by_label("Role of Segment")).to_have_value("dimension")
    # A key names what it identifies; a measure its unit: each control shows with its role only.
    invoice = table.locator('tr[data-column="invoice"]')
    expect(invoice.get_by_label("What Invoice identifies")).to_have_value("order")
    expect(invoice.get_by_label("Unit of Invoice")).to_be_hidden()
    expect(segment.get_by_label("What Segment identifies")).to_be_hidden()

    # Text as a measure: one line under the table, and the data stays as it was.
    versions = page.get_by_test_id("versions-table").locator("tbody tr")
    expect(versions).to_have_count(1)
    country.get_by_label("Role of Country").select_option("measure")
    expect(country.get_by_label("Unit of Country")).to_be_visible()
    page.get_by_test_id("columns-save").click()
    error = page.get_by_test_id("columns-error")
    expect(error).to_contain_text("The column 'Country' cannot be a measure: its value")
    expect(page.locator('[role="alert"]:visible')).to_have_count(1)
    expect(versions).to_have_count(1)

    country.get_by_label("Role of Country").select_option("dimension")
    country.get_by_label("Synonyms of Country, separated by commas").fill("market, territory,  ")
    segment.get_by_label("Role of Segment").select_option("ignore")
    page.get_by_test_id("columns-save").click()
    expect(page.get_by_test_id("columns-saved")).to_contain_text("Saved as a new version")
    expect(error).to_be_hidden()
    expect(versions).to_have_count(2)
    expect(versions.first).to_contain_text("model")
    expect(table.locator('tr[data-column="segment"]').get_by_label("Role of Segment")).to_have_value("ignore")
    synonyms = table.locator('tr[data-column="country"]').get_by_label(
        "Synonyms of Country, separated by commas"
    )
    expect(synonyms).to_have_value("market, territory")

    # Saving again with nothing changed makes no version.
    page.get_by_test_id("columns-save").click()
    expect(page.get_by_test_id("columns-saved")).to_have_text("Nothing changed.")
    expect(versions).to_have_count(2)


def test_an_analyst_reads_the_columns_without_controls(page: Page, columns_site: str) -> None:
    table = open_columns(page, columns_site, "analyst")
    expect(table.locator("select, input")).to_have_count(0)
    expect(page.get_by_test_id("metrics-table").locator("input")).to_have_count(0)
    expect(table.locator('tr[data-column="invoice"]')).to_contain_text("Key (identifies), order")
    expect(page.get_by_test_id("columns-save")).to_be_hidden()


def test_on_a_phone_the_columns_keep_the_page_width(page: Page, columns_site: str) -> None:
    page.set_viewport_size(PHONE)
    open_columns(page, columns_site, "owner")
    widths = page.evaluate("() => [document.documentElement.scrollWidth, document.body.scrollWidth]")
    assert max(widths) <= PHONE["width"], widths


def test_a_file_of_one_column_per_item_says_it_was_read_as_lines(
    page: Page, tmp_path: Path, scripted_server: ScriptedModel
) -> None:
    """A till's export of one column per item, imported on the page: the Columns say which headers
    were items and that the receipt's total is the whole order's, with no accessibility problem and
    within a phone's width."""
    items = ("angbutter", "plain bread", "jam", "americano", "croissant", "tiramisu", "cookie")
    rows = ["datetime;total;place;" + ";".join(items)]
    rows += [
        f"{1 + n}/03/2020 10:05;{1000 + n};north;{1 + n % 2};{'' if n % 3 else 2};;1;;;" for n in range(20)
    ]
    path = tmp_path / "till.csv"
    path.write_text("\n".join(rows) + "\n")
    with site_on(tmp_path / "till-site", scripted_server) as site:
        login(page, "owner", url=site)
        page.get_by_test_id("nav-data").click()
        page.get_by_test_id("upload-file").set_input_files(path)
        page.get_by_test_id("upload-send").click()
        page.get_by_test_id("import-start").click()
        expect(page.get_by_test_id("import-report")).to_contain_text("Imported till.csv", timeout=60_000)
        note = page.get_by_test_id("columns-lines")
        expect(note).to_contain_text("one column per item (angbutter, plain bread, jam, americano, croissant")
        expect(note).to_contain_text("and 1 more): it is read as one line per item sold")
        expect(note).to_contain_text("total is the whole order's")
        expect(page.get_by_test_id("columns-table").locator('tr[data-column="item"]')).to_be_visible()
        assert accessibility_problems(page) == []
        page.set_viewport_size(PHONE)
        page.reload()
        page.get_by_test_id("nav-data").click()
        expect(note).to_be_visible()
        widths = page.evaluate("() => [document.documentElement.scrollWidth, document.body.scrollWidth]")
        assert max(widths) <= PHONE["width"], widths

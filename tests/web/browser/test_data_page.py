"""The Data page in Chromium, on a phone and on a desktop (docs/architecture.md#the-data-page): an admin
uploads a file, maps its columns, corrects how its values are read, follows the import's progress,
reads the report, downloads the skipped rows, changes the settings and restores a version, and
downloads the rated answers as eval cases; a file over the limit is refused before it is sent; an
analyst sees the facts, no upload controls, and the API refuses them (audited).

The imports change the dataset, so these tests have an app of their own (the directory's app is
shared by every other browser test, which expect its generated data).
"""

import json
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_ui import ASSISTANT, PASSWORD, PHONE, accessibility_problems, api, chart_points, login, send
from playwright.sync_api import Locator, Page, expect
from sales_csv import sales_csv

from agent_orchestrator.background_server import BackgroundServer
from agent_orchestrator.retail import GeneratorConfig, generate_dataset
from agent_orchestrator.runtime import RuntimeSettings
from agent_orchestrator.sessions.store import AuditLog, UserStore, make_engine, migrate
from agent_orchestrator.settings import WebSettings
from agent_orchestrator.testing.scripted_model import ScriptedModel, Text, ToolCall
from agent_orchestrator.web.app import create_app
from agent_orchestrator.web.deps import ADMINS_ONLY
from agent_orchestrator.web.routes.datasets import UPLOAD_PATH
from agent_orchestrator.web.uploads import UPLOAD_MAX_BYTES

SMALL_RETAIL = GeneratorConfig(seed=7, customers=300, transactions=6_000, products=200)
MARKUP = '<img src=x onerror="document.title=1">'
# Semicolons, yen prices with a thousands comma ("1,250": detected as a decimal comma) and dates no
# known format reads: the admin corrects the numbers and types the date format.
YEN = "Order;SKU;Item;Qty;Date;Price;Customer;Country\n" + "".join(
    f"T{100 + i // 2};K{i % 3};Teacup {i};{1 + i % 2};{1 + i:02d} Mar 2024 10:{i:02d};"
    f"{'1,250' if i % 3 else '12,000'};{7 + i % 4};Japan\n"
    for i in range(12)
)


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The data directory of the page's app: its catalog holds the audit log."""
    return tmp_path_factory.mktemp("data-page")


@pytest.fixture(scope="module")
def data_site(data_dir: Path, scripted_server: ScriptedModel) -> Iterator[str]:
    """An app of its own, with ``owner`` (the first account: the admin) and ``analyst``."""
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


def open_data_page(page: Page, site: str, username: str) -> None:
    login(page, username, url=site)
    page.get_by_test_id("nav-data").click()
    expect(page.get_by_test_id("data-facts")).to_contain_text("Rows")


def upload(page: Page, path: Path, timeout: float = 5_000) -> None:
    page.get_by_test_id("upload-file").set_input_files(path)
    page.get_by_test_id("upload-send").click()
    expect(page.get_by_test_id("mapping-form")).to_be_visible(timeout=timeout)


def restore_default(page: Page) -> None:
    row = page.locator('[data-testid="versions-table"] tr[data-version="default"]')
    row.get_by_test_id("version-restore").click()
    # A switch rebuilds the tools' schemas from the version's semantic model: seconds on a loaded
    # machine (the suite runs four workers on two cores), not the assertion's default five.
    expect(row.get_by_test_id("version-active")).to_be_visible(timeout=20_000)
    expect(page.get_by_test_id("data-facts")).to_contain_text("6,000")


def refused_uploads(data_dir: Path) -> int:
    """The audited refusals (``forbidden``) of the upload route."""
    engine = make_engine(f"sqlite:///{data_dir / 'catalog.sqlite'}")
    try:
        events = AuditLog(engine).recent(limit=1000)
    finally:
        engine.dispose()
    return sum(1 for e in events if e.action == "forbidden" and e.details.get("path") == UPLOAD_PATH)


def fits_the_phone(page: Page, shot: Path) -> None:
    page.screenshot(path=shot, full_page=True)
    widths = page.evaluate("() => [document.documentElement.scrollWidth, document.body.scrollWidth]")
    assert max(widths) <= PHONE["width"], (shot.name, widths)
    expect(page.get_by_test_id("logout")).to_be_in_viewport()


def test_an_admin_imports_follows_the_progress_reads_the_report_and_restores(
    page: Page, data_site: str, tmp_path: Path
) -> None:
    open_data_page(page, data_site, "owner")
    expect(page.get_by_test_id("data-facts")).to_contain_text("6,000")

    # A big file in the Online Retail layout: read as it is, imported with a moving progress bar.
    # 6.7 MB through the browser, read and profiled: seconds alone, a minute on a busy CI machine
    # (its import ran at a tenth of its speed alone beside three other workers).
    upload(page, sales_csv(tmp_path / "online-retail.csv", 100_000, customers=2_000), timeout=30_000)
    expect(page.get_by_test_id("mapping-detected")).to_contain_text("Online Retail", timeout=30_000)
    expect(page.get_by_test_id("map-customer_id")).to_have_value("CustomerID")
    expect(page.get_by_test_id("preview-table").locator("tbody tr")).to_have_count(10)
    page.get_by_test_id("import-start").click()
    expect(page.get_by_test_id("import-progress")).to_be_visible()
    expect(page.get_by_test_id("import-numbers")).to_contain_text("rows/s", timeout=30_000)
    moving = re.compile(r"^(?:[1-9]|0\.\d*[1-9])")  # above zero: the bar moves
    expect(page.get_by_test_id("import-bar")).to_have_attribute("value", moving, timeout=30_000)
    report = page.get_by_test_id("import-report")
    expect(report).to_contain_text("Imported online-retail.csv", timeout=120_000)
    expect(page.get_by_test_id("report-facts")).to_contain_text("100,000")
    expect(page.get_by_test_id("import-progress")).to_be_hidden()
    versions = page.get_by_test_id("versions-table").locator("tbody tr")
    expect(versions.first).to_contain_text("online-retail.csv")
    expect(versions.first.get_by_test_id("version-active")).to_be_visible()
    expect(page.get_by_test_id("data-facts")).to_contain_text("100,000")

    # A shop's own export: its customer column is to be mapped (else its own rows only) and its date
    # format chosen.
    shop = sales_csv(tmp_path / "shop.csv", 120, without_customer={4, 8}, shop_export=True)
    shop.write_text(shop.read_text().replace("Product P001", MARKUP))
    upload(page, shop)
    expect(page.get_by_test_id("mapping-detected")).to_contain_text("not a known layout")
    expect(page.get_by_test_id("mapping-problems")).to_contain_text("day/month and month/day")
    cells = page.get_by_test_id("preview-table").locator("td")
    expect(cells.filter(has_text=MARKUP)).to_have_count(1)  # the file's cell, as text
    expect(page.get_by_test_id("preview-table").locator("img")).to_have_count(0)
    expect(page.get_by_test_id("map-customer_id")).to_have_value("")
    expect(page.get_by_test_id("mapping-problems")).to_contain_text("imports as its own rows only")
    page.get_by_test_id("map-customer_id").select_option("Client")
    page.get_by_test_id("import-start").click()
    expect(page.get_by_test_id("mapping-error")).to_contain_text("Choose the date format")
    page.get_by_test_id("mapping-date-format").select_option("%d/%m/%Y %H:%M")
    page.get_by_test_id("mode-replace").check()
    page.get_by_test_id("import-start").click()
    expect(report).to_contain_text("Imported shop.csv", timeout=60_000)
    expect(page.get_by_test_id("report-facts")).to_contain_text("118")
    expect(page.get_by_test_id("report-reasons")).to_contain_text("2")
    expect(page.get_by_test_id("report-sample")).to_contain_text("6,")  # line 6: the header is line 1
    with page.expect_download() as download:
        page.get_by_test_id("report-download").click()
    lines = Path(download.value.path()).read_text().splitlines()
    assert [line.split(",")[0] for line in lines] == ["line", "6", "10"]
    assert page.title() == "AgentOrchestrator"

    # The next file of the same shop: the mapping comes pre-filled.
    upload(page, sales_csv(tmp_path / "shop-2.csv", 30, shop_export=True))
    expect(page.get_by_test_id("mapping-detected")).to_contain_text("as confirmed last time")
    expect(page.get_by_test_id("map-customer_id")).to_have_value("Client")
    page.get_by_test_id("mapping-cancel").click()
    expect(page.get_by_test_id("mapping-form")).to_be_hidden()

    # A binary file: one message, nothing else changes.
    (tmp_path / "photo.csv").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00" * 100)
    page.get_by_test_id("upload-file").set_input_files(tmp_path / "photo.csv")
    page.get_by_test_id("upload-send").click()
    expect(page.get_by_test_id("upload-error")).to_have_text(
        "photo.csv is not a CSV file: it holds binary data"
    )

    # The settings: renamed, another active window; the facts show them at once. What is typed and
    # not yet saved survives a look at another page.
    page.get_by_test_id("settings-name").fill("Corner shop")
    page.get_by_test_id("settings-currency").fill("eur")
    page.get_by_test_id("nav-chat").click()
    with page.expect_response(lambda response: response.url.endswith("/api/datasets")):
        page.get_by_test_id("nav-data").click()  # the page reloads its facts
    expect(page.get_by_test_id("settings-name")).to_have_value("Corner shop")
    expect(page.get_by_test_id("settings-currency")).to_have_value("eur")
    page.get_by_test_id("rule-active_days").fill("30")
    page.get_by_test_id("settings-save").click()
    # Saving recomputes the segments: seconds on a busy machine (CI once took more than the default 5 s).
    expect(page.get_by_test_id("settings-saved")).to_contain_text("recomputed", timeout=30_000)
    expect(page.get_by_test_id("data-facts")).to_contain_text("Corner shop")
    expect(page.get_by_test_id("data-facts")).to_contain_text("EUR")
    expect(page.get_by_test_id("data-rules")).to_contain_text("30")

    restore_default(page)
    expect(page.get_by_test_id("data-facts")).not_to_contain_text("Corner shop")


def test_on_a_phone_the_upload_mapping_and_report_fit_the_width(
    page: Page, data_site: str, tmp_path: Path
) -> None:
    page.set_viewport_size(PHONE)
    open_data_page(page, data_site, "owner")
    fits_the_phone(page, tmp_path / "data.png")
    upload(page, sales_csv(tmp_path / "phone.csv", 300, shop_export=True))
    page.get_by_test_id("map-customer_id").select_option("Client")
    page.get_by_test_id("mapping-date-format").select_option("%d/%m/%Y %H:%M")
    fits_the_phone(page, tmp_path / "mapping.png")
    page.get_by_test_id("mode-append").check()
    page.get_by_test_id("import-start").click()
    expect(page.get_by_test_id("import-report")).to_contain_text("Imported phone.csv", timeout=60_000)
    expect(page.get_by_test_id("versions-table").locator("tbody tr").first).to_contain_text("append")
    fits_the_phone(page, tmp_path / "report.png")
    restore_default(page)


def test_an_admin_corrects_how_the_values_are_read_and_it_is_remembered(
    page: Page, data_site: str, tmp_path: Path
) -> None:
    open_data_page(page, data_site, "owner")
    (tmp_path / "yen.csv").write_text(YEN)
    upload(page, tmp_path / "yen.csv")
    detected, problems = page.get_by_test_id("mapping-detected"), page.get_by_test_id("mapping-problems")
    expect(detected).to_contain_text("comma (1,5)")
    expect(problems).to_have_text("the dates in 'Date' fit no known format (e.g. '01 Mar 2024 10:00')")
    error = page.get_by_test_id("mapping-error")

    # A delimiter that cannot be the file's: one message, the controls back to the reading shown.
    page.get_by_test_id("reading-delimiter").select_option("|")
    expect(error).to_have_text("yen.csv is not a CSV file with a header: its first line has one column")
    expect(page.get_by_test_id("reading-delimiter")).to_have_value(";")

    page.get_by_test_id("reading-decimal").select_option(".")
    expect(detected).to_contain_text("point (1.5)")
    expect(detected).to_contain_text("as you chose it (kept when the file was read again)")
    expect(error).to_be_hidden()
    page.get_by_test_id("reading-thousands").select_option(",")
    expect(detected).to_contain_text('Thousands","')

    typed = page.get_by_test_id("reading-date-typed")
    typed.fill("%Y-%m-%d")
    typed.press("Enter")  # reads the format; does not start the import
    expect(error).to_have_text(
        "the date format '%Y-%m-%d' reads none of the dates in 'Date' (e.g. '01 Mar 2024 10:00')"
    )
    expect(page.get_by_test_id("import-progress")).to_be_hidden()
    typed.fill("%d %b %Y %H:%M")
    typed.press("Enter")
    expect(page.get_by_test_id("mapping-date-format")).to_have_value("%d %b %Y %H:%M")
    expect(problems).to_be_empty()
    expect(error).to_be_hidden()
    page.get_by_test_id("mode-replace").check()
    page.get_by_test_id("import-start").click()
    expect(page.get_by_test_id("import-report")).to_contain_text("Imported yen.csv", timeout=60_000)
    expect(page.get_by_test_id("report-facts")).to_contain_text("12")
    lines = api(page, "GET", "/api/retail/transactions?limit=50")["body"]["items"]
    assert sorted({line["unit_price"] for line in lines}) == [1250.0, 12000.0]

    # The next file of the source comes read the way it was corrected.
    upload(page, tmp_path / "yen.csv")
    expect(detected).to_contain_text("as confirmed last time")
    expect(page.get_by_test_id("reading-thousands")).to_have_value(",")
    expect(page.get_by_test_id("mapping-date-format")).to_have_value("%d %b %Y %H:%M")
    expect(problems).to_be_empty()
    page.get_by_test_id("mapping-cancel").click()
    restore_default(page)


def test_a_file_over_the_limit_is_refused_before_it_is_sent(
    page: Page, data_site: str, tmp_path: Path
) -> None:
    open_data_page(page, data_site, "owner")
    assert (
        page.evaluate("async () => (await import('/static/js/upload.js')).UPLOAD_MAX_BYTES")
        == UPLOAD_MAX_BYTES
    )
    before = api(page, "GET", "/api/datasets")["body"]
    huge = tmp_path / "huge.csv"
    with huge.open("wb") as handle:  # sparse: no disk is used for it
        handle.truncate(UPLOAD_MAX_BYTES + 2**20)
    assert os.path.getsize(huge) > UPLOAD_MAX_BYTES
    sent: list[str] = []
    page.on("request", lambda request: sent.append(request.url) if UPLOAD_PATH in request.url else None)
    page.get_by_test_id("upload-file").set_input_files(huge)
    page.get_by_test_id("upload-send").click()
    expect(page.get_by_test_id("upload-error")).to_have_text(
        "huge.csv is 129 MB: files up to 128 MB can be uploaded."
    )
    expect(page.locator('[role="alert"]:visible')).to_have_count(1)
    expect(page.get_by_test_id("mapping-form")).to_be_hidden()
    expect(page.get_by_test_id("upload-status")).to_be_empty()
    assert sent == []
    after = api(page, "GET", "/api/datasets")["body"]
    assert (after["version_id"], after["rows"]) == (before["version_id"], before["rows"])
    expect(page.get_by_test_id("data-facts")).to_contain_text("6,000")


def test_an_analyst_sees_the_facts_but_no_controls_and_the_api_refuses_them(
    page: Page, data_site: str, data_dir: Path
) -> None:
    open_data_page(page, data_site, "analyst")
    expect(page.get_by_test_id("data-facts")).to_contain_text("6,000")
    expect(page.get_by_test_id("data-rules")).to_contain_text("Active days")
    expect(page.get_by_test_id("data-upload")).to_be_hidden()
    expect(page.get_by_test_id("data-settings")).to_be_hidden()
    expect(page.get_by_test_id("feedback-export")).to_be_hidden()
    assert api(page, "GET", "/api/admin/feedback")["status"] == 403
    expect(page.get_by_test_id("versions-table").locator("tbody tr").first).to_be_visible()
    expect(page.get_by_test_id("version-restore")).to_have_count(0)
    refused = api(page, "POST", "/api/datasets/versions/default/activate")
    assert refused == {"status": 403, "body": {"detail": "Only an admin can do this."}}
    refused = api(page, "PATCH", "/api/datasets/settings", {"name": "Mine"})
    assert refused["status"] == 403
    # An upload through the page's own fetch, with its cookie and CSRF token: refused, and audited once.
    before = refused_uploads(data_dir)
    refused = page.evaluate(
        """async (path) => {
            const me = await (await fetch("/api/auth/me")).json();
            const response = await fetch(path, {
                method: "POST",
                headers: { "Content-Type": "text/csv", "X-CSRF-Token": me.csrf_token },
                body: "InvoiceNo,StockCode,Description,Quantity,InvoiceDate,UnitPrice,CustomerID,Country\\n",
            });
            return { status: response.status, body: await response.json() };
        }""",
        f"{UPLOAD_PATH}?name=mine.csv",
    )
    assert refused == {"status": 403, "body": {"detail": ADMINS_ONLY}}
    assert refused_uploads(data_dir) == before + 1


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])
def test_an_admin_downloads_the_rated_answers_as_eval_cases(
    page: Page, data_site: str, scripted_model: ScriptedModel, viewport: dict[str, int] | None
) -> None:
    if viewport:
        page.set_viewport_size(viewport)
    login(page, "owner", url=data_site)
    question = f"Which segments are there? ({'phone' if viewport else 'desktop'})"
    scripted_model.script(ToolCall("retail-analytics-list_segments", {}), Text("Four segments."))
    expect(send(page, question)).to_have_text("Four segments.")
    answer = page.locator(ASSISTANT).last
    answer.get_by_test_id("feedback-up").click()
    page.get_by_test_id("feedback-note").fill("Right segments.")
    page.get_by_test_id("feedback-note-save").click()
    expect(answer.get_by_test_id("feedback-note-text")).to_have_text("“Right segments.”")

    page.get_by_test_id("nav-data").click()
    with page.expect_download() as download:
        page.get_by_test_id("feedback-export").click()
    assert download.value.suggested_filename == "feedback-cases.jsonl"
    assert download.value.failure() is None
    cases = [json.loads(line) for line in Path(download.value.path()).read_text().splitlines()]
    (case,) = [c for c in cases if c["question"] == question]
    assert (case["answer"], case["rating"], case["note"]) == ("Four segments.", "up", "Right segments.")
    (result,) = case["tool_results"]
    assert result["tool"] == "list_segments" and result["arguments"] == {}
    segments = json.loads(result["content"])["segments"]
    assert [s["segment"] for s in segments] == ["High Value", "Regular", "At Risk", "New"]
    if viewport:
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def money_on_chart(figure: Locator, tooltip: str) -> dict[str, object]:
    """What a drawn chart writes for its money: the left axis' ticks, a tooltip line, the table's cells;
    read again until its tooltip reads ``tooltip`` (a page redraws its charts after its tables)."""
    deadline = time.monotonic() + 15
    while True:
        chart_points(figure)
        shown = figure.locator("canvas").evaluate(
            """(canvas) => {
                const chart = window.Chart.getChart(canvas);
                const label = chart.config.options.plugins.tooltip.callbacks.label;
                return {
                    ticks: chart.scales.left.ticks.map((tick) => tick.label),
                    tooltip: label({ dataset: chart.data.datasets[0], raw: 1234.5 }),
                };
            }"""
        ) | {"table": figure.get_by_test_id("chart-table").locator("tbody tr td").first.text_content()}
        if shown["tooltip"] == tooltip or time.monotonic() > deadline:
            return shown
        time.sleep(0.1)


def set_currency(page: Page, code: str) -> None:
    # Showing the page refills the form from the facts: wait for that before typing into it.
    page.get_by_test_id("data-facts").evaluate("(facts) => facts.replaceChildren()")
    page.get_by_test_id("nav-data").click()
    expect(page.get_by_test_id("data-facts")).to_contain_text("Rows")
    page.get_by_test_id("settings-currency").fill(code)
    page.get_by_test_id("settings-save").click()
    # Saving recomputes the segments: seconds on a busy machine (CI once took more than the default 5 s).
    expect(page.get_by_test_id("settings-saved")).to_contain_text("recomputed", timeout=30_000)
    expect(page.get_by_test_id("data-facts")).to_contain_text(code or "not named")


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])
def test_the_pages_and_their_charts_print_money_in_the_currency_the_admin_sets(
    page: Page, data_site: str, viewport: dict[str, int] | None, tmp_path: Path
) -> None:
    """Every amount on the pages is in the dataset's currency, written as the answers write it, and
    follows a change without a reload (each page refetches the facts when shown); unset: none."""
    if viewport:
        page.set_viewport_size(viewport)
    open_data_page(page, data_site, "owner")
    set_currency(page, "GBP")

    page.get_by_test_id("nav-segments").click()
    table = page.get_by_test_id("segments-table")
    expect(table.locator("tbody tr").first).to_contain_text("£")
    rules = page.locator("#segments-rules")
    expect(rules).to_contain_text("spending more than £")
    expect(rules).to_contain_text("net spend above £")
    trend = page.get_by_test_id("segments-trend-chart").get_by_test_id("chart")
    shown = money_on_chart(trend, "Revenue: £1,234.50")
    assert shown["tooltip"] == "Revenue: £1,234.50", shown
    assert all(str(tick).startswith("£") for tick in shown["ticks"]), shown  # type: ignore[attr-defined]
    assert str(shown["table"]).startswith("£"), shown

    page.get_by_test_id("nav-customers").click()
    first = page.get_by_test_id("customers-table").locator("tbody tr").first
    expect(first).to_contain_text("£")
    first.locator("a.customer-link").click()
    expect(page.get_by_test_id("customer-figures")).to_contain_text("£")
    expect(page.get_by_test_id("customer-products")).to_contain_text("£")
    timeline = page.locator("#customer-body").get_by_test_id("chart").first
    assert money_on_chart(timeline, "Revenue: £1,234.50")["tooltip"] == "Revenue: £1,234.50"
    if viewport:
        fits_the_phone(page, tmp_path / "customer.png")

    set_currency(page, "")
    page.get_by_test_id("nav-segments").click()
    expect(table.locator("tbody tr").first).not_to_contain_text("£")
    expect(rules).to_contain_text("spending more than ")
    expect(rules).not_to_contain_text("£")
    shown = money_on_chart(trend, "Revenue: 1,234.50")
    assert shown["tooltip"] == "Revenue: 1,234.50", shown
    assert not any("£" in str(tick) for tick in shown["ticks"]), shown  # type: ignore[attr-defined]
    assert not str(shown["table"]).startswith("£"), shown
    page.get_by_test_id("nav-data").click()
    restore_default(page)


def test_a_column_of_names_left_unused_is_pointed_out_before_the_import(
    page: Page, data_site: str, tmp_path: Path
) -> None:
    """Each column shows its profile under its name; columns of names, categories or amounts that no
    field was chosen for are listed before the import, with a word on product names."""
    open_data_page(page, data_site, "owner")
    path = tmp_path / "shop.csv"
    path.write_text(
        "Order,SKU,Item,Qty,Date,Price,Customer,Country,Region\n"
        + "".join(
            f"T{i},K{i % 9},Mug no. {i},1,2024-03-{1 + i % 28:02d},3.50,{7 + i % 6},France,"
            f"{('North', 'South')[i % 2]}\n"
            for i in range(40)
        )
    )
    upload(page, path)
    item = page.get_by_test_id("column-profile").filter(has_text="Item")
    expect(item).to_contain_text("text, names · 40 values")
    assert accessibility_problems(page) == []  # the mapping step, its scrolled preview table included
    unused = page.get_by_test_id("mapping-unused")
    page.get_by_test_id("map-description").select_option("")
    expect(unused).to_contain_text("“Item” looks like names")
    expect(unused).to_contain_text("“Region” looks like categories")
    expect(unused).to_contain_text("choose it for Description")
    page.get_by_test_id("map-description").select_option("Item")  # chosen: no longer unused
    expect(unused).not_to_contain_text("“Item”")
    expect(unused).to_contain_text("“Region” looks like categories")
    page.get_by_test_id("mapping-cancel").click()

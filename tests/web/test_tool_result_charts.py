"""Charts under chat answers come from what the retail tools really return, and customer ids link.

The tool results here are the real MCP server's answers over a generated dataset (called in process),
so a change to a tool's result shape that the charts no longer read fails here, not in a browser.
"""

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from agent_orchestrator.mcp_server.server import build_server
from agent_orchestrator.retail import GeneratorConfig, generate_dataset
from agent_orchestrator.retail.analysis import set_currency
from agent_orchestrator.sessions.actions.exchange import export_markdown
from agent_orchestrator.sessions.history.tool_results import ToolResult
from agent_orchestrator.sessions.store import SessionRecord
from agent_orchestrator.web.charts import charts_for, markdown_table
from agent_orchestrator.web.customer_links import customer_ids
from agent_orchestrator.web.markdown import render_markdown
from agent_orchestrator.web.routes.exchange import figures_of


@pytest.fixture(scope="module")
def retail_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    config = GeneratorConfig(seed=5, customers=300, transactions=6_000, products=200)
    return generate_dataset(tmp_path_factory.mktemp("charts") / "retail.sqlite", config)


async def tool_result(db: Path, tool: str, arguments: dict[str, Any] | None = None) -> ToolResult:
    answer = await build_server(db).call_tool(tool, arguments or {})
    assert not answer.is_error
    return ToolResult(tool, "retail-analytics", arguments or {}, answer.content[0].text)


async def test_a_monthly_trend_is_a_line_chart_of_the_months_the_tool_returned(retail_db: Path) -> None:
    result = await tool_result(retail_db, "monthly_trend", {"months": 9, "segment": "At Risk"})
    months = json.loads(result.content)["months"]
    (chart,) = charts_for([result])
    assert (chart.kind, chart.tool, chart.category) == ("line", "monthly_trend", "Month")
    assert "segment At Risk" in chart.title
    assert chart.labels == [m["month"] for m in months] and len(chart.labels) == 9
    assert [(s.label, s.unit, s.axis) for s in chart.series] == [
        ("Revenue", "money", "left"),
        ("Orders", "count", "right"),
        ("Buyers", "count", "right"),
    ]
    assert chart.series[0].values == [m["revenue"] for m in months]
    assert chart.series[2].values == [m["buyers"] for m in months]


async def test_rankings_are_bar_charts_with_one_bar_per_row(retail_db: Path) -> None:
    customers = await tool_result(retail_db, "top_customers", {"limit": 7})
    products = await tool_result(retail_db, "top_products", {"sort_by": "quantity", "limit": 4})
    countries = await tool_result(retail_db, "country_breakdown", {"limit": 5})
    segments = await tool_result(retail_db, "list_segments")
    by_tool = {chart.tool: chart for chart in charts_for([customers, products, countries, segments])}

    rows = json.loads(customers.content)["customers"]
    top = by_tool["top_customers"]
    assert (top.kind, top.category) == ("bar", "Customer") and len(top.labels) == 7
    assert top.customer_ids == [r["id"] for r in rows]
    assert top.labels[0] == f"#{rows[0]['id']}" and top.series[0].values == [r["revenue"] for r in rows]

    units = by_tool["top_products"]
    assert units.title == "Top products by units" and units.series[0].unit == "count"
    assert units.series[0].values == [p["quantity"] for p in json.loads(products.content)["products"]]
    assert len(by_tool["country_breakdown"].labels) == 5
    shares = by_tool["list_segments"]
    assert shares.labels == ["High Value", "Regular", "At Risk", "New"]
    assert [s.unit for s in shares.series] == ["share", "share"]
    assert sum(shares.series[1].values) == pytest.approx(1, abs=0.01)


async def test_a_grouped_sales_query_is_charted_a_series_as_a_line_and_a_ranking_as_bars(
    retail_db: Path,
) -> None:
    by_month = await tool_result(retail_db, "analyze_sales", {"measure": "orders", "group_by": "month"})
    ranking = await tool_result(
        retail_db,
        "analyze_sales",
        {"group_by": "customer", "order": "lowest", "limit": 4, "period": "2025", "compare": "year_before"},
    )
    single = await tool_result(retail_db, "analyze_sales", {"countries": ["Germany"], "period": "2025"})
    unanswered = await tool_result(retail_db, "analyze_sales", {"group_by": "month", "period": "1990"})
    series, bars = charts_for([by_month, ranking, single, unanswered])

    months = json.loads(by_month.content)
    assert (series.kind, series.tool, series.category, series.title) == (
        "line",
        "analyze_sales",
        "Month",
        months["reading"],
    )
    assert series.labels == [row["label"] for row in months["rows"]] and len(series.labels) == 24
    assert [(s.label, s.unit, s.values) for s in series.series] == [
        ("Orders", "count", [row["orders"] for row in months["rows"]])
    ]

    rows = json.loads(ranking.content)["rows"]
    assert (bars.kind, bars.category) == ("bar", "Customer")
    assert bars.customer_ids == [int(row["key"]) for row in rows] and bars.labels[0] == f"#{rows[0]['key']}"
    revenue, before = bars.series
    assert (revenue.label, revenue.unit, revenue.values) == ("Revenue", "money", [r["revenue"] for r in rows])
    assert before.label == "Revenue, 2024" and before.values == [r["previous"]["revenue"] for r in rows]


async def test_no_chart_for_a_single_figure_a_single_row_an_error_or_another_server(retail_db: Path) -> None:
    one = await tool_result(retail_db, "top_customers", {"limit": 1})
    totals = await tool_result(retail_db, "sales_summary")
    trend = await tool_result(retail_db, "monthly_trend", {"months": 3})
    elsewhere = ToolResult("monthly_trend", "other-server", {}, trend.content)
    broken = ToolResult("monthly_trend", "retail-analytics", {}, "no such month")
    assert charts_for([one, totals, elsewhere, broken]) == []
    assert len(charts_for([trend, trend])) == 1  # the same result twice is one chart


async def test_customer_ids_the_tools_returned_link_to_the_customer_page(retail_db: Path) -> None:
    ranking = await tool_result(retail_db, "top_customers", {"limit": 3})
    first, second, third = (row["id"] for row in json.loads(ranking.content)["customers"])
    summary = await tool_result(retail_db, "get_customer_summary", {"customer_id": first})
    assert customer_ids([ranking]) == {first, second, third}
    assert customer_ids([summary]) == {first}

    html = render_markdown(
        f"Top: {first}, {second} and #{third}; in 2025 we sold 2025 units.", customer_ids([ranking])
    )
    for number, text in ((first, str(first)), (second, str(second)), (third, f"#{third}")):
        assert f'<a href="#customer/{number}" class="customer-link">{text}</a>' in html
    assert "2025 units" in html and 'href="#customer/2025"' not in html


async def test_every_tools_result_is_read_for_customer_ids_without_failing(retail_db: Path) -> None:
    # sales_summary's "customers" is a count and country_breakdown's rows have no ids: no links, no error.
    for tool in ("sales_summary", "country_breakdown", "list_segments", "monthly_trend", "top_products"):
        result = await tool_result(retail_db, tool)
        assert customer_ids([result]) == frozenset()
        charts_for([result])


def test_a_customer_named_in_words_links_even_without_tool_results_and_nothing_else_changes() -> None:
    html = render_markdown("Customer 12345 spent 1,234.56; `customer 7` [x](javascript:alert(1)) <b>hi</b>")
    assert '<a href="#customer/12345" class="customer-link">Customer 12345</a>' in html
    assert "1,234.56" in html and "<code>customer 7</code>" in html  # code spans stay code
    assert "javascript:" not in html.replace("[x](javascript:alert(1))", "")  # not made a link
    assert "&lt;b&gt;hi&lt;/b&gt;" in html


async def test_a_rate_by_row_is_charted_as_shares(retail_db: Path) -> None:
    rates = await tool_result(
        retail_db, "analyze_sales", {"measure": "cancellation_rate", "group_by": "country", "limit": 5}
    )
    (chart,) = charts_for([rates])
    rows = json.loads(rates.content)["rows"]
    assert [(s.label, s.unit, s.values) for s in chart.series] == [
        ("Cancellation rate", "share", [row["cancellation_rate"] for row in rows])
    ]


@pytest.mark.parametrize(
    ("currency", "prefix", "suffix", "in_words"),
    [("GBP", "£", "", "£"), ("CHF", "", " CHF", " CHF"), (None, "", "", None)],
    ids=["symbol", "code", "none"],
)
async def test_the_tools_amounts_and_their_charts_are_in_the_datasets_currency(
    retail_db: Path, tmp_path: Path, currency: str | None, prefix: str, suffix: str, in_words: str | None
) -> None:
    """Every figure the app prints is in the currency the data names, written as the answers write it
    (render.money_affixes), and in none when it names none: the headlines the model copies, and the
    charts drawn from the stored results, which keep the currency they were computed in."""
    db = tmp_path / "retail.sqlite"
    with sqlite3.connect(retail_db) as source, sqlite3.connect(db) as conn:
        source.backup(conn)
        set_currency(conn, currency)
    results = [
        await tool_result(db, "monthly_trend", {"months": 6}),
        await tool_result(db, "top_customers", {"limit": 3}),
        await tool_result(db, "top_products", {"limit": 3}),
        await tool_result(db, "country_breakdown", {"limit": 3}),
        await tool_result(db, "analyze_sales", {"group_by": "country", "limit": 3}),
    ]
    summary = json.loads((await tool_result(db, "sales_summary", {})).content)
    revenue = f"{summary['revenue']:,.2f}"
    assert f"Revenue {prefix}{revenue}{suffix} from " in summary["headline"]
    assert summary.get("currency") == currency
    charts = charts_for(results)
    assert [chart.tool for chart in charts] == [result.tool for result in results]
    for chart in charts:
        assert (chart.money.prefix, chart.money.suffix) == (prefix, suffix), chart.tool
        assert chart.model_dump()["money"] == {"prefix": prefix, "suffix": suffix}
    for result in results:
        headline = json.loads(result.content).get("headline") or json.loads(result.content)["answer"]
        assert (in_words in headline) if in_words else not any(sign in headline for sign in "£€$¥"), headline


async def test_a_markdown_export_carries_each_charts_figures_as_a_table(retail_db: Path) -> None:
    countries = await tool_result(retail_db, "country_breakdown", {"limit": 3})
    (chart,) = charts_for([countries])
    rows = json.loads(countries.content)["countries"]
    table = markdown_table(chart).splitlines()
    assert (
        table[0] == f"**{chart.title}**" and table[2] == "| Country | Revenue |" and table[3] == "|---|---|"
    )
    assert table[4] == f"| {rows[0]['country']} | {rows[0]['revenue']:,.2f} |" and len(table) == 4 + len(rows)

    started = {"toolCallId": "c1", "toolName": "country_breakdown", "mcpServerName": "retail-analytics"}
    finished = {"toolCallId": "c1", "success": True, "result": {"content": countries.content}}
    log = [
        ("user.message", {"content": "Revenue by country?"}),
        ("tool.execution_start", started | {"mcpToolName": "country_breakdown", "arguments": {"limit": 3}}),
        ("tool.execution_complete", finished),
        ("assistant.message", {"content": "Three countries lead."}),
    ]
    raw = b"".join(
        json.dumps({"type": kind, "data": data}, separators=(",", ":")).encode() + b"\n" for kind, data in log
    )
    now = datetime.now(UTC)
    record = SessionRecord(id="s", owner_id=1, title="Countries", created_at=now, updated_at=now)
    exported = export_markdown(record, raw, figures_of)
    assert exported.endswith("Three countries lead.\n\n" + markdown_table(chart) + "\n")

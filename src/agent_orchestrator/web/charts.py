"""Charts of what a turn's tools returned: a series (monthly trend, a sales query by month) or a
ranking (top customers, top products, countries, the segment overview, a ranked sales query) becomes
a chart under the answer.

Drawn from the tool's own result, never from the model's text, so a chart cannot repeat a number the
model invented. The browser draws the spec with Chart.js and shows the same figures as a table
(docs/architecture.md#charts). A result that is not one of these shapes, or has fewer than two rows,
gets no chart: one bar is not a picture worth the space.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from agent_orchestrator.mcp_server.config import SERVER_NAME
from agent_orchestrator.retail.analysis import Dimension, Measure, Query
from agent_orchestrator.retail.analysis.execute import TIME_DIMENSIONS
from agent_orchestrator.retail.analysis.query import RATES
from agent_orchestrator.retail.analysis.render import DAYS, MEASURE_LABELS, is_money
from agent_orchestrator.retail.money import money_affixes
from agent_orchestrator.sessions import ToolResult

Unit = Literal["money", "count", "share"]


class MoneyFormat(BaseModel):
    """How the browser writes an amount: ``prefix`` + the number with two decimals + ``suffix``
    (``retail.money.money_affixes``), so a page, a chart and an answer print a currency alike."""

    prefix: str = ""
    suffix: str = ""

    @classmethod
    def of(cls, currency: str | None) -> MoneyFormat:
        prefix, suffix = money_affixes(currency)
        return cls(prefix=prefix, suffix=suffix)


class ChartSeries(BaseModel):
    label: str
    unit: Unit
    values: list[float]
    axis: Literal["left", "right"] = "left"


class Chart(BaseModel):
    """One chart: ``labels`` (what ``category`` names, e.g. months) along one axis, one value per
    label in each series. ``customer_ids`` is set when the labels are customers, so the table can link
    each row to its customer. ``money`` is the currency of the tool's result (the dataset's when the
    tool ran), for its money series."""

    kind: Literal["line", "bar"]
    title: str
    tool: str
    category: str
    labels: list[str]
    series: list[ChartSeries]
    customer_ids: list[int] | None = None
    money: MoneyFormat = MoneyFormat()


# ------------------------------------------------------------------ the tools' result shapes we chart


class _Result(BaseModel):
    model_config = ConfigDict(extra="ignore")
    filters: dict[str, object] = {}
    currency: str | None = None


class _Month(BaseModel):
    month: str
    revenue: float
    orders: int
    buyers: int


class _Trend(_Result):
    months: list[_Month]


class _Customer(BaseModel):
    id: int
    revenue: float


class _Customers(_Result):
    customers: list[_Customer]


class _Product(BaseModel):
    product: str
    revenue: float
    quantity: int


class _Products(_Result):
    by: Literal["revenue", "quantity"] = "revenue"
    products: list[_Product]


class _Country(BaseModel):
    country: str
    revenue: float


class _Countries(_Result):
    countries: list[_Country]


class _Segment(BaseModel):
    segment: str
    share: float
    revenue_share: float


class _Segments(BaseModel):
    segments: list[_Segment]


def _scope(filters: dict[str, object]) -> str:
    """``segment At Risk, country Germany`` for a title; empty when nothing was filtered."""
    named = ", ".join(f"{key.replace('_', ' ')} {value}" for key, value in filters.items())
    return f" ({named})" if named else ""


def _ranking(
    tool: str,
    title: str,
    category: str,
    labels: list[str],
    series: ChartSeries,
    currency: str | None,
    customer_ids: list[int] | None = None,
) -> Chart:
    """A ranking: one bar per row, biggest first, as the tool listed them."""
    return Chart(
        kind="bar",
        title=title,
        tool=tool,
        category=category,
        labels=labels,
        series=[series],
        customer_ids=customer_ids,
        money=MoneyFormat.of(currency),
    )


def _money(values: list[float]) -> ChartSeries:
    return ChartSeries(label="Revenue", unit="money", values=values)


def _trend(tool: str, content: str) -> Chart:
    result = _Trend.model_validate_json(content)
    rows = result.months
    return Chart(
        kind="line",
        title=f"Revenue, orders and buyers per month{_scope(result.filters)}",
        tool=tool,
        category="Month",
        labels=[m.month for m in rows],
        series=[
            _money([m.revenue for m in rows]),
            ChartSeries(label="Orders", unit="count", values=[m.orders for m in rows], axis="right"),
            ChartSeries(label="Buyers", unit="count", values=[m.buyers for m in rows], axis="right"),
        ],
        money=MoneyFormat.of(result.currency),
    )


def _customers(tool: str, content: str) -> Chart:
    result = _Customers.model_validate_json(content)
    title = "Top customers by revenue" if tool == "top_customers" else "Revenue of the customers listed"
    rows = result.customers
    labels = [f"#{c.id}" for c in rows]
    series = _money([c.revenue for c in rows])
    ids = [c.id for c in rows]
    title = f"{title}{_scope(result.filters)}"
    return _ranking(tool, title, "Customer", labels, series, result.currency, ids)


def _products(tool: str, content: str) -> Chart:
    result = _Products.model_validate_json(content)
    rows = result.products
    if result.by == "quantity":
        by, series = "units", ChartSeries(label="Units", unit="count", values=[p.quantity for p in rows])
    else:
        by, series = "revenue", _money([p.revenue for p in rows])
    title = f"Top products by {by}{_scope(result.filters)}"
    return _ranking(tool, title, "Product", [p.product for p in rows], series, result.currency)


def _countries(tool: str, content: str) -> Chart:
    result = _Countries.model_validate_json(content)
    rows = result.countries
    title = f"Revenue by country{_scope(result.filters)}"
    revenue = _money([c.revenue for c in rows])
    return _ranking(tool, title, "Country", [c.country for c in rows], revenue, result.currency)


class _AnalysisRow(BaseModel):
    model_config = ConfigDict(extra="ignore")
    key: str
    label: str
    revenue: float
    orders: int
    customers: int
    units: int
    avg_order_value: float
    products: int
    countries: int
    revenue_per_customer: float = 0.0
    cancellations: int = 0
    orders_per_customer: float = 0.0
    units_per_order: float = 0.0
    cancellation_rate: float = 0.0
    repeat_rate: float = 0.0
    new_customers: int = 0
    repeat_customers: int = 0
    one_time_customers: int = 0
    previous: dict[str, float | str | None] | None = None


class _Compared(BaseModel):
    label: str


class _GroupedQuery(Query):
    group_by: Dimension


class _Analysis(BaseModel):
    """``analyze_sales``' result; only a grouped one (``rows``) is charted."""

    model_config = ConfigDict(extra="ignore")
    reading: str
    query: _GroupedQuery
    rows: list[_AnalysisRow]
    compared: _Compared | None = None
    currency: str | None = None


def _analysis(tool: str, content: str) -> Chart | None:
    """A grouped sales query: a line in time order for a series of months, days or years, bars for a
    ranking; the period compared with, if any, as a second series."""
    result = _Analysis.model_validate_json(content)
    query, rows = result.query, result.rows
    measure = Measure.revenue if query.measure is Measure.overview else query.measure
    if measure in DAYS:
        return None  # a day per row ("when did each country last buy?") reads as the answer's list
    unit: Unit = "money" if is_money(measure) else "share" if measure in RATES else "count"
    label = MEASURE_LABELS[measure]
    series = [ChartSeries(label=label, unit=unit, values=[getattr(row, measure.value) for row in rows])]
    if result.compared is not None:
        before = [(row.previous or {}).get(measure.value, 0.0) for row in rows]
        series.append(ChartSeries(label=f"{label}, {result.compared.label}", unit=unit, values=before))
    customers = query.group_by is Dimension.customer
    series_in_time = query.group_by in TIME_DIMENSIONS and query.limit is None and query.order == "highest"
    return Chart(
        kind="line" if series_in_time else "bar",
        title=result.reading,
        tool=tool,
        category=query.group_by.value.capitalize(),
        labels=[f"#{row.key}" if customers else row.label for row in rows],
        series=series,
        customer_ids=[int(row.key) for row in rows] if customers else None,
        money=MoneyFormat.of(result.currency),
    )


def _segments(tool: str, content: str) -> Chart:
    rows = _Segments.model_validate_json(content).segments
    return Chart(
        kind="bar",
        title="Share of customers and of revenue per segment",
        tool=tool,
        category="Segment",
        labels=[s.segment for s in rows],
        series=[
            ChartSeries(label="Customer share", unit="share", values=[s.share for s in rows]),
            ChartSeries(label="Revenue share", unit="share", values=[s.revenue_share for s in rows]),
        ],
    )


_CHARTS: dict[str, Callable[[str, str], Chart | None]] = {
    "monthly_trend": _trend,
    "top_customers": _customers,
    "find_customers": _customers,
    "top_products": _products,
    "country_breakdown": _countries,
    "list_segments": _segments,
    "analyze_sales": _analysis,
}


@lru_cache(maxsize=4096)
def _chart(tool: str, content: str) -> Chart | None:
    """Cached: a transcript is read again on every reload and device switch, and its stored tool
    results never change (``bench/bench_charts.py``)."""
    make = _CHARTS.get(tool)
    if make is None:
        return None
    try:
        chart = make(tool, content)
    except ValidationError:
        return None  # not the shape this tool answers with (e.g. a tool error's text): nothing to draw
    return chart if chart is not None and len(chart.labels) >= 2 else None


def charts_for(results: Iterable[ToolResult]) -> list[Chart]:
    """A chart per result of the retail tools that is a series or a ranking of two rows or more."""
    charts: list[Chart] = []
    for result in results:
        if result.server not in (SERVER_NAME, None):
            continue
        chart = _chart(result.tool, result.content)
        if chart is not None and chart not in charts:
            charts.append(chart)
    return charts


def markdown_table(chart: Chart) -> str:
    """A chart's figures as a Markdown table under its title, for a Markdown export: a reader of the
    file sees the numbers the chart drew (pipes in names are escaped; cells stay text)."""

    def cell(value: object) -> str:
        return str(value).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")

    head = [chart.category, *(s.label for s in chart.series)]
    rows = [
        [label, *(_plain_number(s.values[i]) for s in chart.series)] for i, label in enumerate(chart.labels)
    ]
    lines = [f"**{cell(chart.title)}**", "", "| " + " | ".join(map(cell, head)) + " |"]
    lines.append("|" + "---|" * len(head))
    lines += ["| " + " | ".join(map(cell, row)) + " |" for row in rows]
    return "\n".join(lines)


def _plain_number(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"

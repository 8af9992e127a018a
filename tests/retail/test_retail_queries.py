"""Customer stats, summaries and queries, checked against hand-built customers with known answers."""

from __future__ import annotations

import sqlite3
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pytest
from retail_fixtures import KNOWN_SEGMENTS

from agent_orchestrator.retail import open_readonly, queries
from agent_orchestrator.retail.analysis import set_currency
from agent_orchestrator.retail.models import CustomerFilter, SalesFilter, TransactionFilter
from agent_orchestrator.retail.money import cents
from agent_orchestrator.retail.segments import Segment


@pytest.fixture
def known(known_db: Path) -> Iterator[sqlite3.Connection]:
    conn = open_readonly(known_db)
    yield conn
    conn.close()


@pytest.fixture
def small(small_db: Path) -> Iterator[sqlite3.Connection]:
    conn = open_readonly(small_db)
    yield conn
    conn.close()


def test_hand_built_customers_land_in_their_segments(known: sqlite3.Connection) -> None:
    rows = dict(known.execute("SELECT customer_id, segment FROM customer_stats"))
    assert rows == KNOWN_SEGMENTS  # customer 8 (only a cancellation) has no segment


def test_customer_numbers_net_out_cancellations(known: sqlite3.Connection) -> None:
    customer = queries.get_customer(known, 5)
    assert customer is not None
    assert (customer.orders, customer.cancellations, customer.revenue) == (2, 1, 150.0)
    assert customer.avg_order_value == 75.0
    assert (customer.first_purchase, customer.last_purchase) == (date(2025, 11, 1), date(2025, 12, 20))
    assert (customer.recency_days, customer.tenure_days) == (11, 60)
    assert customer.top_products[0].stock_code == "C"
    assert queries.get_customer(known, 8) is None
    assert queries.get_customer(known, 12345) is None


def test_segment_summaries(known: sqlite3.Connection) -> None:
    overview = queries.segment_overview(known)
    assert overview.as_of == date(2025, 12, 31)
    assert overview.rules is not None and overview.rules.high_value_above == 5000.0
    by_name = {s.segment: s for s in overview.segments}
    assert list(by_name) == ["High Value", "Regular", "At Risk", "New"]
    at_risk = by_name["At Risk"]
    assert (at_risk.customers, at_risk.revenue, at_risk.orders) == (2, 5080.0, 5)
    assert at_risk.avg_order_value == 1016.0
    assert at_risk.repeat_rate == 1.0
    # customer 1 kept buying 508 days after the first order; customer 7 stopped after 61 days
    assert at_risk.retention_rate == 0.5
    regular = by_name["Regular"]
    assert (regular.customers, regular.revenue, regular.orders) == (4, 3370.0, 8)
    assert regular.avg_order_value == 421.25
    assert regular.retention_rate == 1.0  # only customer 6 is old enough to measure, and came back
    new = by_name["New"]
    assert (new.customers, new.repeat_rate, new.retention_rate) == (1, 0.0, None)
    assert by_name["High Value"].revenue == 8000.0
    assert overview.overall.customers == 8 and overview.overall.revenue == 16500.0
    assert overview.overall.customer_share == 1.0


def test_summary_totals_add_up_on_generated_data(small: sqlite3.Connection) -> None:
    overview = queries.segment_overview(small)
    assert sum(s.customers for s in overview.segments) == overview.overall.customers == 300
    assert sum(s.revenue for s in overview.segments) == pytest.approx(overview.overall.revenue)
    assert sum(s.customer_share for s in overview.segments) == pytest.approx(1.0, abs=1e-3)


def test_segment_summary_is_fast(small: sqlite3.Connection) -> None:
    queries.segment_overview(small)
    start = time.perf_counter()
    queries.segment_overview(small)
    assert time.perf_counter() - start < 0.05


def test_predict_segment_agrees_with_every_stored_customer(small: sqlite3.Connection) -> None:
    """predict_segment must apply exactly the rules the refresh applied."""
    rows = small.execute(
        "SELECT recency_days, orders, revenue, segment, r_score, f_score, m_score FROM customer_stats"
    ).fetchall()
    for recency, orders, revenue, segment, r, f, m in rows:
        prediction = queries.predict_segment(small, recency, orders, revenue)
        assert (prediction.segment.value, prediction.rfm.r, prediction.rfm.f, prediction.rfm.m) == (
            segment,
            r,
            f,
            m,
        )


def test_list_customers_filters_and_pages(small: sqlite3.Connection) -> None:
    everyone = queries.list_customers(small, limit=500)
    assert everyone.total == 300
    revenues = [c.revenue for c in everyone.items]
    assert revenues == sorted(revenues, reverse=True)
    first, second = queries.list_customers(small, limit=7), queries.list_customers(small, limit=7, offset=7)
    assert [c.customer_id for c in first.items + second.items] == [c.customer_id for c in everyone.items[:14]]
    at_risk = queries.list_customers(small, segment=Segment.AT_RISK, country="UNITED KINGDOM", limit=500)
    assert at_risk.total == len(at_risk.items) > 0
    assert {(c.segment, c.country) for c in at_risk.items} == {(Segment.AT_RISK, "United Kingdom")}
    top = queries.find_customers(small, CustomerFilter(segment=Segment.HIGH_VALUE), limit=3).items
    assert len(top) == 3 and all(c.segment is Segment.HIGH_VALUE for c in top)


def test_list_transactions_filters(small: sqlite3.Connection) -> None:
    customer_id = queries.list_customers(small, limit=1).items[0].customer_id
    mine = queries.list_transactions(small, TransactionFilter(customer_id=customer_id), limit=500)
    assert mine.total == len(mine.items) > 0 and {t.customer_id for t in mine.items} == {customer_id}
    stamps = [t.invoiced_at for t in mine.items]
    assert stamps == sorted(stamps, reverse=True)

    day = TransactionFilter(date_from=date(2025, 12, 1), date_to=date(2025, 12, 1))
    december_first = queries.list_transactions(small, day, limit=500)
    assert december_first.total > 0
    assert {t.invoiced_at.date() for t in december_first.items} == {date(2025, 12, 1)}

    filters = TransactionFilter(min_amount=100, max_amount=200, country="france")
    big = queries.list_transactions(small, filters)
    assert all(100 <= t.amount <= 200 and t.country == "France" for t in big.items)
    cancelled = queries.list_transactions(small, TransactionFilter(max_amount=-0.01), limit=500)
    assert cancelled.total > 0
    assert all(t.is_cancellation and t.invoice.startswith("C") for t in cancelled.items)

    one = queries.get_transaction(small, mine.items[0].transaction_id)
    assert one == mine.items[0]
    assert queries.get_transaction(small, 10**9) is None


def test_transaction_filter_rejects_reversed_ranges_and_unknown_fields() -> None:
    with pytest.raises(ValueError, match="date_from"):
        TransactionFilter(date_from=date(2025, 2, 1), date_to=date(2025, 1, 1))
    with pytest.raises(ValueError, match="min_amount"):
        TransactionFilter(min_amount=10, max_amount=1)
    with pytest.raises(ValueError, match="Extra inputs"):
        TransactionFilter(custmer_id=1)  # type: ignore[call-arg]


def test_segment_trend_has_every_month(known: sqlite3.Connection) -> None:
    trend = queries.segment_trend(known, Segment.REGULAR, 4)
    assert [p.month for p in trend.months] == ["2025-09", "2025-10", "2025-11", "2025-12"]
    assert trend.customers == 4
    september, october, november, december = trend.months
    assert (september.revenue, september.orders) == (0.0, 0)
    assert (october.revenue, october.orders, october.active_customers) == (1560.0, 2, 2)  # customers 3 and 6
    # customer 5's cancellation (-50) lowers December's revenue but is not an order
    assert (december.revenue, december.orders, december.active_customers) == (1600.0, 3, 3)
    assert (november.orders, november.active_customers) == (2, 2)


# --- customer search and sales figures, each checked against an independent computation ----------
#
# The expected values below come from the raw rows and plain Python (no query function), so a wrong
# WHERE, GROUP BY or sort in ``queries`` shows up as a difference.


@dataclass(frozen=True)
class Line:
    invoice: str
    customer_id: int
    country: str
    stock_code: str
    description: str
    quantity: int
    amount: float
    day: date
    cancelled: bool
    segment: str | None


@pytest.fixture
def lines(small: sqlite3.Connection) -> list[Line]:
    rows = small.execute(
        "SELECT t.invoice, t.customer_id, t.country, t.stock_code, p.description, t.quantity, t.amount, "
        "t.invoiced_at, t.is_cancellation, s.segment FROM transactions AS t "
        "JOIN products AS p ON p.stock_code = t.stock_code "
        "LEFT JOIN customer_stats AS s ON s.customer_id = t.customer_id"
    ).fetchall()
    return [
        Line(inv, cid, country, code, desc, qty, amount, date.fromisoformat(at[:10]), bool(c), seg)
        for inv, cid, country, code, desc, qty, amount, at, c, seg in rows
    ]


def _totals(selected: list[Line]) -> dict[str, object]:
    """Net revenue and units over all lines; orders and buyers from non-cancelled lines only."""
    sold = [x for x in selected if not x.cancelled]
    return {
        "revenue": round(sum(x.amount for x in selected), 2),
        "orders": len({x.invoice for x in sold}),
        "buyers": len({x.customer_id for x in sold}),
        "units": sum(x.quantity for x in selected),
        "first_day": min((x.day for x in selected), default=None),
        "last_day": max((x.day for x in selected), default=None),
    }


@dataclass(frozen=True)
class Stats:
    customer_id: int
    country: str
    segment: str
    orders: int
    revenue: float
    first: date
    last: date
    recency: int


@pytest.fixture
def stats(small: sqlite3.Connection) -> list[Stats]:
    rows = small.execute(
        "SELECT customer_id, country, segment, orders, revenue, first_purchase, last_purchase, recency_days "
        "FROM customer_stats"
    ).fetchall()
    return [
        Stats(
            cid, country, seg, orders, revenue, date.fromisoformat(f[:10]), date.fromisoformat(la[:10]), rec
        )
        for cid, country, seg, orders, revenue, f, la, rec in rows
    ]


CUSTOMER_SEARCHES = [
    (
        CustomerFilter(segment=Segment.AT_RISK, country="germany"),
        lambda c: (c.segment, c.country) == ("At Risk", "Germany"),
    ),
    (CustomerFilter(min_orders=10), lambda c: c.orders >= 10),
    (CustomerFilter(min_recency_days=180), lambda c: c.recency >= 180),
    (
        CustomerFilter(max_recency_days=30, min_revenue=500, max_revenue=5000, max_orders=20),
        lambda c: c.recency <= 30 and 500 <= c.revenue <= 5000 and c.orders <= 20,
    ),
    (
        CustomerFilter(first_purchase_from=date(2025, 1, 1), last_purchase_to=date(2025, 11, 30)),
        lambda c: c.first >= date(2025, 1, 1) and c.last <= date(2025, 11, 30),
    ),
    (
        CustomerFilter(first_purchase_to=date(2024, 3, 31), last_purchase_from=date(2025, 12, 1)),
        lambda c: c.first <= date(2024, 3, 31) and c.last >= date(2025, 12, 1),
    ),
]


@pytest.mark.parametrize(("filters", "keep"), CUSTOMER_SEARCHES)
def test_find_customers_counts_what_the_filters_select(
    small: sqlite3.Connection, stats: list[Stats], filters: CustomerFilter, keep
) -> None:
    expected = sorted((c for c in stats if keep(c)), key=lambda c: (-c.revenue, c.customer_id))
    assert expected, "each search must select someone, or it proves nothing"
    page = queries.find_customers(small, filters, limit=5)
    assert page.total == len(expected)
    assert [c.customer_id for c in page.items] == [c.customer_id for c in expected[:5]]


@pytest.mark.parametrize(
    ("sort_by", "key"),
    [
        ("revenue", lambda c: c.revenue),
        ("orders", lambda c: c.orders),
        ("recency", lambda c: c.recency),
        ("last_purchase", lambda c: c.last),
    ],
)
@pytest.mark.parametrize("descending", [True, False])
def test_find_customers_sorts_and_pages(
    small: sqlite3.Connection, stats: list[Stats], sort_by, key, descending: bool
) -> None:
    # Ties are broken by id ascending in both directions.
    ordered = sorted(stats, key=lambda c: c.customer_id)
    ordered = sorted(ordered, key=key, reverse=descending)
    pages = [
        queries.find_customers(small, sort_by=sort_by, descending=descending, limit=7, offset=offset)
        for offset in (0, 7)
    ]
    found = [c.customer_id for page in pages for c in page.items]
    if sort_by == "last_purchase":  # same-day purchases: the query orders by timestamp, not day
        assert [key(c) for c in ordered[:14]] == [
            next(s for s in stats if s.customer_id == cid).last for cid in found
        ]
    else:
        assert found == [c.customer_id for c in ordered[:14]]
    assert pages[0].total == pages[1].total == 300


def test_customer_filter_rejects_reversed_ranges() -> None:
    with pytest.raises(ValueError, match="min_orders must not exceed max_orders"):
        CustomerFilter(min_orders=5, max_orders=2)
    with pytest.raises(ValueError, match="last_purchase_from must not be after last_purchase_to"):
        CustomerFilter(last_purchase_from=date(2025, 2, 1), last_purchase_to=date(2025, 1, 1))


SALES_SCOPES = [
    (SalesFilter(), lambda x: True),
    (
        SalesFilter(date_from=date(2025, 3, 1), date_to=date(2025, 3, 31)),
        lambda x: date(2025, 3, 1) <= x.day <= date(2025, 3, 31),
    ),
    (SalesFilter(country="germany"), lambda x: x.country == "Germany"),
    (SalesFilter(segment=Segment.AT_RISK), lambda x: x.segment == "At Risk"),
    (SalesFilter(product="mug"), lambda x: "MUG" in x.description),
    (
        SalesFilter(segment=Segment.HIGH_VALUE, country="United Kingdom", date_from=date(2025, 7, 1)),
        lambda x: x.segment == "High Value" and x.country == "United Kingdom" and x.day >= date(2025, 7, 1),
    ),
]


@pytest.mark.parametrize(("filters", "keep"), SALES_SCOPES)
def test_sales_summary_adds_up_the_lines_in_scope(
    small: sqlite3.Connection, lines: list[Line], filters: SalesFilter, keep
) -> None:
    expected = _totals([x for x in lines if keep(x)])
    totals = queries.sales_summary(small, filters)
    assert totals.revenue == pytest.approx(expected["revenue"], abs=0.01)
    assert (totals.orders, totals.buyers, totals.units) == (
        expected["orders"],
        expected["buyers"],
        expected["units"],
    )
    assert (totals.first_day, totals.last_day) == (expected["first_day"], expected["last_day"])
    assert totals.avg_order_value == pytest.approx(expected["revenue"] / expected["orders"], abs=0.01)


def test_sales_summary_of_one_customer_matches_the_hand_built_data(known: sqlite3.Connection) -> None:
    germany = queries.sales_summary(known, SalesFilter(country="Germany"))  # customers 4 and 5
    assert (germany.revenue, germany.orders, germany.buyers, germany.units) == (250.0, 4, 2, 3)
    assert (germany.first_day, germany.last_day) == (date(2025, 11, 1), date(2025, 12, 21))
    five = queries.sales_summary(known, SalesFilter(customer_id=5))
    assert (five.revenue, five.orders, five.avg_order_value) == (150.0, 2, 75.0)  # as in customer_stats
    nothing = queries.sales_summary(
        known, SalesFilter(date_from=date(2020, 1, 1), date_to=date(2020, 12, 31))
    )
    assert (nothing.revenue, nothing.orders, nothing.avg_order_value, nothing.first_day) == (
        0.0,
        0,
        None,
        None,
    )


@pytest.mark.parametrize("sort_by", ["revenue", "quantity"])
@pytest.mark.parametrize(
    ("filters", "keep"),
    [
        (SalesFilter(), lambda x: True),
        (SalesFilter(country="France"), lambda x: x.country == "France"),
        (
            SalesFilter(segment=Segment.REGULAR, date_from=date(2025, 1, 1), date_to=date(2025, 6, 30)),
            lambda x: x.segment == "Regular" and date(2025, 1, 1) <= x.day <= date(2025, 6, 30),
        ),
    ],
)
def test_top_products_rank_the_lines_in_scope(
    small: sqlite3.Connection, lines: list[Line], filters: SalesFilter, keep, sort_by: str
) -> None:
    by_code: dict[str, list[Line]] = defaultdict(list)
    for x in lines:
        if keep(x):
            by_code[x.stock_code].append(x)
    expected = {code: _totals(group) for code, group in by_code.items()}
    metric = "revenue" if sort_by == "revenue" else "units"
    ranked = sorted(expected, key=lambda code: (-expected[code][metric], code))[:5]
    found = queries.top_products(small, filters, sort_by=sort_by, limit=5)
    assert len(found) == 5 and [p.stock_code for p in found] == ranked
    for product in found:
        want = expected[product.stock_code]
        assert product.revenue == pytest.approx(want["revenue"], abs=0.01)
        assert (product.quantity, product.orders, product.buyers) == (
            want["units"],
            want["orders"],
            want["buyers"],
        )
        assert product.description == by_code[product.stock_code][0].description


def test_product_filter_matches_codes_and_name_parts_literally(small: sqlite3.Connection) -> None:
    code, description = small.execute("SELECT stock_code, description FROM products LIMIT 1").fetchone()
    assert queries.count_products(small, code) >= 1
    assert queries.count_products(small, description.lower()) >= 1
    assert queries.count_products(small, "%") == 0  # a wildcard is just a character here
    assert queries.count_products(small, "no such product") == 0


@pytest.mark.parametrize("segment", [None, Segment.AT_RISK])
def test_country_breakdown_matches_a_python_group_by(
    small: sqlite3.Connection, lines: list[Line], segment: Segment | None
) -> None:
    by_country: dict[str, list[Line]] = defaultdict(list)
    for x in lines:
        if segment is None or x.segment == segment.value:
            by_country[x.country].append(x)
    expected = {country: _totals(group) for country, group in by_country.items()}
    total = sum(t["revenue"] for t in expected.values())
    rows = queries.country_breakdown(small, SalesFilter(segment=segment))
    assert [r.country for r in rows] == sorted(expected, key=lambda k: (-expected[k]["revenue"], k))
    for row in rows:
        want = expected[row.country]
        assert row.revenue == pytest.approx(want["revenue"], abs=0.01)
        assert (row.orders, row.buyers) == (want["orders"], want["buyers"])
        assert row.revenue_share == pytest.approx(want["revenue"] / total, abs=1e-4)
    assert sum(r.revenue_share for r in rows) == pytest.approx(1.0, abs=1e-3)


@pytest.mark.parametrize(
    ("kwargs", "months", "keep"),
    [
        ({}, ["2025-07", "2025-08", "2025-09", "2025-10", "2025-11", "2025-12"], lambda x: True),
        (
            {"country": "France"},
            ["2025-07", "2025-08", "2025-09", "2025-10", "2025-11", "2025-12"],
            lambda x: x.country == "France",
        ),
        (
            {"segment": Segment.REGULAR, "first": date(2024, 11, 15), "last": date(2025, 2, 3)},
            ["2024-11", "2024-12", "2025-01", "2025-02"],
            lambda x: x.segment == "Regular",
        ),
    ],
)
def test_monthly_trend_matches_a_python_group_by(
    small: sqlite3.Connection, lines: list[Line], kwargs: dict, months: list[str], keep
) -> None:
    by_month: dict[str, list[Line]] = defaultdict(list)
    for x in lines:
        if keep(x):
            by_month[x.day.isoformat()[:7]].append(x)
    points = queries.monthly_trend(small, 6, **kwargs)
    assert [p.month for p in points] == months
    assert all(p.orders > 0 for p in points)  # real data in every month, so sums are really compared
    for point in points:
        want = _totals(by_month[point.month])
        assert point.revenue == pytest.approx(want["revenue"], abs=0.01)
        assert (point.orders, point.active_customers) == (want["orders"], want["buyers"])


def test_monthly_trend_lists_empty_months_and_empty_ranges(known: sqlite3.Connection) -> None:
    spain = queries.monthly_trend(known, 5, country="Spain")  # customer 7 bought Aug-Oct; 8 only cancelled
    assert [(p.month, p.orders) for p in spain] == [
        ("2025-08", 1),
        ("2025-09", 1),
        ("2025-10", 1),
        ("2025-11", 0),
        ("2025-12", 0),
    ]
    assert spain[-1].revenue == -10.0  # customer 8's cancellation is in the month's net revenue
    assert queries.monthly_trend(known, 3, first=date(2026, 1, 1)) == []


def test_countries_and_customer_ids(small: sqlite3.Connection) -> None:
    names = queries.country_names(small)
    assert names[0] == "United Kingdom" and len(names) == len(set(names))
    assert set(names) == {row[0] for row in small.execute("SELECT DISTINCT country FROM customers")}
    some_id = small.execute("SELECT customer_id FROM customers LIMIT 1").fetchone()[0]
    assert queries.customer_exists(small, some_id) and not queries.customer_exists(small, 1)


def test_the_segment_reasons_and_rules_state_amounts_in_the_datasets_currency(
    known_db: Path, tmp_path: Path
) -> None:
    """The customer page and predict_segment print these sentences: money as everywhere else."""
    copy = tmp_path / "copy.sqlite"
    with sqlite3.connect(known_db) as source, sqlite3.connect(copy) as conn:
        source.backup(conn)
    conn = sqlite3.connect(copy)
    try:
        regular = queries.get_customer(conn, 3)
        assert (
            regular is not None
            and "spend 3,000.00 not above the top-20% cut 5,000.00" in regular.segment_reason
        )
        set_currency(conn, "EUR")
        conn.commit()
        regular = queries.get_customer(conn, 3)
        assert (
            regular is not None
            and "spend €3,000.00 not above the top-20% cut €5,000.00" in regular.segment_reason
        )
        assert "net spend above €5,000.00" in queries.segment_overview(conn).rules.rules[2]  # type: ignore[union-attr]
        assert "spend €9,000.00 above" in queries.predict_segment(conn, 0, 2, 9_000).reason
    finally:
        conn.close()


def test_a_sum_of_money_is_rounded_to_the_cent_half_up_without_float_drift() -> None:
    assert cents(0.275 + 0.275 + 0.275) == 0.83  # 0.8249999… summed in binary
    assert cents(118447.825) == 118447.83
    assert cents(-1.005) == -1.01 and cents(2.0) == 2.0

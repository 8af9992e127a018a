"""Customer stats, summaries and queries, checked against hand-built customers with known answers."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from retail_fixtures import KNOWN_SEGMENTS

from agent_orchestrator.retail import open_readonly, queries
from agent_orchestrator.retail.models import TransactionFilter
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
    top = queries.top_customers(small, Segment.HIGH_VALUE, 3)
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

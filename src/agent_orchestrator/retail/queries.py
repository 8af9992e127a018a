"""Read-only questions about the retail data; every function takes an open connection.

Callers own the connection (the API opens one per request, the MCP server one per tool call),
so these functions stay plain and testable. Limits are checked by the callers' validation; the
functions trust their arguments' types but still bind every value as an SQL parameter.
"""

from __future__ import annotations

import sqlite3
from datetime import date, datetime

from agent_orchestrator.retail.models import (
    CustomerDetail,
    CustomerListItem,
    Page,
    ProductShare,
    RfmScores,
    SegmentOverview,
    SegmentPrediction,
    SegmentRulesInfo,
    SegmentSummary,
    SegmentTrend,
    Transaction,
    TransactionFilter,
    TrendPoint,
)
from agent_orchestrator.retail.segments import SEGMENT_ORDER, Segment, SegmentRules, classify, rfm_scores
from agent_orchestrator.retail.stats import RETENTION_DAYS, load_as_of, load_cuts, load_rules


class EmptyDatasetError(LookupError):
    """The database has no purchases yet, so there is nothing to measure against."""


_SUMMARY_COLUMNS = f"""
COUNT(*), COALESCE(SUM(revenue), 0), COALESCE(SUM(orders), 0), AVG(recency_days),
COALESCE(SUM(orders >= 2), 0), COALESCE(SUM(tenure_days >= {RETENTION_DAYS}), 0),
COALESCE(SUM(tenure_days - recency_days >= {RETENTION_DAYS}), 0)
"""

_CUSTOMER_COLUMNS = (
    "customer_id, country, segment, orders, revenue, last_purchase, recency_days, r_score, f_score, m_score"
)


def _ratio(part: float, whole: float, digits: int = 4) -> float | None:
    return round(part / whole, digits) if whole else None


def _summary(name: str, row: tuple, total_customers: int, total_revenue: float) -> SegmentSummary:
    customers, revenue, orders, avg_recency, repeaters, eligible, retained = row
    return SegmentSummary(
        segment=name,
        customers=customers,
        customer_share=_ratio(customers, total_customers) or 0.0,
        revenue=round(revenue, 2),
        revenue_share=_ratio(revenue, total_revenue) or 0.0,
        orders=orders,
        avg_order_value=None if not orders else round(revenue / orders, 2),
        avg_recency_days=None if avg_recency is None else round(avg_recency, 1),
        repeat_rate=_ratio(repeaters, customers),
        retention_rate=_ratio(retained, eligible),
    )


def rules_info(rules: SegmentRules) -> SegmentRulesInfo:
    return SegmentRulesInfo(
        active_days=rules.active_days,
        high_value_above=round(rules.high_value_above, 2),
        rules=[
            f"At Risk: no purchase in the last {rules.active_days} days",
            "New: exactly 1 order (placed within that window)",
            f"High Value: 2+ orders and net spend above {rules.high_value_above:.2f} (top 20%)",
            "Regular: every other active customer",
        ],
    )


def segment_overview(conn: sqlite3.Connection) -> SegmentOverview:
    """Per-segment summaries from ``customer_stats`` (milliseconds: no transaction scan)."""
    rows = {
        row[0]: row[1:]
        for row in conn.execute(f"SELECT segment, {_SUMMARY_COLUMNS} FROM customer_stats GROUP BY segment")
    }
    overall = conn.execute(f"SELECT {_SUMMARY_COLUMNS} FROM customer_stats").fetchone()
    total_customers, total_revenue = overall[0], overall[1]
    empty = (0, 0.0, 0, None, 0, 0, 0)
    rules = load_rules(conn)
    return SegmentOverview(
        as_of=load_as_of(conn),
        rules=None if rules is None else rules_info(rules),
        segments=[
            _summary(seg.value, rows.get(seg.value, empty), total_customers, total_revenue)
            for seg in SEGMENT_ORDER
        ],
        overall=_summary("All", overall, total_customers, total_revenue),
    )


def _customer_item(row: tuple) -> CustomerListItem:
    cid, country, segment, orders, revenue, last, recency, r, f, m = row
    return CustomerListItem(
        customer_id=cid,
        country=country,
        segment=Segment(segment),
        orders=orders,
        revenue=revenue,
        last_purchase=date.fromisoformat(last[:10]),
        recency_days=recency,
        rfm=RfmScores(r=r, f=f, m=m),
    )


def list_customers(
    conn: sqlite3.Connection,
    *,
    segment: Segment | None = None,
    country: str | None = None,
    limit: int = 50,
    offset: int = 0,
) -> Page[CustomerListItem]:
    """Customers by net revenue (highest first, then id), optionally of one segment and/or country."""
    where, params = [], []
    if segment is not None:
        where.append("segment = ?")
        params.append(segment.value)
    if country is not None:
        where.append("country = ?")
        params.append(country)
    clause = f"WHERE {' AND '.join(where)}" if where else ""
    total = conn.execute(f"SELECT COUNT(*) FROM customer_stats {clause}", params).fetchone()[0]
    rows = conn.execute(
        f"SELECT {_CUSTOMER_COLUMNS} FROM customer_stats {clause} "
        "ORDER BY revenue DESC, customer_id LIMIT ? OFFSET ?",
        [*params, limit, offset],
    ).fetchall()
    return Page[CustomerListItem](
        total=total, limit=limit, offset=offset, items=[_customer_item(r) for r in rows]
    )


def top_customers(conn: sqlite3.Connection, segment: Segment | None, limit: int) -> list[CustomerListItem]:
    return list_customers(conn, segment=segment, limit=limit).items


def get_customer(conn: sqlite3.Connection, customer_id: int) -> CustomerDetail | None:
    """One customer's summary; ``None`` if unknown or never bought (only cancellations)."""
    row = conn.execute(
        f"SELECT {_CUSTOMER_COLUMNS}, first_purchase, tenure_days, cancellations "
        "FROM customer_stats WHERE customer_id = ?",
        (customer_id,),
    ).fetchone()
    if row is None:
        return None
    item = _customer_item(row[:10])
    first, tenure, cancellations = row[10:]
    products = conn.execute(
        "SELECT t.stock_code, p.description, SUM(t.quantity), SUM(t.amount) AS revenue "
        "FROM transactions AS t JOIN products AS p ON p.stock_code = t.stock_code "
        "WHERE t.customer_id = ? GROUP BY t.stock_code ORDER BY revenue DESC, t.stock_code LIMIT 5",
        (customer_id,),
    ).fetchall()
    rules = load_rules(conn)
    reason = "" if rules is None else classify(item.recency_days, item.orders, item.revenue, rules).reason
    return CustomerDetail(
        **item.model_dump(),
        first_purchase=date.fromisoformat(first[:10]),
        tenure_days=tenure,
        cancellations=cancellations,
        avg_order_value=None if not item.orders else round(item.revenue / item.orders, 2),
        segment_reason=reason,
        top_products=[
            ProductShare(stock_code=code, description=desc, quantity=qty, revenue=round(rev, 2))
            for code, desc, qty, rev in products
        ],
    )


_TRANSACTION_SELECT = """
SELECT t.transaction_id, t.invoice, t.invoiced_at, t.customer_id, t.country, t.stock_code,
       p.description, t.quantity, t.unit_price, t.amount, t.is_cancellation
FROM transactions AS t JOIN products AS p ON p.stock_code = t.stock_code
"""


def _transaction(row: tuple) -> Transaction:
    tid, invoice, at, cid, country, code, desc, qty, price, amount, cancelled = row
    return Transaction(
        transaction_id=tid,
        invoice=invoice,
        invoiced_at=datetime.fromisoformat(at),
        customer_id=cid,
        country=country,
        stock_code=code,
        description=desc,
        quantity=qty,
        unit_price=price,
        amount=amount,
        is_cancellation=bool(cancelled),
    )


def _transaction_where(filters: TransactionFilter) -> tuple[str, list[object]]:
    where: list[str] = []
    params: list[object] = []
    if filters.customer_id is not None:
        where.append("t.customer_id = ?")
        params.append(filters.customer_id)
    if filters.date_from is not None:
        where.append("t.invoiced_at >= ?")
        params.append(filters.date_from.isoformat())
    if filters.date_to is not None:
        # Inclusive last day: every timestamp of that day sorts before the next day's date + "~".
        where.append("t.invoiced_at < ?")
        params.append(filters.date_to.isoformat() + "~")
    if filters.min_amount is not None:
        where.append("t.amount >= ?")
        params.append(filters.min_amount)
    if filters.max_amount is not None:
        where.append("t.amount <= ?")
        params.append(filters.max_amount)
    if filters.country is not None:
        where.append("t.country = ?")
        params.append(filters.country)
    return (f"WHERE {' AND '.join(where)}" if where else ""), params


def list_transactions(
    conn: sqlite3.Connection, filters: TransactionFilter | None = None, *, limit: int = 50, offset: int = 0
) -> Page[Transaction]:
    """Invoice lines matching ``filters``, newest first."""
    clause, params = _transaction_where(filters or TransactionFilter())
    total = conn.execute(f"SELECT COUNT(*) FROM transactions AS t {clause}", params).fetchone()[0]
    rows = conn.execute(
        f"{_TRANSACTION_SELECT} {clause} ORDER BY t.invoiced_at DESC, t.transaction_id DESC LIMIT ? OFFSET ?",
        [*params, limit, offset],
    ).fetchall()
    return Page[Transaction](total=total, limit=limit, offset=offset, items=[_transaction(r) for r in rows])


def get_transaction(conn: sqlite3.Connection, transaction_id: int) -> Transaction | None:
    row = conn.execute(f"{_TRANSACTION_SELECT} WHERE t.transaction_id = ?", (transaction_id,)).fetchone()
    return None if row is None else _transaction(row)


def _month_starts(as_of: date, months: int) -> list[date]:
    """First days of the ``months`` calendar months ending with the as-of month, oldest first."""
    index = as_of.year * 12 + as_of.month - 1
    return [date(i // 12, i % 12 + 1, 1) for i in range(index - months + 1, index + 1)]


def segment_trend(conn: sqlite3.Connection, segment: Segment, months: int) -> SegmentTrend:
    """Monthly revenue, orders and buyers of the customers *now* in ``segment``.

    Months without purchases are listed with zeros, so the series always has ``months`` points.
    """
    as_of = load_as_of(conn)
    if as_of is None:
        raise EmptyDatasetError("the retail database has no purchases yet")
    starts = _month_starts(as_of, months)
    rows = conn.execute(
        "SELECT substr(t.invoiced_at, 1, 7) AS month, SUM(t.amount), "
        "COUNT(DISTINCT CASE WHEN t.is_cancellation = 0 THEN t.invoice END), "
        "COUNT(DISTINCT CASE WHEN t.is_cancellation = 0 THEN t.customer_id END) "
        "FROM customer_stats AS s JOIN transactions AS t ON t.customer_id = s.customer_id "
        "WHERE s.segment = ? AND t.invoiced_at >= ? GROUP BY month",
        (segment.value, starts[0].isoformat()),
    ).fetchall()
    by_month = {row[0]: row[1:] for row in rows}
    customers = conn.execute(
        "SELECT COUNT(*) FROM customer_stats WHERE segment = ?", (segment.value,)
    ).fetchone()
    points = []
    for start in starts:
        revenue, orders, buyers = by_month.get(start.isoformat()[:7], (0.0, 0, 0))
        points.append(
            TrendPoint(
                month=start.isoformat()[:7], revenue=round(revenue, 2), orders=orders, active_customers=buyers
            )
        )
    return SegmentTrend(segment=segment, customers=customers[0], months=points)


def predict_segment(
    conn: sqlite3.Connection, recency_days: int, frequency: int, monetary: float
) -> SegmentPrediction:
    """The segment and RFM scores a customer with these numbers would get in this dataset."""
    cuts, rules = load_cuts(conn), load_rules(conn)
    if cuts is None or rules is None:
        raise EmptyDatasetError(
            "the retail database has no purchases yet, so there are no segment thresholds"
        )
    result = classify(recency_days, frequency, monetary, rules)
    r, f, m = rfm_scores(recency_days, frequency, monetary, cuts)
    return SegmentPrediction(segment=result.segment, reason=result.reason, rfm=RfmScores(r=r, f=f, m=m))

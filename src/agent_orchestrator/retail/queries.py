"""Read-only questions about the retail data; every function takes an open connection.

Callers own the connection (the API opens one per request, the MCP server one per tool call),
so these functions stay plain and testable. Limits are checked by the callers' validation; the
functions trust their arguments' types but still bind every value as an SQL parameter.
"""

from __future__ import annotations

import sqlite3
from datetime import date, datetime, timedelta

from agent_orchestrator.errors import EmptyDatasetError
from agent_orchestrator.retail.models import (
    CountrySales,
    CustomerDetail,
    CustomerFilter,
    CustomerListItem,
    CustomerSortKey,
    CustomerTrend,
    Page,
    ProductSales,
    ProductShare,
    ProductSortKey,
    RfmScores,
    SalesFilter,
    SalesTotals,
    SegmentOverview,
    SegmentPrediction,
    SegmentRulesInfo,
    SegmentSummary,
    SegmentTrend,
    Transaction,
    TransactionFilter,
    TrendPoint,
)
from agent_orchestrator.retail.money import cents, dataset_currency, money
from agent_orchestrator.retail.segments import SEGMENT_ORDER, Segment, SegmentRules, classify, rfm_scores
from agent_orchestrator.retail.stats import RETENTION_DAYS, load_as_of, load_cuts, load_rules

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


def _avg_order_value(revenue: float, orders: int) -> float | None:
    return None if not orders else cents(revenue / orders)


def _summary(name: str, row: tuple, total_customers: int, total_revenue: float) -> SegmentSummary:
    customers, revenue, orders, avg_recency, repeaters, eligible, retained = row
    return SegmentSummary(
        segment=name,
        customers=customers,
        customer_share=_ratio(customers, total_customers) or 0.0,
        revenue=cents(revenue),
        revenue_share=_ratio(revenue, total_revenue) or 0.0,
        orders=orders,
        avg_order_value=_avg_order_value(revenue, orders),
        avg_recency_days=None if avg_recency is None else round(avg_recency, 1),
        repeat_rate=_ratio(repeaters, customers),
        retention_rate=_ratio(retained, eligible),
    )


def rules_info(rules: SegmentRules, currency: str | None) -> SegmentRulesInfo:
    """The rules in words, the High Value threshold in the dataset's currency like every amount."""
    return SegmentRulesInfo(
        active_days=rules.active_days,
        high_value_above=cents(rules.high_value_above),
        rules=[
            f"At Risk: no purchase in the last {rules.active_days} days",
            "New: exactly 1 order (placed within that window)",
            f"High Value: 2+ orders and net spend above {money(rules.high_value_above, currency)} "
            f"(top {rules.top_percent}%)",
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
        rules=None if rules is None else rules_info(rules, dataset_currency(conn)),
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


_CUSTOMER_SORT_COLUMNS: dict[str, str] = {
    "revenue": "revenue",
    "orders": "orders",
    "recency": "recency_days",
    "last_purchase": "last_purchase",
}


def _day_range(column: str, first: date | None, last: date | None) -> tuple[list[str], list[object]]:
    """Conditions for an inclusive day range on an ISO ``YYYY-MM-DD HH:MM:SS`` text column."""
    where: list[str] = []
    params: list[object] = []
    if first is not None:
        where.append(f"{column} >= ?")
        params.append(first.isoformat())
    if last is not None:
        # Inclusive last day: every timestamp of that day sorts before the next day's date + "~".
        where.append(f"{column} < ?")
        params.append(last.isoformat() + "~")
    return where, params


def _customer_where(filters: CustomerFilter) -> tuple[str, list[object]]:
    where: list[str] = []
    params: list[object] = []
    for column, value in (
        ("segment =", None if filters.segment is None else filters.segment.value),
        ("country =", filters.country),
        ("recency_days >=", filters.min_recency_days),
        ("recency_days <=", filters.max_recency_days),
        ("revenue >=", filters.min_revenue),
        ("revenue <=", filters.max_revenue),
        ("orders >=", filters.min_orders),
        ("orders <=", filters.max_orders),
    ):
        if value is not None:
            where.append(f"{column} ?")
            params.append(value)
    for column, first, last in (
        ("first_purchase", filters.first_purchase_from, filters.first_purchase_to),
        ("last_purchase", filters.last_purchase_from, filters.last_purchase_to),
    ):
        days, day_params = _day_range(column, first, last)
        where += days
        params += day_params
    return (f"WHERE {' AND '.join(where)}" if where else ""), params


def customers_revenue(conn: sqlite3.Connection, filters: CustomerFilter | None = None) -> float:
    """The net revenue of every customer matching ``filters`` together (not just one page of them)."""
    clause, params = _customer_where(filters or CustomerFilter())
    total = conn.execute(f"SELECT COALESCE(SUM(revenue), 0) FROM customer_stats {clause}", params).fetchone()[
        0
    ]
    return cents(float(total))


def find_customers(
    conn: sqlite3.Connection,
    filters: CustomerFilter | None = None,
    *,
    sort_by: CustomerSortKey = "revenue",
    descending: bool = True,
    limit: int = 10,
    offset: int = 0,
) -> Page[CustomerListItem]:
    """Customers matching ``filters``, ordered by ``sort_by`` (ties by id), with the matching total.

    ``descending`` orders the sort key's value: the biggest spenders, the most orders, the longest
    silence (``recency``) or the latest purchase first.
    """
    clause, params = _customer_where(filters or CustomerFilter())
    direction = "DESC" if descending else "ASC"
    total = conn.execute(f"SELECT COUNT(*) FROM customer_stats {clause}", params).fetchone()[0]
    rows = conn.execute(
        f"SELECT {_CUSTOMER_COLUMNS} FROM customer_stats {clause} "
        f"ORDER BY {_CUSTOMER_SORT_COLUMNS[sort_by]} {direction}, customer_id LIMIT ? OFFSET ?",
        [*params, limit, offset],
    ).fetchall()
    return Page[CustomerListItem](
        total=total, limit=limit, offset=offset, items=[_customer_item(r) for r in rows]
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
    filters = CustomerFilter(segment=segment, country=country)
    return find_customers(conn, filters, limit=limit, offset=offset)


def customer_exists(conn: sqlite3.Connection, customer_id: int) -> bool:
    """Whether the id is in the data at all (even a customer with only cancellations)."""
    row = conn.execute("SELECT 1 FROM customers WHERE customer_id = ?", (customer_id,)).fetchone()
    return row is not None


def country_names(conn: sqlite3.Connection) -> list[str]:
    """Every customer country in the data, most customers first (a few dozen names at most)."""
    rows = conn.execute("SELECT country FROM customers GROUP BY country ORDER BY COUNT(*) DESC, country")
    return [row[0] for row in rows]


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
    currency = dataset_currency(conn)
    reason = (
        ""
        if rules is None
        else classify(item.recency_days, item.orders, item.revenue, rules, currency).reason
    )
    return CustomerDetail(
        **item.model_dump(),
        first_purchase=date.fromisoformat(first[:10]),
        tenure_days=tenure,
        cancellations=cancellations,
        avg_order_value=_avg_order_value(item.revenue, item.orders),
        segment_reason=reason,
        top_products=[
            ProductShare(stock_code=code, description=desc, quantity=qty, revenue=cents(rev))
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
    days, day_params = _day_range("t.invoiced_at", filters.date_from, filters.date_to)
    where += days
    params += day_params
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


# Net revenue (cancellation lines subtract), orders = non-cancelled invoices, buyers = customers
# with a non-cancelled line: the definitions of ``customer_stats``, applied to any set of lines.
_ORDERS = "COUNT(DISTINCT CASE WHEN t.is_cancellation = 0 THEN t.invoice END)"
_BUYERS = "COUNT(DISTINCT CASE WHEN t.is_cancellation = 0 THEN t.customer_id END)"
_SALES_COLUMNS = f"COALESCE(SUM(t.amount), 0), {_ORDERS}, {_BUYERS}"


_PRODUCT_MATCH = "stock_code = ? OR description LIKE ? ESCAPE '\\'"


def _product_params(text: str) -> list[object]:
    """A stock code, or any part of the name (LIKE is case-insensitive; ``%`` and ``_`` are literal)."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return [text, f"%{escaped}%"]


def count_products(conn: sqlite3.Connection, text: str) -> int:
    """How many products a ``SalesFilter.product`` text matches."""
    return conn.execute(
        f"SELECT COUNT(*) FROM products WHERE {_PRODUCT_MATCH}", _product_params(text)
    ).fetchone()[0]


def _sales_where(filters: SalesFilter) -> tuple[str, list[object]]:
    where: list[str] = []
    params: list[object] = []
    if filters.segment is not None:
        where.append("t.customer_id IN (SELECT customer_id FROM customer_stats WHERE segment = ?)")
        params.append(filters.segment.value)
    if filters.country is not None:
        where.append("t.country = ?")
        params.append(filters.country)
    if filters.customer_id is not None:
        where.append("t.customer_id = ?")
        params.append(filters.customer_id)
    if filters.product is not None:
        where.append(f"t.stock_code IN (SELECT stock_code FROM products WHERE {_PRODUCT_MATCH})")
        params += _product_params(filters.product)
    days, day_params = _day_range("t.invoiced_at", filters.date_from, filters.date_to)
    where += days
    params += day_params
    return (f"WHERE {' AND '.join(where)}" if where else ""), params


def sales_summary(conn: sqlite3.Connection, filters: SalesFilter | None = None) -> SalesTotals:
    """Totals of the invoice lines in scope; zeros (and no days) when nothing matches."""
    clause, params = _sales_where(filters or SalesFilter())
    revenue, orders, buyers, units, first, last = conn.execute(
        f"SELECT {_SALES_COLUMNS}, COALESCE(SUM(t.quantity), 0), MIN(t.invoiced_at), MAX(t.invoiced_at) "
        f"FROM transactions AS t {clause}",
        params,
    ).fetchone()
    return SalesTotals(
        revenue=cents(revenue),
        orders=orders,
        buyers=buyers,
        units=units,
        avg_order_value=_avg_order_value(revenue, orders),
        first_day=None if first is None else date.fromisoformat(first[:10]),
        last_day=None if last is None else date.fromisoformat(last[:10]),
    )


def top_products(
    conn: sqlite3.Connection,
    filters: SalesFilter | None = None,
    *,
    sort_by: ProductSortKey = "revenue",
    limit: int = 5,
) -> list[ProductSales]:
    """Best sellers among the lines in scope, by net revenue or net units (ties by stock code).

    Grouped before the names are joined, so only ``limit`` rows look a name up (half the time of
    joining every line on 100k lines).
    """
    clause, params = _sales_where(filters or SalesFilter())
    order = "revenue" if sort_by == "revenue" else "quantity"
    rows = conn.execute(
        "SELECT g.stock_code, p.description, g.revenue, g.quantity, g.orders, g.buyers FROM ("
        f"  SELECT t.stock_code, SUM(t.amount) AS revenue, SUM(t.quantity) AS quantity, "
        f"  {_ORDERS} AS orders, {_BUYERS} AS buyers FROM transactions AS t {clause} "
        f"  GROUP BY t.stock_code ORDER BY {order} DESC, t.stock_code LIMIT ?"
        f") AS g JOIN products AS p ON p.stock_code = g.stock_code ORDER BY g.{order} DESC, g.stock_code",
        [*params, limit],
    ).fetchall()
    return [
        ProductSales(
            stock_code=code,
            description=description,
            revenue=cents(revenue),
            quantity=quantity,
            orders=orders,
            buyers=buyers,
        )
        for code, description, revenue, quantity, orders, buyers in rows
    ]


NO_COUNTRIES = "it records no countries: every line's country is unspecified"


def records_countries(conn: sqlite3.Connection) -> bool:
    """Whether any customer has a country: a file without a country column has them all
    "Unspecified", and a breakdown by country would answer that as if it were one."""
    return (
        conn.execute("SELECT 1 FROM customers WHERE country <> 'Unspecified' LIMIT 1").fetchone() is not None
    )


def country_breakdown(conn: sqlite3.Connection, filters: SalesFilter | None = None) -> list[CountrySales]:
    """Sales per country of the lines in scope, highest revenue first (then by name)."""
    clause, params = _sales_where(filters or SalesFilter())
    rows = conn.execute(
        f"SELECT t.country, {_SALES_COLUMNS} FROM transactions AS t {clause} GROUP BY t.country", params
    ).fetchall()
    total = sum(row[1] for row in rows)
    rows.sort(key=lambda row: (-row[1], row[0]))
    return [
        CountrySales(
            country=country,
            buyers=buyers,
            revenue=cents(revenue),
            revenue_share=_ratio(revenue, total) or 0.0,
            orders=orders,
            avg_order_value=_avg_order_value(revenue, orders),
        )
        for country, revenue, orders, buyers in rows
    ]


def month_index(day: date) -> int:
    """Months since year 0, so calendar months can be counted and stepped with integers."""
    return day.year * 12 + day.month - 1


def _month_start(index: int) -> date:
    return date(index // 12, index % 12 + 1, 1)


def monthly_trend(
    conn: sqlite3.Connection,
    months: int,
    *,
    segment: Segment | None = None,
    country: str | None = None,
    customer_id: int | None = None,
    first: date | None = None,
    last: date | None = None,
) -> list[TrendPoint]:
    """Revenue, orders and buyers per calendar month, oldest first (of one customer: a purchase
    timeline).

    The series ends with the month of ``last`` (default: the as-of month) and starts with the month
    of ``first``, or else ``months`` months before its end (no points when ``first`` is later).
    Months without purchases are listed with zeros, so every month of the range has a point.
    """
    if last is None:
        last = load_as_of(conn)
        if last is None:
            raise EmptyDatasetError("the retail database has no purchases yet")
    end = month_index(last)
    start = end - months + 1 if first is None else month_index(first)
    if start > end:
        return []
    last_day = _month_start(end + 1) - timedelta(days=1)
    filters = SalesFilter(
        segment=segment,
        country=country,
        customer_id=customer_id,
        date_from=_month_start(start),
        date_to=last_day,
    )
    clause, params = _sales_where(filters)
    rows = conn.execute(
        f"SELECT substr(t.invoiced_at, 1, 7) AS month, {_SALES_COLUMNS} FROM transactions AS t "
        f"{clause} GROUP BY month",
        params,
    ).fetchall()
    by_month = {row[0]: row[1:] for row in rows}
    points = []
    for index in range(start, end + 1):
        month = _month_start(index).isoformat()[:7]
        revenue, orders, buyers = by_month.get(month, (0.0, 0, 0))
        points.append(TrendPoint(month=month, revenue=cents(revenue), orders=orders, active_customers=buyers))
    return points


def segment_trend(conn: sqlite3.Connection, segment: Segment, months: int) -> SegmentTrend:
    """``monthly_trend`` of the customers *now* in ``segment``, with their count."""
    points = monthly_trend(conn, months, segment=segment)
    customers = conn.execute(
        "SELECT COUNT(*) FROM customer_stats WHERE segment = ?", (segment.value,)
    ).fetchone()
    return SegmentTrend(segment=segment, customers=customers[0], months=points)


def customer_trend(conn: sqlite3.Connection, customer_id: int, months: int) -> CustomerTrend | None:
    """A customer's purchases per month up to the as-of month, from their first purchase (at most
    ``months`` months); ``None`` for an unknown customer."""
    if not customer_exists(conn, customer_id):
        return None
    (first,) = conn.execute(
        "SELECT MIN(substr(invoiced_at, 1, 7)) FROM transactions WHERE customer_id = ?", (customer_id,)
    ).fetchone()
    points = monthly_trend(conn, months, customer_id=customer_id)
    return CustomerTrend(customer_id=customer_id, months=[p for p in points if first and p.month >= first])


def predict_segment(
    conn: sqlite3.Connection, recency_days: int, frequency: int, monetary: float
) -> SegmentPrediction:
    """The segment and RFM scores a customer with these numbers would get in this dataset."""
    cuts, rules = load_cuts(conn), load_rules(conn)
    if cuts is None or rules is None:
        raise EmptyDatasetError(
            "the retail database has no purchases yet, so there are no segment thresholds"
        )
    result = classify(recency_days, frequency, monetary, rules, dataset_currency(conn))
    r, f, m = rfm_scores(recency_days, frequency, monetary, cuts)
    return SegmentPrediction(segment=result.segment, reason=result.reason, rfm=RfmScores(r=r, f=f, m=m))

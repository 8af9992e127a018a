"""Per-customer aggregates (``customer_stats``), rebuilt after every generation or import.

Why a table: the segment summary must answer in milliseconds, and every segment question
(summaries, top customers, customer pages) needs the same recency/frequency/monetary numbers.
One pass over ``transactions`` after each write is cheaper than one per question.

Definitions (also in the API/MCP docs):

- *as of*: the date of the latest non-cancelled purchase in the dataset; recency is measured to it.
- orders = distinct non-cancelled invoices; revenue = net amount (cancellation lines subtract);
  average order value = revenue / orders.
- *repeat rate*: share of customers with 2+ orders.
- *retention rate* (90-day): of the customers whose first purchase is at least 90 days old, the
  share who bought again 90 or more days after that first purchase (last - first >= 90 days).
  ``None`` when nobody qualifies (every "New" customer is younger than that). Unlike "bought in
  the last 90 days", it is not fixed by the segment rules themselves, so it compares segments.

Customers whose every line is a cancellation have no purchase to measure and get no stats row.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import date

from agent_orchestrator.retail.money import cents
from agent_orchestrator.retail.schema import get_meta, set_meta
from agent_orchestrator.retail.segments import (
    ACTIVE_DAYS,
    HIGH_VALUE_QUINTILE,
    RfmCuts,
    SegmentRules,
    classify,
    quintile_cuts,
    rfm_scores,
)

RETENTION_DAYS = 90

_AGGREGATE_SQL = """
SELECT t.customer_id,
       c.country,
       COUNT(DISTINCT CASE WHEN t.is_cancellation = 0 THEN t.invoice END) AS orders,
       COUNT(DISTINCT CASE WHEN t.is_cancellation = 1 THEN t.invoice END) AS cancellations,
       SUM(t.amount) AS revenue,
       MIN(CASE WHEN t.is_cancellation = 0 THEN t.invoiced_at END) AS first_purchase,
       MAX(CASE WHEN t.is_cancellation = 0 THEN t.invoiced_at END) AS last_purchase
FROM transactions AS t
JOIN customers AS c ON c.customer_id = t.customer_id
GROUP BY t.customer_id
HAVING orders > 0
ORDER BY t.customer_id
"""


def _day(timestamp: str) -> date:
    return date.fromisoformat(timestamp[:10])


def refresh_customer_stats(conn: sqlite3.Connection) -> date | None:
    """Rebuild ``customer_stats`` and the as-of/cut metadata; returns the as-of date.

    Runs inside the caller's transaction so data and stats change together (the importer relies on
    this for atomicity). Returns ``None`` for a dataset without any purchase. The rules' parameters
    are the file's own (``meta``: ``active_days``, ``high_value_quintile``; set by the dataset's
    settings, docs/architecture.md#dataset-versions), the defaults when it has none.
    """
    active_days, quintile = _rule_parameters(conn)
    conn.execute("DELETE FROM customer_stats")
    latest = conn.execute("SELECT MAX(invoiced_at) FROM transactions WHERE is_cancellation = 0").fetchone()[0]
    if latest is None:
        set_meta(conn, "as_of", "")
        set_meta(conn, "rfm_cuts", "")
        return None
    as_of = _day(latest)
    rows = conn.execute(_AGGREGATE_SQL).fetchall()
    recencies = [(as_of - _day(row[6])).days for row in rows]
    cuts = RfmCuts(
        recency=quintile_cuts(recencies, descending=True),
        frequency=quintile_cuts([row[2] for row in rows]),
        monetary=quintile_cuts([cents(row[4]) for row in rows]),
    )
    rules = SegmentRules.from_cuts(cuts, active_days, quintile)
    out = []
    for row, recency in zip(rows, recencies, strict=True):
        customer_id, country, orders, cancellations, revenue, first, last = row
        revenue = cents(revenue)
        r, f, m = rfm_scores(recency, orders, revenue, cuts)
        segment = classify(recency, orders, revenue, rules).segment
        tenure = (as_of - _day(first)).days
        counts = (customer_id, country, orders, cancellations, revenue, first, last, recency, tenure)
        out.append((*counts, r, f, m, segment.value))
    conn.executemany(f"INSERT INTO customer_stats VALUES ({', '.join('?' * 13)})", out)
    set_meta(conn, "as_of", as_of.isoformat())
    set_meta(conn, "rfm_cuts", json.dumps({"r": cuts.recency, "f": cuts.frequency, "m": cuts.monetary}))
    set_meta(conn, "active_days", str(active_days))
    set_meta(conn, "high_value_quintile", str(quintile))
    return as_of


def _rule_parameters(conn: sqlite3.Connection) -> tuple[int, int]:
    active, quintile = get_meta(conn, "active_days"), get_meta(conn, "high_value_quintile")
    return int(active) if active else ACTIVE_DAYS, int(quintile) if quintile else HIGH_VALUE_QUINTILE


def load_as_of(conn: sqlite3.Connection) -> date | None:
    value = get_meta(conn, "as_of")
    return date.fromisoformat(value) if value else None


def load_cuts(conn: sqlite3.Connection) -> RfmCuts | None:
    """The cut points stored by the last refresh (``None`` for an empty dataset)."""
    value = get_meta(conn, "rfm_cuts")
    if not value:
        return None
    raw = json.loads(value)
    return RfmCuts(recency=tuple(raw["r"]), frequency=tuple(raw["f"]), monetary=tuple(raw["m"]))


def load_rules(conn: sqlite3.Connection) -> SegmentRules | None:
    cuts = load_cuts(conn)
    if cuts is None:
        return None
    return SegmentRules.from_cuts(cuts, *_rule_parameters(conn))

"""Truths for amazon_sales_blind.jsonl, computed from the CSV with DuckDB.

Standalone: needs only `duckdb`.

    python amazon_sales_truths.py CSV                      # check the bank
    python amazon_sales_truths.py CSV --print              # print questions + truths
    python amazon_sales_truths.py CSV --jsonl out.jsonl    # regenerate the bank

Conventions (see README.md, section amazon_sales_blind.jsonl):
- revenue = SUM(Amount) over every row that has an Amount (all statuses, cancelled included),
  unless the question excludes something; rows without an Amount add nothing.
- orders = COUNT(DISTINCT "Order ID"); units = SUM(Qty); AOV = revenue / orders over the same rows.
- "lines" = rows of the file.
- Date is month-first: `MM-DD-YY` or, for days 1-12, `MM-DD-YYYY`. Both are parsed.
- Recency is relative to the latest Date in the file (2022-06-29), never today's date.
- Every row counts as it is: no de-duplication.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date, timedelta
from pathlib import Path

import duckdb

BANK = Path(__file__).with_name("amazon_sales_blind.jsonl")
DATASET = "amazon_sales"


def connect(csv: str) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    path = csv.replace("'", "''")
    con.execute(f"CREATE VIEW raw AS SELECT * FROM read_csv('{path}', all_varchar=true, header=true)")
    con.execute(
        """
        CREATE VIEW t AS SELECT
            "Order ID" AS oid,
            CAST(CASE WHEN length(Date) = 10 THEN strptime(Date, '%m-%d-%Y')
                      ELSE strptime(Date, '%m-%d-%y') END AS DATE) AS d,
            Status AS status,
            Fulfilment AS fulfilment,
            "ship-service-level" AS service,
            Category AS category,
            Size AS size,
            "Courier Status" AS courier,
            CAST(Qty AS INTEGER) AS qty,
            CAST(Amount AS DOUBLE) AS amt,
            "ship-city" AS city_raw,
            upper(trim("ship-city")) AS city,
            "ship-state" AS state_raw,
            upper(trim("ship-state")) AS state,
            B2B AS b2b
        FROM raw
        """
    )
    return con


def r2(x) -> float:
    return round(float(x) + 0.0, 2)


def pct(a, b) -> float:
    return round(float(a) / float(b) * 100.0, 2)


def growth(new, old) -> float:
    return round((float(new) - float(old)) / float(old) * 100.0, 2)


def day_name(x: date) -> str:
    return f"{x.strftime('%B')} {x.day}, {x.year}"


class Truths:
    def __init__(self, con: duckdb.DuckDBPyConnection):
        self.con = con
        self.latest: date = self.one("SELECT max(d) FROM t")
        self.first_day: date = self.one("SELECT min(d) FROM t")

    def one(self, sql: str, params=None):
        row = self.con.execute(sql, params or []).fetchone()
        return row[0]

    def rows(self, sql: str, params=None):
        return self.con.execute(sql, params or []).fetchall()

    # ---- basic measures over a WHERE clause ---------------------------------------------------
    def rev(self, where: str = "TRUE") -> float:
        return r2(self.one(f"SELECT sum(amt) FROM t WHERE {where}"))

    def orders(self, where: str = "TRUE") -> int:
        return int(self.one(f"SELECT count(DISTINCT oid) FROM t WHERE {where}"))

    def units(self, where: str = "TRUE") -> int:
        return int(self.one(f"SELECT sum(qty) FROM t WHERE {where}"))

    def lines(self, where: str = "TRUE") -> int:
        return int(self.one(f"SELECT count(*) FROM t WHERE {where}"))

    def aov(self, where: str = "TRUE") -> float:
        return r2(self.one(f"SELECT sum(amt) / count(DISTINCT oid) FROM t WHERE {where}"))

    # ---- rankings ---------------------------------------------------------------------------
    def rank(self, key: str, measure: str, where: str = "TRUE", n: int = 1, desc: bool = True):
        """Top-n keys by measure. Asserts no tie at the cut and returns [(key, value), ...]."""
        order = "DESC" if desc else "ASC"
        res = self.rows(
            f"SELECT {key} AS k, {measure} AS v FROM t WHERE {where} AND {key} IS NOT NULL "
            f"GROUP BY 1 ORDER BY v {order}"
        )
        assert len(res) >= n, (key, measure, res)
        if len(res) > n:
            assert res[n - 1][1] != res[n][1], f"tie at the cut: {res[: n + 1]}"
        return res[:n]

    def same_rank_raw_and_folded(self, raw: str, folded: str, measure: str, where: str, n: int):
        a = [k.upper().strip() for k, _ in self.rank(raw, measure, where, n)]
        b = [k for k, _ in self.rank(folded, measure, where, n)]
        assert a == b, f"ranking depends on case folding: {a} vs {b}"
        return b

    def month(self, m: int) -> str:
        return f"strftime(d, '%Y-%m') = '2022-{m:02d}'"


def build(T: Truths) -> list[dict]:
    chats: list[dict] = []

    def chat(cid: str, turns: list[tuple[str, str, dict]]):
        chats.append(
            {
                "chat": cid,
                "dataset": DATASET,
                "turns": [{"q": q, "category": c, "expect": e} for q, c, e in turns],
            }
        )

    total = T.rev()
    n_orders = T.orders()
    assert T.latest == date(2022, 6, 29), T.latest
    assert T.first_day == date(2022, 3, 31), T.first_day
    # every order has one date, one status, one fulfilment, one service level, one B2B flag, one state
    for col in ("d", "status", "fulfilment", "service", "b2b", "state_raw"):
        assert (
            T.one(f"SELECT count(*) FROM (SELECT oid FROM t GROUP BY 1 HAVING count(DISTINCT {col}) > 1)")
            == 0
        ), col
    # states used by name below are spelled one way only
    for s in ("MAHARASHTRA", "KARNATAKA", "TAMIL NADU", "KERALA", "TELANGANA", "UTTAR PRADESH"):
        assert T.one(f"SELECT count(DISTINCT state_raw) FROM t WHERE state = '{s}'") == 1, s
    all_note = "revenue = SUM(Amount) over all rows with an Amount (cancelled included; 7,800 rows have none)"

    # ---------------------------------------------------------------- amz-001 overview
    chat(
        "amz-001",
        [
            (
                "whats our total revenue across teh whole file? just sum Amount, all statuses",
                "in_schema",
                {"numbers": [total], "note": f"{all_note}. INR."},
            ),
            (
                "how many unique orders are in there, and what does that make the AOV?",
                "in_schema",
                {
                    "numbers": [n_orders, T.aov()],
                    "note": (
                        "orders = COUNT(DISTINCT Order ID); AOV = total "
                        "revenue / orders, both over all statuses"
                    ),
                },
            ),
            (
                "sorry, what was the first thing I asked you?",
                "conversation",
                {"names": ["total revenue"], "note": "turn 1 asked for the total revenue (sum of Amount)"},
            ),
        ],
    )

    # ---------------------------------------------------------------- amz-002 months, MoM
    months = {m: T.rev(T.month(m)) for m in (3, 4, 5, 6)}
    best = T.rank("strftime(d, '%B')", "sum(amt)", n=1)[0][0]
    assert best == "April" and months[4] == max(months.values())
    chat(
        "amz-002",
        [
            (
                "Can you break revenue down by month for me? Which month was strongest?",
                "in_schema",
                {
                    "numbers": [months[4]],
                    "names": ["April"],
                    "first": "April",
                    "note": f"{all_note}. Mar 2022 = {months[3]} (only Mar 31 is in the data), "
                    f"Apr = {months[4]}, May = {months[5]}, Jun = {months[6]} (to Jun 29)",
                },
            ),
            (
                "MoM % change april -> may?",
                "in_schema",
                {
                    "numbers": [growth(months[5], months[4])],
                    "note": "(May - Apr) / Apr * 100 on revenue, all statuses",
                },
            ),
            (
                "and may to june",
                "follow_up",
                {
                    "numbers": [growth(months[6], months[5])],
                    "note": "(Jun - May) / May * 100 on revenue, all statuses; June runs to Jun 29",
                },
            ),
            (
                "what figure did you give me for april again?",
                "conversation",
                {"numbers": [months[4]], "note": "April revenue from turn 1"},
            ),
        ],
    )

    # ---------------------------------------------------------------- amz-003 categories
    top3 = T.rank("category", "sum(amt)", n=3)
    bottom = T.rank("category", "sum(amt)", n=1, desc=False)[0]
    tshirt, shirt = T.rev("category = 'T-shirt'"), T.rev("category = 'Shirt'")
    chat(
        "amz-003",
        [
            (
                "top 3 categories by rev",
                "in_schema",
                {
                    "names": [k for k, _ in top3],
                    "first": top3[0][0],
                    "numbers": [r2(v) for _, v in top3],
                    "note": f"{all_note}. 'Blazzer' is the data's spelling",
                },
            ),
            (
                "which category made the least money?",
                "in_schema",
                {
                    "names": [bottom[0]],
                    "numbers": [r2(bottom[1])],
                    "note": "lowest SUM(Amount) by Category, all statuses",
                },
            ),
            (
                "what share of total revenue do t-shirts make up",
                "in_schema",
                {
                    "numbers": [pct(tshirt, total)],
                    "note": f"T-shirt revenue {tshirt} / total {total} * 100 (all statuses)",
                },
            ),
            (
                "and shirts?",
                "follow_up",
                {
                    "numbers": [pct(shirt, total)],
                    "note": f"Shirt revenue {shirt} / total {total} * 100 (all statuses)",
                },
            ),
        ],
    )

    # ---------------------------------------------------------------- amz-004 states for the seller meeting
    top5 = T.same_rank_raw_and_folded("state_raw", "state", "sum(amt)", "TRUE", 5)
    assert top5 == ["MAHARASHTRA", "KARNATAKA", "TELANGANA", "UTTAR PRADESH", "TAMIL NADU"], top5
    mh, ka = T.rev("state = 'MAHARASHTRA'"), T.rev("state = 'KARNATAKA'")
    chat(
        "amz-004",
        [
            (
                "boss wants numbers for the seller meeting. which 5 states brought in the most revenue?",
                "in_schema",
                {
                    "names": ["Maharashtra", "Karnataka", "Telangana", "Uttar Pradesh", "Tamil Nadu"],
                    "first": "Maharashtra",
                    "note": f"{all_note}, grouped by ship-state (same top 5 with or without case folding)",
                },
            ),
            (
                "how much was maharashtra exactly",
                "in_schema",
                {
                    "numbers": [mh],
                    "note": "SUM(Amount), ship-state MAHARASHTRA, all statuses (cancelled included)",
                },
            ),
            (
                "what about karnataka?",
                "follow_up",
                {
                    "numbers": [ka],
                    "note": "SUM(Amount), ship-state KARNATAKA, all statuses (cancelled included)",
                },
            ),
            (
                "whats maharashtra's share of total rev",
                "in_schema",
                {"numbers": [pct(mh, total)], "note": f"{mh} / {total} * 100, both over all statuses"},
            ),
            (
                "which state did I ask about right after maharashtra?",
                "conversation",
                {"names": ["Karnataka"], "note": "turn 3 asked about Karnataka"},
            ),
        ],
    )

    # --- amz-005 orders by state, split by fulfilment
    top3o = T.same_rank_raw_and_folded("state_raw", "state", "count(DISTINCT oid)", "TRUE", 3)
    assert top3o == ["MAHARASHTRA", "KARNATAKA", "TAMIL NADU"], top3o
    mh_amz = T.orders("state = 'MAHARASHTRA' AND fulfilment = 'Amazon'")
    mh_mer = T.orders("state = 'MAHARASHTRA' AND fulfilment = 'Merchant'")
    chat(
        "amz-005",
        [
            (
                "which 3 states place the most oders? count distinct order ids",
                "in_schema",
                {
                    "names": ["Maharashtra", "Karnataka", "Tamil Nadu"],
                    "first": "Maharashtra",
                    "note": (
                        "COUNT(DISTINCT Order ID) by ship-state, all statuses; Tamil "
                        "Nadu is 3rd by orders though 5th by revenue"
                    ),
                },
            ),
            (
                "split the #1 by fulfilment",
                "follow_up",
                {
                    "names": ["Amazon", "Merchant"],
                    "numbers": [mh_amz, mh_mer],
                    "note": (
                        "Maharashtra COUNT(DISTINCT Order ID) by Fulfilment, all "
                        "statuses (each order has one fulfilment)"
                    ),
                },
            ),
        ],
    )

    # ---------------------------------------------------------------- amz-006 cities
    top_city = T.same_rank_raw_and_folded("city_raw", "city", "sum(amt)", "TRUE", 1)
    assert top_city == ["BENGALURU"], top_city
    # Bengaluru also leads if the separate spelling "Bangalore" is merged into it: only widens the lead.
    out_mh = T.same_rank_raw_and_folded(
        "city_raw", "city", "sum(amt)", "coalesce(state, '') <> 'MAHARASHTRA'", 3
    )
    assert out_mh == ["BENGALURU", "HYDERABAD", "NEW DELHI"], out_mh
    chat(
        "amz-006",
        [
            (
                "which city generates the most revenue for us",
                "in_schema",
                {
                    "names": ["Bengaluru"],
                    "first": "Bengaluru",
                    "note": f"{all_note}, by ship-city; same leader with raw or case-folded city names",
                },
            ),
            (
                "ok and the top 3 cities outside maharashtra, by rev",
                "negation_recency",
                {
                    "names": ["Bengaluru", "Hyderabad", "New Delhi"],
                    "first": "Bengaluru",
                    "note": (
                        "SUM(Amount), all statuses, ship-state <> MAHARASHTRA; same "
                        "top 3 with raw or case-folded city names"
                    ),
                },
            ),
        ],
    )

    # ---------------------------------------------------------------- amz-007 single days
    best_day, best_rev = T.rank("d", "sum(amt)", n=1)[0]
    assert best_day == date(2022, 5, 4)
    apr14 = T.rev("d = DATE '2022-04-14'")
    chat(
        "amz-007",
        [
            (
                "what was the single best day for revenue?",
                "in_schema",
                {
                    "names": [day_name(best_day)],
                    "numbers": [r2(best_rev)],
                    "first": day_name(best_day),
                    "note": f"{all_note}; day = {best_day.isoformat()} (written 05-04-2022 in the file)",
                },
            ),
            (
                "how many orders came in that day",
                "follow_up",
                {
                    "numbers": [T.orders(f"d = DATE '{best_day.isoformat()}'")],
                    "note": f"COUNT(DISTINCT Order ID) on {best_day.isoformat()}, all statuses",
                },
            ),
            (
                "revenue on 14 april 2022?",
                "in_schema",
                {
                    "numbers": [apr14],
                    "note": "SUM(Amount) on 2022-04-14 (written 04-14-22 in the file), all statuses",
                },
            ),
        ],
    )

    # --- amz-008 units vs plan (user-stated fact)
    may_u, apr_u = T.units(T.month(5)), T.units(T.month(4))
    chat(
        "amz-008",
        [
            (
                "quick one - warehouse team had planned for 40,000 units in "
                "may. how many units did we actually sell in may?",
                "in_schema",
                {
                    "numbers": [may_u],
                    "note": (
                        f"SUM(Qty) in May 2022 over all rows (cancelled lines mostly have "
                        f"Qty 0); {40000 - may_u} below the stated plan"
                    ),
                },
            ),
            ("and april?", "follow_up", {"numbers": [apr_u], "note": "SUM(Qty) in April 2022, all rows"}),
            (
                "what was the plan figure I mentioned?",
                "conversation",
                {"numbers": [40000], "note": "the user said 40,000 units planned for May in turn 1"},
            ),
        ],
    )

    # ---------------------------------------------------------------- amz-009 status
    canc = T.lines("status = 'Cancelled'")
    canc_orders = T.orders("status = 'Cancelled'")
    all_lines = T.lines()
    ret_orders = T.orders("status = 'Shipped - Returned to Seller'")
    ret_lines = T.lines("status = 'Shipped - Returned to Seller'")
    chat(
        "amz-009",
        [
            (
                "how many order lines were cancelled?",
                "extra_columns",
                {
                    "numbers": [canc],
                    "note": f"rows with Status = 'Cancelled' ({canc_orders} distinct orders)",
                },
            ),
            (
                "what % of all lines is that",
                "follow_up",
                {"numbers": [pct(canc, all_lines)], "note": f"{canc} / {all_lines} rows * 100"},
            ),
            (
                "how many orders ended up returned to seller? not the ones still on their way back",
                "extra_columns",
                {
                    "numbers": [ret_orders],
                    "note": f"COUNT(DISTINCT Order ID) with Status 'Shipped - Returned to Seller' "
                    f"({ret_lines} rows); "
                    f"'Shipped - Returning to Seller' is excluded",
                },
            ),
            (
                "total rev excluding cancelled",
                "negation_recency",
                {
                    "numbers": [T.rev("status <> 'Cancelled'")],
                    "note": "SUM(Amount) where Status <> 'Cancelled'",
                },
            ),
        ],
    )

    # ---------------------------------------------------------------- amz-010 fulfilment
    amz_rev, mer_rev = T.rev("fulfilment = 'Amazon'"), T.rev("fulfilment = 'Merchant'")
    jun_not_amz = T.orders(f"{T.month(6)} AND fulfilment <> 'Amazon'")
    chat(
        "amz-010",
        [
            (
                "Amazon-fulfilled vs merchant-fulfilled revenue?",
                "extra_columns",
                {
                    "names": ["Amazon", "Merchant"],
                    "numbers": [amz_rev, mer_rev],
                    "note": f"{all_note}, by Fulfilment",
                },
            ),
            (
                "what % of orders are merchant fulfilled",
                "extra_columns",
                {
                    "numbers": [pct(T.orders("fulfilment = 'Merchant'"), n_orders)],
                    "note": "distinct Merchant orders / all distinct orders * 100, all statuses",
                },
            ),
            (
                "how many orders in june were not fulfilled by amazon?",
                "negation_recency",
                {
                    "numbers": [jun_not_amz],
                    "note": (
                        "COUNT(DISTINCT Order ID), June 2022, Fulfilment <> "
                        "'Amazon' (= Merchant), all statuses"
                    ),
                },
            ),
            (
                "remind me, what was the amazon-fulfilled revenue you said?",
                "conversation",
                {"numbers": [amz_rev], "note": "Amazon-fulfilled revenue from turn 1"},
            ),
        ],
    )

    # ---------------------------------------------------------------- amz-011 service level
    exp_aov, std_aov = T.aov("service = 'Expedited'"), T.aov("service = 'Standard'")
    assert exp_aov > std_aov
    chat(
        "amz-011",
        [
            (
                "expedited vs standard ship-service-level: which one has the higher AOV?",
                "extra_columns",
                {
                    "names": ["Expedited"],
                    "first": "Expedited",
                    "numbers": [exp_aov, std_aov],
                    "note": (
                        "AOV = SUM(Amount) / COUNT(DISTINCT Order ID) per ship-service-level, all statuses"
                    ),
                },
            ),
            (
                "how many units were on standard-service orders in total",
                "extra_columns",
                {
                    "numbers": [T.units("service = 'Standard'")],
                    "note": "SUM(Qty), ship-service-level = Standard, all statuses",
                },
            ),
        ],
    )

    # ---------------------------------------------------------------- amz-012 size
    top_size = T.rank("size", "sum(qty)", n=1)[0]
    blz_size = T.rank("size", "sum(qty)", "category = 'Blazzer'", n=1)[0]
    chat(
        "amz-012",
        [
            (
                "which size sells the most units",
                "extra_columns",
                {
                    "names": [top_size[0]],
                    "first": top_size[0],
                    "numbers": [int(top_size[1])],
                    "note": "SUM(Qty) by Size, all statuses",
                },
            ),
            (
                "and for blazzers?",
                "follow_up",
                {
                    "names": [blz_size[0]],
                    "first": blz_size[0],
                    "numbers": [int(blz_size[1])],
                    "note": "SUM(Qty) by Size where Category = 'Blazzer'",
                },
            ),
            (
                "how much rev did 'Free' size stuff bring in",
                "extra_columns",
                {
                    "numbers": [T.rev("size = 'Free'")],
                    "note": "SUM(Amount) where Size = 'Free', all statuses",
                },
            ),
        ],
    )

    # ---------------------------------------------------------------- amz-013 B2B
    b2b_orders = T.orders("b2b = 'TRUE'")
    chat(
        "amz-013",
        [
            (
                "how much revenue came from B2B orders",
                "extra_columns",
                {"numbers": [T.rev("b2b = 'TRUE'")], "note": "SUM(Amount) where B2B = TRUE, all statuses"},
            ),
            (
                "what % of orders were b2b?",
                "extra_columns",
                {
                    "numbers": [pct(b2b_orders, n_orders)],
                    "note": f"{b2b_orders} B2B orders / {n_orders} orders * 100, all statuses",
                },
            ),
        ],
    )

    # ---------------------------------------------------------------- amz-014 courier status
    chat(
        "amz-014",
        [
            (
                "how many lines still have courier status = unshipped",
                "extra_columns",
                {
                    "numbers": [T.lines("courier = 'Unshipped'")],
                    "note": "rows with Courier Status 'Unshipped'",
                },
            ),
            (
                "among the cancelled lines how many show courier status cancelled too?",
                "extra_columns",
                {
                    "numbers": [T.lines("status = 'Cancelled' AND courier = 'Cancelled'")],
                    "note": "rows with Status 'Cancelled' and Courier Status 'Cancelled'",
                },
            ),
        ],
    )

    # ---------------------------------------------------------------- amz-015 recency windows
    l2w_start = T.latest - timedelta(days=13)
    p2w_start, p2w_end = T.latest - timedelta(days=27), T.latest - timedelta(days=14)
    l7_start = T.latest - timedelta(days=6)
    chat(
        "amz-015",
        [
            (
                "what was revenue over the last 2 weeks of data?",
                "negation_recency",
                {
                    "numbers": [T.rev(f"d BETWEEN DATE '{l2w_start}' AND DATE '{T.latest}'")],
                    "note": f"{all_note}; {l2w_start} to {T.latest} (14 days ending on the latest date)",
                },
            ),
            (
                "and the two weeks before that?",
                "follow_up",
                {
                    "numbers": [T.rev(f"d BETWEEN DATE '{p2w_start}' AND DATE '{p2w_end}'")],
                    "note": f"{p2w_start} to {p2w_end}, all statuses",
                },
            ),
            (
                "how many orders in the last 7 days",
                "negation_recency",
                {
                    "numbers": [T.orders(f"d BETWEEN DATE '{l7_start}' AND DATE '{T.latest}'")],
                    "note": (
                        f"COUNT(DISTINCT Order ID), {l7_start} to {T.latest} (7 days "
                        f"ending on the latest date), all statuses"
                    ),
                },
            ),
        ],
    )

    # ---------------------------------------------------------------- amz-016 latest month
    jun_nc = f"{T.month(6)} AND status <> 'Cancelled'"
    chat(
        "amz-016",
        [
            (
                "units sold in the most recent month we have data for?",
                "negation_recency",
                {
                    "numbers": [T.units(T.month(6))],
                    "names": ["June"],
                    "note": (
                        "latest date is 2022-06-29, so the latest month is June "
                        "2022 (Jun 1-29); SUM(Qty), all statuses"
                    ),
                },
            ),
            (
                "rev last month in the data, excluding cancelled",
                "negation_recency",
                {
                    "numbers": [T.rev(jun_nc)],
                    "note": "June 2022 (month of the latest date), SUM(Amount) where Status <> 'Cancelled'",
                },
            ),
        ],
    )

    # ---------------------------------------------------------------- amz-017 / amz-018 unanswerable
    chat(
        "amz-017",
        [
            (
                "who are our top 5 customers by spend?",
                "unanswerable",
                {"decline": True, "note": "no customer name or customer id column"},
            ),
            (
                "what's the profit margin on t-shirts",
                "unanswerable",
                {"decline": True, "note": "no cost or profit column"},
            ),
        ],
    )
    chat(
        "amz-018",
        [
            (
                "avg number of days from order to delivery?",
                "unanswerable",
                {"decline": True, "note": "only the order date; no ship or delivery date"},
            ),
            (
                "how much did we spend on marketing in april",
                "unanswerable",
                {"decline": True, "note": "no spend or marketing data"},
            ),
            (
                "did the monsoon rains hurt our mumbai sales in june",
                "unanswerable",
                {"decline": True, "note": "no weather data; Mumbai revenue alone cannot show a rain effect"},
            ),
            (
                "how much revenue came from orders that used a promo code?",
                "unanswerable",
                {"decline": True, "note": "this file has no promotion-ids column (nor Style/SKU/ASIN)"},
            ),
        ],
    )

    # ---------------------------------------------------------------- amz-019 clarify: Aurangabad
    aur = T.rows("SELECT state, count(*) FROM t WHERE city = 'AURANGABAD' GROUP BY 1 ORDER BY 2 DESC")
    assert [s for s, _ in aur] == ["MAHARASHTRA", "BIHAR", "WEST BENGAL"], aur
    aur_mh = T.rev("city = 'AURANGABAD' AND state = 'MAHARASHTRA'")
    aur_bh = T.rev("city = 'AURANGABAD' AND state = 'BIHAR'")
    aur_mh_upper = T.rev("city_raw = 'AURANGABAD' AND state = 'MAHARASHTRA'")
    chat(
        "amz-019",
        [
            (
                "how much did aurangabad bring in?",
                "in_schema",
                {
                    "clarify": True,
                    "names": ["Maharashtra", "Bihar"],
                    "note": (
                        f"ship-city Aurangabad appears under MAHARASHTRA, BIHAR (two "
                        f"real cities) and once under WEST BENGAL; "
                        f"revenue (all statuses): Maharashtra = {aur_mh}, Bihar = {aur_bh}"
                    ),
                },
            ),
            (
                "the one in maharashtra",
                "follow_up",
                {
                    "numbers": [aur_mh],
                    "note": (
                        f"SUM(Amount), all statuses, ship-city Aurangabad in any letter case "
                        f"(AURANGABAD and Aurangabad), ship-state MAHARASHTRA; "
                        f"upper-case spelling only = {aur_mh_upper}"
                    ),
                },
            ),
        ],
    )

    # ---------------------------------------------------------------- amz-020 Karnataka review (conversation)
    ka_may = T.rev(f"state = 'KARNATAKA' AND {T.month(5)}")
    chat(
        "amz-020",
        [
            (
                "hi - prepping the karnataka regional review for friday. "
                "what was karnataka revenue in may 2022?",
                "in_schema",
                {
                    "numbers": [ka_may],
                    "note": "SUM(Amount), ship-state KARNATAKA, May 2022, all statuses (cancelled included)",
                },
            ),
            (
                "which state did I say the review was for?",
                "conversation",
                {"names": ["Karnataka"], "note": "the user said the review is for Karnataka"},
            ),
            (
                "and what was the first number you gave me",
                "conversation",
                {"numbers": [ka_may], "note": "Karnataka May revenue from turn 1"},
            ),
        ],
    )

    # ---------------------------------------------------------------- amz-021 TN / Kerala categories
    tn = T.rank("category", "sum(qty)", "state = 'TAMIL NADU'", n=1)[0]
    kl = T.rank("category", "sum(qty)", "state = 'KERALA'", n=1)[0]
    chat(
        "amz-021",
        [
            (
                "top category by qty in tamil nadu?",
                "extra_columns",
                {
                    "names": [tn[0]],
                    "first": tn[0],
                    "numbers": [int(tn[1])],
                    "note": "SUM(Qty) by Category, ship-state TAMIL NADU, all statuses",
                },
            ),
            (
                "what about kerala",
                "follow_up",
                {
                    "names": [kl[0]],
                    "first": kl[0],
                    "numbers": [int(kl[1])],
                    "note": "SUM(Qty) by Category, ship-state KERALA, all statuses",
                },
            ),
            (
                "how many lines got cancelled for kerala adresses",
                "extra_columns",
                {
                    "numbers": [T.lines("state = 'KERALA' AND status = 'Cancelled'")],
                    "note": "rows with ship-state KERALA and Status 'Cancelled'",
                },
            ),
        ],
    )

    # ---------------------------------------------------------------- amz-022 cancellation rate by month
    rates = {
        m: pct(T.lines(f"{T.month(m)} AND status = 'Cancelled'"), T.lines(T.month(m))) for m in (4, 5, 6)
    }
    worst = max(rates, key=rates.get)
    assert worst == 4 and sorted(rates.values())[-1] != sorted(rates.values())[-2]
    chat(
        "amz-022",
        [
            (
                "which month (apr, may or jun) had the worst cancellation "
                "rate? cancelled lines as % of all lines",
                "extra_columns",
                {
                    "names": ["April"],
                    "first": "April",
                    "numbers": [rates[4]],
                    "note": (
                        f"cancelled rows / rows per month * 100: Apr "
                        f"{rates[4]}, May {rates[5]}, Jun {rates[6]}"
                    ),
                },
            ),
            (
                "ok, may revenue without t-shirts?",
                "negation_recency",
                {
                    "numbers": [T.rev(f"{T.month(5)} AND category <> 'T-shirt'")],
                    "note": "SUM(Amount), May 2022, Category <> 'T-shirt' (all statuses)",
                },
            ),
            (
                "what did I ask you at the very start of this chat?",
                "conversation",
                {
                    "names": ["cancellation rate"],
                    "note": "turn 1 asked which month had the worst cancellation rate",
                },
            ),
        ],
    )

    return chats


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--jsonl", help="write the bank to this path")
    ap.add_argument("--print", action="store_true", help="print questions and truths")
    ap.add_argument(
        "--bank",
        default=str(BANK),
        help="bank to check (default: amazon_sales_blind.jsonl next to this file)",
    )
    args = ap.parse_args()

    chats = build(Truths(connect(args.csv)))

    if args.print:
        for c in chats:
            print(f"== {c['chat']}")
            for t in c["turns"]:
                print(f"  [{t['category']}] {t['q']}\n      {json.dumps(t['expect'], ensure_ascii=False)}")
    if args.jsonl:
        with open(args.jsonl, "w", encoding="utf-8") as f:
            for c in chats:
                f.write(json.dumps(c, ensure_ascii=False) + "\n")
        print(f"wrote {args.jsonl}")
        return 0

    bank = [
        json.loads(line) for line in Path(args.bank).read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    assert len(bank) == len(chats), f"bank has {len(bank)} chats, truths {len(chats)}"
    bad = 0
    for want, got in zip(chats, bank, strict=True):
        assert want["chat"] == got["chat"], (want["chat"], got["chat"])
        assert got["dataset"] == DATASET
        assert len(want["turns"]) == len(got["turns"]), want["chat"]
        for i, (w, g) in enumerate(zip(want["turns"], got["turns"], strict=True), 1):
            if w["q"] != g["q"] or w["category"] != g["category"]:
                print(f"MISMATCH {want['chat']} turn {i}: question/category differ")
                bad += 1
            for k in ("numbers", "names", "first", "decline", "clarify"):
                if w["expect"].get(k) != g["expect"].get(k):
                    print(
                        f"MISMATCH {want['chat']} turn {i} {k}: truth "
                        f"{w['expect'].get(k)!r} bank {g['expect'].get(k)!r}"
                    )
                    bad += 1
    counts: dict[str, int] = {}
    for c in bank:
        for t in c["turns"]:
            counts[t["category"]] = counts.get(t["category"], 0) + 1
    n = sum(counts.values())
    print(f"{len(bank)} chats, {n} questions: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    if bad:
        print(f"FAILED: {bad} mismatches")
        return 1
    print("OK: every expect in the bank matches the truths")
    return 0


if __name__ == "__main__":
    sys.exit(main())

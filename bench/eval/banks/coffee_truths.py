#!/usr/bin/env python3
"""Truths for coffee_blind.jsonl (a coffee-shop chain's item lines, 2024-08-08 to 2025-08-07).

Computes every expected figure/name from the CSV with DuckDB (one function per chat), prints them,
and asserts that the bank file holds exactly these chats, questions and values (exit 1 on a mismatch).

    python coffee_truths.py /work/evaldata/coffee/coffee_shop_sales.csv                    # print + check
    python coffee_truths.py /work/evaldata/coffee/coffee_shop_sales.csv --jsonl out.jsonl  # regenerate

Standalone: needs only `duckdb` and the standard library.

Conventions (see README.md, section coffee_blind.jsonl):
  One row per transaction in this file (transaction_id never repeats; the script asserts it).
  revenue = SUM(total_price); orders/transactions = COUNT(DISTINCT transaction_id); units = SUM(quantity);
  customers = COUNT(DISTINCT customer_id) with the literal text NA (1,537 walk-in rows) treated as missing;
  average order value = revenue / orders; loyalty points = SUM(loyalty_points_earned);
  hour of the day = the HH of transaction_time (24h); weekdays from transaction_date;
  "drinks" = Coffee + Tea (the Bakery rows have size NA); shares and growth are percents with 2 decimals,
  growth = (new-old)/old*100. Money is read as DECIMAL so sums are exact; every figure is rounded half-up
  to 2 decimals (the script fails on a figure exactly on a half cent).
  Recency is relative to the file's last transaction_date, 2025-08-07, never to today: "this year" = 2025
  (Jan 1 - Aug 7), "latest month" = August 2025 (Aug 1-7, partial), "last complete month" = July 2025.
"""
import argparse
import hashlib
import json
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import duckdb

DATASET = "coffee"
EXPECTED_SHA256 = "f2a02fb32c56e0b2d1f088e782b19b2163c2189417e17d6c51649ce924623ef4"
EXPECTED_ROWS = 4998
BANK = Path(__file__).resolve().parent / "coffee_blind.jsonl"
LAST_DATE = "2025-08-07"

LOAD_SQL = """
CREATE TABLE t AS
SELECT CAST(transaction_id AS INTEGER)           AS tid,
       CAST(transaction_date AS DATE)            AS d,
       transaction_time                          AS tm,
       CAST(substr(transaction_time, 1, 2) AS INTEGER) AS hr,
       product_id                                AS pid,
       product_name                              AS prod,
       product_category                          AS cat,
       size                                      AS size,
       CAST(quantity AS INTEGER)                 AS qty,
       CAST(unit_price AS DECIMAL(18,2))         AS price,
       CAST(total_price AS DECIMAL(18,2))        AS total,
       payment_method                            AS pay,
       NULLIF(customer_id, 'NA')                 AS cust,
       CAST(loyalty_points_earned AS INTEGER)    AS pts,
       location                                  AS loc,
       barista_id                                AS bar
FROM read_csv(?, header = true, all_varchar = true)
"""

CON = None
NEAR_HALF = []  # values at a half cent, where the rounding rule would matter


def sql(query, *params):
    return CON.execute(query, list(params)).fetchall()


def one(query, *params):
    rows = sql(query, *params)
    assert len(rows) == 1 and len(rows[0]) == 1, (query, rows)
    return rows[0][0]


def r2(x):
    """Round half-up to 2 decimals and return a float (ints stay ints)."""
    if isinstance(x, int):
        return x
    d = Decimal(str(x))
    frac = (d * 100) % 1
    if abs(frac - Decimal("0.5")) < Decimal("0.0001"):
        NEAR_HALF.append(str(d))
    return float(d.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def pct(part, whole):
    return r2(Decimal(part) * 100 / Decimal(whole))


def growth(new, old):
    return r2((Decimal(new) - Decimal(old)) * 100 / Decimal(old))


def avg(total, n):
    return r2(Decimal(total) / Decimal(n))


def day_name(d):
    return f"{d:%B} {d.day}, {d.year}"


def month_name(d):
    return f"{d:%B} {d.year}"


def no_tie(rows, k, col=1):
    """rows are sorted; assert the value at rank k (1-based) differs from rank k+1."""
    if len(rows) > k:
        assert rows[k - 1][col] != rows[k][col], f"tie at the cut: {rows[k - 1]} / {rows[k]}"


def T(q, category, **expect):
    exp = {}
    for key in ("numbers", "names", "first", "decline", "clarify", "note"):
        if key in expect:
            exp[key] = expect.pop(key)
    assert not expect, expect
    assert "note" in exp, q
    return {"q": q, "category": category, "expect": exp}


def chat(cid, turns):
    return {"chat": cid, "dataset": DATASET, "turns": turns}


# --------------------------------------------------------------------------------------------------
# chats


def cf_01():
    rev = one("SELECT SUM(total) FROM t")
    orders = one("SELECT COUNT(DISTINCT tid) FROM t")
    units = one("SELECT SUM(qty) FROM t")
    custs = one("SELECT COUNT(DISTINCT cust) FROM t")
    return chat("cf-01", [
        T("morning! whats our total revenue across everything in the file?", "in_schema",
          numbers=[r2(rev)], note="SUM(total_price) over all 4,998 rows"),
        T("ok and how many transactions was that? whats the average ticket?", "in_schema",
          numbers=[orders, avg(rev, orders)],
          note="COUNT(DISTINCT transaction_id) (one row per transaction); AOV = SUM(total_price)/COUNT(DISTINCT transaction_id)"),
        T("How many units did we sell in total, and how many unique customers do we have? "
          "Don't count the NA customer ids, those are walk-ins without a loyalty card.", "in_schema",
          numbers=[units, custs],
          note="SUM(quantity); COUNT(DISTINCT customer_id) with customer_id = 'NA' (1,537 rows) left out"),
    ])


def cf_02():
    months = sql("SELECT date_trunc('month', d) m, SUM(total) r FROM t GROUP BY 1 ORDER BY r DESC")
    no_tie(months, 1)
    top_m, top_r = months[0]
    full = sql("SELECT date_trunc('month', d) m, SUM(total) r FROM t "
               "WHERE d >= DATE '2024-09-01' AND d < DATE '2025-08-01' GROUP BY 1 ORDER BY r ASC")
    assert len(full) == 11
    no_tie(full, 1)
    low_m, low_r = full[0]
    jun = one("SELECT SUM(total) FROM t WHERE d BETWEEN DATE '2025-06-01' AND DATE '2025-06-30'")
    jul = one("SELECT SUM(total) FROM t WHERE d BETWEEN DATE '2025-07-01' AND DATE '2025-07-31'")
    return chat("cf-02", [
        T("which month had our highest revenue?", "in_schema",
          numbers=[r2(top_r)], names=[month_name(top_m)], first=month_name(top_m),
          note=f"SUM(total_price) GROUP BY month, highest; next is {month_name(months[1][0])} with {r2(months[1][1])}"),
        T("What was the weakest complete month? Aug 2024 and Aug 2025 are only partial so skip those", "in_schema",
          numbers=[r2(low_r)], names=[month_name(low_m)],
          note=f"SUM(total_price) by month for Sep 2024 - Jul 2025 (data starts 2024-08-08, ends 2025-08-07), lowest; "
               f"next is {month_name(full[1][0])} with {r2(full[1][1])}"),
        T("how much did revenue grow from June to July 2025, in %?", "in_schema",
          numbers=[growth(jul, jun)],
          note=f"(SUM Jul 2025 {r2(jul)} - SUM Jun 2025 {r2(jun)}) / SUM Jun 2025 * 100"),
    ])


def cf_03():
    locs = sql("SELECT loc, SUM(total) r FROM t GROUP BY 1 ORDER BY r DESC")
    for k in range(1, len(locs)):
        no_tie(locs, k)
    air = sql("SELECT SUM(total), COUNT(DISTINCT tid) FROM t WHERE loc = 'Airport'")[0]
    mall = sql("SELECT SUM(total), COUNT(DISTINCT tid) FROM t WHERE loc = 'Mall Branch'")[0]
    return chat("cf-03", [
        T("can you rank our 4 locations by revenue pls", "extra_columns",
          numbers=[r2(v) for _, v in locs], names=[n for n, _ in locs], first=locs[0][0],
          note="SUM(total_price) GROUP BY location ORDER BY 1 DESC"),
        T("whats the average order value at the Airport?", "extra_columns",
          numbers=[avg(*air)],
          note=f"SUM(total_price)/COUNT(DISTINCT transaction_id) WHERE location = 'Airport' ({r2(air[0])} / {air[1]})"),
        T("and at the Mall Branch?", "follow_up",
          numbers=[avg(*mall)],
          note=f"AOV WHERE location = 'Mall Branch' ({r2(mall[0])} / {mall[1]})"),
        T("which location did I ask about right before the Mall Branch?", "conversation",
          names=["Airport"], note="the AOV question two turns earlier was about the Airport"),
    ])


def cf_04():
    units = sql("SELECT prod, SUM(qty) u FROM t GROUP BY 1 ORDER BY u DESC")
    no_tie(units, 3)
    no_tie(units, 1)
    rev = sql("SELECT prod, SUM(total) r FROM t GROUP BY 1 ORDER BY r DESC")
    no_tie(rev, 1)
    total = one("SELECT SUM(total) FROM t")
    top3 = units[:3]
    return chat("cf-04", [
        T("top 3 products by units sold?", "in_schema",
          numbers=[u for _, u in top3], names=[p for p, _ in top3], first=top3[0][0],
          note=f"SUM(quantity) GROUP BY product_name ORDER BY 1 DESC LIMIT 3; 4th is {units[3][0]} with {units[3][1]} "
               f"(close, but no tie at the cut)"),
        T("which product actually makes us the most money tho?", "in_schema",
          numbers=[r2(rev[0][1])], names=[rev[0][0]], first=rev[0][0],
          note=f"SUM(total_price) GROUP BY product_name, highest; next {rev[1][0]} {r2(rev[1][1])}. "
               "No cost column, so 'money' is read as revenue"),
        T("what % of total revenue is that?", "follow_up",
          numbers=[pct(rev[0][1], total)],
          note=f"SUM(total_price) of {rev[0][0]} / SUM(total_price) of all rows * 100"),
    ])


def cf_05():
    cats = sql("SELECT cat, SUM(total) r FROM t GROUP BY 1 ORDER BY r DESC")
    for k in range(1, len(cats)):
        no_tie(cats, k)
    ex = sql("SELECT SUM(total), SUM(qty) FROM t WHERE cat <> 'Bakery'")[0]
    return chat("cf-05", [
        T("Revenue by product category?", "extra_columns",
          numbers=[r2(v) for _, v in cats], names=[c for c, _ in cats], first=cats[0][0],
          note="SUM(total_price) GROUP BY product_category ORDER BY 1 DESC"),
        T("excluding Bakery, how much revenue and how many units are we talking", "negation_recency",
          numbers=[r2(ex[0]), ex[1]],
          note="SUM(total_price), SUM(quantity) WHERE product_category <> 'Bakery' (Coffee + Tea)"),
    ])


def cf_06():
    n = one("SELECT COUNT(DISTINCT tid) FROM t")
    cash = one("SELECT COUNT(DISTINCT tid) FROM t WHERE pay = 'Cash'")
    noncash = one("SELECT SUM(total) FROM t WHERE pay <> 'Cash'")
    cc = one("SELECT SUM(pts) * 1.0 / COUNT(*) FROM t WHERE pay = 'Credit Card'")
    dc = one("SELECT SUM(pts) * 1.0 / COUNT(*) FROM t WHERE pay = 'Debit Card'")
    ccs = sql("SELECT SUM(pts), COUNT(*) FROM t WHERE pay = 'Credit Card'")[0]
    dcs = sql("SELECT SUM(pts), COUNT(*) FROM t WHERE pay = 'Debit Card'")[0]
    return chat("cf-06", [
        T("what percentage of transactions were paid with cash?", "extra_columns",
          numbers=[pct(cash, n)], note=f"COUNT WHERE payment_method = 'Cash' ({cash}) / all transactions ({n}) * 100"),
        T("How much revenue came from transactions not paid in cash?", "negation_recency",
          numbers=[r2(noncash)], note="SUM(total_price) WHERE payment_method <> 'Cash' (Credit Card + Debit Card)"),
        T("do credit card payers earn more loyalty points per transaction than debit card payers? give me the averages",
          "extra_columns",
          numbers=[avg(*ccs), avg(*dcs)], names=["Credit Card", "Debit Card"],
          note=f"SUM(loyalty_points_earned)/COUNT(*) per payment_method: Credit Card {ccs[0]}/{ccs[1]}, "
               f"Debit Card {dcs[0]}/{dcs[1]} (plain {float(cc):.4f} vs {float(dc):.4f})"),
    ])


def cf_07():
    hrs = sql("SELECT hr, COUNT(DISTINCT tid) n FROM t GROUP BY 1 ORDER BY n DESC")
    no_tie(hrs, 1)
    no_tie(hrs, len(hrs) - 1)
    top, low = hrs[0], hrs[-1]
    early = one("SELECT SUM(total) FROM t WHERE tm < '10:00:00' AND loc <> 'Airport'")
    return chat("cf-07", [
        T("what's our busiest hour of the day by number of transactions? 24h clock please", "extra_columns",
          numbers=[top[1]], names=[f"{top[0]:02d}:00"], first=f"{top[0]:02d}:00",
          note=f"COUNT(DISTINCT transaction_id) GROUP BY hour of transaction_time; {top[0]:02d}:00-{top[0]:02d}:59 "
               f"has {top[1]}, next {hrs[1][0]:02d}:00 with {hrs[1][1]}"),
        T("and the quietest one?", "follow_up",
          numbers=[low[1]], names=[f"{low[0]:02d}:00"],
          note=f"same grouping, lowest: {low[0]:02d}:00-{low[0]:02d}:59 with {low[1]}, next lowest "
               f"{hrs[-2][0]:02d}:00 with {hrs[-2][1]} (opening hours 08:00-20:59)"),
        T("How much revenue do we take before 10am, leaving out the Airport?", "negation_recency",
          numbers=[r2(early)],
          note="SUM(total_price) WHERE transaction_time < '10:00:00' AND location <> 'Airport' (08:00-09:59)"),
    ])


def cf_08():
    last = one("SELECT MAX(d) FROM t")
    assert str(last) == LAST_DATE
    aug = one("SELECT SUM(total) FROM t WHERE d >= DATE '2025-08-01'")
    jul_n = one("SELECT COUNT(DISTINCT tid) FROM t WHERE d BETWEEN DATE '2025-07-01' AND DATE '2025-07-31'")
    c3 = one("SELECT COUNT(DISTINCT cust) FROM t WHERE d >= DATE '2025-06-01'")
    return chat("cf-08", [
        T("how much have we sold in the latest month in the data?", "negation_recency",
          numbers=[r2(aug)], names=["August 2025"],
          note="latest month = August 2025 (last date 2025-08-07, so Aug 1-7 only); SUM(total_price)"),
        T("and how many transactions did the month before that have?", "follow_up",
          numbers=[jul_n], names=["July 2025"],
          note="COUNT(DISTINCT transaction_id) in July 2025"),
        T("how many distinct customers came in over the last 3 months of data, june 1 to the latest date? leave out the NA ids",
          "negation_recency",
          numbers=[c3],
          note="COUNT(DISTINCT customer_id) WHERE transaction_date BETWEEN 2025-06-01 AND 2025-08-07, 'NA' left out"),
        T("which month did you say was the latest one in the data?", "conversation",
          names=["August 2025"], note="the first answer of this chat: the latest month is August 2025"),
    ])


def cf_09():
    bars = sql("SELECT bar, SUM(total) r FROM t GROUP BY 1 ORDER BY r DESC")
    no_tie(bars, 1)
    dt = one("SELECT COUNT(DISTINCT tid) FROM t WHERE bar = 'EMP005' AND loc = 'Downtown'")
    uni = one("SELECT COUNT(DISTINCT tid) FROM t WHERE bar = 'EMP005' AND loc = 'University'")
    return chat("cf-09", [
        T("Which barista rang up the most revenue?", "extra_columns",
          numbers=[r2(bars[0][1])], names=[bars[0][0]], first=bars[0][0],
          note=f"SUM(total_price) GROUP BY barista_id, highest; next {bars[1][0]} {r2(bars[1][1])}"),
        T("how many transactions did EMP005 handle at Downtown?", "extra_columns",
          numbers=[dt], note="COUNT(DISTINCT transaction_id) WHERE barista_id = 'EMP005' AND location = 'Downtown'"),
        T("what about at University?", "follow_up",
          numbers=[uni], note="COUNT(DISTINCT transaction_id) WHERE barista_id = 'EMP005' AND location = 'University'"),
    ])


def cf_10():
    latte = one("SELECT SUM(qty) FROM t WHERE prod = 'Latte'")
    return chat("cf-10", [
        T("what's our profit margin on lattes?", "unanswerable", decline=True,
          note="no cost or profit column in the file (only unit_price and total_price)"),
        T("ok fine. how many plain lattes did we sell overall then, all sizes? not the chai ones", "in_schema",
          numbers=[latte], note="SUM(quantity) WHERE product_name = 'Latte' (Medium + Large)"),
        T("Did the rainy weather in the spring hurt our sales?", "unanswerable", decline=True,
          note="no weather data in the file"),
    ])


def cf_11():
    sizes = sql("SELECT size, SUM(total) r FROM t WHERE cat IN ('Coffee', 'Tea') GROUP BY 1 ORDER BY r DESC")
    assert {s for s, _ in sizes} == {"Small", "Medium", "Large"}
    for k in range(1, len(sizes)):
        no_tie(sizes, k)
    large = one("SELECT SUM(qty) FROM t WHERE size = 'Large'")
    large_air = one("SELECT SUM(qty) FROM t WHERE size = 'Large' AND loc = 'Airport'")
    return chat("cf-11", [
        T("for drinks only, can u break revenue down by cup size", "extra_columns",
          numbers=[r2(v) for _, v in sizes], names=[s for s, _ in sizes], first=sizes[0][0],
          note="SUM(total_price) WHERE product_category IN ('Coffee','Tea') GROUP BY size (Bakery rows have size NA)"),
        T("how many large drinks did we sell? units", "extra_columns",
          numbers=[large], note="SUM(quantity) WHERE size = 'Large' (Cappuccino, Latte, Chai Latte)"),
        T("and at the Airport?", "follow_up",
          numbers=[large_air], note="SUM(quantity) WHERE size = 'Large' AND location = 'Airport'"),
        T("wait which size were we looking at just now?", "conversation",
          names=["Large"], note="the last two questions were about Large drinks"),
    ])


def cf_12():
    days = sql("SELECT dayname(d) w, SUM(total) r FROM t GROUP BY 1 ORDER BY r DESC")
    no_tie(days, 1)
    no_tie(days, len(days) - 1)
    return chat("cf-12", [
        T("Which day of the week brings in the most revenue for us?", "in_schema",
          numbers=[r2(days[0][1])], names=[days[0][0]], first=days[0][0],
          note=f"SUM(total_price) GROUP BY weekday of transaction_date; next {days[1][0]} {r2(days[1][1])}"),
        T("and the weakest day?", "follow_up",
          numbers=[r2(days[-1][1])], names=[days[-1][0]],
          note=f"same grouping, lowest; next lowest {days[-2][0]} {r2(days[-2][1])}"),
        T("how many people actually walk into the shops on those days vs how many buy something?", "unanswerable",
          decline=True, note="no foot-traffic / visitor counts in the file, only transactions"),
    ])


def cf_13():
    days = sql("SELECT d, SUM(total) r FROM t GROUP BY 1 ORDER BY r DESC")
    no_tie(days, 1)
    best_d, best_r = days[0]
    locs = sql("SELECT loc, SUM(total) r FROM t WHERE d = ? GROUP BY 1 ORDER BY r DESC", best_d)
    no_tie(locs, 1)
    xmas = one("SELECT COUNT(DISTINCT tid) FROM t WHERE d = DATE '2024-12-24'")
    return chat("cf-13", [
        T("what was our best single day ever for sales?", "in_schema",
          numbers=[r2(best_r)], names=[day_name(best_d)], first=day_name(best_d),
          note=f"SUM(total_price) GROUP BY transaction_date, highest: {best_d}; next {days[1][0]} {r2(days[1][1])}"),
        T("which location sold the most that day?", "follow_up",
          numbers=[r2(locs[0][1])], names=[locs[0][0]], first=locs[0][0],
          note=f"SUM(total_price) WHERE transaction_date = {best_d} GROUP BY location; next {locs[1][0]} {r2(locs[1][1])}"),
        T("How many transactions did we have on Christmas Eve 2024?", "in_schema",
          numbers=[xmas], note="COUNT(DISTINCT transaction_id) WHERE transaction_date = 2024-12-24"),
    ])


def cf_14():
    cs = sql("SELECT cust, SUM(total) r FROM t WHERE cust IS NOT NULL GROUP BY 1 ORDER BY r DESC")
    no_tie(cs, 1)
    return chat("cf-14", [
        T("who's our top customer by total spend? ignore the NA ids", "in_schema",
          numbers=[r2(cs[0][1])], names=[cs[0][0]], first=cs[0][0],
          note=f"SUM(total_price) GROUP BY customer_id (NA left out), highest; next {cs[1][0]} {r2(cs[1][1])}"),
        T("nice - how old is that customer and what neighbourhood do they live in?", "unanswerable", decline=True,
          note="no age or address columns; the customer is only an id"),
        T("what was the customer id we were looking at again?", "conversation",
          names=[cs[0][0]], note="the top customer from the first answer of this chat"),
    ])


def cf_15():
    pts25 = one("SELECT SUM(pts) FROM t WHERE d >= DATE '2025-01-01'")
    locs = sql("SELECT loc, SUM(pts) p FROM t GROUP BY 1 ORDER BY p DESC")
    no_tie(locs, 1)
    return chat("cf-15", [
        T("How many loyalty points were earned in total this year?", "negation_recency",
          numbers=[pts25],
          note="this year = 2025 (last date 2025-08-07); SUM(loyalty_points_earned) WHERE transaction_date >= 2025-01-01"),
        T("which location handed out the most points overall, all time?", "extra_columns",
          numbers=[locs[0][1]], names=[locs[0][0]], first=locs[0][0],
          note=f"SUM(loyalty_points_earned) GROUP BY location, highest; next {locs[1][0]} {locs[1][1]}"),
        T("and how many points got redeemed there?", "unanswerable", decline=True,
          note="the file records only points earned, no redemptions"),
    ])


def cf_16():
    q1 = "SELECT SUM(total), COUNT(DISTINCT tid) FROM t WHERE loc = ? AND d BETWEEN DATE '2025-01-01' AND DATE '2025-03-31'"
    dt = sql(q1, "Downtown")[0]
    un = sql(q1, "University")[0]
    assert dt[1] != un[1]
    more = "Downtown" if dt[1] > un[1] else "University"
    return chat("cf-16", [
        T("I'm prepping for a review with Priya on Friday, she manages Downtown. "
          "How did Downtown compare with University on revenue in Q1 2025?", "extra_columns",
          numbers=[r2(dt[0]), r2(un[0])], names=["Downtown", "University"],
          note="SUM(total_price) WHERE transaction_date BETWEEN 2025-01-01 AND 2025-03-31, per location"),
        T("which of the two had more transactions in that quarter?", "follow_up",
          numbers=[max(dt[1], un[1]), min(dt[1], un[1])], names=[more],
          note=f"COUNT(DISTINCT transaction_id) Q1 2025: Downtown {dt[1]}, University {un[1]}"),
        T("remind me, who did I say manages Downtown?", "conversation",
          names=["Priya"], note="the user said so in the first turn"),
        T("what did we spend on staff wages at Downtown that quarter?", "unanswerable", decline=True,
          note="no wage / labour cost data; barista_id is only an id"),
    ])


def cf_17():
    y25 = sql("SELECT SUM(qty), SUM(total) FROM t WHERE prod = 'Chai Latte' AND d >= DATE '2025-01-01'")[0]
    y24 = sql("SELECT SUM(qty), SUM(total) FROM t WHERE prod = 'Chai Latte' AND d < DATE '2025-01-01'")[0]
    return chat("cf-17", [
        T("how are latte sales looking this year?", "in_schema", clarify=True,
          names=["Latte", "Chai Latte"],
          note="two products have 'Latte' in the name (Latte, Chai Latte); a good answer asks which (or gives both, labelled)"),
        T("the chai one. units and revenue this year?", "follow_up",
          numbers=[y25[0], r2(y25[1])],
          note="SUM(quantity), SUM(total_price) WHERE product_name = 'Chai Latte' AND transaction_date >= 2025-01-01 (to 2025-08-07)"),
        T("and in 2024?", "follow_up",
          numbers=[y24[0], r2(y24[1])],
          note="Chai Latte in 2024 (the data start 2024-08-08, so Aug-Dec 2024)"),
    ])


def cf_18():
    a = sql("SELECT SUM(total), COUNT(DISTINCT tid) FROM t WHERE d = DATE '2025-04-03'")[0]
    assert one("SELECT COUNT(*) FROM t WHERE d = DATE '2025-03-04'") > 0
    q1 = "what were total sales on 03/04/2025?"
    return chat("cf-18", [
        T(q1, "in_schema", clarify=True, names=["March 4, 2025", "April 3, 2025"],
          note="03/04/2025 is March 4 (month first) or April 3 (day first); both dates have sales, so a good answer asks "
               "(or gives both, labelled)"),
        T("sorry, day first - the 3rd of April. how much and how many transactions?", "follow_up",
          numbers=[r2(a[0]), a[1]], names=["April 3, 2025"],
          note="SUM(total_price), COUNT(DISTINCT transaction_id) WHERE transaction_date = 2025-04-03"),
        T("what was my first question in this chat, word for word?", "conversation",
          names=[q1], note="the first question of this chat"),
    ])


def cf_19():
    out = sql("SELECT prod, SUM(qty) u FROM t WHERE loc <> 'Airport' GROUP BY 1 ORDER BY u DESC")
    no_tie(out, 1)
    air = sql("SELECT prod, SUM(qty) u FROM t WHERE loc = 'Airport' GROUP BY 1 ORDER BY u DESC")
    no_tie(air, 1)
    jul = one("SELECT SUM(total) FROM t WHERE loc <> 'Airport' AND d BETWEEN DATE '2025-07-01' AND DATE '2025-07-31'")
    return chat("cf-19", [
        T("Outside the Airport, which product sold the most units?", "negation_recency",
          numbers=[out[0][1]], names=[out[0][0]], first=out[0][0],
          note=f"SUM(quantity) WHERE location <> 'Airport' GROUP BY product_name, highest; next {out[1][0]} {out[1][1]}"),
        T("and at the airport only?", "follow_up",
          numbers=[air[0][1]], names=[air[0][0]], first=air[0][0],
          note=f"SUM(quantity) WHERE location = 'Airport' GROUP BY product_name, highest; next {air[1][0]} {air[1][1]}"),
        T("excluding the airport again, what was revenue in the last complete month?", "negation_recency",
          numbers=[r2(jul)], names=["July 2025"],
          note="last complete month = July 2025 (August 2025 ends on the 7th); SUM(total_price) WHERE location <> 'Airport'"),
    ])


def cf_20():
    hrs = sql("SELECT hr, SUM(total) r FROM t WHERE loc = 'University' GROUP BY 1 ORDER BY r DESC")
    no_tie(hrs, 1)
    uni = one("SELECT SUM(total) FROM t WHERE loc = 'University'")
    am = one("SELECT SUM(total) FROM t WHERE loc = 'University' AND tm < '12:00:00'")
    h = f"{hrs[0][0]:02d}:00"
    return chat("cf-20", [
        T("At the University store, which hour of the day makes the most money? (24h)", "extra_columns",
          numbers=[r2(hrs[0][1])], names=[h], first=h,
          note=f"SUM(total_price) WHERE location = 'University' GROUP BY hour of transaction_time, highest; "
               f"next {hrs[1][0]:02d}:00 {r2(hrs[1][1])}"),
        T("what share of University revenue comes in before noon?", "extra_columns",
          numbers=[pct(am, uni)],
          note=f"SUM(total_price) WHERE location = 'University' AND transaction_time < '12:00:00' ({r2(am)}) "
               f"/ University SUM(total_price) ({r2(uni)}) * 100"),
        T("which store have we been talking about in this chat?", "conversation",
          names=["University"], note="both earlier questions were about the University location"),
    ])


CHATS = [cf_01, cf_02, cf_03, cf_04, cf_05, cf_06, cf_07, cf_08, cf_09, cf_10,
         cf_11, cf_12, cf_13, cf_14, cf_15, cf_16, cf_17, cf_18, cf_19, cf_20]


# --------------------------------------------------------------------------------------------------


def build(csv_path):
    global CON
    data = Path(csv_path).read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    problems = []
    if sha != EXPECTED_SHA256:
        problems.append(f"CSV sha256 {sha} != expected {EXPECTED_SHA256}")
    CON = duckdb.connect()
    CON.execute(LOAD_SQL, [str(csv_path)])
    rows = one("SELECT COUNT(*) FROM t")
    if rows != EXPECTED_ROWS:
        problems.append(f"CSV has {rows} rows, expected {EXPECTED_ROWS}")
    assert one("SELECT COUNT(DISTINCT tid) FROM t") == rows, "transaction_id is not unique per row"
    assert one("SELECT COUNT(*) FROM t WHERE total <> qty * price") == 0, "total_price <> quantity * unit_price"
    assert str(one("SELECT MAX(d) FROM t")) == LAST_DATE
    return [f() for f in CHATS], problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--jsonl", help="write the bank to this file (regenerate)")
    ap.add_argument("--bank", default=str(BANK), help="bank to check (default: %(default)s)")
    args = ap.parse_args()

    chats, problems = build(args.csv)
    counts = {}
    for c in chats:
        print(f"== {c['chat']}")
        for t in c["turns"]:
            counts[t["category"]] = counts.get(t["category"], 0) + 1
            e = {k: v for k, v in t["expect"].items() if k != "note"}
            print(f"  [{t['category']}] {t['q']}\n      -> {json.dumps(e, ensure_ascii=False)}")
    nq = sum(counts.values())
    if NEAR_HALF:
        problems.append("figures at a half cent (rounding rule would matter): " + ", ".join(NEAR_HALF))
    print(f"\n{len(chats)} chats, {nq} questions: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))

    lines = [json.dumps(c, ensure_ascii=False) for c in chats]
    if args.jsonl:
        Path(args.jsonl).write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"wrote {args.jsonl}")

    bank_path = Path(args.bank)
    if not bank_path.exists():
        problems.append(f"bank {bank_path} not found")
    else:
        bank = [json.loads(x) for x in bank_path.read_text(encoding="utf-8").splitlines() if x.strip()]
        got_ids = [c.get("chat") for c in bank]
        want_ids = [c["chat"] for c in chats]
        if got_ids != want_ids:
            problems.append(f"bank chats {got_ids} != expected {want_ids}")
        by_id = {c.get("chat"): c for c in bank}
        for want in chats:
            got = by_id.get(want["chat"])
            if got is None:
                continue
            if got != want:
                problems.append(f"{want['chat']}: bank differs from computed truths\n"
                                f"  bank:     {json.dumps(got, ensure_ascii=False)}\n"
                                f"  computed: {json.dumps(want, ensure_ascii=False)}")
    if problems:
        print("\nFAIL")
        for p in problems:
            print(" -", p)
        sys.exit(1)
    print(f"\nOK: {bank_path} matches the computed truths")


if __name__ == "__main__":
    main()

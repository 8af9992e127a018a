#!/usr/bin/env python3
"""Truths for the blind bank ``sales_sample_blind.jsonl``.

Standalone: needs only ``duckdb`` and the standard library.  It checks the
CSV (sha256 and row count), computes every expected value from the data with
DuckDB (one function per chat), prints each question with its truth, and
asserts that the bank file holds exactly these chats and values.

    python sales_sample_truths.py [CSV]                    # print + check the bank, exit 1 on mismatch
    python sales_sample_truths.py [CSV] --jsonl out.jsonl  # regenerate the bank into out.jsonl
    (CSV defaults to /work/evaldata/sales_sample/sales_data_sample.csv)

Data: the Kaggle "Sample Sales Data" file ``sales_data_sample.csv`` (2,823
order lines, 25 columns, Latin-1 bytes, LF line ends, ORDERDATE like
``2/24/2003 0:00``).  The file is decoded from Latin-1 in memory only; the
copy on disk stays byte-identical to the public original.

Conventions behind the truths:
  * revenue = SUM(SALES) over all order lines and ALL statuses (Shipped,
    Cancelled, Resolved, On Hold, In Process, Disputed) unless the question
    itself excludes something;
  * orders = COUNT(DISTINCT ORDERNUMBER); units = SUM(QUANTITYORDERED);
    customers = COUNT(DISTINCT CUSTOMERNAME); average order value =
    revenue / orders;
  * months, quarters and years come from ORDERDATE (they agree with
    MONTH_ID, QTR_ID and YEAR_ID on every row);
  * "recent" is relative to the file's LAST order date, 2005-05-31, never today;
  * TERRITORY "NA" is the literal string for North America, not a missing value;
  * money is summed exactly (DECIMAL) and rounded to 2 decimals; percentages
    are 100 * part / whole rounded half-up to 2 decimals (12.34 means 12.34 %).
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import duckdb

HERE = Path(__file__).resolve().parent
DEFAULT_CSV = Path("/work/evaldata/sales_sample/sales_data_sample.csv")
BANK = HERE / "sales_sample_blind.jsonl"
DATASET = "sales_sample"

CSV_SHA256 = "6a20c7e5ce9d8a2d196f8247b6d92c1e2dc8716c5c135d737cd2465e801ca7c1"
CSV_ROWS = 2823
HEADER = [
    "ORDERNUMBER", "QUANTITYORDERED", "PRICEEACH", "ORDERLINENUMBER", "SALES",
    "ORDERDATE", "STATUS", "QTR_ID", "MONTH_ID", "YEAR_ID", "PRODUCTLINE", "MSRP",
    "PRODUCTCODE", "CUSTOMERNAME", "PHONE", "ADDRESSLINE1", "ADDRESSLINE2", "CITY",
    "STATE", "POSTALCODE", "COUNTRY", "TERRITORY", "CONTACTLASTNAME",
    "CONTACTFIRSTNAME", "DEALSIZE",
]
LAST_ORDER_DATE = "2005-05-31"
MONTHS = ["January", "February", "March", "April", "May", "June", "July",
          "August", "September", "October", "November", "December"]

CONV = "revenue = SUM(SALES) over all statuses"


# --------------------------------------------------------------------------- data
def load(csv_path: Path) -> duckdb.DuckDBPyConnection:
    raw = csv_path.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    if digest != CSV_SHA256:
        sys.exit(f"CSV sha256 mismatch: {digest} != {CSV_SHA256} ({csv_path})")
    text = raw.decode("latin-1")  # in memory only
    rows = list(csv.reader(io.StringIO(text, newline="")))
    if rows[0] != HEADER:
        sys.exit(f"unexpected header: {rows[0]}")
    body = [r for r in rows[1:] if r]
    if len(body) != CSV_ROWS:
        sys.exit(f"row count {len(body)} != {CSV_ROWS}")
    con = duckdb.connect()
    con.execute("CREATE TABLE raw (" + ", ".join(f'"{h}" VARCHAR' for h in HEADER) + ")")
    con.executemany("INSERT INTO raw VALUES (" + ", ".join("?" * len(HEADER)) + ")", body)
    con.execute(
        """
        CREATE TABLE s AS SELECT
            CAST(ORDERNUMBER AS INTEGER)        AS ORDERNUMBER,
            CAST(QUANTITYORDERED AS INTEGER)    AS QUANTITYORDERED,
            CAST(PRICEEACH AS DECIMAL(18, 2))   AS PRICEEACH,
            CAST(ORDERLINENUMBER AS INTEGER)    AS ORDERLINENUMBER,
            CAST(SALES AS DECIMAL(18, 2))       AS SALES,
            CAST(strptime(ORDERDATE, '%m/%d/%Y %H:%M') AS DATE) AS D,
            STATUS,
            CAST(QTR_ID AS INTEGER)   AS QTR_ID,
            CAST(MONTH_ID AS INTEGER) AS MONTH_ID,
            CAST(YEAR_ID AS INTEGER)  AS YEAR_ID,
            PRODUCTLINE,
            CAST(MSRP AS INTEGER) AS MSRP,
            PRODUCTCODE, CUSTOMERNAME, CITY, STATE, COUNTRY, TERRITORY, DEALSIZE
        FROM raw
        """
    )
    # sanity: the period columns agree with ORDERDATE, the last date is fixed,
    # and TERRITORY 'NA' survived as a string
    bad = one(con,
        "SELECT count(*) FROM s WHERE YEAR_ID <> year(D) OR MONTH_ID <> month(D) "
        "OR QTR_ID <> quarter(D)")[0]
    assert bad == 0, f"{bad} rows with period columns != ORDERDATE"
    assert str(one(con, "SELECT max(D) FROM s")[0]) == LAST_ORDER_DATE
    assert one(con, "SELECT count(*) FROM s WHERE TERRITORY = 'NA'")[0] == 1074
    return con


def allrows(con, sql: str) -> list[tuple]:
    return con.execute(sql).fetchall()


def one(con, sql: str) -> tuple:
    rows = allrows(con, sql)
    assert len(rows) == 1, (sql, rows)
    return rows[0]


def r2(v: Decimal) -> float:
    """Half-up to 2 decimals; refuse a value sitting exactly on a half cent."""
    v = Decimal(v)
    if v.quantize(Decimal("0.001")) == v and v.quantize(Decimal("0.001")) % Decimal("0.01") == Decimal("0.005"):
        raise AssertionError(f"{v} sits exactly on a half cent; rounding convention would matter")
    return float(v.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def money(x) -> float:
    return r2(Decimal(x))


def pct(part, whole) -> float:
    return r2(Decimal(part) * 100 / Decimal(whole))


def growth(new, old) -> float:
    return pct(Decimal(new) - Decimal(old), old)


def long_date(d) -> str:
    return f"{MONTHS[d.month - 1]} {d.day}, {d.year}"


def month_name(y: int, m: int) -> str:
    return f"{MONTHS[m - 1]} {y}"


def no_tie_at_cut(values: list, k: int, what: str) -> None:
    """values sorted descending; the k-th and (k+1)-th must differ."""
    if len(values) > k:
        assert values[k - 1] != values[k], f"tie at the cut of {what}: {values[k-1]}"
    assert values[0] != values[1], f"tie at the top of {what}"


def exp(numbers=None, names=None, first=None, decline=None, clarify=None, note=""):
    e = {}
    if numbers is not None:
        e["numbers"] = numbers
    if names is not None:
        e["names"] = names
    if first is not None:
        e["first"] = first
    if decline:
        e["decline"] = True
    if clarify:
        e["clarify"] = True
    e["note"] = note
    return e


def turn(q: str, category: str, expect: dict) -> dict:
    return {"q": q, "category": category, "expect": expect}


def chat(cid: str, turns: list) -> dict:
    return {"chat": cid, "dataset": DATASET, "turns": turns}


# --------------------------------------------------------------------------- chats
def chat_01(con):
    q1 = "hey whats our total revenue across the whole file?"
    rev, orders = one(con, "SELECT sum(SALES), count(DISTINCT ORDERNUMBER) FROM s")
    return chat("ssd-01", [
        turn(q1, "in_schema", exp(
            numbers=[money(rev)],
            note=f"SUM(SALES) over all 2,823 lines, all statuses ({CONV}).")),
        turn("ok and how many orders is that? whats the avg order value", "follow_up", exp(
            numbers=[orders, money(Decimal(rev) / orders)],
            note="COUNT(DISTINCT ORDERNUMBER); average order value = SUM(SALES) / "
                 "distinct orders, all statuses.")),
        turn("sorry, what was the first thing i asked you?", "conversation", exp(
            names=[q1],
            note="The first user question of this chat, verbatim.")),
    ])


def chat_02(con):
    by_year = dict(allrows(con, "SELECT YEAR_ID, sum(SALES) FROM s GROUP BY 1"))
    first_2005, last_2005 = one(con, "SELECT min(D), max(D) FROM s WHERE YEAR_ID = 2005")
    return chat("ssd-02", [
        turn("can you break revenue down by year", "in_schema", exp(
            numbers=[money(by_year[2003]), money(by_year[2004]), money(by_year[2005])],
            names=["2003", "2004", "2005"],
            note=f"SUM(SALES) by year of ORDERDATE, all statuses. 2005 only runs "
                 f"{first_2005} to {last_2005} (partial year).")),
        turn("how much did 2004 grow over 2003, in %?", "in_schema", exp(
            numbers=[growth(by_year[2004], by_year[2003])],
            note=f"(rev 2004 / rev 2003 - 1) * 100 = ({money(by_year[2004])} / "
                 f"{money(by_year[2003])} - 1) * 100, all statuses.")),
        turn("why did 2005 drop off so badly? was it a competitor thing", "unanswerable", exp(
            decline=True,
            note="The file holds no reasons or competitor data, so the cause cannot be "
                 "known from it. A good answer also points out that 2005 is a partial "
                 f"year (orders only up to {LAST_ORDER_DATE}, January to May), so the "
                 "yearly total is not comparable; it must not invent a cause.")),
    ])


def chat_03(con):
    ranked = allrows(con, """
        SELECT YEAR_ID, MONTH_ID, sum(SALES) AS r, count(DISTINCT ORDERNUMBER)
        FROM s GROUP BY 1, 2 ORDER BY r DESC""")
    no_tie_at_cut([r[2] for r in ranked], 1, "months by revenue")
    y, m, rev, orders = ranked[0]
    monthly = {(a, b): r for a, b, r, _ in ranked}
    oct04, nov04 = monthly[(2004, 10)], monthly[(2004, 11)]
    best = month_name(y, m)
    return chat("ssd-03", [
        turn("which month had the highest revenue overall?", "in_schema", exp(
            numbers=[money(rev)], names=[best], first=best,
            note=f"SUM(SALES) per calendar month (year+month), all statuses; best is "
                 f"{y}-{m:02d}; runner-up {month_name(ranked[1][0], ranked[1][1])} "
                 f"with {money(ranked[1][2])}.")),
        turn("how many orders came in that month", "follow_up", exp(
            numbers=[orders],
            note=f"COUNT(DISTINCT ORDERNUMBER) in {y}-{m:02d}, all statuses.")),
        turn("whats the month over month change from october 2004 to november 2004 in %",
             "in_schema", exp(
                 numbers=[growth(nov04, oct04)],
                 note=f"(Nov 2004 {money(nov04)} / Oct 2004 {money(oct04)} - 1) * 100, "
                      f"SUM(SALES), all statuses.")),
    ])


def chat_04(con):
    day = "2004-11-24"
    rev, orders = one(con, f"SELECT sum(SALES), count(DISTINCT ORDERNUMBER) FROM s WHERE D = DATE '{day}'")
    custs = [r[0] for r in allrows(con, f"""
        SELECT CUSTOMERNAME FROM s WHERE D = DATE '{day}'
        GROUP BY 1 ORDER BY sum(SALES) DESC""")]
    return chat("ssd-04", [
        turn("what did we sell on 24 nov 2004? revenue and number of orders pls", "in_schema", exp(
            numbers=[money(rev), orders], names=["November 24, 2004"],
            note=f"ORDERDATE = {day}: SUM(SALES) and COUNT(DISTINCT ORDERNUMBER), all statuses.")),
        turn("which customers ordered that day?", "follow_up", exp(
            names=custs,
            note=f"Distinct CUSTOMERNAME with ORDERDATE = {day} (listed by revenue that day).")),
    ])


def chat_05(con):
    ranked = allrows(con, """
        SELECT CUSTOMERNAME, sum(SALES) AS r FROM s GROUP BY 1 ORDER BY r DESC""")
    no_tie_at_cut([r[1] for r in ranked], 5, "top 5 customers")
    top5 = ranked[:5]
    total = one(con, "SELECT sum(SALES) FROM s")[0]
    lead = top5[0][0]
    country, orders = one(con, f"""
        SELECT any_value(COUNTRY), count(DISTINCT ORDERNUMBER) FROM s
        WHERE CUSTOMERNAME = '{lead}'""")
    assert one(con, f"SELECT count(DISTINCT COUNTRY) FROM s WHERE CUSTOMERNAME = '{lead}'")[0] == 1
    return chat("ssd-05", [
        turn("top 5 customers by revenue?", "in_schema", exp(
            numbers=[money(r) for _, r in top5], names=[n for n, _ in top5], first=lead,
            note=f"SUM(SALES) per CUSTOMERNAME, all statuses; 6th is {ranked[5][0]} "
                 f"({money(ranked[5][1])}), no tie at the cut.")),
        turn("what % of total revenue does the #1 account for", "in_schema", exp(
            numbers=[pct(top5[0][1], total)],
            note=f"{lead} {money(top5[0][1])} / total {money(total)} * 100, all statuses.")),
        turn("what country are they in and how many orders have they placed", "follow_up", exp(
            numbers=[orders], names=[country],
            note=f"{lead}: COUNTRY and COUNT(DISTINCT ORDERNUMBER), all statuses.")),
        turn("nice. how much profit did we make on them?", "unanswerable", exp(
            decline=True,
            note="No cost / COGS column, so profit cannot be computed (MSRP is a list "
                 "price, not a cost). A right answer says so and gives no profit figure; "
                 "it may restate revenue.")),
    ])


def chat_06(con):
    cands = [r[0] for r in allrows(con, """
        SELECT DISTINCT CUSTOMERNAME FROM s WHERE CUSTOMERNAME ILIKE '%signal%' ORDER BY 1 DESC""")]
    assert cands == ["Signal Gift Stores", "Signal Collectibles Ltd."], cands
    pick = "Signal Gift Stores"
    rev, orders = one(con, f"SELECT sum(SALES), count(DISTINCT ORDERNUMBER) FROM s WHERE CUSTOMERNAME = '{pick}'")
    lines = allrows(con, f"""
        SELECT PRODUCTLINE, sum(SALES) AS r FROM s WHERE CUSTOMERNAME = '{pick}'
        GROUP BY 1 ORDER BY r DESC""")
    no_tie_at_cut([r[1] for r in lines], 1, "Signal Gift Stores product lines")
    other = one(con, "SELECT sum(SALES) FROM s WHERE CUSTOMERNAME = 'Signal Collectibles Ltd.'")[0]
    return chat("ssd-06", [
        turn("how much has Signal bought from us in total?", "in_schema", exp(
            names=cands, clarify=True,
            note=f"'Signal' matches two customers: Signal Gift Stores ({money(rev)}) and "
                 f"Signal Collectibles Ltd. ({money(other)}). A right answer asks which one "
                 f"(or clearly gives both, separately); it must not silently pick one.")),
        turn("the gift stores one", "follow_up", exp(
            numbers=[money(rev)], names=[pick],
            note=f"SUM(SALES) for {pick}, all statuses ({orders} orders).")),
        turn("which product line do they spend the most on", "extra_columns", exp(
            numbers=[money(lines[0][1])], names=[lines[0][0]], first=lines[0][0],
            note=f"{pick}: SUM(SALES) by PRODUCTLINE; next is {lines[1][0]} "
                 f"({money(lines[1][1])}).")),
        turn("wait which customer are we talking about again?", "conversation", exp(
            names=[pick],
            note="The customer the user picked after the clarification.")),
    ])


def chat_07(con):
    lines = allrows(con, "SELECT PRODUCTLINE, sum(SALES) AS r FROM s GROUP BY 1 ORDER BY r DESC")
    no_tie_at_cut([r[1] for r in lines], len(lines), "product lines")
    assert len({r[1] for r in lines}) == len(lines), "tie among product lines"
    total = one(con, "SELECT sum(SALES) FROM s")[0]
    cc = dict(lines)["Classic Cars"]
    not_cc = one(con, "SELECT sum(SALES) FROM s WHERE PRODUCTLINE <> 'Classic Cars'")[0]
    return chat("ssd-07", [
        turn("revenue by product line, biggest first", "extra_columns", exp(
            numbers=[money(r) for _, r in lines], names=[n for n, _ in lines], first=lines[0][0],
            note=f"SUM(SALES) by PRODUCTLINE, all statuses, {len(lines)} lines.")),
        turn("whats classic cars share of total revenue in %", "extra_columns", exp(
            numbers=[pct(cc, total)],
            note=f"Classic Cars {money(cc)} / total {money(total)} * 100.")),
        turn("and total revenue if we leave out classic cars?", "negation_recency", exp(
            numbers=[money(not_cc)],
            note="SUM(SALES) WHERE PRODUCTLINE <> 'Classic Cars', all statuses.")),
    ])


def chat_08(con):
    n_large, rev_large = one(con, "SELECT count(*), sum(SALES) FROM s WHERE DEALSIZE = 'Large'")
    avg = dict(allrows(con, "SELECT DEALSIZE, sum(SALES) / count(*) FROM s GROUP BY 1"))
    return chat("ssd-08", [
        turn("how many order lines are Large deals and how much revenue came from them",
             "extra_columns", exp(
                 numbers=[n_large, money(rev_large)],
                 note="Rows with DEALSIZE = 'Large' and their SUM(SALES), all statuses.")),
        turn("whats the average sales per order line for small deals vs medium deals?",
             "extra_columns", exp(
                 numbers=[money(avg["Small"]), money(avg["Medium"])],
                 note="AVG(SALES) per row by DEALSIZE: Small and Medium, all statuses.")),
        turn("what margin are we making on the large ones?", "unanswerable", exp(
            decline=True,
            note="No cost column, so margin cannot be computed; MSRP is a list price, "
                 "not a cost. A right answer says so and invents no margin figure.")),
    ])


def chat_09(con):
    n_cx, rev_cx = one(con, "SELECT count(DISTINCT ORDERNUMBER), sum(SALES) FROM s WHERE STATUS = 'Cancelled'")
    excl = one(con, "SELECT sum(SALES) FROM s WHERE STATUS <> 'Cancelled'")[0]
    custs = [r[0] for r in allrows(con, """
        SELECT CUSTOMERNAME FROM s WHERE STATUS = 'Cancelled'
        GROUP BY 1 ORDER BY min(D)""")]
    return chat("ssd-09", [
        turn("how many orders got cancelled, and how much $ was on them?", "extra_columns", exp(
            numbers=[n_cx, money(rev_cx)],
            note="STATUS = 'Cancelled': COUNT(DISTINCT ORDERNUMBER) and SUM(SALES).")),
        turn("ok so whats total revenue excluding cancelled orders", "negation_recency", exp(
            numbers=[money(excl)],
            note="SUM(SALES) WHERE STATUS <> 'Cancelled' (keeps Shipped, Resolved, On Hold, "
                 "In Process, Disputed).")),
        turn("which customers were those cancellations from", "follow_up", exp(
            names=custs,
            note="Distinct CUSTOMERNAME of the cancelled orders (by date).")),
    ])


def chat_10(con):
    ranked = allrows(con, "SELECT COUNTRY, sum(SALES) AS r FROM s GROUP BY 1 ORDER BY r DESC")
    no_tie_at_cut([r[1] for r in ranked], 3, "top 3 countries")
    top3 = ranked[:3]
    rev_out, cust_out = one(con, "SELECT sum(SALES), count(DISTINCT CUSTOMERNAME) FROM s WHERE COUNTRY <> 'USA'")
    return chat("ssd-10", [
        turn("top 3 countries by revenue?", "extra_columns", exp(
            numbers=[money(r) for _, r in top3], names=[n for n, _ in top3], first=top3[0][0],
            note=f"SUM(SALES) by COUNTRY, all statuses; 4th is {ranked[3][0]} ({money(ranked[3][1])}).")),
        turn("whats our revenue outside the USA", "negation_recency", exp(
            numbers=[money(rev_out)],
            note="SUM(SALES) WHERE COUNTRY <> 'USA', all statuses.")),
        turn("how many customers is that, non-US?", "follow_up", exp(
            numbers=[cust_out],
            note="COUNT(DISTINCT CUSTOMERNAME) WHERE COUNTRY <> 'USA'.")),
    ])


def chat_11(con):
    terr = allrows(con, "SELECT TERRITORY, sum(SALES) AS r FROM s GROUP BY 1 ORDER BY r DESC")
    assert len({r[1] for r in terr}) == len(terr)
    q2 = "how many diffrent customers are in APAC, and which countries are they in?"
    n_apac = one(con, "SELECT count(DISTINCT CUSTOMERNAME) FROM s WHERE TERRITORY = 'APAC'")[0]
    countries = [r[0] for r in allrows(con, """
        SELECT COUNTRY FROM s WHERE TERRITORY = 'APAC' GROUP BY 1 ORDER BY sum(SALES) DESC""")]
    return chat("ssd-11", [
        turn("revenue per territory please", "extra_columns", exp(
            numbers=[money(r) for _, r in terr], names=[n for n, _ in terr], first=terr[0][0],
            note="SUM(SALES) by TERRITORY, all statuses. 'NA' is the literal territory "
                 "code for North America (USA + Canada), not a missing value; readers that "
                 "turn 'NA' into null lose 1,074 rows.")),
        turn(q2, "extra_columns", exp(
            numbers=[n_apac], names=countries,
            note="TERRITORY = 'APAC': COUNT(DISTINCT CUSTOMERNAME) and its countries. "
                 "Quirk: the other Singapore customer (Dragon Souveniers, Ltd.) is filed "
                 "under territory 'Japan', not APAC.")),
        turn("what was my previous question, word for word?", "conversation", exp(
            names=[q2],
            note="The user question just before this one, verbatim.")),
    ])


def chat_12(con):
    ranked = allrows(con, "SELECT CITY, sum(SALES) AS r FROM s GROUP BY 1 ORDER BY r DESC")
    no_tie_at_cut([r[1] for r in ranked], 1, "cities")
    city, rev = ranked[0]
    custs = allrows(con, f"""
        SELECT CUSTOMERNAME, sum(SALES) AS r FROM s WHERE CITY = '{city}'
        GROUP BY 1 ORDER BY r DESC""")
    no_tie_at_cut([r[1] for r in custs], 1, f"customers in {city}")
    return chat("ssd-12", [
        turn("which city brings in the most revenue?", "extra_columns", exp(
            numbers=[money(rev)], names=[city], first=city,
            note=f"SUM(SALES) by CITY, all statuses; runner-up {ranked[1][0]} ({money(ranked[1][1])}).")),
        turn("how many customers are based there? who's the biggest one", "follow_up", exp(
            numbers=[len(custs)], names=[custs[0][0]], first=custs[0][0],
            note=f"COUNT(DISTINCT CUSTOMERNAME) WHERE CITY = '{city}' "
                 f"({', '.join(c for c, _ in custs)}); biggest by SUM(SALES).")),
    ])


def chat_13(con):
    msrp = allrows(con, "SELECT PRODUCTCODE, max(MSRP) AS m, any_value(PRODUCTLINE) FROM s GROUP BY 1 ORDER BY m DESC")
    no_tie_at_cut([r[1] for r in msrp], 1, "MSRP")
    assert one(con, "SELECT count(*) FROM (SELECT PRODUCTCODE FROM s GROUP BY 1 HAVING count(DISTINCT MSRP) > 1)")[0] == 0
    units = allrows(con, "SELECT PRODUCTCODE, sum(QUANTITYORDERED) AS u FROM s GROUP BY 1 ORDER BY u DESC")
    no_tie_at_cut([r[1] for r in units], 1, "product codes by units")
    code = units[0][0]
    line, rev = one(con, f"SELECT any_value(PRODUCTLINE), sum(SALES) FROM s WHERE PRODUCTCODE = '{code}'")
    assert code == "S18_3232", code
    return chat("ssd-13", [
        turn("which product code has the highest MSRP?", "extra_columns", exp(
            numbers=[msrp[0][1]], names=[msrp[0][0]], first=msrp[0][0],
            note=f"MSRP is constant per PRODUCTCODE; max is {msrp[0][0]} ({msrp[0][2]}), "
                 f"next {msrp[1][0]} at {msrp[1][1]}.")),
        turn("best selling product code by units?", "extra_columns", exp(
            numbers=[units[0][1]], names=[code], first=code,
            note=f"SUM(QUANTITYORDERED) by PRODUCTCODE, all statuses; next {units[1][0]} "
                 f"with {units[1][1]}.")),
        turn("what product line is S18_3232 in and whats its total revenue", "extra_columns", exp(
            numbers=[money(rev)], names=[line],
            note="PRODUCTLINE and SUM(SALES) for PRODUCTCODE = 'S18_3232', all statuses.")),
    ])


def chat_14(con):
    last = one(con, "SELECT max(D) FROM s")[0]
    may_rev = one(con, f"SELECT sum(SALES) FROM s WHERE year(D) = {last.year} AND month(D) = {last.month}")[0]
    # last 7 days of data: whichever way the window is read (6 or 7 days back
    # from the last order date) it holds the same orders, because nothing was
    # ordered between 2005-05-18 and 2005-05-28.
    w = allrows(con, f"""
        SELECT CUSTOMERNAME, count(DISTINCT ORDERNUMBER) FROM s
        WHERE D >= DATE '{last}' - INTERVAL 7 DAY GROUP BY 1 ORDER BY min(D), 1""")
    alt = one(con, f"SELECT count(DISTINCT ORDERNUMBER) FROM s WHERE D > DATE '{last}' - INTERVAL 7 DAY")[0]
    n_w = sum(r[1] for r in w)
    assert n_w == alt
    assert one(con, "SELECT count(*) FROM s WHERE D BETWEEN DATE '2005-05-18' AND DATE '2005-05-28'")[0] == 0
    w_rev = one(con, f"SELECT sum(SALES) FROM s WHERE D >= DATE '{last}' - INTERVAL 7 DAY")[0]
    lapsed = one(con, """
        SELECT count(*) FROM (SELECT CUSTOMERNAME FROM s GROUP BY 1
        HAVING bool_or(YEAR_ID = 2004) AND NOT bool_or(YEAR_ID = 2005))""")[0]
    return chat("ssd-14", [
        turn("whats the most recent month in the data and how much revenue did we do in it?",
             "negation_recency", exp(
                 numbers=[money(may_rev)], names=[month_name(last.year, last.month)],
                 note=f"Last ORDERDATE in the file is {last}; SUM(SALES) for "
                      f"{last.year}-{last.month:02d}, all statuses.")),
        turn("how many orders came in during the last 7 days of the data (up to the final order date)? and from who",
             "negation_recency", exp(
                 numbers=[n_w], names=[r[0] for r in w],
                 note=f"Window ends at the last ORDERDATE {last}; no orders between 2005-05-18 "
                      f"and 2005-05-28, so any reading of the 7-day window gives orders "
                      f"10420-10425 (all 'In Process'), revenue {money(w_rev)}.")),
        turn("how many customers ordered in 2004 but havent ordered at all in 2005?",
             "negation_recency", exp(
                 numbers=[lapsed],
                 note="Distinct CUSTOMERNAME with an order in 2004 and none in 2005 (any status).")),
    ])


def chat_15(con):
    q = allrows(con, "SELECT YEAR_ID, QTR_ID, sum(SALES) AS r FROM s GROUP BY 1, 2 ORDER BY r DESC")
    no_tie_at_cut([r[2] for r in q], 1, "quarters")
    y, qt, rev = q[0]
    shipped = one(con, "SELECT sum(SALES) FROM s WHERE YEAR_ID = 2005 AND QTR_ID = 1 AND STATUS = 'Shipped'")[0]
    allst = one(con, "SELECT sum(SALES) FROM s WHERE YEAR_ID = 2005 AND QTR_ID = 1")[0]
    return chat("ssd-15", [
        turn("what was our best quarter ever by revenue?", "in_schema", exp(
            numbers=[money(rev)], names=[f"Q{qt} {y}"], first=f"Q{qt} {y}",
            note=f"SUM(SALES) by calendar quarter, all statuses; runner-up Q{q[1][1]} {q[1][0]} "
                 f"({money(q[1][2])}).")),
        turn("Q1 2005 revenue counting only shipped orders?", "negation_recency", exp(
            numbers=[money(shipped)],
            note=f"SUM(SALES) for 2005-01-01..2005-03-31 WHERE STATUS = 'Shipped' "
                 f"(all statuses would be {money(allst)}).")),
    ])


def chat_16(con):
    name = "Land of Toys Inc."
    orders, rev, last = one(con, f"""
        SELECT count(DISTINCT ORDERNUMBER), sum(SALES), max(D) FROM s WHERE CUSTOMERNAME = '{name}'""")
    cx = one(con, f"SELECT sum(SALES) FROM s WHERE CUSTOMERNAME = '{name}' AND STATUS = 'Cancelled'")[0]
    return chat("ssd-16", [
        turn("how many orders has Land of Toys placed with us, and whats their total?", "in_schema", exp(
            numbers=[orders, money(rev)], names=[name],
            note=f"COUNT(DISTINCT ORDERNUMBER) and SUM(SALES) for {name}, all statuses "
                 f"(includes cancelled order 10248 worth {money(cx)}).")),
        turn("when was their most recent order", "follow_up", exp(
            names=[long_date(last)],
            note=f"max(ORDERDATE) for {name} = {last}.")),
        turn("which customer were we just talking about?", "conversation", exp(
            names=[name],
            note="The customer of the earlier turns.")),
        turn("who's the sales rep on that account?", "unanswerable", exp(
            decline=True,
            note="No sales-rep / staff column (CONTACTFIRSTNAME/CONTACTLASTNAME are the "
                 "customer's contact, not our rep). A right answer says the file cannot "
                 "tell and invents no name.")),
    ])


def chat_17(con):
    u04, moto = one(con, """
        SELECT sum(QUANTITYORDERED), sum(QUANTITYORDERED) FILTER (WHERE PRODUCTLINE = 'Motorcycles')
        FROM s WHERE YEAR_ID = 2004""")
    return chat("ssd-17", [
        turn("total units sold in 2004?", "in_schema", exp(
            numbers=[int(u04)],
            note="SUM(QUANTITYORDERED) for 2004, all statuses.")),
        turn("how many of those were motorcycles", "extra_columns", exp(
            numbers=[int(moto)],
            note="SUM(QUANTITYORDERED) for 2004 WHERE PRODUCTLINE = 'Motorcycles', all statuses.")),
        turn("whats the exact number of units we will sell in june 2005?", "unanswerable", exp(
            decline=True,
            note=f"Future: the file ends at {LAST_ORDER_DATE}. A right answer says an exact "
                 "future figure cannot be known; at most a clearly labelled estimate, "
                 "never stated as fact.")),
    ])


def chat_18(con):
    q1 = "how much did we spend on marketing in 2004?"
    n04 = one(con, "SELECT count(DISTINCT CUSTOMERNAME) FROM s WHERE YEAR_ID = 2004")[0]
    return chat("ssd-18", [
        turn(q1, "unanswerable", exp(
            decline=True,
            note="No marketing / spend column; a right answer says so and invents no figure.")),
        turn("ok. how many distinct customers bought from us in 2004?", "in_schema", exp(
            numbers=[n04],
            note="COUNT(DISTINCT CUSTOMERNAME) with ORDERDATE in 2004, all statuses.")),
        turn("what did i ask right before the customer count question?", "conversation", exp(
            names=[q1],
            note="The user question before the 2004 customer-count question, verbatim.")),
    ])


def chat_19(con):
    cands = [r[0] for r in allrows(con, """
        SELECT DISTINCT CUSTOMERNAME FROM s WHERE CUSTOMERNAME ILIKE 'online%' ORDER BY 1""")]
    assert cands == ["Online Diecast Creations Co.", "Online Mini Collectables"], cands
    pick = cands[0]
    rev = one(con, f"SELECT sum(SALES) FROM s WHERE CUSTOMERNAME = '{pick}'")[0]
    other = one(con, f"SELECT sum(SALES) FROM s WHERE CUSTOMERNAME = '{cands[1]}'")[0]
    lines = allrows(con, f"""
        SELECT PRODUCTLINE, sum(SALES) AS r FROM s WHERE CUSTOMERNAME = '{pick}'
        GROUP BY 1 ORDER BY r DESC""")
    return chat("ssd-19", [
        turn("how much revenue did we get from Online?", "in_schema", exp(
            names=cands, clarify=True,
            note=f"'Online' matches two customers: Online Diecast Creations Co. ({money(rev)}) "
                 f"and Online Mini Collectables ({money(other)}). A right answer asks which "
                 f"(or clearly gives both, separately); it must not silently pick one.")),
        turn("i mean online diecast creations", "follow_up", exp(
            numbers=[money(rev)], names=[pick],
            note=f"SUM(SALES) for {pick}, all statuses.")),
        turn("break that down by product line pls", "extra_columns", exp(
            numbers=[money(r) for _, r in lines], names=[n for n, _ in lines], first=lines[0][0],
            note=f"{pick}: SUM(SALES) by PRODUCTLINE, all statuses.")),
    ])


def chat_20(con):
    per_line = allrows(con, """
        SELECT PRODUCTLINE, count(DISTINCT PRODUCTCODE) FROM s GROUP BY 1 ORDER BY 1""")
    ships = one(con, "SELECT sum(QUANTITYORDERED) FROM s WHERE PRODUCTLINE = 'Ships' AND TERRITORY <> 'EMEA'")[0]
    return chat("ssd-20", [
        turn("how many distinct product codes do we have in each product line?", "extra_columns", exp(
            numbers=[n for _, n in per_line], names=[l for l, _ in per_line],
            note="COUNT(DISTINCT PRODUCTCODE) by PRODUCTLINE (alphabetical), "
                 f"{sum(n for _, n in per_line)} codes in all.")),
        turn("how many units of Ships did we sell outside EMEA?", "negation_recency", exp(
            numbers=[int(ships)],
            note="SUM(QUANTITYORDERED) WHERE PRODUCTLINE = 'Ships' AND TERRITORY <> 'EMEA' "
                 "(NA + APAC + Japan; 'NA' is North America), all statuses.")),
        turn("what number did you give me for the ships question?", "conversation", exp(
            numbers=[int(ships)],
            note="The figure given in the previous answer (Ships units outside EMEA).")),
    ])


CHATS = [chat_01, chat_02, chat_03, chat_04, chat_05, chat_06, chat_07, chat_08, chat_09,
         chat_10, chat_11, chat_12, chat_13, chat_14, chat_15, chat_16, chat_17, chat_18,
         chat_19, chat_20]


# --------------------------------------------------------------------------- main
def build(con) -> list[dict]:
    bank = [f(con) for f in CHATS]
    # shape checks
    ids = [c["chat"] for c in bank]
    assert len(ids) == len(set(ids)) == 20
    for c in bank:
        assert 2 <= len(c["turns"]) <= 4, c["chat"]
        for t in c["turns"]:
            e = t["expect"]
            assert t["category"] in {"in_schema", "extra_columns", "negation_recency",
                                     "conversation", "follow_up", "unanswerable"}
            if e.get("decline"):
                assert "numbers" not in e, c["chat"]
            if e.get("clarify"):
                assert len(e.get("names", [])) >= 2, c["chat"]
    return json.loads(json.dumps(bank))  # normalise (Decimal-free, plain JSON types)


def dump_line(c: dict) -> str:
    return json.dumps(c, ensure_ascii=False)


def show(bank: list[dict]) -> None:
    counts: dict[str, int] = {}
    for c in bank:
        print(f"== {c['chat']}")
        for t in c["turns"]:
            counts[t["category"]] = counts.get(t["category"], 0) + 1
            print(f"  [{t['category']}] {t['q']}")
            e = {k: v for k, v in t["expect"].items() if k != "note"}
            print(f"      -> {json.dumps(e, ensure_ascii=False)}")
            print(f"         note: {t['expect']['note']}")
    print("turns by category:", json.dumps(counts), "total", sum(counts.values()))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv_pos", nargs="?", type=Path, metavar="CSV",
                    help=f"path of sales_data_sample.csv (default {DEFAULT_CSV})")
    ap.add_argument("--csv", type=Path, default=None, help="same as the positional CSV")
    ap.add_argument("--bank", type=Path, default=BANK)
    ap.add_argument("--jsonl", type=Path, help="write the regenerated bank here and exit")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()

    con = load(args.csv_pos or args.csv or DEFAULT_CSV)
    bank = build(con)
    if not args.quiet:
        show(bank)

    if args.jsonl:
        args.jsonl.write_text("".join(dump_line(c) + "\n" for c in bank), encoding="utf-8")
        print(f"wrote {len(bank)} chats to {args.jsonl}")
        return 0

    if not args.bank.exists():
        print(f"MISMATCH: bank file {args.bank} not found")
        return 1
    have = [json.loads(line) for line in args.bank.read_text(encoding="utf-8").splitlines() if line.strip()]
    ok = True
    if [c.get("chat") for c in have] != [c["chat"] for c in bank]:
        print("MISMATCH: chat ids differ:", [c.get("chat") for c in have])
        ok = False
    want = {c["chat"]: c for c in bank}
    for c in have:
        w = want.get(c.get("chat"))
        if w is not None and c != w:
            ok = False
            print(f"MISMATCH in {c['chat']}:")
            for i, (a, b) in enumerate(zip(c.get("turns", []), w["turns"])):
                if a != b:
                    print(f"  turn {i + 1}: bank={json.dumps(a, ensure_ascii=False)}")
                    print(f"          truth={json.dumps(b, ensure_ascii=False)}")
            if len(c.get("turns", [])) != len(w["turns"]):
                print("  different number of turns")
    if not ok:
        return 1
    print(f"OK: {args.bank.name} matches the truths ({len(bank)} chats, "
          f"{sum(len(c['turns']) for c in bank)} turns)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Truths for retail_store_sales_blind.jsonl (blind bank, dataset `retail_store_sales`).

Standalone: needs only `duckdb`. Every number and name in the bank is computed here with SQL
from the CSV; nothing is typed by hand.

    python retail_store_sales_truths.py                 # check the bank against the CSV
    python retail_store_sales_truths.py --print         # list every question with its truth
    python retail_store_sales_truths.py --jsonl OUT     # regenerate the bank
    python retail_store_sales_truths.py --csv PATH      # another copy of the CSV
    python retail_store_sales_truths.py --bank PATH     # check another bank file

Conventions (also in README.md):
  revenue      = SUM("Total Spent"); rows with a blank total add nothing (they are not imputed)
  transaction  = one row (every "Transaction ID" occurs once); counts include rows with blanks
  AOV / avg ticket = AVG("Total Spent") over the rows that have a total
  customers    = COUNT(DISTINCT "Customer ID"); units = SUM(Quantity)
  periods      = "Transaction Date" (ISO); growth = (new - old) / old * 100
  recency      = anchored on the file's latest date (2025-01-18), never today's date
  money and percents are rounded half-up to 2 decimals from exact decimals; a truth exactly on a
  half cent is refused, and every ranking is checked for a tie at #1 and at its cut.
"""
import argparse
import datetime as dt
import hashlib
import json
import os
import sys
from decimal import Decimal, ROUND_HALF_UP, getcontext

import duckdb

getcontext().prec = 60

DATASET = "retail_store_sales"
SHA256 = "79181a5ac74a35dbf65063c3850c05183fdb7a15734859b2d8ac272c8b204a93"
DEFAULT_CSV = "/work/evaldata/retail_store_sales/retail_store_sales.csv"
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BANK = os.path.join(HERE, "retail_store_sales_blind.jsonl")
LATEST = dt.date(2025, 1, 18)


# ---------------------------------------------------------------- helpers
def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def dec(x):
    if isinstance(x, Decimal):
        return x
    if isinstance(x, int):
        return Decimal(x)
    raise TypeError(f"expected an exact value, got {type(x)}: {x!r}")


def r2(x):
    """Round half-up to 2 decimals; refuse a value exactly on a half cent."""
    x = dec(x)
    scaled = x * 100
    if scaled - scaled.to_integral_value(rounding="ROUND_FLOOR") == Decimal("0.5"):
        raise SystemExit(f"truth {x} lies exactly on a half cent")
    return float(x.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def pct(part, whole):
    return r2(dec(part) / dec(whole) * 100)


def growth(new, old):
    return r2((dec(new) - dec(old)) / dec(old) * 100)


def avg(total, n):
    return r2(dec(total) / dec(n))


def day(d):
    return f"{d:%B} {d.day}, {d.year}"


def month(ym):
    y, m = ym.split("-")
    return f"{dt.date(int(y), int(m), 1):%B} {y}"


def ranked(rows, cut=1):
    """rows: [(name, value), ...] sorted best first. Assert no tie at #1 and at the cut."""
    assert len(rows) > cut or len(rows) == cut, rows
    assert len(rows) < 2 or rows[0][1] != rows[1][1], f"tie at #1: {rows[:2]}"
    if len(rows) > cut:
        assert rows[cut - 1][1] != rows[cut][1], f"tie at the cut {cut}: {rows[cut - 1:cut + 1]}"
    return rows[:cut]


def T(q, category, note, **expect):
    e = {}
    for k in ("numbers", "names", "first", "decline", "clarify"):
        if k in expect:
            e[k] = expect.pop(k)
    assert not expect, expect
    e["note"] = note
    return {"q": q, "category": category, "expect": e}


# ---------------------------------------------------------------- data
class Data:
    def __init__(self, path):
        self.con = duckdb.connect()
        p = path.replace("'", "''")
        self.con.execute(f"""
            CREATE TABLE s AS
            SELECT "Transaction ID"                      AS tid,
                   "Customer ID"                         AS cid,
                   Category                              AS cat,
                   Item                                  AS item,
                   CAST("Price Per Unit" AS DECIMAL(12,2)) AS price,
                   CAST(CAST(Quantity AS DOUBLE) AS INTEGER) AS qty,
                   CAST("Total Spent" AS DECIMAL(14,2))  AS tot,
                   "Payment Method"                      AS pay,
                   Location                              AS loc,
                   CAST("Transaction Date" AS DATE)      AS d,
                   "Discount Applied"                    AS disc
            FROM read_csv('{p}', header=true, all_varchar=true)
        """)
        # sanity: the shape the conventions rely on
        n, nid = self.one("SELECT count(*), count(DISTINCT tid) FROM s")
        assert n == nid == 12575, (n, nid)
        assert self.one("SELECT max(d) FROM s")[0] == LATEST
        assert self.one("SELECT count(*) FROM s WHERE qty IS NOT NULL AND price IS NOT NULL "
                        "AND tot IS NOT NULL AND tot <> price * qty")[0] == 0
        # every calendar day 2022-01-01 .. 2025-01-18 has sales, so 2022-01 .. 2024-12 are full months
        assert self.one("SELECT count(DISTINCT d) FROM s")[0] == (LATEST - dt.date(2022, 1, 1)).days + 1

    def all(self, sql, *params):
        return self.con.execute(sql, list(params)).fetchall()

    def one(self, sql, *params):
        return self.con.execute(sql, list(params)).fetchone()

    def val(self, sql, *params):
        v = self.one(sql, *params)[0]
        return Decimal(0) if v is None else v

    def rev(self, where="TRUE", *params):
        return self.val(f"SELECT sum(tot) FROM s WHERE {where}", *params)

    def cnt(self, where="TRUE", *params):
        return self.val(f"SELECT count(*) FROM s WHERE {where}", *params)


def money(x):
    return r2(dec(x))


def f2(x):
    """A figure for a note, with 2 decimals."""
    return f"{money(x):.2f}"


# ---------------------------------------------------------------- the bank
def build(D):
    chats = []

    def chat(turns):
        chats.append({"chat": f"rss-{len(chats) + 1:03d}", "dataset": DATASET, "turns": turns})

    total = D.rev()
    n_tx = D.cnt()
    n_tot = D.cnt("tot IS NOT NULL")
    n_blank_tot = D.cnt("tot IS NULL")

    # 1 -- totals
    chat([
        T("hey, whats the total revenue in this file?", "in_schema",
          f"SUM(\"Total Spent\") over all rows; the {n_blank_tot} rows with a blank total add nothing.",
          numbers=[money(total)]),
        T("and how many transactions are in there overall?", "in_schema",
          "Rows = distinct Transaction ID (each id occurs once), rows with blank fields included.",
          numbers=[int(n_tx)]),
        T("so avg spend per transaction?", "follow_up",
          f"AVG(\"Total Spent\") over the {n_tot} rows that have a total = revenue / {n_tot}. "
          f"(Counting blank totals as 0 would give {avg(total, n_tx)}; not the convention.)",
          numbers=[avg(total, n_tot)]),
    ])

    # 2 -- years
    yrs = D.all("SELECT year(d) y, sum(tot) FROM s GROUP BY 1 ORDER BY 1")
    ry = {y: v for y, v in yrs}
    assert [y for y, _ in yrs] == [2022, 2023, 2024, 2025]
    chat([
        T("revenue by year pls", "in_schema",
          "SUM(Total Spent) by calendar year of Transaction Date; 2025 holds only Jan 1-18.",
          numbers=[money(v) for _, v in yrs], names=[str(y) for y, _ in yrs]),
        T("what was the % growth from 2023 to 2024?", "in_schema",
          f"(2024 - 2023) / 2023 * 100 = ({f2(ry[2024])} - {f2(ry[2023])}) / {f2(ry[2023])}.",
          numbers=[growth(ry[2024], ry[2023])]),
        T("and 22 -> 23?", "follow_up",
          f"(2023 - 2022) / 2022 * 100 = ({f2(ry[2023])} - {f2(ry[2022])}) / {f2(ry[2022])}; a decline.",
          numbers=[growth(ry[2023], ry[2022])]),
    ])

    # 3 -- months
    months = D.all("SELECT strftime(d, '%Y-%m') m, sum(tot) v FROM s GROUP BY 1 ORDER BY v DESC")
    (best_m, best_v), = ranked(months, 1)
    full = D.all("SELECT strftime(d, '%Y-%m') m, sum(tot) v FROM s WHERE d < DATE '2025-01-01' "
                 "GROUP BY 1 ORDER BY v ASC")
    (low_m, low_v), = ranked(full, 1)
    jan25 = D.rev("d >= DATE '2025-01-01'")
    q3_1 = "which month had the highest revenue?"
    chat([
        T(q3_1, "in_schema", f"Calendar months by SUM(Total Spent); #1 is {best_m}.",
          names=[month(best_m)], numbers=[money(best_v)]),
        T("and the weakest full month?", "follow_up",
          f"Lowest of the complete months 2022-01 .. 2024-12 ({low_m}); January 2025 is partial "
          f"(Jan 1-18, {f2(jan25)}) and excluded.",
          names=[month(low_m)], numbers=[money(low_v)]),
        T("sorry, what was the first thing I asked you?", "conversation",
          "The first question of this chat, word for word.", names=[q3_1]),
    ])

    # 4 -- quarters
    def qrev(y, q):
        return D.rev("year(d) = ? AND quarter(d) = ?", y, q)
    q3_24, q4_24, q4_23 = qrev(2024, 3), qrev(2024, 4), qrev(2023, 4)
    chat([
        T("compare q3 vs q4 2024 revenue, with the % change", "in_schema",
          "Q3 2024 (Jul-Sep) and Q4 2024 (Oct-Dec) revenue; growth = (Q4 - Q3) / Q3 * 100.",
          numbers=[money(q3_24), money(q4_24), growth(q4_24, q3_24)]),
        T("what about q4 2023 vs q4 2024?", "follow_up",
          "Q4 2023 and Q4 2024 revenue; growth = (Q4 2024 - Q4 2023) / Q4 2023 * 100.",
          numbers=[money(q4_23), money(q4_24), growth(q4_24, q4_23)]),
    ])

    # 5 -- single days
    days = D.all("SELECT d, sum(tot) v FROM s GROUP BY 1 ORDER BY v DESC")
    (bd, bv), = ranked(days, 1)
    xmas_eve = D.rev("d = DATE '2023-12-24'")
    chat([
        T("best single day ever for sales?", "in_schema",
          f"Day with the highest SUM(Total Spent): {bd.isoformat()}.",
          names=[day(bd)], numbers=[money(bv)]),
        T("how much did we take on christmas eve 2023", "in_schema",
          "SUM(Total Spent) on 2023-12-24.", numbers=[money(xmas_eve)]),
    ])

    # 6 -- customers
    n_cust = D.val("SELECT count(DISTINCT cid) FROM s")
    cust = D.all("SELECT cid, sum(tot) v FROM s GROUP BY 1 ORDER BY v DESC")
    top3 = ranked(cust, 3)
    bot = sorted(cust, key=lambda r: r[1])
    bot3 = ranked(bot, 3)
    chat([
        T("how many different customers do we have?", "in_schema",
          "COUNT(DISTINCT Customer ID).", numbers=[int(n_cust)]),
        T("top 3 customers by total spend", "in_schema",
          "Customers by SUM(Total Spent), highest first (no tie at the cut).",
          names=[c for c, _ in top3], first=top3[0][0], numbers=[money(v) for _, v in top3]),
        T("bottom 3?", "follow_up",
          "The 3 customers with the lowest SUM(Total Spent), lowest first (no tie at the cut).",
          names=[c for c, _ in bot3], first=bot3[0][0], numbers=[money(v) for _, v in bot3]),
        T("who was #2 on the top list again?", "conversation",
          "The second customer of the top-3 answer given earlier.",
          names=[top3[1][0]], numbers=[money(top3[1][1])]),
    ])

    # 7 -- a customer look-up
    c9 = D.rev("cid = 'CUST_09'")
    c9cat = D.all("SELECT cat, sum(tot) v FROM s WHERE cid = 'CUST_09' GROUP BY 1 ORDER BY v DESC")
    (c9c, c9v), = ranked(c9cat, 1)
    chat([
        T("how much has CUST_09 spent in total?", "in_schema",
          "SUM(Total Spent) for Customer ID CUST_09.", numbers=[money(c9)]),
        T("whats their biggest category?", "follow_up",
          "CUST_09's category with the highest SUM(Total Spent).",
          names=[c9c], numbers=[money(c9v)]),
    ])

    # 8 -- a transaction look-up
    tx = D.one("SELECT cid, cat, item, price, qty, tot, pay, loc, d, disc FROM s "
               "WHERE tid = 'TXN_6867343'")
    tcid, tcat, titem, tprice, tqty, ttot, tpay, tloc, td, tdisc = tx
    n_apr = D.cnt("cid = ? AND d BETWEEN DATE '2024-04-01' AND DATE '2024-04-30'", tcid)
    chat([
        T("can u pull up TXN_6867343", "in_schema",
          f"The row: {tcid}, {tcat}, {titem}, price {tprice} x {tqty} = {ttot}, {tpay}, {tloc}, "
          f"{td.isoformat()}, Discount Applied {tdisc}.",
          names=[tcid, titem, day(td)], numbers=[money(ttot)]),
        T("how many transactions did that customer make in april 2024 in total?", "follow_up",
          f"Rows for {tcid} dated 2024-04-01 .. 2024-04-30.", numbers=[int(n_apr)]),
    ])

    # 9 -- categories
    cats = D.all("SELECT cat, sum(tot) v FROM s GROUP BY 1 ORDER BY v DESC")
    assert len({v for _, v in cats}) == len(cats)
    rc = dict(cats)
    chat([
        T("revenue by category, highest first", "extra_columns",
          "SUM(Total Spent) by Category (8 categories, no ties).",
          names=[c for c, _ in cats], first=cats[0][0], numbers=[money(v) for _, v in cats]),
        T("what share of total revenue is furniture?", "extra_columns",
          "Furniture revenue / total revenue * 100.", numbers=[pct(rc["Furniture"], total)]),
        T("and patisserie?", "follow_up",
          "Patisserie revenue / total revenue * 100.", numbers=[pct(rc["Patisserie"], total)]),
        T("which of those two was bigger?", "conversation",
          "Of the two shares given (Furniture, Patisserie), the larger.",
          names=["Furniture" if rc["Furniture"] > rc["Patisserie"] else "Patisserie"]),
    ])

    # 10 -- payment method
    pays = D.all("SELECT pay, sum(tot) v FROM s GROUP BY 1 ORDER BY v DESC")
    ranked(pays, 1)
    cash_n = D.cnt("pay = 'Cash'")
    onl_n = D.cnt("loc = 'Online'")
    onl_cash = D.cnt("loc = 'Online' AND pay = 'Cash'")
    chat([
        T("break revenue down by payment method", "extra_columns",
          "SUM(Total Spent) by Payment Method, highest first.",
          names=[p for p, _ in pays], first=pays[0][0], numbers=[money(v) for _, v in pays]),
        T("what % of transactions were paid cash?", "extra_columns",
          f"Cash rows / all {n_tx} transactions * 100.", numbers=[pct(cash_n, n_tx)]),
        T("and among online orders only?", "follow_up",
          f"Cash rows with Location = Online / {onl_n} Online rows * 100 (the file has cash on online orders).",
          numbers=[pct(onl_cash, onl_n)]),
    ])

    # 11 -- location
    locs = {l: (v, n) for l, v, n in D.all("SELECT loc, sum(tot), count(tot) FROM s GROUP BY 1")}
    chat([
        T("online vs in-store revenue?", "extra_columns",
          "SUM(Total Spent) by Location (Online, In-store).",
          names=["Online", "In-store"], numbers=[money(locs["Online"][0]), money(locs["In-store"][0])]),
        T("avg ticket online vs instore", "extra_columns",
          "AVG(Total Spent) by Location over rows with a total.",
          numbers=[avg(*locs["Online"]), avg(*locs["In-store"])]),
    ])

    # 12 -- discount flag
    disc_t = D.cnt("disc = 'True'")
    disc_b = D.cnt("disc IS NULL")
    chat([
        T("how many transactions had a discount applied?", "extra_columns",
          "Rows with Discount Applied = True.", numbers=[int(disc_t)]),
        T("and how many dont say either way?", "extra_columns",
          "Rows with a blank Discount Applied (neither True nor False).", numbers=[int(disc_b)]),
        T("ok how much did those discounts cost us in $ overall?", "unanswerable",
          "The file has only a True/False flag: no discount amount, rate or list price "
          "(Total Spent = Price Per Unit x Quantity on every complete row). Expect a decline.",
          decline=True),
    ])

    # 13 -- clarify: "electric"
    elec = [c for (c,) in D.all("SELECT DISTINCT cat FROM s WHERE lower(cat) LIKE '%electric%' ORDER BY 1")]
    assert len(elec) == 2
    ehe24 = D.rev("cat = 'Electric household essentials' AND year(d) = 2024")
    chat([
        T("how much did the electric category make in 2024?", "extra_columns",
          "Two categories contain 'electric'; the answer should ask which one is meant.",
          clarify=True, names=elec),
        T("the household essentials one", "follow_up",
          "Electric household essentials, 2024 revenue.", numbers=[money(ehe24)]),
    ])

    # 14 -- items
    items = D.all("SELECT item, sum(tot) v FROM s WHERE item IS NOT NULL GROUP BY 1 ORDER BY v DESC")
    top5 = ranked(items, 5)
    u25 = D.val("SELECT sum(qty) FROM s WHERE item = 'Item_25_FUR'")
    chat([
        T("top 5 items by revenue?", "in_schema",
          "Item (as written) by SUM(Total Spent), rows with a blank Item left out; no tie at the cut.",
          names=[i for i, _ in top5], first=top5[0][0], numbers=[money(v) for _, v in top5]),
        T("how many units of Item_25_FUR did we sell?", "in_schema",
          "SUM(Quantity) for Item_25_FUR.", numbers=[int(u25)]),
        T("what was 3rd on that top 5 list?", "conversation",
          "The third item of the top-5 answer given earlier.", names=[top5[2][0]]),
    ])

    # 15 -- blanks
    no_item = D.cnt("item IS NULL")
    rev_item = D.rev("item IS NOT NULL")
    chat([
        T("how many rows have no item recorded?", "extra_columns",
          "Rows with a blank Item.", numbers=[int(no_item)]),
        T("how many are missing the total amount?", "extra_columns",
          "Rows with a blank Total Spent (they also lack Item and Quantity).", numbers=[int(n_blank_tot)]),
        T("what's revenue if I exclude the rows with no item?", "negation_recency",
          "SUM(Total Spent) over rows whose Item is not blank.", numbers=[money(rev_item)]),
    ])

    # 16 -- exclusions
    ex1 = D.rev("cat NOT IN ('Furniture', 'Butchers')")
    ex2 = D.rev("cat NOT IN ('Furniture', 'Butchers') AND pay <> 'Cash'")
    chat([
        T("total revenue excluding furniture and butchers?", "negation_recency",
          "SUM(Total Spent) where Category is not Furniture or Butchers.", numbers=[money(ex1)]),
        T("now also leave out cash payments", "negation_recency",
          "Same, and Payment Method <> Cash.", numbers=[money(ex2)]),
    ])

    # 17 -- "never"
    nocash = [c for (c,) in D.all(
        "SELECT DISTINCT cid FROM s WHERE d >= DATE '2025-01-01' EXCEPT "
        "SELECT DISTINCT cid FROM s WHERE d >= DATE '2025-01-01' AND pay = 'Cash' ORDER BY 1")]
    nofur = [c for (c,) in D.all(
        "SELECT DISTINCT cid FROM s EXCEPT "
        "SELECT DISTINCT cid FROM s WHERE d >= DATE '2024-12-01' AND cat = 'Furniture' ORDER BY 1")]
    assert 0 < len(nocash) <= 4 and 0 < len(nofur) <= 4
    chat([
        T("which customers shopped in jan 2025 but never paid cash that month?", "negation_recency",
          "Customers with a transaction in 2025-01 (Jan 1-18) and none of them paid in Cash.",
          names=nocash),
        T("which customers havent bought any furniture since the start of december 2024?",
          "negation_recency",
          "Customers with no Furniture row dated 2024-12-01 .. 2025-01-18 (the latest date).",
          names=nofur),
    ])

    # 18 -- recency
    l30_from = LATEST - dt.timedelta(days=29)
    l30 = D.rev("d BETWEEN ? AND ?", l30_from, LATEST)
    ytd = D.rev("d BETWEEN DATE '2025-01-01' AND ?", LATEST)
    ly = D.rev("d BETWEEN DATE '2024-01-01' AND ?", LATEST.replace(year=2024))
    chat([
        T("revenue for the last 30 days?", "negation_recency",
          f"Anchored on the latest date {LATEST.isoformat()}: {l30_from.isoformat()} .. {LATEST.isoformat()} inclusive.",
          numbers=[money(l30)]),
        T("whats the latest month in the data and how much did it make?", "negation_recency",
          "January 2025, partial (Jan 1-18 only).", names=["January 2025"], numbers=[money(jan25)]),
        T("this year so far vs the same days last year - % change?", "negation_recency",
          "2025-01-01 .. 2025-01-18 vs 2024-01-01 .. 2024-01-18; growth = (2025 - 2024) / 2024 * 100.",
          numbers=[money(ytd), money(ly), growth(ytd, ly)]),
    ])

    # 19 -- last 7 days
    w_from = LATEST - dt.timedelta(days=6)
    wcat = D.all("SELECT cat, sum(tot) v FROM s WHERE d BETWEEN ? AND ? GROUP BY 1 ORDER BY v DESC",
                 w_from, LATEST)
    (wc, wv), = ranked(wcat, 1)
    wn = D.cnt("d BETWEEN ? AND ?", w_from, LATEST)
    chat([
        T("last 7 days, which category sold the most?", "negation_recency",
          f"{w_from.isoformat()} .. {LATEST.isoformat()}, Category by SUM(Total Spent).",
          names=[wc], numbers=[money(wv)]),
        T("how many transactions were there that week in total?", "follow_up",
          f"All rows dated {w_from.isoformat()} .. {LATEST.isoformat()}.", numbers=[int(wn)]),
    ])

    # 20 -- the user's name and team
    on24 = D.rev("loc = 'Online' AND strftime(d, '%Y-%m') = '2024-12'")
    on23 = D.rev("loc = 'Online' AND strftime(d, '%Y-%m') = '2023-12'")
    chat([
        T("hi, I'm Marta from the online team. how much online revenue did we make in december 2024?",
          "extra_columns", "SUM(Total Spent) with Location = Online in 2024-12.", numbers=[money(on24)]),
        T("and dec 2023?", "follow_up", "Same for 2023-12.", numbers=[money(on23)]),
        T("remind me, what's my name and which team am I on?", "conversation",
          "What the user said in the first turn.", names=["Marta", "online team"]),
    ])

    # 21 -- unanswerable
    chat([
        T("what's our gross margin by category?", "unanswerable",
          "There is no cost or margin column. Expect a decline.", decline=True),
        T("which city or store branch sells the most?", "unanswerable",
          "Location only says Online or In-store; there is no city, store or branch column. Expect a decline.",
          decline=True),
    ])

    # 22 -- forecast, then a fact
    mar24 = D.rev("strftime(d, '%Y-%m') = '2024-03'")
    chat([
        T("what will revenue be in march 2025, exact number?", "unanswerable",
          "The data ends on 2025-01-18; an exact future figure cannot be known. Expect a decline "
          "(an estimate clearly marked as such is not a number from the file).", decline=True),
        T("ok fine, what did march 2024 do then?", "in_schema",
          "SUM(Total Spent) in 2024-03.", numbers=[money(mar24)]),
    ])

    # 23 -- clarify: "item 10"
    it10 = [i for (i,) in D.all("SELECT DISTINCT item FROM s WHERE item LIKE 'Item\\_10\\_%' ESCAPE '\\' ORDER BY 1")]
    assert len(it10) == 8
    m10 = D.rev("item = 'Item_10_MILK'")
    chat([
        T("how much did item 10 bring in overall?", "in_schema",
          "Eight items are numbered 10 (one per category); the answer should ask which one is meant.",
          clarify=True, names=it10),
        T("the milk one", "follow_up", "Item_10_MILK, all-time revenue.", numbers=[money(m10)]),
    ])

    # 24 -- quantity per category, then a decline
    aq = D.all("SELECT cat, sum(qty), count(qty) FROM s GROUP BY 1")
    aqr = sorted(((c, avg(s_, n)) for c, s_, n in aq), key=lambda r: -r[1])
    ranked(aqr, 1)
    chat([
        T("which category has the highest avg quantity per transaction?", "extra_columns",
          "AVG(Quantity) by Category over rows with a quantity; #1 is distinct at 2 decimals.",
          names=[aqr[0][0]], numbers=[aqr[0][1]]),
        T("can you break our customers down by age and gender?", "unanswerable",
          "No age or gender column (only a Customer ID). Expect a decline.", decline=True),
    ])

    # 25 -- two customers compared
    c17 = D.rev("cid = 'CUST_17' AND year(d) = 2023")
    c04 = D.rev("cid = 'CUST_04' AND year(d) = 2023")
    assert c17 != c04
    chat([
        T("how much did CUST_17 spend in 2023?", "in_schema",
          "SUM(Total Spent) for CUST_17 in 2023.", numbers=[money(c17)]),
        T("and CUST_04?", "follow_up", "Same for CUST_04 in 2023.", numbers=[money(c04)]),
        T("which of the two spent more?", "conversation",
          "The larger of the two figures given.", names=["CUST_17" if c17 > c04 else "CUST_04"]),
        T("what was the number you gave me for CUST_17?", "conversation",
          "CUST_17's 2023 figure from the first answer.", numbers=[money(c17)]),
    ])

    # 26 -- in-store payment mix
    ip = D.all("SELECT pay, sum(tot) v FROM s WHERE loc = 'In-store' AND year(d) = 2024 "
               "GROUP BY 1 ORDER BY v DESC")
    (ipp, ipv), = ranked(ip, 1)
    op = D.all("SELECT pay, sum(tot) v FROM s WHERE loc = 'Online' AND year(d) = 2024 "
               "GROUP BY 1 ORDER BY v DESC")
    (opp, opv), = ranked(op, 1)
    q26_1 = "for in-store sales in 2024, which payment method brought in the most?"
    chat([
        T(q26_1, "extra_columns",
          "Location = In-store, 2024, SUM(Total Spent) by Payment Method.",
          names=[ipp], numbers=[money(ipv)]),
        T("and for online in 2024?", "follow_up",
          "Location = Online, 2024, SUM(Total Spent) by Payment Method.",
          names=[opp], numbers=[money(opv)]),
        T("what exactly did I ask you at the start of this chat?", "conversation",
          "The first question of this chat, word for word.", names=[q26_1]),
    ])

    return chats


# ---------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv_pos", nargs="?", help=argparse.SUPPRESS)
    ap.add_argument("--csv", default=None)
    ap.add_argument("--bank", default=DEFAULT_BANK)
    ap.add_argument("--jsonl", default=None, help="write the regenerated bank here")
    ap.add_argument("--print", action="store_true", help="print questions and truths")
    a = ap.parse_args()
    path = a.csv or a.csv_pos or os.environ.get("RETAIL_STORE_SALES_CSV") or DEFAULT_CSV

    got = sha256_of(path)
    if got != SHA256:
        print(f"CSV sha256 mismatch: {got} (expected {SHA256}) for {path}")
        sys.exit(1)

    chats = build(Data(path))
    n_turns = sum(len(c["turns"]) for c in chats)

    if a.print:
        for c in chats:
            print(f"== {c['chat']}")
            for t in c["turns"]:
                print(f"  [{t['category']}] {t['q']}")
                print(f"      {json.dumps(t['expect'], ensure_ascii=False)}")

    if a.jsonl:
        with open(a.jsonl, "w", encoding="utf-8") as f:
            for c in chats:
                f.write(json.dumps(c, ensure_ascii=False) + "\n")
        print(f"wrote {len(chats)} chats, {n_turns} turns to {a.jsonl}")
        return

    if not os.path.exists(a.bank):
        print(f"no bank at {a.bank} (use --jsonl to write one)")
        sys.exit(1)
    with open(a.bank, encoding="utf-8") as f:
        bank = [json.loads(line) for line in f if line.strip()]
    for i, want in enumerate(chats):
        if i >= len(bank):
            print(f"MISMATCH: chat {want['chat']} is missing from the bank")
            sys.exit(1)
        if bank[i] != want:
            print(f"MISMATCH: chat {want['chat']} differs from the truths")
            sys.exit(1)
    if len(bank) != len(chats):
        print(f"MISMATCH: chat {bank[len(chats)].get('chat')} is not produced by the truths")
        sys.exit(1)
    print(f"OK: {len(chats)} chats, {n_turns} turns match the truths")


if __name__ == "__main__":
    main()

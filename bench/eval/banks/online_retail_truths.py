#!/usr/bin/env python3
"""Truths for online_retail_blind.jsonl (UCI "Online Retail", Dec 2010 - Dec 2011).

Written blind: without reading the assistant's code, tests, docs or other banks.
Every expected value is computed here from the CSV with DuckDB.

    python online_retail_truths.py /work/evaldata/online_retail/online_retail.csv             # check the bank
    python online_retail_truths.py /work/evaldata/online_retail/online_retail.csv --jsonl out  # (re)write a bank

Without --jsonl it prints every question with its truth and asserts that the bank next to this
script (online_retail_blind.jsonl) holds exactly these chats and truths; exit 1 on any mismatch.

Conventions (also in the README):
  revenue  = SUM(Quantity*UnitPrice) over all lines of the period as recorded (cancellation lines
             "C..." are negative, so this is net of cancellations) unless a question says otherwise;
  gross    = the same over lines whose InvoiceNo does not start with "C";
  orders   = COUNT(DISTINCT InvoiceNo) of non-cancelled invoices (InvoiceNo not starting with "C");
  customers= COUNT(DISTINCT CustomerID) on non-cancelled lines ("customers who ordered");
  units    = SUM(Quantity) on non-cancelled lines (only asked where no stock-adjustment lines interfere);
  AOV      = gross / orders;  growth = (new-old)/old*100;  shares *100, 2 decimals;
  a product is its Description text; "merchandise" = StockCode starting with a digit;
  "latest month", "last 3 months" etc. are relative to the last invoice date 2011-12-09.
"""
import argparse
import json
import math
import os
import sys

import duckdb

HERE = os.path.dirname(os.path.abspath(__file__))
BANK = os.path.join(HERE, "online_retail_blind.jsonl")
DATASET = "online_retail"
LAST_DATE = "2011-12-09"


class DB:
    def __init__(self, path):
        self.con = duckdb.connect()
        self.con.execute(f"""
            CREATE VIEW r AS SELECT
              InvoiceNo AS inv, StockCode AS sc, Description AS d, Quantity AS q,
              InvoiceDate AS ts, UnitPrice AS p, CustomerID AS cid, Country AS c,
              Quantity * UnitPrice AS amt,
              InvoiceNo LIKE 'C%' AS canc,
              CAST(InvoiceDate AS DATE) AS dt,
              strftime(InvoiceDate, '%Y-%m') AS ym,
              year(InvoiceDate) AS yr,
              regexp_matches(StockCode, '^[0-9]') AS merch
            FROM read_csv('{path}', header=true,
                 types={{'InvoiceNo':'VARCHAR','StockCode':'VARCHAR','Description':'VARCHAR',
                        'Quantity':'BIGINT','InvoiceDate':'TIMESTAMP','UnitPrice':'DOUBLE',
                        'CustomerID':'BIGINT','Country':'VARCHAR'}})""")
        n = self.val("SELECT count(*) FROM r")
        assert n == 541909, f"expected 541909 data lines, got {n}"
        assert str(self.val("SELECT max(dt) FROM r")) == LAST_DATE

    def rows(self, sql):
        return self.con.execute(sql).fetchall()

    def val(self, sql):
        return self.rows(sql)[0][0]

    def money(self, sql):
        return round(float(self.val(sql)), 2)

    def count(self, sql):
        return int(self.val(sql))

    def ranked(self, sql, n):
        """Top n of (name, value) rows, ordered by the SQL; asserts no tie at the cut (or at 1)."""
        rs = self.rows(sql)
        assert len(rs) > n, sql
        assert rs[n - 1][1] != rs[n][1], f"tie at cut {n}: {rs[n-1]} / {rs[n]}"
        assert rs[0][1] != rs[1][1], f"tie at first: {rs[0]} / {rs[1]}"
        return rs[:n]


def pct(a, b):
    return round(a / b * 100, 2)


MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]


def month_name(ym):
    y, m = ym.split("-")
    return f"{MONTHS[int(m) - 1]} {y}"


def day_name(d):
    return f"{MONTHS[d.month - 1]} {d.day}, {d.year}"


def T(q, category, note, numbers=None, names=None, first=None, decline=False, clarify=False):
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
    return {"q": q, "category": category, "expect": e}


NET = "revenue = SUM(Quantity*UnitPrice) over all lines incl. cancellation lines (net)"
ORD = "orders = COUNT(DISTINCT InvoiceNo) not starting with 'C'"
CUS = "customers = COUNT(DISTINCT CustomerID) on non-cancelled lines"
DECL = "The file has no such column (only InvoiceNo, StockCode, Description, Quantity, InvoiceDate, UnitPrice, CustomerID, Country)."


# ---------------------------------------------------------------- chats

def chat_01(db):
    nov = db.money("SELECT sum(amt) FROM r WHERE ym='2011-11'")
    nov_o = db.count("SELECT count(DISTINCT inv) FROM r WHERE ym='2011-11' AND NOT canc")
    octo = db.money("SELECT sum(amt) FROM r WHERE ym='2011-10'")
    return [
        T("What was our total revenue in November 2011?", "in_schema",
          f"{NET}; InvoiceDate in 2011-11.", numbers=[nov]),
        T("ok and how many orders was that?", "follow_up",
          f"{ORD}; November 2011.", numbers=[nov_o]),
        T("and the month before, revenue-wise?", "follow_up",
          f"{NET}; October 2011 (the month before November 2011).", numbers=[octo]),
        T("sorry, what was the first thing I asked you?", "conversation",
          "The first question was the total revenue in November 2011.",
          names=["revenue", "November 2011"]),
    ]


def chat_02(db):
    c11 = db.count("SELECT count(DISTINCT cid) FROM r WHERE yr=2011 AND NOT canc")
    c11x = db.count("SELECT count(DISTINCT cid) FROM r WHERE yr=2011 AND NOT canc AND c<>'United Kingdom'")
    top = db.ranked("SELECT c, count(DISTINCT cid) n FROM r WHERE yr=2011 AND NOT canc AND c<>'United Kingdom' "
                    "GROUP BY 1 ORDER BY 2 DESC", 1)
    return [
        T("How many different customers placed at least one order with us in 2011?", "in_schema",
          f"{CUS}; InvoiceDate in 2011 (Jan 1 - Dec 9). Guest lines (no CustomerID) are not customers.",
          numbers=[c11]),
        T("And how many of them are based outside the UK?", "negation_recency",
          "Same set, Country <> 'United Kingdom' (no customer ID has both UK and non-UK lines).",
          numbers=[c11x]),
    ]


def chat_03(db):
    spend = db.money("SELECT sum(amt) FROM r WHERE cid=12347")
    o = db.count("SELECT count(DISTINCT inv) FROM r WHERE cid=12347 AND NOT canc")
    ctry = db.val("SELECT any_value(c) FROM r WHERE cid=12347")
    assert db.count("SELECT count(DISTINCT c) FROM r WHERE cid=12347") == 1
    assert db.count("SELECT count(*) FROM r WHERE cid=12347 AND canc") == 0
    last = db.val("SELECT max(dt) FROM r WHERE cid=12347 AND NOT canc")
    return [
        T("how much has customer 12347 spent with us in total?", "in_schema",
          f"{NET}; CustomerID 12347, whole file (this customer has no cancellations).", numbers=[spend]),
        T("How many orders is that?", "follow_up", f"{ORD}; CustomerID 12347.", numbers=[o]),
        T("Which country are they in?", "extra_columns", "Country of CustomerID 12347 (a single value).",
          names=[ctry]),
        T("and when did they last place an order?", "negation_recency",
          f"max(InvoiceDate) of CustomerID 12347's non-cancelled invoices = {last}.", names=[day_name(last)]),
    ]


def chat_04(db):
    P = "d='WHITE HANGING HEART T-LIGHT HOLDER' AND yr=2011 AND NOT canc"
    assert db.count("SELECT count(*) FROM r WHERE d='WHITE HANGING HEART T-LIGHT HOLDER' AND q<0 AND NOT canc") == 0
    u = db.count(f"SELECT sum(q) FROM r WHERE {P}")
    g = db.money(f"SELECT sum(amt) FROM r WHERE {P}")
    best = db.ranked(f"SELECT ym, sum(q) FROM r WHERE {P} GROUP BY 1 ORDER BY 2 DESC", 1)
    return [
        T("How many WHITE HANGING HEART T-LIGHT HOLDERs did we sell in 2011? Don't count cancelled orders.",
          "in_schema", "units = SUM(Quantity), Description = 'WHITE HANGING HEART T-LIGHT HOLDER' "
          "(stock codes 85123A and 85123a), InvoiceDate in 2011, non-cancelled lines.", numbers=[u]),
        T("and what revenue did those bring in?", "follow_up",
          "SUM(Quantity*UnitPrice) over the same lines (non-cancelled 2011 lines of that description).",
          numbers=[g]),
        T("In which month of 2011 did it sell the most units?", "follow_up",
          f"SUM(Quantity) by month over the same lines: {best[0][0]} ({best[0][1]}).",
          names=[month_name(best[0][0])], numbers=[int(best[0][1])]),
    ]


def chat_05(db):
    n = db.count("SELECT count(DISTINCT inv) FROM r WHERE canc")
    v = db.money("SELECT -sum(amt) FROM r WHERE canc")
    alln = db.count("SELECT count(DISTINCT inv) FROM r")
    top = db.ranked("SELECT c, count(DISTINCT inv) FROM r WHERE canc AND c<>'United Kingdom' GROUP BY 1 ORDER BY 2 DESC", 1)
    return [
        T("How many invoices got cancelled over the whole file?", "extra_columns",
          "COUNT(DISTINCT InvoiceNo) with InvoiceNo starting with 'C'.", numbers=[n]),
        T("How much value did those cancellations take off our sales?", "extra_columns",
          "-SUM(Quantity*UnitPrice) over cancellation lines (the sum itself is negative).", numbers=[v]),
        T("What percentage of all invoices in the file were cancellations?", "extra_columns",
          f"cancelled invoices / COUNT(DISTINCT InvoiceNo) over all lines ({n}/{alln})*100.",
          numbers=[pct(n, alln)]),
        T("Apart from the UK, which country had the most cancelled invoices?", "negation_recency",
          f"COUNT(DISTINCT 'C' InvoiceNo) by Country, UK excluded: {top[0][0]} {top[0][1]}.",
          names=[top[0][0]], numbers=[top[0][1]]),
    ]


def chat_06(db):
    n = db.count("SELECT count(*) FROM r WHERE cid IS NULL")
    alln = db.count("SELECT count(*) FROM r")
    rev = db.money("SELECT sum(amt) FROM r WHERE cid IS NULL")
    return [
        T("How many rows in the file don't have a CustomerID?", "extra_columns",
          "COUNT(*) of lines with an empty CustomerID (guest checkouts).", numbers=[n]),
        T("what % of all rows is that", "extra_columns", f"{n}/{alln}*100.", numbers=[pct(n, alln)]),
        T("How much revenue came from those guest lines, net of cancellations?", "extra_columns",
          f"{NET}; lines without CustomerID.", numbers=[rev]),
        T("remind me, what number did you give me for the rows without a customer?", "conversation",
          "The answer to the first question of this chat.", numbers=[n]),
    ]


def chat_07(db):
    avg = db.money("SELECT avg(p) FROM r WHERE d='REGENCY CAKESTAND 3 TIER' AND NOT canc")
    prods = db.rows("SELECT DISTINCT d FROM r WHERE yr=2011 AND NOT canc AND merch AND p>100 ORDER BY 1")
    return [
        T("What's the average unit price of the REGENCY CAKESTAND 3 TIER? Just the plain average of the price "
          "over its non-cancelled sales lines.", "extra_columns",
          "AVG(UnitPrice) over non-cancelled lines with Description 'REGENCY CAKESTAND 3 TIER' (unweighted).",
          numbers=[avg]),
        T("How many different products did we sell at more than £100 a unit in 2011? Leave out postage, manual "
          "entries, fees and adjustments.", "extra_columns",
          "COUNT(DISTINCT Description), non-cancelled 2011 lines, UnitPrice > 100, StockCode starting with a digit "
          "(excludes DOT, POST, M, AMAZONFEE, B, ...): " + "; ".join(x[0] for x in prods) + ".",
          numbers=[len(prods)]),
    ]


def chat_08(db):
    L = "d LIKE '%LUNCH BAG%' AND yr=2011"
    rev = db.money(f"SELECT sum(amt) FROM r WHERE {L}")
    codes = db.count(f"SELECT count(DISTINCT sc) FROM r WHERE {L}")
    assert db.count("SELECT count(*) FROM r WHERE d LIKE '%LUNCH BAG%' AND q<0 AND NOT canc") == 0
    top = db.ranked(f"SELECT d, sum(q) FROM r WHERE {L} AND NOT canc GROUP BY 1 ORDER BY 2 DESC", 1)
    return [
        T("how much did we sell of anything with 'LUNCH BAG' in the name in 2011? revenue, net of cancellations",
          "extra_columns", f"{NET}; Description contains 'LUNCH BAG', InvoiceDate in 2011.", numbers=[rev]),
        T("how many different stock codes is that?", "extra_columns",
          "COUNT(DISTINCT StockCode) of those lines.", numbers=[codes]),
        T("Which one of them sold the most units?", "follow_up",
          f"SUM(Quantity) by Description, non-cancelled 2011 lines containing 'LUNCH BAG': {top[0][0]} {top[0][1]}.",
          first=top[0][0], names=[top[0][0]], numbers=[int(top[0][1])]),
        T("nice. what's our profit margin on the lunch bags?", "unanswerable",
          DECL + " No cost or profit data.", decline=True),
    ]


def chat_09(db):
    x = db.money("SELECT sum(amt) FROM r WHERE yr=2011 AND c<>'United Kingdom'")
    top = db.ranked("SELECT c, sum(amt) FROM r WHERE yr=2011 AND c<>'United Kingdom' GROUP BY 1 ORDER BY 2 DESC", 1)
    fr = db.money("SELECT sum(amt) FROM r WHERE yr=2011 AND c='France'")
    return [
        T("What was revenue outside the UK in 2011?", "negation_recency",
          f"{NET}; Country <> 'United Kingdom', InvoiceDate in 2011.", numbers=[x]),
        T("which of those countries was the biggest?", "follow_up",
          f"Net 2011 revenue by Country, UK excluded: {top[0][0]} {round(top[0][1], 2)}.",
          first=top[0][0], names=[top[0][0]], numbers=[round(top[0][1], 2)]),
        T("and France?", "follow_up", f"{NET}; Country 'France', 2011.", numbers=[fr]),
    ]


def chat_10(db):
    lm = db.val("SELECT max(ym) FROM r")
    lmr = db.money(f"SELECT sum(amt) FROM r WHERE ym='{lm}'")
    l3 = db.money("SELECT sum(amt) FROM r WHERE ym IN ('2011-10','2011-11','2011-12')")
    lapsed = db.count("SELECT count(*) FROM (SELECT cid FROM r WHERE cid IS NOT NULL AND NOT canc "
                      "GROUP BY 1 HAVING max(dt) < DATE '2011-10-01')")
    return [
        T("What's the latest month in the data, and what revenue does it show?", "negation_recency",
          f"Last invoice date is {LAST_DATE}, so the latest month is {lm} (partial, to Dec 9). {NET}.",
          names=[month_name(lm)], numbers=[lmr]),
        T("And revenue over the last 3 months of data - Oct, Nov and the partial Dec?", "negation_recency",
          f"{NET}; InvoiceDate 2011-10-01 .. 2011-12-09.", numbers=[l3]),
        T("How many customers havent ordered since September 2011? I mean their last order was in Sept or earlier, "
          "nothing from October on.", "negation_recency",
          "Customers (CustomerID) whose latest non-cancelled invoice date is before 2011-10-01.",
          numbers=[lapsed]),
        T("which month did you say was the latest one?", "conversation",
          "The first answer of this chat.", names=[month_name(lm)]),
    ]


def chat_11(db):
    o = db.money("SELECT sum(amt) FROM r WHERE ym='2011-10'")
    n = db.money("SELECT sum(amt) FROM r WHERE ym='2011-11'")
    best = db.ranked("SELECT ym, sum(amt) FROM r WHERE yr=2011 GROUP BY 1 ORDER BY 2 DESC", 1)
    worst = db.ranked("SELECT ym, sum(amt) FROM r WHERE yr=2011 AND ym<>'2011-12' GROUP BY 1 ORDER BY 2", 1)
    return [
        T("By how much % did revenue grow from October to November 2011?", "in_schema",
          f"{NET}; (Nov-Oct)/Oct*100 = ({n}-{o})/{o}*100.", numbers=[round((n - o) / o * 100, 2)]),
        T("Which month of 2011 had the highest revenue?", "in_schema",
          f"Net revenue by month in 2011: {best[0][0]} {round(best[0][1], 2)}.",
          first=month_name(best[0][0]), names=[month_name(best[0][0])], numbers=[round(best[0][1], 2)]),
        T("and the weakest full month?", "follow_up",
          f"Lowest net revenue among complete months of 2011 (Jan-Nov; Dec 2011 is partial): {worst[0][0]} "
          f"{round(worst[0][1], 2)}.", names=[month_name(worst[0][0])], numbers=[round(worst[0][1], 2)]),
    ]


def chat_12(db):
    q = {k: db.money(f"SELECT sum(amt) FROM r WHERE yr=2011 AND quarter(ts)={k}") for k in (1, 2, 3, 4)}
    tot = db.money("SELECT sum(amt) FROM r WHERE yr=2011")
    return [
        T("What was Q3 2011 revenue?", "in_schema", f"{NET}; Jul-Sep 2011.", numbers=[q[3]]),
        T("And Q2?", "follow_up", f"{NET}; Apr-Jun 2011.", numbers=[q[2]]),
        T("What share of 2011 revenue came from Q4? (I know it only runs to Dec 9)", "in_schema",
          f"Net Q4 2011 / net 2011 *100 = {q[4]}/{tot}*100.", numbers=[pct(q[4], tot)]),
    ]


def chat_13(db):
    top = db.ranked("SELECT dt, sum(amt) FROM r GROUP BY 1 ORDER BY 2 DESC", 1)
    d0 = top[0][0]
    dow = db.ranked("SELECT dayname(ts), sum(amt) FROM r GROUP BY 1 ORDER BY 2 DESC", 1)
    sat = db.count("SELECT count(*) FROM r WHERE dayofweek(ts)=6")
    return [
        T("Which single day had the highest revenue in the whole file?", "in_schema",
          f"{NET}, by calendar day: {d0} {round(top[0][1], 2)}.", names=[day_name(d0)],
          numbers=[round(top[0][1], 2)]),
        T("Which day of the week brings in the most revenue overall?", "extra_columns",
          f"Net revenue by weekday of InvoiceDate: {dow[0][0]} {round(dow[0][1], 2)}.",
          first=dow[0][0], names=[dow[0][0]]),
        T("Do we ever get orders on a Saturday?", "extra_columns",
          f"Lines with InvoiceDate on a Saturday: {sat}. The answer is no.", numbers=[sat]),
    ]


def chat_14(db):
    g = db.money("SELECT sum(amt) FROM r WHERE yr=2011 AND NOT canc")
    o = db.count("SELECT count(DISTINCT inv) FROM r WHERE yr=2011 AND NOT canc")
    gd = db.money("SELECT sum(amt) FROM r WHERE yr=2011 AND NOT canc AND c='Germany'")
    od = db.count("SELECT count(DISTINCT inv) FROM r WHERE yr=2011 AND NOT canc AND c='Germany'")
    return [
        T("What was the average order value in 2011? Only count non-cancelled orders.", "in_schema",
          f"AOV = SUM(Quantity*UnitPrice) of non-cancelled 2011 lines / {ORD} = {g}/{o}.",
          numbers=[round(g / o, 2)]),
        T("and for orders from Germany?", "follow_up",
          f"Same, Country 'Germany', 2011: {gd}/{od}.", numbers=[round(gd / od, 2)]),
        T("what did we spend on marketing to win those German customers?", "unanswerable",
          DECL + " No marketing spend.", decline=True),
    ]


def chat_15(db):
    top = db.ranked("SELECT cid, sum(amt) FROM r WHERE cid IS NOT NULL GROUP BY 1 ORDER BY 2 DESC", 5)
    ids = [str(x[0]) for x in top]
    return [
        T("Who are our top 5 customers by net revenue across the whole file?", "in_schema",
          f"{NET}, by CustomerID: " + ", ".join(f"{a} {round(b, 2)}" for a, b in top) + ".",
          first=ids[0], names=ids),
        T("how much did the top one spend?", "follow_up", f"Net revenue of CustomerID {ids[0]}.",
          numbers=[round(top[0][1], 2)]),
        T("which customer was fourth on that list you gave me?", "conversation",
          "The fourth ID of the top-5 answer.", names=[ids[3]]),
    ]


def chat_16(db):
    bot = db.ranked("SELECT c, sum(amt) FROM r GROUP BY 1 ORDER BY 2", 3)
    o = db.count(f"SELECT count(DISTINCT inv) FROM r WHERE c='{bot[0][0]}' AND NOT canc")
    return [
        T("Which 3 countries brought in the least revenue?", "in_schema",
          f"{NET}, by Country, lowest first: " + ", ".join(f"{a} {round(b, 2)}" for a, b in bot) + ".",
          first=bot[0][0], names=[x[0] for x in bot]),
        T("how many orders did the lowest one place?", "follow_up", f"{ORD}; Country '{bot[0][0]}'.",
          numbers=[o]),
        T("How old are the customers there, roughly?", "unanswerable", DECL + " No customer age.",
          decline=True),
    ]


def chat_17(db):
    g = db.money("SELECT sum(amt) FROM r WHERE yr=2011 AND c='Germany'")
    cu = db.count("SELECT count(DISTINCT cid) FROM r WHERE yr=2011 AND c='Germany' AND NOT canc")
    return [
        T("Hi! I'm preparing a deck on Germany. How much revenue did Germany bring in during 2011?", "in_schema",
          f"{NET}; Country 'Germany', 2011.", numbers=[g]),
        T("How many customers bought there that year?", "follow_up", f"{CUS}; Germany, 2011.", numbers=[cu]),
        T("wait, which country were we talking about?", "conversation", "The country of the first question.",
          names=["Germany"]),
        T("and what revenue figure did you give me earlier?", "conversation",
          "The answer to the first question of this chat.", numbers=[g]),
    ]


def chat_18(db):
    top = db.ranked("SELECT d, sum(amt) FROM r WHERE merch GROUP BY 1 ORDER BY 2 DESC", 1)
    name = top[0][0]
    sc = db.rows(f"SELECT DISTINCT sc FROM r WHERE d='{name}'")
    assert len(sc) == 1
    cu = db.count(f"SELECT -sum(q) FROM r WHERE d='{name}' AND canc")
    return [
        T("Which product brought in the most net revenue over the whole file? Ignore postage and fees, I want "
          "actual merchandise.", "in_schema",
          f"{NET}, by Description, StockCode starting with a digit (drops DOTCOM POSTAGE, POSTAGE, fees): "
          f"{name} {round(top[0][1], 2)}.", first=name, names=[name]),
        T("what's its stock code?", "extra_columns", f"StockCode of '{name}' (one value).", names=[sc[0][0]]),
        T("and how many units of it were cancelled?", "extra_columns",
          f"-SUM(Quantity) on cancellation lines of '{name}'.", numbers=[cu]),
    ]


def chat_19(db):
    buyers = db.count("SELECT count(DISTINCT cid) FROM r WHERE NOT canc")
    never = db.count("SELECT count(DISTINCT cid) FROM r WHERE NOT canc AND cid NOT IN "
                     "(SELECT cid FROM r WHERE canc AND cid IS NOT NULL)")
    return [
        T("Of the customers who placed at least one order, how many never had a single cancelled invoice?",
          "negation_recency",
          "CustomerIDs with a non-cancelled invoice and no 'C' invoice, whole file.", numbers=[never]),
        T("what % of ordering customers is that?", "negation_recency", f"{never}/{buyers}*100.",
          numbers=[pct(never, buyers)]),
    ]


def chat_20(db):
    uk = db.money("SELECT sum(amt) FROM r WHERE c='United Kingdom'")
    tot = db.money("SELECT sum(amt) FROM r")
    o = db.count("SELECT count(DISTINCT inv) FROM r WHERE yr=2011 AND NOT canc AND c<>'United Kingdom'")
    return [
        T("what share of total net revenue came from the UK?", "in_schema",
          f"{NET}; UK / all, whole file = {uk}/{tot}*100.", numbers=[pct(uk, tot)]),
        T("How many orders came from outside the UK in 2011?", "negation_recency",
          f"{ORD}; Country <> 'United Kingdom', 2011.", numbers=[o]),
        T("Which of our staff handled the most of those orders?", "unanswerable", DECL + " No staff data.",
          decline=True),
    ]


def chat_21(db):
    X = "upper(d) LIKE '%CHRISTMAS%' AND NOT canc"
    assert db.count("SELECT count(*) FROM r WHERE upper(d) LIKE '%CHRISTMAS%' AND q<0 AND NOT canc") == 0
    nov = db.count(f"SELECT sum(q) FROM r WHERE {X} AND ym='2011-11'")
    octo = db.count(f"SELECT sum(q) FROM r WHERE {X} AND ym='2011-10'")
    return [
        T("How many units of stuff with 'CHRISTMAS' in the description did we sell in Novmber 2011? non-cancelled only",
          "extra_columns", "SUM(Quantity), Description contains 'CHRISTMAS', non-cancelled lines, 2011-11.",
          numbers=[nov]),
        T("and in October?", "follow_up", "Same, 2011-10.", numbers=[octo]),
        T("what month did I ask about first?", "conversation", "The first question was about November 2011.",
          names=["November 2011"]),
    ]


def chat_22(db):
    o = db.count("SELECT count(DISTINCT inv) FROM r WHERE cid=14911 AND NOT canc")
    co = db.count("SELECT count(DISTINCT inv) FROM r WHERE cid=14911 AND canc")
    return [
        T("How many orders did customer 14911 place?", "in_schema", f"{ORD}; CustomerID 14911.", numbers=[o]),
        T("and how many of their invoices were cancellations?", "extra_columns",
          "COUNT(DISTINCT 'C' InvoiceNo) of CustomerID 14911.", numbers=[co]),
    ]


def chat_23(db):
    cands = ["WHITE HANGING HEART T-LIGHT HOLDER", "RED HANGING HEART T-LIGHT HOLDER",
             "PINK HANGING HEART T-LIGHT HOLDER"]
    for x in cands:
        assert db.count(f"SELECT count(*) FROM r WHERE d='{x}' AND yr=2011 AND NOT canc") > 0
    assert db.count("SELECT count(*) FROM r WHERE d='RED HANGING HEART T-LIGHT HOLDER' AND q<0 AND NOT canc") == 0
    u = db.count("SELECT sum(q) FROM r WHERE d='RED HANGING HEART T-LIGHT HOLDER' AND yr=2011 AND NOT canc")
    return [
        T("how many of the hanging heart t-light holders did we sell in 2011?", "in_schema",
          "Ambiguous: several descriptions match (WHITE, RED, PINK HANGING HEART T-LIGHT HOLDER; also CREAM, "
          "HANGING HEART JAR/ZINC T-LIGHT HOLDER). A good answer asks which one.",
          names=cands, clarify=True),
        T("the red one", "follow_up",
          "units = SUM(Quantity), Description 'RED HANGING HEART T-LIGHT HOLDER', 2011, non-cancelled lines.",
          numbers=[u]),
        T("which product did I end up picking?", "conversation", "The user picked the red one.",
          names=["RED HANGING HEART T-LIGHT HOLDER"]),
    ]


def chat_24(db):
    cands = sorted({x[0].strip() for x in db.rows("SELECT DISTINCT d FROM r WHERE d LIKE 'ALARM CLOCK BAKELIKE%'")})
    pink = db.money("SELECT sum(amt) FROM r WHERE d='ALARM CLOCK BAKELIKE PINK' AND yr=2011")
    return [
        T("What's the revenue on the bakelike alarm clock this year?", "in_schema",
          f"Ambiguous: {len(cands)} colours of ALARM CLOCK BAKELIKE. A good answer asks which one. "
          "('This year' = 2011, the year of the last invoice.)", names=cands, clarify=True),
        T("Pink. net of cancellations pls", "follow_up",
          f"{NET}; Description 'ALARM CLOCK BAKELIKE PINK', 2011. (Names shown trimmed; RED has a trailing space in the file.)", numbers=[pink]),
        T("ok and how many of those will we sell next month?", "unanswerable",
          "Future sales (January 2012) are not in the file; a forecast is not a fact from the data.",
          decline=True),
    ]


def chat_25(db):
    fr = db.count("SELECT count(DISTINCT cid) FROM r WHERE c='France' AND NOT canc")
    return [
        T("How many customers do we have in France? (ones who ordered at all)", "extra_columns",
          f"{CUS}; Country 'France', whole file.", numbers=[fr]),
        T("Why did the French customers send stuff back? any return reasons?", "unanswerable",
          DECL + " Cancellations are recorded, but no return reasons.", decline=True),
    ]


CHATS = [chat_01, chat_02, chat_03, chat_04, chat_05, chat_06, chat_07, chat_08, chat_09, chat_10,
         chat_11, chat_12, chat_13, chat_14, chat_15, chat_16, chat_17, chat_18, chat_19, chat_20,
         chat_21, chat_22, chat_23, chat_24, chat_25]


def build(db):
    out = []
    for i, fn in enumerate(CHATS, 1):
        out.append({"chat": f"or-{i:02d}", "dataset": DATASET, "turns": fn(db)})
    return out


def same(a, b):
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return math.isclose(a, b, abs_tol=0.005)
    return a == b


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--jsonl", help="write the bank here instead of checking")
    ap.add_argument("--bank", default=BANK)
    a = ap.parse_args()
    chats = build(DB(a.csv))
    if a.jsonl:
        with open(a.jsonl, "w", encoding="utf-8") as fh:
            for c in chats:
                fh.write(json.dumps(c, ensure_ascii=False) + "\n")
        print(f"wrote {len(chats)} chats to {a.jsonl}")
        return 0
    for c in chats:
        for t in c["turns"]:
            e = {k: v for k, v in t["expect"].items() if k != "note"}
            print(f"{c['chat']} [{t['category']}] {t['q']}\n    -> {json.dumps(e, ensure_ascii=False)}")
    with open(a.bank, encoding="utf-8") as fh:
        bank = [json.loads(l) for l in fh if l.strip()]
    bad = 0
    if len(bank) != len(chats):
        print(f"MISMATCH: bank has {len(bank)} chats, computed {len(chats)}")
        bad += 1
    for want, got in zip(chats, bank):
        if not same(want, got):
            bad += 1
            print(f"MISMATCH in {want['chat']}:\n  computed {json.dumps(want)}\n  bank     {json.dumps(got)}")
    n = sum(len(c["turns"]) for c in chats)
    if bad:
        print(f"FAIL: {bad} chat(s) differ")
        return 1
    print(f"OK: {len(chats)} chats, {n} questions match {a.bank}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

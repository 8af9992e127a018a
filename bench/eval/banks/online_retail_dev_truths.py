#!/usr/bin/env python3
"""Truths for the DEV bank online_retail_dev.jsonl (UCI "Online Retail", UK gift shop, 2010-12-01 .. 2011-12-09).

Standalone: needs only duckdb. Recomputes every truth from the CSV, builds the bank and compares it with
online_retail_dev.jsonl next to this script (exit 1 on any mismatch or failed sanity/tie check).

    python online_retail_dev_truths.py /work/evaldata/online_retail/online_retail.csv                    # print + check
    python online_retail_dev_truths.py /work/evaldata/online_retail/online_retail.csv --jsonl out.jsonl  # regenerate

Conventions (same as online_retail_blind, see README.md):
  revenue   = SUM(Quantity*UnitPrice) over all lines of the period, cancellations included (net revenue)
  orders    = COUNT(DISTINCT InvoiceNo) of non-cancelled invoices (InvoiceNo not starting with "C")
  customers = COUNT(DISTINCT CustomerID) on non-cancelled lines
  units     = SUM(Quantity) on non-cancelled lines (only asked for products without negative adjustment lines)
  AOV       = SUM(Quantity*UnitPrice) of non-cancelled lines / orders
  growth    = (new-old)/old*100; shares and rates are percents with 2 decimals
  value of cancellations is given as a positive amount
  a product is its Description (trailing spaces trimmed); "merchandise" = StockCode starting with a digit
  "latest month" = December 2011 (partial, 1-9 Dec); recency is relative to the last invoice 2011-12-09 12:50
"""
import argparse
import json
import os
import sys

import duckdb

HERE = os.path.dirname(os.path.abspath(__file__))
BANK = os.path.join(HERE, "online_retail_dev.jsonl")
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]

FAILS = []


def check(cond, msg):
    if not cond:
        FAILS.append(msg)
        print("CHECK FAILED:", msg)


class DB:
    def __init__(self, csv):
        self.con = duckdb.connect()
        self.con.execute(f"""
            create table raw as select * from read_csv('{csv}', header=true, columns={{
              'InvoiceNo':'VARCHAR','StockCode':'VARCHAR','Description':'VARCHAR','Quantity':'BIGINT',
              'InvoiceDate':'TIMESTAMP','UnitPrice':'DECIMAL(18,3)','CustomerID':'VARCHAR','Country':'VARCHAR'}})""")
        self.con.execute("""
            create view v as select *, trim(Description) as prod, InvoiceNo like 'C%' as canc,
                   Quantity*UnitPrice as amt from raw""")

    def all(self, sql, params=()):
        return self.con.execute(sql, list(params)).fetchall()

    def one(self, sql, params=()):
        return self.con.execute(sql, list(params)).fetchone()[0]

    # --- measures -------------------------------------------------------------------------------
    def rev(self, where="true", params=()):
        return float(self.one(f"select round(sum(amt),2) from v where {where}", params))

    def orders(self, where="true", params=()):
        return int(self.one(f"select count(distinct InvoiceNo) from v where not canc and ({where})", params))

    def customers(self, where="true", params=()):
        return int(self.one(f"select count(distinct CustomerID) from v where not canc and ({where})", params))

    def units(self, where="true", params=()):
        neg = self.one(f"select count(*) from v where not canc and Quantity<0 and ({where})", params)
        check(neg == 0, f"units asked where negative adjustment lines exist: {where} {params}")
        return int(self.one(f"select sum(Quantity) from v where not canc and ({where})", params))

    def aov(self, where="true", params=()):
        r = self.one(f"select sum(amt)::double from v where not canc and ({where})", params)
        return round(r / self.orders(where, params), 2)

    def ranking(self, sql, n, params=(), desc=True):
        """sql returns (name, value) rows; returns top n, asserting no tie at the cut."""
        rows = self.all(sql, params)
        rows.sort(key=lambda r: r[1], reverse=desc)
        if len(rows) > n:
            check(rows[n - 1][1] != rows[n][1], f"tie at cut {n}: {rows[n-1]} vs {rows[n]}")
        check(n < 2 or rows[0][1] != rows[1][1], f"tie at first: {rows[:2]}")
        return rows[:n]

    def product(self, name):
        """The where-clause for a product description; asserts it is one untrimmed spelling."""
        k = self.one("select count(distinct Description) from v where prod = ?", [name])
        check(k == 1, f"product {name!r} has {k} spellings")
        return "prod = ?", [name]


def pct(new, old):
    return round((new - old) / old * 100, 2)


def share(part, whole):
    return round(part / whole * 100, 2)


def nice_date(d):
    return f"{MONTHS[d.month - 1]} {d.day}, {d.year}"


def T(q, category, **expect):
    return {"q": q, "category": category, "expect": {k: v for k, v in expect.items() if v is not None}}


# ------------------------------------------------------------------------------------------------
def sanity(db):
    check(db.one("select count(*) from v") == 541909, "line count")
    check(db.one("select count(distinct InvoiceNo) from v") == 25900, "invoice count")
    check(db.one("select count(distinct InvoiceNo) from v where canc") == 3836, "cancelled invoices")
    check(db.one("select count(distinct CustomerID) from v") == 4372, "customer ids")
    check(db.one("select count(*) from v where CustomerID is null") == 135080, "guest lines")
    check(db.rev() == 9747747.93, "total revenue")
    check(str(db.one("select max(InvoiceDate) from v")) == "2011-12-09 12:50:00", "last invoice")
    check(db.one("select count(*) from v where dayofweek(InvoiceDate)=6") == 0, "no Saturdays")
    check(db.one("""select count(*) from (select CustomerID from v where CustomerID is not null group by 1
                    having bool_or(Country='United Kingdom') and bool_or(Country<>'United Kingdom'))""") == 0,
          "no customer both UK and non-UK")


def chat01(db):
    y = "year(InvoiceDate)=2011"
    q1 = "hey, whats our total revenue for 2011? net of cancellations is fine"
    return [
        T(q1, "in_schema", numbers=[db.rev(y)], note="SUM(Quantity*UnitPrice) over all 2011 lines, cancellations included"),
        T("and how many orders was that", "follow_up", numbers=[db.orders(y)],
          note="distinct non-cancelled InvoiceNo in 2011"),
        T("ok so what's the AOV then?", "follow_up", numbers=[db.aov(y)],
          note="2011 revenue of non-cancelled lines / 2011 orders"),
        T("what was the very first thing I asked you in this chat?", "conversation", names=[q1],
          note="the first question (2011 total revenue)"),
    ]


def chat02(db):
    top = db.ranking("select Country, sum(amt) from v where Country<>'United Kingdom' group by 1", 5)
    names = [r[0] for r in top]
    uk = share(db.rev("Country='United Kingdom'"), db.rev())
    third = names[2]
    return [
        T("Which 5 countries outside the UK brought in the most revenue over the whole data set? net of cancellations pls",
          "negation_recency", names=names, first=names[0], numbers=[round(float(r[1]), 2) for r in top],
          note="revenue by Country, United Kingdom excluded, all dates"),
        T("What % of total revenue is the UK on its own?", "in_schema", numbers=[uk],
          note="UK net revenue / all net revenue * 100, whole period"),
        T("how many customers does no. 3 on that list have?", "follow_up", names=[third],
          numbers=[db.customers("Country=?", [third])], note=f"distinct CustomerID on non-cancelled lines of {third}"),
        T("remind me, which country topped your top-5 list?", "conversation", names=[names[0]],
          note="the first entry of the earlier ranking"),
    ]


def chat03(db):
    y = "year(InvoiceDate)=2011"
    n = int(db.one(f"select count(distinct InvoiceNo) from v where canc and {y}"))
    val = -float(db.one(f"select round(sum(amt),2) from v where canc and {y}"))
    allinv = int(db.one(f"select count(distinct InvoiceNo) from v where {y}"))
    top = db.ranking("select Country, count(distinct InvoiceNo) from v where canc and Country<>'United Kingdom' group by 1", 1)
    return [
        T("How many invoices got cancelled in 2011? (the ones starting with C)", "extra_columns", numbers=[n],
          note="distinct InvoiceNo starting with C, 2011"),
        T("whats the total value of those? as a positive number", "follow_up", numbers=[val],
          note="-SUM(Quantity*UnitPrice) of 2011 cancellation lines"),
        T("What's the 2011 cancellation rate, i.e. cancelled invoices as a % of all 2011 invoice numbers (cancelled ones included)?",
          "extra_columns", numbers=[share(n, allinv)], note=f"{n} / {allinv} distinct 2011 InvoiceNo * 100"),
        T("Which country other than the UK had the most cancelled invoices, whole period?", "extra_columns",
          names=[top[0][0]], first=top[0][0], numbers=[int(top[0][1])],
          note="distinct C-invoices by Country, UK excluded"),
    ]


def chat04(db):
    g = "CustomerID is null"
    top = db.ranking(f"select Country, count(*) from v where {g} and Country<>'United Kingdom' group by 1", 1)
    return [
        T("how much revenue came from guest checkouts - lines with no CustomerID? net of cancellations", "extra_columns",
          numbers=[db.rev(g)], note="SUM(Quantity*UnitPrice) of lines with empty CustomerID, all dates"),
        T("and how many of those no-customer-id lines are from 2011 alone?", "extra_columns",
          numbers=[int(db.one(f"select count(*) from v where {g} and year(InvoiceDate)=2011"))],
          note="lines with empty CustomerID dated 2011 (all lines, cancellations included)"),
        T("Outside the UK, which country has the most guest lines?", "negation_recency", names=[top[0][0]],
          first=top[0][0], numbers=[int(top[0][1])], note="count of lines with empty CustomerID by Country, UK excluded"),
    ]


def chat05(db):
    top = db.ranking("select CustomerID, sum(amt) from v where CustomerID is not null group by 1", 1)
    c = top[0][0]
    w = "CustomerID=?"
    last = db.one("select max(InvoiceDate) from v where not canc and CustomerID=?", [c])
    country = db.all("select distinct Country from v where CustomerID=?", [c])
    check(len(country) == 1, "top customer has one country")
    canc_n = int(db.one("select count(distinct InvoiceNo) from v where canc and CustomerID=?", [c]))
    canc_v = -float(db.one("select round(sum(amt),2) from v where canc and CustomerID=?", [c]))
    return [
        T("who's our biggest customer by net revenue (after cancellations), across everything?", "in_schema",
          names=[c], first=c, numbers=[round(float(top[0][1]), 2)],
          note=f"revenue by CustomerID, all dates; customer is in {country[0][0]}"),
        T("how many orders have they placed?", "follow_up", numbers=[db.orders(w, [c])],
          note=f"distinct non-cancelled invoices of {c}"),
        T("and when was their last one?", "follow_up", names=[nice_date(last)],
          note=f"latest non-cancelled invoice of {c}: {last}"),
        T("have they ever cancelled anything? how many invoices and how much money", "extra_columns",
          numbers=[canc_n, canc_v], note=f"C-invoices of {c} and their value as a positive amount"),
    ]


def chat06(db):
    c = "12415"
    w = "CustomerID=?"
    country = db.all("select distinct Country from v where CustomerID=?", [c])
    check(len(country) == 1, "12415 one country")
    return [
        T("can u pull up customer 12415 for me - total spend net of cancellations, and where are they based?",
          "in_schema", numbers=[db.rev(w, [c])], names=[country[0][0]], note="revenue of CustomerID 12415, all dates"),
        T("How many orders did they place and what's their average order value?", "follow_up",
          numbers=[db.orders(w, [c]), db.aov(w, [c])], note="non-cancelled invoices of 12415; AOV on non-cancelled lines"),
        T("Any cancellations from them? how many cancelled invoices", "extra_columns",
          numbers=[int(db.one("select count(distinct InvoiceNo) from v where canc and CustomerID=?", [c]))],
          note="distinct C-invoices of 12415"),
    ]


def chat07(db):
    p = "JUMBO BAG RED RETROSPOT"
    w, prm = db.product(p)
    y = w + " and year(InvoiceDate)=2011"
    codes = db.all(f"select distinct StockCode from v where {w}", prm)
    check(len(codes) == 1, "jumbo bag one code")
    avgp = round(float(db.one(f"select avg(UnitPrice)::double from v where not canc and UnitPrice > 0 and {w}", prm)), 2)
    return [
        T("How many JUMBO BAG RED RETROSPOT did we sell in 2011? units, non-cancelled only", "in_schema",
          numbers=[db.units(y, prm)], note="SUM(Quantity) on non-cancelled 2011 lines of the product"),
        T("and the revenue on it for 2011, net?", "follow_up", numbers=[db.rev(y, prm)],
          note="SUM(Quantity*UnitPrice) of the product's 2011 lines"),
        T("what's its stock code btw", "extra_columns", names=[codes[0][0]], note="StockCode of the description"),
        T("What unit price does it usually sell at? just the plain average of the price over non-cancelled lines, all dates, "
          "skipping the odd zero-price line", "extra_columns", numbers=[avgp],
          note="AVG(UnitPrice) over non-cancelled lines of the product with UnitPrice > 0 (3 lines have price 0)"),
    ]


def chat08(db):
    cands = [r[0] for r in db.all("select distinct prod from v where prod like 'PAPER CHAIN KIT%' order by 1")]
    check(len(cands) == 6, "paper chain kits")
    p = "PAPER CHAIN KIT VINTAGE CHRISTMAS"
    w, prm = db.product(p)
    return [
        T("how much did the paper chain kit make overall? net of cancellations", "in_schema", clarify=True,
          names=cands, note="6 products start with PAPER CHAIN KIT; the assistant should ask which"),
        T("sorry - the vintage christmas one", "follow_up", names=[p], numbers=[db.rev(w, prm)],
          note="revenue of the product, all dates"),
        T("which product did we end up looking at?", "conversation", names=[p], note="the product chosen in turn 2"),
    ]


def chat09(db):
    m = db.ranking("select strftime(InvoiceDate,'%Y-%m'), sum(amt) from v group by 1", 1)
    best = m[0][0]
    check(best == "2011-11", "best month Nov 2011")
    prev = db.rev("strftime(InvoiceDate,'%Y-%m')='2011-10'")
    low = db.ranking("select strftime(InvoiceDate,'%Y-%m'), sum(amt) from v where strftime(InvoiceDate,'%Y-%m')<>'2011-12' group by 1",
                     1, desc=False)
    return [
        T("Which month had the highest revenue? net of cancellations", "in_schema", names=["November 2011"],
          first="November 2011", numbers=[round(float(m[0][1]), 2)], note="revenue by calendar month"),
        T("how did that compare to the month before, % change?", "follow_up",
          numbers=[pct(float(m[0][1]), prev)], note=f"(Nov 2011 - Oct 2011 {prev}) / Oct 2011 * 100"),
        T("what was the weakest month then? leave out Dec 2011 since it's only partial", "negation_recency",
          names=["April 2011"], first="April 2011", numbers=[round(float(low[0][1]), 2)],
          note=f"lowest monthly revenue excluding 2011-12 (Dec 2010 is a full month): {low[0][0]}"),
    ]


def chat10(db):
    q = {i: db.rev(f"year(InvoiceDate)=2011 and quarter(InvoiceDate)={i}") for i in range(1, 5)}
    qo = db.ranking("select quarter(InvoiceDate), count(distinct InvoiceNo) from v where not canc and year(InvoiceDate)=2011 group by 1", 1)
    return [
        T("Break 2011 down by quarter for me pls - revenue, net of cancellations", "in_schema",
          numbers=[q[1], q[2], q[3], q[4]], note="revenue per quarter of 2011, Q1..Q4 (Q4 ends 2011-12-09)"),
        T("which quarter had the most orders?", "follow_up", names=[f"Q{qo[0][0]}"], first=f"Q{qo[0][0]}",
          numbers=[int(qo[0][1])], note="distinct non-cancelled invoices per 2011 quarter"),
        T("By how much % did revenue grow from Q2 to Q3 2011?", "in_schema", numbers=[pct(q[3], q[2])],
          note="(Q3-Q2)/Q2*100"),
    ]


def chat11(db):
    dow = db.ranking("select dayname(InvoiceDate), count(distinct InvoiceNo) from v where not canc group by 1", 1)
    low = db.ranking("select dayname(InvoiceDate), count(distinct InvoiceNo) from v where not canc group by 1", 1, desc=False)
    sat = int(db.one("select count(distinct InvoiceNo) from v where dayname(InvoiceDate)='Saturday'"))
    return [
        T("what day of the week do we get the most orders on?", "extra_columns", names=[dow[0][0]], first=dow[0][0],
          numbers=[int(dow[0][1])], note="distinct non-cancelled invoices by weekday, whole period"),
        T("do we ever get orders on a saturday?", "extra_columns", numbers=[sat], note="no Saturday invoices at all"),
        T("ok so of the days we actually trade, which is the quietest?", "follow_up", names=[low[0][0]],
          first=low[0][0], numbers=[int(low[0][1])], note="fewest non-cancelled invoices among weekdays present"),
        T("Total revenue on Thursdays, net of cancellations, whole period?", "extra_columns",
          numbers=[db.rev("dayname(InvoiceDate)='Thursday'")], note="revenue of lines dated on a Thursday"),
    ]


def chat12(db):
    m = "regexp_matches(StockCode,'^[0-9]') and not canc"
    top = db.ranking(f"select prod, max(UnitPrice) from v where {m} group by 1", 1)
    return [
        T("What's the priciest merchandise item by unit price? (merchandise = stock codes starting with a digit, non-cancelled lines)",
          "extra_columns", names=[top[0][0]], first=top[0][0], numbers=[round(float(top[0][1]), 2)],
          note="max UnitPrice by description among merchandise lines"),
        T("and whats the plain average unit price across merchandise lines in 2011? non-cancelled, zero-price lines left out",
          "extra_columns",
          numbers=[round(float(db.one(f"select avg(UnitPrice)::double from v where {m} and UnitPrice > 0 and year(InvoiceDate)=2011")), 2)],
          note="AVG(UnitPrice) over non-cancelled 2011 lines with a digit-led StockCode and UnitPrice > 0"),
        T("How many different merchandise stock codes were ever sold at a unit price above £100?", "extra_columns",
          numbers=[int(db.one(f"select count(distinct StockCode) from v where {m} and UnitPrice>100"))],
          note="distinct StockCode starting with a digit with a non-cancelled line UnitPrice > 100"),
    ]


def chat13(db):
    n = int(db.one("select count(distinct prod) from v where prod like '%DOORMAT%'"))
    top = db.ranking("select prod, sum(amt) from v where prod like '%DOORMAT%' group by 1", 1)
    rs = int(db.one("select count(distinct prod) from v where prod like '%RETROSPOT%'"))
    return [
        T("how many diffrent doormats do we sell? (distinct descriptions with DOORMAT in them)", "extra_columns",
          numbers=[n], note="distinct trimmed Description containing DOORMAT"),
        T("which one brought in the most revenue, net?", "follow_up", names=[top[0][0]], first=top[0][0],
          numbers=[round(float(top[0][1]), 2)], note="revenue by doormat description, all dates"),
        T("And how many distinct products have RETROSPOT in the description?", "extra_columns", numbers=[rs],
          note="distinct trimmed Description containing RETROSPOT"),
    ]


def chat14(db):
    dec = db.rev("strftime(InvoiceDate,'%Y-%m')='2011-12'")
    c3 = db.customers("InvoiceDate >= '2011-10-01'")
    lapsed = int(db.one("""select count(*) from (select CustomerID, max(InvoiceDate) m from v
                           where CustomerID is not null and not canc group by 1 having m < '2011-07-01')"""))
    return [
        T("What's revenue for the latest month in the data? net of cancellations", "negation_recency",
          names=["December 2011"], numbers=[dec], note="Dec 2011 = 2011-12-01..2011-12-09 (partial month)"),
        T("what will the full month of December end up at?", "unanswerable", decline=True,
          note="the data stops on 2011-12-09; a forecast is not in the data"),
        T("how many distinct customers ordered in the last 3 months of data - so Oct 1 to Dec 9 2011?",
          "negation_recency", numbers=[c3], note="distinct CustomerID on non-cancelled lines from 2011-10-01"),
        T("How many customers haven't ordered since the end of June 2011? i.e. their last order was before July 1 2011",
          "negation_recency", numbers=[lapsed], note="customers whose latest non-cancelled invoice is before 2011-07-01"),
    ]


def chat15(db):
    never = "select CustomerID from v where CustomerID is not null group by 1 having bool_or(not canc) and not bool_or(canc)"
    n = int(db.one(f"select count(*) from ({never})"))
    ever = int(db.one("select count(distinct CustomerID) from v where canc"))
    top = db.ranking(f"select CustomerID, sum(amt) from v where CustomerID in ({never}) group by 1", 1)
    return [
        T("How many customers have never cancelled anything? (at least one normal order, no C invoices at all)",
          "negation_recency", numbers=[n], note="CustomerIDs with non-cancelled lines and no cancellation lines"),
        T("and how many cancelled at least once?", "follow_up", numbers=[ever],
          note="distinct CustomerID on C-invoices (includes 33 IDs that only have cancellations)"),
        T("Of the ones who never cancelled, who spent the most?", "negation_recency", names=[top[0][0]],
          first=top[0][0], numbers=[round(float(top[0][1]), 2)], note="revenue by CustomerID among never-cancellers"),
        T("what was the never-cancelled number you gave me earlier?", "conversation", numbers=[n],
          note="the count from turn 1"),
    ]


def chat16(db):
    bot = db.ranking("select Country, sum(amt) from v group by 1", 3, desc=False)
    names = [r[0] for r in bot]
    return [
        T("which 3 countries have the smallest revenue, net of cancellations, over the whole period?", "in_schema",
          names=names, first=names[0], numbers=[round(float(r[1]), 2) for r in bot],
          note="revenue by Country ascending"),
        T("how many customers does the bottom one have", "follow_up", names=[names[0]],
          numbers=[db.customers("Country=?", [names[0]])], note=f"distinct customers of {names[0]}"),
    ]


def chat17(db):
    top = db.ranking("select cast(InvoiceDate as date), sum(amt) from v group by 1", 1)
    d = top[0][0]
    return [
        T("Which single day had the highest revenue? net of cancellations", "in_schema", names=[nice_date(d)],
          first=nice_date(d), numbers=[round(float(top[0][1]), 2)], note=f"revenue by calendar day: {d}"),
        T("sorry what was the date again?", "conversation", names=[nice_date(d)], note=f"the day from turn 1 ({d})"),
    ]


def chat18(db):
    y = "year(InvoiceDate)=2011"
    q4 = share(db.rev(y + " and quarter(InvoiceDate)=4"), db.rev(y))
    sep = db.rev("strftime(InvoiceDate,'%Y-%m')='2011-09'")
    oct_ = db.rev("strftime(InvoiceDate,'%Y-%m')='2011-10'")
    return [
        T("What share of 2011 revenue came from Q4? net of cancellations", "in_schema", numbers=[q4],
          note="Q4 2011 (to Dec 9) revenue / 2011 revenue * 100"),
        T("And month-over-month, how much did revenue grow from Sept 2011 to Oct 2011, in %?", "in_schema",
          numbers=[pct(oct_, sep)], note=f"({oct_} - {sep}) / {sep} * 100"),
        T("what was the Q4 share figure you gave me?", "conversation", numbers=[q4], note="the share from turn 1"),
    ]


def chat19(db):
    names = [r[0] for r in db.all("select distinct prod from v where StockCode='22423' and not canc and Quantity>0")]
    check(names == ["REGENCY CAKESTAND 3 TIER"], f"22423 names {names}")
    p = names[0]
    w, prm = db.product(p)
    check(db.rev(w, prm) == db.rev("StockCode='22423'"), "22423 revenue by code == by description")
    top = db.ranking(f"select Country, sum(amt) from v where {w} and Country<>'United Kingdom' group by 1", 3, prm)
    return [
        T("what product is stock code 22423?", "in_schema", names=[p], note="description of the sold lines of 22423"),
        T("how much did it bring in in 2011 vs 2010? net", "follow_up",
          numbers=[db.rev(w + " and year(InvoiceDate)=2011", prm), db.rev(w + " and year(InvoiceDate)=2010", prm)],
          note="revenue of the product in 2011 and in 2010 (Dec 2010 only)"),
        T("top 3 countries for it apart from the UK?", "negation_recency", names=[r[0] for r in top], first=top[0][0],
          numbers=[round(float(r[1]), 2) for r in top], note="revenue of the product by Country, UK excluded"),
    ]


def chat20(db):
    cands = [r[0] for r in db.all("select distinct prod from v where prod like '%CAKESTAND%3 TIER%' order by 1")]
    check(len(cands) == 3, f"cakestands {cands}")
    p = "SWEETHEART CAKESTAND 3 TIER"
    w, prm = db.product(p)
    q1 = "how many of the 3 tier cakestand did we sell in 2011? non-cancelled units"
    return [
        T(q1, "in_schema", clarify=True, names=cands,
          note="3 products are 3-tier cakestands (REGENCY, SWEETHEART, LOVEHEART); ask which"),
        T("the sweetheart one", "follow_up", names=[p], numbers=[db.units(w + " and year(InvoiceDate)=2011", prm)],
          note="SUM(Quantity) on non-cancelled 2011 lines of the product"),
        T("whats the question I originally asked?", "conversation", names=[q1], note="the text of turn 1"),
    ]


def chat21(db):
    p = "RABBIT NIGHT LIGHT"
    w, prm = db.product(p)
    return [
        T("What's our gross margin on the RABBIT NIGHT LIGHT?", "unanswerable", decline=True,
          note="no cost data; margin cannot be computed"),
        T("ok fine. how much revenue has it made then, net of cancellations, all time?", "in_schema",
          numbers=[db.rev(w, prm)], note="revenue of the description (the stock code's adjustment lines have other descriptions)"),
    ]


def chat22(db):
    nov = "strftime(InvoiceDate,'%Y-%m')='2011-11'"
    return [
        T("how many website visits did we get in nov 2011?", "unanswerable", decline=True,
          note="no web traffic data"),
        T("ok then how many orders did we get in November 2011?", "in_schema", numbers=[db.orders(nov)],
          note="distinct non-cancelled invoices in Nov 2011"),
        T("What share of Nov 2011 revenue came from outside the UK? net of cancellations", "negation_recency",
          numbers=[share(db.rev(nov + " and Country<>'United Kingdom'"), db.rev(nov))],
          note="non-UK revenue / all revenue in Nov 2011 * 100"),
    ]


def chat23(db):
    n_other = int(db.one("select count(distinct Country) from v where Country<>'United Kingdom'"))
    return [
        T("how many customers do we have in France?", "in_schema", numbers=[db.customers("Country='France'")],
          note="distinct CustomerID on non-cancelled French lines"),
        T("and spain?", "follow_up", numbers=[db.customers("Country='Spain'")], note="same for Spain"),
        T("How many countries besides the UK show up in the data? count Unspecified and European Community as they are",
          "negation_recency", numbers=[n_other], note="distinct Country values other than United Kingdom"),
        T("which country did I ask about first?", "conversation", names=["France"], note="turn 1"),
    ]


def chat24(db):
    only = int(db.one("""select count(*) from (select CustomerID from v where CustomerID is not null group by 1
                         having not bool_or(not canc))"""))
    return [
        T("What were the main reasons customers gave for cancelling in 2011?", "unanswerable", decline=True,
          note="no cancellation reasons in the data"),
        T("Fair enough. How many customer IDs only ever show up on cancelled invoices, never on a normal order?",
          "extra_columns", numbers=[only], note="CustomerIDs whose lines are all C-invoices"),
    ]


def chat25(db):
    excl = ["PAPER CRAFT , LITTLE BIRDIE", "MEDIUM CERAMIC TOP STORAGE JAR"]
    w = "year(InvoiceDate)=2011 and prod not in (?, ?)"
    top = db.ranking(f"select prod, sum(Quantity) from v where not canc and {w} group by 1", 3, excl)
    for name, _ in top:
        db.units("prod=? and year(InvoiceDate)=2011", [name])   # asserts no negative adjustment lines
    first = top[0][0]
    return [
        T("Top 3 products by units sold in 2011 (non-cancelled)? Leave out PAPER CRAFT , LITTLE BIRDIE and "
          "MEDIUM CERAMIC TOP STORAGE JAR - those were one-off bulk orders that got cancelled.", "negation_recency",
          names=[r[0] for r in top], first=first, numbers=[int(r[1]) for r in top],
          note="SUM(Quantity) by description on non-cancelled 2011 lines, the two named products excluded"),
        T("how many customers bought the top one that year?", "follow_up", names=[first],
          numbers=[db.customers("prod=? and year(InvoiceDate)=2011", [first])],
          note="distinct CustomerID on non-cancelled 2011 lines of the product"),
    ]


CHATS = [chat01, chat02, chat03, chat04, chat05, chat06, chat07, chat08, chat09, chat10, chat11, chat12, chat13,
         chat14, chat15, chat16, chat17, chat18, chat19, chat20, chat21, chat22, chat23, chat24, chat25]


def build(db):
    bank = []
    for i, fn in enumerate(CHATS, 1):
        bank.append({"chat": f"or-dev-{i:02d}", "dataset": "online_retail", "turns": fn(db)})
    return bank


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv", nargs="?", default="/work/evaldata/online_retail/online_retail.csv")
    ap.add_argument("--jsonl", help="write the regenerated bank here")
    ap.add_argument("--bank", default=BANK, help="bank to check (default: online_retail_dev.jsonl next to this script)")
    a = ap.parse_args()
    db = DB(a.csv)
    sanity(db)
    bank = build(db)
    cats = {}
    for c in bank:
        print(c["chat"])
        for t in c["turns"]:
            cats[t["category"]] = cats.get(t["category"], 0) + 1
            print(f"  [{t['category']}] {t['q']}\n      -> {json.dumps(t['expect'], ensure_ascii=False)}")
    print(f"{len(bank)} chats, {sum(cats.values())} questions:", cats)
    if a.jsonl:
        with open(a.jsonl, "w", encoding="utf-8") as f:
            for c in bank:
                f.write(json.dumps(c, ensure_ascii=False) + "\n")
        print("wrote", a.jsonl)
    else:
        with open(a.bank, encoding="utf-8") as f:
            stored = [json.loads(line) for line in f if line.strip()]
        if len(stored) != len(bank):
            FAILS.append(f"bank has {len(stored)} chats, expected {len(bank)}")
        for s, b in zip(stored, bank):
            if s != b:
                FAILS.append(f"mismatch in {b['chat']}")
                for i, (st, bt) in enumerate(zip(s.get("turns", []), b["turns"])):
                    if st != bt:
                        print(f"MISMATCH {b['chat']} turn {i+1}:\n  bank:  {st}\n  truth: {bt}")
                if len(s.get("turns", [])) != len(b["turns"]):
                    print(f"MISMATCH {b['chat']}: turn count")
    if FAILS:
        print("FAILED:", len(FAILS), "problem(s)")
        for m in FAILS:
            print("  -", m)
        sys.exit(1)
    print("OK: every truth matches" if not a.jsonl else "OK")


if __name__ == "__main__":
    main()

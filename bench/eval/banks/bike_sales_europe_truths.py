#!/usr/bin/env python3
"""Ground truths for the bike_sales_europe blind question bank.

Computes every expected number / name / first with SQL (duckdb) straight from the
published CSV and asserts that bike_sales_europe_blind.jsonl equals what is computed.

usage:
  python bike_sales_europe_truths.py [--csv PATH] [--bank PATH]      # check (exit 1 on mismatch)
  python bike_sales_europe_truths.py --jsonl OUT                     # (re)generate the bank

Conventions (see README.md):
  revenue = SUM(Revenue); profit = SUM(Profit); cost = SUM(Cost); units = SUM(Order_Quantity)
  the file has no order id: one row = one order line ("order"); AOV = SUM(Revenue)/COUNT(*)
  all 113,036 rows count, including the 1,000 repeated identical rows (data kept as published)
  margin % = SUM(Profit)/SUM(Revenue)*100; share % = part/total*100; growth % = (cur-prev)/prev*100
  months/quarters/years are calendar periods of the Date column (ISO yyyy-mm-dd)
  recency is relative to the latest Date in the file, 2016-07-31:
    last month = July 2016; this year = 2016-01-01..2016-07-31 (same period last year = 2015-01-01..2015-07-31)
    last 3 months = May-Jul 2016; trailing 12 months = 2015-08-01..2016-07-31
  rounding: half-up to 2 decimals; integral results kept as integers
"""
import argparse
import datetime as dt
import json
import os
import sys
from decimal import Decimal, ROUND_HALF_UP

import duckdb

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CSV = "/work/evaldata/bike_sales_europe/Sales.csv"
DEFAULT_BANK = os.path.join(HERE, "bike_sales_europe_blind.jsonl")
DATASET = "bike_sales_europe"
PREFIX = "bse"
EXPECTED_SHA256 = "cc47d81bb805dfd06f2d66732bc472ab6182ff160e9e2db53e210630027a4f07"

con = None


def load(csv):
    global con
    con = duckdb.connect()
    con.execute(
        "CREATE TABLE s AS SELECT * FROM read_csv(?, header=true, delim=',', quote='\"', "
        "columns={'Date':'DATE','Day':'INTEGER','Month':'VARCHAR','Year':'INTEGER',"
        "'Customer_Age':'INTEGER','Age_Group':'VARCHAR','Customer_Gender':'VARCHAR',"
        "'Country':'VARCHAR','State':'VARCHAR','Product_Category':'VARCHAR',"
        "'Sub_Category':'VARCHAR','Product':'VARCHAR','Order_Quantity':'BIGINT',"
        "'Unit_Cost':'BIGINT','Unit_Price':'BIGINT','Profit':'BIGINT','Cost':'BIGINT',"
        "'Revenue':'BIGINT'})",
        [csv],
    )
    n = con.execute("SELECT count(*) FROM s").fetchone()[0]
    assert n == 113036, n


# ---------------------------------------------------------------- helpers
def v(sql):
    """single scalar"""
    r = con.execute(sql).fetchall()
    assert len(r) == 1 and len(r[0]) == 1, (sql, r)
    return r[0][0]


def rows(sql):
    return con.execute(sql).fetchall()


def ranked(sql, k=1):
    """rows of (label, value) ordered by value; asserts no tie at position k (and between any of the top k)."""
    r = rows(sql)
    assert len(r) > k - 1, sql
    vals = [x[1] for x in r]
    for i in range(min(k, len(r) - 1)):
        assert vals[i] != vals[i + 1], ("tie in ranking", sql, r[: k + 1])
    return r


def num(x):
    """round half-up to 2 dp; keep integers as int"""
    d = Decimal(str(x)) if not isinstance(x, Decimal) else x
    q = d.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    if q == q.to_integral_value():
        return int(q)
    return float(q)


def pct(part, whole):
    return num(Decimal(part) / Decimal(whole) * 100)


def growth(cur, prev):
    return num((Decimal(cur) - Decimal(prev)) / Decimal(prev) * 100)


def ratio(a, b):
    return num(Decimal(a) / Decimal(b))


def day_name(d):
    return f"{d.strftime('%B')} {d.day}, {d.year}"


def month_name(ym):
    y, m = ym.split("-")
    return dt.date(int(y), int(m), 1).strftime("%B %Y")


REV = "SUM(Revenue)"
LATEST = None  # filled in build()


# ---------------------------------------------------------------- the bank
def build():
    global LATEST
    LATEST = v("SELECT max(Date) FROM s")
    assert LATEST == dt.date(2016, 7, 31)
    earliest = v("SELECT min(Date) FROM s")
    total_rev = v(f"SELECT {REV} FROM s")
    n_rows = v("SELECT count(*) FROM s")

    # recency windows derived from LATEST
    ly = LATEST.year
    last_m_start = LATEST.replace(day=1)
    prev_m_end = last_m_start - dt.timedelta(days=1)
    prev_m_start = prev_m_end.replace(day=1)
    ytd_start = dt.date(ly, 1, 1)
    ly_start, ly_end = dt.date(ly - 1, 1, 1), dt.date(ly - 1, LATEST.month, LATEST.day)
    m3_start = dt.date(ly, LATEST.month - 2, 1)
    t12_start = dt.date(ly - 1, LATEST.month + 1, 1) if LATEST.month < 12 else dt.date(ly, 1, 1)

    def rev_between(a, b, extra=""):
        return v(f"SELECT {REV} FROM s WHERE Date BETWEEN DATE '{a}' AND DATE '{b}' {extra}")

    def sum_between(col, a, b):
        return v(f"SELECT SUM({col}) FROM s WHERE Date BETWEEN DATE '{a}' AND DATE '{b}'")

    chats = []

    def chat(turns):
        chats.append(turns)

    def T(q, category, note, **kw):
        e = {k: val for k, val in kw.items() if val is not None}
        e["note"] = note
        return {"q": q, "category": category, "expect": e}

    DECL = "data has no column for this"

    # ---- 001 board deck
    q001 = "prepping a board deck — what's total revenue across the whole file?"
    aov = ratio(total_rev, n_rows)
    chat([
        T(q001, "in_schema", "SUM(Revenue) over all rows", numbers=[total_rev]),
        T("how many order lines are in there?", "in_schema",
          "COUNT(*) rows; no order id, one row = one order line", numbers=[n_rows]),
        T("ok and the avg order value?", "in_schema",
          "SUM(Revenue)/COUNT(*) (row = order line)", numbers=[aov]),
        T("sorry, what was the first thing I asked you in this chat?", "conversation",
          "the first question of this chat", names=[q001]),
    ])

    # ---- 002 years
    yr = ranked(f"SELECT Year, {REV} r FROM s GROUP BY 1 ORDER BY r DESC")
    top_y, top_y_rev = yr[0]
    prev_y_rev = v(f"SELECT {REV} FROM s WHERE Year = {top_y - 1}")
    chat([
        T("Which year brought in the most revenue?", "in_schema",
          "SUM(Revenue) by Year, max", first=str(top_y), names=[str(top_y)], numbers=[top_y_rev]),
        T("how much did it grow vs the year before?", "follow_up",
          f"({top_y} rev - {top_y-1} rev)/{top_y-1} rev*100; note {top_y-1} only has Jan-Jul data",
          names=[str(top_y - 1)], numbers=[growth(top_y_rev, prev_y_rev)]),
        T("what date range does the file actually cover?", "in_schema",
          "min(Date)..max(Date)", names=[day_name(earliest), day_name(LATEST)]),
    ])

    # ---- 003 country
    ctry = ranked(f"SELECT Country, {REV} r FROM s GROUP BY 1 ORDER BY r DESC")
    fr = v(f"SELECT {REV} FROM s WHERE Country='France'")
    chat([
        T("rev by country - who's on top?", "extra_columns", "SUM(Revenue) by Country, max",
          first=ctry[0][0], names=[ctry[0][0]], numbers=[ctry[0][1]]),
        T("what about france", "follow_up", "SUM(Revenue) where Country='France'",
          names=["France"], numbers=[fr]),
        T("what was the US figure you gave me a sec ago?", "conversation",
          "the top-country revenue stated in turn 1", names=[ctry[0][0]], numbers=[ctry[0][1]]),
    ])

    # ---- 004 negation
    non_us = v(f"SELECT {REV} FROM s WHERE Country <> 'United States'")
    non_us_nb = v(f"SELECT {REV} FROM s WHERE Country <> 'United States' AND Product_Category <> 'Bikes'")
    chat([
        T("Total revenue outside the United States?", "negation_recency",
          "SUM(Revenue) where Country <> 'United States'", numbers=[non_us]),
        T("and if I also leave out the Bikes category?", "follow_up",
          "SUM(Revenue) where Country <> 'United States' and Product_Category <> 'Bikes'",
          numbers=[non_us_nb]),
    ])

    # ---- 005 last month
    lm = rev_between(last_m_start, LATEST)
    pm = rev_between(prev_m_start, prev_m_end)
    chat([
        T("how did last month do on revenue?", "negation_recency",
          f"last month = month of latest date ({month_name(str(LATEST)[:7])}); SUM(Revenue)",
          names=[last_m_start.strftime("%B")], numbers=[lm]),
        T("vs the month before?", "follow_up",
          f"{month_name(str(prev_m_start)[:7])} SUM(Revenue) and % change from it to last month",
          names=[prev_m_start.strftime("%B")], numbers=[pm, growth(lm, pm)]),
        T("was that drop because of a stockout or bad weather?", "unanswerable",
          "no inventory or weather data in the file", decline=True),
    ])

    # ---- 006 YTD vs same period LY
    ytd = rev_between(ytd_start, LATEST)
    lytd = rev_between(ly_start, ly_end)
    ytd_p = sum_between("Profit", ytd_start, LATEST)
    lytd_p = sum_between("Profit", ly_start, ly_end)
    chat([
        T("this year so far vs same period last yr — revenue?", "negation_recency",
          f"this year = {ytd_start}..{LATEST}; same period last year = {ly_start}..{ly_end}; "
          "SUM(Revenue) both and growth %",
          numbers=[ytd, lytd, growth(ytd, lytd)]),
        T("and profit?", "follow_up", "SUM(Profit) over the same two windows",
          numbers=[ytd_p, lytd_p]),
    ])

    # ---- 007 products
    pr = ranked(f"SELECT Product, {REV} r FROM s GROUP BY 1 ORDER BY r DESC", 5)
    pu = ranked("SELECT Product, SUM(Order_Quantity) u FROM s GROUP BY 1 ORDER BY u DESC", 5)
    pl = ranked(f"SELECT Product, {REV} r FROM s GROUP BY 1 ORDER BY r ASC")
    chat([
        T("top 5 products by revenue", "in_schema", "SUM(Revenue) by Product, top 5",
          first=pr[0][0], names=[x[0] for x in pr[:5]], numbers=[pr[0][1]]),
        T("same but by units", "follow_up", "SUM(Order_Quantity) by Product, top 5",
          first=pu[0][0], names=[x[0] for x in pu[:5]], numbers=[pu[0][1]]),
        T("which product made the least revenue?", "in_schema", "SUM(Revenue) by Product, min",
          first=pl[0][0], names=[pl[0][0]], numbers=[pl[0][1]]),
        T("what was #1 on that first list again?", "conversation",
          "the #1 product from the answer to turn 1", names=[pr[0][0]]),
    ])

    # ---- 008 age group
    ag = ranked(f"SELECT Age_Group, {REV} r FROM s GROUP BY 1 ORDER BY r DESC")
    chat([
        T("hey which age group brings in the most $$", "extra_columns",
          "SUM(Revenue) by Age_Group, max", first=ag[0][0], names=[ag[0][0]], numbers=[ag[0][1]]),
        T("what % of total is that", "follow_up", "that group's SUM(Revenue)/SUM(Revenue) all rows*100",
          numbers=[pct(ag[0][1], total_rev)]),
    ])

    # ---- 009 Priya / UK
    q009 = "Hi, I'm Priya and I look after the UK accounts. What was UK revenue in 2015?"
    uk15 = v(f"SELECT {REV} FROM s WHERE Country='United Kingdom' AND Year=2015")
    uk13 = v(f"SELECT {REV} FROM s WHERE Country='United Kingdom' AND Year=2013")
    chat([
        T(q009, "extra_columns", "SUM(Revenue) where Country='United Kingdom' and Year=2015",
          names=["United Kingdom"], numbers=[uk15]),
        T("how does that compare with 2013?", "follow_up",
          "UK 2013 SUM(Revenue) and growth % 2013->2015", numbers=[uk13, growth(uk15, uk13)]),
        T("which market did I say I look after?", "conversation",
          "user stated it in turn 1", names=["United Kingdom"]),
        T("and whats my name lol", "conversation", "user stated it in turn 1", names=["Priya"]),
    ])

    # ---- 010 returns
    bu15 = v("SELECT SUM(Order_Quantity) FROM s WHERE Product_Category='Bikes' AND Year=2015")
    chat([
        T("how many bikes got returned in 2015?", "unanswerable",
          "no returns/refund column in the file", decline=True),
        T("ok, how many bike units did we sell in 2015 then?", "extra_columns",
          "SUM(Order_Quantity) where Product_Category='Bikes' and Year=2015", numbers=[bu15]),
    ])

    # ---- 011 months
    mb = ranked(f"SELECT strftime(Date,'%Y-%m') m, {REV} r FROM s GROUP BY 1 ORDER BY r DESC")
    mw = ranked(f"SELECT strftime(Date,'%Y-%m') m, {REV} r FROM s GROUP BY 1 ORDER BY r ASC")
    chat([
        T("best single month ever for revenue?", "in_schema", "SUM(Revenue) by calendar year-month, max",
          first=month_name(mb[0][0]), names=[month_name(mb[0][0])], numbers=[mb[0][1]]),
        T("which month was the weakest?", "in_schema", "SUM(Revenue) by calendar year-month, min",
          first=month_name(mw[0][0]), names=[month_name(mw[0][0])], numbers=[mw[0][1]]),
        T("remind me which month you said was the best?", "conversation",
          "the month given in turn 1", names=[month_name(mb[0][0])]),
    ])

    # ---- 012 days
    dd = ranked(f"SELECT Date, {REV} r FROM s GROUP BY 1 ORDER BY r DESC")
    d_lines = v(f"SELECT count(*) FROM s WHERE Date = DATE '{dd[0][0]}'")
    chat([
        T("biggest single day by revenue?", "in_schema", "SUM(Revenue) by Date, max",
          first=day_name(dd[0][0]), names=[day_name(dd[0][0])], numbers=[dd[0][1]]),
        T("how many lines were on that day", "follow_up", "COUNT(*) rows on that date",
          numbers=[d_lines]),
    ])

    # ---- 013 quarters
    qq = ranked(f"SELECT year(Date)*10+quarter(Date) q, {REV} r FROM s GROUP BY 1 ORDER BY r DESC")
    qk = qq[0][0]
    qy, qn = divmod(qk, 10)
    py, pn = (qy, qn - 1) if qn > 1 else (qy - 1, 4)
    q_prev = v(f"SELECT {REV} FROM s WHERE year(Date)={py} AND quarter(Date)={pn}")
    chat([
        T("Quarterly revenue — which quarter was strongest?", "in_schema",
          "SUM(Revenue) by calendar quarter, max", first=f"Q{qn} {qy}", names=[f"Q{qn} {qy}"],
          numbers=[qq[0][1]]),
        T("QoQ growth going into it?", "follow_up",
          f"growth % from Q{pn} {py} to Q{qn} {qy}", numbers=[q_prev, growth(qq[0][1], q_prev)]),
    ])

    # ---- 014 gender
    gF = v(f"SELECT {REV} FROM s WHERE Customer_Gender='F'")
    gM = v(f"SELECT {REV} FROM s WHERE Customer_Gender='M'")
    aF = ratio(v("SELECT SUM(Customer_Age) FROM s WHERE Customer_Gender='F'"),
               v("SELECT count(*) FROM s WHERE Customer_Gender='F'"))
    aM = ratio(v("SELECT SUM(Customer_Age) FROM s WHERE Customer_Gender='M'"),
               v("SELECT count(*) FROM s WHERE Customer_Gender='M'"))
    chat([
        T("split rev by gender pls", "extra_columns",
          "SUM(Revenue) by Customer_Gender: F first, M second", numbers=[gF, gM]),
        T("avg customer age, women vs men?", "extra_columns",
          "AVG(Customer_Age) over rows by Customer_Gender: F, M", numbers=[aF, aM]),
    ])

    # ---- 015 margins
    cm = rows("SELECT Product_Category, SUM(Profit), SUM(Revenue) FROM s GROUP BY 1")
    cm = sorted(((c, Decimal(p) / Decimal(r)) for c, p, r in cm), key=lambda x: -x[1])
    assert cm[0][1] != cm[1][1]
    sm = rows("SELECT Sub_Category, SUM(Profit), SUM(Revenue) FROM s GROUP BY 1")
    sm = sorted(((c, Decimal(p) / Decimal(r)) for c, p, r in sm), key=lambda x: x[1])
    assert num(sm[0][1] * 100) != num(sm[1][1] * 100)
    chat([
        T("Which product category has the best profit margin?", "extra_columns",
          "SUM(Profit)/SUM(Revenue)*100 by Product_Category, max",
          first=cm[0][0], names=[cm[0][0]], numbers=[num(cm[0][1] * 100)]),
        T("and which sub-category has the thinnest margin?", "extra_columns",
          "SUM(Profit)/SUM(Revenue)*100 by Sub_Category, min",
          first=sm[0][0], names=[sm[0][0]], numbers=[num(sm[0][1] * 100)]),
    ])

    # ---- 016 states
    st = ranked(f"SELECT State, {REV} r FROM s WHERE Country <> 'United States' GROUP BY 1 ORDER BY r DESC")
    au = ranked(f"SELECT State, {REV} r FROM s WHERE Country='Australia' GROUP BY 1 ORDER BY r DESC", 3)
    ca = ranked(f"SELECT State, {REV} r FROM s WHERE Country='Canada' GROUP BY 1 ORDER BY r DESC", 3)
    chat([
        T("top state by revenue outside the US?", "negation_recency",
          "SUM(Revenue) by State where Country <> 'United States', max",
          first=st[0][0], names=[st[0][0]], numbers=[st[0][1]]),
        T("top 3 states in Australia by rev", "extra_columns",
          "SUM(Revenue) by State where Country='Australia', top 3",
          first=au[0][0], names=[x[0] for x in au[:3]]),
        T("what about in canada", "follow_up", "SUM(Revenue) by State where Country='Canada', top 3",
          first=ca[0][0], names=[x[0] for x in ca[:3]], numbers=[ca[0][1]]),
    ])

    # ---- 017 cost / profit 2015
    c15 = v("SELECT SUM(Cost) FROM s WHERE Year=2015")
    p15 = v("SELECT SUM(Profit) FROM s WHERE Year=2015")
    r15 = v(f"SELECT {REV} FROM s WHERE Year=2015")
    chat([
        T("whats total cost of goods for 2015?", "extra_columns", "SUM(Cost) where Year=2015",
          numbers=[c15]),
        T("gross profit 2015?", "extra_columns", "SUM(Profit) where Year=2015", numbers=[p15]),
        T("profit margin for 2015?", "extra_columns",
          "SUM(Profit)/SUM(Revenue)*100 where Year=2015", numbers=[pct(p15, r15)]),
    ])

    # ---- 018 MoM June 2016
    jun = rev_between(dt.date(2016, 6, 1), dt.date(2016, 6, 30))
    may = rev_between(dt.date(2016, 5, 1), dt.date(2016, 5, 31))
    jun_u = sum_between("Order_Quantity", dt.date(2016, 6, 1), dt.date(2016, 6, 30))
    chat([
        T("MoM revenue growth for June 2016?", "in_schema",
          "(June 2016 SUM(Revenue) - May 2016)/May 2016*100", numbers=[growth(jun, may)]),
        T("how many units did we move in June 2016?", "in_schema",
          "SUM(Order_Quantity) in June 2016", numbers=[jun_u]),
        T("was there a marketing campaign in june that explains it?", "unanswerable",
          "no marketing/campaign data in the file", decline=True),
    ])

    # ---- 019 trailing windows
    t12 = rev_between(t12_start, LATEST)
    c3 = ranked(f"SELECT Country, {REV} r FROM s WHERE Date BETWEEN DATE '{m3_start}' AND DATE '{LATEST}' "
                "GROUP BY 1 ORDER BY r DESC")
    chat([
        T("rev for the trailing 12 months?", "negation_recency",
          f"trailing 12 months = {t12_start}..{LATEST} (12 calendar months ending with the latest month); SUM(Revenue)",
          numbers=[t12]),
        T("last 3 months — which country led on revenue?", "negation_recency",
          f"last 3 months = {m3_start}..{LATEST}; SUM(Revenue) by Country, max",
          first=c3[0][0], names=[c3[0][0]]),
        T("what was its number?", "follow_up", "that country's SUM(Revenue) in the same window",
          numbers=[c3[0][1]]),
    ])

    # ---- 020 counts + conversation
    q020 = "how many distinct products are in the file?"
    n_prod = v("SELECT count(DISTINCT Product) FROM s")
    n_sub = v("SELECT count(DISTINCT Sub_Category) FROM s")
    countries = [r[0] for r in rows("SELECT DISTINCT Country FROM s ORDER BY 1")]
    chat([
        T(q020, "in_schema", "COUNT(DISTINCT Product)", numbers=[n_prod]),
        T("how many sub-categories are there?", "extra_columns", "COUNT(DISTINCT Sub_Category)",
          numbers=[n_sub]),
        T("which countries does it cover?", "extra_columns", "DISTINCT Country", names=countries),
        T("what was the first question in this chat?", "conversation",
          "the first question of this chat", names=[q020]),
        T("and what number did you give me for products?", "conversation",
          "the figure answered in turn 1", numbers=[n_prod]),
    ])

    # ---- 021 negations
    not_adult = v(f"SELECT {REV} FROM s WHERE Age_Group <> 'Adults (35-64)'")
    ex1112 = v(f"SELECT {REV} FROM s WHERE Year NOT IN (2011, 2012)")
    chat([
        T("Revenue from customers who are NOT in the Adults (35-64) group?", "negation_recency",
          "SUM(Revenue) where Age_Group <> 'Adults (35-64)'", numbers=[not_adult]),
        T("total revenu excluding 2011 and 2012?", "negation_recency",
          "SUM(Revenue) where Year not in (2011, 2012)", numbers=[ex1112]),
        T("how many staff work in the stores?", "unanswerable",
          "no staff/store data in the file", decline=True),
    ])

    # ---- 022 clarify + unanswerable + share
    seine = [r[0] for r in rows("SELECT DISTINCT State FROM s WHERE State ILIKE '%seine%' ORDER BY 1")]
    assert len(seine) > 1
    r16 = v(f"SELECT {REV} FROM s WHERE Year=2016")
    chat([
        T("how much did Seine make?", "extra_columns",
          "ambiguous: several French State values contain 'Seine'; ask which (or give each)",
          names=seine, clarify=True),
        T("how many unique customers did we have in 2015?", "unanswerable",
          "no customer id in the file (only age/gender/location per row)", decline=True),
        T("what share of all-time revenue came from 2016?", "in_schema",
          "SUM(Revenue) Year=2016 / SUM(Revenue) all rows *100", numbers=[pct(r16, total_rev)]),
    ])

    out = []
    for i, turns in enumerate(chats, 1):
        out.append({"chat": f"{PREFIX}-{i:03d}", "dataset": DATASET, "turns": turns})
    return out


def canonical(bank):
    return [json.dumps(c, ensure_ascii=False, sort_keys=False) for c in bank]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", default=DEFAULT_CSV)
    ap.add_argument("--bank", default=DEFAULT_BANK)
    ap.add_argument("--jsonl", help="write the computed bank here and exit")
    a = ap.parse_args()

    import hashlib
    with open(a.csv, "rb") as f:
        h = hashlib.sha256(f.read()).hexdigest()
    if h != EXPECTED_SHA256:
        print(f"WARNING: CSV sha256 {h} != expected {EXPECTED_SHA256}", file=sys.stderr)

    load(a.csv)
    bank = build()
    lines = canonical(bank)

    if a.jsonl:
        with open(a.jsonl, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        print(f"wrote {len(bank)} chats, {sum(len(c['turns']) for c in bank)} turns to {a.jsonl}")
        return 0

    with open(a.bank, encoding="utf-8") as f:
        have = [json.loads(x) for x in f if x.strip()]
    ok = True
    if len(have) != len(bank):
        print(f"chat count differs: bank {len(have)} vs computed {len(bank)}")
        ok = False
    for want, got in zip(bank, have):
        if want != got:
            ok = False
            print(f"MISMATCH in {want['chat']}:")
            for i, (tw, tg) in enumerate(zip(want["turns"], got.get("turns", []))):
                if tw != tg:
                    print(f"  turn {i+1}: computed {json.dumps(tw, ensure_ascii=False)}")
                    print(f"           bank     {json.dumps(tg, ensure_ascii=False)}")
            if len(want["turns"]) != len(got.get("turns", [])):
                print("  turn count differs")
    cats = {}
    for c in bank:
        for t in c["turns"]:
            cats[t["category"]] = cats.get(t["category"], 0) + 1
    print(f"{len(bank)} chats, {sum(cats.values())} turns; categories: {cats}")
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

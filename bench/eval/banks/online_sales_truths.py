#!/usr/bin/env python3
"""Truths for the blind bank online_sales_blind.jsonl.

Data: Kaggle "Online Sales Data" (shreyanshverma27), original file
"Online Sales Data.csv", installed at /work/evaldata/online_sales/online_sales_data.csv.

Every number and name in the bank is recomputed here with SQL (duckdb).
Default: assert the bank file equals what this script generates.
  --jsonl OUT   write the bank to OUT instead.
  --csv PATH    use another copy of the CSV (sha256 is still checked).
  --bank PATH   bank to check (default: online_sales_blind.jsonl next to this script).

Conventions (see README_section.md):
  revenue      = SUM("Total Revenue")  (equals Units Sold * Unit Price on every row)
  transactions = orders = rows (= distinct "Transaction ID"; one row per transaction)
  units        = SUM("Units Sold")
  AOV          = revenue / transactions
  periods use the "Date" column (ISO YYYY-MM-DD); quarters are calendar quarters
  recency is anchored on the file's latest Date (2024-08-27), never on today:
    "last N days" = the N calendar days ending on and including 2024-08-27
    "latest month" = August 2024 (partial: Aug 1-27), "this year" = 2024
  products are grouped by the exact "Product Name" string
  money / ratios rounded to 2 decimals, percents as 12.34 meaning 12.34 %
"""
import argparse
import hashlib
import json
import os
import sys
from datetime import date, timedelta

import duckdb

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CSV = "/work/evaldata/online_sales/online_sales_data.csv"
DEFAULT_BANK = os.path.join(HERE, "online_sales_blind.jsonl")
SHA256 = "65b377759201b74ce0d2c3e36021c6500eacf35625d96d549a4e95cc860d072c"
DATASET = "online_sales"
PREFIX = "ons6"


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        h.update(f.read())
    return h.hexdigest()


class Data:
    def __init__(self, path):
        self.con = duckdb.connect()
        self.con.execute(
            """
            CREATE TABLE t AS SELECT
              "Transaction ID" AS id, CAST("Date" AS DATE) AS d,
              "Product Category" AS cat, "Product Name" AS prod,
              CAST("Units Sold" AS BIGINT) AS u, CAST("Unit Price" AS DOUBLE) AS p,
              CAST("Total Revenue" AS DOUBLE) AS r, "Region" AS reg,
              "Payment Method" AS pay
            FROM read_csv(?, header=true, delim=',', quote='"',
                          dateformat='%Y-%m-%d', encoding='utf-8')
            """,
            [path],
        )
        n, nid, bad = self.con.execute(
            "SELECT count(*), count(DISTINCT id), "
            "count(*) FILTER (WHERE abs(u*p - r) > 0.005) FROM t").fetchone()
        assert n == 240 and nid == 240 and bad == 0, (n, nid, bad)

    def one(self, sql, *params):
        row = self.con.execute(sql, list(params)).fetchone()
        return row[0] if len(row) == 1 else row

    def rows(self, sql, *params):
        return self.con.execute(sql, list(params)).fetchall()

    def ranked(self, sql, k, *params):
        """Rows ordered by the 2nd column; assert no tie at the cut k (and at the top)."""
        rs = self.rows(sql, *params)
        assert len(rs) >= k
        if len(rs) > k:
            assert round(rs[k - 1][1], 6) != round(rs[k][1], 6), ("tie at cut", sql, rs[:k + 1])
        if len(rs) > 1:
            assert round(rs[0][1], 6) != round(rs[1][1], 6), ("tie at top", sql, rs[:2])
        return rs[:k]


def m2(x):
    return round(float(x) + 0.0, 2)


def pct(a, b):
    return round(100.0 * float(a) / float(b), 2)


def growth(new, old):
    return round(100.0 * (float(new) - float(old)) / float(old), 2)


def dname(d):
    return f"{d.strftime('%B')} {d.day}, {d.year}"


def mname(ym):  # 'YYYY-MM'
    return date(int(ym[:4]), int(ym[5:]), 1).strftime("%B %Y")


def T(q, category, **expect):
    e = {}
    for key in ("numbers", "names", "first", "decline", "clarify", "note"):
        if key in expect:
            e[key] = expect[key]
    return {"q": q, "category": category, "expect": e}


def build(D):
    REV = "round(sum(r), 2)"
    total = D.one(f"SELECT {REV} FROM t")
    ntx = D.one("SELECT count(*) FROM t")
    units = D.one("SELECT sum(u) FROM t")
    maxd = D.one("SELECT max(d) FROM t")
    mind = D.one("SELECT min(d) FROM t")
    assert (mind, maxd) == (date(2024, 1, 1), date(2024, 8, 27))

    def rev_where(where, *p):
        return m2(D.one(f"SELECT coalesce(sum(r),0) FROM t WHERE {where}", *p))

    def cnt_where(where, *p):
        return D.one(f"SELECT count(*) FROM t WHERE {where}", *p)

    def units_where(where, *p):
        return int(D.one(f"SELECT coalesce(sum(u),0) FROM t WHERE {where}", *p))

    def qwhere(qn):
        return f"year(d)=2024 AND quarter(d)={qn}"

    chats = []

    # ---- 001: totals, elliptical follow-ups
    aov = m2(total / ntx)
    chats.append([
        T("hey, whats total revenue in the file?", "in_schema",
          numbers=[m2(total)], note="SUM(Total Revenue) over all 240 rows"),
        T("and how many transactions is that across?", "follow_up",
          numbers=[ntx], note="row count = distinct Transaction ID"),
        T("so AOV?", "follow_up",
          numbers=[aov], note="revenue / transactions"),
    ])

    # ---- 002: best / worst month, first question
    months = D.rows("SELECT strftime(d,'%Y-%m') m, sum(r) FROM t GROUP BY 1 ORDER BY 2 DESC")
    assert round(months[0][1], 6) != round(months[1][1], 6)
    assert round(months[-1][1], 6) != round(months[-2][1], 6)
    q002 = "Which month had the highest revenue?"
    chats.append([
        T(q002, "in_schema", numbers=[m2(months[0][1])], names=[mname(months[0][0])],
          first=mname(months[0][0]), note="revenue per calendar month of Date"),
        T("and the weakest?", "follow_up", numbers=[m2(months[-1][1])],
          names=[mname(months[-1][0])],
          note="lowest monthly revenue; August 2024 is partial (to Aug 27) but is NOT the lowest"),
        T("what was the first question I asked you?", "conversation", names=[q002],
          note="exact text of turn 1"),
    ])

    # ---- 003: category breakdown
    cats = D.ranked("SELECT cat, sum(r) FROM t GROUP BY 1 ORDER BY 2 DESC", 6)
    elec = m2(dict(cats)["Electronics"])
    cat_units = D.ranked("SELECT cat, sum(u) FROM t GROUP BY 1 ORDER BY 2 DESC", 1)
    chats.append([
        T("rev by category pls, biggest first", "extra_columns",
          numbers=[m2(v) for _, v in cats], names=[c for c, _ in cats], first=cats[0][0],
          note="SUM(Total Revenue) by Product Category"),
        T("What % of total revenue is Electronics?", "extra_columns",
          numbers=[pct(elec, total)], note="Electronics revenue / total revenue"),
        T("which category moved the most units?", "extra_columns",
          numbers=[int(cat_units[0][1])], names=[cat_units[0][0]], first=cat_units[0][0],
          note="SUM(Units Sold) by category"),
    ])

    # ---- 004: Lena, Home Appliances
    ha_q2 = rev_where(f"cat='Home Appliances' AND {qwhere(2)}")
    ha_q1 = rev_where(f"cat='Home Appliances' AND {qwhere(1)}")
    ha_top = D.ranked("SELECT prod, sum(r) FROM t WHERE cat='Home Appliances' GROUP BY 1 ORDER BY 2 DESC", 1)
    chats.append([
        T("Hi, I'm Lena, I look after the Home Appliances range. How much did Home Appliances bring in during Q2 2024?",
          "extra_columns", numbers=[ha_q2], note="Home Appliances revenue, Apr 1 - Jun 30 2024"),
        T("and in Q1?", "follow_up", numbers=[ha_q1], note="Home Appliances revenue, Jan 1 - Mar 31 2024"),
        T("which category did I say I look after?", "conversation", names=["Home Appliances"],
          note="user stated it in turn 1"),
        T("whats the top product by revenue in my range over the whole file?", "follow_up",
          numbers=[m2(ha_top[0][1])], names=[ha_top[0][0]], first=ha_top[0][0],
          note="Home Appliances, SUM(Total Revenue) by Product Name"),
    ])

    # ---- 005: regions
    regs = D.ranked("SELECT reg, sum(r) FROM t GROUP BY 1 ORDER BY 2 DESC", 3)
    asia_pay = [p for (p,) in D.rows("SELECT DISTINCT pay FROM t WHERE reg='Asia' ORDER BY 1")]
    chats.append([
        T("revenue by region?", "extra_columns", numbers=[m2(v) for _, v in regs],
          names=[g for g, _ in regs], first=regs[0][0], note="SUM(Total Revenue) by Region"),
        T("what about just Asia - which payment methods show up there?", "follow_up",
          names=asia_pay, note="distinct Payment Method where Region = Asia"),
    ])

    # ---- 006: exclusions
    ex_el = rev_where("cat <> 'Electronics'")
    ex_el_ha = rev_where("cat NOT IN ('Electronics','Home Appliances')")
    chats.append([
        T("total revenue excluding electronics?", "negation_recency", numbers=[ex_el],
          note="all rows where Product Category <> Electronics"),
        T("And if I take out both Electronics and Home Appliances?", "negation_recency",
          numbers=[ex_el_ha], note="all rows except those two categories"),
    ])

    # ---- 007: last 30 days
    l30 = maxd - timedelta(days=29)
    w30 = f"d BETWEEN DATE '{l30}' AND DATE '{maxd}'"
    top30 = D.ranked(f"SELECT cat, sum(r) FROM t WHERE {w30} GROUP BY 1 ORDER BY 2 DESC", 1)
    chats.append([
        T("how much revenue did we do in the last 30 days of data?", "negation_recency",
          numbers=[rev_where(w30)], note=f"{l30} .. {maxd} inclusive (30 days ending on the file's last date)"),
        T("how many transactions was that?", "follow_up", numbers=[cnt_where(w30)],
          note="rows in the same window"),
        T("top category in that window?", "follow_up", numbers=[m2(top30[0][1])],
          names=[top30[0][0]], first=top30[0][0], note="category revenue in the same window"),
    ])

    # ---- 008: latest month vs previous
    aug = rev_where("strftime(d,'%Y-%m')='2024-08'")
    jul = rev_where("strftime(d,'%Y-%m')='2024-07'")
    chats.append([
        T("latest month in the data - revenue and number of orders?", "negation_recency",
          numbers=[aug, cnt_where("strftime(d,'%Y-%m')='2024-08'")], names=["August 2024"],
          note="latest month = August 2024 (Aug 1-27, the file ends 2024-08-27)"),
        T("how does that compare with the month before, in %?", "follow_up",
          numbers=[jul, growth(aug, jul)], names=["July 2024"],
          note="(Aug - Jul) / Jul; August is up"),
    ])

    # ---- 009: profit (decline), then electronics
    chats.append([
        T("what's our profit margin on Electronics?", "unanswerable", decline=True,
          note="no cost / COGS / margin column; only revenue"),
        T("ok then just give me total electronics revenue and units", "extra_columns",
          numbers=[elec, units_where("cat='Electronics'")], note="Electronics SUM(Total Revenue), SUM(Units Sold)"),
    ])

    # ---- 010: transaction look-up
    t150 = D.one("SELECT d, prod, u, r FROM t WHERE id=10150")
    chats.append([
        T("what was transaction 10150?", "in_schema", numbers=[m2(t150[3])],
          names=[t150[1], dname(t150[0])], note="row with Transaction ID 10150"),
        T("which transaction id did I ask about just now?", "conversation", numbers=[10150],
          note="from turn 1"),
    ])

    # ---- 011: clarify AirPods
    airpods = [p for (p,) in D.rows("SELECT DISTINCT prod FROM t WHERE prod ILIKE '%airpods%' ORDER BY 1")]
    assert len(airpods) == 2, airpods
    chats.append([
        T("how much did the AirPods bring in?", "in_schema", clarify=True, names=airpods,
          note="two products match 'AirPods'; ask which (or give both separately)"),
        T("the Pro ones", "follow_up",
          numbers=[rev_where("prod='Apple AirPods Pro'"), units_where("prod='Apple AirPods Pro'")],
          names=["Apple AirPods Pro"], note="revenue and units of Apple AirPods Pro"),
    ])

    # ---- 012: single days
    d1 = D.one("SELECT prod, r FROM t WHERE d=DATE '2024-03-26'")
    d2 = D.one("SELECT prod, r FROM t WHERE d=DATE '2024-02-29'")
    chats.append([
        T("what sold on 26 March 2024 and for how much?", "in_schema", numbers=[m2(d1[1])],
          names=[d1[0]], note="the single row dated 2024-03-26"),
        T("what sold on 29 Feb 2024, and for how much?", "in_schema", numbers=[m2(d2[1])], names=[d2[0]],
          note="the single row dated 2024-02-29 (2024 is a leap year)"),
    ])

    # ---- 013: payment methods
    pays = D.ranked("SELECT pay, sum(r) FROM t GROUP BY 1 ORDER BY 2 DESC", 3)
    not_cc = rev_where("pay <> 'Credit Card'")
    pp_aov = m2(D.one("SELECT sum(r)/count(*) FROM t WHERE pay='PayPal'"))
    chats.append([
        T("revenue split by payment method?", "extra_columns", numbers=[m2(v) for _, v in pays],
          names=[p for p, _ in pays], first=pays[0][0], note="SUM(Total Revenue) by Payment Method"),
        T("how much was NOT paid by credit card?", "negation_recency", numbers=[not_cc],
          note="Payment Method <> Credit Card (PayPal + Debit Card)"),
        T("whats the AOV for paypal", "extra_columns", numbers=[pp_aov],
          note="PayPal revenue / PayPal transactions"),
    ])

    # ---- 014: customers (decline), distinct products
    chats.append([
        T("how many unique customers do we have?", "unanswerable", decline=True,
          note="no customer id / name column"),
        T("fine - how many distinct products are in the file then?", "in_schema",
          numbers=[D.one("SELECT count(DISTINCT prod) FROM t")],
          note="distinct Product Name strings as written"),
    ])

    # ---- 015: Q2 vs Q1
    q1r, q2r = rev_where(qwhere(1)), rev_where(qwhere(2))
    q1u, q2u = units_where(qwhere(1)), units_where(qwhere(2))
    chats.append([
        T("Q2 vs Q1 2024 revenue growth?", "in_schema", numbers=[q1r, q2r, growth(q2r, q1r)],
          note="calendar quarters of Date; growth = (Q2-Q1)/Q1, a decline (-25.94 may be stated as down 25.94 %)"),
        T("what about units?", "follow_up", numbers=[q1u, q2u, growth(q2u, q1u)],
          note="SUM(Units Sold) per quarter and growth (a decline; may be stated as down 18.06 %)"),
    ])

    # ---- 016: top / bottom products
    top3 = D.ranked("SELECT prod, sum(r) FROM t GROUP BY 1 ORDER BY 2 DESC", 3)
    bot3 = D.ranked("SELECT prod, sum(r) FROM t GROUP BY 1 ORDER BY 2 ASC", 3)
    chats.append([
        T("top 3 products by revenue", "in_schema", numbers=[m2(v) for _, v in top3],
          names=[p for p, _ in top3], first=top3[0][0], note="SUM(Total Revenue) by Product Name"),
        T("bottom 3?", "follow_up", numbers=[m2(v) for _, v in bot3],
          names=[p for p, _ in bot3], first=bot3[0][0], note="lowest SUM(Total Revenue) by Product Name"),
    ])

    # ---- 017: months, recall a figure
    jun = rev_where("strftime(d,'%Y-%m')='2024-06'")
    mar = rev_where("strftime(d,'%Y-%m')='2024-03'")
    chats.append([
        T("Revenue for June 2024?", "in_schema", numbers=[jun], note="2024-06-01 .. 2024-06-30"),
        T("and march 2024 too pls", "in_schema", numbers=[mar], note="2024-03-01 .. 2024-03-31"),
        T("what number did you give me for June?", "conversation", numbers=[jun],
          note="figure from turn 1"),
    ])

    # ---- 018: Sports in Europe (none), categories absent from Europe
    sp_eu = rev_where("cat='Sports' AND reg='Europe'")
    assert sp_eu == 0
    no_eu = [c for (c,) in D.rows(
        "SELECT DISTINCT cat FROM t EXCEPT SELECT DISTINCT cat FROM t WHERE reg='Europe' ORDER BY 1")]
    chats.append([
        T("how much Sports revenue came from Europe?", "extra_columns", numbers=[0],
          note="no Sports rows in Europe (Sports sells only in Asia): 0 / none"),
        T("which categories had no sales at all in Europe?", "negation_recency", names=no_eu,
          note="categories minus those with a Europe row"),
        T("Which region did I ask about first?", "conversation", names=["Europe"],
          note="turn 1 asked about Europe"),
    ])

    # ---- 019: biggest single transactions
    bu = D.ranked("SELECT prod, u, d FROM t ORDER BY u DESC", 1)[0]
    br = D.ranked("SELECT prod, r, d FROM t ORDER BY r DESC", 1)[0]
    chats.append([
        T("biggest single transaction by units?", "in_schema", numbers=[int(bu[1])],
          names=[bu[0], dname(bu[2])], first=bu[0], note="max Units Sold on one row"),
        T("Which single transaction had the highest revenue?", "in_schema", numbers=[m2(br[1])],
          names=[br[0], dname(br[2])], first=br[0], note="max Total Revenue on one row"),
    ])

    # ---- 020: forecast (decline), last 7 days
    l7 = maxd - timedelta(days=6)
    w7 = f"d BETWEEN DATE '{l7}' AND DATE '{maxd}'"
    chats.append([
        T("what will revenue be in september 2024 exactly?", "unanswerable", decline=True,
          note="the file ends 2024-08-27; an exact future figure cannot be known"),
        T("ok, what was revenue over the last 7 days in the data?", "negation_recency",
          numbers=[rev_where(w7)], note=f"{l7} .. {maxd} inclusive"),
    ])

    # ---- 021: Raj, Books
    chats.append([
        T("Hi, Raj here - I run the Books desk. How many Books transactions are in the file?",
          "extra_columns", numbers=[cnt_where("cat='Books'")], note="rows with Product Category = Books"),
        T("avg units per books order?", "extra_columns",
          numbers=[m2(D.one("SELECT avg(u) FROM t WHERE cat='Books'"))],
          note="SUM(Units Sold)/rows for Books"),
        T("remind me, what's my name and which desk do I run?", "conversation",
          names=["Raj", "Books"], note="stated by the user in turn 1"),
    ])

    # ---- 022: weather / marketing (decline), beauty July
    chats.append([
        T("did the weather affect clothing sales in July?", "unanswerable", decline=True,
          note="no weather data in the file"),
        T("whats our marketing spend and ROAS for beauty?", "unanswerable", decline=True,
          note="no marketing / ad spend column"),
        T("ok just give me Beauty Products revenue in July 2024", "extra_columns",
          numbers=[rev_where("cat='Beauty Products' AND strftime(d,'%Y-%m')='2024-07'")],
          note="Beauty Products, 2024-07-01 .. 2024-07-31"),
    ])

    # ---- 023: clarify Keurig
    keurig = [p for (p,) in D.rows("SELECT DISTINCT prod FROM t WHERE prod ILIKE '%keurig%' ORDER BY 1")]
    assert len(keurig) == 2, keurig
    q023 = "How many units of the Keurig did we sell?"
    ke = "prod='Keurig K-Elite Coffee Maker'"
    chats.append([
        T(q023, "in_schema", clarify=True, names=keurig,
          note="two Keurig products; ask which (or give both separately)"),
        T("the K-Elite", "follow_up", numbers=[units_where(ke), rev_where(ke)],
          names=["Keurig K-Elite Coffee Maker"], note="units and revenue of Keurig K-Elite Coffee Maker (2 rows)"),
        T("what was the first question I asked in this chat?", "conversation", names=[q023],
          note="exact text of turn 1"),
    ])

    # ---- 024: AOV by region, recall
    raov = D.ranked("SELECT reg, sum(r)/count(*) FROM t GROUP BY 1 ORDER BY 2 DESC", 3)
    chats.append([
        T("avg order value by region?", "extra_columns", numbers=[m2(v) for _, v in raov],
          names=[g for g, _ in raov], first=raov[0][0], note="revenue / transactions per Region"),
        T("which region did you say was highest?", "conversation", names=[raov[0][0]],
          note="from the answer to turn 1"),
    ])

    # ---- 025: unit-price extremes by category
    bp = D.ranked("SELECT prod, p FROM t WHERE cat='Beauty Products' ORDER BY p DESC", 1)[0]
    cp = D.ranked("SELECT prod, -p FROM t WHERE cat='Clothing' ORDER BY p ASC", 1)[0]
    caov = D.ranked("SELECT cat, sum(r)/count(*) FROM t GROUP BY 1 ORDER BY 2 DESC", 1)[0]
    chats.append([
        T("priciest beauty product by unit price?", "extra_columns", numbers=[m2(bp[1])],
          names=[bp[0]], first=bp[0], note="max Unit Price where category = Beauty Products"),
        T("and the cheapest clothing item by unit price?", "extra_columns", numbers=[m2(-cp[1])],
          names=[cp[0]], first=cp[0], note="min Unit Price where category = Clothing"),
        T("which category has the highest avg revenue per transaction?", "extra_columns",
          numbers=[m2(caov[1])], names=[caov[0]], first=caov[0],
          note="revenue / transactions per category"),
    ])

    # ---- 026: this year, outside Q1
    ytd = rev_where("year(d)=2024")
    outq1 = rev_where("NOT (year(d)=2024 AND quarter(d)=1)")
    chats.append([
        T("how much have we made this year so far?", "negation_recency", numbers=[ytd],
          note="'this year' = 2024, the year of the file's latest date; the whole file"),
        T("how much of that came outside Q1?", "negation_recency", numbers=[outq1],
          note="2024-04-01 .. 2024-08-27"),
    ])

    out = []
    for i, turns in enumerate(chats, 1):
        out.append({"chat": f"{PREFIX}-{i:03d}", "dataset": DATASET, "turns": turns})
    return out


def dumps(chats):
    return "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in chats)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", default=DEFAULT_CSV)
    ap.add_argument("--bank", default=DEFAULT_BANK)
    ap.add_argument("--jsonl", help="write the bank here instead of checking")
    a = ap.parse_args()
    got = sha256(a.csv)
    if got != SHA256:
        sys.exit(f"sha256 mismatch for {a.csv}: {got} != {SHA256}")
    chats = build(Data(a.csv))
    nturns = sum(len(c["turns"]) for c in chats)
    if a.jsonl:
        with open(a.jsonl, "w", encoding="utf-8") as f:
            f.write(dumps(chats))
        print(f"wrote {a.jsonl}: {len(chats)} chats, {nturns} turns")
        return
    with open(a.bank, encoding="utf-8") as f:
        bank = [json.loads(line) for line in f if line.strip()]
    if len(bank) != len(chats):
        sys.exit(f"MISMATCH: bank has {len(bank)} chats, truths {len(chats)}")
    bad = 0
    for b, c in zip(bank, chats):
        if b != c:
            bad += 1
            print(f"MISMATCH in {c['chat']}:\n  bank:   {json.dumps(b, ensure_ascii=False)}\n"
                  f"  truths: {json.dumps(c, ensure_ascii=False)}")
    if bad:
        sys.exit(f"FAIL: {bad} chats differ")
    print(f"OK: {len(chats)} chats, {nturns} turns match the truths")


if __name__ == "__main__":
    main()

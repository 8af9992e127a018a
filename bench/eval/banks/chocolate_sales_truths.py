#!/usr/bin/env python3
"""Truths for chocolate_sales_blind.jsonl, computed by SQL (duckdb only).

Usage:
    python chocolate_sales_truths.py                 # assert the bank file matches
    python chocolate_sales_truths.py --jsonl out.jsonl   # write the bank to out.jsonl

Conventions (see README_section.md):
  * revenue = SUM of the Amount column, parsed from text like "$5,320 " (strip "$", ",", spaces)
  * one row = one shipment / order / sale (the file has no order id); orders = COUNT(*)
  * units = "Boxes Shipped"
  * date = Date column, format DD-Mon-YY (all in 2022: 2022-01-03 .. 2022-08-31)
  * AOV / average sale / deal size = revenue / number of rows
  * growth % = (new - old) / old * 100 ; share % = part / total * 100 ; printed as 12.34
  * recency is relative to the file's latest date (2022-08-31), never today;
    "latest month" = August 2022, "last 3 months" = calendar months Jun-Aug 2022,
    "this year" = 2022
  * money and ratios rounded to 2 decimals; counts are integers
"""
import argparse
import hashlib
import json
import os
import sys

import duckdb

HERE = os.path.dirname(os.path.abspath(__file__))
CSV = os.environ.get("CHOC_CSV", "/work/evaldata/chocolate_sales/chocolate_sales.csv")
SHA256 = "1a901c78a7ce1e541c162ac32eb8c4e457ca64b95e813bfdb89aea5a34fa6cd3"
BANK = os.path.join(HERE, "chocolate_sales_blind.jsonl")
DATASET = "chocolate_sales"
PREFIX = "choc"

MONTHS = ["January", "February", "March", "April", "May", "June", "July",
          "August", "September", "October", "November", "December"]


def check_sha():
    h = hashlib.sha256(open(CSV, "rb").read()).hexdigest()
    if h != SHA256:
        sys.exit(f"sha256 mismatch for {CSV}: {h} != {SHA256}")


con = duckdb.connect()


def load():
    con.execute(f"""
        CREATE TABLE s AS
        SELECT "Sales Person" AS sp, Country AS country, Product AS product,
               CAST(strptime(Date, '%d-%b-%y') AS DATE) AS d,
               CAST(replace(replace(trim(Amount), '$', ''), ',', '') AS BIGINT) AS amt,
               CAST("Boxes Shipped" AS BIGINT) AS boxes
        FROM read_csv('{CSV}', all_varchar=true, header=true)
    """)
    n = con.execute("SELECT count(*) FROM s WHERE sp IS NULL OR d IS NULL OR amt IS NULL OR boxes IS NULL").fetchone()[0]
    assert n == 0, "unparsed rows"
    assert con.execute("SELECT count(*) FROM s").fetchone()[0] == 1094


def one(sql):
    return con.execute(sql).fetchone()[0]


def r2(x):
    return round(float(x), 2)


def ranked(sql, n=1):
    """rows (name, value) ordered by value desc; asserts no tie at the cut n."""
    rows = con.execute(sql).fetchall()
    if len(rows) > n:
        assert rows[n - 1][1] != rows[n][1], f"tie at cut {n}: {rows[:n + 1]}"
    return rows


def month_name(m):
    return f"{MONTHS[m - 1]} 2022"


def day_name(d):
    return f"{MONTHS[d.month - 1]} {d.day}, 2022"


def pct(new, old):
    return r2((new - old) / old * 100)


TOTAL = "SELECT sum(amt) FROM s"


def build():
    total = one(TOTAL)
    rows = one("SELECT count(*) FROM s")
    boxes = one("SELECT sum(boxes) FROM s")
    aov = r2(total / rows)
    mrev = dict(con.execute("SELECT month(d), sum(amt) FROM s GROUP BY 1").fetchall())
    maxd = one("SELECT max(d) FROM s")
    latest_m = maxd.month
    assert maxd.isoformat() == "2022-08-31"

    chats = []

    def chat(*turns):
        chats.append(list(turns))
        return chats[-1]

    def T(q, cat, **exp):
        e = {k: v for k, v in exp.items() if v is not None}
        return {"q": q, "category": cat, "expect": e}

    # 001 -------------------------------------------------------------
    q1 = "what's the total sales amount across the whole file?"
    chat(
        T(q1, "in_schema", numbers=[r2(total)],
          note="SUM(Amount) after stripping '$' and ','"),
        T("and how many boxes is that?", "follow_up", numbers=[int(boxes)],
          note="SUM(Boxes Shipped) over all rows"),
        T("sorry, what did I ask you first?", "conversation", names=[q1],
          note="the first question of this chat, verbatim"),
    )

    # 002 -------------------------------------------------------------
    chat(
        T("quick one — how many shipments are in the dataset", "in_schema", numbers=[int(rows)],
          note="COUNT(*); one row = one shipment/order (no order id in the file)"),
        T("whats the aov", "in_schema", numbers=[aov],
          note="SUM(Amount)/COUNT(*)"),
    )

    # 003 -------------------------------------------------------------
    mr = ranked("SELECT month(d), sum(amt) FROM s GROUP BY 1 ORDER BY 2 DESC")
    low = ranked("SELECT month(d), -sum(amt) FROM s GROUP BY 1 ORDER BY 2 DESC")
    chat(
        T("Which month had the highest revenue?", "in_schema",
          names=[month_name(mr[0][0])], numbers=[r2(mr[0][1])],
          note="SUM(Amount) by calendar month, max"),
        T("and the weakest?", "follow_up",
          names=[month_name(low[0][0])], numbers=[r2(-low[0][1])],
          note="SUM(Amount) by calendar month, min"),
        T("mom growth feb -> march?", "in_schema", numbers=[pct(mrev[3], mrev[2])],
          note="(Mar-Feb)/Feb*100 on SUM(Amount)"),
    )

    # 004 -------------------------------------------------------------
    q1r = one("SELECT sum(amt) FROM s WHERE quarter(d)=1")
    q2r = one("SELECT sum(amt) FROM s WHERE quarter(d)=2")
    q2c = ranked("SELECT country, sum(amt) FROM s WHERE quarter(d)=2 GROUP BY 1 ORDER BY 2 DESC")
    chat(
        T("For the board pack: Q1 vs Q2 2022 revenue, plus the % change between them.", "in_schema",
          numbers=[r2(q1r), r2(q2r), pct(q2r, q1r)],
          note="Q1=Jan-Mar, Q2=Apr-Jun; change=(Q2-Q1)/Q1*100"),
        T("split Q2 by country — who's on top?", "follow_up",
          first=q2c[0][0], names=[q2c[0][0]], numbers=[r2(q2c[0][1])],
          note="Q2 SUM(Amount) by Country, max"),
    )

    # 005 -------------------------------------------------------------
    bd = ranked("SELECT d, sum(amt) FROM s GROUP BY 1 ORDER BY 2 DESC")
    bd_day = bd[0][0]
    bd_n = one(f"SELECT count(*) FROM s WHERE d = DATE '{bd_day}'")
    chat(
        T("which single day brought in the most money?", "in_schema",
          names=[day_name(bd_day)], numbers=[r2(bd[0][1])],
          note="SUM(Amount) by Date, max"),
        T("how many shipmnets went out that day", "follow_up", numbers=[int(bd_n)],
          note="COUNT(*) on that date"),
    )

    # 006 -------------------------------------------------------------
    pr = ranked("SELECT product, sum(amt) FROM s GROUP BY 1 ORDER BY 2 DESC", 5)
    pb = ranked("SELECT product, -sum(amt) FROM s GROUP BY 1 ORDER BY 2 DESC", 3)
    top_p = pr[0][0]
    chat(
        T("top 5 products by rev", "in_schema", first=top_p,
          names=[p for p, _ in pr[:5]], numbers=[r2(pr[0][1])],
          note="SUM(Amount) by Product, top 5"),
        T("bottom 3?", "follow_up", names=[p for p, _ in pb[:3]],
          note="SUM(Amount) by Product, lowest 3 (order of listing not checked)"),
        T(f"what % of total revenue is {top_p}?", "in_schema",
          numbers=[r2(pr[0][1] / total * 100)],
          note="product SUM(Amount) / total SUM(Amount) * 100"),
    )

    # 007 -------------------------------------------------------------
    spr = ranked("SELECT sp, sum(amt) FROM s GROUP BY 1 ORDER BY 2 DESC")
    spl = ranked("SELECT sp, -sum(amt) FROM s GROUP BY 1 ORDER BY 2 DESC")
    top_sp = spr[0][0]
    top_sp_boxes = one(f"SELECT sum(boxes) FROM s WHERE sp = '{top_sp}'")
    chat(
        T("Who's our top sales person by amount?", "extra_columns", first=top_sp,
          names=[top_sp], numbers=[r2(spr[0][1])],
          note="SUM(Amount) by Sales Person, max"),
        T("how many boxes did they ship?", "follow_up", numbers=[int(top_sp_boxes)],
          note="SUM(Boxes Shipped) for the top sales person"),
        T("what figure did you give me for the top rep?", "conversation",
          names=[top_sp], numbers=[r2(spr[0][1])],
          note="the revenue figure from turn 1"),
    )

    # 008 -------------------------------------------------------------
    cr = ranked("SELECT country, sum(amt) FROM s GROUP BY 1 ORDER BY 2 DESC", 3)
    uk = one("SELECT sum(amt) FROM s WHERE country='UK'")
    ca = one("SELECT sum(amt) FROM s WHERE country='Canada'")
    chat(
        T("rev by country pls", "extra_columns", first=cr[0][0],
          names=[c for c, _ in cr[:3]], numbers=[r2(cr[0][1])],
          note="SUM(Amount) by Country; names = top 3"),
        T("what % of the total is the UK?", "extra_columns", numbers=[r2(uk / total * 100)],
          note="UK SUM(Amount) / total * 100"),
        T("what about Canada?", "follow_up", numbers=[r2(ca / total * 100)],
          note="Canada SUM(Amount) / total * 100"),
        T("which country did I ask about first?", "conversation", names=["UK"],
          note="turn 2 asked about the UK"),
    )

    # 009 -------------------------------------------------------------
    in_may = one("SELECT sum(amt) FROM s WHERE country='India' AND month(d)=5")
    ip = ranked("SELECT product, sum(amt) FROM s WHERE country='India' AND month(d) IN (5,6) "
                "GROUP BY 1 ORDER BY 2 DESC")
    chat(
        T("How much did India bring in during May 2022?", "extra_columns", numbers=[r2(in_may)],
          note="SUM(Amount) Country=India, May 2022"),
        T("best selling product in India over May and June combined, by revenue?", "extra_columns",
          first=ip[0][0], names=[ip[0][0]], numbers=[r2(ip[0][1])],
          note="SUM(Amount) by Product, India, May-June 2022"),
    )

    # 010 -------------------------------------------------------------
    cb = ranked("SELECT country, round(avg(boxes), 2) FROM s GROUP BY 1 ORDER BY 2 DESC")
    ppb = ranked("SELECT product, round(sum(amt)/sum(boxes), 2) FROM s GROUP BY 1 ORDER BY 2 DESC")
    chat(
        T("avg boxes per shipment by country - which one's highest?", "extra_columns",
          first=cb[0][0], names=[cb[0][0]], numbers=[r2(cb[0][1])],
          note="AVG(Boxes Shipped) per row by Country, max"),
        T("whats the average revenue per box across everything?", "in_schema",
          numbers=[r2(total / boxes)], note="SUM(Amount)/SUM(Boxes Shipped)"),
        T("which prodcut gets the best $ per box?", "extra_columns",
          first=ppb[0][0], names=[ppb[0][0]], numbers=[r2(ppb[0][1])],
          note="SUM(Amount)/SUM(Boxes Shipped) by Product, max"),
    )

    # 011 -------------------------------------------------------------
    not_us = one("SELECT sum(amt) FROM s WHERE country <> 'USA'")
    not_us_ca = one("SELECT sum(amt) FROM s WHERE country NOT IN ('USA','Canada')")
    chat(
        T("total revnue outside the US?", "negation_recency", numbers=[r2(not_us)],
          note="SUM(Amount) where Country <> 'USA'"),
        T("and if I also leave out Canada?", "follow_up", numbers=[r2(not_us_ca)],
          note="SUM(Amount) where Country NOT IN (USA, Canada)"),
    )

    # 012 -------------------------------------------------------------
    last3 = one("SELECT sum(amt) FROM s WHERE d >= DATE '2022-06-01'")
    l3sp = ranked("SELECT sp, sum(amt) FROM s WHERE d >= DATE '2022-06-01' GROUP BY 1 ORDER BY 2 DESC")
    # same leader under a 90-day window (2022-06-02..2022-08-31)
    alt = ranked("SELECT sp, sum(amt) FROM s WHERE d >= DATE '2022-06-02' GROUP BY 1 ORDER BY 2 DESC")
    assert alt[0][0] == l3sp[0][0]
    chat(
        T("how did the latest month do vs the month before, in %?", "negation_recency",
          names=[month_name(latest_m)], numbers=[pct(mrev[latest_m], mrev[latest_m - 1])],
          note="latest month in file = Aug 2022; (Aug-Jul)/Jul*100"),
        T("revenue over the last 3 months of data?", "negation_recency", numbers=[r2(last3)],
          note="calendar months Jun-Aug 2022 (latest date 2022-08-31); a 90-day window would drop one 448 row on 2022-06-01"),
        T("who was the top rep over that stretch?", "follow_up",
          first=l3sp[0][0], names=[l3sp[0][0]], numbers=[r2(l3sp[0][1])],
          note="SUM(Amount) by Sales Person, Jun-Aug 2022"),
    )

    # 013 -------------------------------------------------------------
    ex_top = one(f"SELECT sum(amt) FROM s WHERE sp <> '{top_sp}'")
    nz_jul = one("SELECT sum(boxes) FROM s WHERE country='New Zealand' AND month(d)=7")
    chat(
        T(f"team revenue for everyone except {top_sp}", "negation_recency", numbers=[r2(ex_top)],
          note="SUM(Amount) where Sales Person <> that person"),
        T("hi, I'm Priya and I run the New Zealand desk. how many boxes did NZ ship in July?",
          "extra_columns", numbers=[int(nz_jul)],
          note="SUM(Boxes Shipped) Country=New Zealand, July 2022"),
        T("which desk did I say I run?", "conversation", names=["New Zealand"],
          note="user stated it in turn 2"),
    )

    # 014 -------------------------------------------------------------
    pair = one("SELECT sum(amt) FROM s WHERE sp IN ('Kelci Walkden','Oby Sorrel')")
    chat(
        T("I'm Tom, I look after Kelci Walkden and Oby Sorrel. What's their combined revenue?",
          "extra_columns", numbers=[r2(pair)],
          note="SUM(Amount) for the two sales people"),
        T("remind me who I said I look after?", "conversation",
          names=["Kelci Walkden", "Oby Sorrel"], note="user stated it in turn 1"),
        T("and what combined figure did you give me earlier?", "conversation",
          numbers=[r2(pair)], note="the figure from turn 1"),
    )

    # 015 -------------------------------------------------------------
    ecl = one("SELECT sum(amt) FROM s WHERE product='Eclairs'")
    chat(
        T("what's our profit margin on Eclairs?", "unanswerable", decline=True,
          note="no cost/profit column"),
        T("ok then just the revenue from eclairs", "extra_columns", numbers=[r2(ecl)],
          note="SUM(Amount) Product=Eclairs"),
        T("how many distinct customers bought eclairs?", "unanswerable", decline=True,
          note="no customer column"),
    )

    # 016 -------------------------------------------------------------
    last_day_rev = one(f"SELECT sum(amt) FROM s WHERE d = DATE '{maxd}'")
    chat(
        T("can you give me a revenue forecast for december 2022?", "unanswerable", decline=True,
          note="data ends 2022-08-31; future value not in the file"),
        T("ok, what did we sell on the most recent day in the file?", "negation_recency",
          names=[day_name(maxd)], numbers=[r2(last_day_rev)],
          note="latest Date in the file and its SUM(Amount)"),
    )

    # 017 -------------------------------------------------------------
    q_mk = "how much did we spend on marketing in the UK?"
    chat(
        T(q_mk, "unanswerable", decline=True, note="no spend column"),
        T("fine. how many sales reps are in the data?", "extra_columns",
          numbers=[int(one("SELECT count(DISTINCT sp) FROM s"))],
          note="COUNT(DISTINCT Sales Person)"),
        T("what was the very first thing I asked you here?", "conversation", names=[q_mk],
          note="the question of turn 1, verbatim"),
    )

    # 018 -------------------------------------------------------------
    d70 = one("SELECT sum(amt) FROM s WHERE product='70% Dark Bites'")
    dark_bites = [r[0] for r in con.execute(
        "SELECT DISTINCT product FROM s WHERE product ILIKE '%dark bites%' ORDER BY 1").fetchall()]
    assert dark_bites == ["50% Dark Bites", "70% Dark Bites"], dark_bites
    chat(
        T("how are the dark bites doing revenue-wise?", "extra_columns", clarify=True,
          names=dark_bites, note="two products match: 50% Dark Bites and 70% Dark Bites"),
        T("the 70% one", "follow_up", numbers=[r2(d70)],
          note="SUM(Amount) Product=70% Dark Bites"),
    )

    # 019 -------------------------------------------------------------
    almond = [r[0] for r in con.execute(
        "SELECT DISTINCT product FROM s WHERE product ILIKE '%almond%' ORDER BY 1").fetchall()]
    assert almond == ["Almond Choco", "Choco Coated Almonds"], almond
    cca = one("SELECT sum(boxes) FROM s WHERE product='Choco Coated Almonds'")
    chat(
        T("how many boxes of the almond chocolate went out?", "extra_columns", clarify=True,
          names=almond, note="two products match: Almond Choco and Choco Coated Almonds"),
        T("I mean the coated almonds", "follow_up", numbers=[int(cca)],
          note="SUM(Boxes Shipped) Product=Choco Coated Almonds"),
    )

    # 020 -------------------------------------------------------------
    ukp = ranked("SELECT product, sum(amt) FROM s WHERE country='UK' GROUP BY 1 ORDER BY 2 DESC")
    ukp_sp = ranked(f"SELECT sp, sum(amt) FROM s WHERE country='UK' AND product='{ukp[0][0]}' "
                    "GROUP BY 1 ORDER BY 2 DESC")
    chat(
        T("top product in the UK by revenue?", "extra_columns", first=ukp[0][0],
          names=[ukp[0][0]], numbers=[r2(ukp[0][1])],
          note="SUM(Amount) by Product, Country=UK"),
        T("who sold the most of it there?", "follow_up", first=ukp_sp[0][0],
          names=[ukp_sp[0][0]], numbers=[r2(ukp_sp[0][1])],
          note="SUM(Amount) by Sales Person for that product in the UK"),
        T("which product were we talking about?", "conversation", names=[ukp[0][0]],
          note="the product from turn 1"),
    )

    # 021 -------------------------------------------------------------
    aug_boxes = one(f"SELECT sum(boxes) FROM s WHERE month(d)={latest_m}")
    excl2 = one("SELECT sum(boxes) FROM s WHERE product NOT IN ('Drinking Coco','Milk Bars')")
    chat(
        T("revenue this year so far?", "negation_recency", numbers=[r2(total)],
          note="'this year' = 2022, the file's latest year; the whole file (Jan 3 - Aug 31 2022)"),
        T("boxes shipped in the latest month?", "negation_recency",
          names=[month_name(latest_m)], numbers=[int(aug_boxes)],
          note="SUM(Boxes Shipped) August 2022"),
        T("total boxes excluding Drinking Coco and Milk Bars", "negation_recency",
          numbers=[int(excl2)], note="SUM(Boxes Shipped) where Product not in the two"),
    )

    # 022 -------------------------------------------------------------
    h1 = one("SELECT sum(amt) FROM s WHERE month(d) <= 6")
    chat(
        T("what's the yoy growth vs 2021?", "unanswerable", decline=True,
          note="the file only holds 2022 (Jan 3 - Aug 31); no 2021 rows"),
        T("ok, what about first half of 2022 total?", "in_schema", numbers=[r2(h1)],
          note="SUM(Amount) Jan-Jun 2022"),
        T("what % of H1 revenue came in June?", "in_schema", numbers=[r2(mrev[6] / h1 * 100)],
          note="June SUM(Amount) / H1 SUM(Amount) * 100"),
    )

    # 023 -------------------------------------------------------------
    van = con.execute("SELECT sum(amt)/count(*) FROM s WHERE sp='Van Tuxwell'").fetchone()[0]
    chat(
        T("avg deal size for Van Tuxwell?", "extra_columns", numbers=[r2(van)],
          note="SUM(Amount)/COUNT(*) for Van Tuxwell"),
        T("how does that compare to the company-wide avg?", "follow_up", numbers=[aov],
          note="overall SUM(Amount)/COUNT(*)"),
        T("what avg did you give me for Van?", "conversation", numbers=[r2(van)],
          note="the figure from turn 1"),
    )

    # 024 -------------------------------------------------------------
    big = con.execute("SELECT sp, country, product, d, amt FROM s ORDER BY amt DESC LIMIT 2").fetchall()
    assert big[0][4] != big[1][4]
    chat(
        T("what was the biggest single sale in the file?", "in_schema",
          names=[big[0][0], day_name(big[0][3])], numbers=[r2(big[0][4])],
          note="MAX(Amount) row: sales person and date"),
        T("how many sales were over 15k?", "in_schema",
          numbers=[int(one("SELECT count(*) FROM s WHERE amt > 15000"))],
          note="COUNT(*) where Amount > 15000"),
    )

    out = []
    for i, turns in enumerate(chats, 1):
        out.append({"chat": f"{PREFIX}-{i:03d}", "dataset": DATASET, "turns": turns})
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jsonl", help="write the bank here instead of asserting")
    a = ap.parse_args()
    check_sha()
    load()
    bank = build()
    lines = [json.dumps(c, ensure_ascii=False) for c in bank]
    if a.jsonl:
        with open(a.jsonl, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        print(f"wrote {len(bank)} chats to {a.jsonl}")
        return
    have = [json.loads(l) for l in open(BANK, encoding="utf-8") if l.strip()]
    want = [json.loads(l) for l in lines]
    assert len(have) == len(want), f"{len(have)} chats in bank, {len(want)} computed"
    bad = 0
    for h, w in zip(have, want):
        if h != w:
            bad += 1
            print("MISMATCH", h["chat"])
            for th, tw in zip(h["turns"], w["turns"]):
                if th != tw:
                    print("  have:", th)
                    print("  want:", tw)
    if bad:
        sys.exit(f"{bad} chat(s) differ")
    n = sum(len(c["turns"]) for c in have)
    print(f"OK: {len(have)} chats, {n} turns match the truths")


if __name__ == "__main__":
    main()

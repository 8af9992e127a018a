#!/usr/bin/env python3
"""Ground truths for istanbul_malls_blind.jsonl, computed with SQL (duckdb only).

Usage:
    python istanbul_malls_truths.py [CSV] [--bank BANK.jsonl]   # assert the bank matches
    python istanbul_malls_truths.py [CSV] --jsonl OUT.jsonl     # (re)write the bank

CSV defaults to /work/evaldata/istanbul_malls/customer_shopping_data.csv,
BANK defaults to istanbul_malls_blind.jsonl next to this script.

Conventions (see README_section.md):
  revenue      = SUM(price)   (price is the line total: price / quantity is one figure per category)
  transaction  = one row = one invoice_no (invoice_no is unique; "order" means the same thing)
  customers    = COUNT(DISTINCT customer_id)   (every row has its own customer_id)
  units        = SUM(quantity)
  AOV          = revenue / transactions
  date         = invoice_date, day-first D/M/YYYY (zero padding optional); span 2021-01-01 .. 2023-03-08
  growth       = (new - old) / old * 100 ; share = part / whole * 100 ; 2 decimals, half-up
  recency      = relative to the file's latest date 2023-03-08 (never today):
                 "latest month" = March 2023 (partial, Mar 1-8); "this year" = 2023-01-01..2023-03-08;
                 "last 30 days" = 2023-02-07..2023-03-08 inclusive; "last 3 full months" = Dec 2022..Feb 2023.
"""
import argparse
import hashlib
import json
import os
import sys
from decimal import Decimal, ROUND_HALF_UP

import duckdb

DATASET = "istanbul_malls"
PREFIX = "ist"
EXPECTED_SHA256 = "86d6e1741d8cf67f0418f47ed0a328ff05325d94321742732463c8bf3aac61c3"
DEFAULT_CSV = "/work/evaldata/istanbul_malls/customer_shopping_data.csv"
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BANK = os.path.join(HERE, "istanbul_malls_blind.jsonl")

# The single place where "revenue" is defined.
REVENUE_SQL = "price"  # price is the line total: price / quantity is one figure per category

MONTHS = ["January", "February", "March", "April", "May", "June", "July",
          "August", "September", "October", "November", "December"]


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def r2(x):
    """Round a number to 2 decimals (half-up) and return a float."""
    return float(Decimal(str(x)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def pct(part, whole):
    return r2(Decimal(part) / Decimal(whole) * 100)


def growth(new, old):
    return r2((Decimal(new) - Decimal(old)) / Decimal(old) * 100)


def day_name(d):
    return f"{MONTHS[d.month - 1]} {d.day}, {d.year}"


def month_name(y, m):
    return f"{MONTHS[m - 1]} {y}"


class DB:
    def __init__(self, csv):
        self.con = duckdb.connect()
        self.con.execute(f"""
            CREATE VIEW t AS
            SELECT invoice_no, customer_id, gender, age, category, quantity, price,
                   payment_method, shopping_mall,
                   strptime(invoice_date, '%d/%m/%Y')::DATE AS d,
                   ({REVENUE_SQL})::DECIMAL(18,2) AS rev
            FROM read_csv('{csv}', header=true, delim=',', quote='"',
                 columns={{'invoice_no':'VARCHAR','customer_id':'VARCHAR','gender':'VARCHAR',
                          'age':'INTEGER','category':'VARCHAR','quantity':'INTEGER',
                          'price':'DECIMAL(18,2)','payment_method':'VARCHAR',
                          'invoice_date':'VARCHAR','shopping_mall':'VARCHAR'}})
        """)
        n, bad = self.con.execute(
            "SELECT count(*), count(*) FILTER (WHERE d IS NULL) FROM t").fetchone()
        assert n == 99457 and bad == 0, (n, bad)

    def v(self, sql):
        return self.con.execute(sql).fetchone()[0]

    def rows(self, sql):
        return self.con.execute(sql).fetchall()

    def rev(self, where="TRUE"):
        return self.v(f"SELECT sum(rev) FROM t WHERE {where}")

    def n(self, where="TRUE"):
        return self.v(f"SELECT count(*) FROM t WHERE {where}")

    def ranking(self, key, measure, where="TRUE", desc=True, k=None):
        """Rows (key, value) ordered; asserts no tie at the cut k."""
        order = "DESC" if desc else "ASC"
        rs = self.rows(f"SELECT {key} AS k, {measure} AS m FROM t WHERE {where} "
                       f"GROUP BY ALL ORDER BY m {order}")
        if k is not None and len(rs) > k:
            assert rs[k - 1][1] != rs[k][1], f"tie at cut {k} for {key}/{measure}/{where}"
        return rs


def build(db):
    E = lambda **kw: {k: v for k, v in kw.items() if v is not None}
    total = db.rev()
    n_all = db.n()
    chats = []

    def chat(turns):
        chats.append(turns)

    # ---------------------------------------------------------------- ist-001
    chat([
        ("hey, whats our total revenue across the whole file?", "in_schema",
         E(numbers=[r2(total)], note="SUM(quantity*price) over all 99,457 rows")),
        ("how many transactions is that", "follow_up",
         E(numbers=[n_all], note="COUNT(*) = COUNT(DISTINCT invoice_no)")),
        ("and aov overall?", "in_schema",
         E(numbers=[r2(Decimal(total) / n_all)], note="revenue / transactions")),
    ])

    # ---------------------------------------------------------------- ist-002
    rev21, rev22 = db.rev("year(d)=2021"), db.rev("year(d)=2022")
    m22 = db.ranking("month(d)", "sum(rev)", "year(d)=2022", k=1)
    chat([
        ("quick one \u2014 how many units did we sell in 2022?", "in_schema",
         E(numbers=[int(db.v("SELECT sum(quantity) FROM t WHERE year(d)=2022"))],
           note="SUM(quantity), calendar 2022")),
        ("rev growth yoy, 2022 vs 2021?", "in_schema",
         E(numbers=[growth(rev22, rev21)],
           note=f"(2022 rev {r2(rev22)} - 2021 rev {r2(rev21)}) / 2021 rev * 100")),
        ("which month of that year was strongest?", "follow_up",
         E(numbers=[r2(m22[0][1])], names=[month_name(2022, m22[0][0])],
           note="highest monthly revenue in 2022")),
    ])

    # ---------------------------------------------------------------- ist-003
    malls = db.ranking("shopping_mall", "sum(rev)", k=3)
    kanyon = db.rev("shopping_mall='Kanyon'")
    q003_1 = "top 3 malls by revenue pls"
    chat([
        (q003_1, "in_schema",
         E(names=[m for m, _ in malls[:3]], first=malls[0][0],
           note="revenue by shopping_mall, top 3")),
        ("and the weakest one?", "follow_up",
         E(names=[malls[-1][0]], numbers=[r2(malls[-1][1])],
           note="lowest-revenue mall")),
        ("what share of total rev does Kanyon account for", "in_schema",
         E(numbers=[pct(kanyon, total)], note="Kanyon revenue / total revenue * 100")),
        ("what did I ask you first in this chat?", "conversation",
         E(names=[q003_1], note="the first question of this chat")),
    ])

    # ---------------------------------------------------------------- ist-004
    cats = db.ranking("category", "sum(rev)", k=1)
    top_cat = cats[0][0]
    g = dict(db.rows(f"SELECT gender, sum(rev) FROM t WHERE category='{top_cat}' GROUP BY 1"))
    units_all = db.v("SELECT sum(quantity) FROM t")
    units_cat = db.v(f"SELECT sum(quantity) FROM t WHERE category='{top_cat}'")
    chat([
        ("Which product category brings in the most money?", "extra_columns",
         E(names=[top_cat], first=top_cat, numbers=[r2(cats[0][1])],
           note="revenue by category")),
        ("split that by gender", "follow_up",
         E(names=["Female", "Male"], numbers=[r2(g["Female"]), r2(g["Male"])],
           note=f"{top_cat} revenue by gender")),
        ("what % of all units sold are clothing?", "extra_columns",
         E(numbers=[pct(units_cat, units_all)],
           note="SUM(quantity) Clothing / SUM(quantity) all * 100")),
    ])

    # ---------------------------------------------------------------- ist-005
    pay = db.rows("SELECT payment_method, sum(rev)/count(*) FROM t GROUP BY 1 ORDER BY 1")
    chat([
        ("what percentage of trasactions were paid in cash?", "extra_columns",
         E(numbers=[pct(db.n("payment_method='Cash'"), n_all)],
           note="cash rows / all rows * 100")),
        ("avg ticket size by payment method", "extra_columns",
         E(names=[p for p, _ in pay], numbers=[r2(a) for _, a in pay],
           note="revenue / transactions per payment_method")),
        ("total revenue from everything but cash?", "negation_recency",
         E(numbers=[r2(db.rev("payment_method<>'Cash'"))],
           note="Credit Card + Debit Card revenue")),
    ])

    # ---------------------------------------------------------------- ist-006
    mar23 = db.rev("d BETWEEN '2023-03-01' AND '2023-03-31'")
    feb23 = db.rev("d BETWEEN '2023-02-01' AND '2023-02-28'")
    jan23 = db.rev("d BETWEEN '2023-01-01' AND '2023-01-31'")
    assert str(db.v("SELECT max(d) FROM t")) == "2023-03-08"
    chat([
        ("how much revenue did we do in the most recent month in the data?", "negation_recency",
         E(names=["March 2023"], numbers=[r2(mar23)],
           note="latest date is 2023-03-08, so March 2023 (partial: Mar 1-8)")),
        ("and the month before that?", "follow_up",
         E(names=["February 2023"], numbers=[r2(feb23)], note="February 2023 revenue")),
        ("mom growth jan -> feb 2023?", "in_schema",
         E(numbers=[growth(feb23, jan23)],
           note=f"(Feb 2023 {r2(feb23)} - Jan 2023 {r2(jan23)}) / Jan 2023 * 100")),
    ])

    # ---------------------------------------------------------------- ist-007
    ky22 = db.rev("shopping_mall='Kanyon' AND year(d)=2022")
    kyc = db.ranking("category", "sum(rev)", "shopping_mall='Kanyon' AND year(d)=2022", k=1)
    chat([
        ("Hi, I'm Sam and I run the Kanyon store. What did Kanyon take in revenue in 2022?",
         "extra_columns",
         E(numbers=[r2(ky22)], note="shopping_mall='Kanyon', calendar 2022")),
        ("which category sold the most there that year?", "follow_up",
         E(names=[kyc[0][0]], first=kyc[0][0], numbers=[r2(kyc[0][1])],
           note="top category by revenue at Kanyon in 2022")),
        ("sorry, remind me which mall I said I run?", "conversation",
         E(names=["Kanyon"], note="stated by the user in turn 1")),
    ])

    # ---------------------------------------------------------------- ist-008
    chat([
        ("what did we spend on marketing in 2022?", "unanswerable",
         E(decline=True, note="no marketing/cost column")),
        ("ok, how many transactions did we have in 2022 then", "in_schema",
         E(numbers=[db.n("year(d)=2022")], note="rows in calendar 2022")),
        ("can you forecast revenue for Q2 2023?", "unanswerable",
         E(decline=True, note="future period; data ends 2023-03-08")),
    ])

    # ---------------------------------------------------------------- ist-009
    gr = dict(db.rows("SELECT gender, sum(rev) FROM t GROUP BY 1"))
    gu = dict(db.rows("SELECT gender, sum(rev) FROM t WHERE age < 30 GROUP BY 1"))
    gu_tot = sum(gu.values())
    chat([
        ("whats the avg customer age", "extra_columns",
         E(numbers=[r2(db.v("SELECT avg(age) FROM t"))],
           note="AVG(age) over rows (= customers, each row has its own customer_id)")),
        ("women vs men, share of revenue?", "extra_columns",
         E(names=["Female", "Male"],
           numbers=[pct(gr["Female"], total), pct(gr["Male"], total)],
           note="revenue share by gender")),
        ("what about just the under 30s?", "follow_up",
         E(numbers=[pct(gu["Female"], gu_tot), pct(gu["Male"], gu_tot)],
           note="revenue share by gender among age < 30")),
    ])

    # ---------------------------------------------------------------- ist-010
    nov25 = db.rev("d = DATE '2022-11-25'")
    best = db.ranking("d", "sum(rev)", k=1)
    chat([
        ("rev on 25 nov 2022?", "in_schema",
         E(numbers=[r2(nov25)], note="revenue on 2022-11-25")),
        ("what was our single best day ever, by revenue?", "in_schema",
         E(names=[day_name(best[0][0])], numbers=[r2(best[0][1])],
           note="day with highest revenue")),
        ("what number did you give me for 25 Nov?", "conversation",
         E(numbers=[r2(nov25)], note="truth of turn 1")),
    ])

    # ---------------------------------------------------------------- ist-011
    q421 = db.rev("year(d)=2021 AND quarter(d)=4")
    q422 = db.rev("year(d)=2022 AND quarter(d)=4")
    chat([
        ("need Q4 2021 rev for a slide", "in_schema",
         E(numbers=[r2(q421)], note="Oct-Dec 2021")),
        ("and q4 2022?", "follow_up",
         E(numbers=[r2(q422)], note="Oct-Dec 2022")),
        ("so what's the % change", "follow_up",
         E(numbers=[growth(q422, q421)], note="(Q4 2022 - Q4 2021) / Q4 2021 * 100")),
    ])

    # ---------------------------------------------------------------- ist-012
    big2 = db.rev("shopping_mall IN ('Mall of Istanbul','Kanyon')")
    nocl = db.ranking("category", "sum(rev)", "category<>'Clothing'", k=1)
    chat([
        ("rev outside the two big ones, Mall of Istanbul and Kanyon?", "negation_recency",
         E(numbers=[r2(Decimal(total) - Decimal(big2))],
           note="revenue of the 8 other malls")),
        ("excluding clothing, which category tops revenue? and how many transactions did it have",
         "negation_recency",
         E(names=[nocl[0][0]], first=nocl[0][0],
           numbers=[r2(nocl[0][1]), db.n(f"category='{nocl[0][0]}'")],
           note="top category by revenue among non-Clothing; its revenue and row count")),
    ])

    # ---------------------------------------------------------------- ist-013
    chat([
        ("which sales associate closed the most sales at Zorlu Center?", "unanswerable",
         E(decline=True, note="no staff/salesperson column")),
        ("fine \u2014 how many transactions at Zorlu Center overall?", "extra_columns",
         E(numbers=[db.n("shopping_mall='Zorlu Center'")], note="rows at Zorlu Center")),
        ("and what's our profit margin there?", "unanswerable",
         E(decline=True, note="no cost/profit column")),
    ])

    # ---------------------------------------------------------------- ist-014
    mp22 = db.rev("shopping_mall='Metropol AVM' AND year(d)=2022")
    chat([
        ("how did Metro do in 2022?", "extra_columns",
         E(clarify=True, names=["Metrocity", "Metropol AVM"],
           note="'Metro' matches two malls: Metrocity and Metropol AVM")),
        ("Metropol AVM", "follow_up",
         E(names=["Metropol AVM"], numbers=[r2(mp22)],
           note="Metropol AVM revenue in 2022")),
        ("which two malls did you ask me to choose between?", "conversation",
         E(names=["Metrocity", "Metropol AVM"], note="the clarification candidates")),
    ])

    # ---------------------------------------------------------------- ist-015
    ytd = db.rev("d BETWEEN '2023-01-01' AND '2023-03-08'")
    ytd_ly = db.rev("d BETWEEN '2022-01-01' AND '2022-03-08'")
    chat([
        ("how's this year going so far? revenue ytd", "negation_recency",
         E(numbers=[r2(ytd)], note="2023-01-01..2023-03-08 (latest date)")),
        ("and the same period last year? % change too", "follow_up",
         E(numbers=[r2(ytd_ly), growth(ytd, ytd_ly)],
           note="2022-01-01..2022-03-08 revenue; growth 2023 YTD vs it")),
    ])

    # ---------------------------------------------------------------- ist-016
    band = ("CASE WHEN age < 30 THEN '18-29' WHEN age < 45 THEN '30-44' "
            "WHEN age < 60 THEN '45-59' ELSE '60+' END")
    assert db.v("SELECT min(age) FROM t") >= 18
    bands = db.ranking(band, "sum(rev)", k=1)
    chat([
        ("which age group spends the most: 18-29, 30-44, 45-59 or 60+?", "extra_columns",
         E(names=[bands[0][0]], first=bands[0][0], numbers=[r2(bands[0][1])],
           note="revenue by age band")),
        ("how many custmers are 60 or older?", "extra_columns",
         E(numbers=[int(db.v("SELECT count(DISTINCT customer_id) FROM t WHERE age >= 60"))],
           note="distinct customer_id with age >= 60")),
    ])

    # ---------------------------------------------------------------- ist-017
    ip = db.ranking("payment_method", "count(*)", "shopping_mall='Istinye Park'", k=1)
    chat([
        ("at Istinye Park, which payment method gets used most?", "extra_columns",
         E(names=[ip[0][0]], first=ip[0][0], numbers=[ip[0][1]],
           note="transactions by payment_method at Istinye Park")),
        ("debit card share of total revnue?", "extra_columns",
         E(numbers=[pct(db.rev("payment_method='Debit Card'"), total)],
           note="Debit Card revenue / total * 100")),
    ])

    # ---------------------------------------------------------------- ist-018
    q018_2 = "revenue over the last 3 full months?"
    chat([
        ("last 30 days of data \u2014 how many transactions?", "negation_recency",
         E(numbers=[db.n("d BETWEEN '2023-02-07' AND '2023-03-08'")],
           note="2023-02-07..2023-03-08 inclusive")),
        (q018_2, "negation_recency",
         E(numbers=[r2(db.rev("d BETWEEN '2022-12-01' AND '2023-02-28'"))],
           note="December 2022 + January 2023 + February 2023 (March 2023 is partial)")),
        ("what did I ask right before this?", "conversation",
         E(names=[q018_2], note="the previous question")),
    ])

    # ---------------------------------------------------------------- ist-019
    cw = dict(db.rows("SELECT gender, sum(rev) FROM t WHERE category='Cosmetics' "
                      "AND year(d)=2021 GROUP BY 1"))
    chat([
        ("how much did women spend on cosmetics in 2021?", "extra_columns",
         E(numbers=[r2(cw["Female"])], note="Female, Cosmetics, 2021")),
        ("what about the men?", "follow_up",
         E(numbers=[r2(cw["Male"])], note="Male, Cosmetics, 2021")),
        ("remind me which category we're on", "conversation",
         E(names=["Cosmetics"], note="category of turn 1")),
    ])

    # ---------------------------------------------------------------- ist-020
    chat([
        ("what are the top return reasons for shoes?", "unanswerable",
         E(decline=True, note="no returns / reason column")),
        ("fine. how many unique customers did we have in 2021?", "in_schema",
         E(numbers=[int(db.v("SELECT count(DISTINCT customer_id) FROM t WHERE year(d)=2021"))],
           note="distinct customer_id in 2021")),
    ])

    # ---------------------------------------------------------------- ist-021
    mo = db.ranking("strftime(d, '%Y-%m')", "sum(rev)", "year(d) IN (2021, 2022)",
                    desc=False, k=2)
    feb22 = db.rev("year(d)=2022 AND month(d)=2")
    to_name = lambda ym: month_name(int(ym[:4]), int(ym[5:]))
    chat([
        ("bottom 2 months by revenue across 2021-2022?", "in_schema",
         E(names=[to_name(mo[0][0]), to_name(mo[1][0])], first=to_name(mo[0][0]),
           note="lowest monthly revenue among the 24 full-year months")),
        ("excluding february, what was 2022 revenue?", "negation_recency",
         E(numbers=[r2(Decimal(rev22) - Decimal(feb22))],
           note="2022 revenue minus February 2022")),
    ])

    # ---------------------------------------------------------------- ist-022
    fb = db.ranking("shopping_mall", "sum(quantity)", "category='Food & Beverage'", k=1)
    tech = db.ranking("shopping_mall", "sum(quantity)", "category='Technology'", k=1)
    chat([
        ("Food & Beverage \u2014 which mall leads on units?", "extra_columns",
         E(names=[fb[0][0]], first=fb[0][0], numbers=[int(fb[0][1])],
           note="SUM(quantity) by mall, Food & Beverage")),
        ("f&b revenue excluding Mall of Istanbul?", "negation_recency",
         E(numbers=[r2(db.rev("category='Food & Beverage' AND shopping_mall<>'Mall of Istanbul'"))],
           note="Food & Beverage revenue, all malls but Mall of Istanbul")),
        ("which mall moved the most Technology units?", "extra_columns",
         E(names=[tech[0][0]], first=tech[0][0], numbers=[int(tech[0][1])],
           note="SUM(quantity) by mall, Technology")),
    ])

    # ---------------------------------------------------------------- ist-023
    chat([
        ("For my deck: total revenue in 2021?", "in_schema",
         E(numbers=[r2(rev21)], note="calendar 2021")),
        ("what was the 2021 total you gave me?", "conversation",
         E(numbers=[r2(rev21)], note="truth of turn 1")),
        ("what did I say these numbers are for?", "conversation",
         E(names=["deck"], note="stated by the user in turn 1")),
    ])

    out = []
    for i, turns in enumerate(chats, 1):
        out.append({"chat": f"{PREFIX}-{i:03d}", "dataset": DATASET,
                    "turns": [{"q": q, "category": c, "expect": e} for q, c, e in turns]})
    return json.loads(json.dumps(out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv", nargs="?", default=DEFAULT_CSV)
    ap.add_argument("--jsonl", help="write the bank here instead of checking")
    ap.add_argument("--bank", default=DEFAULT_BANK, help="bank to check")
    a = ap.parse_args()

    got = sha256(a.csv)
    if got != EXPECTED_SHA256:
        sys.exit(f"sha256 mismatch for {a.csv}: {got} != {EXPECTED_SHA256}")
    bank = build(DB(a.csv))

    if a.jsonl:
        with open(a.jsonl, "w", encoding="utf-8") as f:
            for c in bank:
                f.write(json.dumps(c, ensure_ascii=False) + "\n")
        print(f"wrote {len(bank)} chats to {a.jsonl}")
        return

    with open(a.bank, encoding="utf-8") as f:
        have = [json.loads(line) for line in f if line.strip()]
    assert len(have) == len(bank), f"chat count {len(have)} != {len(bank)}"
    for h, b in zip(have, bank):
        assert h == b, f"mismatch in {b['chat']}:\n bank: {json.dumps(h)}\n want: {json.dumps(b)}"
    cats = {}
    for c in bank:
        for t in c["turns"]:
            k = "clarify" if t["expect"].get("clarify") else t["category"]
            cats[k] = cats.get(k, 0) + 1
    print(f"OK: {len(bank)} chats, {sum(cats.values())} turns match; {cats}")


if __name__ == "__main__":
    main()

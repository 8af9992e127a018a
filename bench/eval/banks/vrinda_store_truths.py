#!/usr/bin/env python3
"""Ground truths for the Vrinda Store blind question bank.

Every number / name / first in vrinda_store_blind.jsonl is computed here with
SQL (duckdb) from the CSV, then the bank file is asserted to equal what is
computed.

    python vrinda_store_truths.py                 # verify bank == computed
    python vrinda_store_truths.py --jsonl out.jsonl   # (re)generate the bank
    python vrinda_store_truths.py --csv PATH --bank PATH

Needs only duckdb (plus the standard library).

Conventions (see README.md):
  * revenue / sales = SUM(Amount) in INR; Amount is already the line total
    (never multiplied by Qty). Every Status (Delivered, Returned, Cancelled,
    Refunded) counts unless the question excludes some.
  * order = one CSV row. "Order ID" is not a usable order key in this file
    (28,471 distinct ids over 31,047 rows, and rows sharing an id differ in
    channel, city, age ...), so orders = COUNT(*); AOV = SUM(Amount)/COUNT(*).
  * units = SUM(Qty).
  * month / quarter / day come from the Date column (all dates are in 2022;
    every month has exactly the 4th, 5th and 6th). Recency is relative to the
    latest Date in the file (2022-12-06): "last month" = December 2022,
    "this year" = 2022, "last 90 days" = Date > 2022-12-06 - 90 days
    (= Oct, Nov, Dec 2022; the same whichever way the window edge is taken).
  * ship-city / ship-state are compared case-insensitively
    (UPPER(TRIM(..))), e.g. 'BENGALURU', 'Bengaluru', 'bengaluru' are one city.
  * numbers are rounded half-up to 2 decimals; percentages as 12.34 = 12.34 %.
"""
import argparse
import hashlib
import json
import os
import sys
from decimal import Decimal, ROUND_HALF_UP

import duckdb

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CSV = "/work/evaldata/vrinda_store/vrinda_store.csv"
DEFAULT_BANK = os.path.join(HERE, "vrinda_store_blind.jsonl")
CSV_SHA256 = "9516d9b7c8d1f60eef975e94c97c91f679b187e7de0e3946f57e342dd611b11f"
DATASET = "vrinda_store"
PREFIX = "vs"

# Column names of the CSV header, in order. The published header has two
# stray spaces (" Age group", "Channel "); they are named explicitly here so
# the SQL does not depend on how a reader trims header names.
COLS = ["idx", "order_id", "cust_id", "gender", "age", "age_group", "date",
        "month", "status", "channel", "sku", "category", "size", "qty",
        "currency", "amount", "city", "state", "postal", "country", "b2b"]
EXPECTED_HEADER = ["index", "Order ID", "Cust ID", "Gender", "Age", " Age group",
                   "Date", "Month", "Status", "Channel ", "SKU", "Category",
                   "Size", "Qty", "currency", "Amount", "ship-city",
                   "ship-state", "ship-postal-code", "ship-country", "B2B"]

MONTHS = ["January", "February", "March", "April", "May", "June", "July",
          "August", "September", "October", "November", "December"]


def r2(x):
    """Round half-up to 2 decimals; return int when integral."""
    d = Decimal(str(x)) if not isinstance(x, Decimal) else x
    q = d.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    if q == q.to_integral_value():
        return int(q)
    return float(q)


def pct(num, den):
    return r2(Decimal(num) * 100 / Decimal(den))


def growth(new, old):
    return r2((Decimal(new) - Decimal(old)) * 100 / Decimal(old))


def ratio(num, den):
    return r2(Decimal(num) / Decimal(den))


def day_name(d):
    return f"{MONTHS[d.month - 1]} {d.day}, {d.year}"


class DB:
    def __init__(self, csv_path):
        self.con = duckdb.connect()
        with open(csv_path, newline="", encoding="utf-8") as f:
            header = f.readline().rstrip("\r\n").split(",")
        assert header == EXPECTED_HEADER, header
        names = ", ".join(f"'{c}'" for c in COLS)
        self.con.execute(f"""
            CREATE TABLE raw AS SELECT * FROM read_csv('{csv_path}',
                header=true, all_varchar=true, names=[{names}])""")
        self.con.execute("""
            CREATE TABLE t AS SELECT
                CAST(idx AS INTEGER) idx, order_id, cust_id, gender,
                CAST(age AS INTEGER) age, age_group,
                CAST(date AS DATE) date, month, status, channel, sku,
                category, size, CAST(qty AS INTEGER) qty, currency,
                CAST(amount AS BIGINT) amount,
                city, state, UPPER(TRIM(city)) city_n, UPPER(TRIM(state)) state_n,
                postal, country, b2b
            FROM raw""")
        n = self.one("SELECT COUNT(*) FROM t")
        assert n == 31047, n
        self.max_date = self.one("SELECT MAX(date) FROM t")

    def one(self, sql, *params):
        row = self.con.execute(sql, list(params)).fetchone()
        return row[0] if len(row) == 1 else row

    def all(self, sql, *params):
        return self.con.execute(sql, list(params)).fetchall()

    def top(self, sql, k=1):
        """Rows of a ranking (value in column 1, DESC/ASC already applied);
        asserts there is no tie at the cut (row k vs row k+1)."""
        rows = self.all(sql)
        if len(rows) > k:
            assert rows[k - 1][1] != rows[k][1], ("tie at cut", sql, rows[:k + 1])
        return rows[:k]


def build(db):
    chats = []

    def chat(turns):
        chats.append({"chat": f"{PREFIX}-{len(chats) + 1:03d}",
                      "dataset": DATASET, "turns": turns})

    def turn(q, category, **expect):
        e = {k: v for k, v in expect.items() if v is not None}
        return {"q": q, "category": category, "expect": e}

    total = db.one("SELECT SUM(amount) FROM t")
    units = db.one("SELECT SUM(qty) FROM t")
    nrows = db.one("SELECT COUNT(*) FROM t")
    last = db.max_date

    # ---- vs-001 -----------------------------------------------------------
    q1 = ("whats the total sales amount in this file? include everything, "
          "cancelled/returned and all")
    chat([
        turn(q1, "in_schema", numbers=[total],
             note="SUM(Amount) over all 31,047 rows, every Status"),
        turn("and how many units was that?", "follow_up", numbers=[units],
             note="SUM(Qty) over all rows"),
        turn("sorry, what was the very first thing I asked you here?",
             "conversation", names=[q1],
             note="the first question of this chat, verbatim"),
    ])

    # ---- vs-002 months ------------------------------------------------------
    mon = db.all("SELECT month(date) m, SUM(amount) s FROM t GROUP BY 1 ORDER BY s DESC")
    best_m = db.top("SELECT month(date), SUM(amount) s FROM t GROUP BY 1 ORDER BY s DESC")[0]
    worst_m = db.top("SELECT month(date), SUM(amount) s FROM t GROUP BY 1 ORDER BY s ASC")[0]
    m = dict(mon)
    chat([
        turn("wich month had the highest revenue?", "in_schema",
             names=[MONTHS[best_m[0] - 1]], numbers=[best_m[1]],
             note="SUM(Amount) by month of Date (all 2022), max"),
        turn("and the weakest month?", "follow_up",
             names=[MONTHS[worst_m[0] - 1]], numbers=[worst_m[1]],
             note="SUM(Amount) by month, min"),
        turn("MoM growth Feb -> Mar, in %?", "in_schema",
             numbers=[growth(m[3], m[2])],
             note=f"(Mar {m[3]} - Feb {m[2]}) / Feb * 100"),
    ])

    # ---- vs-003 channel share -------------------------------------------------
    ch = db.top("SELECT channel, SUM(amount) s FROM t GROUP BY 1 ORDER BY s DESC")[0]
    myn = db.one("SELECT SUM(amount) FROM t WHERE channel='Myntra'")
    amz = db.one("SELECT SUM(amount) FROM t WHERE channel='Amazon'")
    assert ch[0] == "Amazon"
    chat([
        turn("prepping a board deck — which sales channel brings in the most "
             "revenue, and what share of total is it?", "extra_columns",
             names=[ch[0]], numbers=[pct(ch[1], total)],
             note="SUM(Amount) by Channel / total SUM(Amount) * 100"),
        turn("what about Myntra?", "follow_up", names=["Myntra"],
             numbers=[myn, pct(myn, total)],
             note="Myntra SUM(Amount) and its % of total"),
        turn("total sales from everything outside Amazon?", "negation_recency",
             numbers=[db.one("SELECT SUM(amount) FROM t WHERE channel<>'Amazon'")],
             note="SUM(Amount) WHERE Channel <> 'Amazon'"),
    ])

    # ---- vs-004 status ----------------------------------------------------------
    canc = db.one("SELECT COUNT(*) FROM t WHERE status='Cancelled'")
    canc_ids = db.one("SELECT COUNT(DISTINCT order_id) FROM t WHERE status='Cancelled'")
    ret = db.one("SELECT COUNT(*) FROM t WHERE status='Returned'")
    ret_ch = db.top("SELECT channel, COUNT(*) n FROM t WHERE status='Returned' "
                    "GROUP BY 1 ORDER BY n DESC")[0]
    chat([
        turn("How many orders were cancelled?", "extra_columns", numbers=[canc],
             note=f"rows with Status='Cancelled' (order = row; they carry "
                  f"{canc_ids} distinct Order IDs)"),
        turn("and what % of all orders ended up Returned?", "extra_columns",
             numbers=[pct(ret, nrows)],
             note=f"{ret} Returned rows / {nrows} rows * 100"),
        turn("ok give me revenue excluding cancelled, returned and refunded "
             "orders", "negation_recency",
             numbers=[db.one("SELECT SUM(amount) FROM t WHERE status NOT IN "
                             "('Cancelled','Returned','Refunded')")],
             note="SUM(Amount) WHERE Status='Delivered' (the only other status)"),
        turn("which channel had the most returns?", "extra_columns",
             names=[ret_ch[0]], numbers=[ret_ch[1]],
             note="COUNT(*) WHERE Status='Returned' by Channel, max"),
    ])

    # ---- vs-005 recency -----------------------------------------------------------
    lm = db.one("SELECT SUM(amount) FROM t WHERE year(date)=year(?::DATE) "
                "AND month(date)=month(?::DATE)", last, last)
    pm = db.one("SELECT SUM(amount) FROM t WHERE date >= date_trunc('month', ?::DATE) "
                "- INTERVAL 1 MONTH AND date < date_trunc('month', ?::DATE)", last, last)
    l90 = db.one("SELECT SUM(amount) FROM t WHERE date > ?::DATE - INTERVAL 90 DAY", last)
    l90b = db.one("SELECT SUM(amount) FROM t WHERE date >= ?::DATE - INTERVAL 90 DAY", last)
    assert l90 == l90b
    chat([
        turn("How did we do last month? revenue pls", "negation_recency",
             names=[MONTHS[last.month - 1]], numbers=[lm],
             note=f"latest Date is {last}; SUM(Amount) in December 2022"),
        turn("vs the month before that, % change?", "follow_up",
             numbers=[pm, growth(lm, pm)],
             note="November 2022 SUM(Amount) and (Dec - Nov)/Nov*100"),
        turn("and total revenue over the last 90 days?", "negation_recency",
             numbers=[l90],
             note=f"SUM(Amount) WHERE Date > {last} - 90 days (= Oct-Dec 2022)"),
    ])

    # ---- vs-006 gender / age group ---------------------------------------------------
    q6 = "Women vs men — who spends more with us, and by how much?"
    w = db.one("SELECT SUM(amount) FROM t WHERE gender='Women'")
    mn = db.one("SELECT SUM(amount) FROM t WHERE gender='Men'")
    ag = db.top("SELECT age_group, SUM(amount) s FROM t GROUP BY 1 ORDER BY s DESC")[0]
    agn = db.top("SELECT age_group, COUNT(*) n FROM t GROUP BY 1 ORDER BY n DESC")[0]
    assert w > mn
    chat([
        turn(q6, "extra_columns", names=["Women"], numbers=[w, mn, w - mn],
             note="SUM(Amount) by Gender and the difference"),
        turn("which age group brings in the most revenue?", "extra_columns",
             names=[ag[0]], numbers=[ag[1]],
             note="SUM(Amount) by 'Age group' (Teenager <30, Adult 30-49, Senior 50+)"),
        turn("same but by number of orders", "follow_up",
             names=[agn[0]], numbers=[agn[1]],
             note="COUNT(*) by 'Age group', max"),
        turn("remind me what I asked right before the age group question?",
             "conversation", names=[q6],
             note="the first question of this chat, verbatim"),
    ])

    # ---- vs-007 categories ---------------------------------------------------------------
    top3 = db.top("SELECT category, SUM(amount) s FROM t GROUP BY 1 ORDER BY s DESC", 3)
    bot = db.top("SELECT category, SUM(amount) s FROM t GROUP BY 1 ORDER BY s ASC")[0]
    ku = db.one("SELECT SUM(qty) FROM t WHERE category='kurta'")
    wd = db.one("SELECT SUM(qty) FROM t WHERE category='Western Dress'")
    chat([
        turn("top 3 catgories by sales?", "in_schema",
             names=[r[0] for r in top3], first=top3[0][0],
             note="SUM(Amount) by Category, top 3"),
        turn("and which category sells the least?", "follow_up",
             names=[bot[0]], numbers=[bot[1]],
             note="SUM(Amount) by Category, min"),
        turn("in units, is kurta ahead of Western Dress? by how many?",
             "in_schema", names=["kurta"], numbers=[ku, wd, ku - wd],
             note="SUM(Qty) for kurta and Western Dress, and the gap"),
    ])

    # ---- vs-008 unanswerable + self-statement ---------------------------------------------
    chat([
        turn("Hi — I'm Priya, I run merchandising for the Bangalore team. "
             "What's our profit margin on Sets?", "unanswerable", decline=True,
             note="no cost / profit column; only Amount (revenue)"),
        turn("ok. then just Set revenue shipped to Karnataka", "extra_columns",
             numbers=[db.one("SELECT SUM(amount) FROM t WHERE category='Set' "
                             "AND state_n='KARNATAKA'")],
             note="SUM(Amount) WHERE Category='Set' AND UPPER(ship-state)='KARNATAKA'"),
        turn("btw which team did I tell you I run?", "conversation",
             names=["merchandising", "Bangalore"],
             note="user said: merchandising for the Bangalore team"),
    ])

    # ---- vs-009 quarters -------------------------------------------------------------------
    bq = db.top("SELECT quarter(date), SUM(amount) s FROM t GROUP BY 1 ORDER BY s DESC")[0]
    qs = dict(db.all("SELECT quarter(date), SUM(amount) FROM t GROUP BY 1"))
    assert db.one("SELECT COUNT(DISTINCT year(date)) FROM t") == 1
    chat([
        turn("quarter by quarter, which qtr was strongest on revenue?",
             "in_schema", names=[f"Q{bq[0]}"], numbers=[bq[1]],
             note="SUM(Amount) by calendar quarter of Date (2022), max"),
        turn("QoQ change from Q3 to Q4?", "in_schema",
             numbers=[growth(qs[4], qs[3])],
             note=f"(Q4 {qs[4]} - Q3 {qs[3]}) / Q3 * 100"),
        turn("how does 2022 stack up against 2021?", "unanswerable",
             decline=True, note="file only holds 2022 (Jan 4 - Dec 6)"),
    ])

    # ---- vs-010 days ---------------------------------------------------------------------------
    bd = db.top("SELECT date, SUM(amount) s FROM t GROUP BY 1 ORDER BY s DESC")[0]
    wd_ = db.top("SELECT date, SUM(amount) s FROM t GROUP BY 1 ORDER BY s ASC")[0]
    bd_n = db.one("SELECT COUNT(*) FROM t WHERE date=?", bd[0])
    chat([
        turn("best single day for sales?", "in_schema",
             names=[day_name(bd[0])], numbers=[bd[1]],
             note="SUM(Amount) by Date, max"),
        turn("and the worst day?", "follow_up",
             names=[day_name(wd_[0])], numbers=[wd_[1]],
             note="SUM(Amount) by Date, min (36 dates in file)"),
        turn("how many orders did we get on the best day?", "follow_up",
             numbers=[bd_n], note="COUNT(*) rows on the best day"),
        turn("what was the revenue number you gave me for that best day?",
             "conversation", numbers=[bd[1]],
             note="figure from the first answer of this chat"),
    ])

    # ---- vs-011 AOV --------------------------------------------------------------------------------
    aov = dict((c, ratio(s, n)) for c, s, n in db.all(
        "SELECT channel, SUM(amount), COUNT(*) FROM t GROUP BY 1"))
    ba = db.top("SELECT channel, SUM(amount)/COUNT(*) a FROM t GROUP BY 1 ORDER BY a DESC")[0]
    chat([
        turn("what's the avg order value overall? (count every row as one "
             "order)", "in_schema", numbers=[ratio(total, nrows)],
             note="SUM(Amount) / COUNT(*)"),
        turn("AOV flipkart vs amazon?", "extra_columns",
             names=["Flipkart", "Amazon"], numbers=[aov["Flipkart"], aov["Amazon"]],
             note="SUM(Amount)/COUNT(*) per Channel"),
        turn("which channel has the highest AOV?", "extra_columns",
             names=[ba[0]], numbers=[aov[ba[0]]],
             note="SUM(Amount)/COUNT(*) per Channel, max"),
    ])

    # ---- vs-012 states ---------------------------------------------------------------------------------
    st5 = db.top("SELECT state_n, SUM(amount) s FROM t GROUP BY 1 ORDER BY s DESC", 5)
    st5_names = [s[0].title() for s in st5]
    rest = db.one("SELECT SUM(amount) FROM t WHERE state_n NOT IN "
                  f"({', '.join(repr(s[0]) for s in st5)})")
    chat([
        turn("top 5 states by revenue", "extra_columns",
             names=st5_names, first=st5_names[0],
             note="SUM(Amount) by UPPER(TRIM(ship-state)), top 5"),
        turn("what share of the total is the #1 state?", "follow_up",
             names=[st5_names[0]], numbers=[pct(st5[0][1], total)],
             note="top state SUM(Amount) / total * 100"),
        turn("and everything excluding those top 5 states?", "negation_recency",
             numbers=[rest], note="SUM(Amount) WHERE state not in the top 5"),
    ])

    # ---- vs-013 cities ---------------------------------------------------------------------------------
    cty = db.top("SELECT city_n, COUNT(*) n FROM t GROUP BY 1 ORDER BY n DESC")[0]
    chat([
        turn("Which city do we get the most orders from?", "extra_columns",
             names=[cty[0].title()], numbers=[cty[1]],
             note="COUNT(*) by UPPER(TRIM(ship-city)); spellings BENGALURU/"
                  "Bengaluru/bengaluru/BENGALURu merged"),
        turn("how much revenue came from there?", "follow_up",
             numbers=[db.one("SELECT SUM(amount) FROM t WHERE city_n=?", cty[0])],
             note="SUM(Amount) for that city, case-insensitive"),
    ])

    # ---- vs-014 -------------------------------------------------------------------------------------------
    q14 = "how much did we spend on Instagram ads in Q1?"
    chat([
        turn(q14, "unanswerable", decline=True,
             note="no marketing / ad-spend data in the file"),
        turn("fine — Myntra revenue in Q1 then", "extra_columns",
             numbers=[db.one("SELECT SUM(amount) FROM t WHERE channel='Myntra' "
                             "AND quarter(date)=1")],
             note="SUM(Amount) WHERE Channel='Myntra' AND Jan-Mar 2022"),
        turn("what was the first thing I asked in this chat?", "conversation",
             names=[q14], note="the first question of this chat, verbatim"),
    ])

    # ---- vs-015 sizes ---------------------------------------------------------------------------------------
    sz = db.top("SELECT size, SUM(qty) u FROM t GROUP BY 1 ORDER BY u DESC")[0]
    szl = db.top("SELECT size, SUM(qty) u FROM t WHERE size<>'Free' GROUP BY 1 ORDER BY u ASC")[0]
    szs = db.top("SELECT size, SUM(qty) u FROM t WHERE category='Set' GROUP BY 1 ORDER BY u DESC")[0]
    chat([
        turn("most popular size by units sold?", "extra_columns",
             names=[sz[0]], numbers=[sz[1]], note="SUM(Qty) by Size, max"),
        turn("leaving out Free size, which size sells the fewest units?",
             "negation_recency", names=[szl[0]], numbers=[szl[1]],
             note="SUM(Qty) by Size WHERE Size <> 'Free', min"),
        turn("and just within Sets, which size moves the most units?",
             "follow_up", names=[szs[0]], numbers=[szs[1]],
             note="SUM(Qty) by Size WHERE Category='Set', max"),
    ])

    # ---- vs-016 B2B ---------------------------------------------------------------------------------------------
    b2b = db.one("SELECT SUM(amount) FROM t WHERE b2b='TRUE'")
    chat([
        turn("how much revenue came from B2B orders?", "extra_columns",
             numbers=[b2b], note="SUM(Amount) WHERE B2B = TRUE"),
        turn("as a % of total?", "follow_up", numbers=[pct(b2b, total)],
             note="B2B SUM(Amount) / total * 100"),
        turn("can you show which sales rep closed each of those B2B orders?",
             "unanswerable", decline=True,
             note="no salesperson / rep column in the file"),
    ])

    # ---- vs-017 clarify ---------------------------------------------------------------------------------------------
    ids = db.one("SELECT COUNT(DISTINCT order_id) FROM t")
    chat([
        turn("how many orders do we have in total?", "in_schema", clarify=True,
             names=["row", "Order ID"],
             note=f"ambiguous: {nrows} rows vs {ids} distinct Order IDs (ids "
                  f"repeat across rows with different channel/city/age)"),
        turn("ok, count each row as one order. how many in Q4?", "in_schema",
             numbers=[db.one("SELECT COUNT(*) FROM t WHERE quarter(date)=4")],
             note="COUNT(*) WHERE Date in Oct-Dec 2022"),
    ])

    # ---- vs-018 conversation ---------------------------------------------------------------------------------------------
    chat([
        turn("I'm putting together a review for our Myntra account manager. "
             "What were total Myntra sales?", "extra_columns", numbers=[myn],
             note="SUM(Amount) WHERE Channel='Myntra'"),
        turn("how many units did Myntra ship in March?", "extra_columns",
             numbers=[db.one("SELECT SUM(qty) FROM t WHERE channel='Myntra' "
                             "AND month(date)=3")],
             note="SUM(Qty) WHERE Channel='Myntra' AND March 2022"),
        turn("what was that Myntra total again?", "conversation", numbers=[myn],
             note="figure from the first answer of this chat"),
        turn("and who did I say the review is for?", "conversation",
             names=["Myntra account manager"],
             note="user stated it in the first turn"),
    ])

    # ---- vs-019 negation --------------------------------------------------------------------------------------------------
    na = dict(db.all("SELECT gender, SUM(amount) FROM t WHERE age_group<>'Adult' GROUP BY 1"))
    chat([
        turn("revenue from customers who aren't in the Adult age group?",
             "negation_recency",
             numbers=[db.one("SELECT SUM(amount) FROM t WHERE age_group<>'Adult'")],
             note="SUM(Amount) WHERE 'Age group' <> 'Adult' (Teenager + Senior)"),
        turn("split that by gender", "follow_up", names=["Women", "Men"],
             numbers=[na["Women"], na["Men"]],
             note="same filter, SUM(Amount) by Gender"),
    ])

    # ---- vs-020 SKU ------------------------------------------------------------------------------------------------------------
    sku = db.top("SELECT sku, SUM(amount) s FROM t GROUP BY 1 ORDER BY s DESC")[0]
    cats = db.all("SELECT DISTINCT category FROM t WHERE sku=?", sku[0])
    assert len(cats) == 1
    chat([
        turn("top selling SKU by revenue?", "in_schema", names=[sku[0]],
             numbers=[sku[1]], note="SUM(Amount) by SKU, max"),
        turn("how many units did it sell?", "follow_up",
             numbers=[db.one("SELECT SUM(qty) FROM t WHERE sku=?", sku[0])],
             note="SUM(Qty) for that SKU"),
        turn("what category is it listed under?", "extra_columns",
             names=[cats[0][0]],
             note="Category of that SKU (despite 'KR' in the code it is not kurta)"),
    ])

    # ---- vs-021 ---------------------------------------------------------------------------------------------------------------------
    chat([
        turn("which warehouse shipped the most orders?", "unanswerable",
             decline=True, note="no warehouse / fulfilment-centre column"),
    ])

    # ---- vs-022 this year ----------------------------------------------------------------------------------------------------------
    q22b = "how much of that came in H2 (Jul–Dec)?"
    ty = db.one("SELECT SUM(amount), SUM(qty) FROM t WHERE year(date)=year(?::DATE)", last)
    chat([
        turn("this year's revenue so far, and units?", "negation_recency",
             numbers=[ty[0], ty[1]],
             note=f"'this year' = {last.year} (latest Date {last}); whole file"),
        turn(q22b, "in_schema",
             numbers=[db.one("SELECT SUM(amount) FROM t WHERE month(date)>=7")],
             note="SUM(Amount) WHERE month(Date) in 7..12"),
        turn("what was my second question?", "conversation", names=[q22b],
             note="the second question of this chat, verbatim"),
    ])

    return chats


def dumps(chats):
    return "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in chats)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", default=DEFAULT_CSV)
    ap.add_argument("--bank", default=DEFAULT_BANK)
    ap.add_argument("--jsonl", help="write the computed bank to this path")
    a = ap.parse_args()

    with open(a.csv, "rb") as f:
        sha = hashlib.sha256(f.read()).hexdigest()
    assert sha == CSV_SHA256, f"CSV sha256 {sha} != {CSV_SHA256}"

    chats = build(DB(a.csv))
    text = dumps(chats)
    if a.jsonl:
        with open(a.jsonl, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"wrote {a.jsonl}")
        return
    with open(a.bank, encoding="utf-8") as f:
        bank = [json.loads(l) for l in f if l.strip()]
    computed = json.loads("[" + ",".join(text.splitlines()) + "]")
    assert len(bank) == len(computed), (len(bank), len(computed))
    bad = 0
    for b, c in zip(bank, computed):
        if b != c:
            bad += 1
            print("MISMATCH", b.get("chat"), file=sys.stderr)
            for i, (tb, tc) in enumerate(zip(b.get("turns", []), c["turns"])):
                if tb != tc:
                    print(f"  turn {i + 1}\n  bank:     {tb}\n  computed: {tc}",
                          file=sys.stderr)
    assert bad == 0, f"{bad} chats differ"
    from collections import Counter
    cats = Counter(t["category"] for c in computed for t in c["turns"])
    print(f"OK: {len(computed)} chats, {sum(cats.values())} turns match; "
          + ", ".join(f"{k}={v}" for k, v in sorted(cats.items())))


if __name__ == "__main__":
    main()

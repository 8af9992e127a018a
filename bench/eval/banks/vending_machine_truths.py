#!/usr/bin/env python3
"""Truths for vending_machine_blind.jsonl (Kaggle "Vending Machine Sales", Central New Jersey, Jan-Aug 2022).

Written blind: only the data file was inspected. Every number and name in the bank comes from the SQL below;
none is typed by hand.

    python vending_machine_truths.py                      # check the bank -> "OK: N chats, M turns match the truths"
    python vending_machine_truths.py --show               # also print every question with its truth
    python vending_machine_truths.py --jsonl OUT.jsonl    # (re)write the bank from the truths
    python vending_machine_truths.py --csv PATH           # another copy of the file (or VENDING_CSV=PATH)

Conventions (also in README.md):
  revenue      = SUM(LineTotal) over every line (all lines; the one "Unlinked" line is 1.50 and counts)
  transactions = orders = COUNT(DISTINCT "Transaction");   units = SUM(MQty)
  avg ticket   = AOV = revenue / transactions;   shares and growth in percent, 2 decimals (12.34 = 12.34 %)
  periods use TransDate (the sale date, "Saturday, January 1, 2022"); "Prcd Date" is only the processing date
  recency is anchored on the latest TransDate, 2022-08-31, never today: last N days = TransDate > 2022-08-31 - N days
  a product is the exact "Product" string (names are truncated in the file, e.g. "... Sea Salt & Vinega")
"""
import argparse
import datetime as dt
import hashlib
import json
import os
import sys
from fractions import Fraction

import duckdb

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CSV = "/work/evaldata/vending_machine/vending_machine_sales.csv"
BANK = os.path.join(HERE, "vending_machine_blind.jsonl")
SHA256 = "14d835d27b0361774ba65bf5c95ace662eec442da77c3ca6e71da15b68be2651"
DATASET = "vending_machine"

con = None
ANCHOR = None  # latest TransDate


# ----------------------------------------------------------------------------- helpers
def load(path):
    global con, ANCHOR
    h = hashlib.sha256(open(path, "rb").read()).hexdigest()
    if h != SHA256:
        sys.exit(f"sha256 mismatch for {path}: {h} (expected {SHA256})")
    con = duckdb.connect()
    con.execute(
        "CREATE TABLE raw AS SELECT * FROM read_csv(?, header=true, all_varchar=true, delim=',', quote='\"')",
        [path],
    )
    n = con.execute("SELECT count(*) FROM raw").fetchone()[0]
    assert n == 6445, n
    con.execute(
        """
        CREATE TABLE t AS SELECT
          "Status" AS status, "Device ID" AS device, "Location" AS loc, "Machine" AS machine,
          "Product" AS product, "Category" AS cat, "Transaction" AS txn,
          strptime("TransDate", '%A, %B %-d, %Y')::DATE AS d,
          "Type" AS ptype,
          CAST(round(CAST("MPrice" AS DECIMAL(10,2)) * 100) AS BIGINT) AS price_c,
          CAST("MQty" AS INTEGER) AS qty,
          CAST(round(CAST("LineTotal" AS DECIMAL(10,2)) * 100) AS BIGINT) AS c,
          CAST(round(CAST("TransTotal" AS DECIMAL(10,2)) * 100) AS BIGINT) AS tc,
          strptime("Prcd Date", '%-m/%-d/%Y')::DATE AS pd
        FROM raw
        """
    )
    # sanity: the file's own arithmetic holds
    assert con.execute("SELECT count(*) FROM t WHERE d IS NULL OR pd IS NULL OR c IS NULL").fetchone()[0] == 0
    assert con.execute("SELECT count(*) FROM t WHERE price_c IS NOT NULL AND price_c*qty<>c").fetchone()[0] == 0
    assert con.execute(
        "SELECT count(*) FROM (SELECT txn FROM t GROUP BY 1 HAVING sum(c)<>max(tc) OR min(tc)<>max(tc))"
    ).fetchone()[0] == 0
    ANCHOR = con.execute("SELECT max(d) FROM t").fetchone()[0]
    assert ANCHOR == dt.date(2022, 8, 31)


def one(sql, *p):
    return con.execute(sql, list(p)).fetchone()


def rows(sql, *p):
    return con.execute(sql, list(p)).fetchall()


def r2(x):
    """Round a Fraction (or int) to 2 decimals, half-up; refuse a value exactly on a half cent."""
    x = Fraction(x)
    h = x * 100
    if h.denominator == 2:
        raise AssertionError(f"value {float(x)} sits exactly on a half cent")
    q = (h + Fraction(1, 2)).__floor__() if h >= 0 else -((-h + Fraction(1, 2)).__floor__())
    return round(q / 100, 2)


def money(cents):
    return r2(Fraction(int(cents), 100))


def pct(num, den):
    return r2(Fraction(num) / Fraction(den) * 100)


def growth(new, old):
    return r2((Fraction(new) - Fraction(old)) / Fraction(old) * 100)


def ranked(sql, k, *p, desc=True):
    """Rows (name, value, ...) ordered by value; asserts no tie at #1 and none at the cut k."""
    rs = rows(sql, *p)
    rs = sorted(rs, key=lambda r: (r[1], str(r[0])), reverse=desc)
    assert len(rs) >= k, (sql, rs)
    if len(rs) > 1:
        assert rs[0][1] != rs[1][1], ("tie for first", rs[:3])
    if len(rs) > k:
        assert rs[k - 1][1] != rs[k][1], ("tie at the cut", k, rs[k - 2 : k + 2])
    return rs


def nm(s):
    """A name as the bank writes it: runs of spaces collapsed (the file has e.g. 'BodyArmor  LYTE')."""
    return " ".join(s.split())


def dname(d):
    return f"{d:%B} {d.day}, {d.year}"


def mname(y, m):
    return f"{dt.date(y, m, 1):%B %Y}"


def T(q, category, note, numbers=None, names=None, first=None, decline=None, clarify=None):
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


def REV(where="TRUE", *p):
    return one(f"SELECT coalesce(sum(c),0) FROM t WHERE {where}", *p)[0]


def TXN(where="TRUE", *p):
    return one(f"SELECT count(DISTINCT txn) FROM t WHERE {where}", *p)[0]


def UNITS(where="TRUE", *p):
    return one(f"SELECT coalesce(sum(qty),0) FROM t WHERE {where}", *p)[0]


def last_n(n):
    return f"d > DATE '{ANCHOR}' - INTEGER '{n}'"


# ----------------------------------------------------------------------------- chats
CHATS = []


def chat(fn):
    CHATS.append(fn)
    return fn


@chat
def c01():
    q1 = "hey whats the total revenue in this vending file?"
    rev, n = REV(), TXN()
    return [
        T(q1, "in_schema", "SUM(LineTotal) over all 6,445 lines", numbers=[money(rev)]),
        T("how many transactions is that across", "follow_up", "COUNT(DISTINCT Transaction)", numbers=[n]),
        T("so avg ticket?", "follow_up", "revenue / distinct transactions", numbers=[r2(Fraction(rev, 100) / n)]),
        T("what was my first question again?", "conversation", "exact text of turn 1", names=[q1]),
    ]


@chat
def c02():
    rs = ranked("SELECT year(d)*100+month(d), sum(c) FROM t GROUP BY 1", 1)
    best, worst = rs[0], rs[-1]
    assert rs[-2][1] != worst[1]
    by, bm = divmod(best[0], 100)
    wy, wm = divmod(worst[0], 100)
    return [
        T("which month had the best sales", "in_schema", "revenue by calendar month of TransDate; July 2022 is highest",
          numbers=[money(best[1])], names=[mname(by, bm)], first=mname(by, bm)),
        T("and the worst month?", "follow_up", "lowest calendar month (every month Jan-Aug 2022 is complete)",
          numbers=[money(worst[1])], names=[mname(wy, wm)]),
        T("whats the % growth from jan to jul", "in_schema", "(Jul - Jan) / Jan * 100",
          numbers=[growth(best[1], worst[1])]),
    ]


@chat
def c03():
    rs = ranked("SELECT product, sum(c) FROM t WHERE product IS NOT NULL GROUP BY 1", 5)
    top5 = [r[0] for r in rs[:5]]
    ur = ranked("SELECT product, sum(qty) FROM t WHERE product IN (SELECT unnest(?)) GROUP BY 1", 1, top5)
    return [
        T("top 5 products by revenue?", "in_schema", "SUM(LineTotal) by Product; no tie at 5th/6th",
          numbers=[money(r[1]) for r in rs[:5]], names=[nm(x) for x in top5], first=nm(top5[0])),
        T("which of those 5 moved the most units", "follow_up", "SUM(MQty) among the top 5",
          numbers=[ur[0][1]], names=[nm(ur[0][0])], first=nm(ur[0][0])),
        T("remind me what was #3 on your top 5 list?", "conversation", "third product of the turn-1 ranking",
          names=[nm(top5[2])]),
    ]


@chat
def c04():
    rs = ranked("SELECT loc, sum(c) FROM t GROUP BY 1", 4)
    aov = rows("SELECT loc, sum(c), count(DISTINCT txn) FROM t GROUP BY 1")
    aov = sorted(((l, Fraction(c, 100) / n) for l, c, n in aov), key=lambda r: r[1], reverse=True)
    assert aov[0][1] != aov[1][1] and aov[-1][1] != aov[-2][1]
    return [
        T("revnue by location pls", "extra_columns", "SUM(LineTotal) by Location",
          numbers=[money(r[1]) for r in rs], names=[r[0] for r in rs], first=rs[0][0]),
        T("which location has the highest avg spend per transaction?", "extra_columns",
          "revenue / distinct transactions per Location", numbers=[r2(aov[0][1])], names=[aov[0][0]], first=aov[0][0]),
    ]


@chat
def c05():
    ms = [r[0] for r in rows("SELECT DISTINCT machine FROM t WHERE loc='Brunswick Sq Mall' ORDER BY 1")]
    assert len(ms) == 2
    zales = [m for m in ms if "Zales" in m][0]
    jul = "month(d)=7 AND machine=?"
    return [
        T("how did the mall machine do in july?", "extra_columns",
          "Brunswick Sq Mall has two machines; a good answer asks which one (or gives both separately)",
          names=ms, clarify=True),
        T("the zales one", "follow_up", "July 2022 revenue of machine 'BSQ Mall x1364 - Zales'",
          numbers=[money(REV(jul, zales))], names=[zales]),
    ]


@chat
def c06():
    cash, credit = REV("ptype='Cash'"), REV("ptype='Credit'")
    p_all = pct(TXN("ptype='Credit'"), TXN())
    p_gp = pct(TXN("ptype='Credit' AND loc='GuttenPlans'"), TXN("loc='GuttenPlans'"))
    bigger = "overall" if p_all > p_gp else "GuttenPlans"
    assert bigger == "overall"
    return [
        T("split of revenue cash vs credit?", "extra_columns", "SUM(LineTotal) by Type",
          numbers=[money(cash), money(credit)], names=["Cash", "Credit"]),
        T("what % of transactions were paid by credit?", "extra_columns",
          "distinct Credit transactions / all distinct transactions * 100", numbers=[p_all]),
        T("same thing but only GuttenPlans", "follow_up", "credit share of distinct transactions at GuttenPlans",
          numbers=[p_gp], names=["GuttenPlans"]),
        T("which was bigger, the overall % or the GuttenPlans one?", "conversation",
          f"compares the figures of turns 2 and 3: the overall credit share ({p_all}) is higher than GuttenPlans' ({p_gp})",
          numbers=[p_all, p_gp]),
    ]


@chat
def c07():
    rs = ranked("SELECT cat, sum(c) FROM t WHERE cat IS NOT NULL GROUP BY 1", 1)
    blank = REV("cat IS NULL")
    nblank = one("SELECT count(*) FROM t WHERE cat IS NULL")[0]
    nprod = one("SELECT count(DISTINCT product) FROM t WHERE cat IS NULL")[0]
    noprod = one("SELECT count(*) FROM t WHERE product IS NULL")[0]
    assert one("SELECT count(*) FROM t WHERE product IS NULL AND cat IS NOT NULL")[0] == 0
    return [
        T("which categroy makes the most money?", "extra_columns", "SUM(LineTotal) by Category (blank category left out)",
          numbers=[money(rs[0][1])], names=[rs[0][0]], first=rs[0][0]),
        T("how much revenue has no category filled in?", "extra_columns",
          f"SUM(LineTotal) where Category is empty ({nblank} lines: {nprod} named products such as the Go Paks, plus the {noprod} lines without a product)",
          numbers=[money(blank)]),
    ]


@chat
def c08():
    r30, r7 = REV(last_n(30)), REV(last_n(7))
    return [
        T("how much did we do in the last 30 days?", "negation_recency",
          "TransDate 2022-08-02 .. 2022-08-31 (30 days ending on the latest date in the file)", numbers=[money(r30)]),
        T("and last 7 days?", "follow_up", "TransDate 2022-08-25 .. 2022-08-31", numbers=[money(r7)]),
        T("remind me what the 30 day number was", "conversation", "the figure from turn 1", numbers=[money(r30)]),
    ]


@chat
def c09():
    ex_gp = REV("loc<>'GuttenPlans'")
    ex_gp_credit = REV("loc<>'GuttenPlans' AND ptype<>'Credit'")
    return [
        T("total revenue excluding GuttenPlans", "negation_recency", "SUM(LineTotal) where Location <> GuttenPlans",
          numbers=[money(ex_gp)]),
        T("now also leave out credit card sales", "negation_recency",
          "Location <> GuttenPlans and Type <> Credit (i.e. cash at the other three locations)",
          numbers=[money(ex_gp_credit)]),
    ]


@chat
def c10():
    p = "Red Bull - Original"
    locs_all = [r[0] for r in rows("SELECT DISTINCT loc FROM t ORDER BY 1")]
    sold = {r[0] for r in rows("SELECT DISTINCT loc FROM t WHERE product=?", p)}
    never = [l for l in locs_all if l not in sold]
    return [
        T("how many Red Bull - Original did we sell, and for how much?", "in_schema", "SUM(MQty), SUM(LineTotal) for the product",
          numbers=[UNITS("product=?", p), money(REV("product=?", p))], names=[p]),
        T("which locations never sold it?", "negation_recency", "the Locations with no line of Red Bull - Original",
          names=never),
    ]


@chat
def c11():
    cands = [r[0] for r in rows("SELECT DISTINCT product FROM t WHERE product ILIKE 'Coca Cola%' ORDER BY 1")]
    assert cands == ["Coca Cola - Regular", "Coca Cola - Zero Sugar"], cands
    z = "Coca Cola - Zero Sugar"
    return [
        T("how's the coke doing? units sold?", "in_schema",
          "two products match 'coke': Coca Cola - Regular and Coca Cola - Zero Sugar; a good answer asks which (or gives both separately)",
          names=cands, clarify=True),
        T("zero sugar", "follow_up", "SUM(MQty) and SUM(LineTotal) for Coca Cola - Zero Sugar",
          numbers=[UNITS("product=?", z), money(REV("product=?", z))], names=[z]),
    ]


@chat
def c12():
    rs = ranked("SELECT d, sum(c) FROM t GROUP BY 1", 1)
    day = rs[0][0]
    return [
        T("whats the single best day we've had?", "in_schema", f"revenue by TransDate; best is {day.isoformat()}",
          numbers=[money(rs[0][1])], names=[dname(day)], first=dname(day)),
        T("how many transactions that day", "follow_up", "distinct transactions on that date", numbers=[TXN("d=?", day)]),
    ]


@chat
def c13():
    q1, q2 = REV("quarter(d)=1"), REV("quarter(d)=2")
    return [
        T("Q1 vs Q2 revenue?", "in_schema", "calendar quarters of 2022 by TransDate", numbers=[money(q1), money(q2)]),
        T("so QoQ growth?", "follow_up", "(Q2 - Q1) / Q1 * 100", numbers=[growth(q2, q1)]),
    ]


@chat
def c15():
    q1 = "what's the profit margin on Monster Energy?"
    p = "Monster Energy Original"
    return [
        T(q1, "unanswerable", "no cost or margin column; only selling prices", decline=True),
        T("ok then just monster energy original revenue in june", "in_schema", "SUM(LineTotal), product, June 2022",
          numbers=[money(REV("product=? AND month(d)=6", p))], names=[p]),
        T("what did i ask u first?", "conversation", "exact text of turn 1", names=[q1]),
    ]


@chat
def c16():
    eb, ea = "EB Public Library", "Earle Asphalt"
    return [
        T("Hi, I'm Dana, I look after the EB Public Library and Earle Asphalt machines. how many transactions did the library have?",
          "extra_columns", "distinct transactions at Location EB Public Library", numbers=[TXN("loc=?", eb)], names=[eb]),
        T("and Earle Asphalt?", "follow_up", "distinct transactions at Earle Asphalt", numbers=[TXN("loc=?", ea)], names=[ea]),
        T("whats my name and which sites did I say I cover?", "conversation", "stated in turn 1", names=["Dana", eb, ea]),
    ]


@chat
def c17():
    multi = one("SELECT count(*) FROM (SELECT txn FROM t GROUP BY 1 HAVING count(*)>1)")[0]
    rs = ranked("SELECT txn, max(tc) FROM t GROUP BY 1", 1)
    big = rs[0][0]
    return [
        T("how many transactions had more than one product line on them?", "extra_columns",
          "transactions with more than one row in the file", numbers=[multi]),
        T("whats the biggest single transaction by value?", "in_schema", "largest TransTotal (= sum of its lines)",
          numbers=[money(rs[0][1])], names=[big]),
    ]


@chat
def c18():
    r = rows("SELECT txn, status, d, loc, machine, c FROM t WHERE status<>'Processed'")
    assert len(r) == 1
    txn, status, d, loc, machine, c = r[0]
    return [
        T("are there any transactions that didn't get processed?", "extra_columns",
          f"Status is 'Processed' on every line but one: transaction {txn}, status {status}, {d.isoformat()}",
          numbers=[1, money(c)], names=[txn, status, dname(d)]),
        T("which machine was that on?", "follow_up", "Machine of that line", names=[machine]),
    ]


@chat
def c19():
    aug, jul = REV("year(d)=2022 AND month(d)=8"), REV("year(d)=2022 AND month(d)=7")
    return [
        T("how did the latest month compare to the month before?", "negation_recency",
          "latest month = August 2022 (the data ends 2022-08-31) vs July 2022; growth (Aug-Jul)/Jul*100",
          numbers=[money(aug), money(jul), growth(aug, jul)], names=["August 2022", "July 2022"]),
        T("what's revenue this year so far?", "negation_recency",
          "this year = 2022 up to the latest date 2022-08-31, i.e. the whole file", numbers=[money(REV("year(d)=2022"))]),
    ]


@chat
def c20():
    txn = "14878665903"
    r = rows("SELECT product, c, d, loc, ptype, tc FROM t WHERE txn=? ORDER BY product NULLS LAST", txn)
    assert len(r) == 2 and r[1][0] is None
    c0, c1 = money(r[0][1]), money(r[1][1])
    return [
        T(f"can you pull up transaction {txn}?", "in_schema",
          f"2 lines on {r[0][2].isoformat()} at {r[0][3]}, {r[0][4]}: {r[0][0]} {c0:.2f} and a line with no product {c1:.2f}; TransTotal {money(r[0][5]):.2f}",
          numbers=[money(r[0][5])], names=[nm(r[0][0]), r[0][3], dname(r[0][2])]),
        T("who was the customer on that one?", "unanswerable", "no customer column", decline=True),
    ]


@chat
def c21():
    dev = "VJ300320686"
    machine = one("SELECT min(machine) FROM t WHERE device=?", dev)[0]
    assert one("SELECT count(DISTINCT machine) FROM t WHERE device=?", dev)[0] == 1
    return [
        T(f"how much did device {dev} take in?", "extra_columns", f"SUM(LineTotal) where Device ID = {dev} ({machine})",
          numbers=[money(REV("device=?", dev))], names=[machine]),
        T("what device id did i ask about?", "conversation", "from turn 1", names=[dev]),
    ]


@chat
def c22():
    ur = ranked("SELECT product, sum(qty) FROM t WHERE cat='Water' GROUP BY 1", 1)
    top = ur[0][0]
    return [
        T("top selling water product by units?", "extra_columns", "SUM(MQty) by Product within Category Water",
          numbers=[ur[0][1]], names=[nm(top)], first=nm(top)),
        T("water revenue excluding that one", "negation_recency", f"Category Water, Product <> {top}",
          numbers=[money(REV("cat='Water' AND product<>?", top))]),
    ]


@chat
def c23():
    lag = one("SELECT max(pd - d) FROM t")[0]
    r = rows("SELECT product, d, pd FROM t WHERE pd - d = ?", lag)
    assert len(r) == 1
    return [
        T("whats the longest delay between the sale date and the processed date?", "extra_columns",
          f"max(Prcd Date - TransDate) in days: {r[0][1].isoformat()} -> {r[0][2].isoformat()}",
          numbers=[lag], names=[dname(r[0][1])]),
        T("why was that one so late?", "unanswerable", "the file has no reason for a processing delay", decline=True),
    ]


@chat
def c24():
    out = REV("loc<>'Brunswick Sq Mall'")
    rs = ranked(f"SELECT product, sum(c) FROM t WHERE {last_n(7)} GROUP BY 1", 1)
    return [
        T("what's revenue outside the mall?", "negation_recency", "Location <> Brunswick Sq Mall", numbers=[money(out)]),
        T("best seller in the last week of data?", "negation_recency",
          "revenue by Product, TransDate 2022-08-25 .. 2022-08-31", numbers=[money(rs[0][1])], names=[nm(rs[0][0])],
          first=nm(rs[0][0])),
    ]


@chat
def c25():
    carb, ncarb = REV("cat='Carbonated' AND month(d)=6"), REV("cat='Non Carbonated' AND month(d)=6")
    assert carb > ncarb
    return [
        T("Carbonated revenue in june?", "extra_columns", "Category Carbonated, June 2022", numbers=[money(carb)]),
        T("and Non Carbonated?", "follow_up", "Category Non Carbonated, June 2022", numbers=[money(ncarb)]),
        T("which of those two was higher?", "conversation", "compares turns 1 and 2: Carbonated is higher",
          numbers=[money(carb)], names=["Carbonated"]),
    ]


@chat
def c26():
    return [
        T("what will september revenue be? exact number pls", "unanswerable",
          "the data ends 2022-08-31; an exact future figure cannot be known (a clearly labelled estimate is fine, an invented exact number is not)",
          decline=True),
        T("ok. how much foot traffic did the mall get in august?", "unanswerable", "no visitor / foot-traffic data", decline=True),
    ]


@chat
def c27():
    vday = dt.date(2022, 2, 14)
    rs = ranked("SELECT month(d), sum(c) FROM t WHERE year(d)=2022 AND loc='Earle Asphalt' GROUP BY 1", 1)
    return [
        T("how many items did we sell in total, units", "in_schema", "SUM(MQty)", numbers=[UNITS()]),
        T("what did we make on valentines day", "in_schema", "revenue on 2022-02-14", numbers=[money(REV("d=?", vday))],
          names=[dname(vday)]),
        T("what share of total revenue did July bring in, all sites?", "in_schema",
          "July 2022 revenue / total revenue * 100", numbers=[pct(REV("month(d)=7"), REV())]),
        T("whats Earle Asphalt's best month", "in_schema", "revenue by month at Earle Asphalt",
          numbers=[money(rs[0][1])], names=[mname(2022, rs[0][0])], first=mname(2022, rs[0][0])),
    ]


# ----------------------------------------------------------------------------- main
def build():
    out = []
    for i, fn in enumerate(CHATS, 1):
        out.append({"chat": f"vend-{i:03d}", "dataset": DATASET, "turns": fn()})
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv", nargs="?", default=None)
    ap.add_argument("--csv", dest="csv_opt")
    ap.add_argument("--bank", default=BANK)
    ap.add_argument("--jsonl")
    ap.add_argument("--show", action="store_true")
    a = ap.parse_args()
    path = a.csv_opt or a.csv or os.environ.get("VENDING_CSV") or DEFAULT_CSV
    load(path)
    chats = build()
    nturns = sum(len(c["turns"]) for c in chats)
    if a.show:
        for c in chats:
            print(c["chat"])
            for t in c["turns"]:
                print(f"  [{t['category']}] {t['q']}\n      -> {json.dumps(t['expect'], ensure_ascii=False)}")
    if a.jsonl:
        with open(a.jsonl, "w", encoding="utf-8") as f:
            for c in chats:
                f.write(json.dumps(c, ensure_ascii=False) + "\n")
        print(f"wrote {len(chats)} chats, {nturns} turns to {a.jsonl}")
        return 0
    try:
        bank = [json.loads(l) for l in open(a.bank, encoding="utf-8") if l.strip()]
    except FileNotFoundError:
        print(f"MISMATCH: no bank at {a.bank}")
        return 1
    want = {c["chat"]: c for c in json.loads(json.dumps(chats))}
    have = {c["chat"]: c for c in bank}
    for cid in list(want) + [c for c in have if c not in want]:
        if want.get(cid) != have.get(cid):
            print(f"MISMATCH: chat {cid}")
            return 1
    print(f"OK: {len(chats)} chats, {nturns} turns match the truths")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Truths for crm_sales_pipeline_blind.jsonl (Maven Analytics "CRM Sales Opportunities", sales_pipeline.csv).

Standalone: needs only duckdb (plus the Python standard library).

    python crm_sales_pipeline_truths.py                      # check the bank against the CSV -> exit 0 / 1
    python crm_sales_pipeline_truths.py --jsonl OUT.jsonl    # regenerate the bank
    python crm_sales_pipeline_truths.py --csv PATH           # another copy of the CSV (same sha256)
    python crm_sales_pipeline_truths.py --bank PATH          # check another bank file

Every number, name and `first` below comes from SQL on the CSV; none is typed by hand.

Conventions (also in README.md):
  revenue / won revenue / bookings = SUM(close_value) over deal_stage = 'Won' (Lost rows carry 0, open rows are blank);
  a deal / order = one row (opportunity_id is unique); won deals = rows with deal_stage = 'Won';
  customers = accounts = COUNT(DISTINCT account) over won deals; AOV / avg deal size = revenue / won deals;
  win rate = won / (won + lost) * 100 (open deals left out); open deals = 'Engaging' + 'Prospecting';
  sales cycle = close_date - engage_date in days, averaged per deal;
  periods use close_date (engage_date only where the question says "engaged");
  recency is anchored on the file's latest date, 2017-12-31 (the latest close_date), never on today's date.
Money and ratios are rounded half-up to 2 decimals from exact fractions; percents are written 12.34.
A truth that lands exactly on a half cent is refused, and so is a tie at the cut of any ranking (or at #1).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from datetime import date
from fractions import Fraction

import duckdb

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CSV = "/work/evaldata/crm_sales_pipeline/sales_pipeline.csv"
DEFAULT_BANK = os.path.join(HERE, "crm_sales_pipeline_blind.jsonl")
SHA256 = "825ce8f6c32d4009548b468df3173d55a46fd73f2531f532c5459371dc52adf2"
DATASET = "crm_sales_pipeline"
ANCHOR = date(2017, 12, 31)  # latest date in the file (max close_date); asserted below

W = "deal_stage = 'Won'"
L = "deal_stage = 'Lost'"
OPEN = "deal_stage IN ('Engaging', 'Prospecting')"

con: duckdb.DuckDBPyConnection


# ---------------------------------------------------------------- helpers
def load(csv_path: str) -> None:
    global con
    with open(csv_path, "rb") as fh:
        digest = hashlib.sha256(fh.read()).hexdigest()
    if digest != SHA256:
        sys.exit(f"FAIL: {csv_path} has sha256 {digest}, expected {SHA256}")
    con = duckdb.connect()
    con.execute(
        "CREATE TABLE t AS SELECT * FROM read_csv(?, header = true, delim = ',', quote = '\"', "
        "columns = {'opportunity_id': 'VARCHAR', 'sales_agent': 'VARCHAR', 'product': 'VARCHAR', "
        "'account': 'VARCHAR', 'deal_stage': 'VARCHAR', 'engage_date': 'DATE', 'close_date': 'DATE', "
        "'close_value': 'BIGINT'}, dateformat = '%Y-%m-%d')",
        [csv_path],
    )
    n, ids = con.execute("SELECT count(*), count(DISTINCT opportunity_id) FROM t").fetchone()
    assert n == 8800 and ids == 8800, (n, ids)
    latest = con.execute("SELECT greatest(max(close_date), max(engage_date)) FROM t").fetchone()[0]
    assert latest == ANCHOR, latest
    # Lost deals carry close_value 0, so SUM over all rows equals SUM over won rows.
    assert con.execute(f"SELECT count(*) FROM t WHERE {L} AND close_value <> 0").fetchone()[0] == 0


def one(sql: str, *params):
    row = con.execute(sql, list(params)).fetchone()
    return row[0] if len(row) == 1 else row


def rows(sql: str, *params):
    return con.execute(sql, list(params)).fetchall()


def r2(x) -> float | int:
    """Round half-up to 2 decimals from an exact value; refuse exact half cents."""
    if isinstance(x, int):
        return x
    f = Fraction(x)
    if f.denominator == 1:
        return int(f)
    c = f * 100
    frac = c - (c.numerator // c.denominator)
    assert frac != Fraction(1, 2), f"truth {float(f)} sits exactly on a half cent"
    sign = -1 if f < 0 else 1
    a = abs(c)
    q = (a.numerator * 2 + a.denominator) // (2 * a.denominator)  # half-up on the magnitude
    return float(sign * q) / 100


def pct(part, whole) -> float:
    return r2(Fraction(int(part)) * 100 / Fraction(int(whole)))


def ratio(num, den) -> float:
    return r2(Fraction(int(num)) / Fraction(int(den)))


def growth(new, old) -> float:
    return r2((Fraction(int(new)) - Fraction(int(old))) * 100 / Fraction(int(old)))


def ranked(sql: str, k: int, *params):
    """Rows (name, value, ...) ordered as the SQL orders them; assert no tie at #1 nor at the cut k."""
    rs = rows(sql, *params)
    assert len(rs) >= k, (sql, rs)
    if len(rs) > 1:
        assert rs[0][1] != rs[1][1], f"tie at #1: {rs[:2]}"
    if len(rs) > k:
        assert rs[k - 1][1] != rs[k][1], f"tie at the cut {k}: {rs[k - 1]} / {rs[k]}"
    return rs[:k]


def day(d: date) -> str:
    return f"{d.strftime('%B')} {d.day}, {d.year}"


def month(y: int, m: int) -> str:
    return date(y, m, 1).strftime("%B %Y")


def T(q, category, **expect):
    e = {k: v for k, v in expect.items() if v is not None}
    return {"q": q, "category": category, "expect": e}


# ---------------------------------------------------------------- chats
def chats():
    out = []

    def chat(turns):
        out.append({"chat": f"crm-{len(out) + 1:03d}", "dataset": DATASET, "turns": turns})

    # crm-001: total, deals, AOV; first question
    q1 = "hey - whats our total closed won revenue in this file?"
    rev = one(f"SELECT sum(close_value) FROM t WHERE {W}")
    won = one(f"SELECT count(*) FROM t WHERE {W}")
    chat([
        T(q1, "in_schema", numbers=[int(rev)],
          note="SUM(close_value) over deal_stage='Won' (Lost rows carry 0; Engaging/Prospecting rows are blank)"),
        T("how many deals is that? and the avg deal size", "follow_up", numbers=[won, ratio(rev, won)],
          note="won deals = rows with deal_stage='Won'; avg deal = won revenue / won deals"),
        T("what was the first thing i asked you, word for word?", "conversation", names=[q1],
          note="the text of the chat's first question"),
    ])

    # crm-002: best / weakest month, MoM growth
    months = rows(f"SELECT year(close_date) y, month(close_date) m, sum(close_value) r FROM t WHERE {W} "
                  "GROUP BY 1, 2 ORDER BY r DESC")
    assert months[0][2] != months[1][2] and months[-1][2] != months[-2][2]
    assert one("SELECT min(close_date) FROM t") == date(2017, 3, 1)  # every month with closes is complete
    by_m = {(y, m): r for y, m, r in months}
    chat([
        T("which month had the highest won revenue? go by close date", "in_schema",
          first=month(*months[0][:2]), names=[month(*months[0][:2])], numbers=[int(months[0][2])],
          note="won revenue by calendar month of close_date; closes run 2017-03-01 .. 2017-12-31 (10 full months)"),
        T("and the weakest one?", "follow_up", first=month(*months[-1][:2]), names=[month(*months[-1][:2])],
          numbers=[int(months[-1][2])], note="lowest won revenue of the 10 months"),
        T("whats the % growth from july to aug?", "in_schema",
          numbers=[growth(by_m[(2017, 8)], by_m[(2017, 7)])],
          note=f"(Aug 2017 {by_m[(2017, 8)]} - Jul 2017 {by_m[(2017, 7)]}) / Jul * 100"),
    ])

    # crm-003: top 5 / bottom 3 reps
    top5 = ranked(f"SELECT sales_agent, sum(close_value) r FROM t WHERE {W} GROUP BY 1 ORDER BY r DESC", 5)
    bot3 = ranked(f"SELECT sales_agent, sum(close_value) r FROM t WHERE {W} GROUP BY 1 ORDER BY r ASC", 3)
    chat([
        T("top 5 reps by won revenue pls", "extra_columns", first=top5[0][0], names=[r[0] for r in top5],
          numbers=[int(top5[0][1])], note="sales_agent ranked by SUM(close_value) of won deals (30 reps)"),
        T("bottom 3?", "follow_up", first=bot3[0][0], names=[r[0] for r in bot3], numbers=[int(bot3[0][1])],
          note="the 3 reps with the lowest won revenue, lowest first"),
        T("how much did u say the #1 rep brought in?", "conversation", names=[top5[0][0]],
          numbers=[int(top5[0][1])], note="the top rep's won revenue given in the first answer"),
    ])

    # crm-004: top product, share, most deals
    prod = ranked(f"SELECT product, sum(close_value) r FROM t WHERE {W} GROUP BY 1 ORDER BY r DESC", 1)[0]
    pdeals = ranked(f"SELECT product, count(*) n FROM t WHERE {W} GROUP BY 1 ORDER BY n DESC", 1)[0]
    chat([
        T("which product makes us the most money, and how much?", "in_schema", first=prod[0], names=[prod[0]],
          numbers=[int(prod[1])], note="product by won revenue; the file spells it 'GTXPro' (no space)"),
        T("whats that as a % of total?", "follow_up", numbers=[pct(prod[1], rev)],
          note=f"{prod[0]} won revenue / total won revenue {rev} * 100"),
        T("which product has the most won deals tho", "in_schema", first=pdeals[0], names=[pdeals[0]],
          numbers=[pdeals[1]], note="count of won rows per product"),
    ])

    # crm-005: account look-ups
    def acct(a):
        return one(f"SELECT sum(close_value), count(*) FROM t WHERE {W} AND account = ?", a)
    kr, kn = acct("Kan-code")
    xr, xn = acct("Konex")
    assert kr != xr
    chat([
        T("how much have we won from Kan-code? and how many deals", "in_schema", names=["Kan-code"],
          numbers=[int(kr), kn], note="won revenue and won deals of account 'Kan-code'"),
        T("and Konex?", "follow_up", names=["Konex"], numbers=[int(xr), xn],
          note="same for account 'Konex'"),
        T("which of those two accounts was bigger?", "conversation",
          names=["Kan-code" if kr > xr else "Konex"], note=f"Kan-code {kr} vs Konex {xr}"),
    ])

    # crm-006: opportunity look-up
    opp = rows("SELECT sales_agent, product, account, deal_stage, engage_date, close_date, close_value "
               "FROM t WHERE opportunity_id = '1C1I7A6R'")
    assert len(opp) == 1
    ag, pr, ac, st, ed, cd, cv = opp[0]
    an, ar = one(f"SELECT count(*), sum(close_value) FROM t WHERE {W} AND sales_agent = ?", ag)
    chat([
        T("can you pull up opp 1C1I7A6R - rep, product, account and value?", "in_schema",
          names=[ag, pr, ac], numbers=[int(cv)],
          note=f"opportunity_id 1C1I7A6R: {st}, engaged {ed}, closed {cd}"),
        T("how many deals has that rep won overall, and for how much?", "follow_up", names=[ag],
          numbers=[an, int(ar)], note=f"won deals and won revenue of {ag}"),
    ])

    # crm-007: quarters, QoQ, biggest quarter
    qs = rows(f"SELECT quarter(close_date) q, sum(close_value) FROM t WHERE {W} GROUP BY 1 ORDER BY 1")
    assert [q for q, _ in qs] == [1, 2, 3, 4] and one("SELECT count(DISTINCT year(close_date)) FROM t") == 1
    qv = {q: int(v) for q, v in qs}
    big = ranked(f"SELECT quarter(close_date) q, sum(close_value) r FROM t WHERE {W} GROUP BY 1 ORDER BY r DESC", 1)[0]
    chat([
        T("revenue by quater pls (by close date)", "in_schema", numbers=[qv[1], qv[2], qv[3], qv[4]],
          note="won revenue per calendar quarter of 2017; Q1 holds March only (closes start 2017-03-01)"),
        T("q4 vs q3, % change?", "follow_up", numbers=[growth(qv[4], qv[3])],
          note="(Q4 - Q3) / Q3 * 100, a decline"),
        T("which quarter did you say was the biggest?", "conversation", names=[f"Q{big[0]} 2017"],
          numbers=[int(big[1])], note="the largest quarter in the first answer"),
    ])

    # crm-008: best single day; deals that day and the rep with most of them
    bd = ranked(f"SELECT close_date, sum(close_value) r FROM t WHERE {W} GROUP BY 1 ORDER BY r DESC", 1)[0]
    bn = one(f"SELECT count(*) FROM t WHERE {W} AND close_date = ?", bd[0])
    brep = ranked(f"SELECT sales_agent, count(*) n FROM t WHERE {W} AND close_date = ? GROUP BY 1 ORDER BY n DESC",
                  1, bd[0])[0]
    chat([
        T("what was our best single day for closed revenue?", "in_schema", names=[day(bd[0])],
          numbers=[int(bd[1])], note=f"close_date with the highest won revenue: {bd[0]}"),
        T("how many deals closed won that day, and which rep closed the most of them?", "follow_up",
          names=[brep[0]], numbers=[bn], note=f"won deals on {bd[0]}; {brep[0]} won {brep[1]} of them (most by count)"),
    ])

    # crm-009: win rate, open deals
    lost = one(f"SELECT count(*) FROM t WHERE {L}")
    opn = one(f"SELECT count(*) FROM t WHERE {OPEN}")
    chat([
        T("whats our overall win rate? won / (won + lost)", "extra_columns", numbers=[pct(won, won + lost)],
          note=f"{won} won / ({won} won + {lost} lost) * 100; open deals left out"),
        T("how many opps are still open - engaging or prospecting?", "extra_columns", numbers=[opn],
          note="rows with deal_stage 'Engaging' or 'Prospecting' (no close date, no value)"),
    ])

    # crm-010: best / worst rep win rate; manager -> decline
    wr_sql = (f"SELECT sales_agent, count(*) FILTER (WHERE {W}) w, count(*) FILTER (WHERE {W} OR {L}) c "
              "FROM t GROUP BY 1")
    wr = sorted(((a, Fraction(w, c)) for a, w, c in rows(wr_sql)), key=lambda x: x[1], reverse=True)
    assert wr[0][1] != wr[1][1] and wr[-1][1] != wr[-2][1]
    chat([
        T("which rep has the best win rate? closed deals only", "extra_columns", first=wr[0][0], names=[wr[0][0]],
          numbers=[r2(wr[0][1] * 100)], note="per rep: won / (won + lost) * 100"),
        T("and the worst?", "follow_up", first=wr[-1][0], names=[wr[-1][0]], numbers=[r2(wr[-1][1] * 100)],
          note="lowest win rate of the 30 reps"),
        T(f"ok who's {wr[-1][0].split()[0]}'s manager, and which regional office are they in?", "unanswerable",
          decline=True, note="manager and regional office are not columns of sales_pipeline.csv "
                             "(they live in the dataset's separate sales_teams.csv)"),
    ])

    # crm-011: sales cycle
    def cycle(where):
        s, n = one(f"SELECT sum(close_date - engage_date), count(*) FROM t WHERE {where}")
        return ratio(s, n)
    pc = sorted(((p, Fraction(int(s), n)) for p, s, n in
                 rows(f"SELECT product, sum(close_date - engage_date), count(*) FROM t WHERE {W} GROUP BY 1")),
                key=lambda x: x[1], reverse=True)
    assert pc[0][1] != pc[1][1]
    chat([
        T("avg sales cycle on won deals, engage to close, in days?", "extra_columns", numbers=[cycle(W)],
          note="AVG(close_date - engage_date) over won deals"),
        T("and on lost ones?", "follow_up", numbers=[cycle(L)], note="same over lost deals"),
        T("which product takes longest to close? avg days, won deals", "extra_columns", first=pc[0][0],
          names=[pc[0][0]], numbers=[r2(pc[0][1])], note="AVG(close_date - engage_date) per product, won deals"),
    ])

    # crm-012: product win rate; GTK 500 detail
    pw = sorted(((p, Fraction(w, c)) for p, w, c in rows(
        f"SELECT product, count(*) FILTER (WHERE {W}), count(*) FILTER (WHERE {W} OR {L}) FROM t GROUP BY 1")),
        key=lambda x: x[1])
    assert pw[0][1] != pw[1][1]
    lowp = pw[0][0]
    ln, lr = one(f"SELECT count(*), sum(close_value) FROM t WHERE {W} AND product = ?", lowp)
    reps = rows(f"SELECT DISTINCT sales_agent FROM t WHERE {W} AND product = ? ORDER BY 1", lowp)
    chat([
        T("which product has the lowest win rate?", "extra_columns", first=lowp, names=[lowp],
          numbers=[r2(pw[0][1] * 100)], note="per product: won / (won + lost) * 100"),
        T("how many of those did we actually win, and what's the avg value?", "follow_up",
          numbers=[ln, ratio(lr, ln)], note=f"won {lowp} deals and their average close_value"),
        T(f"which reps have won {lowp} deals?", "extra_columns", names=[r[0] for r in reps],
          note=f"distinct sales_agent on won {lowp} rows ({len(reps)} reps)"),
    ])

    # crm-013: clarify GTX Plus
    plus = [r[0] for r in rows("SELECT DISTINCT product FROM t WHERE product LIKE 'GTX Plus%' ORDER BY 1")]
    assert plus == ["GTX Plus Basic", "GTX Plus Pro"]
    ppr = one(f"SELECT sum(close_value) FROM t WHERE {W} AND product = 'GTX Plus Pro'")
    chat([
        T("how's the GTX Plus doing revenue-wise?", "in_schema", clarify=True, names=plus,
          note="two products start 'GTX Plus': GTX Plus Basic and GTX Plus Pro; a good answer asks which "
               "(or gives both separately)"),
        T("the pro one", "follow_up", names=["GTX Plus Pro"], numbers=[int(ppr)],
          note="won revenue of GTX Plus Pro"),
    ])

    # crm-014: exclusions
    ex = one(f"SELECT sum(close_value) FROM t WHERE {W} AND product NOT IN ('GTXPro', 'GTX Plus Pro')")
    never = one(f"SELECT count(DISTINCT account) FROM t WHERE {W} AND account NOT IN "
                f"(SELECT account FROM t WHERE {W} AND product = 'GTK 500')")
    chat([
        T("revenue excluding the GTX Pro and GTX Plus Pro?", "negation_recency", numbers=[int(ex)],
          note="won revenue without products 'GTXPro' (the file's spelling of GTX Pro) and 'GTX Plus Pro'"),
        T("how many of the accounts we've won never bought a GTK 500?", "negation_recency", numbers=[never],
          note="accounts with won deals and no won GTK 500 deal"),
    ])

    # crm-015: latest month, last 7 days, leader that week
    lm = one(f"SELECT sum(close_value) FROM t WHERE {W} AND close_date >= ?", date(2017, 12, 1))
    d7 = (ANCHOR.toordinal() - 6)
    d7 = date.fromordinal(d7)
    l7 = one(f"SELECT sum(close_value) FROM t WHERE {W} AND close_date BETWEEN ? AND ?", d7, ANCHOR)
    l7rep = ranked(f"SELECT sales_agent, sum(close_value) r FROM t WHERE {W} AND close_date BETWEEN ? AND ? "
                   "GROUP BY 1 ORDER BY r DESC", 1, d7, ANCHOR)[0]
    chat([
        T("how much did we close in the latest month in the data?", "negation_recency", names=["December 2017"],
          numbers=[int(lm)], note="latest month = December 2017 (the file ends 2017-12-31); won revenue"),
        T("and in the last 7 days of data?", "negation_recency", numbers=[int(l7)],
          note=f"won revenue with close_date {d7} .. {ANCHOR}"),
        T("which rep led that week?", "follow_up", first=l7rep[0], names=[l7rep[0]], numbers=[int(l7rep[1])],
          note=f"rep with the most won revenue {d7} .. {ANCHOR}"),
    ])

    # crm-016: last 30 days excluding a rep
    d30 = date.fromordinal(ANCHOR.toordinal() - 29)
    l30x = one(f"SELECT sum(close_value) FROM t WHERE {W} AND close_date BETWEEN ? AND ? "
               "AND sales_agent <> 'Darcel Schlecht'", d30, ANCHOR)
    chat([
        T("last 30 days, leaving out Darcel Schlecht - total won revenue?", "negation_recency",
          numbers=[int(l30x)], note=f"won revenue with close_date {d30} .. {ANCHOR}, sales_agent <> Darcel Schlecht"),
        T("which rep did i tell you to leave out?", "conversation", names=["Darcel Schlecht"],
          note="the rep excluded in the first question"),
    ])

    # crm-017: user's name and team
    accts = one(f"SELECT count(DISTINCT account) FROM t WHERE {W}")
    topa = ranked(f"SELECT account, count(*) n FROM t WHERE {W} GROUP BY 1 ORDER BY n DESC", 1)[0]
    chat([
        T("hi, Tomasz from rev ops here. how many distinct accounts have we won business from?", "in_schema",
          numbers=[accts], note="COUNT(DISTINCT account) over won deals"),
        T("which account has the most won deals?", "in_schema", first=topa[0], names=[topa[0]],
          numbers=[topa[1]], note="count of won rows per account"),
        T("whats my name and which team am i on again?", "conversation", names=["Tomasz", "rev ops"],
          note="stated in the first question"),
    ])

    # crm-018: unanswerable
    chat([
        T("whats the gross margin on GTXPro?", "unanswerable", decline=True,
          note="no cost column; close_value is the only money field"),
        T("ok then what sector are our top accounts in?", "unanswerable", decline=True,
          note="sector is not in sales_pipeline.csv (it is in the dataset's separate accounts.csv)"),
    ])

    # crm-019: rep x product
    def best_prod(a):
        return ranked(f"SELECT product, sum(close_value) r FROM t WHERE {W} AND sales_agent = ? GROUP BY 1 "
                      "ORDER BY r DESC", 1, a)[0]
    b1 = best_prod("Darcel Schlecht")
    b2 = best_prod("Vicki Laflamme")
    chat([
        T("what's Darcel Schlecht's best product by revenue?", "extra_columns", first=b1[0], names=[b1[0]],
          numbers=[int(b1[1])], note="won revenue per product for Darcel Schlecht"),
        T("same for Vicki Laflamme", "follow_up", first=b2[0], names=[b2[0]], numbers=[int(b2[1])],
          note="won revenue per product for Vicki Laflamme"),
        T("whose numbers did i ask about first?", "conversation", names=["Darcel Schlecht"],
          note="the rep in the first question"),
    ])

    # crm-020: clarify Xx accounts
    xx = [r[0] for r in rows("SELECT DISTINCT account FROM t WHERE account ILIKE 'xx%' ORDER BY 1")]
    assert xx == ["Xx-holding", "Xx-zobam"]
    xz = one(f"SELECT sum(close_value) FROM t WHERE {W} AND account = 'Xx-zobam'")
    chat([
        T("how much did the Xx account bring in?", "in_schema", clarify=True, names=xx,
          note="two accounts start 'Xx': Xx-holding and Xx-zobam; a good answer asks which (or gives both)"),
        T("xx-zobam", "follow_up", names=["Xx-zobam"], numbers=[int(xz)], note="won revenue of Xx-zobam"),
    ])

    # crm-021: engage year 2016
    e16, e16w = one(f"SELECT count(*), count(*) FILTER (WHERE {W}) FROM t WHERE year(engage_date) = 2016")
    chat([
        T("how many opportunities were engaged back in 2016?", "extra_columns", numbers=[e16],
          note="rows with engage_date in 2016 (2016-10-20 .. 2016-12-31); Prospecting rows have no engage_date"),
        T("of the deals engaged in 2016, how many ended up won?", "extra_columns", numbers=[e16w],
          note="engage_date in 2016 and deal_stage='Won'"),
        T("why did the lost ones fall through? any loss reasons in there?", "unanswerable", decline=True,
          note="no loss-reason column"),
    ])

    # crm-022: open deals per rep; reps with none
    mo = ranked(f"SELECT sales_agent, count(*) n FROM t WHERE {OPEN} GROUP BY 1 ORDER BY n DESC", 1)[0]
    none_open = [r[0] for r in rows(f"SELECT sales_agent FROM t GROUP BY 1 "
                                    f"HAVING count(*) FILTER (WHERE {OPEN}) = 0 ORDER BY 1")]
    chat([
        T("who has the most open deals right now (engaging + prospecting)?", "extra_columns", first=mo[0],
          names=[mo[0]], numbers=[mo[1]], note="open rows per sales_agent"),
        T("which reps have no open deals at all?", "negation_recency", names=none_open, numbers=[len(none_open)],
          note="reps whose every row is Won or Lost"),
    ])

    # crm-023: this year so far; latest quarter lost; win rate that quarter
    ytd = one(f"SELECT sum(close_value) FROM t WHERE {W} AND close_date BETWEEN ? AND ?", date(2017, 1, 1), ANCHOR)
    q4w, q4l = one(f"SELECT count(*) FILTER (WHERE {W}), count(*) FILTER (WHERE {L}) FROM t "
                   "WHERE close_date BETWEEN ? AND ?", date(2017, 10, 1), ANCHOR)
    chat([
        T("how much have we closed this year so far?", "negation_recency", numbers=[int(ytd)],
          note="this year = 2017 up to the file's latest date 2017-12-31 (every close is in 2017), not today's year"),
        T("how many deals did we lose in the latest quarter in the data?", "negation_recency", numbers=[q4l],
          names=["Q4 2017"], note="deal_stage='Lost' with close_date in Q4 2017"),
        T("and the win rate for that quarter?", "follow_up", numbers=[pct(q4w, q4w + q4l)],
          note=f"Q4 2017: {q4w} won / ({q4w} + {q4l}) * 100"),
    ])

    # crm-024: avg deal size per rep; quota -> decline
    ad = sorted(((a, Fraction(int(r), n)) for a, r, n in rows(
        f"SELECT sales_agent, sum(close_value), count(*) FROM t WHERE {W} GROUP BY 1")),
        key=lambda x: x[1], reverse=True)
    assert ad[0][1] != ad[1][1]
    chat([
        T("which rep has the highest avg won deal size?", "extra_columns", first=ad[0][0], names=[ad[0][0]],
          numbers=[r2(ad[0][1])], note="per rep: won revenue / won deals"),
        T("is that rep on track vs their quota?", "unanswerable", decline=True, note="no quota or target column"),
    ])

    # crm-025: smallest won deal outside MG Special; deals over 10k
    sm = rows(f"SELECT close_value, product FROM t WHERE {W} AND product <> 'MG Special' ORDER BY 1 LIMIT 2")
    assert sm[0][0] != sm[1][0]
    o10, o10p = one(f"SELECT count(*), count(DISTINCT product) FROM t WHERE {W} AND close_value > 10000")
    o10name = one(f"SELECT min(product) FROM t WHERE {W} AND close_value > 10000")
    chat([
        T("leaving MG Special aside, what's the smallest deal we've won?", "negation_recency",
          names=[sm[0][1]], numbers=[int(sm[0][0])], note="MIN(close_value) over won deals, product <> 'MG Special'"),
        T("how many won deals were over 10k?", "in_schema", numbers=[o10],
          note=f"won deals with close_value > 10000" + (f" (all {o10name})" if o10p == 1 else "")),
        T("what was the smallest deal value you gave me earlier?", "conversation", numbers=[int(sm[0][0])],
          note="the figure from the first answer"),
    ])

    # crm-026: weekday; christmas day
    wd = ranked(f"SELECT dayname(close_date) d, sum(close_value) r FROM t WHERE {W} GROUP BY 1 ORDER BY r DESC", 1)[0]
    xm, xmn = one(f"SELECT sum(close_value), count(*) FROM t WHERE {W} AND close_date = ?", date(2017, 12, 25))
    chat([
        T("which weekday do we close the most revenue on?", "extra_columns", first=wd[0], names=[wd[0]],
          numbers=[int(wd[1])], note="won revenue by day of week of close_date"),
        T("how much did we close on christmas day?", "in_schema", names=[day(date(2017, 12, 25))],
          numbers=[int(xm)], note=f"won revenue with close_date 2017-12-25 ({xmn} deals)"),
    ])

    return out


# ---------------------------------------------------------------- main
def dump(chs) -> str:
    return "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in chs)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("csv", nargs="?", default=None)
    ap.add_argument("--csv", dest="csv_opt", default=None)
    ap.add_argument("--bank", default=DEFAULT_BANK)
    ap.add_argument("--jsonl", default=None, help="write the regenerated bank here")
    ap.add_argument("--print", action="store_true", help="print questions and truths")
    a = ap.parse_args()
    csv_path = a.csv_opt or a.csv or os.environ.get("CRM_SALES_PIPELINE_CSV") or DEFAULT_CSV
    load(csv_path)
    chs = chats()
    if a.print:
        for c in chs:
            for t in c["turns"]:
                print(c["chat"], t["category"], "|", t["q"], "->", json.dumps(t["expect"], ensure_ascii=False))
    if a.jsonl:
        with open(a.jsonl, "w", encoding="utf-8") as fh:
            fh.write(dump(chs))
        print(f"wrote {a.jsonl}: {len(chs)} chats, {sum(len(c['turns']) for c in chs)} turns")
        return 0
    try:
        with open(a.bank, encoding="utf-8") as fh:
            bank = [json.loads(line) for line in fh if line.strip()]
    except FileNotFoundError:
        print(f"FAIL: no bank at {a.bank}")
        return 1
    if len(bank) != len(chs):
        print(f"FAIL: bank has {len(bank)} chats, truths have {len(chs)}")
        return 1
    for got, want in zip(bank, chs):
        if got != want:
            print(f"FAIL: chat {want['chat']} (bank chat {got.get('chat')}) does not match the truths")
            return 1
    print(f"OK: {len(chs)} chats, {sum(len(c['turns']) for c in chs)} turns match the truths")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Truths for supermarket_blind.jsonl (Kaggle "Supermarket sales", Myanmar, Jan-Mar 2019).

Computes every expected figure/name from the CSV with DuckDB (one function per chat), prints them,
and asserts that the bank file holds exactly these chats, questions and values (exit 1 on a mismatch).

    python supermarket_truths.py /work/evaldata/supermarket/supermarket.csv                    # print + check
    python supermarket_truths.py /work/evaldata/supermarket/supermarket.csv --jsonl out.jsonl  # regenerate

Standalone: needs only `duckdb` and the standard library.

Conventions (see README.md, section supermarket_blind.jsonl):
  revenue/sales = SUM(Total) (Total includes the 5% tax); orders/invoices = COUNT(DISTINCT "Invoice ID")
  (one line per invoice in this file); units = SUM(Quantity); average order value = SUM(Total)/orders;
  gross income = SUM("gross income"); tax = SUM("Tax 5%"); cogs = SUM(cogs); rating = plain AVG(Rating)
  over invoices; shares and growth are percents with 2 decimals, growth = (new-old)/old*100.
  Dates are M/D/YYYY; recency is relative to the file's last date, 2019-03-30, never to today.
  Money columns are read as DECIMAL(18,4) (they have at most 4 decimals) so sums are exact; every
  figure is rounded half-up to 2 decimals.
"""
import argparse
import hashlib
import json
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import duckdb

DATASET = "supermarket"
EXPECTED_SHA256 = "d49f7e33519852fab28fce79835031feac7c69b75a7dfd3f07890b7bc4e3a775"
EXPECTED_ROWS = 1000
BANK = Path(__file__).resolve().parent / "supermarket_blind.jsonl"
LAST_DATE = "2019-03-30"

LOAD_SQL = """
CREATE TABLE s AS
SELECT "Invoice ID"                    AS inv,
       Branch                          AS branch,
       City                            AS city,
       "Customer type"                 AS ctype,
       Gender                          AS gender,
       "Product line"                  AS pline,
       CAST("Unit price" AS DECIMAL(18,4)) AS unit_price,
       CAST(Quantity AS INTEGER)       AS qty,
       CAST("Tax 5%" AS DECIMAL(18,4)) AS tax,
       CAST(Total AS DECIMAL(18,4))    AS total,
       CAST(strptime(Date, '%m/%d/%Y') AS DATE) AS d,
       Time                            AS tm,
       Payment                         AS pay,
       CAST(cogs AS DECIMAL(18,4))     AS cogs,
       CAST("gross income" AS DECIMAL(18,4)) AS gi,
       CAST(Rating AS DECIMAL(4,1))    AS rating
FROM read_csv(?, header = true, all_varchar = true)
"""

CON = None
NEAR_HALF = []  # values at (or within 0.0001 cent of) a half cent, where the rounding rule matters
# Exact half cents that are allowed: summing the CSV's Total as binary floats gives 167882.92500000002 and
# 177784.63500000018, so float rounding and half-up agree (.93, .64). Any other half cent fails the check.
HALF_CENT_OK = {"167882.9250", "177784.6350"}


def sql(query, *params):
    return CON.execute(query, list(params)).fetchall()


def one(query, *params):
    rows = sql(query, *params)
    assert len(rows) == 1 and len(rows[0]) == 1, (query, rows)
    return rows[0][0]


def r2(x):
    """Round half-up to 2 decimals and return a float (ints stay ints)."""
    if isinstance(x, int):
        return x
    d = Decimal(str(x))
    frac = (d * 100) % 1
    if abs(frac - Decimal("0.5")) < Decimal("0.0001"):
        NEAR_HALF.append(str(d))
    return float(d.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def pct(part, whole):
    return r2(Decimal(part) * 100 / Decimal(whole))


def growth(new, old):
    return r2((Decimal(new) - Decimal(old)) * 100 / Decimal(old))


def avg(total, n):
    return r2(Decimal(total) / Decimal(n))


def day_name(d):
    return f"{d:%B} {d.day}, {d.year}"


def month_name(d):
    return f"{d:%B} {d.year}"


def no_tie(rows, k, col=1):
    """rows are sorted; assert the value at rank k (1-based) differs from rank k+1."""
    if len(rows) > k:
        assert rows[k - 1][col] != rows[k][col], f"tie at the cut: {rows[k - 1]} / {rows[k]}"


def T(q, category, **expect):
    exp = {}
    for key in ("numbers", "names", "first", "decline", "clarify", "note"):
        if key in expect:
            exp[key] = expect.pop(key)
    assert not expect, expect
    assert "note" in exp, q
    return {"q": q, "category": category, "expect": exp}


def chat(cid, turns):
    return {"chat": cid, "dataset": DATASET, "turns": turns}


# --------------------------------------------------------------------------------------------------
# chats


def sm_01():
    rev = one("SELECT SUM(total) FROM s")
    orders = one('SELECT COUNT(DISTINCT inv) FROM s')
    q1 = "hey, quick one to start - what's total revenue for everything in the file?"
    return chat("sm-01", [
        T(q1, "in_schema", numbers=[r2(rev)],
          note="SUM(Total) over all 1000 rows (Total includes the 5% tax)"),
        T("How many invoices is that, and whats the average order value?", "in_schema",
          numbers=[orders, avg(rev, orders)],
          note="COUNT(DISTINCT \"Invoice ID\"); AOV = SUM(Total)/COUNT(DISTINCT \"Invoice ID\")"),
        T("sorry got pulled into a meeting. what was the first thing I asked you, and what number did you give me?",
          "conversation", numbers=[r2(rev)], names=[q1],
          note="first question of this chat and its answer, total revenue SUM(Total)"),
    ])


def sm_02():
    months = sql("SELECT date_trunc('month', d) m, SUM(total), SUM(qty) FROM s GROUP BY 1 ORDER BY 1")
    assert len(months) == 3
    (jan, jan_rev, jan_u), (feb, feb_rev, feb_u), (mar, mar_rev, mar_u) = months
    return chat("sm-02", [
        T("Can you break down sales by month? just the totals is fine", "in_schema",
          numbers=[r2(jan_rev), r2(feb_rev), r2(mar_rev)],
          names=[month_name(jan), month_name(feb), month_name(mar)],
          note="SUM(Total) GROUP BY month of Date (data covers Jan-Mar 2019 only)"),
        T("what was the month over month growth going from Feb into March, in %?", "in_schema",
          numbers=[growth(mar_rev, feb_rev)],
          note="(SUM(Total) Mar 2019 - SUM(Total) Feb 2019) / SUM(Total) Feb 2019 * 100"),
        T("How many units did we move in the latest month in the data?", "negation_recency",
          numbers=[mar_u], names=[month_name(mar)],
          note="latest month = March 2019 (last date 2019-03-30); SUM(Quantity) WHERE month = 2019-03"),
        T("and the month before that?", "follow_up",
          numbers=[feb_u], names=[month_name(feb)],
          note="units (previous turn's measure) in February 2019: SUM(Quantity) WHERE month = 2019-02"),
    ])


def sm_03():
    cities = sql("SELECT city, SUM(total) v FROM s GROUP BY 1 ORDER BY v DESC")
    no_tie(cities, 1)
    no_tie(cities, 2)
    rating = {c: avg(t, n) for c, t, n in sql("SELECT city, SUM(rating), COUNT(*) FROM s GROUP BY 1")}
    return chat("sm-03", [
        T("Which city is bringing in the most revenue? rank all three for me pls", "extra_columns",
          numbers=[r2(v) for _, v in cities], names=[c for c, _ in cities], first=cities[0][0],
          note="SUM(Total) GROUP BY City ORDER BY 1 DESC (Yangon and Mandalay differ by only 2.70)"),
        T("whats the average customer rating in Mandalay?", "extra_columns",
          numbers=[rating["Mandalay"]],
          note="AVG(Rating) WHERE City = 'Mandalay' (plain average over invoices)"),
        T("and for Yangon?", "follow_up",
          numbers=[rating["Yangon"]],
          note="AVG(Rating) WHERE City = 'Yangon'"),
    ])


def sm_04():
    pays = sql("SELECT pay, COUNT(DISTINCT inv) n FROM s GROUP BY 1 ORDER BY n DESC")
    no_tie(pays, 1)
    non_cash = one("SELECT SUM(total) FROM s WHERE pay <> 'Cash'")
    return chat("sm-04", [
        T("Which payment method do customers use most often? by number of transactions, not value",
          "extra_columns", numbers=[pays[0][1]], names=[pays[0][0]], first=pays[0][0],
          note="COUNT(DISTINCT \"Invoice ID\") GROUP BY Payment: Ewallet 345, Cash 344, Credit card 311 "
               "(by revenue Cash would be first, hence 'by number of transactions')"),
        T("ok. and if we exclude cash payments altogether, whats total revenue?", "negation_recency",
          numbers=[r2(non_cash)],
          note="SUM(Total) WHERE Payment <> 'Cash' (Ewallet + Credit card)"),
        T("remind me which payment method you said was the most used?", "conversation",
          numbers=[pays[0][1]], names=[pays[0][0]],
          note="the answer to the first turn of this chat"),
    ])


def sm_05():
    tot = one("SELECT SUM(total) FROM s")
    by = {c: (t, n) for c, t, n in sql("SELECT ctype, SUM(total), COUNT(DISTINCT inv) FROM s GROUP BY 1")}
    member_share = pct(by["Member"][0], tot)
    return chat("sm-05", [
        T("What share of our sales come from members (vs normal customers)?", "extra_columns",
          numbers=[member_share], names=["Member"],
          note="SUM(Total) WHERE \"Customer type\" = 'Member' / SUM(Total) * 100"),
        T("What's the average order value for members vs. normal customers? wondering if the loyalty "
          "card actually makes people spend more", "extra_columns",
          numbers=[avg(*by["Member"]), avg(*by["Normal"])], names=["Member", "Normal"],
          note="SUM(Total)/COUNT(DISTINCT \"Invoice ID\") GROUP BY \"Customer type\""),
        T("remind me of the share you gave for members", "conversation",
          numbers=[member_share],
          note="the member share of sales given in the first turn"),
    ])


def sm_06():
    lines = sql("SELECT pline, SUM(total) v, COUNT(DISTINCT inv), SUM(rating), COUNT(*) FROM s "
                "GROUP BY 1 ORDER BY v DESC")
    no_tie(lines, 3)
    top3 = lines[:3]
    second = top3[1]
    ratings = sorted(((p, avg(rs, n)) for p, _, _, rs, n in top3), key=lambda x: -x[1])
    no_tie(ratings, 1)
    return chat("sm-06", [
        T("top 3 product lines by revenue?", "in_schema",
          numbers=[r2(v) for _, v, *_ in top3], names=[p for p, *_ in top3], first=top3[0][0],
          note="SUM(Total) GROUP BY \"Product line\" ORDER BY 1 DESC LIMIT 3 (4th, Fashion accessories, "
               "is 31.64 below the 3rd)"),
        T("the second one on that list - how many invoices did it have?", "follow_up",
          numbers=[second[2]], names=[second[0]],
          note="COUNT(DISTINCT \"Invoice ID\") WHERE \"Product line\" = 2nd of the top 3 by revenue"),
        T("which of those three has the best average rating?", "follow_up",
          numbers=[ratings[0][1]], names=[ratings[0][0]], first=ratings[0][0],
          note="AVG(Rating) GROUP BY \"Product line\" among the top 3 by revenue, highest first"),
        T("Why do people rate Sports and travel lower than food? is there any feedback or comment text "
          "in there that explains it?", "unanswerable", decline=True,
          note="the file has only a numeric Rating, no comments or reasons"),
    ])


def sm_07():
    hb = one("SELECT SUM(gi) FROM s WHERE pline = 'Health and beauty'")
    cogs = one("SELECT SUM(cogs) FROM s")
    return chat("sm-07", [
        T("what's the gross income of Health and beauty?", "extra_columns",
          numbers=[r2(hb)], names=["Health and beauty"],
          note="SUM(\"gross income\") WHERE \"Product line\" = 'Health and beauty'"),
        T("What was total cogs across all 3 branches for the quarter?", "extra_columns",
          numbers=[r2(cogs)],
          note="SUM(cogs) over all rows; the file covers Q1 2019 (Jan 1 - Mar 30) only"),
        T("Are we on track against our profit margin target for the year?", "unanswerable", decline=True,
          note="no target in the data (gross margin percentage is a constant 4.76 %); only Jan-Mar 2019"),
    ])


def sm_08():
    vday = one("SELECT SUM(total) FROM s WHERE d = DATE '2019-02-14'")
    days = sql("SELECT d, SUM(total) v FROM s GROUP BY 1 ORDER BY v DESC")
    no_tie(days, 1)
    best_d, best_v = days[0]
    cities = sql("SELECT city, SUM(total) v FROM s WHERE d = ? GROUP BY 1 ORDER BY v DESC", best_d)
    no_tie(cities, 1)
    return chat("sm-08", [
        T("How much did we sell on valentines day?", "in_schema",
          numbers=[r2(vday)], names=["February 14, 2019"],
          note="SUM(Total) WHERE Date = 2019-02-14 (the only Feb 14 in the data)"),
        T("Was that a good day? What was our single best day by revenue overall?", "in_schema",
          numbers=[r2(best_v)], names=[day_name(best_d)], first=day_name(best_d),
          note="SUM(Total) GROUP BY Date ORDER BY 1 DESC LIMIT 1"),
        T("which city did the most that day?", "follow_up",
          numbers=[r2(cities[0][1])], names=[cities[0][0]], first=cities[0][0],
          note=f"SUM(Total) WHERE Date = {best_d} GROUP BY City, highest"),
        T("what date did I ask about first?", "conversation",
          names=["February 14, 2019"],
          note="the first turn asked about Valentine's day = February 14, 2019"),
    ])


def sm_09():
    last = one("SELECT MAX(d) FROM s")
    assert str(last) == LAST_DATE
    n, rev, ew = sql("SELECT COUNT(DISTINCT inv), SUM(total), COUNT(DISTINCT inv) FILTER (WHERE pay = 'Ewallet') "
                     "FROM s WHERE d BETWEEN DATE '2019-03-24' AND DATE '2019-03-30'")[0]
    return chat("sm-09", [
        T("What's the most recent date in this file?", "negation_recency",
          names=[day_name(last)],
          note="MAX(Date)"),
        T("ok so what were sales in the last 7 days of data?", "negation_recency",
          numbers=[r2(rev)],
          note="SUM(Total) WHERE Date BETWEEN 2019-03-24 AND 2019-03-30 (7 days ending on the last date, inclusive)"),
        T("how many of those invoices were paid by ewallet?", "follow_up",
          numbers=[ew],
          note=f"COUNT(DISTINCT \"Invoice ID\") WHERE Payment = 'Ewallet' AND Date BETWEEN 2019-03-24 AND 2019-03-30 "
               f"(of {n} invoices in that week)"),
    ])


def sm_10():
    g = sql("SELECT gender, SUM(total) v FROM s GROUP BY 1 ORDER BY v DESC")
    no_tie(g, 1)
    gn = sql("SELECT gender, SUM(total) v FROM s WHERE city = 'Naypyitaw' GROUP BY 1 ORDER BY v DESC")
    no_tie(gn, 1)
    return chat("sm-10", [
        T("do women or men spend more with us overall?", "extra_columns",
          numbers=[r2(v) for _, v in g], names=[x for x, _ in g], first=g[0][0],
          note="SUM(Total) GROUP BY Gender"),
        T("what about in Naypyitaw only?", "follow_up",
          numbers=[r2(v) for _, v in gn], names=[x for x, _ in gn], first=gn[0][0],
          note="SUM(Total) WHERE City = 'Naypyitaw' GROUP BY Gender"),
        T("whats the average age of our female shoppers there?", "unanswerable", decline=True,
          note="no age column in the data"),
    ])


def sm_11():
    q1 = "Revenue for everything outside Yangon?"
    out_y = one("SELECT SUM(total) FROM s WHERE city <> 'Yangon'")
    out_y_fb = one("SELECT SUM(total) FROM s WHERE city <> 'Yangon' AND pline <> 'Food and beverages'")
    return chat("sm-11", [
        T(q1, "negation_recency", numbers=[r2(out_y)],
          note="SUM(Total) WHERE City <> 'Yangon' (Mandalay + Naypyitaw)"),
        T("and if I also leave out Food and beverages?", "negation_recency", numbers=[r2(out_y_fb)],
          note="SUM(Total) WHERE City <> 'Yangon' AND \"Product line\" <> 'Food and beverages'"),
        T("wait, which city did I tell you to exclude?", "conversation", names=["Yangon"],
          note="the city excluded in the first turn"),
    ])


def sm_12():
    a = one("SELECT COUNT(DISTINCT inv) FROM s WHERE branch = 'A'")
    return chat("sm-12", [
        T("Which cashier or staff member rang up the most sales at branch A?", "unanswerable", decline=True,
          note="no staff/cashier column in the data"),
        T("fine. how many invoices did branch A have then?", "extra_columns", numbers=[a],
          note="COUNT(DISTINCT \"Invoice ID\") WHERE Branch = 'A' (Yangon)"),
        T("Last thing - can you tell me exactly what sales will be next quarter, Apr to Jun 2019? "
          "need the number for the board deck", "unanswerable", decline=True,
          note="future sales are not in the data; an exact figure cannot be given (a labelled rough "
               "extrapolation is acceptable, an invented exact figure is not)"),
    ])


def sm_13():
    tot = one("SELECT SUM(total) FROM s")
    tax, rev, n = sql("SELECT SUM(tax), SUM(total), COUNT(DISTINCT inv) FROM s "
                      "WHERE date_trunc('month', d) = DATE '2019-02-01'")[0]
    return chat("sm-13", [
        T("How much tax (the 5% column) did we collect in February?", "extra_columns",
          numbers=[r2(tax)], names=["February 2019"],
          note="SUM(\"Tax 5%\") WHERE month = 2019-02"),
        T("What share of total revenue did Feb account for? feels low", "in_schema",
          numbers=[pct(rev, tot)],
          note="SUM(Total) Feb 2019 / SUM(Total) all * 100"),
        T("and what was the avg order value in Febuary?", "in_schema",
          numbers=[avg(rev, n)],
          note="SUM(Total)/COUNT(DISTINCT \"Invoice ID\") WHERE month = 2019-02"),
    ])


def sm_14():
    lines = sql("SELECT pline, SUM(rating)/COUNT(*) v, SUM(rating), COUNT(*) FROM s GROUP BY 1 ORDER BY v ASC")
    no_tie(lines, 1)
    low, _, rs, n = lines[0]
    under5 = one("SELECT COUNT(DISTINCT inv) FROM s WHERE pline = ? AND rating < 5", low)
    rs_o, n_o = sql("SELECT SUM(rating), COUNT(*) FROM s WHERE pline <> ?", low)[0]
    return chat("sm-14", [
        T("Which product line has the lowest avg customer rating?", "extra_columns",
          numbers=[avg(rs, n)], names=[low], first=low,
          note="AVG(Rating) GROUP BY \"Product line\" ORDER BY 1 ASC LIMIT 1"),
        T("how many invoices in that line got a rating under 5?", "follow_up",
          numbers=[under5],
          note=f"COUNT(DISTINCT \"Invoice ID\") WHERE \"Product line\" = '{low}' AND Rating < 5"),
        T("Excluding Home and lifestyle, what's the average rating across all the other lines?",
          "negation_recency", numbers=[avg(rs_o, n_o)],
          note="AVG(Rating) WHERE \"Product line\" <> 'Home and lifestyle' (plain average over invoices)"),
    ])


def sm_15():
    cities = sql("SELECT city, SUM(qty) FROM s GROUP BY 1 ORDER BY 2 DESC")
    lines = sql("SELECT pline, SUM(qty) v FROM s GROUP BY 1 ORDER BY v ASC")
    no_tie(lines, 1)
    return chat("sm-15", [
        T("Can I get total units sold for each store (Yangon, Mandalay, Naypyitaw)?", "extra_columns",
          numbers=[int(v) for _, v in cities], names=[c for c, _ in cities],
          note="SUM(Quantity) GROUP BY City"),
        T("which product line sold the fewest units overall?", "in_schema",
          numbers=[int(lines[0][1])], names=[lines[0][0]], first=lines[0][0],
          note="SUM(Quantity) GROUP BY \"Product line\" ORDER BY 1 ASC LIMIT 1"),
    ])


def sm_16():
    hours = sql("SELECT substr(tm, 1, 2) h, COUNT(DISTINCT inv) n FROM s GROUP BY 1 ORDER BY n DESC")
    no_tie(hours, 1)
    days = sql("SELECT d, SUM(total) v FROM s GROUP BY 1 ORDER BY v ASC")
    no_tie(days, 1)
    q2 = "what was our slowest day by revenue?"
    return chat("sm-16", [
        T("which hour of the day is the busiest by number of invoices? (24h clock pls)", "extra_columns",
          numbers=[hours[0][1]], names=[f"{hours[0][0]}:00"], first=f"{hours[0][0]}:00",
          note="COUNT(DISTINCT \"Invoice ID\") GROUP BY hour of Time; 19:00-19:59 (7 pm) has 113, next 13:00 with 103"),
        T(q2, "in_schema",
          numbers=[r2(days[0][1])], names=[day_name(days[0][0])], first=day_name(days[0][0]),
          note="SUM(Total) GROUP BY Date ORDER BY 1 ASC LIMIT 1 (over the 89 dates that have sales)"),
        T("Was the weather bad that day? trying to figure out if rain kept people at home", "unanswerable",
          decline=True, note="no weather data in the file"),
        T("what did I ask you right before the weather question?", "conversation",
          names=[q2], note="the second question of this chat"),
    ])


def sm_17():
    fa = one("SELECT SUM(qty) FROM s WHERE pline = 'Fashion accessories'")
    return chat("sm-17", [
        T("how many units has the accessories line sold so far?", "extra_columns", clarify=True,
          names=["Electronic accessories", "Fashion accessories"],
          note="two product lines contain 'accessories'; a good answer asks which (or gives both, labelled)"),
        T("the fashion one", "follow_up", numbers=[int(fa)], names=["Fashion accessories"],
          note="SUM(Quantity) WHERE \"Product line\" = 'Fashion accessories'"),
    ])


def sm_18():
    n = one("SELECT COUNT(DISTINCT inv) FROM s WHERE ctype = 'Normal' AND pay = 'Credit card'")
    units, orders = sql("SELECT SUM(qty), COUNT(DISTINCT inv) FROM s")[0]
    return chat("sm-18", [
        T("How many invoices came from normal (non member) customers paying by credit card?", "extra_columns",
          numbers=[n],
          note="COUNT(DISTINCT \"Invoice ID\") WHERE \"Customer type\" = 'Normal' AND Payment = 'Credit card'"),
        T("Different question. On average how many items are in a basket, across all invoices?", "in_schema",
          numbers=[avg(units, orders)],
          note="SUM(Quantity)/COUNT(DISTINCT \"Invoice ID\")"),
    ])


def sm_19():
    months = sql("SELECT date_trunc('month', d) m, SUM(total) v, COUNT(DISTINCT inv) FROM s GROUP BY 1 ORDER BY v ASC")
    no_tie(months, 1)
    by_m = {str(m)[:7]: (v, n) for m, v, n in months}
    ex = {str(m)[:7]: v for m, v in sql("SELECT date_trunc('month', d), SUM(total) FROM s "
                                         "WHERE city <> 'Naypyitaw' GROUP BY 1")}
    return chat("sm-19", [
        T("Which month had the weakest revenue?", "in_schema",
          numbers=[r2(months[0][1])], names=[month_name(months[0][0])], first=month_name(months[0][0]),
          note="SUM(Total) GROUP BY month ORDER BY 1 ASC LIMIT 1"),
        T("How many invoices did Feb have compared to January?", "in_schema",
          numbers=[by_m["2019-02"][1], by_m["2019-01"][1]], names=["February 2019", "January 2019"],
          note="COUNT(DISTINCT \"Invoice ID\") for 2019-02 and 2019-01"),
        T("Leaving Naypyitaw out of it, how did March do vs February? % change please", "negation_recency",
          numbers=[growth(ex["2019-03"], ex["2019-02"])],
          note="WHERE City <> 'Naypyitaw': (SUM(Total) Mar - SUM(Total) Feb) / SUM(Total) Feb * 100"),
    ])


def sm_20():
    cities = sql("SELECT city, SUM(gi) v FROM s WHERE pay = 'Ewallet' GROUP BY 1 ORDER BY v DESC")
    no_tie(cities, 1)
    no_tie(cities, 2)
    return chat("sm-20", [
        T("Which city's store made the most gross income from Ewallet payments?", "extra_columns",
          numbers=[r2(cities[0][1])], names=[cities[0][0]], first=cities[0][0],
          note="SUM(\"gross income\") WHERE Payment = 'Ewallet' GROUP BY City, highest"),
        T("and which made the least?", "follow_up",
          numbers=[r2(cities[-1][1])], names=[cities[-1][0]],
          note="SUM(\"gross income\") WHERE Payment = 'Ewallet' GROUP BY City, lowest"),
    ])


CHATS = [sm_01, sm_02, sm_03, sm_04, sm_05, sm_06, sm_07, sm_08, sm_09, sm_10,
         sm_11, sm_12, sm_13, sm_14, sm_15, sm_16, sm_17, sm_18, sm_19, sm_20]


# --------------------------------------------------------------------------------------------------


def build(csv_path):
    global CON
    data = Path(csv_path).read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    problems = []
    if sha != EXPECTED_SHA256:
        problems.append(f"CSV sha256 {sha} != expected {EXPECTED_SHA256}")
    CON = duckdb.connect()
    CON.execute(LOAD_SQL, [str(csv_path)])
    rows = one("SELECT COUNT(*) FROM s")
    if rows != EXPECTED_ROWS:
        problems.append(f"CSV has {rows} rows, expected {EXPECTED_ROWS}")
    assert one("SELECT COUNT(DISTINCT inv) FROM s") == rows, "Invoice ID is not unique per row"
    return [f() for f in CHATS], problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--jsonl", help="write the bank to this file (regenerate)")
    ap.add_argument("--bank", default=str(BANK), help="bank to check (default: %(default)s)")
    args = ap.parse_args()

    chats, problems = build(args.csv)
    counts = {}
    for c in chats:
        print(f"== {c['chat']}")
        for t in c["turns"]:
            counts[t["category"]] = counts.get(t["category"], 0) + 1
            e = {k: v for k, v in t["expect"].items() if k != "note"}
            print(f"  [{t['category']}] {t['q']}\n      -> {json.dumps(e, ensure_ascii=False)}")
    nq = sum(counts.values())
    if NEAR_HALF:
        print("\nnote: figures at a half cent, rounded half-up: " + ", ".join(NEAR_HALF))
        bad = sorted(set(NEAR_HALF) - HALF_CENT_OK)
        if bad:
            problems.append("figures at a half cent (rounding rule would matter): " + ", ".join(bad))
    print(f"\n{len(chats)} chats, {nq} questions: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))

    lines = [json.dumps(c, ensure_ascii=False) for c in chats]
    if args.jsonl:
        Path(args.jsonl).write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"wrote {args.jsonl}")

    bank_path = Path(args.bank)
    if not bank_path.exists():
        problems.append(f"bank {bank_path} not found")
    else:
        bank = [json.loads(x) for x in bank_path.read_text(encoding="utf-8").splitlines() if x.strip()]
        got_ids = [c.get("chat") for c in bank]
        want_ids = [c["chat"] for c in chats]
        if got_ids != want_ids:
            problems.append(f"bank chats {got_ids} != expected {want_ids}")
        by_id = {c.get("chat"): c for c in bank}
        for want in chats:
            got = by_id.get(want["chat"])
            if got is None:
                continue
            if got != want:
                problems.append(f"{want['chat']}: bank differs from computed truths\n"
                                f"  bank:     {json.dumps(got, ensure_ascii=False)}\n"
                                f"  computed: {json.dumps(want, ensure_ascii=False)}")
    if problems:
        print("\nFAIL")
        for p in problems:
            print(" -", p)
        sys.exit(1)
    print(f"\nOK: {bank_path} matches the computed truths")


if __name__ == "__main__":
    main()

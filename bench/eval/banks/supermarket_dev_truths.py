#!/usr/bin/env python3
"""Truths for the DEV bank supermarket_dev.jsonl (Kaggle "Supermarket sales", Myanmar, Jan-Mar 2019).

Standalone: needs only duckdb + the standard library.

    python supermarket_dev_truths.py [CSV]                      # print every truth and check the bank (exit 1 on mismatch)
    python supermarket_dev_truths.py [CSV] --jsonl out.jsonl    # regenerate the bank into out.jsonl

CSV defaults to /work/evaldata/supermarket/supermarket.csv; the bank checked is supermarket_dev.jsonl next to this
script (or --bank PATH).

Conventions: revenue/sales = SUM(Total) (incl. the 5 % tax); invoices = COUNT(DISTINCT "Invoice ID"); units =
SUM(Quantity); average basket = SUM(Total)/invoices; items per basket = SUM(Quantity)/invoices; tax = SUM("Tax 5%");
cogs = SUM(cogs); gross income = SUM("gross income"); rating = plain AVG(Rating); growth = (new-old)/old*100; shares
are percents. Money columns are read as DECIMAL (exact sums), ratios are computed with Python Decimal, and every
figure is rounded half-up to 2 decimals. The script fails if a figure sits exactly on a half cent or if float
arithmetic would round it differently, and it asserts that no ranking used has a tie at the cut. Recency is
relative to the last date in the file (2019-03-30), never to today.
"""
import argparse
import datetime as dt
import hashlib
import json
import os
import sys
from decimal import Decimal, ROUND_HALF_UP, getcontext

import duckdb

getcontext().prec = 60

SHA256 = "d49f7e33519852fab28fce79835031feac7c69b75a7dfd3f07890b7bc4e3a775"
DEFAULT_CSV = "/work/evaldata/supermarket/supermarket.csv"
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BANK = os.path.join(HERE, "supermarket_dev.jsonl")
LAST_DATE = dt.date(2019, 3, 30)

DB = None
PROBLEMS = []


# ----------------------------------------------------------------------------------------------------------- helpers
def load(csv_path):
    global DB
    with open(csv_path, "rb") as fh:
        digest = hashlib.sha256(fh.read()).hexdigest()
    if digest != SHA256:
        sys.exit(f"CSV sha256 mismatch: {digest} != {SHA256}")
    con = duckdb.connect()
    con.execute(
        f"""
        CREATE TABLE s AS SELECT
            "Invoice ID" AS inv, Branch AS br, City AS city, "Customer type" AS ct, Gender AS g,
            "Product line" AS pl, CAST("Unit price" AS DECIMAL(18,4)) AS up, CAST(Quantity AS INTEGER) AS q,
            CAST("Tax 5%" AS DECIMAL(18,4)) AS tax, CAST(Total AS DECIMAL(18,4)) AS tot,
            CAST(strptime(Date, '%m/%d/%Y') AS DATE) AS d, Time AS t, CAST(substr(Time, 1, 2) AS INTEGER) AS h,
            Payment AS pay, CAST(cogs AS DECIMAL(18,4)) AS cogs, CAST("gross income" AS DECIMAL(18,4)) AS gi,
            CAST(Rating AS DECIMAL(18,1)) AS r
        FROM read_csv('{csv_path}', all_varchar = true, header = true)
        """
    )
    n, ninv, dmax = con.execute("SELECT count(*), count(DISTINCT inv), max(d) FROM s").fetchone()
    assert n == 1000 and ninv == 1000, (n, ninv)
    assert dmax == LAST_DATE, dmax
    DB = con


def val(sql, *params):
    """Single value (Decimal for DECIMAL/sums, int for counts)."""
    v = DB.execute(sql, list(params)).fetchone()[0]
    if isinstance(v, float):
        raise AssertionError("float result in " + sql)
    return v


def rows(sql, *params):
    return DB.execute(sql, list(params)).fetchall()


def r2(v):
    """Half-up to 2 decimals; fail on an exact half cent or if float rounding would disagree."""
    if isinstance(v, int):
        return v
    v = Decimal(v)
    x = v * 100
    if x % 1 == Decimal("0.5") or x % 1 == Decimal("-0.5"):
        PROBLEMS.append(f"exact half cent: {v} (line {sys._getframe(1).f_lineno})")
    out = v.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    if f"{float(v):.2f}" != f"{out:.2f}":
        PROBLEMS.append(f"float rounding differs: {v}")
    return float(out)


def ex(v):
    """Exact value for notes (not rounded)."""
    return format(Decimal(v).normalize(), "f")


def pct(a, b):
    return r2(Decimal(a) * 100 / Decimal(b))


def growth(new, old):
    return r2((Decimal(new) - Decimal(old)) * 100 / Decimal(old))


def ranked(sql, *params, n=1):
    """Rows (name, value) ordered by value desc; asserts no tie at the cut n."""
    rs = rows(sql, *params)
    rs = sorted(rs, key=lambda x: x[1], reverse=True)
    if len(rs) > n:
        assert rs[n - 1][1] != rs[n][1], f"tie at cut {n}: {rs[:n + 1]}"
    return rs


def nice_date(d):
    return f"{d.strftime('%B')} {d.day}, {d.year}"


def turn(q, category, **expect):
    e = {}
    for key in ("numbers", "names", "first", "decline", "clarify", "note"):
        if key in expect:
            e[key] = expect[key]
    return {"q": q, "category": category, "expect": e}


def chat(cid, turns):
    return {"chat": cid, "dataset": "supermarket", "turns": turns}


REV = "SELECT sum(tot) FROM s"


# ------------------------------------------------------------------------------------------------------------- chats
def chat01():
    rev = val(REV)
    inv = val("SELECT count(DISTINCT inv) FROM s")
    units = val("SELECT sum(q) FROM s")
    return chat("sm-dev-01", [
        turn("hey, quick one. whats the total revenue across all 3 branches for the whole file?", "in_schema",
             numbers=[r2(rev)], note=f"SUM(Total) over all 1,000 rows = {rev}"),
        turn("how many invoices is that, and whats the avg basket value?", "in_schema",
             numbers=[inv, r2(rev / inv)], note=f"COUNT(DISTINCT Invoice ID) = {inv}; SUM(Total)/invoices"),
        turn("ok and on average how many items does someone put in a basket", "in_schema",
             numbers=[r2(Decimal(units) / inv)], note=f"SUM(Quantity) {units} / {inv} invoices"),
    ])


def chat02():
    m = {k: v for k, v in rows("SELECT month(d), sum(tot) FROM s GROUP BY 1")}
    nost = {k: v for k, v in rows("SELECT month(d), sum(tot) FROM s WHERE pl <> 'Sports and travel' GROUP BY 1")}
    return chat("sm-dev-02", [
        turn("Can u break down sales by month for me", "in_schema",
             numbers=[r2(m[1]), r2(m[2]), r2(m[3])], names=["January 2019", "February 2019", "March 2019"],
             note="SUM(Total) by calendar month (March runs to the 30th, the last date in the file)"),
        turn("What was the month-over-month growth going from Feb into March?", "in_schema",
             numbers=[growth(m[3], m[2])], note="(Mar - Feb) / Feb * 100"),
        turn("and from jan to feb?", "follow_up",
             numbers=[growth(m[2], m[1])], note="(Feb - Jan) / Jan * 100; a decline"),
        turn("Same Feb to March growth but without Sports and travel in the numbers", "negation_recency",
             numbers=[growth(nost[3], nost[2])],
             note=f"Product line <> 'Sports and travel': Feb {ex(nost[2])}, Mar {ex(nost[3])}; (Mar - Feb) / Feb * 100"),
    ])


def chat03():
    wd = ranked("SELECT dayname(d), sum(tot) FROM s GROUP BY 1", n=1)
    low = sorted(rows("SELECT dayname(d), sum(tot), count(*) FROM s GROUP BY 1"), key=lambda x: x[1])
    assert low[0][1] != low[1][1]
    return chat("sm-dev-03", [
        turn("Which weekday brings in the most revenue overall? give me the figure too", "in_schema",
             numbers=[r2(wd[0][1])], first=wd[0][0], names=[wd[0][0]],
             note="SUM(Total) by day of week over Jan 1 - Mar 30 2019; "
                  + ", ".join(f"{a} {ex(b)}" for a, b in wd)),
        turn("and the weakest weekday - how many invoices did it have across the 3 months?", "follow_up",
             numbers=[low[0][2]], names=[low[0][0]],
             note=f"lowest weekday by SUM(Total) is {low[0][0]} ({ex(low[0][1])}); invoices on it"),
    ])


def chat04():
    hr = ranked("SELECT h, count(*) FROM s GROUP BY 1", n=1)
    top = hr[0][0]
    rev_top = val("SELECT sum(tot) FROM s WHERE h = ?", top)
    eve = val("SELECT sum(tot) FROM s WHERE h >= 18")
    return chat("sm-dev-04", [
        turn("what hour of the day is busiest by number of invoices?", "extra_columns",
             numbers=[hr[0][1]], names=[f"{top}:00"],
             note=f"hour from Time (HH); hour {top} ({top}:00-{top}:59) has {hr[0][1]} invoices, next "
                  f"{hr[1][0]}:00 with {hr[1][1]}"),
        turn("how much revenue came in during that hour over the whole period", "follow_up",
             numbers=[r2(rev_top)], note=f"SUM(Total) where hour = {top}"),
        turn("what share of sales happens from 6pm onwards?", "extra_columns",
             numbers=[pct(eve, val(REV))], note="SUM(Total) with Time >= 18:00 / SUM(Total) * 100"),
    ])


def chat05():
    day = dt.date(2019, 3, 12)
    rev = val("SELECT sum(tot) FROM s WHERE d = ?", day)
    inv = val("SELECT count(*) FROM s WHERE d = ?", day)
    cty = ranked("SELECT city, sum(tot) FROM s WHERE d = ? GROUP BY 1", day, n=1)
    ny = val("SELECT sum(tot) FROM s WHERE d = DATE '2019-01-01'")
    return chat("sm-dev-05", [
        turn("How much did we sell on March 12?", "in_schema",
             numbers=[r2(rev)], names=[nice_date(day)], note="SUM(Total) on 2019-03-12"),
        turn("how many invoices was that, and which city took the most money that day?", "follow_up",
             numbers=[inv], first=cty[0][0], names=[cty[0][0]],
             note="2019-03-12: " + ", ".join(f"{a} {ex(b)}" for a, b in cty)),
        turn("What were sales on New Year's Day?", "in_schema",
             numbers=[r2(ny)], names=["January 1, 2019"], note="SUM(Total) on 2019-01-01 (the first date in the file)"),
    ])


def chat06():
    wk = ranked("SELECT CAST(date_trunc('week', d) AS DATE), sum(tot) FROM s GROUP BY 1", n=1)
    start = wk[0][0]
    last10 = val("SELECT sum(tot) FROM s WHERE d BETWEEN DATE '2019-03-21' AND DATE '2019-03-30'")
    feb10 = val("SELECT sum(tot) FROM s WHERE d BETWEEN DATE '2019-02-01' AND DATE '2019-02-10'")
    return chat("sm-dev-06", [
        turn("Which Mon-Sun week had the highest revenue? tell me the date it starts and the total", "in_schema",
             numbers=[r2(wk[0][1])], names=[nice_date(start)],
             note=f"weeks Monday-Sunday (first and last weeks are partial); best {start} to "
                  f"{start + dt.timedelta(days=6)}, runner-up week of {wk[1][0]} with {ex(wk[1][1])}"),
        turn("what did we do over the last 10 days of data?", "negation_recency",
             numbers=[r2(last10)],
             note="2019-03-21 to 2019-03-30 inclusive, relative to the last date in the file"),
        turn("Also what were sales over feb 1-10?", "in_schema",
             numbers=[r2(feb10)], note="SUM(Total) 2019-02-01 to 2019-02-10 inclusive"),
    ])


def chat07():
    br = ranked("SELECT br, sum(gi) FROM s GROUP BY 1", n=3)
    third = br[2][0]
    cities = dict(rows("SELECT DISTINCT br, city FROM s"))
    rt = {b: (s_, n) for b, s_, n in rows("SELECT br, sum(r), count(*) FROM s GROUP BY 1")}
    return chat("sm-dev-07", [
        turn("Rank the 3 branches by gross income pls", "extra_columns",
             numbers=[r2(b[1]) for b in br], first=br[0][0], names=[b[0] for b in br],
             note="SUM(gross income) by branch: " + ", ".join(f"{b} ({cities[b]}) {ex(v)}" for b, v in br)),
        turn("whats the avg rating for the third one on that list?", "follow_up",
             numbers=[r2(rt[third][0] / rt[third][1])], names=[third],
             note=f"third by gross income = branch {third} ({cities[third]}); AVG(Rating)"),
        turn("same but for branch A", "follow_up",
             numbers=[r2(rt['A'][0] / rt['A'][1])], names=["A"], note="AVG(Rating) for branch A (Yangon)"),
    ])


def chat08():
    grp = {c: (t, n) for c, t, n in rows("SELECT ct, sum(tot), count(*) FROM s GROUP BY 1")}
    aovs = sorted(((c, Decimal(t) / n) for c, (t, n) in grp.items()), key=lambda x: x[1], reverse=True)
    assert aovs[0][1] != aovs[1][1]
    units_normal = val("SELECT sum(q) FROM s WHERE ct <> 'Member'")
    return chat("sm-dev-08", [
        turn("members vs normal customers - which group has the bigger average basket? give me both numbers",
             "extra_columns",
             numbers=[r2(aovs[0][1]), r2(aovs[1][1])], first=aovs[0][0], names=[aovs[0][0], aovs[1][0]],
             note="SUM(Total)/invoices by Customer type: "
                  + ", ".join(f"{c} {grp[c][0]}/{grp[c][1]}" for c, _ in aovs)),
        turn("what % of invoices come from members?", "extra_columns",
             numbers=[pct(grp['Member'][1], 1000)], note=f"{grp['Member'][1]} member invoices / 1000"),
        turn("how many units were bought by shoppers other than members?", "negation_recency",
             numbers=[units_normal], note="SUM(Quantity) where Customer type <> 'Member' (= Normal)"),
    ])


def chat09():
    u = ranked("SELECT g, sum(q) FROM s GROUP BY 1", n=1)
    fem = ranked("SELECT pl, sum(tot) FROM s WHERE g = 'Female' GROUP BY 1", n=1)
    male = ranked("SELECT pl, sum(tot) FROM s WHERE g = 'Male' GROUP BY 1", n=1)
    return chat("sm-dev-09", [
        turn("do women or men buy more units? give both", "extra_columns",
             numbers=[u[0][1], u[1][1]], first=u[0][0], names=[u[0][0], u[1][0]],
             note="SUM(Quantity) by Gender: " + ", ".join(f"{a} {b}" for a, b in u)),
        turn("which product line do women spend the most on?", "extra_columns",
             numbers=[r2(fem[0][1])], first=fem[0][0], names=[fem[0][0]],
             note="Female SUM(Total) by product line, runner-up " + f"{fem[1][0]} {ex(fem[1][1])}"),
        turn("and for men?", "follow_up",
             numbers=[r2(male[0][1])], first=male[0][0], names=[male[0][0]],
             note="Male SUM(Total) by product line, runner-up " + f"{male[1][0]} {ex(male[1][1])}"),
    ])


def chat10():
    pay = ranked("SELECT pay, sum(tot) FROM s GROUP BY 1", n=3)
    no_ew = val("SELECT sum(tot) FROM s WHERE pay <> 'Ewallet'")
    cc500 = val("SELECT count(*) FROM s WHERE pay = 'Credit card' AND tot > 500")
    return chat("sm-dev-10", [
        turn("breakdown of revenue by payment method pls", "extra_columns",
             numbers=[r2(p[1]) for p in pay], first=pay[0][0], names=[p[0] for p in pay],
             note="SUM(Total) by Payment: " + ", ".join(f"{a} {ex(b)}" for a, b in pay)),
        turn("excluding Ewallet, what's the total revenue?", "negation_recency",
             numbers=[r2(no_ew)], note="SUM(Total) where Payment <> 'Ewallet' (Cash + Credit card)"),
        turn("how many credit card invoices were over 500?", "extra_columns",
             numbers=[cc500], note="Payment = 'Credit card' and Total > 500"),
    ])


def chat11():
    u = val("SELECT sum(q) FROM s WHERE pl = 'Sports and travel' AND d BETWEEN DATE '2019-03-01' AND DATE '2019-03-30'")
    c = val("SELECT sum(cogs) FROM s WHERE pl = 'Sports and travel'")
    return chat("sm-dev-11", [
        turn("Looking at Sports and travel. how many units did we sell in the newest month in the file?", "negation_recency",
             numbers=[u], names=["March 2019"], note="latest month = March 2019 (data ends 2019-03-30); SUM(Quantity)"),
        turn("and whats the total cogs on Sports and travel across all 3 months?", "extra_columns",
             numbers=[r2(c)], note="SUM(cogs) for Sports and travel, Jan-Mar 2019"),
    ])


def chat12():
    sr, n = rows("SELECT sum(r), count(*) FROM s")[0]
    lo = val("SELECT count(*) FROM s WHERE r < 5")
    hi = val("SELECT count(*) FROM s WHERE r >= 9")
    return chat("sm-dev-12", [
        turn("whats the average customer rating overall?", "extra_columns",
             numbers=[r2(sr / n)], note=f"AVG(Rating) over 1000 invoices = {sr}/{n}"),
        turn("how many invoices got a rating under 5?", "extra_columns",
             numbers=[lo], note="Rating < 5 (ratings run 4.0-10.0)"),
        turn("and how many were 9 or above?", "follow_up", numbers=[hi], note="Rating >= 9"),
        turn("what number did you give me for the ratings under 5?", "conversation",
             numbers=[lo], note="the figure from turn 2"),
    ])


def chat13():
    t = val("SELECT sum(tax) FROM s")
    tm = val("SELECT sum(tax) FROM s WHERE city = 'Mandalay'")
    tmm = val("SELECT sum(tax) FROM s WHERE city = 'Mandalay' AND month(d) = 3")
    return chat("sm-dev-13", [
        turn("how much of the 5% tax did we collect in total", "extra_columns",
             numbers=[r2(t)], note='SUM("Tax 5%")'),
        turn("and just in mandalay?", "follow_up", numbers=[r2(tm)], note='SUM("Tax 5%") for Mandalay (branch B)'),
        turn("mandalay tax for teh last month of the data only?", "negation_recency",
             numbers=[r2(tmm)], names=["March 2019"], note="Mandalay, March 2019 (last month in the file)"),
    ])


def chat14():
    last = val("SELECT sum(tot) FROM s WHERE d BETWEEN DATE '2019-03-17' AND DATE '2019-03-30'")
    prev = val("SELECT sum(tot) FROM s WHERE d BETWEEN DATE '2019-03-03' AND DATE '2019-03-16'")
    cty = ranked("SELECT city, sum(tot) FROM s WHERE d BETWEEN DATE '2019-03-17' AND DATE '2019-03-30' GROUP BY 1", n=1)
    return chat("sm-dev-14", [
        turn("What were sales over the last 2 weeks of data?", "negation_recency",
             numbers=[r2(last)], note="14 days 2019-03-17 to 2019-03-30 inclusive (relative to the last date)"),
        turn("how does that compare with the two weeks before that, in % terms?", "follow_up",
             numbers=[growth(last, prev)],
             note=f"2019-03-03 to 2019-03-16 = {ex(prev)}; change = (last - prev) / prev * 100"),
        turn("which city led in those last two weeks?", "follow_up",
             numbers=[r2(cty[0][1])], first=cty[0][0], names=[cty[0][0]],
             note="2019-03-17..30 by city: " + ", ".join(f"{a} {ex(b)}" for a, b in cty)),
    ])


def chat15():
    u1 = val("SELECT sum(q) FROM s WHERE city <> 'Yangon'")
    u2 = val("SELECT sum(q) FROM s WHERE city <> 'Yangon' AND pl <> 'Health and beauty'")
    pl = ranked("SELECT pl, sum(q) FROM s WHERE city <> 'Yangon' AND pl <> 'Health and beauty' GROUP BY 1", n=1)
    return chat("sm-dev-15", [
        turn("how many units did the branches that aren't in Yangon sell?", "negation_recency",
             numbers=[u1], note="SUM(Quantity) where City <> 'Yangon' (Mandalay + Naypyitaw)"),
        turn("ok and if I also leave out Health and beauty?", "negation_recency",
             numbers=[u2], note="City <> 'Yangon' and Product line <> 'Health and beauty'"),
        turn("which product line sold the most units in that subset", "follow_up",
             numbers=[pl[0][1]], first=pl[0][0], names=[pl[0][0]],
             note="same filter, SUM(Quantity) by line: " + ", ".join(f"{a} {b}" for a, b in pl)),
    ])


def chat16():
    jan = val("SELECT sum(tot) FROM s WHERE city = 'Naypyitaw' AND month(d) = 1")
    cash = val("SELECT count(*) FROM s WHERE city = 'Naypyitaw' AND month(d) = 1 AND pay = 'Cash'")
    return chat("sm-dev-16", [
        turn("how much revenue did our capital city branch bring in during january?", "extra_columns",
             clarify=True, names=["Naypyitaw", "Yangon"],
             note="Naypyitaw is the capital of Myanmar, Yangon the former capital and largest city: ask which"),
        turn("sorry, I meant Naypyitaw", "follow_up",
             numbers=[r2(jan)], names=["Naypyitaw"], note="SUM(Total) Naypyitaw (branch C), January 2019"),
        turn("and how many of its january invoices were paid cash?", "follow_up",
             numbers=[cash], note="Naypyitaw, January 2019, Payment = 'Cash'"),
    ])


def chat17():
    sr, n = rows("SELECT sum(r), count(*) FROM s WHERE ct = 'Member'")[0]
    return chat("sm-dev-17", [
        turn("whats the avg rating from our regular customers?", "extra_columns",
             clarify=True, names=["Member", "Normal"],
             note="'regular' can mean the loyal members or the ordinary 'Normal' customer type: ask which"),
        turn("I mean the ones with a membership", "follow_up",
             numbers=[r2(sr / n)], names=["Member"], note=f"AVG(Rating) where Customer type = 'Member' ({n} invoices)"),
    ])


def chat18():
    q1 = "what was the best-selling product line by revenue in February?"
    pl = ranked("SELECT pl, sum(tot) FROM s WHERE month(d) = 2 GROUP BY 1", n=1)
    gi = val("SELECT sum(gi) FROM s WHERE month(d) = 2 AND pl = ?", pl[0][0])
    return chat("sm-dev-18", [
        turn(q1, "in_schema", numbers=[r2(pl[0][1])], first=pl[0][0], names=[pl[0][0]],
             note="Feb 2019 SUM(Total) by line, runner-up " + f"{pl[1][0]} {ex(pl[1][1])}"),
        turn("how much gross income did it make in that month?", "follow_up",
             numbers=[r2(gi)], note=f"SUM(gross income) for {pl[0][0]}, February 2019"),
        turn("what was my first question?", "conversation", names=[q1], note="verbatim text of turn 1"),
        turn("which month were we talking about?", "conversation", names=["February 2019"],
             note="the month from turns 1-2"),
    ])


def chat19():
    cty = ranked("SELECT city, sum(tot) FROM s WHERE month(d) = 3 GROUP BY 1", n=1)
    c = cty[0][0]
    mem = val("SELECT sum(tot) FROM s WHERE month(d) = 3 AND city = ? AND ct = 'Member'", c)
    su, n = rows("SELECT sum(up), count(*) FROM s WHERE pl = 'Electronic accessories'")[0]
    return chat("sm-dev-19", [
        turn("Which city had the highest sales in March?", "extra_columns",
             numbers=[r2(cty[0][1])], first=c, names=[c],
             note="March 2019 SUM(Total) by city: " + ", ".join(f"{a} {ex(b)}" for a, b in cty)),
        turn("what share of that city's march revenue came from members?", "follow_up",
             numbers=[pct(mem, cty[0][1])],
             note=f"{c}, March: Member SUM(Total) {ex(mem)} / {c} March SUM(Total) {ex(cty[0][1])} * 100"),
        turn("unrelated - whats the average unit price in electronic accesories?", "extra_columns",
             numbers=[r2(su / n)], note=f'plain AVG("Unit price") over the {n} Electronic accessories invoices'),
        turn("remind me which city we were talking about before", "conversation", names=[c],
             note="the city from turns 1-2"),
    ])


def chat20():
    n10 = val("SELECT count(*) FROM s WHERE q = 10")
    f10 = val("SELECT count(*) FROM s WHERE q = 10 AND g = 'Female'")
    rev = val("SELECT sum(tot) FROM s WHERE q = 10 AND g = 'Female'")
    q2 = "and for women?"
    return chat("sm-dev-20", [
        turn("how many invoices had a quantity of 10?", "in_schema", numbers=[n10], note="Quantity = 10"),
        turn(q2, "follow_up", numbers=[f10], note="Quantity = 10 and Gender = 'Female'"),
        turn("whats the avg basket value on those", "follow_up",
             numbers=[r2(Decimal(rev) / f10)],
             note=f"SUM(Total) {ex(rev)} / {f10} for the women's Quantity = 10 invoices"),
        turn("what did I ask right before I asked about the basket value?", "conversation",
             names=[q2], note="verbatim text of turn 2"),
    ])


def chat21():
    n = val("SELECT count(*) FROM s WHERE city = 'Naypyitaw' AND ct = 'Member'")
    return chat("sm-dev-21", [
        turn("who are our top 5 customers by name?", "unanswerable", decline=True,
             note="no customer name or id column"),
        turn("ok then how many invoices came from members in Naypyitaw?", "extra_columns",
             numbers=[n], note="City = 'Naypyitaw' and Customer type = 'Member'"),
        turn("whats our profit after paying rent for the Naypyitaw store?", "unanswerable", decline=True,
             note="no rent or overhead data; only gross income"),
    ])


def chat22():
    n = val("SELECT count(*) FROM s WHERE d BETWEEN DATE '2019-03-28' AND DATE '2019-03-30'")
    return chat("sm-dev-22", [
        turn("which cashier rang up the most sales last month?", "unanswerable", decline=True,
             note="no staff/cashier column"),
        turn("did bad weather cause the dip in febuary? I need to know for the report", "unanswerable",
             decline=True, note="no weather data; the data shows Feb is lower but not why"),
        turn("how many invoices did we have in the final 3 days of data?", "negation_recency",
             numbers=[n], note="2019-03-28 to 2019-03-30 inclusive (relative to the last date)"),
    ])


def chat23():
    top = rows("SELECT tot, br, city FROM s ORDER BY tot DESC LIMIT 2")
    assert top[0][0] != top[1][0]
    return chat("sm-dev-23", [
        turn("can you forecast april 2019 revenue for me?", "unanswerable", decline=True,
             note="no data after 2019-03-30; an exact forecast cannot be read from the file"),
        turn("fine. what was the biggest single invoice and which branch was it from?", "in_schema",
             numbers=[r2(top[0][0])], names=[top[0][1], top[0][2]],
             note=f"MAX(Total), branch {top[0][1]} ({top[0][2]}); next {ex(top[1][0])}"),
        turn("how many of our customers came back and bought again in March?", "unanswerable", decline=True,
             note="no customer identifier, repeat visits cannot be traced"),
    ])


def chat24():
    rev = val(REV)
    fb = val("SELECT sum(tot) FROM s WHERE pl = 'Food and beverages'")
    u = val("SELECT sum(q) FROM s")
    ucc = val("SELECT sum(q) FROM s WHERE pay = 'Credit card'")
    ne = val("SELECT sum(tot) FROM s WHERE pay <> 'Ewallet'")
    nef = val("SELECT sum(tot) FROM s WHERE pay <> 'Ewallet' AND pl = 'Fashion accessories'")
    return chat("sm-dev-24", [
        turn("what share of total revenue comes from Food and beverages?", "in_schema",
             numbers=[pct(fb, rev)], note="SUM(Total) Food and beverages / SUM(Total) * 100"),
        turn("what percent of all units were paid for by credit card?", "extra_columns",
             numbers=[pct(ucc, u)], note=f"SUM(Quantity) Credit card {ucc} / {u}"),
        turn("if we ignore Ewallet payments, what share of revenue is Fashion accessories?", "negation_recency",
             numbers=[pct(nef, ne)], note="Payment <> 'Ewallet': Fashion accessories SUM(Total) / SUM(Total)"),
    ])


def chat25():
    n500 = val("SELECT count(*) FROM s WHERE tot > 500")
    n500nc = val("SELECT count(*) FROM s WHERE tot > 500 AND pay <> 'Cash'")
    assert val("SELECT count(*) FROM s WHERE tot = 500 OR tot = 100") == 0
    r100 = val("SELECT sum(tot) FROM s WHERE tot < 100")
    return chat("sm-dev-25", [
        turn("how many invoices were over 500?", "in_schema", numbers=[n500], note="Total > 500 (none equal 500)"),
        turn("how many of those were not paid in cash?", "negation_recency",
             numbers=[n500nc], note="Total > 500 and Payment <> 'Cash' (Ewallet + Credit card)"),
        turn("and whats the revenue from invoices under 100?", "in_schema",
             numbers=[r2(r100)], note="SUM(Total) where Total < 100"),
        turn("remind me - how many invoices over 500 did you say there were?", "conversation",
             numbers=[n500], note="the figure from turn 1"),
    ])


CHATS = [chat01, chat02, chat03, chat04, chat05, chat06, chat07, chat08, chat09, chat10, chat11, chat12, chat13,
         chat14, chat15, chat16, chat17, chat18, chat19, chat20, chat21, chat22, chat23, chat24, chat25]


# -------------------------------------------------------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv", nargs="?", default=DEFAULT_CSV)
    ap.add_argument("--jsonl", help="write the regenerated bank here")
    ap.add_argument("--bank", default=DEFAULT_BANK, help="bank to check")
    args = ap.parse_args()

    load(args.csv)
    bank = [f() for f in CHATS]
    assert len({c["chat"] for c in bank}) == len(bank)
    if PROBLEMS:
        print("\n".join(PROBLEMS))
        return 1

    counts = {}
    for c in bank:
        print(c["chat"])
        for t in c["turns"]:
            counts[t["category"]] = counts.get(t["category"], 0) + 1
            print(f"  [{t['category']}] {t['q']}")
            print(f"      {json.dumps(t['expect'], ensure_ascii=False)}")
    total = sum(counts.values())
    print(f"\n{len(bank)} chats, {total} questions: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))

    if args.jsonl:
        with open(args.jsonl, "w", encoding="utf-8") as fh:
            for c in bank:
                fh.write(json.dumps(c, ensure_ascii=False) + "\n")
        print(f"wrote {args.jsonl}")
        return 0

    if not os.path.exists(args.bank):
        print(f"MISMATCH: bank {args.bank} not found")
        return 1
    with open(args.bank, encoding="utf-8") as fh:
        onfile = [json.loads(line) for line in fh if line.strip()]
    bad = 0
    if len(onfile) != len(bank):
        print(f"MISMATCH: bank has {len(onfile)} chats, expected {len(bank)}")
        bad += 1
    for want, got in zip(bank, onfile):
        if want != got:
            bad += 1
            print(f"MISMATCH in {want['chat']}:\n  expected {json.dumps(want)}\n  on file  {json.dumps(got)}")
    if bad:
        return 1
    print(f"OK: {args.bank} matches the truths computed from the CSV")
    return 0


if __name__ == "__main__":
    sys.exit(main())

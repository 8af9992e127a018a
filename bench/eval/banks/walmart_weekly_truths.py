#!/usr/bin/env python3
"""Truths for the walmart_weekly blind bank (walmart_weekly_blind.jsonl).

Data: the public "Walmart Store Sales" file (45 Walmart stores, weekly, February 2010 ... October 2012), in a WEEKLY
STORE PANEL layout: one row per Store x week (45 stores x 143 weeks = 6,435 rows), each with the week's total
Weekly_Sales of the store (US dollars, up to 2 decimals), a Holiday_Flag (1 = the week holds one of four holidays:
Super Bowl, Labor Day, Thanksgiving, Christmas) and four regional context measures that are LEVELS, not amounts:
Temperature (average temperature in the region, degrees Fahrenheit), Fuel_Price (US dollars per gallon), CPI (consumer
price index) and Unemployment (rate in percent). There is no product, department, customer, order, store name, store
type, size or location column. Date is written dd-mm-yyyy, DAY FIRST and zero-padded (05-02-2010 = 5 February 2010),
always a Friday. The file is plain ASCII, LF line ends, no final newline, comma delimiter, no quoting.
Taken from the public GitHub repository ZarahShibli/Retail-Analysis-with-Walmart-Data, path Walmart_Store_sales.csv,
installed byte for byte (see the README section).

Every expected number and name is computed here with duckdb SQL; nothing is typed by hand except the question texts
(and, for `conversation` turns, the text of an earlier question or a fact the user stated, taken from the chat itself).

    python walmart_weekly_truths.py [CSV]                    # print questions + truths, check the bank
    python walmart_weekly_truths.py [CSV] --jsonl out.jsonl  # write the bank

CSV defaults to /work/evaldata/walmart_weekly/Walmart_Store_sales.csv. Without --jsonl the script compares the computed
chats with walmart_weekly_blind.jsonl next to it (or --bank PATH) and exits 1 on the first mismatch (also when the
CSV's sha256, header, row count or layout is not the expected one). Needs only the standard library and duckdb.
"""
import argparse
import hashlib
import json
import sys
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import duckdb

DATASET = "walmart_weekly"
PREFIX = "ww"
DEFAULT_CSV = "/work/evaldata/walmart_weekly/Walmart_Store_sales.csv"
SHA256 = "9cd52db918f0249288b8bdb35dcdaeede5ed7a55f8ed1f8b910a93a550cbf893"
SIZE = 357297
ROWS = 6435  # data lines after the header: 45 stores x 143 weeks
COLUMNS = ["Store", "Date", "Weekly_Sales", "Holiday_Flag", "Temperature", "Fuel_Price", "CPI", "Unemployment"]
HEADER = (",".join(COLUMNS) + "\n").encode("ascii")
FIRST = date(2010, 2, 5)  # first week (a Friday)
LATEST = date(2012, 10, 26)  # latest week: "this year", "latest week", "last 4 weeks", "latest month" are anchored here
WEEKS = 143
STORES = 45

con: duckdb.DuckDBPyConnection


# ---------------------------------------------------------------- helpers
def load(csv_path: str) -> None:
    global con
    raw = Path(csv_path).read_bytes()
    sha = hashlib.sha256(raw).hexdigest()
    if sha != SHA256 or len(raw) != SIZE:
        sys.exit(f"{csv_path}: sha256 {sha} / {len(raw)} bytes is not the expected {SHA256} / {SIZE}")
    if not raw.startswith(HEADER):
        sys.exit("unexpected header line")
    # LF line ends, no CR, no final newline (header + 6,435 data lines = 6,435 LF characters), no quoting, ASCII only
    if raw.count(b"\n") != ROWS or b"\r" in raw or raw.endswith(b"\n") or b'"' in raw or max(raw) > 127:
        sys.exit("line ends / quoting / encoding changed")
    con = duckdb.connect()
    path_sql = csv_path.replace("'", "''")
    con.execute(
        f"create table raw as select * from read_csv('{path_sql}', header=true, all_varchar=true, delim=',', "
        f"quote='\"', escape='\"', strict_mode=true)"
    )
    if [c for (c,) in rows("select column_name from (describe raw)")] != COLUMNS:
        sys.exit("columns changed")
    if one("select count(*) from raw") != ROWS:
        sys.exit(f"expected {ROWS} data lines")
    # Date is dd-mm-yyyy, DAY FIRST, zero-padded (e.g. 05-02-2010 = 5 February 2010, 26-10-2012 = 26 October 2012).
    if one("select count(*) from raw where not regexp_full_match(Date, '(0[1-9]|[12][0-9]|3[01])-(0[1-9]|1[0-2])-"
           "20(10|11|12)')"):
        sys.exit("a Date that is not dd-mm-yyyy")
    checks = {
        "Store": "([1-9]|[1-3][0-9]|4[0-5])",
        "Weekly_Sales": "[0-9]+(\\.[0-9]{1,2})?",
        "Holiday_Flag": "[01]",
        "Temperature": "-?[0-9]+(\\.[0-9]{1,2})?",
        "Fuel_Price": "[0-9](\\.[0-9]{1,3})?",
        "CPI": "[0-9]+(\\.[0-9]{1,7})?",
        "Unemployment": "[0-9]+(\\.[0-9]{1,3})?",
    }
    for c, rx in checks.items():
        if one(f"select count(*) from raw where not regexp_full_match({c}, '{rx}')"):
            sys.exit(f"{c}: a value of unexpected form")
    con.execute(
        """create view t as select
             Store::int as st, cast(strptime(Date, '%d-%m-%Y') as date) as d,
             Weekly_Sales::decimal(18, 2) as ws, Holiday_Flag::int as hf, Temperature::decimal(8, 2) as temp,
             Fuel_Price::decimal(8, 3) as fuel, CPI::decimal(18, 7) as cpi, Unemployment::decimal(8, 3) as unemp
           from raw"""
    )
    if (one("select min(d) from t"), one("select max(d) from t"), one("select count(distinct d) from t")) != (
            FIRST, LATEST, WEEKS):
        sys.exit("week range changed")
    if one("select count(*) from t where dayofweek(d) <> 5"):
        sys.exit("a Date that is not a Friday")
    dates = [d for (d,) in rows("select distinct d from t order by 1")]
    if any(b - a != timedelta(days=7) for a, b in zip(dates, dates[1:])):
        sys.exit("weeks are no longer consecutive")
    if one("select count(distinct st) from t") != STORES or one(
            "select count(*) from (select st, d from t group by all having count(*) > 1)"):
        sys.exit("grain is no longer one row per Store x week")
    if one("select count(*) from (select d from t group by 1 having count(distinct hf) > 1)"):
        sys.exit("Holiday_Flag differs between stores in one week")
    if one("select count(distinct d) from t where hf = 1") != 10:
        sys.exit("expected 10 flagged holiday weeks")


def rows(sql: str):
    return con.execute(sql).fetchall()


def one(sql: str):
    return con.execute(sql).fetchone()[0]


def dec(x) -> Decimal:
    return x if isinstance(x, Decimal) else Decimal(str(x))


def r2(x) -> float:
    """Round half-up to 2 decimals; refuse a value sitting exactly on a half cent."""
    d = dec(x)
    if (d * 1000) == (d * 1000).to_integral_value() and (d * 1000) % 10 == 5:
        raise SystemExit(f"truth {d} lands on a half cent")
    return float(d.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def num(x):
    """Whole numbers stay integers; anything else is rounded to 2 decimals."""
    d = dec(x)
    return int(d) if d == d.to_integral_value() else r2(d)


def pct(a, b) -> float:
    return r2(dec(a) * 100 / dec(b))


def growth(new, old) -> float:
    return r2((dec(new) - dec(old)) * 100 / dec(old))


def ratio(a, b) -> float:
    return r2(dec(a) / dec(b))


def ranked(sql: str, n: int, desc: bool = True):
    """Top-n (label, value) rows of a 2-column query; asserts no tie at #1 and at the cut."""
    order = "desc" if desc else "asc"
    res = rows(f"select * from ({sql}) q order by 2 {order}, 1 limit {n + 1}")
    if len(res) > 1 and res[0][1] == res[1][1]:
        raise SystemExit(f"tie at #1: {res[:2]}")
    if len(res) > n and res[n - 1][1] == res[n][1]:
        raise SystemExit(f"tie at the cut {n}: {res[n - 1]} / {res[n]}")
    return res[:n]


def dname(d: date) -> str:
    return f"{d.strftime('%B')} {d.day}, {d.year}"


def mname(d: date) -> str:
    return f"{d.strftime('%B')} {d.year}"


def sname(s: int) -> str:
    return f"Store {s}"


def dd(d: date) -> str:
    """The date as the file writes it (dd-mm-yyyy)."""
    return d.strftime("%d-%m-%Y")


def sales(where: str = "true"):
    return one(f"select sum(ws) from t where {where}")


def avg_ws(where: str = "true"):
    s, n = rows(f"select sum(ws), count(*) from t where {where}")[0]
    return dec(s) / n


def turn(q, category, numbers=None, names=None, note="", first=None, decline=False, clarify=False):
    exp = {}
    if decline:
        exp["decline"] = True
    if clarify:
        exp["clarify"] = True
    if numbers is not None:
        exp["numbers"] = numbers
    if names is not None:
        exp["names"] = names
    if first is not None:
        exp["first"] = first
    exp["note"] = note
    return {"q": q, "category": category, "expect": exp}


Y10 = "year(d) = 2010"
Y11 = "year(d) = 2011"
Y12 = "year(d) = 2012"
YTD12 = "d between date '2012-01-01' and date '2012-10-26'"  # = all of 2012 in the file: 43 weeks, 6 Jan ... 26 Oct
YTD11 = "d between date '2011-01-01' and date '2011-10-28'"  # the same 43 weeks a year earlier: 7 Jan ... 28 Oct 2011
LAST4 = "d >= date '2012-10-05'"  # weeks dated 5, 12, 19, 26 October 2012
RECENCY = ("The latest week in the file is dated Friday 26-10-2012 (26 October 2012); recency is anchored there, "
           "never on today's date.")
WEEKNOTE = "Date is dd-mm-yyyy, day first (a Friday); one row per store and week."


# ---------------------------------------------------------------- chats
def chat01():
    s = sales()
    n_st, n_wk, n = rows("select count(distinct st), count(distinct d), count(*) from t")[0]
    return [
        turn("whats total sales across all the stores in this file?", "in_schema", [num(s)],
             note=f"SUM(Weekly_Sales) over all {n} rows (45 stores x 143 weeks, 5 Feb 2010 ... 26 Oct 2012), "
                  "US dollars."),
        turn("how many stores are there and how many weeks does it cover", "in_schema", [n_st, n_wk],
             note="COUNT(DISTINCT Store), COUNT(DISTINCT Date); every store has every week."),
        turn("so whats a normal week for one store, on average?", "follow_up", [r2(dec(s) / n)],
             note=f"AVG(Weekly_Sales) over all store-weeks = {s} / {n}."),
    ]


def chat02():
    ys = rows("select year(d), sum(ws), count(distinct d) from t group by 1 order by 1")
    a10 = sales("d between date '2010-02-01' and date '2010-12-31'")
    a11 = sales("d between date '2011-02-01' and date '2011-12-31'")
    w10 = one("select count(distinct d) from t where d between date '2010-02-01' and date '2010-12-31'")
    w11 = one("select count(distinct d) from t where d between date '2011-02-01' and date '2011-12-31'")
    assert w10 == w11 == 48
    b12, b11 = sales(YTD12), sales(YTD11)
    assert one(f"select count(distinct d) from t where {YTD12}") == one(f"select count(distinct d) from t where {YTD11}")
    return [
        turn("sales by year please", "in_schema", [num(s) for _, s, _ in ys], [str(y) for y, _, _ in ys],
             note="SUM(Weekly_Sales) by calendar year of Date: "
                  + "; ".join(f"{y} = {s} ({w} weeks)" for y, s, w in ys)
                  + ". 2010 starts on 5 Feb and 2012 ends on 26 Oct, so only 2011 is a full year."),
        turn("2010 looks low, does it start in feb? compare 2011 vs 2010 like for like, feb-dec only", "follow_up",
             [num(a10), num(a11), growth(a11, a10)],
             note=f"Weeks dated February-December: 2010 = {a10} ({w10} weeks), 2011 = {a11} ({w11} weeks); growth "
                  "(2011 - 2010) / 2010 * 100."),
        turn("and is 2012 tracking ahead of 2011? same weeks", "follow_up", [num(b12), num(b11), growth(b12, b11)],
             note=f"2012 in the file = weeks 6 Jan ... 26 Oct 2012 = {b12}; the same 43 weeks of 2011 (7 Jan ... "
                  f"28 Oct 2011) = {b11}; growth (2012 - 2011) / 2011 * 100."),
    ]


def chat03():
    top = ranked("select st, sum(ws) from t group by 1", 5)
    bot = ranked("select st, sum(ws) from t group by 1", 3, desc=False)
    q4 = "what was #3 on the first list?"
    return [
        turn("top 5 stores by total sales", "in_schema", [num(v) for _, v in top], [sname(s) for s, _ in top],
             first=sname(top[0][0]), note="SUM(Weekly_Sales) by Store over the whole file (stores are numbered 1-45; "
                                         "there is no store name)."),
        turn("bottom 3", "follow_up", [num(v) for _, v in bot], [sname(s) for s, _ in bot], first=sname(bot[0][0]),
             note="The 3 stores with the lowest SUM(Weekly_Sales), lowest first."),
        turn("how many times bigger is the #1 store than the very last one?", "follow_up", [ratio(top[0][1], bot[0][1])],
             note=f"{sname(top[0][0])} / {sname(bot[0][0])} = {top[0][1]} / {bot[0][1]}."),
        turn(q4, "conversation", [num(top[2][1])], [sname(top[2][0])],
             note="The #3 store of the top 5, the first answer of this chat."),
    ]


def chat04():
    best = ranked("select d, sum(ws) from t group by 1", 1)[0]
    assert one(f"select max(hf) from t where d = date '{best[0]}'") == 0
    xmas = [d for (d,) in rows("select distinct d from t where hf = 1 and month(d) = 12 and year(d) = 2010")]
    assert len(xmas) == 1
    xv = sales(f"d = date '{xmas[0]}'")
    rank = one(f"select count(*) + 1 from (select d, sum(ws) s from t group by 1) where s > {xv}")
    assert rank == WEEKS - 2 and one(f"select count(*) from (select d, sum(ws) s from t group by 1) where s = {xv}") == 1
    worst = ranked("select d, sum(ws) from t group by 1", 1, desc=False)[0]
    return [
        turn("which week had the biggest total sales, all stores combined?", "in_schema", [num(best[1])],
             [dname(best[0])], note=f"SUM(Weekly_Sales) by Date; the best week is dated {dd(best[0])} "
                                   f"({best[0]:%Y-%m-%d}), the week before Christmas. {WEEKNOTE}"),
        turn("was that one of the flagged holiday weeks? if not, which christmas week is flagged and how did it do",
             "extra_columns", [num(xv)], [dname(xmas[0])],
             note=f"No: Holiday_Flag is 0 in the week of {dd(best[0])}. The flagged Christmas week of 2010 is dated "
                  f"{dd(xmas[0])} ({xmas[0]:%Y-%m-%d}); its SUM(Weekly_Sales) = {xv}."),
        turn("so where does that flagged week rank out of all the weeks?", "follow_up", [rank, WEEKS],
             note=f"Rank of the {dd(xmas[0])} week by SUM(Weekly_Sales) among the {WEEKS} weeks, highest = 1 (it "
                  "is the third-lowest week)."),
        turn("whats the worst week overal?", "in_schema", [num(worst[1])], [dname(worst[0])],
             note=f"Lowest SUM(Weekly_Sales) by Date: {dd(worst[0])} ({worst[0]:%Y-%m-%d})."),
    ]


def chat05():
    h, n = avg_ws("hf = 1"), avg_ws("hf = 0")
    top = ranked("select d, sum(ws) from t where hf = 1 group by 1", 1)[0]
    return [
        turn("do holiday weeks actually sell more? avg weekly sales per store, holiday vs non-holiday",
             "extra_columns", [r2(h), r2(n)],
             note="AVG(Weekly_Sales) over store-weeks with Holiday_Flag = 1 (10 weeks x 45 stores) vs Holiday_Flag "
                  "= 0."),
        turn("by how much in %", "follow_up", [growth(h, n)],
             note="(holiday avg - non-holiday avg) / non-holiday avg * 100."),
        turn("which of the flagged holiday weeks sold the most in total?", "extra_columns", [num(top[1])],
             [dname(top[0])], note=f"SUM(Weekly_Sales) by Date over the 10 weeks with Holiday_Flag = 1: "
                                   f"{dd(top[0])} ({top[0]:%Y-%m-%d}), Thanksgiving 2011."),
    ]


def chat06():
    flagged = [d for (d,) in rows("select distinct d from t where hf = 1 and month(d) = 12 and year(d) = 2011")]
    assert flagged == [date(2011, 12, 30)]
    before = date(2011, 12, 23)
    fv, bv = sales(f"d = date '{flagged[0]}'"), sales(f"d = date '{before}'")
    assert one(f"select max(hf) from t where d = date '{before}'") == 0
    return [
        turn("how did christmas week go in 2011?", "extra_columns", names=[dname(flagged[0]), dname(before)],
             clarify=True,
             note=f"Ambiguous: the file flags the week dated {dd(flagged[0])} as the Christmas holiday week "
                  f"(Holiday_Flag = 1, SUM = {fv}), while the week dated {dd(before)} (not flagged, SUM = {bv}) is "
                  "the one before Christmas Day and sells far more. A good answer asks which is meant (or clearly "
                  "gives both)."),
        turn("the one your data flags as the holiday", "follow_up", [num(fv)], [dname(flagged[0])],
             note=f"SUM(Weekly_Sales) of the week dated {dd(flagged[0])}, all 45 stores."),
    ]


def chat07():
    ms = rows(f"select date_trunc('month', d)::date m, sum(ws), count(distinct d) from t where {Y12} "
              "group by 1 order by 1")
    best = ranked(f"select date_trunc('month', d)::date, sum(ws) from t where {Y12} group by 1", 1)[0]
    per = ranked(f"select date_trunc('month', d)::date, sum(ws) / count(distinct d) from t where {Y12} group by 1", 1)[0]
    pw = {m: (s, w) for m, s, w in ms}[per[0]]
    mar = {m: s for m, s, _ in ms}[date(2012, 3, 1)]
    return [
        turn("monthly sales for 2012?", "in_schema", [num(s) for _, s, _ in ms], [mname(m) for m, _, _ in ms],
             note="SUM(Weekly_Sales) by month of Date, January ... October 2012 (a week counts in the month of its "
                  "Friday date; March, June and August have 5 weeks, the others 4). " + WEEKNOTE),
        turn("best month?", "follow_up", [num(best[1])], [mname(best[0])],
             note="The highest month of the 2012 list just given."),
        turn("isnt that just because it has 5 weeks? whats the best month per week", "follow_up", [r2(per[1])],
             [mname(per[0])],
             note=f"SUM(Weekly_Sales) / number of weeks by month of 2012: {mname(per[0])} = {pw[0]} / {pw[1]} weeks; "
                  "it stays the best month."),
        turn("remind me what you said march was", "conversation", [num(mar)],
             note="March 2012 from the first answer of this chat."),
    ]


def chat08():
    qs = rows(f"select quarter(d), sum(ws) from t where {Y11} group by 1 order by 1")
    v = dict(qs)
    return [
        turn("break 2011 down by quarter", "in_schema", [num(s) for _, s in qs], [f"Q{k} 2011" for k, _ in qs],
             note="SUM(Weekly_Sales) by calendar quarter of Date, 2011 (12, 13, 14 and 13 weeks)."),
        turn("q4 vs q3 growth?", "follow_up", [growth(v[4], v[3])],
             note=f"(Q4 - Q3) / Q3 * 100 = ({v[4]} - {v[3]}) / {v[3]} * 100."),
    ]


def chat09():
    hi = rows("select st, d, ws from t order by ws desc limit 2")
    lo = rows("select st, d, ws from t order by ws asc limit 2")
    assert hi[0][2] != hi[1][2] and lo[0][2] != lo[1][2]
    s33 = avg_ws(f"st = {lo[0][0]}")
    return [
        turn("whats the single biggest store-week in the whole file?", "in_schema", [num(hi[0][2])],
             [sname(hi[0][0]), dname(hi[0][1])],
             note=f"MAX(Weekly_Sales) over all rows: {sname(hi[0][0])}, week dated {dd(hi[0][1])}."),
        turn("and the smallest?", "follow_up", [num(lo[0][2])], [sname(lo[0][0]), dname(lo[0][1])],
             note=f"MIN(Weekly_Sales) over all rows: {sname(lo[0][0])}, week dated {dd(lo[0][1])}."),
        turn("what's that store's average week", "follow_up", [r2(s33)],
             note=f"AVG(Weekly_Sales) of {sname(lo[0][0])} over its 143 weeks."),
    ]


def chat10():
    g = (f"(sum(ws) filter (where {YTD12}) - sum(ws) filter (where {YTD11})) * 100.0 / "
         f"sum(ws) filter (where {YTD11})")
    top = ranked(f"select st, {g} from t group by 1", 1)[0]
    worst = ranked(f"select st, {g} from t group by 1", 1, desc=False)[0]
    down = one(f"select count(*) from (select st, {g} g from t group by 1) where g < 0")
    assert one(f"select count(*) from (select st, {g} g from t group by 1) where g = 0") == 0
    ta = rows(f"select sum(ws) filter (where {YTD11}), sum(ws) filter (where {YTD12}) from t where st = {top[0]}")[0]
    wa = rows(f"select sum(ws) filter (where {YTD11}), sum(ws) filter (where {YTD12}) from t where st = {worst[0]}")[0]
    q1 = "which store grew the most in 2012 vs 2011? use the same weeks (jan to late oct)"
    return [
        turn(q1, "in_schema", [growth(ta[1], ta[0])], [sname(top[0])],
             note=f"Growth by Store, weeks 6 Jan ... 26 Oct 2012 vs 7 Jan ... 28 Oct 2011: {sname(top[0])} "
                  f"{ta[0]} -> {ta[1]}."),
        turn("how many stores went backwards?", "negation_recency", [down],
             note="Stores whose 2012 sales (6 Jan ... 26 Oct) are below the same 43 weeks of 2011."),
        turn("who dropped the most", "follow_up", [growth(wa[1], wa[0])], [sname(worst[0])],
             note=f"Lowest growth on the same basis: {sname(worst[0])} {wa[0]} -> {wa[1]}."),
        turn("what did i ask you first?", "conversation", names=[q1], note="The text of the first turn."),
    ]


def chat11():
    r = one("select corr(temp::double, ws::double) from t")
    hot, n_hot = avg_ws("temp > 90"), one("select count(*) from t where temp > 90")
    cold, n_cold = avg_ws("temp < 32"), one("select count(*) from t where temp < 32")
    hi = rows("select st, d, temp from t order by temp desc limit 2")
    assert hi[0][2] != hi[1][2]
    return [
        turn("does temperature have any relationship with sales? correlation pls", "extra_columns", [r2(r)],
             note="Pearson correlation of Temperature and Weekly_Sales over all 6,435 store-weeks (weak, negative)."),
        turn("ok what about weeks over 90 degrees vs below freezing - avg store sales for each", "extra_columns",
             [r2(hot), r2(cold)],
             note=f"AVG(Weekly_Sales) where Temperature > 90 ({n_hot} store-weeks) vs Temperature < 32 ({n_cold} "
                  "store-weeks); Temperature is in degrees Fahrenheit."),
        turn("hotest week any store had?", "extra_columns", [r2(hi[0][2])], [sname(hi[0][0]), dname(hi[0][1])],
             note=f"MAX(Temperature): {sname(hi[0][0])}, week dated {dd(hi[0][1])}."),
    ]


def chat12():
    ys = rows("select year(d), sum(fuel), count(*) from t group by 1 order by 1")
    mx = one("select max(fuel) from t")
    when = [d for (d,) in rows(f"select distinct d from t where fuel = {mx}")]
    assert len(when) == 1
    r = one("select corr(fuel::double, ws::double) from t")
    return [
        turn("avg fuel price by year?", "extra_columns", [r2(dec(s) / n) for _, s, n in ys],
             [str(y) for y, _, _ in ys],
             note="AVG(Fuel_Price) over the store-weeks of each calendar year (Fuel_Price is a regional price per "
                  "gallon, a level: averaged, never summed)."),
        turn("when did it peak?", "follow_up", [r2(mx)], [dname(when[0])],
             note=f"MAX(Fuel_Price) = {mx}, in the week dated {dd(when[0])} (several stores share it)."),
        turn("is fuel price correlated with sales at all", "follow_up", [r2(r)],
             note="Pearson correlation of Fuel_Price and Weekly_Sales over all store-weeks (about zero)."),
    ]


def chat13():
    res = rows("select st, sum(unemp), count(*) from t group by 1 order by sum(unemp) desc, st")
    top_v = res[0][1]
    tied = sorted(s for s, v, _ in res if v == top_v)
    assert len(tied) == 3 and res[3][1] != top_v
    rk = dict(rows("select st, rank() over (order by sum(ws) desc) from t group by 1"))
    lat_s, lat_n = rows(f"select sum(unemp), count(*) from t where d = date '{LATEST}'")[0]
    return [
        turn("which store has the highest average unemployement rate", "extra_columns", [r2(dec(top_v) / res[0][2])],
             [sname(s) for s in tied],
             note=f"AVG(Unemployment) by Store: a real three-way tie, {', '.join(sname(s) for s in tied)} all have "
                  "the same series (one region); all three must be named."),
        turn("where do they rank on total sales?", "follow_up", [rk[s] for s in tied], [sname(s) for s in tied],
             note="Rank by SUM(Weekly_Sales) among the 45 stores (1 = highest): "
                  + ", ".join(f"{sname(s)} #{rk[s]}" for s in tied) + "."),
        turn("whats the avg unemployment across all stores in the latest week", "negation_recency",
             [r2(dec(lat_s) / lat_n)], [dname(LATEST)],
             note=f"{RECENCY} AVG(Unemployment) of the 45 rows dated {dd(LATEST)}."),
    ]


def chat14():
    a, b = [dec(one(f"select avg(cpi) from t where d = date '{x}'")) for x in (FIRST, LATEST)]
    return [
        turn("how much did CPI move over the period? avg across stores, first week vs last week", "extra_columns",
             [r2(a), r2(b), growth(b, a)], [dname(FIRST), dname(LATEST)],
             note=f"AVG(CPI) of the 45 rows dated {dd(FIRST)} vs {dd(LATEST)}, and the change in % "
                  "(CPI is a regional index level, averaged, never summed)."),
    ]


def chat15():
    q1 = "how did the latest week do?"
    a = sales(f"d = date '{LATEST}'")
    ly = LATEST - timedelta(days=364)
    b = sales(f"d = date '{ly}'")
    return [
        turn(q1, "negation_recency", [num(a)], [dname(LATEST)],
             note=f"{RECENCY} SUM(Weekly_Sales) of the week dated {dd(LATEST)}, all 45 stores."),
        turn("vs the same week last year?", "follow_up", [num(b), growth(a, b)], [dname(ly)],
             note=f"The week 52 weeks earlier is dated {dd(ly)} = {b}; change (new - old) / old * 100 (a small "
                  "decline)."),
        turn("what was my first question?", "conversation", names=[q1], note="The text of the first turn."),
    ]


def chat16():
    top = ranked(f"select st, sum(ws) from t where {LAST4} group by 1", 3)
    tot = sales(LAST4)
    assert one(f"select count(distinct d) from t where {LAST4}") == 4
    return [
        turn("top 3 stores over the last 4 weeks?", "negation_recency", [num(v) for _, v in top],
             [sname(s) for s, _ in top], first=sname(top[0][0]),
             note=f"{RECENCY} Last 4 weeks = the weeks dated 05-10-2012, 12-10-2012, 19-10-2012 and 26-10-2012; "
                  "SUM(Weekly_Sales) by Store."),
        turn("whats the total for all stores over those 4 weeks", "follow_up", [num(tot)],
             note="SUM(Weekly_Sales), all 45 stores, the same 4 weeks."),
        turn("who did you say was number 2?", "conversation", [num(top[1][1])], [sname(top[1][0])],
             note="The #2 store of the first answer."),
    ]


def chat17():
    over = rows(f"select st from t where {Y12} group by 1 having max(ws) >= 2000000 order by 1")
    never = one(f"select count(*) from (select st from t where {Y12} group by 1 having max(ws) < 2000000)")
    assert one(f"select count(*) from t where {Y12} and ws = 2000000") == 0
    return [
        turn("this year, how many stores never had a single week over $2M?", "negation_recency", [never],
             note=f"{RECENCY} 'This year' = 2012 (weeks 6 Jan ... 26 Oct). Stores whose MAX(Weekly_Sales) in 2012 is "
                  "below 2,000,000."),
        turn("which ones did crack 2 million?", "follow_up", [len(over)], [sname(s) for (s,) in over],
             note="Stores with at least one 2012 week of 2,000,000 or more."),
    ]


def chat18():
    a = sales("hf = 0")
    b = sales("hf = 0 and st <> 20")
    h, tot = sales("hf = 1"), sales()
    nw = one("select count(distinct d) from t where hf = 0")
    return [
        turn("total sales excluding the holiday weeks", "negation_recency", [num(a)],
             note=f"SUM(Weekly_Sales) where Holiday_Flag = 0 ({nw} of the {WEEKS} weeks), all stores."),
        turn("and also leave out store 20", "follow_up", [num(b)],
             note="SUM(Weekly_Sales) where Holiday_Flag = 0 and Store <> 20."),
        turn("what % of all sales came in the holiday weeks?", "extra_columns", [pct(h, tot)],
             note=f"SUM where Holiday_Flag = 1 / all * 100 = {h} / {tot} * 100 ({WEEKS - nw} of {WEEKS} weeks)."),
    ]


def chat19():
    return [
        turn("which departmnet sells the most?", "unanswerable", decline=True,
             note="No department column: each row is a whole store's week (the Kaggle competition's Dept-level file "
                  "is not this one)."),
        turn("ok then whats our best-selling product", "unanswerable", decline=True,
             note="No product or item column at all; only store-level weekly totals."),
    ]


def chat20():
    return [
        turn("how many customers came into store 1 last week?", "unanswerable", decline=True,
             note="No customer, transaction or footfall column; only dollar sales per store and week."),
        turn("whats the square footage of store 20? is it a type A store?", "unanswerable", decline=True,
             note="No store size or store type column in this file (only Store numbers)."),
    ]


def chat21():
    w = rows("select d, sum(ws) from t where hf = 1 and month(d) = 11 group by 1 order by 1")
    assert [d for d, _ in w] == [date(2010, 11, 26), date(2011, 11, 25)]
    return [
        turn("what exactly will black friday week 2012 sales be?", "unanswerable", decline=True,
             note="The file ends with the week dated 26-10-2012; an exact future figure cannot come from it."),
        turn("fine. what did thanksgiving week do in 2010 and 2011 then?", "extra_columns", [num(s) for _, s in w],
             [dname(d) for d, _ in w],
             note="The flagged (Holiday_Flag = 1) November weeks: "
                  + "; ".join(f"{dd(d)} = {s}" for d, s in w) + "."),
    ]


def chat22():
    s20 = sales(f"st = 20 and {Y12}")
    return [
        turn("what city is store 20 in?", "unanswerable", decline=True,
             note="No city, state or address column; stores are only numbers (Temperature, CPI etc. are regional "
                  "figures but name no place)."),
        turn("how much did we spend on markdowns in 2012?", "unanswerable", decline=True,
             note="No markdown / promotion column in this file (MarkDown1-5 live in another file of the Kaggle "
                  "competition)."),
        turn("alright, just give me store 20's total for 2012 then", "in_schema", [num(s20)],
             note="SUM(Weekly_Sales), Store 20, weeks dated in 2012 (6 Jan ... 26 Oct)."),
    ]


def chat23():
    mine = "st between 1 and 5"
    tot = sales(f"{mine} and {Y12}")
    best = ranked(f"select st, sum(ws) from t where {mine} and {Y12} group by 1", 1)[0]
    all12 = sales(Y12)
    return [
        turn("I look after stores 1 to 5. what did they do combined in 2012?", "in_schema", [num(tot)],
             note="SUM(Weekly_Sales), Stores 1-5, weeks dated in 2012."),
        turn("which of mine was best", "follow_up", [num(best[1])], [sname(best[0])],
             note="SUM(Weekly_Sales) by Store among Stores 1-5, 2012."),
        turn("and what share of the whole chain is that this year", "negation_recency", [pct(tot, all12)],
             note=f"{RECENCY} 'This year' = 2012. Stores 1-5 = {tot} / all stores {all12} * 100."),
        turn("which stores did i say i look after?", "conversation", [1, 5],
             note="The user said stores 1 to 5 in the first turn."),
    ]


def chat24():
    dm, md = date(2012, 2, 3), date(2012, 3, 2)
    a, b = sales(f"d = date '{dm}'"), sales(f"d = date '{md}'")
    return [
        turn("what were total sales for the week of 03-02-2012?", "in_schema", names=[dname(dm), dname(md)],
             clarify=True,
             note=f"Ambiguous: read day first (as the file writes dates) 03-02-2012 is 3 February 2012 (SUM = {a}); "
                  f"read US-style it is 2 March 2012 (SUM = {b}); both are Fridays and both weeks are in the file. A "
                  "good answer asks which is meant (or clearly gives both)."),
        turn("sorry, US style - march 2nd", "follow_up", [num(b)], [dname(md)],
             note=f"SUM(Weekly_Sales) of the week dated {dd(md)} (02-03-2012 in the file)."),
    ]


def chat25():
    ds = [d for (d,) in rows("select distinct d from t where hf = 1 order by 1")]
    return [
        turn("how many weeks are flagged as holidays, and which dates?", "extra_columns", [len(ds)],
             [dname(d) for d in ds],
             note="Distinct Dates with Holiday_Flag = 1 (the flag is the same for every store in a week): "
                  + ", ".join(dd(d) for d in ds) + "."),
        turn("what holidays are those", "follow_up", names=["Super Bowl", "Labor Day", "Thanksgiving", "Christmas"],
             note="The flagged weeks are in February (Super Bowl), September (Labor Day), late November "
                  "(Thanksgiving) and the last week of December (Christmas); the file names no holiday, so this is "
                  "read off the dates. Thanksgiving and Christmas 2012 are after the file ends."),
    ]


def chat26():
    top = ranked("select st, stddev_samp(ws) from t group by 1", 1)[0]
    low = ranked("select st, stddev_samp(ws) from t group by 1", 1, desc=False)[0]
    assert ranked("select st, stddev_pop(ws) from t group by 1", 1)[0][0] == top[0]
    assert ranked("select st, stddev_pop(ws) from t group by 1", 1, desc=False)[0][0] == low[0]
    cv = ranked("select st, stddev_samp(ws) / avg(ws) from t group by 1", 1)[0]
    return [
        turn("which store has the most volatile weekly sales? by std dev", "in_schema", names=[sname(top[0])],
             first=sname(top[0]),
             note=f"Standard deviation of Weekly_Sales by Store (sample {r2(top[1])}; the population formula gives "
                  "the same order)."),
        turn("and the steadiest one?", "follow_up", names=[sname(low[0])],
             note=f"Lowest standard deviation of Weekly_Sales by Store (sample {r2(low[1])})."),
        turn("hmm std dev just tracks size tho. relative to its average which store swings most?", "follow_up",
             [pct(cv[1], 1)], [sname(cv[0])],
             note="Coefficient of variation = sample standard deviation / mean of Weekly_Sales by Store, in %; "
                  "the top store differs from the std-dev ranking."),
    ]


def chat27():
    s45, all11 = sales(f"st = 45 and {Y11}"), sales(Y11)
    return [
        turn("store 45 sales in 2011?", "in_schema", [num(s45)], note="SUM(Weekly_Sales), Store 45, 2011."),
        turn("share of the 2011 total?", "follow_up", [pct(s45, all11)],
             note=f"{s45} / {all11} * 100 (all 45 stores, 2011)."),
    ]


def chat28():
    oct_, sep = sales("d >= date '2012-10-01'"), sales("d between date '2012-09-01' and date '2012-09-30'")
    assert one("select count(distinct d) from t where d >= date '2012-10-01'") == 4
    assert one("select count(distinct d) from t where d between date '2012-09-01' and date '2012-09-30'") == 4
    q3, q2 = sales("d between date '2012-07-01' and date '2012-09-30'"), sales(
        "d between date '2012-04-01' and date '2012-06-30'")
    return [
        turn("quick one - how did the latest month do vs the month before?", "negation_recency",
             [num(oct_), num(sep), growth(oct_, sep)], ["October 2012", "September 2012"],
             note=f"{RECENCY} Latest month = October 2012 (4 weeks, 5-26 Oct), month before = September 2012 "
                  "(4 weeks, 7-28 Sep); change (Oct - Sep) / Sep * 100."),
        turn("and the last full quarter vs the one before it?", "negation_recency",
             [num(q3), num(q2), growth(q3, q2)], ["Q3 2012", "Q2 2012"],
             note="Q4 2012 has only 4 weeks in the file, so the last full quarter is Q3 2012 (13 weeks) vs Q2 2012 "
                  "(13 weeks); change (Q3 - Q2) / Q2 * 100."),
        turn("whats the first number you gave me?", "conversation", [num(oct_)],
             note="October 2012 sales from the first answer."),
    ]


def chat29():
    low = [s for (s,) in rows("select st from t group by 1 having max(unemp) <= 6 order by 1")]
    assert one("select count(*) from t where unemp = 6") == 0
    ins = ",".join(str(s) for s in low)
    peak = rows(f"select distinct max(unemp) over (partition by st) from t where st in ({ins})")
    assert len(peak) == 1
    a, b = avg_ws(f"st in ({ins})"), avg_ws(f"st not in ({ins})")
    return [
        turn("which stores never had unemployment above 6%?", "negation_recency", names=[sname(s) for s in low],
             note=f"Stores whose MAX(Unemployment) over all {WEEKS} weeks is at most 6 (both peak at {peak[0][0]})."),
        turn("avg weekly sales for those vs all the other stores?", "follow_up", [r2(a), r2(b)],
             note=f"AVG(Weekly_Sales) per store-week for those stores vs the other {STORES - len(low)}."),
    ]


def chat30():
    w = rows("select d, sum(ws) from t group by 1 having sum(ws) < 40000000 order by 1")
    return [
        turn("were there any weeks where the whole chain did under 40 million? how many and when", "in_schema",
             [len(w)] + [num(s) for _, s in w], [dname(d) for d, _ in w],
             note="Weeks whose SUM(Weekly_Sales) over all 45 stores is below 40,000,000: "
                  + "; ".join(f"{dd(d)} = {s}" for d, s in w) + " (both late January)."),
    ]


def chat31():
    q3 = sales("d between date '2012-07-01' and date '2012-09-30'")
    best = ranked("select d, sum(ws) from t where d between date '2012-07-01' and date '2012-09-30' group by 1", 1)[0]
    return [
        turn("putting together the Q3 2012 review for Marcus - what were Q3 2012 sales?", "in_schema", [num(q3)],
             note="SUM(Weekly_Sales), weeks dated July-September 2012 (13 weeks)."),
        turn("best week in that quarter?", "follow_up", [num(best[1])], [dname(best[0])],
             note=f"Highest SUM(Weekly_Sales) by Date within Q3 2012: {dd(best[0])}."),
        turn("who's the review for again?", "conversation", names=["Marcus"],
             note="The user said so in the first turn."),
    ]


def chat32():
    sb = [d for (d,) in rows("select distinct d from t where hf = 1 and month(d) = 2 order by 1")]
    assert len(sb) == 3
    a, b = sales(f"d = date '{sb[2]}'"), sales(f"d = date '{sb[1]}'")
    y10, y12 = avg_ws(Y10), avg_ws(Y12)
    return [
        turn("how did super bowl week do this year vs last year?", "negation_recency", [num(a), num(b), growth(a, b)],
             [dname(sb[2]), dname(sb[1])],
             note=f"{RECENCY} 'This year' = 2012. The flagged February (Super Bowl) weeks: {dd(sb[2])} = {a} vs "
                  f"{dd(sb[1])} = {b}; growth (2012 - 2011) / 2011 * 100."),
        turn("avg weekly sales per store in 2010 vs 2012?", "in_schema", [r2(y10), r2(y12)],
             note="AVG(Weekly_Sales) over the store-weeks dated in 2010 (48 weeks) and in 2012 (43 weeks); an average "
                  "per store-week, so the partial years compare fairly."),
    ]


def chat33():
    cold = ranked("select st, avg(temp) from t group by 1", 1, desc=False)[0]
    a, allavg = avg_ws(f"st = {cold[0]}"), avg_ws()
    n4 = one("select count(*) from t where fuel > 4")
    a4 = avg_ws("fuel > 4")
    n_eq = one("select count(*) from t where fuel = 4")
    return [
        turn("which store has the coldest weather on average? going by the temperature column", "extra_columns",
             [r2(cold[1])], [sname(cold[0])],
             note="AVG(Temperature) by Store over its 143 weeks (degrees Fahrenheit, a regional level, averaged)."),
        turn("how does its avg week compare to the chain average per store-week", "follow_up", [r2(a), r2(allavg)],
             note=f"AVG(Weekly_Sales) of {sname(cold[0])} vs AVG(Weekly_Sales) over all 6,435 store-weeks."),
        turn("how many store-weeks had gas above $4 and what did they average in sales?", "extra_columns",
             [n4, r2(a4)],
             note=f"Rows with Fuel_Price > 4 (strictly; {n_eq} more rows are exactly 4) and their AVG(Weekly_Sales)."),
    ]


CHATS = [chat01, chat02, chat03, chat04, chat05, chat06, chat07, chat08, chat09, chat10, chat11, chat12, chat13,
         chat14, chat15, chat16, chat17, chat18, chat19, chat20, chat21, chat22, chat23, chat24, chat25, chat26,
         chat27, chat28, chat29, chat30, chat31, chat32, chat33]


def build():
    out = []
    for i, fn in enumerate(CHATS, 1):
        out.append({"chat": f"{PREFIX}-{i:03d}", "dataset": DATASET, "turns": fn()})
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("csv", nargs="?", default=DEFAULT_CSV)
    ap.add_argument("--jsonl", help="write the bank to this path")
    ap.add_argument("--bank", default=str(Path(__file__).with_name("walmart_weekly_blind.jsonl")),
                    help="bank to check against when --jsonl is not given")
    ap.add_argument("--quiet", action="store_true", help="do not print questions and truths")
    args = ap.parse_args()
    load(args.csv)
    chats = build()
    if not args.quiet:
        for c in chats:
            print(f"== {c['chat']}")
            for t in c["turns"]:
                e = {k: v for k, v in t["expect"].items() if k != "note"}
                print(f"  [{t['category']}] {t['q']}\n      -> {json.dumps(e, ensure_ascii=False)}")
    cats = {}
    for c in chats:
        for t in c["turns"]:
            cats[t["category"]] = cats.get(t["category"], 0) + 1
    nturns = sum(len(c["turns"]) for c in chats)
    print(f"{len(chats)} chats, {nturns} turns: " + ", ".join(f"{k} {v}" for k, v in sorted(cats.items())))
    if args.jsonl:
        with open(args.jsonl, "w", encoding="utf-8") as f:
            for c in chats:
                f.write(json.dumps(c, ensure_ascii=False) + "\n")
        print(f"wrote {args.jsonl}")
        return 0
    bank = Path(args.bank)
    if not bank.exists():
        print(f"no bank at {bank}; run with --jsonl to write it")
        return 1
    have = [json.loads(line) for line in bank.read_text(encoding="utf-8").splitlines() if line.strip()]
    if len(have) != len(chats):
        print(f"MISMATCH: bank has {len(have)} chats, truths {len(chats)}")
        return 1
    for a, b in zip(have, chats):
        if a != b:
            print(f"MISMATCH in chat {b['chat']}")
            return 1
    print(f"OK: {len(chats)} chats, {nturns} turns match the truths")
    return 0


if __name__ == "__main__":
    sys.exit(main())

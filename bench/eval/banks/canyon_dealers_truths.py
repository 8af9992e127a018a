#!/usr/bin/env python3
"""Truths for the canyon_dealers blind bank (canyon_dealers_blind.jsonl).

Data: a B2B order-line file of a bike maker (Canyon models) selling to 30 independent dealer shops ("bikeshops") in
12 German federal states: one row per order line, 2,000 orders, 15,644 lines, order dates 2015-01-07 ... 2019-12-25.
Columns order_id, order_line, order_date, model, model_year, category_1/2/3, price, quantity, total_price,
frame_material, weight, url, bikeshop, City, State, lat, lng. Money is in euros (whole euros, no currency column).
Taken from the public GitHub repository TUHHStartupEngineers/ws20-business-data-science-basics---lab-journal-hikmatnaim,
path 00_data/01_bike_sales/02_wrangled_data/bike_orderlines.csv, installed byte for byte (see the README section).

Every expected number and name is computed here with duckdb SQL; nothing is typed by hand except the question texts
(and, for `conversation` turns, the text of an earlier question or a fact the user stated, taken from the chat itself).

    cd /work/main && uv run --no-sync python bench/eval/banks/canyon_dealers_truths.py [CSV]                    # print + check bank
    cd /work/main && uv run --no-sync python bench/eval/banks/canyon_dealers_truths.py [CSV] --jsonl out.jsonl  # write the bank

CSV defaults to /work/evaldata/canyon_dealers/bike_orderlines.csv. Without --jsonl the script compares the computed
chats with canyon_dealers_blind.jsonl next to it (or --bank PATH) and exits 1 on the first mismatch (also when the
CSV's sha256, header or row count is not the expected one). Needs only the standard library and duckdb.
"""
import argparse
import hashlib
import json
import sys
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import duckdb

DATASET = "canyon_dealers"
PREFIX = "cd"
DEFAULT_CSV = "/work/evaldata/canyon_dealers/bike_orderlines.csv"
SHA256 = "24597cbacbb5c66b20facc71d0fedb6cc3114695d13ce5193a437f706b8a793d"
ROWS = 15644  # data lines (order lines)
ORDERS = 2000
DEALERS = 30
HEADER = (
    b"order_id,order_line,order_date,model,model_year,category_1,category_2,category_3,price,quantity,total_price,"
    b"frame_material,weight,url,bikeshop,City,State,lat,lng\n"
)
FIRST = date(2015, 1, 7)  # first order date
LATEST = date(2019, 12, 25)  # last order date in the file; "this year", "last 3 months" are anchored here

con: duckdb.DuckDBPyConnection


# ---------------------------------------------------------------- helpers
def load(csv_path: str) -> None:
    global con
    raw = Path(csv_path).read_bytes()
    sha = hashlib.sha256(raw).hexdigest()
    if sha != SHA256:
        sys.exit(f"{csv_path}: sha256 {sha} is not the expected {SHA256}")
    if not raw.startswith(HEADER):
        sys.exit("unexpected header line")
    con = duckdb.connect()
    con.execute(
        f"create table raw as select * from read_csv('{csv_path}', header=true, all_varchar=true, delim=',', "
        f"quote='\"', escape='\"', strict_mode=true)"
    )
    # order_date is written like 2015-01-07T00:00:00Z (always midnight); the order date is its date part.
    con.execute(
        """create view t as select
             order_id::int as oid, order_line::int as ol, cast(substr(order_date, 1, 10) as date) as d,
             model, model_year::int as my, category_1 as c1, category_2 as c2, category_3 as c3,
             price::bigint as price, quantity::bigint as q, total_price::bigint as tp, frame_material as fm,
             weight::decimal(10,2) as w, url, bikeshop as shop, City as city, State as state,
             lat::double as lat, lng::double as lng
           from raw"""
    )
    if one("select count(*) from raw") != ROWS:
        sys.exit(f"expected {ROWS} rows")
    if one("select count(distinct oid) from t") != ORDERS or one("select count(distinct shop) from t") != DEALERS:
        sys.exit("orders / dealers changed")
    if one("select count(*) from raw where order_date not like '____-__-__T00:00:00Z'") != 0:
        sys.exit("an order_date that is not a midnight UTC timestamp")
    if one("select min(d) from t") != FIRST or one("select max(d) from t") != LATEST:
        sys.exit("order date range changed")
    if one("select count(*) from t where price * q <> tp") != 0:
        sys.exit("total_price is not price * quantity on some line")
    if one("select count(*) from (select oid from t group by 1 having count(distinct shop) > 1 or count(distinct d) > 1)"):
        sys.exit("an order with two dealers or two dates")
    if one("select count(*) from (select shop from t group by 1 having count(distinct city) > 1 or count(distinct state) > 1)"):
        sys.exit("a dealer in two places")


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


def pct(a, b) -> float:
    return r2(dec(a) * 100 / dec(b))


def growth(new, old) -> float:
    return r2((dec(new) - dec(old)) * 100 / dec(old))


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


def mname(ym: str) -> str:
    y, m = ym.split("-")
    return f"{date(int(y), int(m), 1).strftime('%B')} {y}"


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


REV = "sum(tp)"  # revenue = SUM(total_price), euros


# ---------------------------------------------------------------- chats
def chat01():
    rev, n, shops = rows("select sum(tp), count(distinct oid), count(distinct shop) from t")[0]
    return [
        turn("whats the total revenue in this file? (sum of total_price)", "in_schema", [r2(rev)],
             note="SUM(total_price) over all 15,644 order lines, euros, 2015-01-07 ... 2019-12-25."),
        turn("how many orders are in there, and from how many dealers?", "in_schema", [n, shops],
             note="COUNT(DISTINCT order_id) = 2000 orders (one order spans several lines); COUNT(DISTINCT bikeshop) = 30."),
        turn("so whats the AOV", "follow_up", [r2(dec(rev) / n)], note=f"Revenue / orders = {rev} / {n}."),
    ]


def chat02():
    ys = rows(f"select year(d)::varchar, {REV} from t group by 1 order by 1")
    assert [y for y, _ in ys] == ["2015", "2016", "2017", "2018", "2019"]
    v = {y: s for y, s in ys}
    downs = [(y, growth(v[y], v[str(int(y) - 1)])) for y, _ in ys[1:] if v[y] < v[str(int(y) - 1)]]
    assert len(downs) == 1
    return [
        turn("revenue by year pls", "in_schema", [r2(s) for _, s in ys], [y for y, _ in ys],
             note="SUM(total_price) by calendar year of order_date. Every year is complete (2015 starts on Jan 7, "
                  "2019 ends on Dec 25)."),
        turn("yoy growth 2019 vs 2018 in %?", "in_schema", [growth(v["2019"], v["2018"])],
             note=f"(2019 - 2018) / 2018 * 100 = ({v['2019']} - {v['2018']}) / {v['2018']}."),
        turn("was there a year where we went backwards vs the year before?", "follow_up", [downs[0][1]], [downs[0][0]],
             note=f"Only {downs[0][0]} fell: ({v['2018']} - {v['2017']}) / {v['2017']} * 100."),
        turn("remind me what you said 2017 revenue was", "conversation", [r2(v["2017"])],
             note="The 2017 figure from the first answer of this chat."),
    ]


def chat03():
    q1 = "which month had the highest revenue ever?"
    best = ranked(f"select strftime(d, '%Y-%m'), {REV} from t group by 1", 1)[0]
    worst = ranked(f"select strftime(d, '%Y-%m'), {REV} from t group by 1", 1, desc=False)[0]
    return [
        turn(q1, "in_schema", [r2(best[1])], [mname(best[0])], note=f"Calendar month {best[0]} by SUM(total_price)."),
        turn("and the weakest one?", "follow_up", [r2(worst[1])], [mname(worst[0])],
             note=f"Lowest calendar month {worst[0]} (also the lowest if the partial months January 2015 and "
                  "December 2019 are left out)."),
        turn("what was the first thing i asked you in this chat", "conversation", names=[q1],
             note="The first question of this chat, word for word."),
    ]


def chat04():
    top = ranked(f"select shop, {REV} from t group by 1", 5)
    bottom = ranked(f"select shop, {REV} from t group by 1", 3, desc=False)
    tot = one("select sum(tp) from t")
    return [
        turn("top 5 dealers by revenue, all time", "in_schema", [r2(v) for _, v in top], [s for s, _ in top],
             first=top[0][0], note="SUM(total_price) by bikeshop over the whole file."),
        turn("bottom 3?", "follow_up", [r2(v) for _, v in bottom], [s for s, _ in bottom], first=bottom[0][0],
             note="Lowest SUM(total_price) by bikeshop, lowest first."),
        turn(f"what % of total revenue is {top[0][0]} on its own?", "in_schema", [pct(top[0][1], tot)],
             note=f"{top[0][1]} / {tot} * 100."),
        turn("who was #2 on that top 5 again?", "conversation", names=[top[1][0]],
             note="Second dealer of the top-5 answer in this chat."),
    ]


def chat05():
    u19 = one("select sum(q) from t where year(d) = 2019 and quarter(d) = 2")
    u18 = one("select sum(q) from t where year(d) = 2018 and quarter(d) = 2")
    return [
        turn("how many bikes did we ship in Q2 2019? units", "in_schema", [u19],
             note="SUM(quantity), order dates 2019-04-01 ... 2019-06-30."),
        turn("same qtr the year before?", "follow_up", [u18], note="Q2 2018: SUM(quantity), 2018-04-01 ... 2018-06-30."),
        turn("so % change?", "follow_up", [growth(u19, u18)], note=f"({u19} - {u18}) / {u18} * 100."),
    ]


def chat06():
    day = date(2019, 4, 16)
    rev = one(f"select sum(tp) from t where d = date '{day}'")
    n = one(f"select count(distinct oid) from t where d = date '{day}'")
    shops = [s for (s,) in rows(f"select distinct shop from t where d = date '{day}' order by 1")]
    return [
        turn("how much did we invoice on 16 april 2019?", "in_schema", [r2(rev)], [dname(day)],
             note=f"SUM(total_price) of the lines with order_date {day.isoformat()}."),
        turn("how many orders was that, and which dealers?", "follow_up", [n], shops,
             note=f"{n} orders that day, one from each of these dealers."),
    ]


def chat07():
    cats = ranked(f"select c1, {REV} from t group by 1", 5)
    e19, t19 = rows("select sum(tp) filter (where c1 = 'E-Bikes'), sum(tp) from t where year(d) = 2019")[0]
    e15, t15 = rows("select sum(tp) filter (where c1 = 'E-Bikes'), sum(tp) from t where year(d) = 2015")[0]
    return [
        turn("revenue split by bike category (road, mountain, e-bikes etc)", "extra_columns", [r2(v) for _, v in cats],
             [c for c, _ in cats], first=cats[0][0], note="SUM(total_price) by category_1 (5 values)."),
        turn("what % of 2019 revenue was e-bikes?", "extra_columns", [pct(e19, t19)],
             note=f"category_1 = 'E-Bikes' in 2019: {e19} / {t19} * 100."),
        turn("and back in 2015?", "follow_up", [pct(e15, t15)], note=f"2015: {e15} / {t15} * 100."),
        turn("sorry what was the 2019 e-bike share you gave me", "conversation", [pct(e19, t19)],
             note="The figure from the second answer of this chat."),
    ]


def chat08():
    fr = rows("select fm, sum(tp), sum(q) from t group by 1 order by 2 desc")
    assert [f for f, _, _ in fr] == ["carbon", "aluminium"]
    return [
        turn("carbon vs aluminium frames - revenue for each?", "extra_columns", [r2(s) for _, s, _ in fr],
             [f for f, _, _ in fr], note="SUM(total_price) by frame_material."),
        turn("whats the avg price per bike for each (rev / units)", "follow_up", [r2(dec(s) / u) for _, s, u in fr],
             note="SUM(total_price) / SUM(quantity) by frame_material: "
                  + ", ".join(f"{f} {s} / {u}" for f, s, u in fr) + "."),
    ]


def chat09():
    st = ranked(f"select state, {REV} from t group by 1", 1)[0]
    nst = one(f"select count(distinct shop) from t where state = '{st[0]}'")
    by = ranked(f"select shop, {REV} from t where state = 'Bavaria' group by 1", 1)[0]
    bav = rows("select distinct city from t where state = 'Bavaria' order by 1")
    return [
        turn("which Bundesland brings in the most revenue?", "extra_columns", [r2(st[1])], [st[0]],
             note="SUM(total_price) by State (the file spells the states in English)."),
        turn("how many dealers do we have there", "follow_up", [nst],
             note=f"COUNT(DISTINCT bikeshop) with State = '{st[0]}' (one dealer per city)."),
        turn("who's the top dealer in bavaria?", "extra_columns", [r2(by[1])], [by[0]],
             note=f"SUM(total_price) by bikeshop where State = 'Bavaria' ({len(bav)} dealers, in "
                  + ", ".join(c for (c,) in bav) + ")."),
    ]


def chat10():
    c2 = ranked("select c2, sum(q) from t group by 1", 1)[0]
    c3 = ranked(f"select c3, {REV} from t group by 1", 3)
    return [
        turn("which sub-category moved the most units? (category_2)", "extra_columns", [c2[1]], [c2[0]],
             note="SUM(quantity) by category_2."),
        turn("top 3 model families by revenue - category_3", "extra_columns", [r2(v) for _, v in c3],
             [c for c, _ in c3], first=c3[0][0],
             note="SUM(total_price) by category_3. 'Endurace' is Canyon's model name, not a typo; the e-bike "
                  "families carry ':ON' (e.g. 'Spectral:ON') and count separately."),
    ]


def chat11():
    mx = one("select max(price) from t")
    models = [m for (m,) in rows(f"select distinct model from t where price = {mx} order by 1")]
    assert len(models) == 2
    units = one(f"select sum(q) from t where price = {mx}")
    return [
        turn("whats the priciest bike we've sold, by unit price?", "extra_columns", [r2(mx)], models,
             note=f"MAX(price) = {mx}; two models share it (a tie, both must be named)."),
        turn("how many units of those did we sell altogether", "follow_up", [units],
             note=f"SUM(quantity) of the lines with price = {mx}."),
    ]


def chat12():
    e, o = rows("select sum(w * q) filter (where c1 = 'E-Bikes') / sum(q) filter (where c1 = 'E-Bikes'), "
                "sum(w * q) filter (where c1 <> 'E-Bikes') / sum(q) filter (where c1 <> 'E-Bikes') from t")[0]
    return [
        turn("avg weight (kg) of the bikes we sold, e-bikes vs everything else? weight it by units",
             "extra_columns", [r2(e), r2(o)], ["E-Bikes"],
             note="SUM(weight * quantity) / SUM(quantity); weight is kg per bike. E-Bikes = category_1 'E-Bikes'."),
    ]


def chat13():
    v = dict(rows(f"select my, {REV} from t group by 1"))
    assert sorted(v) == [2019, 2020, 2021]
    return [
        turn("how much revenue came from MY2021 bikes (model year)?", "extra_columns", [r2(v[2021])],
             note="SUM(total_price) where model_year = 2021 (model year, not order year; orders end in 2019)."),
        turn("and MY2019?", "follow_up", [r2(v[2019])], note="model_year = 2019."),
    ]


def chat14():
    s, s_on = rows("select sum(q) filter (where c3 = 'Spectral'), sum(q) filter (where c3 = 'Spectral:ON') from t")[0]
    return [
        turn("how many Spectrals did we sell in total?", "extra_columns", names=["Spectral", "Spectral:ON"],
             clarify=True,
             note=f"Ambiguous: category_3 has 'Spectral' ({s} units) and the e-bike 'Spectral:ON' ({s_on} units). "
                  "A good answer asks which is meant (or clearly gives both)."),
        turn("the normal one, not the e-bike", "follow_up", [s], ["Spectral"],
             note="SUM(quantity) where category_3 = 'Spectral'."),
    ]


def chat15():
    ex = one("select sum(tp) from t where c1 <> 'E-Bikes'")
    ex2 = one("select sum(tp) from t where c1 <> 'E-Bikes' and city <> 'Bremen'")
    return [
        turn("revnue excluding e-bikes, all years", "negation_recency", [r2(ex)],
             note="SUM(total_price) where category_1 <> 'E-Bikes'."),
        turn("now also leave out Bremen", "negation_recency", [r2(ex2)],
             note="Also City <> 'Bremen' (Bremen has one dealer, WITT-RAD)."),
    ]


def chat16():
    a = one("select sum(tp) from t where d >= date '2019-10-01'")
    b = one("select sum(tp) from t where d >= date '2018-10-01' and d < date '2019-01-01'")
    return [
        turn("how did the last 3 months go, revenue?", "negation_recency", [r2(a)],
             note="Latest order date is 2019-12-25, so the last 3 calendar months are October-December 2019 "
                  "(2019-10-01 ... 2019-12-25)."),
        turn("vs the same 3 months a yr earlier?", "negation_recency", [r2(b), growth(a, b)],
             note=f"October-December 2018 = {b}; change ({a} - {b}) / {b} * 100."),
    ]


def chat17():
    rev = one("select sum(tp) from t where year(d) = 2019")
    shops = one("select count(distinct shop) from t where year(d) = 2019")
    return [
        turn("revenue this year so far?", "negation_recency", [r2(rev)],
             note="'This year' = 2019, the year of the latest order date (2019-12-25), not today's date."),
        turn("how many of our dealers have ordered this year", "negation_recency", [shops],
             note="COUNT(DISTINCT bikeshop) with orders in 2019 (all 30)."),
    ]


def chat18():
    never = [s for (s,) in rows("select shop from (select distinct shop from t) "
                                "except select distinct shop from t where c2 = 'Fat Bikes' order by 1")]
    quiet = [s for (s,) in rows("select shop from t group by 1 having max(d) < date '2019-10-01' order by 1")]
    return [
        turn("which dealers have never ordered a fat bike?", "negation_recency", names=never,
             note="Dealers with no line where category_2 = 'Fat Bikes'."),
        turn("and which ones havent placed any order in the last 3 months?", "negation_recency", names=quiet,
             note="Last order date before 2019-10-01 (last 3 calendar months = Oct-Dec 2019, anchored on the latest "
                  "order date 2019-12-25): " + ", ".join(
                      f"{s} {one(f'select max(d) from t where shop = {sql_str(s)}')}" for s in quiet) + "."),
    ]


def sql_str(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def chat19():
    top = ranked(f"select city, {REV} from t where city not in ('Bremen', 'Dortmund') group by 1", 3)
    return [
        turn("top 3 cities by revenue other than Bremen and Dortmund", "negation_recency", [r2(v) for _, v in top],
             [c for c, _ in top], first=top[0][0], note="SUM(total_price) by City, Bremen and Dortmund left out."),
    ]


def chat20():
    rev, u = rows("select sum(tp), sum(q) from t where c3 = 'Ultimate'")[0]
    return [
        turn("what's our gross margin on the Ultimate range?", "unanswerable", decline=True,
             note="The file has selling prices only: no cost, COGS or margin column."),
        turn("ok then just revenue and units for Ultimate", "extra_columns", [r2(rev), u],
             note="category_3 = 'Ultimate': SUM(total_price), SUM(quantity)."),
    ]


def chat21():
    qmin, qmax = rows("select min(q), max(q) from t")[0]
    return [
        turn("how many bikes did dealers send back to us in 2019?", "unanswerable", decline=True,
             note=f"No returns, credit notes or negative lines in the file (every quantity is {qmin}-{qmax})."),
        turn("which sales rep looks after WITT-RAD?", "unanswerable", decline=True,
             note="No sales rep / account manager column."),
    ]


def chat22():
    return [
        turn("theres a url column - how many visits did the Ultimate CF SLX pages get?", "unanswerable", decline=True,
             note="url is the product page address only; no traffic data."),
        turn("whats the avg age of the riders buying our e-bikes", "unanswerable", decline=True,
             note="Sales are to dealer shops; no end-customer data at all."),
    ]


def chat23():
    return [
        turn("give me the exact revenue we'll do in Q1 2020", "unanswerable", decline=True,
             note="Orders end on 2019-12-25; an exact future figure cannot come from this file."),
    ]


def chat24():
    rev, n = rows("select sum(tp), count(distinct oid) from t where shop = 'Lucky Bike' and year(d) = 2019")[0]
    return [
        turn("prepping for my meeting with Lucky Bike in Dortmund tmrw. how much did they buy from us in 2019?",
             "in_schema", [r2(rev)], note="SUM(total_price) where bikeshop = 'Lucky Bike' and order year 2019."),
        turn("how many orders was that", "follow_up", [n], note="COUNT(DISTINCT order_id), Lucky Bike, 2019."),
        turn("remind me, which dealer did i say im meeting?", "conversation", names=["Lucky Bike"],
             note="The user said so in the first turn."),
    ]


def chat25():
    u, lines, n = rows("select sum(q), count(*), count(distinct oid) from t")[0]
    a1 = r2(dec(u) / n)
    return [
        turn("avg number of bikes per order?", "in_schema", [a1], note=f"SUM(quantity) / orders = {u} / {n}."),
        turn("how many order lines does an order have on average?", "in_schema", [r2(dec(lines) / n)],
             note=f"Lines / orders = {lines} / {n} (order_line runs 1 ... 30)."),
        turn("what was your first answer in this chat?", "conversation", [a1],
             note="The average bikes per order from the first answer."),
    ]


def chat26():
    shop, d, rev, u = rows("select any_value(shop), any_value(d), sum(tp), sum(q) from t where oid = 1000")[0]
    return [
        turn("pull up order 1000 - who placed it, when, how much?", "in_schema", [r2(rev)], [shop, dname(d)],
             note=f"order_id = 1000: {shop}, {d.isoformat()}, SUM(total_price) = {rev}."),
        turn("how many bikes were on it", "follow_up", [u], note="SUM(quantity) of order 1000."),
    ]


def chat27():
    big = ranked(f"select oid, {REV} from t group by 1", 1)[0]
    shop, d = rows(f"select any_value(shop), any_value(d) from t where oid = {big[0]}")[0]
    return [
        turn("biggest single order ever by value? which dealer and when", "in_schema", [r2(big[1])],
             [shop, dname(d)], note=f"Largest SUM(total_price) per order_id: order {big[0]}, {d.isoformat()}."),
        turn("sorry which dealer did you say that was?", "conversation", names=[shop],
             note="The dealer from the previous answer."),
    ]


def chat28():
    nm = one("select count(distinct model) from t")
    mu = ranked("select model, sum(q) from t group by 1", 1)[0]
    mr = ranked(f"select model, {REV} from t group by 1", 1)[0]
    return [
        turn("how many diff models have we sold?", "extra_columns", [nm],
             note="COUNT(DISTINCT model). A few models were sold in two model years (and then have two urls and "
                  "sometimes two prices); they count once."),
        turn("which model moved the most units", "extra_columns", [mu[1]], [mu[0]],
             note="SUM(quantity) by model (name)."),
        turn("and which one brought in the most revenue?", "follow_up", [r2(mr[1])], [mr[0]],
             note="SUM(total_price) by model (name)."),
    ]


def chat29():
    st = rows(f"select state, {REV} from t group by 1 order by 2 desc")
    assert len(st) == 12 and all(st[i][1] != st[i + 1][1] for i in range(11))
    hh = [i for i, (s, _) in enumerate(st, 1) if s == "Hamburg"][0]
    return [
        turn("my boss reckons Hamburg is our #2 state. can you rank the states by revenue?", "extra_columns",
             [r2(v) for _, v in st[:3]], [s for s, _ in st[:3]], first=st[0][0],
             note=f"SUM(total_price) by State, all 12 ranked; the top 3 are checked. Hamburg is #{hh} "
                  f"({st[hh - 1][1]}), so the boss is wrong: #2 is {st[1][0]}."),
        turn("what did i say my boss thinks?", "conversation", names=["Hamburg"],
             note="The user said the boss reckons Hamburg is the #2 state."),
    ]


def chat30():
    wd = ranked("select dayname(d), count(distinct oid) from t group by 1", 1)[0]
    days = [x for (x,) in rows("select dayname(d) from t group by 1 order by min(isodow(d))")]
    often = ranked("select shop, count(distinct oid) from t group by 1", 1)[0]
    return [
        turn("which weekday do most orders come in on?", "in_schema", [wd[1]], [wd[0]],
             note="COUNT(DISTINCT order_id) by weekday of order_date. Orders only fall on "
                  + ", ".join(days) + " (no other weekday appears)."),
        turn("which dealer orders most often? number of orders, not €", "in_schema", [often[1]], [often[0]],
             note="COUNT(DISTINCT order_id) by bikeshop."),
    ]


CHATS = [chat01, chat02, chat03, chat04, chat05, chat06, chat07, chat08, chat09, chat10, chat11, chat12, chat13,
         chat14, chat15, chat16, chat17, chat18, chat19, chat20, chat21, chat22, chat23, chat24, chat25, chat26,
         chat27, chat28, chat29, chat30]


def build():
    out = []
    for i, fn in enumerate(CHATS, 1):
        out.append({"chat": f"{PREFIX}-{i:03d}", "dataset": DATASET, "turns": fn()})
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("csv", nargs="?", default=DEFAULT_CSV)
    ap.add_argument("--jsonl", help="write the bank to this path")
    ap.add_argument("--bank", default=str(Path(__file__).with_name("canyon_dealers_blind.jsonl")),
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

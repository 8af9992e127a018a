#!/usr/bin/env python3
"""Truths for the jit_orders blind bank (jit_orders_blind.jsonl).

Data: the "Just In Time" supply-chain case-study file orders_and_shipments.csv (one row per order line of an
online sporting-goods seller, 2015-2017), extracted byte for byte from data.zip of the public GitHub repository
hoshigan/Supply-Chain-Analytic---Just-In-Time-Company (see jit_orders_extract.py and the README section).

Every expected number and name is computed here with duckdb SQL; nothing is typed by hand except the question texts
(and, for `conversation` turns, the text of an earlier question, which is taken from the chat itself).

    cd /work/main && uv run --no-sync python bench/eval/banks/jit_orders_truths.py [CSV]                     # print + check bank
    cd /work/main && uv run --no-sync python bench/eval/banks/jit_orders_truths.py [CSV] --jsonl out.jsonl   # write the bank

CSV defaults to /work/evaldata/jit_orders/orders_and_shipments.csv. Without --jsonl the script compares the
computed chats with jit_orders_blind.jsonl next to it (or --bank PATH) and exits 1 on the first mismatch.
Needs only the standard library and duckdb.
"""
import argparse
import hashlib
import json
import sys
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import duckdb

DATASET = "jit_orders"
PREFIX = "jit"
DEFAULT_CSV = "/work/evaldata/jit_orders/orders_and_shipments.csv"
SHA256 = "5d56c059ea3dde1fad01b50608fb3135c66e23b50d931a481d76696c9fd3b8a7"
ROWS = 30871
HEADER = (
    b"Order ID , Order Item ID , Order YearMonth , Order Year , Order Month , Order Day ,Order Time,"
    b"Order Quantity,Product Department,Product Category,Product Name, Customer ID ,Customer Market,"
    b"Customer Region,Customer Country,Warehouse Country,Shipment Year,Shipment Month,Shipment Day,"
    b"Shipment Mode, Shipment Days - Scheduled , Gross Sales , Discount % , Profit \n"
)
COLS = [
    "order_id", "item_id", "yearmonth", "o_year", "o_month", "o_day", "o_time", "qty_s", "dept", "cat", "prod",
    "cust", "market", "region", "country", "wh", "s_year", "s_month", "s_day", "mode", "sched_s", "gross_s",
    "disc_s", "profit_s",
]
LATEST = date(2017, 12, 31)  # last order date in the file; every "recent" window is anchored here

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
    names = ", ".join(f"'{c}'" for c in COLS)
    con.execute(
        f"create table raw as select * from read_csv('{csv_path}', header=true, all_varchar=true, delim=',', "
        f"quote='\"', names=[{names}])"
    )
    # Typed view. Money is read as exact DECIMAL. The Discount % cell "  -  " (an Excel accounting-format zero)
    # is read as 0; the questions only use discount sums, where 0 and "missing" give the same result.
    con.execute(
        """create view t as select
             order_id, item_id,
             make_date(o_year::int, o_month::int, o_day::int) as od, o_time,
             qty_s::int as qty, dept, cat, prod, cust, market, region, country, wh,
             make_date(s_year::int, s_month::int, s_day::int) as sd, mode, sched_s::int as sched,
             gross_s::decimal(18,2) as gross,
             case when trim(disc_s) = '-' then 0::decimal(18,4) else disc_s::decimal(18,4) end as disc,
             disc_s, profit_s::decimal(18,2) as profit
           from raw"""
    )
    n = one("select count(*) from t")
    if n != ROWS:
        sys.exit(f"expected {ROWS} rows, read {n}")
    if one("select count(distinct item_id) from t") != ROWS:
        sys.exit("Order Item ID is not unique")
    if one("select max(od) from t") != LATEST:
        sys.exit("latest order date changed")
    if one("select count(*) from raw where yearmonth <> o_year || lpad(o_month, 2, '0')") != 0:
        sys.exit("Order YearMonth disagrees with Order Year/Month")


def rows(sql: str):
    return con.execute(sql).fetchall()


def one(sql: str):
    return con.execute(sql).fetchone()[0]


def dec(x) -> Decimal:
    return x if isinstance(x, Decimal) else Decimal(str(x))


def r2(x) -> float:
    """Round half-up to 2 decimals; refuse a value sitting exactly on a half cent."""
    d = dec(x)
    if (d * 1000) % 10 == 5 and (d * 1000) == (d * 1000).to_integral_value():
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


# ---------------------------------------------------------------- chats
def chat01():
    g = one("select sum(gross) from t")
    p = one("select sum(profit) from t")
    return [
        turn("hey, what's the total gross sales in this file?", "in_schema", [r2(g)],
             note=f"SUM(\"Gross Sales\") over all {ROWS} order lines."),
        turn("and the total profit?", "follow_up", [r2(p)], note="SUM(Profit) over all order lines."),
    ]


def chat02():
    ys = rows("select year(od)::varchar, sum(gross) from t group by 1 order by 1")
    assert [y for y, _ in ys] == ["2015", "2016", "2017"]
    v = {y: g for y, g in ys}
    return [
        turn("gross sales by year pls", "in_schema", [r2(g) for _, g in ys], [y for y, _ in ys],
             note="SUM(Gross Sales) by calendar year of the order date (Order Year/Month/Day)."),
        turn("whats the % growth 2016 vs 2015?", "in_schema", [growth(v["2016"], v["2015"])],
             note=f"(2016 - 2015) / 2015 * 100 = ({v['2016']} - {v['2015']}) / {v['2015']}."),
        turn("and 17 vs 16?", "follow_up", [growth(v["2017"], v["2016"])],
             note=f"(2017 - 2016) / 2016 * 100 = ({v['2017']} - {v['2016']}) / {v['2016']}; a decline."),
    ]


def chat03():
    q1 = "which month had the highest gross sales?"
    best = ranked("select strftime(od, '%Y-%m'), sum(gross) from t group by 1", 1)[0]
    worst = ranked("select strftime(od, '%Y-%m'), sum(gross) from t group by 1", 1, desc=False)[0]
    day = ranked("select od, sum(gross) from t group by 1", 1)[0]
    day_lines = one(f"select count(*) from t where od = date '{day[0]}'")
    return [
        turn(q1, "in_schema", [r2(best[1])], [mname(best[0])], note=f"Calendar month {best[0]} by SUM(Gross Sales); 36 months 2015-01..2017-12."),
        turn("and the weakest?", "follow_up", [r2(worst[1])], [mname(worst[0])],
             note=f"Lowest calendar month {worst[0]}. It is a full calendar month (orders run to 2017-12-31) but "
                  "sales fall off from October 2017."),
        turn("whats the single best day for gross sales?", "in_schema", [r2(day[1])], [dname(day[0])],
             note=f"Order date {day[0]} ({day_lines} order lines that day), by SUM(Gross Sales)."),
        turn("sorry what was my first question in this chat?", "conversation", names=[q1],
             note="The first question of this chat, word for word."),
    ]


def chat04():
    orders = one("select count(distinct order_id) from t")
    lines = one("select count(*) from t")
    g = one("select sum(gross) from t")
    return [
        turn("how many orders are in the file, and how many order lines?", "in_schema", [orders, lines],
             note="Orders = COUNT(DISTINCT \"Order ID\"); order lines = rows (each \"Order Item ID\" once)."),
        turn("so avg gross per order?", "follow_up", [r2(dec(g) / orders)],
             note=f"SUM(Gross Sales) / distinct orders = {g} / {orders}."),
    ]


def chat05():
    top = ranked("select prod, sum(gross) from t group by 1", 5)
    p1 = one(f"select sum(profit) from t where prod = '{top[0][0]}'")
    return [
        turn("top 5 products by gross sales", "in_schema", [r2(v) for _, v in top], [n for n, _ in top],
             first=top[0][0], note="Product Name ranked by SUM(Gross Sales); names as the file writes them "
                                   "(some are cut at 45 characters, e.g. 'Diamondback Women's Serene Classic Comfort Bi')."),
        turn("what was #2 on that list?", "conversation", [r2(top[1][1])], [top[1][0]],
             note="The second product of the earlier top-5 answer."),
        turn("how much profit did the top one make?", "follow_up", [r2(p1)], [top[0][0]],
             note="SUM(Profit) of the #1 product."),
    ]


def chat06():
    c = "9897"
    n, g = rows(f"select count(*), sum(gross) from t where cust = '{c}'")[0]
    top_cust = ranked("select cust, sum(gross) from t group by 1", 1)[0]
    assert top_cust[0] == c  # the customer with the most gross sales
    k = one(f"select count(distinct country) from t where cust = '{c}'")
    cty = ranked(f"select country, count(*) from t where cust = '{c}' group by 1", 1)[0]
    return [
        turn("look up customer 9897 - how many order lines and how much gross?", "in_schema", [n, r2(g)],
             note=f"Rows and SUM(Gross Sales) where \"Customer ID\" = {c} (the customer with the most gross sales)."),
        turn("how many different customer countries show up on their lines, and which one has the most lines?",
             "extra_columns", sorted({k, cty[1]}), [cty[0]],
             note=f"COUNT(DISTINCT \"Customer Country\") for customer {c}; the country is the order's destination "
                  f"and varies by line. {cty[0]} has {cty[1]} of the {n} lines."),
    ]


def chat07():
    top = ranked("select dept, sum(gross) from t group by 1", 3)
    total = one("select sum(gross) from t")
    fan = one("select sum(gross) from t where dept = 'Fan Shop'")
    low = ranked("select dept, sum(gross) from t group by 1", 1, desc=False)[0]
    return [
        turn("gross sales by product department – top 3?", "extra_columns", [r2(v) for _, v in top],
             [n for n, _ in top], first=top[0][0], note="Product Department ranked by SUM(Gross Sales) (11 departments)."),
        turn("what share of total gross is fan shop?", "extra_columns", [pct(fan, total)],
             note=f"Fan Shop {fan} / total {total} * 100."),
        turn("and which dept is the smallest?", "follow_up", [r2(low[1])], [low[0]],
             note="Department with the lowest SUM(Gross Sales)."),
    ]


def chat08():
    top = ranked("select market, sum(profit) from t group by 1", 1)[0]
    g = one(f"select sum(gross) from t where market = '{top[0]}'")
    rest = one("select sum(gross) from t where market not in ('LATAM', 'Europe')")
    return [
        turn("which customer market makes us the most profti?", "extra_columns", [r2(top[1])], [top[0]],
             note="Customer Market ranked by SUM(Profit) (5 markets)."),
        turn("whats the margin there (profit / gross sales)?", "follow_up", [pct(top[1], g)],
             note=f"{top[0]}: SUM(Profit) {top[1]} / SUM(Gross Sales) {g} * 100."),
        turn("total gross sales if we leave out LATAM and Europe?", "negation_recency", [r2(rest)],
             note="SUM(Gross Sales) where Customer Market NOT IN ('LATAM','Europe') = Pacific Asia + North America + Africa."),
    ]


def chat09():
    modes = ranked("select mode, count(*) from t group by 1", 4)
    late = one("select count(*) from t where datediff('day', od, sd) > sched")
    lines = one("select count(*) from t")
    return [
        turn("how many order lines per shipment mode?", "extra_columns", [v for _, v in modes], [m for m, _ in modes],
             first=modes[0][0], note="COUNT(*) by Shipment Mode."),
        turn("how many lines shipped later than scheduled? (days from order date to shipment date > Shipment Days - Scheduled)",
             "extra_columns", [late],
             note="Rows where (shipment date - order date) in days > \"Shipment Days - Scheduled\"; both dates are "
                  "built from their Year/Month/Day columns. Lines shipped before the order date count as not late."),
        turn("what % of all lines is that?", "follow_up", [pct(late, lines)], note=f"{late} / {lines} * 100."),
    ]


def chat10():
    neg = one("select count(*) from t where sd < od")
    avg, n = rows("select avg(datediff('day', od, sd)::decimal(18,6)), count(*) from t where sd >= od")[0]
    tot = one("select sum(datediff('day', od, sd)) from t where sd >= od")
    return [
        turn("quick sanity check – how many lines have a shipment date before the order date??", "extra_columns", [neg],
             note="Rows whose shipment date (Shipment Year/Month/Day) is earlier than the order date (Order Year/Month/Day); "
                  "a data error in the file (up to 975 days early)."),
        turn("leaving those rows out, whats the avg number of days from order to shipment?", "negation_recency",
             [r2(dec(tot) / n)],
             note=f"AVG(shipment date - order date) in days over the {n} rows with shipment date >= order date "
                  f"({tot} / {n}); long positive gaps (up to 978 days) stay in."),
    ]


def chat11():
    d = one("select sum(gross * disc) from t")
    net = one("select sum(gross * (1 - disc)) from t")
    nod = one("select count(*) from t where trim(disc_s) = '-'")
    assert one("select count(*) from t where disc = 0") == nod
    return [
        turn("how much did discounts cost us in total? (gross sales × discount %)", "extra_columns", [r2(d)],
             note="SUM(\"Gross Sales\" * \"Discount %\"); the '  -  ' cells count as 0."),
        turn("so what's net sales after discount?", "follow_up", [r2(net)],
             note="SUM(Gross Sales * (1 - Discount %)) = gross sales - discounts."),
        turn("how many order lines had no discount at all?", "extra_columns", [nod],
             note="Rows whose Discount % cell is '  -  ' (Excel accounting-format zero); every other value is 0.01 or more."),
    ]


def chat12():
    split = ranked("select wh, sum(gross) from t group by 1", 2)
    pr = one("select sum(gross) from t where wh = 'Puerto Rico'")
    sd = one("select count(*) from t where wh = 'Puerto Rico' and mode = 'Same Day'")
    return [
        turn("split gross sales by warehouse country pls", "extra_columns", [r2(v) for _, v in split],
             [w for w, _ in split], note="SUM(Gross Sales) by Warehouse Country (USA, Puerto Rico)."),
        turn("how many Same Day lines went out of puerto rico?", "follow_up", [sd],
             note="Rows with Warehouse Country = 'Puerto Rico' and Shipment Mode = 'Same Day'."),
        turn("what was the puerto rico gross number you gave me again?", "conversation", [r2(pr)], ["Puerto Rico"],
             note="The Puerto Rico figure from the first answer of this chat."),
    ]


def chat13():
    cands = [r[0] for r in rows("select distinct country from t where country ilike '%congo%' order by 1")]
    assert cands == ["Democratic Republic of Congo", "Republic of Congo"]
    drc = rows("select count(*), sum(gross) from t where country = 'Democratic Republic of Congo'")[0]
    roc = rows("select count(*), sum(gross) from t where country = 'Republic of Congo'")[0]
    return [
        turn("how many order lines went to congo?", "extra_columns", names=cands, clarify=True,
             note="Customer Country has two Congos; a good answer asks which one (or gives both separately)."),
        turn("the democratic republic one", "follow_up", [drc[0]], ["Democratic Republic of Congo"],
             note=f"Rows with Customer Country = 'Democratic Republic of Congo' (gross {drc[1]})."),
        turn("and the other one? gross too pls", "follow_up", [roc[0], r2(roc[1])], ["Republic of Congo"],
             note="Rows and SUM(Gross Sales) for Customer Country = 'Republic of Congo'."),
    ]


def chat14():
    cands = [r[0] for r in rows("select distinct prod from t where prod ilike '%kayak%' order by 1")]
    assert cands == ["Pelican Maverick 100X Kayak", "Pelican Sunstream 100 Kayak"]
    prices = rows("select distinct gross / qty from t where prod = 'Pelican Sunstream 100 Kayak'")
    assert len(prices) == 1
    units = one("select sum(qty) from t where prod = 'Pelican Sunstream 100 Kayak'")
    return [
        turn("whats our unit price on the kayak?", "in_schema", names=cands, clarify=True,
             note="Two kayaks (Sunstream at 200, Maverick at 350 per unit); a good answer asks which one (or gives both)."),
        turn("the sunstream. and how many of those did we sell in total?", "follow_up", [r2(prices[0][0]), units],
             ["Pelican Sunstream 100 Kayak"],
             note="Unit price = Gross Sales / Order Quantity (the same on every line); units = SUM(Order Quantity)."),
    ]


def chat15():
    w1 = one("select sum(gross) from t where od between date '2017-12-02' and date '2017-12-31'")
    w0 = one("select sum(gross) from t where od between date '2017-11-02' and date '2017-12-01'")
    top = ranked("select prod, sum(gross) from t where od between date '2017-12-01' and date '2017-12-31' group by 1", 1)[0]
    return [
        turn("gross sales in the last 30 days of data?", "negation_recency", [r2(w1)],
             note="Order dates 2017-12-02 .. 2017-12-31 (30 days ending on the latest order date, 2017-12-31)."),
        turn("and the 30 days before that?", "follow_up", [r2(w0)], note="Order dates 2017-11-02 .. 2017-12-01."),
        turn("which product had teh most gross in the latest month?", "negation_recency", [r2(top[1])], [top[0]],
             note="December 2017 (the month of the latest order date), Product Name by SUM(Gross Sales)."),
    ]


def chat16():
    top = ranked("select country, sum(gross) from t group by 1", 3)
    ex = one("select sum(gross) from t where country <> 'USA'")
    margins = [(c, pct(one(f"select sum(profit) from t where country = '{c}'"), g)) for c, g in top]
    best = max(margins, key=lambda x: x[1])
    assert sorted(m for _, m in margins)[-1] != sorted(m for _, m in margins)[-2]
    return [
        turn("top 3 customer countries by gross sales?", "extra_columns", [r2(v) for _, v in top], [c for c, _ in top],
             first=top[0][0], note="Customer Country ranked by SUM(Gross Sales)."),
        turn("whats total gross excluding the USA?", "negation_recency", [r2(ex)],
             note="SUM(Gross Sales) where Customer Country <> 'USA'."),
        turn("of those top 3 countries, which has the best profit margin?", "follow_up", [best[1]], [best[0]],
             note="SUM(Profit)/SUM(Gross Sales)*100 per country: "
                  + ", ".join(f"{c} {m}" for c, m in margins) + "."),
    ]


def chat17():
    a = one("""select count(*) from (select cust from t group by cust
               having count(*) filter (where dept = 'Fan Shop') > 0 and count(*) filter (where dept = 'Apparel') = 0)""")
    b = one("select count(*) from (select cust from t group by cust having count(*) filter (where dept = 'Fan Shop') = 0)")
    return [
        turn("how many customers bought from Fan Shop but never anything from Apparel?", "negation_recency", [a],
             note="Customer IDs with at least one Fan Shop line and no Apparel line (Product Department)."),
        turn("and how many never bought anything from fan shop at all?", "negation_recency", [b],
             note="Customer IDs with no Fan Shop line, out of 7,987."),
    ]


def chat18():
    gone = one("select count(*) from (select cust from t group by cust having max(od) <= date '2017-06-30')")
    q4 = one("select count(distinct cust) from t where od between date '2017-10-01' and date '2017-12-31'")
    assert gone != q4
    return [
        turn("how many customers haven't ordered anything since the end of june 2017?", "negation_recency", [gone],
             note="Customer IDs whose latest order date is on or before 2017-06-30."),
        turn("and how many customers ordered in the last quarter of the data?", "negation_recency", [q4],
             note="Distinct Customer IDs with an order date in Q4 2017 (2017-10-01 .. 2017-12-31), the quarter of the latest date."),
        turn("which of those two numbers was bigger?", "conversation", [max(gone, q4)],
             note=f"{gone} (no order since June 2017) vs {q4} (ordered in Q4 2017), both from the earlier answers; "
                  f"the {'first' if gone > q4 else 'second'} is bigger."),
    ]


def chat19():
    g, p = rows("select sum(gross), sum(profit) from t where market = 'Europe' and year(od) = 2017")[0]
    return [
        turn("hi, Priya here from the EMEA desk. what was gross sales for the Europe market in 2017?", "extra_columns",
             [r2(g)], note="SUM(Gross Sales) where Customer Market = 'Europe' and the order date is in 2017."),
        turn("and profit for the same?", "follow_up", [r2(p)], note="SUM(Profit), Europe market, 2017."),
        turn("remind me which desk i said im on?", "conversation", names=["EMEA"],
             note="The user said: 'Priya here from the EMEA desk'."),
    ]


def chat20():
    one_line = one("select count(*) from (select order_id from t group by order_id having count(*) = 1)")
    return [
        turn("what did we spend on freight in 2017?", "unanswerable", decline=True,
             note="The file has shipment mode and dates but no freight / shipping cost column."),
        turn("ok which sales rep closed the most orders then?", "unanswerable", decline=True,
             note="No sales rep / employee column."),
        turn("fine. how many orders have only one line?", "in_schema", [one_line],
             note="Order IDs that occur on exactly one row."),
    ]


def chat21():
    u = one("select sum(qty) from t where prod = 'Perfect Fitness Perfect Rip Deck' and year(od) = 2017")
    return [
        turn("what's the return rate on the rip deck?", "unanswerable", decline=True,
             note="No return / refund / order-status column."),
        turn("how many rip decks do we have in stock rn?", "unanswerable", decline=True,
             note="This file holds orders and shipments only, no inventory."),
        turn("ok how many rip deck units did we sell in 2017 then?", "in_schema", [u], ["Perfect Fitness Perfect Rip Deck"],
             note="SUM(Order Quantity) for 'Perfect Fitness Perfect Rip Deck' with an order date in 2017."),
    ]


def chat22():
    q17 = one("select sum(gross) from t where year(od) = 2017 and quarter(od) = 3")
    q16 = one("select sum(gross) from t where year(od) = 2016 and quarter(od) = 3")
    assert q17 != q16
    big = ("Q3 2017", q17) if q17 > q16 else ("Q3 2016", q16)
    return [
        turn("q3 2017 vs q3 2016 gross sales?", "in_schema", [r2(q17), r2(q16)],
             note="SUM(Gross Sales), order dates Jul-Sep 2017 and Jul-Sep 2016."),
        turn("which of the two was bigger?", "conversation", [r2(big[1])], [big[0]],
             note="Compares the two figures of the previous answer."),
    ]


def chat23():
    top = ranked("select substr(o_time, 1, 2), count(*) from t group by 1", 1)[0]
    return [
        turn("what hour of the day gets the most order lines? (Order Time)", "extra_columns", [top[1]], [f"{top[0]}:00"],
             note=f"Order lines by the hour of Order Time (HH:MM): hour {top[0]} ({top[0]}:00-{top[0]}:59) has {top[1]}."),
        turn("which hour did you say was busiest? need it for a slide", "conversation", [top[1]], [f"{top[0]}:00"],
             note="Repeats the hour from the previous answer."),
    ]


def chat24():
    u = one("select sum(qty) from t")
    top = ranked("select prod, sum(qty) from t group by 1", 1)[0]
    bottom = ranked("select prod, sum(qty) from t group by 1", 3, desc=False)
    return [
        turn("total units sold?", "in_schema", [u], note="SUM(Order Quantity) over all lines."),
        turn("which product sold the most units?", "in_schema", [top[1]], [top[0]],
             note="Product Name ranked by SUM(Order Quantity)."),
        turn("and the bottom 3 by units?", "in_schema", [v for _, v in bottom], [n for n, _ in bottom],
             note="Lowest SUM(Order Quantity): " + ", ".join(f"{n} {v}" for n, v in bottom)
                  + " (the two at 3 units are tied with each other, not with #4 at 4)."),
        turn("can u forecast the exact units for jan 2018?", "unanswerable", decline=True,
             note="The data ends on 2017-12-31; an exact future figure cannot be read from it."),
    ]


def chat25():
    n, g, net = rows("select count(*), sum(gross), sum(gross * (1 - disc)) from t where order_id = '11026'")[0]
    return [
        turn("pull up order 11026 — how many lines and whats the gross?", "in_schema", [n, r2(g)],
             note="Rows and SUM(Gross Sales) where Order ID = 11026 (3 fire safes, 2 life-vest lines; customer 3576, Denmark)."),
        turn("and after discounts?", "follow_up", [r2(net)], note="SUM(Gross Sales * (1 - Discount %)) for order 11026."),
    ]


def chat26():
    top = ranked("select cat, sum(gross) from t where region = 'Western Europe' and year(od) = 2017 group by 1", 1)[0]
    return [
        turn("in Western Europe which product category had the most gross sales in 2017?", "extra_columns",
             [r2(top[1])], [top[0]],
             note="Customer Region = 'Western Europe', order date in 2017, Product Category by SUM(Gross Sales)."),
        turn("hang on, which region and year did i ask about?", "conversation", names=["Western Europe", "2017"],
             note="From the user's previous question."),
    ]


CHATS = [chat01, chat02, chat03, chat04, chat05, chat06, chat07, chat08, chat09, chat10, chat11, chat12, chat13,
         chat14, chat15, chat16, chat17, chat18, chat19, chat20, chat21, chat22, chat23, chat24, chat25, chat26]


def build():
    out = []
    for i, fn in enumerate(CHATS, 1):
        out.append({"chat": f"{PREFIX}-{i:03d}", "dataset": DATASET, "turns": fn()})
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("csv", nargs="?", default=DEFAULT_CSV)
    ap.add_argument("--jsonl", help="write the bank to this path")
    ap.add_argument("--bank", default=str(Path(__file__).with_name("jit_orders_blind.jsonl")),
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

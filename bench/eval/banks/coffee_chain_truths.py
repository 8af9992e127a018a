#!/usr/bin/env python3
"""Truths for the coffee_chain blind bank (coffee_chain_blind.jsonl).

Data: the "Coffee Chain" sample data set (a fictional US chain selling coffee, espresso, tea and herbal tea), in a
PRE-AGGREGATED MONTHLY layout: one row per State x Product x month (20 states, 13 products, 24 months, Jan 2010 ...
Dec 2011, 177 State-Product pairs x 24 = 4,248 rows), each with the month's actual Sales, COGS, Margin, Marketing, Total
Expenses, Profit and Inventory, the month's Budget Sales / COGS / Margin / Profit, and context columns (Market = region
Central/East/South/West, MarketSize = Major/Small Market, ProductType, Type = Regular/Decaf, and a telephone AreaCode).
There is no order, customer, store, quantity or price column. Amounts are whole US dollars. The file has a UTF-8 BOM,
CRLF line ends, comma delimiter, no quoting, dates written m/d/yyyy h:mm (always the 1st of a month at 0:00).
Taken from the public GitHub repository bonchae/data, path CoffeeChain.csv, installed byte for byte (see the README
section).

Every expected number and name is computed here with duckdb SQL; nothing is typed by hand except the question texts
(and, for `conversation` turns, the text of an earlier question or a fact the user stated, taken from the chat itself).

    cd /work/main && uv run --no-sync python bench/eval/banks/coffee_chain_truths.py [CSV]                    # print + check bank
    cd /work/main && uv run --no-sync python bench/eval/banks/coffee_chain_truths.py [CSV] --jsonl out.jsonl  # write the bank

CSV defaults to /work/evaldata/coffee_chain/CoffeeChain.csv. Without --jsonl the script compares the computed chats
with coffee_chain_blind.jsonl next to it (or --bank PATH) and exits 1 on the first mismatch (also when the CSV's sha256,
header, row count or layout is not the expected one). Needs only the standard library and duckdb.
"""
import argparse
import hashlib
import json
import sys
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import duckdb

DATASET = "coffee_chain"
PREFIX = "cc"
DEFAULT_CSV = "/work/evaldata/coffee_chain/CoffeeChain.csv"
SHA256 = "708518cf01db88fdd8cfa4917d2ad5af5fc43a96172d6985c41bd6dac43f9893"
SIZE = 478470
ROWS = 4248  # data lines after the header: 177 State x Product pairs x 24 months
COLUMNS = [
    "AreaCode", "BudgetCOGS", "BudgetMargin", "BudgetProfit", "BudgetSales", "Cogs", "Date", "Inventory", "Margin",
    "MarketSize", "Market", "Marketing", "NumberofRecords", "ProductType", "Product", "Profit", "Sales", "State",
    "TotalExpenses", "Type",
]
HEADER = ("\ufeff" + ",".join(COLUMNS) + "\r\n").encode("utf-8")
FIRST = date(2010, 1, 1)  # first month
LATEST = date(2011, 12, 1)  # latest month: "this year", "latest month", "last 3 months" are anchored here
MONTHS = 24
PAIRS = 177

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
    if raw.count(b"\r\n") != ROWS + 1 or raw.count(b"\n") != ROWS + 1 or b'"' in raw:
        sys.exit("line ends / quoting changed")
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
    # Date is m/d/yyyy h:mm, month first, NOT zero-padded (e.g. 12/1/2011 0:00 = 1 December 2011); every row is a
    # month, dated on its 1st at 0:00.
    if one("select count(*) from raw where not regexp_full_match(Date, '(1[0-2]|[1-9])/1/20(10|11) 0:00')"):
        sys.exit("a Date that is not m/1/yyyy 0:00")
    money = ["BudgetCOGS", "BudgetMargin", "BudgetProfit", "BudgetSales", "Cogs", "Inventory", "Margin", "Marketing",
             "Profit", "Sales", "TotalExpenses"]
    for c in money + ["AreaCode", "NumberofRecords"]:
        if one(f"select count(*) from raw where not regexp_full_match({c}, '-?[0-9]+')"):
            sys.exit(f"{c}: a value that is not a whole number")
    con.execute(
        """create view t as select
             AreaCode::int as ac, cast(strptime(Date, '%m/%d/%Y %H:%M') as date) as d,
             Market as mk, MarketSize as ms, ProductType as pt, Product as p, State as st, Type as ty,
             BudgetCOGS::int as bcogs, BudgetMargin::int as bmargin, BudgetProfit::int as bprofit,
             BudgetSales::int as bsales, Cogs::int as cogs, Inventory::int as inv, Margin::int as margin,
             Marketing::int as mkt, NumberofRecords::int as nrec, Profit::int as profit, Sales::int as sales,
             TotalExpenses::int as texp
           from raw"""
    )
    if (one("select min(d) from t"), one("select max(d) from t"), one("select count(distinct d) from t")) != (
            FIRST, LATEST, MONTHS):
        sys.exit("month range changed")
    if one("select count(distinct (st, p)) from t") != PAIRS or one(
            "select count(*) from (select st, p, d from t group by all having count(*) > 1)"):
        sys.exit("grain is no longer one row per State x Product x month")
    if one("select count(*) from t where nrec <> 1"):
        sys.exit("NumberofRecords is not always 1")
    if one("select count(*) from (select ac from t group by 1 having count(distinct st) > 1)"):
        sys.exit("an AreaCode now spans two states")


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
    """Whole-dollar sums stay integers; anything else is rounded to 2 decimals."""
    d = dec(x)
    return int(d) if d == d.to_integral_value() else r2(d)


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


def mname(d: date) -> str:
    return f"{d.strftime('%B')} {d.year}"


def sales(where: str = "true"):
    return one(f"select sum(sales) from t where {where}")


def profit(where: str = "true"):
    return one(f"select sum(profit) from t where {where}")


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
LAST3 = "d >= date '2011-10-01'"  # Oct, Nov, Dec 2011 = the last 3 months of the file
PREV3 = "d >= date '2010-10-01' and d < date '2011-01-01'"
RECENCY = ("The file is monthly and its latest month is December 2011 (rows dated 12/1/2011); recency is anchored "
           "there, never on today's date.")


# ---------------------------------------------------------------- chats
def chat01():
    s, pr = sales(), profit()
    return [
        turn("whats the total sales in this file?", "in_schema", [num(s)],
             note="SUM(Sales) over all 4,248 rows (20 states x 13 products, monthly, Jan 2010 ... Dec 2011), "
                  "whole US dollars."),
        turn("and total profit", "follow_up", [num(pr)], note="SUM(Profit) over all rows (some rows are negative)."),
        turn("so profit margin overall is what, %?", "follow_up", [pct(pr, s)],
             note=f"SUM(Profit) / SUM(Sales) * 100 = {pr} / {s} * 100."),
    ]


def chat02():
    q1 = "how did 2011 sales compare to 2010? need the growth %"
    a, b = sales(Y10), sales(Y11)
    pa, pb = profit(Y10), profit(Y11)
    return [
        turn(q1, "in_schema", [num(a), num(b), growth(b, a)],
             note=f"SUM(Sales) by calendar year of Date: 2010 = {a}, 2011 = {b}; growth (2011 - 2010) / 2010 * 100."),
        turn("profit grew a lot more i think - by how much %?", "in_schema", [num(pa), num(pb), growth(pb, pa)],
             note=f"SUM(Profit) 2010 = {pa}, 2011 = {pb}; growth (2011 - 2010) / 2010 * 100."),
        turn("what was my first question?", "conversation", names=[q1], note="The text of the first turn."),
    ]


def chat03():
    ms = rows(f"select d, sum(sales) from t where {Y11} group by 1 order by 1")
    best = ranked(f"select d, sum(sales) from t where {Y11} group by 1", 1)[0]
    best_all = ranked("select d, sum(sales) from t group by 1", 1)[0]
    mar = dict(ms)[date(2011, 3, 1)]
    return [
        turn("monthly sales for 2011 pls", "in_schema", [num(s) for _, s in ms], [mname(m) for m, _ in ms],
             note="SUM(Sales) by month of Date, January ... December 2011 (the file is one row per State x Product "
                  "x month; Date is m/d/yyyy, always the 1st)."),
        turn("best month?", "follow_up", [num(best[1])], [mname(best[0])],
             note="The highest month of the 2011 list just given (the chat is about 2011)."),
        turn("whats the single best month in the whole file tho?", "in_schema", [num(best_all[1])], [mname(best_all[0])],
             note="Highest SUM(Sales) over all 24 months (it is in 2010, not 2011)."),
        turn("remind me what you said march was", "conversation", [num(mar)],
             note="March 2011 from the first answer of this chat."),
    ]


def chat04():
    top = ranked("select p, sum(sales) from t group by 1", 5)
    bot = ranked("select p, sum(sales) from t group by 1", 3, desc=False)
    worst = ranked("select p, sum(profit) from t group by 1", 1, desc=False)[0]
    without = profit(f"p <> '{worst[0]}'")
    return [
        turn("top 5 products by sales", "in_schema", [num(s) for _, s in top], [p for p, _ in top], first=top[0][0],
             note="SUM(Sales) by Product over the whole file (13 products; 'Columbian' is spelled so in the file)."),
        turn("bottom 3?", "follow_up", [num(s) for _, s in bot], [p for p, _ in bot], first=bot[0][0],
             note="The 3 products with the lowest SUM(Sales), lowest first."),
        turn("same but by profit - whos worst", "follow_up", [num(worst[1])], [worst[0]],
             note="Lowest SUM(Profit) by Product; it is the only product with a negative total."),
        turn("what would total profit be if we'd never carried it?", "negation_recency", [num(without)],
             note=f"SUM(Profit) of every product except {worst[0]} (whose total is negative, so this is higher than "
                  "the overall profit)."),
        turn("what was no. 2 in that first list?", "conversation", [num(top[1][1])], [top[1][0]],
             note="The #2 product of the top 5 by sales, the first answer of this chat."),
    ]


def chat05():
    top = ranked("select st, sum(sales) from t group by 1", 1)[0]
    top3 = ranked("select st, sum(profit) from t group by 1", 3)
    ny = rows("select sum(profit), sum(sales) from t where st = 'New York'")[0]
    assert "New York" not in [s for s, _ in top3]
    return [
        turn("which state sells teh most?", "extra_columns", [num(top[1])], [top[0]],
             note="SUM(Sales) by State."),
        turn("top 3 states by profit", "extra_columns", [num(v) for _, v in top3], [s for s, _ in top3],
             first=top3[0][0], note="SUM(Profit) by State."),
        turn("NY isnt in there?? whats NY's profit margin", "follow_up", [pct(*ny)],
             note=f"New York SUM(Profit) / SUM(Sales) * 100 = {ny[0]} / {ny[1]} * 100."),
    ]


def chat06():
    mk = ranked("select mk, sum(sales) from t group by 1", 4)
    best = ranked("select mk, sum(profit) * 1.0 / sum(sales) from t group by 1", 1)[0]
    bp, bs = rows(f"select sum(profit), sum(sales) from t where mk = '{best[0]}'")[0]
    south, tot = sales("mk = 'South'"), sales()
    return [
        turn("break down sales by market (the region column)", "extra_columns", [num(v) for _, v in mk],
             [m for m, _ in mk], first=mk[0][0], note="SUM(Sales) by Market (Central, East, South, West)."),
        turn("which one has the best profit margin", "follow_up", [pct(bp, bs)], [best[0]],
             note=f"SUM(Profit) / SUM(Sales) * 100 by Market; {best[0]} = {bp} / {bs} * 100."),
        turn("what % of total sales is south", "follow_up", [pct(south, tot)],
             note=f"South SUM(Sales) / all SUM(Sales) * 100 = {south} / {tot} * 100."),
    ]


def chat07():
    a, b = rows(f"select sum(sales), sum(bsales) from t where {Y11}")[0]
    pa, pb = rows(f"select sum(profit), sum(bprofit) from t where {Y11}")[0]
    worst = ranked("select p, sum(sales) - sum(bsales) from t group by 1", 1, desc=False)[0]
    act, bud = rows(f"select sum(sales), sum(bsales) from t where p = '{worst[0]}'")[0]
    assert worst[1] < 0
    return [
        turn("did we beat the sales budget in 2011? actual vs budget", "extra_columns", [num(a), num(b)],
             note=f"2011 SUM(Sales) = {a} vs SUM(BudgetSales) = {b}: above budget by {a - b} "
                  f"({pct(a, b)} % of budget)."),
        turn("and profit vs budget profit, same year", "follow_up", [num(pa), num(pb)],
             note=f"2011 SUM(Profit) = {pa} vs SUM(BudgetProfit) = {pb} (above by {pa - pb})."),
        turn("which product came in furthest under its sales budget over the two years", "extra_columns",
             [num(-worst[1])], [worst[0]],
             note=f"Lowest SUM(Sales) - SUM(BudgetSales) by Product over 2010-2011: {worst[0]} actual {act} vs "
                  f"budget {bud}, short by {-worst[1]}."),
    ]


def chat08():
    m, s = rows("select sum(mkt), sum(sales) from t")[0]
    top = ranked("select st, sum(mkt) from t group by 1", 1)[0]
    return [
        turn("how much did we spend on marketting in total?", "extra_columns", [num(m)],
             note="SUM(Marketing) over all rows."),
        turn("as % of sales?", "follow_up", [pct(m, s)], note=f"SUM(Marketing) / SUM(Sales) * 100 = {m} / {s}."),
        turn("which state spends the most on it", "extra_columns", [num(top[1])], [top[0]],
             note="SUM(Marketing) by State."),
        turn("whats the first number you gave me in this chat?", "conversation", [num(m)],
             note="The total marketing spend from the first answer."),
    ]


def chat09():
    tot = sales()
    dc, rg = sales("ty = 'Decaf'"), sales("ty = 'Regular'")
    return [
        turn("whats the decaf vs regular split of sales in %", "extra_columns", [pct(dc, tot), pct(rg, tot)],
             ["Decaf", "Regular"], note=f"SUM(Sales) by Type / all sales * 100: Decaf {dc}, Regular {rg}, total {tot}."),
    ]


def chat10():
    tea, herbal = sales(f"pt = 'Tea' and {Y11}"), sales(f"pt = 'Herbal Tea' and {Y11}")
    return [
        turn("how much tea did we sell in 2011?", "extra_columns", names=["Tea", "Herbal Tea"], clarify=True,
             note=f"Ambiguous: ProductType has both 'Tea' (Darjeeling, Earl Grey, Green Tea: {tea} in 2011) and "
                  f"'Herbal Tea' (Chamomile, Lemon, Mint: {herbal}). A good answer asks which is meant (or clearly "
                  "gives both)."),
        turn("the normal tea type, not herbal", "follow_up", [num(tea)], ["Tea"],
             note="SUM(Sales) where ProductType = 'Tea', 2011."),
    ]


def chat11():
    a, b = sales(LAST3), sales(PREV3)
    q2 = "vs the same 3 months a year earlier?"
    return [
        turn("sales for the last 3 months?", "negation_recency", [num(a)], ["October 2011", "December 2011"],
             note=f"{RECENCY} Last 3 months = October, November, December 2011."),
        turn(q2, "follow_up", [num(b), growth(a, b)],
             note=f"October-December 2010 = {b}; change (Oct-Dec 2011 - Oct-Dec 2010) / Oct-Dec 2010 * 100."),
        turn("whats the second thing i asked you?", "conversation", names=[q2], note="The text of the second turn."),
    ]


def chat12():
    s, pr = rows(f"select sum(sales), sum(profit) from t where d = date '{LATEST}'")[0]
    prev = sales("d = date '2011-11-01'")
    return [
        turn("how'd the latest month do - sales and profit", "negation_recency", [num(s), num(pr)],
             [mname(LATEST)], note=f"{RECENCY} SUM(Sales), SUM(Profit) for December 2011."),
        turn("MoM change in sales?", "follow_up", [growth(s, prev)],
             note=f"(December 2011 - November 2011) / November 2011 * 100 = ({s} - {prev}) / {prev} * 100."),
    ]


def chat13():
    a = sales("st <> 'California'")
    b = sales("st not in ('California', 'Nevada')")
    return [
        turn("total sales excluding califonia", "negation_recency", [num(a)],
             note="SUM(Sales) over every state except California, whole file."),
        turn("also take out nevada", "follow_up", [num(b)], note="SUM(Sales) without California and Nevada."),
    ]


def chat14():
    markets = [m for (m,) in rows("select distinct mk from t order by 1")]
    has = {m for (m,) in rows("select distinct mk from t where p = 'Caffe Latte'")}
    never = [m for m in markets if m not in has]
    nosouth = [p for (p,) in rows("select p from t group by 1 having count(*) filter (where mk = 'South') = 0 "
                                  "order by 1")]
    return [
        turn("which markets never sold caffe latte?", "negation_recency", names=never,
             note="Markets with no row for Product 'Caffe Latte' (it is only sold in the South and the West)."),
        turn("what products do we never sell in the south?", "negation_recency", names=nosouth,
             note="Products with no row whose Market is 'South'."),
    ]


def chat15():
    worst = ranked("select st || ' / ' || p, sum(profit) from t group by 1", 3, desc=False)
    low = one("select min(profit) from t")
    who = rows(f"select st, p, d from t where profit = {low}")
    assert len(who) == 1
    names = []
    for k, _ in worst:
        names += [x for x in k.split(" / ") if x not in names]
    return [
        turn("which state + product combos lost the most money over the 2 yrs? worst 3", "extra_columns",
             [num(v) for _, v in worst], names,
             note="SUM(Profit) by (State, Product), lowest 3: "
                  + "; ".join(f"{k} {v}" for k, v in worst) + "."),
        turn("worst single month for any product in any state?", "in_schema", [num(low)],
             [who[0][0], who[0][1], mname(who[0][2])],
             note=f"MIN(Profit) over all rows: {who[0][0]}, {who[0][1]}, {who[0][2]:%Y-%m}."),
    ]


def chat16():
    sts = [s for (s,) in rows(f"select st from t where {Y11} group by 1 having min(profit) >= 0 order by 1")]
    ps = [p for (p,) in rows(f"select p from t where {Y11} group by 1 having min(profit) >= 0 order by 1")]
    assert not one(f"select count(*) from t where {Y11} and profit = 0 and (st in ({','.join(repr(s) for s in sts)}) "
                   f"or p in ({','.join(repr(p) for p in ps)}))")
    return [
        turn("this year, which states didnt have a single loss-making month?", "negation_recency", names=sts,
             note=f"{RECENCY} 'This year' = 2011. States none of whose 2011 rows (any product) has Profit < 0."),
        turn("and which products made a profit every month this year?", "negation_recency", names=ps,
             note="Products none of whose 2011 rows (any state) has Profit < 0 (no zero-profit row either)."),
    ]


def chat17():
    r = {m: (s, pr) for m, s, pr in rows("select ms, sum(sales), sum(profit) from t group by 1")}
    assert one("select count(*) from (select st from t group by 1 having count(distinct ms) > 1)") == 0
    return [
        turn("major vs small markets - sales and profit?", "extra_columns",
             [num(r["Major Market"][0]), num(r["Major Market"][1]), num(r["Small Market"][0]),
              num(r["Small Market"][1])], ["Major Market", "Small Market"],
             note="SUM(Sales), SUM(Profit) by MarketSize."),
    ]


def chat18():
    top = ranked("select ac, sum(sales) from t group by 1", 1)[0]
    st = one(f"select any_value(st) from t where ac = {top[0]}")
    n = one("select count(distinct ac) from t")
    return [
        turn("which area code brings in the most sales", "extra_columns", [num(top[1])], [str(top[0])],
             note="SUM(Sales) by AreaCode (one State x Product series uses several area codes over the months)."),
        turn("what state is that in", "follow_up", names=[st], note=f"AreaCode {top[0]} appears only in {st}."),
        turn("how many different area codes are in the data", "extra_columns", [n],
             note="COUNT(DISTINCT AreaCode)."),
    ]


def chat19():
    inv = one(f"select sum(inv) from t where d = date '{LATEST}'")
    n = one("select count(*) from t where inv < 0")
    low = one("select min(inv) from t")
    who = rows(f"select distinct st, p from t where inv = {low}")
    when = [d for (d,) in rows(f"select d from t where inv = {low} order by 1")]
    assert len(who) == 1
    return [
        turn("total inventory in dec 2011, all states/products", "extra_columns", [num(inv)],
             note="SUM(Inventory) of the December 2011 rows (Inventory is a level, so it is not summed over months)."),
        turn("are there negative inventory numbers? how many rows", "extra_columns", [n],
             note="COUNT of rows with Inventory < 0."),
        turn("which one is the most negative", "follow_up", [num(low)], list(who[0]),
             note=f"MIN(Inventory) = {low}: {who[0][0]} / {who[0][1]}, in " + " and ".join(
                 f"{d:%Y-%m}" for d in when) + " (the same value both years)."),
    ]


def chat20():
    qs = rows(f"select quarter(d), sum(sales) from t where {Y11} group by 1 order by 1")
    v = dict(qs)
    return [
        turn("sales by quarter for 2011", "in_schema", [num(s) for _, s in qs], [f"Q{k} 2011" for k, _ in qs],
             note="SUM(Sales) by calendar quarter of Date, 2011."),
        turn("q4 vs q3 %?", "follow_up", [growth(v[4], v[3])],
             note=f"(Q4 - Q3) / Q3 * 100 = ({v[4]} - {v[3]}) / {v[3]} * 100 (a decline)."),
    ]


def chat21():
    q4, fy = profit(LAST3), profit(Y11)
    return [
        turn("putting together the Q4 review for Dana in finance - what was Q4 2011 profit?", "in_schema",
             [num(q4)], note="SUM(Profit), October-December 2011."),
        turn("and full year 2011?", "follow_up", [num(fy)], note="SUM(Profit), 2011."),
        turn("who am i doing this for again?", "conversation", names=["Dana"],
             note="The user said so in the first turn."),
    ]


def chat22():
    return [
        turn("how many cups of coffee did we sell in 2011?", "unanswerable", decline=True,
             note="No quantity / units column: the file has dollar amounts (Sales, COGS, ...) and Inventory only."),
        turn("ok how many orders then?", "unanswerable", decline=True,
             note="No order or transaction id: each row is a monthly State x Product total (NumberofRecords is "
                  "always 1), so the 4,248 rows are not orders."),
    ]


def chat23():
    return [
        turn("which individual store is our top performer? need the store name", "unanswerable", decline=True,
             note="No store id or name; the finest place columns are State and a telephone AreaCode."),
        turn("whats the avg price per bag of columbian", "unanswerable", decline=True,
             note="No price or quantity column, so no unit price can be derived."),
    ]


def chat24():
    s = sales()
    return [
        turn("what exactly will sales be in march 2012?", "unanswerable", decline=True,
             note="The file ends in December 2011; an exact future figure cannot come from it."),
        turn("fine. whats the average monthly sales in the file", "in_schema", [r2(dec(s) / MONTHS)],
             note=f"SUM(Sales) / 24 months = {s} / 24 (all states and products together, per month)."),
    ]


def chat25():
    np_, ns = rows("select count(distinct p), count(distinct st) from t")[0]
    return [
        turn("did the weather affect tea sales?", "unanswerable", decline=True,
             note="No weather or temperature column."),
        turn("ok then just tell me how many products and states are in there", "in_schema", [np_, ns],
             note="COUNT(DISTINCT Product), COUNT(DISTINCT State)."),
    ]


def chat26():
    col = rows("select st, sum(sales) from t where p = 'Columbian' group by 1 order by 2 desc, 1 limit 3")
    assert col[0][1] == col[1][1] != col[2][1]
    lem = ranked("select st, sum(sales) from t where p = 'Lemon' group by 1", 1)[0]
    return [
        turn("which state sells the most colombian?", "extra_columns", [num(col[0][1])], [col[0][0], col[1][0]],
             note=f"The user writes 'colombian'; the file spells the product 'Columbian'. SUM(Sales) of it by State: a real tie at #1, {col[0][0]} and {col[1][0]} "
                  f"both {col[0][1]}; both must be named."),
        turn("and lemon?", "follow_up", [num(lem[1])], [lem[0]], note="SUM(Sales) of Product 'Lemon' by State."),
    ]


def chat27():
    g = f"(sum(sales) filter (where {Y11}) - sum(sales) filter (where {Y10})) * 1.0 / sum(sales) filter (where {Y10})"
    top = ranked(f"select p, {g} from t group by 1", 1)[0]
    a, b = rows(f"select sum(sales) filter (where {Y10}), sum(sales) filter (where {Y11}) from t "
                f"where p = '{top[0]}'")[0]
    down = one(f"select count(*) from (select p from t group by 1 having {g} < 0)")
    slow = ranked(f"select st, {g} from t group by 1", 1, desc=False)[0]
    sa, sb = rows(f"select sum(sales) filter (where {Y10}), sum(sales) filter (where {Y11}) from t "
                  f"where st = '{slow[0]}'")[0]
    return [
        turn("which product grew sales fastest 2010 to 2011 (%)?", "in_schema", [growth(b, a)], [top[0]],
             note=f"Sales growth by Product, (2011 - 2010) / 2010 * 100: {top[0]} {a} -> {b}. Every product grew "
                  "4.2-4.6 %, so the ranking is tight but has no tie."),
        turn("were there any products that didnt grow in 2011? how many", "negation_recency", [down],
             note="Products whose 2011 SUM(Sales) is not above 2010: none (0), every product grew. A right answer says "
                  "none and names none."),
        turn("which state grew the slowest", "extra_columns", [growth(sb, sa)], [slow[0]],
             note=f"Lowest sales growth 2010 -> 2011 by State: {slow[0]} {sa} -> {sb}."),
    ]


def chat28():
    tot = sales()
    c, e = sales("p = 'Columbian'"), sales("pt = 'Espresso'")
    return [
        turn("what % of all sales is columbian", "in_schema", [pct(c, tot)],
             note=f"Product 'Columbian' SUM(Sales) / all * 100 = {c} / {tot} * 100."),
        turn("and all the espresso-type products together?", "follow_up", [pct(e, tot)], ["Espresso"],
             note=f"ProductType 'Espresso' (Caffe Latte, Caffe Mocha, Decaf Espresso, Regular Espresso) = {e} / {tot} "
                  "* 100."),
    ]


def chat29():
    top = ranked(f"select mk, sum(profit) - sum(bprofit) from t where {Y11} group by 1", 1)[0]
    miss = one(f"select count(*) from (select mk from t where {Y10} group by 1 having sum(sales) < sum(bsales))")
    assert one(f"select count(*) from (select mk from t where {Y10} group by 1 having sum(sales) = sum(bsales))") == 0
    return [
        turn("which market beat its 2011 profit budget by the most?", "extra_columns", [num(top[1])], [top[0]],
             note="2011 SUM(Profit) - SUM(BudgetProfit) by Market."),
        turn("did any market NOT hit its sales budget in 2010? how many", "negation_recency", [miss],
             note="Markets whose 2010 SUM(Sales) < SUM(BudgetSales): none (0); all four are above budget. A right "
                  "answer says none."),
    ]


def chat30():
    top = ranked("select st, sum(profit) from t group by 1", 2)
    best = ranked("select st, sum(profit) * 1.0 / sum(sales) from t group by 1", 1)[0]
    bp, bs = rows(f"select sum(profit), sum(sales) from t where st = '{best[0]}'")[0]
    assert top[0][0] == "California"
    return [
        turn("my boss says california is our most profitable state. true?", "extra_columns", [num(top[0][1])],
             [top[0][0]],
             note=f"Yes by SUM(Profit): California {top[0][1]}, next {top[1][0]} {top[1][1]}."),
        turn("what about highest profit margin %?", "follow_up", [pct(bp, bs)], [best[0]],
             note=f"SUM(Profit) / SUM(Sales) * 100 by State: {best[0]} = {bp} / {bs} * 100 (California is not #1 "
                  "here)."),
        turn("what did my boss claim again?", "conversation", names=["California"],
             note="The user said their boss claims California is the most profitable state."),
    ]


def chat31():
    typ = sales("mk = 'East' and pt = 'Espresso'")
    reg = sales("mk = 'East' and p = 'Regular Espresso'")
    assert one("select count(*) from t where p = 'Regular Espresso' and mk <> 'East'") == 0
    return [
        turn("how much espresso did we sell in the east?", "extra_columns", names=["Espresso", "Regular Espresso"],
             clarify=True,
             note=f"Ambiguous: 'Espresso' is a ProductType (4 products, East = {typ}) and there is a Product "
                  f"'Regular Espresso' (East = {reg}; also a 'Decaf Espresso'). A good answer asks which is meant "
                  "(or clearly gives both)."),
        turn("i mean the product called regular espresso", "follow_up", [num(reg)], ["Regular Espresso"],
             note="SUM(Sales) of Product 'Regular Espresso', Market East, whole file."),
    ]


def chat32():
    w = sales(f"mk = 'West' and {Y11}")
    return [
        turn("i run the West region btw. what were West sales in 2011?", "extra_columns", [num(w)],
             note="SUM(Sales), Market West, 2011."),
        turn("which region did i say i run?", "conversation", names=["West"],
             note="The user said so in the first turn."),
    ]


CHATS = [chat01, chat02, chat03, chat04, chat05, chat06, chat07, chat08, chat09, chat10, chat11, chat12, chat13,
         chat14, chat15, chat16, chat17, chat18, chat19, chat20, chat21, chat22, chat23, chat24, chat25, chat26,
         chat27, chat28, chat29, chat30, chat31, chat32]


def build():
    out = []
    for i, fn in enumerate(CHATS, 1):
        out.append({"chat": f"{PREFIX}-{i:03d}", "dataset": DATASET, "turns": fn()})
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("csv", nargs="?", default=DEFAULT_CSV)
    ap.add_argument("--jsonl", help="write the bank to this path")
    ap.add_argument("--bank", default=str(Path(__file__).with_name("coffee_chain_blind.jsonl")),
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

#!/usr/bin/env python3
"""Truths for adidas_sales_blind.jsonl (Adidas US Sales, Kaggle, 9,648 invoice rows, 2020-2021).

Standalone: needs only duckdb. Every truth is computed here from the CSV with SQL.

    python adidas_sales_truths.py /work/evaldata/adidas_sales/adidas_us_sales.csv
        prints every question with its truth and checks that adidas_sales_blind.jsonl
        (next to this script) holds exactly these values; exit 1 on any mismatch.
    python adidas_sales_truths.py <csv> --jsonl out.jsonl
        (re)writes the bank to out.jsonl.

Conventions (stated in the questions where the answer depends on them):
  * The file is the Kaggle "Adidas US Sales" export, money columns formatted like "$600,000 ",
    units like "1,200", margin like "50%", dates M/D/YYYY. Values are used as recorded.
  * revenue / "total sales" = SUM("Total Sales") as recorded. It is NOT Price per Unit x Units Sold:
    in 3,886 of the 9,648 rows Total Sales is ten times price x units (a quirk of the source).
  * operating profit = SUM("Operating Profit") as recorded (whole dollars in this export).
  * operating margin of a group = SUM(Operating Profit) / SUM(Total Sales) * 100 (not the mean of
    the "Operating Margin" column).
  * invoice lines / transactions = rows (COUNT(*)); there is no invoice number. Each row is one
    retailer x date x city x product x sales method.
  * average sale per invoice line = revenue / rows.
  * units = SUM("Units Sold").
  * retailers = distinct Retailer (6); "Retailer ID" is not 1:1 with Retailer and is not used.
  * a city is City + State: Portland (Maine, Oregon) and Charleston (South Carolina, West Virginia)
    exist in two states each.
  * Men's / Women's products = the three Product values starting with "Men's" / "Women's";
    footwear = the four "... Footwear" products, apparel = the two "... Apparel" products.
  * periods use Invoice Date. The latest date is 2021-12-31: "latest month" = December 2021,
    "last 3 months of data" = October-December 2021, "last 6 months of data" = July-December 2021.
  * growth = (new - old) / old * 100; share = part / whole * 100.
  * figures are exact decimals rounded half-up to 2 places. Rankings are checked for ties at the cut.
"""
import argparse
import hashlib
import json
import sys
from decimal import ROUND_HALF_UP, Decimal, getcontext
from pathlib import Path

import duckdb

getcontext().prec = 50

SHA256 = "2c013e8f927d501ed5ea22b769651041cdbc34a8a7ef3939d389d5f1232696c8"
DATASET = "adidas_sales"
PREFIX = "ad"
BANK = Path(__file__).with_name("adidas_sales_blind.jsonl")

con = None


def load(path):
    global con
    con = duckdb.connect()
    con.execute(
        """
        CREATE TABLE raw AS SELECT * FROM read_csv(?, header=true, delim=',', quote='"',
                                                   all_varchar=true)""",
        [str(path)],
    )

    def money(col):
        return f"""CAST(replace(replace(trim("{col}"), '$', ''), ',', '') AS DECIMAL(18,2))"""

    con.execute(
        f"""
        CREATE TABLE s AS SELECT
            "Retailer"                                          AS retailer,
            strptime("Invoice Date", '%m/%d/%Y')::DATE          AS d,
            "Region"                                            AS region,
            "State"                                             AS state,
            "City"                                              AS city,
            "Product"                                           AS product,
            {money("Price per Unit")}                           AS price,
            CAST(replace(trim("Units Sold"), ',', '') AS BIGINT) AS units,
            {money("Total Sales")}                              AS sales,
            {money("Operating Profit")}                         AS profit,
            CAST(replace(trim("Operating Margin"), '%', '') AS DECIMAL(6,2)) AS margin_pct,
            "Sales Method"                                      AS method
        FROM raw"""
    )
    n, nulls = con.execute(
        """SELECT count(*), count(*) FILTER (WHERE d IS NULL OR sales IS NULL OR units IS NULL
                                              OR profit IS NULL OR retailer IS NULL)
           FROM s"""
    ).fetchone()
    assert n == 9648 and nulls == 0, (n, nulls)


# ---------------------------------------------------------------- helpers

def one(sql, *params):
    return con.execute(sql, list(params)).fetchone()[0]


def rows(sql, *params):
    return con.execute(sql, list(params)).fetchall()


def r2(x):
    """Exact decimal rounded half-up to 2 places; int when whole."""
    v = Decimal(str(x)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    return int(v) if v == v.to_integral_value() else float(v)


def pct(part, whole):
    return r2(Decimal(str(part)) / Decimal(str(whole)) * 100)


def growth(new, old):
    return r2((Decimal(str(new)) - Decimal(str(old))) / Decimal(str(old)) * 100)


def ranked(sql, k, *params):
    """Rows (name, value, ...) ordered by value desc; asserts no tie at the cut k (and at 1)."""
    rs = rows(sql, *params)
    assert len(rs) >= k, (sql, rs)
    for cut in {1, k}:
        if len(rs) > cut:
            assert rs[cut - 1][1] != rs[cut][1], f"tie at cut {cut}: {rs[cut - 1]} / {rs[cut]}\n{sql}"
    return rs


def day(d):
    return f"{d:%B} {d.day}, {d.year}"


def month(ym):
    y, m = ym.split("-")
    import datetime
    return f"{datetime.date(int(y), int(m), 1):%B} {y}"


def T(q, category, note, **expect):
    e = {}
    for k in ("numbers", "names", "first", "decline", "clarify"):
        if k in expect:
            e[k] = expect[k]
    e["note"] = note
    return {"q": q, "category": category, "expect": e}


Y21 = "year(d) = 2021"
Y20 = "year(d) = 2020"


def sales_where(cond):
    return one(f"SELECT sum(sales) FROM s WHERE {cond}")


# ---------------------------------------------------------------- chats

def chat_001():
    total = sales_where("true")
    profit = one("SELECT sum(profit) FROM s")
    return [
        T("hey — what's the grand total of the Total Sales column, whole file?",
          "in_schema", "SUM(Total Sales) over all 9,648 rows",
          numbers=[r2(total)]),
        T("nice. and total operating profit? whats that as a margin (op profit ÷ total sales)",
          "extra_columns", "SUM(Operating Profit); margin = SUM(Operating Profit)/SUM(Total Sales)*100, whole file",
          numbers=[r2(profit), pct(profit, total)]),
    ]


def chat_002():
    rk = ranked(f"SELECT retailer, sum(sales) v FROM s WHERE {Y21} GROUP BY 1 ORDER BY 2 DESC", 3)
    second = rk[1][0]
    op = one(f"SELECT sum(profit) FROM s WHERE {Y21} AND retailer = ?", second)
    return [
        T("rank the retialers by total sales for 2021, top 3 is fine",
          "in_schema", "SUM(Total Sales) by Retailer, invoice dates in 2021, descending",
          names=[r[0] for r in rk[:3]], first=rk[0][0], numbers=[r2(r[1]) for r in rk[:3]]),
        T("what was the number 2 one's operating profit that year?",
          "follow_up", f"#2 of 2021 = {second}; SUM(Operating Profit) in 2021",
          names=[second], numbers=[r2(op)]),
    ]


def chat_003():
    ne = "region = 'Northeast'"
    q1 = "I look after the Northeast region. What did we do in total sales there in 2021?"
    ne21 = sales_where(f"{ne} AND {Y21}")
    st = ranked(f"SELECT state, sum(sales) FROM s WHERE {ne} AND {Y21} GROUP BY 1 ORDER BY 2 DESC", 1)
    online = sales_where(f"{ne} AND {Y21} AND method = 'Online'")
    p21 = ranked(f"SELECT product, sum(units) FROM s WHERE {ne} AND {Y21} GROUP BY 1 ORDER BY 2 DESC", 1)
    p20 = ranked(f"SELECT product, sum(units) FROM s WHERE {ne} AND {Y20} GROUP BY 1 ORDER BY 2 DESC", 1)
    ex_ny = sales_where(f"{ne} AND {Y21} AND state <> 'New York'")
    return [
        T(q1, "extra_columns", "SUM(Total Sales), Region = Northeast, 2021",
          numbers=[r2(ne21)]),
        T("which of my states was the bigest?", "follow_up",
          "Northeast states by SUM(Total Sales) in 2021; top one",
          first=st[0][0], names=[st[0][0]], numbers=[r2(st[0][1])]),
        T("what share of Northeast 2021 sales came through Online? as a %", "extra_columns",
          "SUM(Total Sales) Online / all methods, Northeast, 2021, *100",
          numbers=[pct(online, ne21)]),
        T("top product in the Northeast in 2021 by units sold?", "extra_columns",
          "SUM(Units Sold) by Product, Northeast, 2021",
          first=p21[0][0], names=[p21[0][0]], numbers=[p21[0][1]]),
        T("what about 2020", "follow_up", "same, 2020",
          first=p20[0][0], names=[p20[0][0]], numbers=[p20[0][1]]),
        T("and Northeast total sales for 2021 excluding New York state?", "negation_recency",
          "SUM(Total Sales), Northeast, 2021, State <> New York",
          numbers=[r2(ex_ny)]),
        T("remind me which region i said I look after?", "conversation",
          "the user stated it in turn 1", names=["Northeast"]),
        T("what was the first thing I asked you?", "conversation",
          "text of turn 1", names=[q1]),
    ]


def chat_004():
    mo = ranked("SELECT strftime(d, '%Y-%m'), sum(sales) FROM s GROUP BY 1 ORDER BY 2 DESC", 1)
    dec = sales_where("d BETWEEN DATE '2021-12-01' AND DATE '2021-12-31'")
    nov = sales_where("d BETWEEN DATE '2021-11-01' AND DATE '2021-11-30'")
    y21, y20 = sales_where(Y21), sales_where(Y20)
    return [
        T("which month had the highest total sales across the whole file?", "in_schema",
          "SUM(Total Sales) by calendar month (year-month)",
          first=month(mo[0][0]), names=[month(mo[0][0])], numbers=[r2(mo[0][1])]),
        T("how did Dec 2021 do vs Nov 2021 — % change in total sales?", "in_schema",
          f"(Dec 2021 {dec} - Nov 2021 {nov}) / Nov 2021 * 100",
          numbers=[growth(dec, nov)]),
        T("and full year 2021 vs 2020, whats the growth in total sales?", "in_schema",
          f"(2021 {y21} - 2020 {y20}) / 2020 * 100",
          numbers=[growth(y21, y20)]),
    ]


def chat_005():
    states = [r[0] for r in rows("SELECT DISTINCT state FROM s WHERE city = 'Portland' ORDER BY 1")]
    assert states == ["Maine", "Oregon"], states
    pdx = sales_where("city = 'Portland' AND state = 'Oregon'")
    return [
        T("how much has Portland sold in total?", "extra_columns",
          "City 'Portland' exists in Maine and in Oregon; ask which one",
          clarify=True, names=states),
        T("the Oregon one", "follow_up",
          "SUM(Total Sales), City = Portland, State = Oregon, whole file",
          numbers=[r2(pdx)]),
    ]


def chat_006():
    no_online = sales_where(f"{Y21} AND method <> 'Online'")
    no_west = sales_where(f"{Y21} AND region <> 'West'")
    return [
        T("2021 total sales but leave out the Online channel pls", "negation_recency",
          "SUM(Total Sales), 2021, Sales Method <> Online", numbers=[r2(no_online)]),
        T("ok now 2021 sales outside the West region. all channels back in", "negation_recency",
          "SUM(Total Sales), 2021, Region <> West, all methods", numbers=[r2(no_west)]),
    ]


def chat_007():
    latest = one("SELECT max(d) FROM s")
    assert str(latest) == "2021-12-31"
    last3 = sales_where("d BETWEEN DATE '2021-10-01' AND DATE '2021-12-31'")
    m = ranked("""SELECT method, sum(sales) FROM s WHERE d BETWEEN DATE '2021-12-01' AND DATE '2021-12-31'
                  GROUP BY 1 ORDER BY 2 DESC""", 1)
    return [
        T("what's the most recent invoice date in this file?", "in_schema",
          "MAX(Invoice Date) = 2021-12-31", names=[day(latest)]),
        T("how much did we sell ($) over the last 3 months of data?", "negation_recency",
          "SUM(Total Sales), October 1 - December 31, 2021 (3 calendar months ending at the latest date)",
          numbers=[r2(last3)]),
        T("In the latest month, which sales method brought in the most total sales?", "negation_recency",
          "latest month = December 2021; SUM(Total Sales) by Sales Method",
          first=m[0][0], names=[m[0][0]], numbers=[r2(m[0][1])]),
    ]


def chat_008():
    hi = one(f"SELECT sum(units) FROM s WHERE state = 'Hawaii' AND {Y21}")
    return [
        T("can you split 2021 sales by shopper age group?", "unanswerable",
          "the file has no shopper/customer age column", decline=True),
        T("ok fine. how many units did we sell in Hawaii in 2021?", "extra_columns",
          "SUM(Units Sold), State = Hawaii, 2021", numbers=[hi]),
    ]


def chat_009():
    q4 = "whats the operatng margin on Women's Apparel — total op profit / total sales?"
    prod = ranked("SELECT product, sum(sales) FROM s GROUP BY 1 ORDER BY 2 DESC", 1)
    pu = ranked("SELECT product, sum(units) FROM s GROUP BY 1 ORDER BY 2 DESC", 2)
    men = sales_where("product LIKE 'Men''s %'")
    women = sales_where("product LIKE 'Women''s %'")
    wa_p, wa_s = rows("SELECT sum(profit), sum(sales) FROM s WHERE product = 'Women''s Apparel'")[0]
    st = ranked(f"SELECT state, sum(sales) FROM s WHERE {Y21} GROUP BY 1 ORDER BY 2 DESC", 5)
    third = st[2][0]
    third_op = one(f"SELECT sum(profit) FROM s WHERE {Y21} AND state = ?", third)
    return [
        T("which product brought in the most total sales over the whole file?", "in_schema",
          "SUM(Total Sales) by Product, all rows",
          first=prod[0][0], names=[prod[0][0]], numbers=[r2(prod[0][1])]),
        T("and which one's number two by units sold?", "follow_up",
          "SUM(Units Sold) by Product, all rows; second place",
          names=[pu[1][0]], numbers=[pu[1][1]]),
        T("men vs women: total sales for all the Men's products combined vs all the Women's ones?",
          "extra_columns", "SUM(Total Sales) of the 3 Men's products vs the 3 Women's products, all rows",
          numbers=[r2(men), r2(women)]),
        T(q4, "extra_columns",
          "SUM(Operating Profit)/SUM(Total Sales)*100, Product = Women's Apparel, all rows",
          numbers=[pct(wa_p, wa_s)]),
        T("switching topics. top 5 states by total sales in 2021?", "extra_columns",
          "SUM(Total Sales) by State, 2021, descending",
          names=[r[0] for r in st[:5]], first=st[0][0], numbers=[r2(r[1]) for r in st[:5]]),
        T("the 3rd one on that list — what was its operating profit in 2021?", "follow_up",
          f"3rd state = {third}; SUM(Operating Profit), 2021",
          names=[third], numbers=[r2(third_op)]),
        T("which product did I ask about in my 4th question?", "conversation",
          "turn 4 asked about Women's Apparel", names=["Women's Apparel"]),
        T("what total sales figure did you give me for the top product at the very start?",
          "conversation", f"turn 1: {prod[0][0]}", numbers=[r2(prod[0][1])]),
    ]


def chat_010():
    dd = ranked("SELECT d, sum(sales) FROM s GROUP BY 1 ORDER BY 2 DESC", 1)
    n = one("SELECT count(*) FROM s WHERE d = ?", dd[0][0])
    return [
        T("what was our single best day for total sales?", "in_schema",
          f"SUM(Total Sales) by Invoice Date; top = {dd[0][0]}",
          first=day(dd[0][0]), names=[day(dd[0][0])], numbers=[r2(dd[0][1])]),
        T("how many invoice lines (rows) were on that day", "follow_up",
          "COUNT(*) rows on that date", numbers=[n]),
    ]


def chat_011():
    q = ranked(f"SELECT 'Q' || quarter(d), sum(sales) FROM s WHERE {Y21} GROUP BY 1 ORDER BY 2 DESC", 1)
    q1u = one("SELECT sum(units) FROM s WHERE d BETWEEN DATE '2021-01-01' AND DATE '2021-03-31'")
    return [
        T("break 2021 down by quarter for me. which quarter had the highest total sales?", "in_schema",
          "SUM(Total Sales) by calendar quarter of 2021",
          first=f"{q[0][0]} 2021", names=[f"{q[0][0]} 2021"], numbers=[r2(q[0][1])]),
        T("units sold in Q1 2021?", "in_schema",
          "SUM(Units Sold), January 1 - March 31, 2021", numbers=[q1u]),
    ]


def chat_012():
    total, n = rows("SELECT sum(sales), count(*) FROM s")[0]
    return [
        T("show me returns and refunds by retailer", "unanswerable",
          "the file has no returns/refunds data", decline=True),
        T("ok then, what's the average sale per invoice line across the whole file? (total sales ÷ number of rows)",
          "in_schema", f"SUM(Total Sales) {total} / COUNT(*) {n}",
          numbers=[r2(Decimal(str(total)) / n)]),
    ]


def chat_013():
    wm = sales_where(f"{Y21} AND retailer = 'Walmart'")
    rest = sales_where(f"{Y21} AND retailer <> 'Walmart'")
    return [
        T("got a meeting with the Walmart buyer tmrw. what were their total sales in 2021?", "in_schema",
          "SUM(Total Sales), Retailer = Walmart, 2021", numbers=[r2(wm)]),
        T("and 2021 total sales for everyone except Walmart?", "negation_recency",
          "SUM(Total Sales), 2021, Retailer <> Walmart", numbers=[r2(rest)]),
        T("who's my meeting with again?", "conversation",
          "the user stated it in turn 1", names=["Walmart"]),
    ]


def chat_014():
    total = sales_where("true")
    ms = ranked("SELECT method, sum(sales) FROM s GROUP BY 1 ORDER BY 2 DESC", 3)
    mg = ranked("""SELECT method, sum(profit) / sum(sales) FROM s GROUP BY 1 ORDER BY 2 DESC""", 1)
    mp, msales = rows("SELECT sum(profit), sum(sales) FROM s WHERE method = ?", mg[0][0])[0]
    return [
        T("what % of all-time total sales came through each sales method?", "extra_columns",
          "SUM(Total Sales) by Sales Method / SUM(Total Sales) * 100, all rows",
          names=[r[0] for r in ms], first=ms[0][0], numbers=[pct(r[1], total) for r in ms]),
        T("which method has the best operating margin (sum of op profit / sum of sales)?", "extra_columns",
          "SUM(Operating Profit)/SUM(Total Sales)*100 by Sales Method, all rows",
          first=mg[0][0], names=[mg[0][0]], numbers=[pct(mp, msales)]),
    ]


def chat_015():
    fw = one(f"SELECT sum(units) FROM s WHERE {Y21} AND product NOT LIKE '%Apparel'")
    return [
        T("2021 units for everything except apparel?", "negation_recency",
          "SUM(Units Sold), 2021, Product not Men's/Women's Apparel (the 4 footwear products)",
          numbers=[fw]),
        T("what did we sell in January 2022?", "unanswerable",
          "the file ends on 2021-12-31; there is no 2022 data", decline=True),
    ]


def chat_016():
    nr, ns = rows("SELECT count(DISTINCT retailer), count(DISTINCT state) FROM s")[0]
    rs = ranked("SELECT retailer, count(DISTINCT state) FROM s GROUP BY 1 ORDER BY 2 DESC", 1)
    return [
        T("how many different retailers are in here, and how many states do we sell in?", "extra_columns",
          "COUNT(DISTINCT Retailer), COUNT(DISTINCT State), all rows", numbers=[nr, ns]),
        T("which retailer sells in the most states?", "extra_columns",
          "COUNT(DISTINCT State) by Retailer, all rows",
          first=rs[0][0], names=[rs[0][0]], numbers=[rs[0][1]]),
    ]


def chat_017():
    sd = "retailer = 'Sports Direct'"
    u = one(f"SELECT sum(units) FROM s WHERE {sd} AND {Y21}")
    mo = ranked(f"SELECT strftime(d, '%Y-%m'), sum(sales) FROM s WHERE {sd} AND {Y21} GROUP BY 1 ORDER BY 2 DESC", 1)
    states = [r[0] for r in rows("SELECT DISTINCT state FROM s WHERE city = 'Charleston' ORDER BY 1")]
    assert states == ["South Carolina", "West Virginia"], states
    chs = sales_where("city = 'Charleston' AND state = 'South Carolina'")
    op = one(f"SELECT sum(profit) FROM s WHERE {sd} AND {Y21} AND region <> 'South'")
    return [
        T("How many units did Sports Direct sell in 2021?", "in_schema",
          "SUM(Units Sold), Retailer = Sports Direct, 2021", numbers=[u]),
        T("what was their best month that year by total sales?", "follow_up",
          "Sports Direct, 2021, SUM(Total Sales) by month",
          first=month(mo[0][0]), names=[month(mo[0][0])], numbers=[r2(mo[0][1])]),
        T("switching gears for a sec — what have we sold in Charleston overall, all retailers?", "extra_columns",
          "City 'Charleston' exists in South Carolina and in West Virginia; ask which one",
          clarify=True, names=states),
        T("South Carolina", "follow_up",
          "SUM(Total Sales), City = Charleston, State = South Carolina, all retailers, whole file",
          numbers=[r2(chs)]),
        T("back to Sports Direct: their 2021 operating profit outside the South region?", "negation_recency",
          "SUM(Operating Profit), Sports Direct, 2021, Region <> South", numbers=[r2(op)]),
        T("what promo fees did Sports Direct charge us last year?", "unanswerable",
          "the file has no promotion/fee data", decline=True),
        T("what unit number did you give me at the start?", "conversation",
          "turn 1: Sports Direct units in 2021", numbers=[u]),
        T("and which Charleston did I pick?", "conversation",
          "the user chose it in turn 4", names=["South Carolina"]),
    ]


def chat_018():
    rg = ranked(f"""SELECT region, sum(profit) / sum(sales), sum(profit), sum(sales) FROM s WHERE {Y21}
                    GROUP BY 1 ORDER BY 2 DESC""", 1)
    worst = rg[-1]
    assert rg[-2][1] != worst[1]
    return [
        T("which region had the best operating margin in 2021 (total op profit / total sales)?",
          "extra_columns", "SUM(Operating Profit)/SUM(Total Sales)*100 by Region, 2021",
          first=rg[0][0], names=[rg[0][0]], numbers=[pct(rg[0][2], rg[0][3])]),
        T("and the worst?", "follow_up", "same ranking, last place",
          names=[worst[0]], numbers=[pct(worst[2], worst[3])]),
    ]


def chat_019():
    fl, wg = "retailer = 'Foot Locker'", "retailer = 'West Gear'"
    mo = ranked(f"SELECT strftime(d, '%Y-%m'), sum(sales) FROM s WHERE {fl} AND {Y21} GROUP BY 1 ORDER BY 2 DESC", 1)
    fl21, fl20 = sales_where(f"{fl} AND {Y21}"), sales_where(f"{fl} AND {Y20}")
    wg21, wg20 = sales_where(f"{wg} AND {Y21}"), sales_where(f"{wg} AND {Y20}")
    all21 = sales_where(Y21)
    q5 = "how many Online invoice lines did West Gear have in the last 6 months of data?"
    n = one(f"""SELECT count(*) FROM s WHERE {wg} AND method = 'Online'
                AND d BETWEEN DATE '2021-07-01' AND DATE '2021-12-31'""")
    return [
        T("For Foot Locker in 2021, which month was the peak for total sales?", "in_schema",
          "Foot Locker, 2021, SUM(Total Sales) by month",
          first=month(mo[0][0]), names=[month(mo[0][0])], numbers=[r2(mo[0][1])]),
        T("how much did Foot Locker's total sales grow in 2021 vs 2020?", "in_schema",
          f"Foot Locker (2021 {fl21} - 2020 {fl20}) / 2020 * 100", numbers=[growth(fl21, fl20)]),
        T("same for West Gear?", "follow_up",
          f"West Gear (2021 {wg21} - 2020 {wg20}) / 2020 * 100", numbers=[growth(wg21, wg20)]),
        T("what share of 2021 total sales did West Gear account for?", "in_schema",
          "West Gear SUM(Total Sales) 2021 / all 2021 * 100", numbers=[pct(wg21, all21)]),
        T(q5, "negation_recency",
          "COUNT(*) rows, West Gear, Sales Method = Online, July 1 - December 31, 2021", numbers=[n]),
        T("did the weather affect West Gear's sales?", "unanswerable",
          "the file has no weather data", decline=True),
        T("which two retailers have I asked about so far?", "conversation",
          "turns 1-2 Foot Locker, turns 3-6 West Gear", names=["Foot Locker", "West Gear"]),
        T("what peak month did you give me for Foot Locker at the beginning?", "conversation",
          "turn 1", names=[month(mo[0][0])]),
    ]


CHATS = [chat_001, chat_002, chat_003, chat_004, chat_005, chat_006, chat_007, chat_008, chat_009,
         chat_010, chat_011, chat_012, chat_013, chat_014, chat_015, chat_016, chat_017, chat_018,
         chat_019]


def build():
    out = []
    for i, fn in enumerate(CHATS, 1):
        out.append({"chat": f"{PREFIX}-{i:03d}", "dataset": DATASET, "turns": fn()})
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--jsonl", help="write the bank here")
    a = ap.parse_args()
    digest = hashlib.sha256(Path(a.csv).read_bytes()).hexdigest()
    if digest != SHA256:
        print(f"sha256 mismatch: {digest} != {SHA256}")
        return 1
    load(a.csv)
    bank = build()

    cats = {}
    for c in bank:
        print(f"== {c['chat']}")
        for t in c["turns"]:
            cats[t["category"]] = cats.get(t["category"], 0) + 1
            print(f"  [{t['category']}] {t['q']}")
            print(f"      -> {json.dumps({k: v for k, v in t['expect'].items() if k != 'note'}, ensure_ascii=False)}")
    print(f"chats: {len(bank)}, questions: {sum(cats.values())}, by category: {cats}")

    if a.jsonl:
        with open(a.jsonl, "w", encoding="utf-8") as f:
            for c in bank:
                f.write(json.dumps(c, ensure_ascii=False) + "\n")
        print(f"wrote {a.jsonl}")
        return 0

    if not BANK.exists():
        print(f"MISMATCH: {BANK} does not exist")
        return 1
    stored = [json.loads(line) for line in BANK.read_text(encoding="utf-8").splitlines() if line.strip()]
    bad = 0
    if len(stored) != len(bank):
        print(f"MISMATCH: bank has {len(stored)} chats, truths {len(bank)}")
        bad += 1
    for want, got in zip(bank, stored):
        if want != got:
            bad += 1
            print(f"MISMATCH in {want['chat']}:")
            for i, (tw, tg) in enumerate(zip(want["turns"], got.get("turns", [])), 1):
                if tw != tg:
                    print(f"  turn {i}: truth {json.dumps(tw, ensure_ascii=False)}")
                    print(f"  turn {i}: bank  {json.dumps(tg, ensure_ascii=False)}")
            if len(want["turns"]) != len(got.get("turns", [])):
                print(f"  turn count: truth {len(want['turns'])}, bank {len(got.get('turns', []))}")
    if bad:
        print(f"FAIL: {bad} mismatch(es)")
        return 1
    print("OK: the bank holds exactly these truths")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Truths for the blind bank us_regional_sales_blind.jsonl.

Recomputes every expected number and name from the raw CSV with duckdb SQL,
asserts there are no ties at ranking cuts and no half-cent rounding edges, and
then either checks the bank file (default) or writes it (--jsonl OUT).

    python us_regional_sales_truths.py                 # check the bank next to this script
    python us_regional_sales_truths.py --bank FILE     # check another copy
    python us_regional_sales_truths.py --jsonl OUT     # (re)write the bank
    python us_regional_sales_truths.py --csv PATH      # use a CSV at another path

Conventions (see README_section.md):
  * one row = one order (OrderNumber is unique); orders = rows
  * dates are d/m/yy (e.g. 31/5/18 = May 31, 2018); periods use OrderDate
  * gross sales  = Order Quantity * Unit Price
  * net revenue  = Order Quantity * Unit Price * (1 - Discount Applied)   ("revenue"/"sales")
  * cost         = Order Quantity * Unit Cost ; profit = net revenue - cost
  * margin %     = profit / net revenue * 100
  * AOV          = net revenue / orders
  * units        = sum(Order Quantity); customers = distinct _CustomerID
  * recency is anchored on the file's latest OrderDate (December 30, 2020):
    "last N days" = OrderDate > latest - N days (N calendar days ending on it),
    "latest month" = December 2020, "this year" = 2020, "last quarter" = Q4 2020
  * money and ratios rounded to 2 decimals; percents as 12.34 meaning 12.34 %
"""
import argparse
import hashlib
import json
import os
import sys
from decimal import Decimal, ROUND_HALF_UP

import duckdb

HERE = os.path.dirname(os.path.abspath(__file__))
CSV = "/work/evaldata/us_regional_sales/US_Regional_Sales_Data.csv"
SHA256 = "6d88b9b0c411cb00fecdd52892bcbc69c345347ee1ddcf81f92ebbdc4fae3a77"
BANK = os.path.join(HERE, "us_regional_sales_blind.jsonl")
DATASET = "us_regional_sales"
PREFIX = "usrs"

ap = argparse.ArgumentParser()
ap.add_argument("--csv", default=CSV)
ap.add_argument("--bank", default=BANK)
ap.add_argument("--jsonl", help="write the bank to this path instead of checking")
args = ap.parse_args()

with open(args.csv, "rb") as fh:
    digest = hashlib.sha256(fh.read()).hexdigest()
assert digest == SHA256, f"CSV sha256 mismatch: {digest}"

con = duckdb.connect()
con.execute(
    "create table raw as select * from read_csv(?, header=true, all_varchar=true, delim=',', quote='\"')",
    [args.csv],
)
con.execute(
    """
create table t as select
  OrderNumber                                   as o,
  "Sales Channel"                               as ch,
  WarehouseCode                                 as wh,
  strptime(ProcuredDate, '%d/%m/%y')::date      as pd,
  strptime(OrderDate,    '%d/%m/%y')::date      as od,
  strptime(ShipDate,     '%d/%m/%y')::date      as sd,
  strptime(DeliveryDate, '%d/%m/%y')::date      as dd,
  _SalesTeamID::int                             as team,
  _CustomerID::int                              as cust,
  _StoreID::int                                 as store,
  _ProductID::int                               as prod,
  "Order Quantity"::int                         as q,
  "Discount Applied"::decimal(8,4)              as disc,
  replace("Unit Cost", ',', '')::decimal(14,3)  as uc,
  replace("Unit Price", ',', '')::decimal(14,3) as up
from raw"""
)
con.execute(
    """create view v as select *,
  q*up*(1-disc)        as net,
  q*up                 as gross,
  q*uc                 as cost,
  q*up*(1-disc) - q*uc as profit
from t"""
)

# ---- sanity on the file's shape -------------------------------------------
assert con.execute("select count(*), count(distinct o) from t").fetchone() == (7991, 7991)
assert con.execute("select count(*) from raw where CurrencyCode <> 'USD'").fetchone()[0] == 0
LATEST = con.execute("select max(od) from t").fetchone()[0]
assert str(LATEST) == "2020-12-30", LATEST
assert str(con.execute("select min(od) from t").fetchone()[0]) == "2018-05-31"


# ---- helpers ---------------------------------------------------------------
def one(sql):
    rows = con.execute(sql).fetchall()
    assert len(rows) == 1 and len(rows[0]) == 1, (sql, rows)
    return rows[0][0]


def r2(x):
    """Round to 2 decimals; refuse values sitting on a half-cent edge."""
    d = Decimal(str(x)) if not isinstance(x, Decimal) else x
    scaled = d * 100
    frac = abs(scaled - scaled.to_integral_value(rounding="ROUND_FLOOR"))
    assert abs(frac - Decimal("0.5")) > Decimal("0.0005"), f"half-cent edge: {d}"
    return float(d.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def money(sql):
    return r2(one(sql))


def pct(num, den):
    return r2(Decimal(str(num)) * 100 / Decimal(str(den)))


def ranked(sql, k=1):
    """sql returns (name, metric) ordered best first; assert no tie at the cut
    (between k-th and (k+1)-th) nor for first place."""
    rows = con.execute(sql).fetchall()
    assert len(rows) > k, (sql, rows)
    assert rows[k - 1][1] != rows[k][1], f"tie at cut {k}: {rows[: k + 1]}"
    assert rows[0][1] != rows[1][1], f"tie for first: {rows[:2]}"
    return rows


def dname(d):
    return f"{d:%B} {d.day}, {d.year}"


def nm(x):
    return str(x)


TOTAL_NET = one("select sum(net) from v")
TOTAL_ORDERS = one("select count(*) from v")

chats = []


def chat(*turns):
    chats.append(turns)


def T(q, category, **expect):
    return {"q": q, "category": category, "expect": expect}


# ---- 001 totals ------------------------------------------------------------
chat(
    T("whats our total gross sales in this file? (qty x unit price, before discounts)", "in_schema",
      numbers=[money("select sum(gross) from v")],
      note="sum(Order Quantity * Unit Price) over all 7,991 rows"),
    T("and the average order value, net of discount?", "in_schema",
      numbers=[r2(TOTAL_NET / TOTAL_ORDERS)],
      note="sum(qty*price*(1-discount)) / 7,991 orders (one row = one order)"),
)

# ---- 002 years -------------------------------------------------------------
n2020 = one("select sum(net) from v where year(od)=2020")
n2019 = one("select sum(net) from v where year(od)=2019")
chat(
    T("Net revenue for 2020 pls", "in_schema",
      numbers=[r2(n2020)], note="net revenue, OrderDate in 2020"),
    T("and 2018?", "follow_up",
      numbers=[money("select sum(net) from v where year(od)=2018")],
      note="net revenue, OrderDate in 2018 (file starts May 31, 2018)"),
    T("By how many % did net revenue grow from 2019 to 2020?", "in_schema",
      numbers=[r2((n2020 / n2019 - 1) * 100)],
      note="(net 2020 / net 2019 - 1) * 100"),
)

# ---- 003 customers ---------------------------------------------------------
top_c = ranked("select cust, sum(net) s from v group by 1 order by 2 desc", 3)
bot_c = ranked("select cust, sum(net) s from v group by 1 order by 2 asc", 3)
chat(
    T("Who are our top 3 customers by net revenue?", "in_schema",
      names=[nm(r[0]) for r in top_c[:3]], first=nm(top_c[0][0]),
      note="customers are _CustomerID values; ranked by net revenue"),
    T("what share of total net revenue does the #1 account for?", "in_schema",
      numbers=[pct(top_c[0][1], TOTAL_NET)],
      note=f"customer {top_c[0][0]} net revenue / total net revenue * 100"),
    T("bottom 3?", "follow_up",
      names=[nm(r[0]) for r in bot_c[:3]], first=nm(bot_c[0][0]),
      note="lowest 3 customers by net revenue, lowest first"),
)

# ---- 004 products ----------------------------------------------------------
top_p = ranked("select prod, sum(q) s from v group by 1 order by 2 desc", 1)
top_p20 = ranked("select prod, sum(q) s from v where year(od)=2020 group by 1 order by 2 desc", 1)
chat(
    T("which product ID sold the most units overall?", "in_schema",
      first=nm(top_p[0][0]), names=[nm(top_p[0][0])], numbers=[int(top_p[0][1])],
      note="sum(Order Quantity) by _ProductID"),
    T("what about just 2020?", "follow_up",
      first=nm(top_p20[0][0]), names=[nm(top_p20[0][0])], numbers=[int(top_p20[0][1])],
      note="same, OrderDate in 2020"),
)

# ---- 005 months ------------------------------------------------------------
MONTH = "strftime(od, '%B %Y')"
best_m = ranked(f"select {MONTH}, sum(net) s from v group by 1 order by 2 desc", 1)
worst_m19 = ranked(f"select {MONTH}, sum(net) s from v where year(od)=2019 group by 1 order by 2 asc", 1)
chat(
    T("best month ever for net revenue?", "in_schema",
      first=best_m[0][0], names=[best_m[0][0]], numbers=[r2(best_m[0][1])],
      note="calendar months by OrderDate, net revenue"),
    T("and the weakest month in 2019?", "follow_up",
      first=worst_m19[0][0], names=[worst_m19[0][0]], numbers=[r2(worst_m19[0][1])],
      note="lowest 2019 month by net revenue"),
)

# ---- 006 busiest day -------------------------------------------------------
busy = ranked("select od, count(*) s from v group by 1 order by 2 desc", 1)
bday = busy[0][0]
chat(
    T("What was our busiest single day by number of orders?", "in_schema",
      first=dname(bday), names=[dname(bday)], numbers=[int(busy[0][1])],
      note="orders (rows) per OrderDate"),
    T("how much net revenue came in that day?", "follow_up",
      numbers=[money(f"select sum(net) from v where od = DATE '{bday}'")],
      note=f"net revenue on {dname(bday)}"),
)

# ---- 007 order lookup ------------------------------------------------------
o_ch, o_q, o_net, o_profit, o_dd = con.execute(
    "select ch, q, net, profit, dd from v where o = 'SO - 000101'").fetchone()
chat(
    T("can you pull up order SO - 000101 — channel, qty and the net amount?", "in_schema",
      names=[o_ch], numbers=[o_q, r2(o_net)],
      note="row OrderNumber='SO - 000101': qty*price*(1-discount)"),
    T("what was the profit on it?", "follow_up",
      numbers=[r2(o_profit)],
      note="net amount - qty*Unit Cost"),
)

# ---- 008 ambiguous id 18 ---------------------------------------------------
cnts = con.execute("select count(*) filter (where cust=18), count(*) filter (where prod=18), "
                   "count(*) filter (where store=18), count(*) filter (where team=18) from t").fetchone()
assert all(c > 0 for c in cnts), cnts
ch18 = ranked("select ch, count(*) s from v where cust=18 group by 1 order by 2 desc", 1)
chat(
    T("how much did 18 bring in overall?", "in_schema",
      clarify=True, names=["customer", "product", "store", "sales team"],
      note="18 is a valid _CustomerID, _ProductID, _StoreID and _SalesTeamID; ask which"),
    T("sorry — customer 18. net revenue and # of orders", "follow_up",
      numbers=[money("select sum(net) from v where cust=18"), one("select count(*) from v where cust=18")],
      note="_CustomerID = 18"),
    T("which sales channel do they order through most?", "extra_columns",
      first=ch18[0][0], names=[ch18[0][0]], numbers=[int(ch18[0][1])],
      note="orders of customer 18 by Sales Channel"),
)

# ---- 009 channels ----------------------------------------------------------
chs = ranked("select ch, sum(net) s from v group by 1 order by 2 desc", 1)
mg = ranked("select ch, sum(profit)/sum(net) s from v group by 1 order by 2 desc", 1)
mg_low = ranked("select ch, sum(profit)/sum(net) s from v group by 1 order by 2 asc", 1)
chat(
    T("Break down net revenue by sales channel with each one's % of total", "extra_columns",
      first=chs[0][0], names=[r[0] for r in chs], numbers=[pct(r[1], TOTAL_NET) for r in chs],
      note="net revenue per Sales Channel / total net revenue"),
    T("which channel has the best profit margin?", "extra_columns",
      first=mg[0][0], names=[mg[0][0]], numbers=[r2(mg[0][1] * 100)],
      note="sum(profit)/sum(net revenue) per channel"),
    T("and the worst?", "follow_up",
      first=mg_low[0][0], names=[mg_low[0][0]], numbers=[r2(mg_low[0][1] * 100)],
      note="lowest channel margin"),
)

# ---- 010 warehouses --------------------------------------------------------
wh_hi = ranked("select wh, sum(q) s from v group by 1 order by 2 desc", 1)
wh_lo = ranked("select wh, sum(q) s from v group by 1 order by 2 asc", 1)
chat(
    T("which warehose moved the most units?", "extra_columns",
      first=wh_hi[0][0], names=[wh_hi[0][0]], numbers=[int(wh_hi[0][1])],
      note="sum(Order Quantity) by WarehouseCode"),
    T("fewest?", "follow_up",
      first=wh_lo[0][0], names=[wh_lo[0][0]], numbers=[int(wh_lo[0][1])],
      note="lowest WarehouseCode by units"),
)

# ---- 011 discounts ---------------------------------------------------------
disc_ch = ranked("select ch, avg(disc) s from v group by 1 order by 2 desc", 1)
chat(
    T("how many orders got the 40% discount?", "extra_columns",
      numbers=[one("select count(*) from v where disc = 0.4")],
      note="Discount Applied = 0.4"),
    T("which channel hands out the deepest discounts on average?", "extra_columns",
      first=disc_ch[0][0], names=[disc_ch[0][0]], numbers=[r2(disc_ch[0][1] * 100)],
      note="simple mean of Discount Applied per order, by channel"),
)

# ---- 012 profit ------------------------------------------------------------
p2020 = one("select sum(profit) from v where year(od)=2020")
p2019 = one("select sum(profit) from v where year(od)=2019")
chat(
    T("total profit for 2020? (net revenue minus qty × unit cost)", "extra_columns",
      numbers=[r2(p2020)], note="sum(net - qty*Unit Cost), OrderDate in 2020"),
    T("as a margin %?", "follow_up",
      numbers=[pct(p2020, n2020)], note="2020 profit / 2020 net revenue"),
)

# ---- 013 lead times --------------------------------------------------------
ship_ch = ranked("select ch, avg(sd - od) s from v group by 1 order by 2 asc", 1)
chat(
    T("on avg how many days between order date and ship date?", "extra_columns",
      numbers=[r2(one("select avg(sd - od) from v"))],
      note="mean(ShipDate - OrderDate) in days over all orders"),
    T("Which sales channel ships fastest by that measure?", "extra_columns",
      first=ship_ch[0][0], names=[ship_ch[0][0]], numbers=[r2(ship_ch[0][1])],
      note="lowest mean ShipDate - OrderDate by channel"),
)

# ---- 014 sales team --------------------------------------------------------
team = ranked("select team, sum(net) s from v group by 1 order by 2 desc", 1)
tid = team[0][0]
chat(
    T("which sales team brought in the most net revenue?", "extra_columns",
      first=nm(tid), names=[nm(tid)], numbers=[r2(team[0][1])],
      note="net revenue by _SalesTeamID"),
    T("how many orders did that team handle in 2020?", "extra_columns",
      numbers=[one(f"select count(*) from v where team={tid} and year(od)=2020")],
      note=f"_SalesTeamID {tid}, OrderDate in 2020"),
)

# ---- 015 exclusion + latest month -----------------------------------------
dec = one("select sum(net) from v where od >= DATE '2020-12-01'")
nov = one("select sum(net) from v where od >= DATE '2020-11-01' and od < DATE '2020-12-01'")
assert str(LATEST)[:7] == "2020-12"
chat(
    T("net revenue for everything except In-Store?", "negation_recency",
      numbers=[money("select sum(net) from v where ch <> 'In-Store'")],
      note="all channels but In-Store"),
    T("what were net sales in the latest month we have data for?", "negation_recency",
      names=["December 2020"], numbers=[r2(dec)],
      note="latest month of OrderDate = December 2020 (data ends Dec 30, 2020)"),
    T("how does that compare with the month before, in %?", "follow_up",
      numbers=[r2((dec / nov - 1) * 100)],
      note="(Dec 2020 / Nov 2020 - 1) * 100"),
)

# ---- 016 last 7 days / this year ------------------------------------------
units_2020 = one("select sum(q) from v where year(od)=2020")
chat(
    T("how many orders came in over the last 7 days of the data?", "negation_recency",
      numbers=[one(f"select count(*) from v where od > DATE '{LATEST}' - INTERVAL 7 DAY")],
      note="OrderDate Dec 24-30, 2020 (7 days ending at the file's latest date)"),
    T("units sold so far this year?", "negation_recency",
      numbers=[int(units_2020)],
      note="'this year' = 2020, the year of the file's latest OrderDate"),
    T("not counting online?", "negation_recency",
      numbers=[one("select sum(q) from v where year(od)=2020 and ch <> 'Online'")],
      note="2020 units, Sales Channel <> Online"),
)

# ---- 017 outside Q4 / last 30 days ----------------------------------------
chat(
    T("how many 2019 orders fell outside Q4?", "negation_recency",
      numbers=[one("select count(*) from v where year(od)=2019 and quarter(od) <> 4")],
      note="2019 orders in Jan-Sep"),
    T("net revenue and order count for the last 30 days in the data?", "negation_recency",
      numbers=[money(f"select sum(net) from v where od > DATE '{LATEST}' - INTERVAL 30 DAY"),
               one(f"select count(*) from v where od > DATE '{LATEST}' - INTERVAL 30 DAY")],
      note="OrderDate Dec 1-30, 2020 (30 days ending Dec 30, 2020)"),
)

# ---- 018 except warehouse / last quarter -----------------------------------
q4ch = ranked("select ch, sum(net) s from v where year(od)=2020 and quarter(od)=4 group by 1 order by 2 desc", 1)
chat(
    T("total units across all warehouses except WARE-NMK1003?", "negation_recency",
      numbers=[one("select sum(q) from v where wh <> 'WARE-NMK1003'")],
      note="sum(Order Quantity) where WarehouseCode <> WARE-NMK1003"),
    T("last quarter in the file — which channel led on net revenue?", "negation_recency",
      first=q4ch[0][0], names=[q4ch[0][0]], numbers=[r2(q4ch[0][1])],
      note="last quarter = Q4 2020 (Oct-Dec 2020)"),
)

# ---- 019 Sam / wholesale ---------------------------------------------------
q019 = "Hi, I'm Sam, I run the wholesale channel. How many wholesale orders did we have in 2019?"
chat(
    T(q019, "extra_columns",
      numbers=[one("select count(*) from v where ch='Wholesale' and year(od)=2019")],
      note="Sales Channel = Wholesale, OrderDate in 2019"),
    T("and what was their net revenue that year?", "follow_up",
      numbers=[money("select sum(net) from v where ch='Wholesale' and year(od)=2019")],
      note="Wholesale net revenue 2019"),
    T("remind me, which channel did I say I run?", "conversation",
      names=["Wholesale"], note="user stated it in turn 1"),
    T("what was the very first thing I asked you?", "conversation",
      names=[q019], note="turn 1 text"),
)

# ---- 020 customer 29 -------------------------------------------------------
u29 = one("select sum(q) from v where cust=29 and year(od)=2020")
wh29 = ranked("select wh, count(*) s from v where cust=29 and year(od)=2020 group by 1 order by 2 desc", 1)
chat(
    T("how many units did customer 29 buy in 2020?", "in_schema",
      numbers=[int(u29)], note="_CustomerID 29, OrderDate 2020"),
    T("which warehouse shipped most of their orders that year?", "extra_columns",
      first=wh29[0][0], names=[wh29[0][0]], numbers=[int(wh29[0][1])],
      note="orders of customer 29 in 2020 by WarehouseCode"),
    T("which customer were we talking about?", "conversation",
      names=["29"], note="customer 29 from turn 1"),
    T("what unit number did you give me earlier?", "conversation",
      numbers=[int(u29)], note="figure from turn 1"),
)

# ---- 021 unanswerable ------------------------------------------------------
q021 = "which region or state sells the most for us?"
chat(
    T(q021, "unanswerable", decline=True,
      note="this file has no region/state/city column (only warehouse/store/customer IDs)"),
    T("whats the actual company name of customer 12?", "unanswerable", decline=True,
      note="customers appear only as _CustomerID numbers; no names in the file"),
    T("what was my first question in this chat?", "conversation",
      names=[q021], note="turn 1 text"),
)

# ---- 022 weather + spring --------------------------------------------------
q022 = "did rainy weather hurt our sales in spring 2019?"
chat(
    T(q022, "unanswerable", decline=True, note="no weather data in the file"),
    T("ok fine — just give me net revenue for Mar–May 2019 then", "in_schema",
      numbers=[money("select sum(net) from v where od >= DATE '2019-03-01' and od < DATE '2019-06-01'")],
      note="OrderDate March 1 - May 31, 2019"),
    T("what did I ask right before that?", "conversation",
      names=[q022], note="turn 1 text"),
)

# ---- 023 ambiguous May -----------------------------------------------------
mays = con.execute("select year(od), sum(q) from v where month(od)=5 group by 1 order by 1").fetchall()
assert [y for y, _ in mays] == [2018, 2019, 2020], mays
u_may19 = dict(mays)[2019]
chat(
    T("how many units did we sell in May?", "in_schema",
      clarify=True, names=["May 2018", "May 2019", "May 2020"],
      note="May occurs in 2018 (one day), 2019 and 2020; ask which"),
    T("2019", "follow_up", numbers=[int(u_may19)], note="units, OrderDate in May 2019"),
    T("what exactly will May 2021 net revenue be?", "unanswerable", decline=True,
      note="future value; data ends Dec 30, 2020"),
    T("what figure did you give me for May 2019?", "conversation",
      numbers=[int(u_may19)], note="turn 2 figure"),
)

# ---- 024 order shares ------------------------------------------------------
sh_dist = pct(one("select count(*) from v where ch='Distributor'"), TOTAL_ORDERS)
chat(
    T("what share of orders go through Distributor?", "extra_columns",
      numbers=[sh_dist], note="Distributor orders / all 7,991 orders"),
    T("and online?", "follow_up",
      numbers=[pct(one("select count(*) from v where ch='Online'"), TOTAL_ORDERS)],
      note="Online orders / all orders"),
    T("what % did you say for distributor?", "conversation",
      numbers=[sh_dist], note="figure from turn 1"),
)

# ---- 025 christmas ---------------------------------------------------------
chat(
    T("net revenue on christmas day 2019?", "in_schema",
      numbers=[money("select sum(net) from v where od = DATE '2019-12-25'")],
      note="OrderDate December 25, 2019"),
    T("and xmas 2020?", "follow_up",
      numbers=[money("select sum(net) from v where od = DATE '2020-12-25'")],
      note="OrderDate December 25, 2020"),
    T("how much did we spend on marketing that month?", "unanswerable", decline=True,
      note="no marketing spend in the file"),
)

# ---- build the bank --------------------------------------------------------
KEY_ORDER = ["numbers", "names", "first", "decline", "clarify", "note"]
lines = []
for i, turns in enumerate(chats, 1):
    out_turns = []
    for t in turns:
        e = {k: t["expect"][k] for k in KEY_ORDER if k in t["expect"]}
        assert set(e) == set(t["expect"]), t
        out_turns.append({"q": t["q"], "category": t["category"], "expect": e})
    lines.append(json.dumps({"chat": f"{PREFIX}-{i:03d}", "dataset": DATASET, "turns": out_turns},
                            ensure_ascii=False))
n_turns = sum(len(c) for c in chats)

if args.jsonl:
    with open(args.jsonl, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    print(f"wrote {args.jsonl}: {len(chats)} chats, {n_turns} turns")
    sys.exit(0)

with open(args.bank, encoding="utf-8") as fh:
    have = [json.loads(l) for l in fh if l.strip()]
want = [json.loads(l) for l in lines]
bad = 0
if len(have) != len(want):
    print(f"chat count differs: bank {len(have)} vs truths {len(want)}")
    bad += 1
for h, w in zip(have, want):
    if h != w:
        bad += 1
        print(f"MISMATCH {w['chat']}")
        for ht, wt in zip(h.get("turns", []), w["turns"]):
            if ht != wt:
                print("  bank  :", json.dumps(ht, ensure_ascii=False))
                print("  truths:", json.dumps(wt, ensure_ascii=False))
if bad:
    print(f"FAIL: {bad} chats differ")
    sys.exit(1)
print(f"OK: {len(want)} chats, {n_turns} turns match the truths")

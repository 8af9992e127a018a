#!/usr/bin/env python3
"""Truths for pizza_sales_blind.jsonl (blind bank on the Kaggle "Pizza Sales" CSV, 2015).

Standalone: needs only duckdb (`pip install duckdb`).

    python pizza_sales_truths.py /work/evaldata/pizza_sales/pizza_sales.csv                  # print + check the bank
    python pizza_sales_truths.py /work/evaldata/pizza_sales/pizza_sales.csv --jsonl out.jsonl # regenerate the bank

Every number, name and `first` in the bank is computed here with SQL from the CSV and the bank file
next to this script is asserted to be equal to what is computed. Rankings are checked for ties at the cut.

Conventions:
  revenue = SUM(total_price); orders = COUNT(DISTINCT order_id); units = SUM(quantity);
  AOV = revenue / orders; share = part / whole * 100; growth = (new - old) / old * 100.
  order_date is d-m-Y with zero padding ("13-01-2015" = 13 January 2015); every row is in 2015.
  Pizzas are grouped by pizza_name (one name covers several sizes); a size is pizza_size (S, M, L, XL, XXL).
  Recency is relative to the LATEST order_date in the file (2015-12-31), never to today's date:
  "most recent month" = December 2015; "this quarter" = Q4 2015, "last quarter" = Q3 2015;
  "last N days" = the N calendar days ending on the latest date (order_date > latest - N).
  Hours are the hour of order_time; time windows are half-open ([11:00, 14:00) etc.).
  Ingredient matches are case-insensitive substring matches on pizza_ingredients.
  Numbers are rounded half-up to 2 decimals; percents are written as 12.34 (= 12.34 %).
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import duckdb

BANK = Path(__file__).with_name("pizza_sales_blind.jsonl")
DATASET = "pizza_sales"

con: duckdb.DuckDBPyConnection


def setup(csv_path: str) -> None:
    global con
    con = duckdb.connect()
    con.execute(
        f"""
        CREATE VIEW p AS
        SELECT CAST(pizza_id AS INTEGER) AS pizza_id,
               CAST(order_id AS INTEGER) AS order_id,
               pizza_name_id,
               CAST(quantity AS INTEGER) AS quantity,
               CAST(strptime(order_date, '%d-%m-%Y') AS DATE) AS d,
               CAST(order_time AS TIME) AS t,
               CAST(unit_price AS DECIMAL(10, 2)) AS unit_price,
               CAST(total_price AS DECIMAL(12, 2)) AS total_price,
               pizza_size, pizza_category, pizza_ingredients, pizza_name
        FROM read_csv('{csv_path}', header = true, all_varchar = true)
        """
    )
    n, bad_total, years = con.execute(
        "SELECT count(*), count(*) FILTER (WHERE total_price <> unit_price * quantity), "
        "list(DISTINCT year(d)) FROM p"
    ).fetchone()
    assert n == 48620, n
    assert bad_total == 0, bad_total
    assert years == [2015], years


# ---------------------------------------------------------------- helpers
def one(sql: str):
    row = con.execute(sql).fetchone()
    assert row is not None and len(row) == 1, sql
    return row[0]


def r2(x) -> float:
    return float(Decimal(str(x)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def ratio(a, b, scale=1) -> float:
    return r2(Decimal(str(a)) * scale / Decimal(str(b)))


def pct(part, whole) -> float:
    return ratio(part, whole, 100)


def growth(new, old) -> float:
    return r2((Decimal(str(new)) - Decimal(str(old))) * 100 / Decimal(str(old)))


def ranked(sql: str, n: int) -> list[tuple]:
    """sql returns (key, value) ordered by the ranking. Returns the first n rows.
    Asserts no tie at first place and none at the cut (n-th vs n+1-th)."""
    rows = con.execute(sql).fetchall()
    assert len(rows) > n, (sql, rows)
    assert rows[0][1] != rows[1][1], ("tie at first place", sql, rows[:3])
    assert rows[n - 1][1] != rows[n][1], ("tie at cut", sql, rows[n - 1 : n + 1])
    return rows[:n]


def long_date(d: dt.date) -> str:
    return f"{d.strftime('%B')} {d.day}, {d.year}"


REV = "SUM(total_price)"
ORD = "COUNT(DISTINCT order_id)"
UNITS = "SUM(quantity)"
MAXD = "(SELECT max(d) FROM p)"


def E(numbers=None, names=None, first=None, decline=None, clarify=None, note=None) -> dict:
    e: dict = {}
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
    if note:
        e["note"] = note
    return e


def T(q: str, category: str, expect: dict) -> dict:
    return {"q": q, "category": category, "expect": expect}


# ---------------------------------------------------------------- the bank
def build() -> list[dict]:
    chats: list[dict] = []

    def chat(turns: list[dict]) -> None:
        chats.append({"chat": f"pz-{len(chats) + 1:03d}", "dataset": DATASET, "turns": turns})

    total_rev = one(f"SELECT {REV} FROM p")
    total_ord = one(f"SELECT {ORD} FROM p")
    total_units = one(f"SELECT {UNITS} FROM p")
    max_d = one("SELECT max(d) FROM p")
    assert max_d == dt.date(2015, 12, 31), max_d
    assert one("SELECT count(*) FROM p WHERE d = DATE '2015-12-25'") == 0  # stated in two notes
    assert one("SELECT count(DISTINCT pizza_size) FROM p WHERE pizza_name = 'The Brie Carre Pizza'") == 1

    def month_rev(m):
        return one(f"SELECT {REV} FROM p WHERE month(d) = {m}")

    def month_units(m):
        return one(f"SELECT {UNITS} FROM p WHERE month(d) = {m}")

    # pz-001 overview ------------------------------------------------------
    q1 = "hi! what was our total revenue for 2015?"
    chat([
        T(q1, "in_schema", E(numbers=[r2(total_rev)], note="SUM(total_price) over all 48,620 rows (all of 2015).")),
        T("How many orders did we take over the year, and what was the avg order value?", "in_schema",
          E(numbers=[total_ord, ratio(total_rev, total_ord)],
            note="orders = COUNT(DISTINCT order_id); AOV = revenue / orders.")),
        T("sorry, what was the first thing I asked you?", "conversation",
          E(names=[q1], note="The user's first question (total revenue for 2015).")),
    ])

    # pz-002 Q3 review -------------------------------------------------------
    jul, aug = month_rev(7), month_rev(8)
    size_q3 = ranked(f"SELECT pizza_size, {REV} r FROM p WHERE quarter(d) = 3 GROUP BY 1 ORDER BY r DESC", 4)
    size_q3_all = con.execute(
        f"SELECT pizza_size, {REV} r FROM p WHERE quarter(d) = 3 GROUP BY 1 ORDER BY r DESC").fetchall()
    chat([
        T("Prepping the Q3 review. what was rev in July?", "in_schema",
          E(numbers=[r2(jul)], names=["July"], note="Revenue 2015-07-01..2015-07-31.")),
        T("and august?", "follow_up", E(numbers=[r2(aug)], note="Revenue in August 2015.")),
        T("MoM change in %?", "follow_up",
          E(numbers=[growth(aug, jul)], note="(Aug - Jul) / Jul * 100; negative = a fall.")),
        T("ok now break the whole quarter down by pizza size", "follow_up",
          E(numbers=[r2(v) for _, v in size_q3_all], names=[k for k, _ in size_q3_all], first=size_q3[0][0],
            note="Q3 2015 (Jul-Sep) revenue by pizza_size, largest first.")),
        T("what figure did you give me for July again?", "conversation",
          E(numbers=[r2(jul)], note="July revenue from the first answer.")),
    ])

    # pz-003 top pizzas -----------------------------------------------------
    top3 = ranked(f"SELECT pizza_name, {REV} r FROM p GROUP BY 1 ORDER BY r DESC", 3)
    worst_units = ranked(f"SELECT pizza_name, {UNITS} u FROM p GROUP BY 1 ORDER BY u ASC", 1)[0]
    worst_rev = one(f"SELECT {REV} FROM p WHERE pizza_name = '{worst_units[0]}'")
    chat([
        T("Which 3 pizzas made the most money in 2015?", "in_schema",
          E(names=[k for k, _ in top3], numbers=[r2(v) for _, v in top3], first=top3[0][0],
            note="Revenue by pizza_name, top 3 (4th is well below).")),
        T("whats the worst seller by number of pizzas sold", "in_schema",
          E(names=[worst_units[0]], numbers=[worst_units[1]],
            note="Units by pizza_name, lowest. It is sold in size S only.")),
        T("what share of total revenue does it account for", "follow_up",
          E(numbers=[pct(worst_rev, total_rev)], note=f"{worst_units[0]} revenue / total revenue * 100.")),
    ])

    # pz-004 categories -----------------------------------------------------
    cat_rev = ranked(f"SELECT pizza_category, {REV} r FROM p GROUP BY 1 ORDER BY r DESC", 3)
    cat_rev_all = con.execute(f"SELECT pizza_category, {REV} r FROM p GROUP BY 1 ORDER BY r DESC").fetchall()
    cat_units_all = con.execute(f"SELECT pizza_category, {UNITS} u FROM p GROUP BY 1 ORDER BY u DESC").fetchall()
    ranked(f"SELECT pizza_category, {UNITS} u FROM p GROUP BY 1 ORDER BY u DESC", 3)
    classic_rev = one(f"SELECT {REV} FROM p WHERE pizza_category = 'Classic'")
    chat([
        T("Revenue by pizza category please", "extra_columns",
          E(names=[k for k, _ in cat_rev_all], numbers=[r2(v) for _, v in cat_rev_all], first=cat_rev[0][0],
            note="SUM(total_price) by pizza_category.")),
        T("same thing but units", "follow_up",
          E(names=[k for k, _ in cat_units_all], numbers=[v for _, v in cat_units_all], first=cat_units_all[0][0],
            note="SUM(quantity) by pizza_category.")),
        T("What's total revenue if we exclude the Classic category?", "negation_recency",
          E(numbers=[r2(one(f"SELECT {REV} FROM p WHERE pizza_category <> 'Classic'"))],
            note="Revenue where pizza_category <> 'Classic'.")),
        T("remind me which category you said was the biggest earner", "conversation",
          E(names=[cat_rev[0][0]], numbers=[r2(classic_rev)], note="From the first answer in this chat.")),
    ])

    # pz-005 hours -----------------------------------------------------------
    top_hour = ranked(f"SELECT hour(t), {ORD} o FROM p GROUP BY 1 ORDER BY o DESC", 1)[0]
    lunch = "t >= TIME '11:00:00' AND t < TIME '14:00:00'"
    dinner = "t >= TIME '17:00:00' AND t < TIME '21:00:00'"
    late_orders = one(f"SELECT {ORD} FROM p WHERE t >= TIME '21:00:00'")
    assert one(f"SELECT {ORD} FROM p WHERE t = TIME '14:00:00'") == 2  # stated in the note
    chat([
        T("which hour of the day do we get the most orders in?", "extra_columns",
          E(names=[str(top_hour[0])], numbers=[top_hour[1]],
            note=f"Orders by hour(order_time): hour {top_hour[0]} ({top_hour[0]}:00-{top_hour[0]}:59).")),
        T("Lunch vs dinner revenue? Lunch = 11:00-13:59, dinner = 17:00-20:59.", "extra_columns",
          E(numbers=[r2(one(f"SELECT {REV} FROM p WHERE {lunch}")), r2(one(f"SELECT {REV} FROM p WHERE {dinner}"))],
            note="Lunch [11:00,14:00), dinner [17:00,21:00) on order_time (2 orders at exactly 14:00:00 are outside lunch).")),
        T("what percent of orders come in at 9pm or later?", "extra_columns",
          E(numbers=[pct(late_orders, total_ord)],
            note=f"Orders with order_time >= 21:00 ({late_orders}) / all orders * 100.")),
    ])

    # pz-006 ingredients ------------------------------------------------------
    assert one("SELECT count(DISTINCT pizza_name) FROM p WHERE pizza_ingredients ILIKE '%mushroom%'") == 7
    n_garlic = one("SELECT count(DISTINCT pizza_name) FROM p WHERE pizza_ingredients ILIKE '%garlic%'")
    chat([
        T("how much revenue came from pizzas that have mushrooms on them?", "extra_columns",
          E(numbers=[r2(one(f"SELECT {REV} FROM p WHERE pizza_ingredients ILIKE '%mushroom%'"))],
            note="Revenue where pizza_ingredients contains 'Mushrooms' (7 pizzas).")),
        T("how many different pizzas on the menu contain garlic", "extra_columns",
          E(numbers=[n_garlic], note="COUNT(DISTINCT pizza_name) whose ingredients contain 'Garlic' (sizes not counted separately).")),
        T("and how many pizzas did we sell that DON'T have pepperoni", "negation_recency",
          E(numbers=[one(f"SELECT {UNITS} FROM p WHERE pizza_ingredients NOT ILIKE '%pepperoni%'")],
            note="Units where pizza_ingredients does not contain 'Pepperoni'.")),
    ])

    # pz-007 recency -----------------------------------------------------------
    dec_rev, dec_ord = con.execute(f"SELECT {REV}, {ORD} FROM p WHERE month(d) = 12").fetchone()
    l30_rev, l30_ord = con.execute(f"SELECT {REV}, {ORD} FROM p WHERE d > {MAXD} - 30").fetchone()
    q4 = one(f"SELECT {REV} FROM p WHERE quarter(d) = 4")
    q3 = one(f"SELECT {REV} FROM p WHERE quarter(d) = 3")
    chat([
        T("How did we do in the most recent month in the data? rev + orders", "negation_recency",
          E(numbers=[r2(dec_rev), dec_ord], names=["December"],
            note="Latest date is 2015-12-31, so the most recent month is December 2015.")),
        T("what about the last 30 days?", "negation_recency",
          E(numbers=[r2(l30_rev), l30_ord],
            note="order_date > 2015-12-31 - 30, i.e. 2015-12-02..2015-12-31 (Dec 25 has no sales).")),
        T("this quarter vs last quarter - rev growth %?", "negation_recency",
          E(numbers=[growth(q4, q3), r2(q4), r2(q3)],
            note="This quarter = Q4 2015 (latest date 2015-12-31), last = Q3 2015; (Q4 - Q3) / Q3 * 100.")),
    ])

    # pz-008 days -------------------------------------------------------------
    best_day = ranked(f"SELECT d, {REV} r FROM p GROUP BY 1 ORDER BY r DESC", 1)[0]
    j4_rev, j4_ord = con.execute(f"SELECT {REV}, {ORD} FROM p WHERE d = DATE '2015-07-04'").fetchone()
    best_wd = ranked(f"SELECT dayname(d), {REV} r FROM p GROUP BY 1 ORDER BY r DESC", 1)[0]
    chat([
        T("what was our single best day for revenue in 2015?", "in_schema",
          E(names=[long_date(best_day[0])], numbers=[r2(best_day[1])],
            note=f"Revenue by order_date, highest: {best_day[0].isoformat()}.")),
        T("revenue on the 4th of july?", "in_schema",
          E(numbers=[r2(j4_rev)], note="order_date = 2015-07-04.")),
        T("how many orders that day?", "follow_up", E(numbers=[j4_ord], note="Distinct orders on 2015-07-04.")),
        T("which day of the week brings in the most revnue overall?", "in_schema",
          E(names=[best_wd[0]], numbers=[r2(best_wd[1])], first=best_wd[0],
            note="Revenue by weekday of order_date, whole year.")),
    ])

    # pz-009 manager + target -------------------------------------------------
    months = con.execute(f"SELECT month(d) m, {REV} r FROM p GROUP BY 1 ORDER BY 1").fetchall()
    hit = [dt.date(2015, m, 1).strftime("%B") for m, r in months if r >= 70000]
    worst_m = ranked(f"SELECT month(d), {REV} r FROM p GROUP BY 1 ORDER BY r ASC", 1)[0]
    chat([
        T("I'm the manager of the shop - remember our target is 70k revenue a month. which months in 2015 hit it?",
          "in_schema",
          E(names=hit, numbers=[r2(r) for m, r in months if r >= 70000],
            note="Months with revenue >= 70,000.")),
        T("how far short was the worst month?", "follow_up",
          E(names=[dt.date(2015, worst_m[0], 1).strftime("%B")], numbers=[r2(70000 - worst_m[1]), r2(worst_m[1])],
            note="Lowest month by revenue; shortfall = 70,000 - its revenue.")),
        T("what target did I mention?", "conversation", E(numbers=[70000], note="The user said 70k a month.")),
        T("and what's my role, did I tell you?", "conversation", E(names=["manager"], note="The user said they manage the shop.")),
    ])

    # pz-010 delivery / customers ----------------------------------------------
    chat([
        T("what's our average delivery time?", "unanswerable",
          E(decline=True, note="No delivery or dispatch times; only order date and time.")),
        T("which customer ordered the most pizzas this year?", "unanswerable",
          E(decline=True, note="No customer column; order_id is not a customer.")),
        T("ok then, on average how many pizzas are in an order?", "in_schema",
          E(numbers=[ratio(total_units, total_ord)], note="units / distinct orders.")),
    ])

    # pz-011 profit ----------------------------------------------------------
    thai_rev, thai_units = con.execute(
        f"SELECT {REV}, {UNITS} FROM p WHERE pizza_name = 'The Thai Chicken Pizza'").fetchone()
    chat([
        T("what was the profit margin on the Thai Chicken pizza?", "unanswerable",
          E(decline=True, note="No cost or profit column.")),
        T("fine. whats its average selling price per pizza then", "follow_up",
          E(numbers=[ratio(thai_rev, thai_units)], note="The Thai Chicken Pizza revenue / units (all sizes).")),
    ])

    # pz-012 staff / weather ---------------------------------------------------
    chat([
        T("Which staff member took the most orders in December?", "unanswerable",
          E(decline=True, note="No staff column.")),
        T("did rainy days hurt our sales?", "unanswerable", E(decline=True, note="No weather data.")),
        T("ok. how many large pizzas did we sell in december then?", "extra_columns",
          E(numbers=[one(f"SELECT {UNITS} FROM p WHERE month(d) = 12 AND pizza_size = 'L'")],
            note="Units, pizza_size = 'L', December 2015.")),
    ])

    # pz-013 price / clarify -----------------------------------------------------
    haw = con.execute(
        "SELECT pizza_size, any_value(unit_price) FROM p WHERE pizza_name = 'The Hawaiian Pizza' "
        "GROUP BY 1 ORDER BY 2").fetchall()
    assert [s for s, _ in haw] == ["S", "M", "L"], haw
    for s, _ in haw:
        assert one(f"SELECT count(DISTINCT unit_price) FROM p WHERE pizza_name = 'The Hawaiian Pizza' AND pizza_size = '{s}'") == 1
    dear = ranked("SELECT pizza_name || ' (' || pizza_size || ')', max(unit_price) u FROM p GROUP BY 1 ORDER BY u DESC", 1)[0]
    chat([
        T("how much is the hawaiian pizza?", "extra_columns",
          E(clarify=True, names=[s for s, _ in haw],
            note="The Hawaiian Pizza has 3 sizes with 3 unit prices: "
                 + ", ".join(f"{s} {v}" for s, v in haw) + ".")),
        T("the large", "follow_up",
          E(numbers=[r2(dict(haw)["L"])], note="unit_price of hawaiian_l.")),
        T("whats the most expensive pizza we sell, by unit price?", "extra_columns",
          E(names=["The Greek Pizza", "XXL"], numbers=[r2(dear[1])], note="Highest unit_price: The Greek Pizza, size XXL.")),
    ])

    # pz-014 size exclusions -----------------------------------------------------
    chat([
        T("revenue from everything except size L?", "negation_recency",
          E(numbers=[r2(one(f"SELECT {REV} FROM p WHERE pizza_size <> 'L'"))], note="pizza_size <> 'L'.")),
        T("and just the large ones?", "follow_up",
          E(numbers=[r2(one(f"SELECT {REV} FROM p WHERE pizza_size = 'L'"))], note="pizza_size = 'L'.")),
    ])

    # pz-015 quarters ------------------------------------------------------------
    qs = con.execute(f"SELECT quarter(d), {REV} FROM p GROUP BY 1 ORDER BY 1").fetchall()
    q_ord = ranked(f"SELECT quarter(d), {ORD} o FROM p GROUP BY 1 ORDER BY o DESC", 1)[0]
    chat([
        T("qtr by qtr revenue for 2015 pls", "in_schema",
          E(names=["Q1", "Q2", "Q3", "Q4"], numbers=[r2(v) for _, v in qs], note="Revenue by calendar quarter.")),
        T("Which quarter had the most orders?", "in_schema",
          E(names=[f"Q{q_ord[0]}"], numbers=[q_ord[1]], first=f"Q{q_ord[0]}",
            note="Distinct orders by quarter; Q3 leads on orders though Q2 leads on revenue.")),
        T("what did you say Q1 revenue was?", "conversation", E(numbers=[r2(qs[0][1])], note="From the first answer.")),
    ])

    # pz-016 share / bottom -------------------------------------------------------
    cd_rev = one(f"SELECT {REV} FROM p WHERE pizza_name = 'The Classic Deluxe Pizza'")
    bottom3 = ranked(f"SELECT pizza_name, {REV} r FROM p GROUP BY 1 ORDER BY r ASC", 3)
    chat([
        T("what % of total revenue did the Classic Deluxe make up?", "in_schema",
          E(numbers=[pct(cd_rev, total_rev)], names=["The Classic Deluxe Pizza"],
            note="The Classic Deluxe Pizza revenue / total * 100.")),
        T("Bottom 3 pizzas by revenue?", "in_schema",
          E(names=[k for k, _ in bottom3], numbers=[r2(v) for _, v in bottom3], first=bottom3[0][0],
            note="Revenue by pizza_name, lowest first.")),
        T("which pizza did I ask about at the start?", "conversation",
          E(names=["The Classic Deluxe Pizza"], note="The first question was about the Classic Deluxe.")),
    ])

    # pz-017 unit price, hours x size, category share ----------------------------
    big_hour = ranked(f"SELECT hour(t), {REV} r FROM p WHERE pizza_size = 'L' GROUP BY 1 ORDER BY r DESC", 1)[0]
    veg_rev = one(f"SELECT {REV} FROM p WHERE pizza_category = 'Veggie'")
    chat([
        T("how many pizzas priced over $20 did we sell?", "extra_columns",
          E(numbers=[one(f"SELECT {UNITS} FROM p WHERE unit_price > 20")], note="Units with unit_price > 20.00.")),
        T("For large pizzas specifically, which hour brings in the most revenue?", "extra_columns",
          E(names=[str(big_hour[0])], numbers=[r2(big_hour[1])],
            note=f"pizza_size = 'L', revenue by hour(order_time): hour {big_hour[0]}.")),
        T("What % of our revenue comes from Veggie pizzas?", "extra_columns",
          E(numbers=[pct(veg_rev, total_rev)], note="pizza_category = 'Veggie' revenue / total * 100.")),
    ])

    # pz-018 feb / march ------------------------------------------------------------
    chat([
        T("units sold in febuary?", "in_schema", E(numbers=[month_units(2)], note="SUM(quantity), February 2015.")),
        T("and in March?", "follow_up", E(numbers=[month_units(3)], note="SUM(quantity), March 2015.")),
        T("which month did I ask about first?", "conversation", E(names=["February"], note="The first question was February.")),
    ])

    # pz-019 AOV november -----------------------------------------------------------
    nov_rev, nov_ord = con.execute(f"SELECT {REV}, {ORD} FROM p WHERE month(d) = 11").fetchone()
    nov_size = ranked(f"SELECT pizza_size, {UNITS} u FROM p WHERE month(d) = 11 GROUP BY 1 ORDER BY u DESC", 1)[0]
    chat([
        T("Looking at November - what was the average order value?", "in_schema",
          E(numbers=[ratio(nov_rev, nov_ord)], note="November revenue / November distinct orders.")),
        T("in November which pizza size sold the most units?", "extra_columns",
          E(names=[nov_size[0]], numbers=[nov_size[1]], first=nov_size[0], note="Units by pizza_size, November 2015.")),
    ])

    # pz-020 chicken sizes / veggie excl small ------------------------------------
    chk = con.execute(
        f"SELECT pizza_size, {REV} r FROM p WHERE pizza_category = 'Chicken' GROUP BY 1 ORDER BY r DESC").fetchall()
    assert [s for s, _ in chk] == ["L", "M", "S"], chk
    chat([
        T("For the Chicken category, revenue split by size?", "extra_columns",
          E(names=[s for s, _ in chk], numbers=[r2(v) for _, v in chk], first=chk[0][0],
            note="pizza_category = 'Chicken', revenue by pizza_size (only S, M, L exist).")),
        T("Veggie pizzas excluding the small ones - how many units?", "negation_recency",
          E(numbers=[one(f"SELECT {UNITS} FROM p WHERE pizza_category = 'Veggie' AND pizza_size <> 'S'")],
            note="pizza_category = 'Veggie' AND pizza_size <> 'S'.")),
        T("and for Supreme?", "follow_up",
          E(numbers=[one(f"SELECT {UNITS} FROM p WHERE pizza_category = 'Supreme' AND pizza_size <> 'S'")],
            note="pizza_category = 'Supreme' AND pizza_size <> 'S' (the exclusion carries over).")),
    ])

    # pz-021 last week / XL ------------------------------------------------------------
    chat([
        T("in the last 7 days of data, how many orders did we get?", "negation_recency",
          E(numbers=[one(f"SELECT {ORD} FROM p WHERE d > {MAXD} - 7")],
            note="order_date 2015-12-25..2015-12-31 (Dec 25 has no sales).")),
        T("revenue from XL and XXL pizzas combined, full year?", "extra_columns",
          E(numbers=[r2(one(f"SELECT {REV} FROM p WHERE pizza_size IN ('XL', 'XXL')"))],
            note="pizza_size IN ('XL','XXL').")),
    ])

    # pz-022 units leader ---------------------------------------------------------------
    top_units = ranked(f"SELECT pizza_name, {UNITS} u FROM p GROUP BY 1 ORDER BY u DESC", 1)[0]
    chat([
        T("quick one - which pizza sold the most units overall? (not rev, actual pizzzas)", "in_schema",
          E(names=[top_units[0]], numbers=[top_units[1]], first=top_units[0],
            note="Units by pizza_name, highest; not the revenue leader (The Thai Chicken Pizza).")),
    ])

    return chats


# ---------------------------------------------------------------- main
def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("--jsonl", help="write the bank to this file instead of checking BANK")
    args = ap.parse_args()
    setup(args.csv)
    chats = build()

    for c in chats:
        print(c["chat"])
        for t in c["turns"]:
            print(f"  [{t['category']}] {t['q']}\n      -> {json.dumps(t['expect'], ensure_ascii=False)}")

    lines = [json.dumps(c, ensure_ascii=False) for c in chats]
    if args.jsonl:
        Path(args.jsonl).write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"wrote {args.jsonl}")
        return 0

    bank = [json.loads(line) for line in BANK.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(bank) == len(chats), (len(bank), len(chats))
    bad = 0
    for got, want in zip(bank, chats):
        if got != want:
            bad += 1
            print(f"MISMATCH in {want['chat']}:\n  bank:  {json.dumps(got)}\n  truth: {json.dumps(want)}",
                  file=sys.stderr)
    cats: dict[str, int] = {}
    for c in bank:
        for t in c["turns"]:
            cats[t["category"]] = cats.get(t["category"], 0) + 1
    print(f"{len(bank)} chats, {sum(cats.values())} questions: {cats}")
    if bad:
        print(f"FAIL: {bad} chats differ from the truths", file=sys.stderr)
        return 1
    print("OK: the bank matches the truths")
    return 0


if __name__ == "__main__":
    sys.exit(main())

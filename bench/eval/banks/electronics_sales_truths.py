"""Truths for electronics_sales_blind.jsonl, computed from the CSV with DuckDB.

Data: Electronic_sales_Sep2023-Sep2024.csv (the Kaggle "Electronic Sales Sep2023-Sep2024"
export, 20,000 rows, 16 columns), as published in
github.com/LanceMacNal1/Group3_CSS145_Activity3 at commit
5a4cbe9c1c7fa0bb52762d9e56c6c54821413b98, path Electronic_sales_Sep2023-Sep2024.csv,
sha256 672d6187312449b13867c75f0d926d8c023bb436bba34554ad6d401cb8029160.

Columns: Customer ID, Age, Gender, Loyalty Member, Product Type, SKU, Rating, Order Status,
Payment Method, Total Price, Unit Price, Quantity, Purchase Date, Shipping Type,
Add-ons Purchased, Add-on Total.  One row is one purchase of one product type; the file has
no order id.  Total Price = Unit Price * Quantity on every row.

Conventions behind the truths
- revenue (sales) = SUM("Total Price") over ALL rows, Completed and Cancelled alike;
  "Add-on Total" is not part of revenue (it is asked about on its own).
- orders = number of rows (COUNT(*)); there is no order id.
- customers = COUNT(DISTINCT "Customer ID").  Repeat customers = customers with 2+ rows.
- units = SUM(Quantity).  AOV = revenue / orders.
- cancellation rate = Cancelled rows / all rows * 100 (within the slice asked about).
- "PayPal" and "Paypal" are the same payment method (the file spells it both ways);
  they are merged under "PayPal".
- Age / Gender / Loyalty Member are read per row (the file is not consistent per customer),
  so age questions count orders (rows), not people.
- Periods use "Purchase Date" (ISO dates, 2023-09-24 .. 2024-09-23).  Relative periods are
  relative to the latest date in the file, 2024-09-23, never to today: "this year" and
  "2024 so far" = 2024-01-01 .. 2024-09-23; "the last 3 months (jul-sep)" = 2024-07-01 ..
  2024-09-23; "lapsed since the end of May 2024" = last purchase on or before 2024-05-31.
- growth = (new - old) / old * 100; shares and rates are percents (12.34 = 12.34 %).
- Every figure is exact decimal arithmetic, rounded half-up to 2 decimals.
- Rankings were checked for ties at the cut (the script asserts it).

Usage:
  python electronics_sales_truths.py PATH/TO/Electronic_sales_Sep2023-Sep2024.csv
      prints the truths and checks that electronics_sales_blind.jsonl (next to this
      script) holds exactly these chats; exits 1 on any mismatch.
  python electronics_sales_truths.py CSV --jsonl out.jsonl
      (re)writes the bank to out.jsonl.
Needs only duckdb and the standard library.
"""

import argparse
import json
import sys
from decimal import ROUND_HALF_UP, Decimal, getcontext
from pathlib import Path

import duckdb

getcontext().prec = 40
DATASET = "electronics_sales"
BANK = Path(__file__).with_name("electronics_sales_blind.jsonl")
LATEST = "2024-09-23"


def r2(x):
    """Round half-up to 2 decimals; return a float for JSON (ints stay ints)."""
    if isinstance(x, int):
        return x
    d = Decimal(x).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    return float(d)


def pct(num, den):
    return r2(Decimal(num) * 100 / Decimal(den))


def growth(new, old):
    return r2((Decimal(new) - Decimal(old)) * 100 / Decimal(old))


def load(path):
    con = duckdb.connect()
    con.execute(
        f"""
        CREATE TABLE t AS SELECT
            "Customer ID"                          AS cid,
            CAST(Age AS INTEGER)                   AS age,
            Gender                                 AS gender,
            "Loyalty Member"                       AS loyal,
            "Product Type"                         AS ptype,
            SKU                                    AS sku,
            CAST(Rating AS INTEGER)                AS rating,
            "Order Status"                         AS status,
            CASE WHEN lower("Payment Method") = 'paypal' THEN 'PayPal'
                 ELSE "Payment Method" END         AS pay,
            CAST("Total Price" AS DECIMAL(18,2))   AS rev,
            CAST(Quantity AS INTEGER)              AS qty,
            CAST("Purchase Date" AS DATE)          AS d,
            "Shipping Type"                        AS ship,
            CAST("Add-on Total" AS DECIMAL(18,2))  AS addon
        FROM read_csv('{path}', header=true, all_varchar=true)
        """
    )
    return con


def one(con, sql):
    row = con.execute(sql).fetchone()
    return row[0] if len(row) == 1 else row


def ranked(con, sql, n=1):
    """Rows (key, value) ordered by value desc; assert no tie at the cut after n."""
    rows = con.execute(sql).fetchall()
    assert len(rows) > n - 1
    if len(rows) > n:
        assert rows[n - 1][1] != rows[n][1], f"tie at cut {n}: {rows[: n + 1]}"
    return rows


MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]


def month_name(ym):
    y, m = ym.split("-")
    return f"{MONTHS[int(m) - 1]} {y}"


def day_name(d):
    return f"{MONTHS[d.month - 1]} {d.day}, {d.year}"


def compute(con):
    T = {}
    assert str(one(con, "SELECT max(d) FROM t")) == LATEST
    T["rows"] = one(con, "SELECT count(*) FROM t")
    T["revenue"] = one(con, "SELECT sum(rev) FROM t")
    T["aov"] = T["revenue"] / T["rows"]
    T["customers"] = one(con, "SELECT count(DISTINCT cid) FROM t")
    T["target_gap"] = T["revenue"] - Decimal(60000000)

    m = ranked(con, "SELECT strftime(d, '%Y-%m') m, sum(rev) s FROM t GROUP BY 1 ORDER BY 2 DESC")
    T["month_top"], T["month_top_rev"] = m[0]
    T["month_2nd"], T["month_2nd_rev"] = m[1]
    assert m[-1][1] != m[-2][1]
    T["month_low"], T["month_low_rev"] = m[-1]
    T["month"] = dict(m)

    T["cancelled_rev"] = one(con, "SELECT sum(rev) FROM t WHERE status = 'Cancelled'")
    T["cancelled_rows"] = one(con, "SELECT count(*) FROM t WHERE status = 'Cancelled'")
    assert one(con, "SELECT count(DISTINCT status) FROM t") == 2

    p = ranked(con, "SELECT ptype, sum(rev) s FROM t GROUP BY 1 ORDER BY 2 DESC")
    T["ptype_top"], T["ptype_top_rev"] = p[0]
    T["ptype_rev"] = dict(p)
    u = ranked(con, "SELECT ptype, sum(qty) s FROM t GROUP BY 1 ORDER BY 2 DESC", n=5)
    for i in range(len(u) - 1):
        assert u[i][1] != u[i + 1][1], "tie inside the units ranking"
    T["ptype_units"] = u
    T["rating"] = {
        k: Decimal(s) / Decimal(c)
        for k, s, c in con.execute("SELECT ptype, sum(rating), count(*) FROM t GROUP BY 1").fetchall()
    }
    cr = con.execute(
        "SELECT ptype, count(*) FILTER (WHERE status = 'Cancelled') c, count(*) n FROM t GROUP BY 1"
    ).fetchall()
    T["cancel_rate_ptype"] = {k: Decimal(c) * 100 / Decimal(n) for k, c, n in cr}
    order = sorted(T["cancel_rate_ptype"].items(), key=lambda kv: -kv[1])
    assert order[0][1] != order[1][1]
    T["cancel_rate_top"] = order[0][0]
    T["tablet_completed_rev"] = one(
        con, "SELECT sum(rev) FROM t WHERE ptype = 'Tablet' AND status <> 'Cancelled'")

    T["repeat_customers"] = one(
        con, "SELECT count(*) FROM (SELECT cid FROM t GROUP BY 1 HAVING count(*) > 1)")
    T["lapsed_may"] = one(
        con, "SELECT count(*) FROM (SELECT cid FROM t GROUP BY 1 HAVING max(d) <= DATE '2024-05-31')")
    c = ranked(con, "SELECT cid, sum(rev) s FROM t GROUP BY 1 ORDER BY 2 DESC")
    T["top_customer"], T["top_customer_rev"] = c[0]
    T["top_customer_rows"] = one(con, f"SELECT count(*) FROM t WHERE cid = '{c[0][0]}'")

    pay = ranked(con, "SELECT pay, sum(rev) s FROM t GROUP BY 1 ORDER BY 2 DESC", n=5)
    for i in range(len(pay) - 1):
        assert pay[i][1] != pay[i + 1][1]
    T["pay"] = pay
    T["paypal_rows"] = one(con, "SELECT count(*) FROM t WHERE pay = 'PayPal'")
    s = ranked(con, "SELECT ship, sum(rev) s FROM t GROUP BY 1 ORDER BY 2 DESC")
    T["ship_top"], T["ship_top_rev"] = s[0]
    T["rev_2024_noncash"] = one(
        con, "SELECT sum(rev) FROM t WHERE year(d) = 2024 AND pay <> 'Cash'")
    T["xmas_2023"] = one(con, "SELECT sum(rev) FROM t WHERE d = DATE '2023-12-25'")

    q = dict(con.execute(
        "SELECT year(d) * 10 + quarter(d), sum(rev) FROM t GROUP BY 1").fetchall())
    T["q1_2024"], T["q2_2024"] = q[20241], q[20242]
    y = dict(con.execute("SELECT year(d), sum(rev) FROM t GROUP BY 1").fetchall())
    T["rev_2023"], T["rev_2024"] = y[2023], y[2024]

    T["cancel_rate_sw"] = T["cancel_rate_ptype"]["Smartwatch"]
    T["cancel_rate_hp"] = T["cancel_rate_ptype"]["Headphones"]
    T["addon_total"] = one(con, "SELECT sum(addon) FROM t")
    T["hp_q1_2024"] = one(
        con, "SELECT sum(rev) FROM t WHERE ptype = 'Headphones' "
             "AND d BETWEEN DATE '2024-01-01' AND DATE '2024-03-31'")
    T["units_mar_2024"] = one(
        con, "SELECT sum(qty) FROM t WHERE strftime(d, '%Y-%m') = '2024-03'")
    dd = ranked(con, "SELECT d, sum(rev) s FROM t GROUP BY 1 ORDER BY 2 DESC")
    T["best_day"], T["best_day_rev"] = dd[0]
    T["best_day_rows"] = one(con, f"SELECT count(*) FROM t WHERE d = DATE '{dd[0][0]}'")
    T["rev_2024_no_phone"] = one(
        con, "SELECT sum(rev) FROM t WHERE year(d) = 2024 AND ptype <> 'Smartphone'")
    T["loyal_rev"] = one(con, "SELECT sum(rev) FROM t WHERE loyal = 'Yes'")
    assert one(con, "SELECT count(DISTINCT loyal) FROM t") == 2
    T["rows_60plus"] = one(con, "SELECT count(*) FROM t WHERE age >= 60")
    T["rows_60plus_completed"] = one(
        con, "SELECT count(*) FROM t WHERE age >= 60 AND status <> 'Cancelled'")
    sep = con.execute(
        "SELECT count(*) FILTER (WHERE status = 'Cancelled'), count(*) FROM t "
        "WHERE strftime(d, '%Y-%m') = '2024-09'").fetchone()
    T["cancel_rate_sep24"] = Decimal(sep[0]) * 100 / Decimal(sep[1])
    T["mom_jul_aug"] = (T["month"]["2024-08"], T["month"]["2024-07"])
    T["lost_2023"] = one(
        con, "SELECT count(*) FROM (SELECT cid FROM t GROUP BY 1 "
             "HAVING count(*) FILTER (WHERE year(d) = 2023) > 0 "
             "AND count(*) FILTER (WHERE year(d) = 2024) = 0)")
    T["rev_jul_sep_completed"] = one(
        con, "SELECT sum(rev) FROM t WHERE d BETWEEN DATE '2024-07-01' AND DATE '2024-09-23' "
             "AND status <> 'Cancelled'")
    return T


def turn(q, category, note, **expect):
    e = {k: v for k, v in expect.items() if v not in (None, [], "")}
    e["note"] = note
    return {"q": q, "category": category, "expect": e}


def build(T):
    rev = r2(T["revenue"])
    aov = r2(T["aov"])
    chats = []

    def chat(turns):
        chats.append({"chat": f"ele-{len(chats) + 1:03d}", "dataset": DATASET, "turns": turns})

    # ---- long chat 1: overall review -------------------------------------------------
    q1 = "hi! whats the total sales in this file?"
    chat([
        turn(q1, "in_schema", "SUM(Total Price) over all 20,000 rows, cancelled included; add-ons excluded",
             numbers=[rev]),
        turn("how many orders is that", "follow_up", "COUNT(*) rows; the file has no order id",
             numbers=[T["rows"]]),
        turn("and the avg order value?", "in_schema", "revenue / rows",
             numbers=[aov]),
        turn("my boss set a target of 60 million for the whole period covered here. did we hit it? by how much",
             "in_schema", "revenue - 60,000,000 (yes, above target)",
             numbers=[r2(T["target_gap"])]),
        turn("which month had the highest sales?", "in_schema",
             f"month by SUM(Total Price); runner-up {month_name(T['month_2nd'])} {r2(T['month_2nd_rev'])}",
             numbers=[r2(T["month_top_rev"])], names=[month_name(T["month_top"])],
             first=month_name(T["month_top"])),
        turn("and the lowest one?", "follow_up",
             "lowest month; it is partial (data starts 2023-09-24)",
             numbers=[r2(T["month_low_rev"])], names=[month_name(T["month_low"])]),
        turn("what share of sales came from orders that were cancelled?", "extra_columns",
             "SUM(Total Price) where Order Status = Cancelled / revenue * 100",
             numbers=[pct(T["cancelled_rev"], T["revenue"])]),
        turn("what target did I say my boss set?", "conversation",
             "the user stated a 60 million target in turn 4",
             numbers=[60000000]),
        turn("remind me what AOV you gave me earlier", "conversation",
             "the AOV from turn 3", numbers=[aov]),
        turn("what was the very first thing I asked you today?", "conversation",
             "turn 1 asked for total sales", names=[q1]),
    ])

    # ---- long chat 2: product types ---------------------------------------------------
    units = T["ptype_units"]
    phone_units = dict(units)["Smartphone"]
    chat([
        turn("which product type brings in the most revenue?", "in_schema",
             "Product Type by SUM(Total Price)",
             numbers=[r2(T["ptype_top_rev"])], names=[T["ptype_top"]], first=T["ptype_top"]),
        turn("how many units of those did we sell?", "follow_up",
             "SUM(Quantity) for Smartphone", numbers=[phone_units]),
        turn("whats their share of total revenue", "in_schema",
             "Smartphone revenue / total revenue * 100",
             numbers=[pct(T["ptype_rev"]["Smartphone"], T["revenue"])]),
        turn("compare avg customer rating for smartphones vs laptops", "extra_columns",
             "AVG(Rating) per row: Smartphone, Laptop",
             numbers=[r2(T["rating"]["Smartphone"]), r2(T["rating"]["Laptop"])],
             names=["Smartphone", "Laptop"]),
        turn("rank all product types by units sold pls", "in_schema",
             "SUM(Quantity) per Product Type, descending; no ties",
             numbers=[v for _, v in units], names=[k for k, _ in units], first=units[0][0]),
        turn("which one has the worst cancellation rate?", "extra_columns",
             "Cancelled rows / rows * 100 per Product Type; highest",
             numbers=[r2(T["cancel_rate_ptype"][T["cancel_rate_top"]])],
             names=[T["cancel_rate_top"]], first=T["cancel_rate_top"]),
        turn("what's tablet revenue if we leave out the cancelled ones?", "negation_recency",
             "SUM(Total Price) for Tablet where Order Status <> Cancelled",
             numbers=[r2(T["tablet_completed_rev"])]),
        turn("ok and what's our profit margin on tablets?", "unanswerable",
             "the file has no cost or profit column", decline=True),
        turn("which two product types did I ask you to compare ratings for?", "conversation",
             "turn 4 compared smartphones and laptops", names=["Smartphone", "Laptop"]),
        turn("what units number did you give me for smartphones?", "conversation",
             "the units from turn 2", numbers=[phone_units]),
    ])

    # ---- long chat 3: customers -------------------------------------------------------
    chat([
        turn("how many unique customers are in here?", "in_schema",
             "COUNT(DISTINCT Customer ID)", numbers=[T["customers"]]),
        turn("how many of them bought more than once?", "in_schema",
             "customers with 2+ rows", numbers=[T["repeat_customers"]]),
        turn("I call a customer lapsed if they've bought nothing since the end of May 2024. "
             "how many lapsed customers do we have?", "negation_recency",
             "customers whose last Purchase Date <= 2024-05-31 (latest date in file 2024-09-23)",
             numbers=[T["lapsed_may"]]),
        turn("who's our biggest customer by total spend? customer id is fine", "in_schema",
             "Customer ID by SUM(Total Price), all rows; no tie",
             numbers=[r2(T["top_customer_rev"])], names=[T["top_customer"]], first=T["top_customer"]),
        turn("how many purchases did they make?", "follow_up",
             "rows for that Customer ID", numbers=[T["top_customer_rows"]]),
        turn("what figure did you give me for repeat customers?", "conversation",
             "the repeat-customer count from turn 2", numbers=[T["repeat_customers"]]),
        turn("which of the lapsed customers opened our last promo email?", "unanswerable",
             "no e-mail or marketing data in the file", decline=True),
        turn("what cutoff did I give you for lapsed?", "conversation",
             "turn 3: nothing bought since the end of May 2024 (2024-05-31)", names=["May 2024"]),
    ])

    # ---- long chat 4: payments and shipping -------------------------------------------
    pay = T["pay"]
    cancel_rate = pct(T["cancelled_rows"], T["rows"])
    chat([
        turn("break down sales by payment method", "extra_columns",
             "SUM(Total Price) per Payment Method; 'PayPal' and 'Paypal' merged",
             numbers=[r2(v) for _, v in pay], names=[k for k, _ in pay], first=pay[0][0]),
        turn("how many orders was paypal?", "follow_up",
             "rows with Payment Method PayPal or Paypal", numbers=[T["paypal_rows"]]),
        turn("what % of all orders got cancelled?", "extra_columns",
             "Cancelled rows / all rows * 100", numbers=[cancel_rate]),
        turn("which shipping type generates the most revenue", "extra_columns",
             "Shipping Type by SUM(Total Price)",
             numbers=[r2(T["ship_top_rev"])], names=[T["ship_top"]], first=T["ship_top"]),
        turn("what's this year's revenue from orders not paid in cash?", "negation_recency",
             "this year = 2024 (latest date 2024-09-23); Payment Method <> Cash",
             numbers=[r2(T["rev_2024_noncash"])]),
        turn("how much did we sell on christmas day 2023?", "in_schema",
             "SUM(Total Price) on 2023-12-25", numbers=[r2(T["xmas_2023"])]),
        turn("which payment method came out on top in your first answer?", "conversation",
             "turn 1 ranking; PayPal (both spellings merged) first", names=[pay[0][0]]),
        turn("what was the cancellation % you told me?", "conversation",
             "the rate from turn 3", numbers=[cancel_rate]),
    ])

    # ---- short chats ------------------------------------------------------------------
    q1v = r2(T["q1_2024"])
    chat([
        turn("total revenue in Q1 2024?", "in_schema", "2024-01-01 .. 2024-03-31", numbers=[q1v]),
        turn("and Q2?", "follow_up", "2024-04-01 .. 2024-06-30", numbers=[r2(T["q2_2024"])]),
        turn("sorry what did you say Q1 was?", "conversation", "the Q1 2024 figure from turn 1",
             numbers=[q1v]),
    ])
    chat([
        turn("how much did we sell in 2023?", "in_schema",
             "2023 covers 2023-09-24 .. 2023-12-31 only", numbers=[r2(T["rev_2023"])]),
        turn("and in 2024 so far?", "follow_up", "2024-01-01 .. 2024-09-23",
             numbers=[r2(T["rev_2024"])]),
    ])
    chat([
        turn("whats the cancellation rate for smartwatches?", "extra_columns",
             "Cancelled rows / rows * 100 for Smartwatch", numbers=[r2(T["cancel_rate_sw"])]),
        turn("and headphones?", "follow_up", "same for Headphones",
             numbers=[r2(T["cancel_rate_hp"])]),
    ])
    chat([
        turn("did the rainy weather in january hurt our sales?", "unanswerable",
             "no weather data in the file", decline=True),
    ])
    chat([
        turn("what will revenue be in december 2024?", "unanswerable",
             "the data ends 2024-09-23; a future month cannot be read from it", decline=True),
    ])
    chat([
        turn("how much did add-ons bring in overall?", "extra_columns",
             "SUM(Add-on Total), all rows", numbers=[r2(T["addon_total"])]),
    ])
    chat([
        turn("For this chat I only care about headphones. how much did headphones sell in Q1 2024?",
             "in_schema", "Headphones, 2024-01-01 .. 2024-03-31", numbers=[r2(T["hp_q1_2024"])]),
        turn("remind me which product line I said I care about?", "conversation",
             "the user said headphones in turn 1", names=["Headphones"]),
    ])
    chat([
        turn("units sold in march 2024?", "in_schema", "SUM(Quantity), 2024-03",
             numbers=[T["units_mar_2024"]]),
        turn("which month did I just ask about?", "conversation", "turn 1 asked about March 2024",
             names=["March 2024"]),
    ])
    best = day_name(T["best_day"])
    chat([
        turn("what was our best single day for revenue?", "in_schema",
             f"day by SUM(Total Price); {T['best_day']}; no tie",
             numbers=[r2(T["best_day_rev"])], names=[best], first=best),
        turn("how many orders came in that day?", "follow_up", f"rows on {T['best_day']}",
             numbers=[T["best_day_rows"]]),
        turn("what date did you say that was again?", "conversation",
             f"the best day from turn 1 ({T['best_day']})", names=[best]),
    ])
    chat([
        turn("what's revenue this year excluding smartphones?", "negation_recency",
             "this year = 2024 (latest date 2024-09-23); Product Type <> Smartphone",
             numbers=[r2(T["rev_2024_no_phone"])]),
    ])
    loyal = r2(T["loyal_rev"])
    chat([
        turn("how much revenue came from loyalty members?", "extra_columns",
             "SUM(Total Price) where Loyalty Member = Yes (flag read per row)", numbers=[loyal]),
        turn("what share of total is that", "follow_up", "loyalty revenue / total revenue * 100",
             numbers=[pct(T["loyal_rev"], T["revenue"])]),
        turn("sorry, what was the loyalty revenue number again?", "conversation",
             "the figure from turn 1", numbers=[loyal]),
    ])
    chat([
        turn("which sales rep sold the most laptops?", "unanswerable",
             "no staff or sales-rep column", decline=True),
    ])
    chat([
        turn("how many orders were placed by customers aged 60 or over?", "extra_columns",
             "rows with Age >= 60 (age as recorded on each row)", numbers=[T["rows_60plus"]]),
        turn("ok and how many of those weren't cancelled?", "negation_recency",
             "rows with Age >= 60 and Order Status <> Cancelled",
             numbers=[T["rows_60plus_completed"]]),
    ])
    chat([
        turn("Our red line for cancellations is 30%. what was the cancel rate in september 2024?",
             "extra_columns", "Cancelled rows / rows * 100, 2024-09-01 .. 2024-09-23",
             numbers=[r2(T["cancel_rate_sep24"])]),
        turn("what red line did I give you?", "conversation", "the user stated 30 % in turn 1",
             numbers=[30]),
    ])
    new, old = T["mom_jul_aug"]
    chat([
        turn("whats the month over month growth from july to august 2024", "in_schema",
             "(Aug 2024 - Jul 2024) / Jul 2024 * 100", numbers=[growth(new, old)]),
    ])
    q20 = "how many customers bought in 2023 but haven't bought anything in 2024?"
    chat([
        turn(q20, "negation_recency", "customers with a 2023 row and no 2024 row",
             numbers=[T["lost_2023"]]),
        turn("and what were sales over the last 3 months (jul-sep), leaving out cancelled orders?",
             "negation_recency", "2024-07-01 .. 2024-09-23 (latest date), Order Status <> Cancelled",
             numbers=[r2(T["rev_jul_sep_completed"])]),
        turn("what was the first thing I asked in this chat?", "conversation",
             "turn 1 question", names=[q20]),
    ])
    return chats


def dumps(chat):
    return json.dumps(chat, ensure_ascii=False)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("--jsonl", help="write the bank here instead of checking it")
    a = ap.parse_args()

    T = compute(load(a.csv))
    chats = build(T)
    for c in chats:
        for i, t in enumerate(c["turns"], 1):
            e = t["expect"]
            shown = {k: v for k, v in e.items() if k != "note"}
            print(f"{c['chat']} #{i} [{t['category']}] {t['q']}\n    -> {shown}")

    cats = {}
    for c in chats:
        for t in c["turns"]:
            cats[t["category"]] = cats.get(t["category"], 0) + 1
    print(f"\n{len(chats)} chats, {sum(cats.values())} questions: "
          + ", ".join(f"{k} {v}" for k, v in sorted(cats.items())))

    if a.jsonl:
        Path(a.jsonl).write_text("".join(dumps(c) + "\n" for c in chats), encoding="utf-8")
        print(f"wrote {a.jsonl}")
        return 0

    if not BANK.exists():
        print(f"MISMATCH: {BANK} is missing", file=sys.stderr)
        return 1
    have = [json.loads(line) for line in BANK.read_text(encoding="utf-8").splitlines() if line.strip()]
    bad = 0
    if len(have) != len(chats):
        print(f"MISMATCH: bank has {len(have)} chats, truths {len(chats)}", file=sys.stderr)
        bad += 1
    for h, w in zip(have, chats):
        if h.get("chat") != w["chat"] or h.get("dataset") != w["dataset"]:
            print(f"MISMATCH: chat header {h.get('chat')} vs {w['chat']}", file=sys.stderr)
            bad += 1
        ht, wt = h.get("turns", []), w["turns"]
        if len(ht) != len(wt):
            print(f"MISMATCH: {w['chat']} has {len(ht)} turns, truths {len(wt)}", file=sys.stderr)
            bad += 1
        for i, (x, y) in enumerate(zip(ht, wt), 1):
            if x != y:
                print(f"MISMATCH: {w['chat']} turn {i}:\n  bank   {x}\n  truths {y}", file=sys.stderr)
                bad += 1
    if bad:
        print(f"{bad} mismatch(es)", file=sys.stderr)
        return 1
    print(f"OK: {BANK.name} holds exactly these truths")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Truths for the blind car-dealer sales bank (car_sales_blind.jsonl).

Standalone: needs only duckdb.

    python car_sales_truths.py /work/evaldata/car_sales/car_data.csv              # print questions + truths
    python car_sales_truths.py /work/evaldata/car_sales/car_data.csv --jsonl out  # write the bank

Data: the public Kaggle "Car Sales Report" table (car_data.csv), as committed in
GitHub Seyfullazade/Car-Sales-Analysis, path "Car Sales/Car Sales.xlsx - car_data.csv".
One row = one car sold (Car_id is unique). 23,906 rows, 16 columns, sales dated
2022-01-02 .. 2023-12-31 (Date is m/d/Y without zero padding).

Conventions
- revenue = SUM("Price ($)"); cars sold / sales / transactions = COUNT(*) (= COUNT(DISTINCT Car_id)).
- average price = revenue / cars sold.
- there is no customer key: "Customer Name" holds first names only, so "customers" are not
  counted as people; the bank only asks for the number of distinct names, which is stated as such.
- brand = Company (kept as written, e.g. "Mercedes-B"); region = Dealer_Region; dealer = Dealer_Name.
- periods use Date. Quarters are calendar quarters.
- "latest month", "this year", "last 3 / 6 months" are relative to the LATEST date in the file,
  2023-12-31 (so this year = 2023, last year = 2022, latest month = December 2023,
  last 3 months = Oct-Dec 2023, last 6 months = Jul-Dec 2023), never to today's date.
- growth = (new - old) / old * 100; shares are percents of the stated total.
- numbers are rounded to 2 decimals; percents are written as 12.34 meaning 12.34 %.
- rankings are checked for ties at the cut (the script raises if a tie would change the answer).
"""

import argparse
import json
import sys

import duckdb

DATASET = "car_sales"
PREFIX = "cs"


def load(path):
    con = duckdb.connect()
    con.execute(
        """
        CREATE TABLE raw AS SELECT * FROM read_csv(?, header = true, all_varchar = true)
        """,
        [path],
    )
    con.execute(
        """
        CREATE TABLE t AS SELECT
            Car_id,
            strptime(Date, '%m/%d/%Y')::DATE AS d,
            "Customer Name" AS customer,
            Gender AS gender,
            CAST("Annual Income" AS DOUBLE) AS income,
            Dealer_Name AS dealer,
            Company AS brand,
            Model AS model,
            Transmission AS transmission,
            Color AS color,
            CAST("Price ($)" AS DOUBLE) AS price,
            "Body Style" AS body,
            Dealer_Region AS region
        FROM raw
        """
    )
    return con


def r2(x):
    return round(float(x), 2)


def pct(a, b):
    return r2(float(a) / float(b) * 100.0)


def growth(new, old):
    return r2((float(new) - float(old)) / float(old) * 100.0)


def month_name(ym):
    import datetime

    y, m = ym
    return datetime.date(y, m, 1).strftime("%B %Y")


def day_name(d):
    return f"{d.strftime('%B')} {d.day}, {d.year}"


class Q:
    def __init__(self, con):
        self.con = con

    def one(self, sql, params=None):
        row = self.con.execute(sql, params or []).fetchone()
        return row[0] if len(row) == 1 else row

    def rows(self, sql, params=None):
        return self.con.execute(sql, params or []).fetchall()

    def ranked(self, sql, k, params=None, desc=True):
        """Top-k of (name, value) rows; raise if the k-th and (k+1)-th values tie."""
        rows = self.rows(sql, params)
        rows.sort(key=lambda r: r[1], reverse=desc)
        if len(rows) > k and rows[k - 1][1] == rows[k][1]:
            raise SystemExit(f"tie at the cut: {rows[k - 1]} vs {rows[k]} in {sql}")
        if k == 1 and len(rows) > 1 and rows[0][1] == rows[1][1]:
            raise SystemExit(f"tie for first: {rows[:2]}")
        return rows[:k]


def build(con):
    q = Q(con)
    chats = []

    def chat(turns):
        chats.append(turns)

    def T(text, category, **expect):
        return {"q": text, "category": category, "expect": {k: v for k, v in expect.items() if v is not None}}

    total_rev = q.one("SELECT SUM(price) FROM t")
    total_n = q.one("SELECT COUNT(*) FROM t")
    latest = q.one("SELECT MAX(d) FROM t")
    assert str(latest) == "2023-12-31", latest
    this_year = latest.year
    last_year = this_year - 1

    def rev(where="TRUE", params=None):
        return q.one(f"SELECT COALESCE(SUM(price), 0) FROM t WHERE {where}", params)

    def cnt(where="TRUE", params=None):
        return q.one(f"SELECT COUNT(*) FROM t WHERE {where}", params)

    # ---------------------------------------------------------------- cs-001
    q1 = "What's the total revenue in this file?"
    avg_price = q.one("SELECT SUM(price) / COUNT(*) FROM t")
    chat([
        T(q1, "in_schema", numbers=[r2(total_rev)], note="SUM(Price ($)) over all 23,906 rows"),
        T("And how many cars were sold altogether?", "in_schema", numbers=[r2(total_n)],
          note="COUNT(*) (Car_id is unique)"),
        T("what's the average selling price per car?", "in_schema", numbers=[r2(avg_price)],
          note="SUM(price)/COUNT(*)"),
        T("Sorry, what was my first question again?", "conversation", names=[q1],
          note="text of turn 1"),
    ])

    # ---------------------------------------------------------------- cs-002
    r22 = rev("year(d) = 2022")
    r23 = rev("year(d) = 2023")
    chat([
        T("How much rev did we book in 2022 vs 2023?", "in_schema", numbers=[r2(r22), r2(r23)],
          note="SUM(price) by year(Date)"),
        T("so what's the yoy growth?", "follow_up", numbers=[growth(r23, r22)],
          note="(rev2023 - rev2022) / rev2022 * 100"),
    ])

    # ---------------------------------------------------------------- cs-003
    months = q.rows("SELECT year(d), month(d), SUM(price) FROM t GROUP BY 1, 2")
    months_desc = sorted(months, key=lambda r: r[2], reverse=True)
    assert months_desc[0][2] != months_desc[1][2] and months_desc[-1][2] != months_desc[-2][2]
    best_m, worst_m = months_desc[0], months_desc[-1]
    chat([
        T("Which calendar month brought in the most revenue?", "in_schema",
          first=month_name(best_m[:2]), names=[month_name(best_m[:2])], numbers=[r2(best_m[2])],
          note="SUM(price) by year+month of Date, highest"),
        T("and the weakest one?", "follow_up", names=[month_name(worst_m[:2])], numbers=[r2(worst_m[2])],
          note="SUM(price) by year+month, lowest"),
        T("Can you repeat the revenue figure you gave for the best month?", "conversation",
          numbers=[r2(best_m[2])], note="the number from turn 1"),
    ])

    # ---------------------------------------------------------------- cs-004
    q3_23 = rev("d BETWEEN DATE '2023-07-01' AND DATE '2023-09-30'")
    q3_22 = rev("d BETWEEN DATE '2022-07-01' AND DATE '2022-09-30'")
    busiest = q.ranked("SELECT d, COUNT(*) FROM t GROUP BY 1", 1)[0]
    chat([
        T("What were sales in Q3 2023, in dollars?", "in_schema", numbers=[r2(q3_23)],
          note="SUM(price), Date 2023-07-01..2023-09-30"),
        T("How'd that compare with Q3 2022? Give me the % change.", "in_schema",
          numbers=[r2(q3_22), growth(q3_23, q3_22)],
          note="Q3 2022 = SUM(price) 2022-07-01..2022-09-30; growth = (Q3'23-Q3'22)/Q3'22*100"),
        T("Which single day had the most cars sold, and how many went out that day?", "in_schema",
          names=[day_name(busiest[0])], numbers=[r2(busiest[1])],
          note=f"COUNT(*) by Date, highest ({busiest[0].isoformat()}); no tie"),
    ])

    # ---------------------------------------------------------------- cs-005
    top_brand = q.ranked("SELECT brand, SUM(price) FROM t GROUP BY 1", 1)[0]
    top5_units = q.ranked("SELECT brand, COUNT(*) FROM t GROUP BY 1", 5)
    ford_share = pct(rev("brand = 'Ford'"), total_rev)
    chat([
        T("Which car brand did best on revenue?", "extra_columns", first=top_brand[0],
          names=[top_brand[0]], numbers=[r2(top_brand[1])], note="SUM(price) by Company, highest"),
        T("Give me the top 5 brands by number of cars sold.", "extra_columns",
          first=top5_units[0][0], names=[r[0] for r in top5_units], numbers=[r2(r[1]) for r in top5_units],
          note="COUNT(*) by Company, top 5 (no tie at 5th/6th)"),
        T("What share of total revenue came from Ford?", "extra_columns", numbers=[ford_share],
          note="SUM(price) where Company='Ford' / SUM(price) * 100"),
        T("Which brand did I ask you about the revenue share for?", "conversation", names=["Ford"],
          note="entity named in turn 3"),
    ])

    # ---------------------------------------------------------------- cs-006
    by_region = q.rows("SELECT region, SUM(price) FROM t GROUP BY 1 ORDER BY 2 DESC")
    austin23 = cnt("region = 'Austin' AND year(d) = 2023")
    pasco23 = cnt("region = 'Pasco' AND year(d) = 2023")
    chat([
        T("Break revenue down by dealer region for me.", "extra_columns",
          first=by_region[0][0], names=[r[0] for r in by_region], numbers=[r2(r[1]) for r in by_region],
          note="SUM(price) by Dealer_Region (7 regions)"),
        T("How many cars did the Austin region sell in 2023?", "extra_columns", numbers=[r2(austin23)],
          note="COUNT(*) where Dealer_Region='Austin' and year=2023"),
        T("What about Pasco?", "follow_up", numbers=[r2(pasco23)],
          note="COUNT(*) where Dealer_Region='Pasco' and year=2023 (year carried over)"),
    ])

    # ---------------------------------------------------------------- cs-007
    female_share = pct(cnt("gender = 'Female'"), total_n)
    avg_f = q.one("SELECT AVG(price) FROM t WHERE gender = 'Female'")
    avg_m = q.one("SELECT AVG(price) FROM t WHERE gender = 'Male'")
    chat([
        T("What percentage of our buyers are female?", "extra_columns", numbers=[female_share],
          note="COUNT(*) where Gender='Female' / COUNT(*) * 100"),
        T("Do women pay more or less than men on average? Give me both average prices.", "extra_columns",
          numbers=[r2(avg_f), r2(avg_m)],
          note="AVG(price) by Gender; women pay more on average"),
    ])

    # ---------------------------------------------------------------- cs-008
    top_body = q.ranked("SELECT body, COUNT(*) FROM t GROUP BY 1", 1)[0]
    chat([
        T("Which body style moves the most units?", "extra_columns", first=top_body[0], names=[top_body[0]],
          numbers=[r2(top_body[1])], note="COUNT(*) by Body Style, highest"),
    ])

    # ---------------------------------------------------------------- cs-009
    top_dealer = q.ranked("SELECT dealer, COUNT(*) FROM t GROUP BY 1", 1)[0]
    top_dealer_rev = rev("dealer = ?", [top_dealer[0]])
    rabun_rev = rev("dealer = 'Rabun Used Car Sales'")
    chat([
        T("Which dealer sold the most cars?", "extra_columns", first=top_dealer[0], names=[top_dealer[0]],
          numbers=[r2(top_dealer[1])], note="COUNT(*) by Dealer_Name, highest"),
        T("How much revenue did they make?", "follow_up", numbers=[r2(top_dealer_rev)],
          note="SUM(price) for that dealer"),
        T("And Rabun Used Car Sales?", "follow_up", numbers=[r2(rabun_rev)],
          note="SUM(price) where Dealer_Name='Rabun Used Car Sales'"),
        T("Which dealer did I name myself in this chat?", "conversation", names=["Rabun Used Car Sales"],
          note="the dealer the user typed in turn 3"),
    ])

    # ---------------------------------------------------------------- cs-010
    non_white_avg = q.one("SELECT AVG(price) FROM t WHERE color <> 'Pale White'")
    chat([
        T("What's total revenue if we leave out SUVs?", "negation_recency", numbers=[r2(rev("body <> 'SUV'"))],
          note="SUM(price) where Body Style <> 'SUV'"),
        T("How many cars were sold outside the Austin region?", "negation_recency",
          numbers=[r2(cnt("region <> 'Austin'"))], note="COUNT(*) where Dealer_Region <> 'Austin'"),
        T("Average price of cars that aren't Pale White?", "negation_recency", numbers=[r2(non_white_avg)],
          note="AVG(price) where Color <> 'Pale White' (Black and Red)"),
    ])

    # ---------------------------------------------------------------- cs-011
    dec23 = rev("d >= DATE '2023-12-01' AND d <= DATE '2023-12-31'")
    last3 = rev("d >= DATE '2023-10-01' AND d <= DATE '2023-12-31'")
    n23 = cnt("year(d) = ?", [this_year])
    n22 = cnt("year(d) = ?", [last_year])
    chat([
        T("How much did we sell in the most recent month in the data?", "negation_recency",
          names=["December 2023"], numbers=[r2(dec23)],
          note="latest Date is 2023-12-31 -> December 2023; SUM(price)"),
        T("Revenue for the last 3 months?", "negation_recency", numbers=[r2(last3)],
          note="Oct-Dec 2023 relative to the latest date 2023-12-31; SUM(price)"),
        T("How's this year shaping up against last year in cars sold?", "negation_recency",
          numbers=[r2(n23), r2(n22), growth(n23, n22)],
          note="this year = 2023 (latest date), last year = 2022; COUNT(*) each and growth %"),
    ])

    # ---------------------------------------------------------------- cs-012
    top_brand_h2 = q.ranked(
        "SELECT brand, SUM(price) FROM t WHERE d >= DATE '2023-07-01' AND d <= DATE '2023-12-31' GROUP BY 1", 1
    )[0]
    not_chevy_23 = rev("year(d) = ? AND brand <> 'Chevrolet'", [this_year])
    chat([
        T("Over the last 6 months of data, which brand led on revenue?", "negation_recency",
          first=top_brand_h2[0], names=[top_brand_h2[0]], numbers=[r2(top_brand_h2[1])],
          note="Jul-Dec 2023 (relative to latest date 2023-12-31); SUM(price) by Company"),
        T("This year, how much revenue came from brands other than Chevrolet?", "negation_recency",
          numbers=[r2(not_chevy_23)], note="year 2023, Company <> 'Chevrolet'; SUM(price)"),
    ])

    # ---------------------------------------------------------------- cs-013
    jv_rev = rev("region = 'Janesville'")
    porsche_n = cnt("brand = 'Porsche'")
    porsche_jv = rev("brand = 'Porsche' AND region = 'Janesville'")
    chat([
        T("Quick context: I manage the Janesville region, and Porsche is my favourite brand. "
          "First up, what's Janesville's total revenue?", "extra_columns", numbers=[r2(jv_rev)],
          note="SUM(price) where Dealer_Region='Janesville'"),
        T("How many Porsches were sold across all regions?", "extra_columns", numbers=[r2(porsche_n)],
          note="COUNT(*) where Company='Porsche'"),
        T("Which region did I say I manage?", "conversation", names=["Janesville"],
          note="fact stated by the user in turn 1"),
        T("And what did I say my favourite brand was? How much revenue did it make in my region?",
          "conversation", names=["Porsche"], numbers=[r2(porsche_jv)],
          note="Porsche (turn 1); SUM(price) where Company='Porsche' and Dealer_Region='Janesville'"),
    ])

    # ---------------------------------------------------------------- cs-014 (clarify)
    neons = q.rows("SELECT brand, COUNT(*), SUM(price) FROM t WHERE model = 'Neon' GROUP BY 1 ORDER BY 1")
    assert [r[0] for r in neons] == ["Dodge", "Plymouth"], neons
    plym = [r for r in neons if r[0] == "Plymouth"][0]
    chat([
        T("How many Neons did we sell?", "extra_columns", clarify=True, names=["Dodge", "Plymouth"],
          note="Model 'Neon' exists under two brands: Dodge Neon (%d sold) and Plymouth Neon (%d sold); "
               "a good answer asks which (or gives both)" % (neons[0][1], neons[1][1])),
        T("The Plymouth one. What's its total revenue?", "follow_up", numbers=[r2(plym[2])],
          note="SUM(price) where Company='Plymouth' and Model='Neon'"),
    ])

    # ---------------------------------------------------------------- cs-015 (clarify)
    aurora_region = q.one("SELECT SUM(price), COUNT(*) FROM t WHERE region = 'Aurora'")
    aurora_model_n = cnt("model = 'Aurora'")
    chat([
        T("What's the revenue for Aurora?", "extra_columns", clarify=True, names=["Oldsmobile", "region"],
          note="'Aurora' is both a Dealer_Region and an Oldsmobile model (%d sold); a good answer asks which"
               % aurora_model_n),
        T("I meant the dealer region. Revenue and number of cars, please.", "follow_up",
          numbers=[r2(aurora_region[0]), r2(aurora_region[1])],
          note="SUM(price), COUNT(*) where Dealer_Region='Aurora'"),
    ])

    # ---------------------------------------------------------------- cs-016 (unanswerable)
    chat([
        T("How much did we spend on advertising in 2023?", "unanswerable", decline=True,
          note="no marketing/ad spend column"),
        T("Which salesperson closed the most deals?", "unanswerable", decline=True,
          note="no salesperson column (Dealer_Name is the dealership, not a person)"),
        T("What's the average mileage of the cars we sold?", "unanswerable", decline=True,
          note="no mileage/odometer column"),
    ])

    # ---------------------------------------------------------------- cs-017
    nov23 = rev("d >= DATE '2023-11-01' AND d <= DATE '2023-11-30'")
    chat([
        T("What was total revenue in November 2023?", "in_schema", numbers=[r2(nov23)],
          note="SUM(price), Date in 2023-11"),
        T("Ok, so what will revenue be in January 2024, exactly?", "unanswerable", decline=True,
          note="future month; the data ends 2023-12-31, an exact figure cannot be known"),
        T("Was it raining in Austin on our busiest sales day?", "unanswerable", decline=True,
          note="no weather data in the file"),
    ])

    # ---------------------------------------------------------------- cs-018
    hardtop_n = cnt("body = 'Hardtop'")
    pmin, pmax = q.one("SELECT MIN(price), MAX(price) FROM t")
    q18_2 = "What are the lowest and highest sale prices in the file?"
    chat([
        T("How many Hardtop cars were sold?", "extra_columns", numbers=[r2(hardtop_n)],
          note="COUNT(*) where Body Style='Hardtop'"),
        T(q18_2, "in_schema", numbers=[r2(pmin), r2(pmax)], note="MIN/MAX(price)"),
        T("What was my second question?", "conversation", names=[q18_2], note="text of turn 2"),
        T("Remind me of the number you gave for hardtops.", "conversation", numbers=[r2(hardtop_n)],
          note="figure from turn 1"),
    ])

    # ---------------------------------------------------------------- cs-019
    dodge22 = rev("brand = 'Dodge' AND year(d) = 2022")
    dodge23 = rev("brand = 'Dodge' AND year(d) = 2023")
    dodge23_n = cnt("brand = 'Dodge' AND year(d) = 2023")
    chat([
        T("Dodge revenue in 2022?", "extra_columns", numbers=[r2(dodge22)],
          note="SUM(price) where Company='Dodge', year 2022"),
        T("and in 2023?", "follow_up", numbers=[r2(dodge23)], note="same, year 2023"),
        T("how many cars was that?", "follow_up", numbers=[r2(dodge23_n)],
          note="COUNT(*) where Company='Dodge', year 2023"),
    ])

    # ---------------------------------------------------------------- cs-020
    q20_1 = "How many different customer names show up in the file?"
    bottom3 = q.ranked("SELECT brand, SUM(price) FROM t GROUP BY 1", 3, desc=False)
    chat([
        T(q20_1, "in_schema", numbers=[r2(q.one('SELECT COUNT(DISTINCT customer) FROM t'))],
          note="COUNT(DISTINCT Customer Name); names are first names only, so this is not a count of people"),
        T("Which 3 brands made the least revenue?", "extra_columns", first=bottom3[0][0],
          names=[r[0] for r in bottom3], numbers=[r2(r[1]) for r in bottom3],
          note="SUM(price) by Company, lowest 3 (no tie at 3rd/4th)"),
        T("What was the first thing I asked you?", "conversation", names=[q20_1], note="text of turn 1"),
    ])

    # ---------------------------------------------------------------- cs-021
    n_days = q.one("SELECT COUNT(DISTINCT d) FROM t")
    top_wd = q.ranked("SELECT dayname(d), COUNT(*) FROM t GROUP BY 1", 1)[0]
    chat([
        T("On how many distinct days did we sell at least one car?", "in_schema", numbers=[r2(n_days)],
          note="COUNT(DISTINCT Date)"),
        T("On those days, what's the average revenue per day?", "in_schema",
          numbers=[r2(total_rev / n_days)], note="SUM(price) / COUNT(DISTINCT Date)"),
        T("Which day of the week sells the most cars?", "in_schema", first=top_wd[0], names=[top_wd[0]],
          numbers=[r2(top_wd[1])], note="COUNT(*) by weekday of Date, highest"),
    ])

    out = []
    for i, turns in enumerate(chats, 1):
        out.append({"chat": f"{PREFIX}-{i:03d}", "dataset": DATASET, "turns": turns})
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--jsonl")
    a = ap.parse_args()
    con = load(a.csv)
    bank = build(con)
    if a.jsonl:
        with open(a.jsonl, "w", encoding="utf-8") as f:
            for c in bank:
                f.write(json.dumps(c, ensure_ascii=False) + "\n")
    counts = {}
    nq = 0
    for c in bank:
        if not a.jsonl:
            print(f"== {c['chat']}")
        for t in c["turns"]:
            nq += 1
            counts[t["category"]] = counts.get(t["category"], 0) + 1
            if not a.jsonl:
                print(f"  [{t['category']}] {t['q']}")
                print(f"      -> {json.dumps(t['expect'], ensure_ascii=False)}")
    print(f"{len(bank)} chats, {nq} questions: {counts}", file=sys.stderr)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Truths for the blind bank fashion_retail_blind.jsonl (Kaggle "Fashion Retail Sales").

Every number and name in the bank is computed here with SQL (duckdb) against the
original CSV; nothing is typed by hand.

Usage:
    python fashion_retail_truths.py                 # assert the bank next to this file matches
    python fashion_retail_truths.py --jsonl OUT     # (re)write the bank to OUT
    python fashion_retail_truths.py --csv PATH      # use another copy of the CSV (same sha256)

Conventions (see README section):
  * revenue     = SUM("Purchase Amount (USD)"); the 650 blank amounts are missing, never imputed.
  * transactions / purchases = rows (3,400); a row is one purchased item; there is no order id.
  * AOV / average purchase = AVG of the non-blank amounts (= revenue / 2,750 priced rows).
  * customers   = COUNT(DISTINCT "Customer Reference ID").
  * ratings     = AVG over non-blank "Review Rating" (324 blanks ignored).
  * periods use "Date Purchase" (DD-MM-YYYY), calendar months / quarters / years.
  * recency is anchored on the file's latest date, 2023-10-01 (never today's date):
    "last 30 days" = the 30 calendar days ending on and including 2023-10-01 (2023-09-02 .. 2023-10-01);
    "latest month" = October 2023 (a single day in the file); "last full month" = September 2023;
    "this year" = 2023 (2023-01-01 .. 2023-10-01).
"""
import argparse
import hashlib
import json
import os
import sys

import duckdb

HERE = os.path.dirname(os.path.abspath(__file__))
DATASET = "fashion_retail"
PREFIX = "fashion"
CSV_DEFAULT = "/work/evaldata/fashion_retail/Fashion_Retail_Sales.csv"
SHA256 = "c2abee04539ad09dd6df073f70fd4b43c769a227118736b7ac5095409676430c"
BANK = os.path.join(HERE, "fashion_retail_blind.jsonl")

MONTHS = ["January", "February", "March", "April", "May", "June", "July",
          "August", "September", "October", "November", "December"]


def r2(x):
    x = float(x)
    cents = x * 100
    # a truth landing exactly on a half cent is ambiguous to round: forbid it
    assert abs(abs(cents - int(cents)) - 0.5) > 1e-6, f"half-cent truth: {x}"
    return round(x + 0.0, 2)


def pct(a, b):
    return r2(100.0 * float(a) / float(b))


def day_name(d):
    return f"{MONTHS[d.month - 1]} {d.day}, {d.year}"


def month_name(d):
    return f"{MONTHS[d.month - 1]} {d.year}"


class DB:
    def __init__(self, path):
        h = hashlib.sha256(open(path, "rb").read()).hexdigest()
        assert h == SHA256, f"sha256 mismatch for {path}: {h}"
        self.c = duckdb.connect()
        self.c.execute(f"""
            CREATE TABLE t AS
            SELECT "Customer Reference ID"            AS cid,
                   "Item Purchased"                   AS item,
                   TRY_CAST("Purchase Amount (USD)" AS DOUBLE) AS amt,
                   strptime("Date Purchase", '%d-%m-%Y')::DATE AS d,
                   TRY_CAST("Review Rating" AS DOUBLE)         AS rr,
                   "Payment Method"                   AS pm
            FROM read_csv('{path}', header=true, all_varchar=true)
        """)
        n, n_amt_raw, n_amt = self.c.execute(
            """SELECT count(*), count("Purchase Amount (USD)"), count(TRY_CAST("Purchase Amount (USD)" AS DOUBLE))
               FROM read_csv(?, header=true, all_varchar=true)""", [path]).fetchone()
        assert n == 3400 and n_amt_raw == n_amt == 2750, (n, n_amt_raw, n_amt)

    def one(self, sql, *params):
        return self.c.execute(sql, list(params)).fetchone()[0]

    def row(self, sql, *params):
        return self.c.execute(sql, list(params)).fetchone()

    def rows(self, sql, *params):
        return self.c.execute(sql, list(params)).fetchall()

    def ranked(self, sql, k, *params):
        """rows (name, value) ordered; assert no tie at the cut k and at #1."""
        rs = self.rows(sql, *params)
        assert len(rs) > k, (sql, k)
        assert rs[k - 1][1] != rs[k][1], f"tie at cut {k}: {rs[k-1]} vs {rs[k]}"
        assert rs[0][1] != rs[1][1], f"tie at #1: {rs[0]} vs {rs[1]}"
        return rs[:k]


def T(q, category, **expect):
    e = {k: v for k, v in expect.items() if v not in (None, [], "")}
    return {"q": q, "category": category, "expect": e}


def build(db):
    chats = []
    one, row, rows, ranked = db.one, db.row, db.rows, db.ranked
    REV = "SELECT sum(amt) FROM t"
    total_rev = one(REV)
    latest = one("SELECT max(d) FROM t")

    # 1 ------------------------------------------------------------------
    q1 = "whats our total revenue in this file?"
    chats.append([
        T(q1, "in_schema", numbers=[r2(total_rev)],
          note="SUM(Purchase Amount (USD)); 650 blank amounts are excluded, not imputed"),
        T("how many transactions are in there in total, and how many distinct customers?", "in_schema",
          numbers=[one("SELECT count(*) FROM t"), one("SELECT count(DISTINCT cid) FROM t")],
          note="rows (every row is one purchase, blank amount or not); COUNT(DISTINCT Customer Reference ID)"),
        T("sorry, what was the first thing I asked you?", "conversation", names=[q1],
          note="exact text of the chat's first question"),
    ])

    # 2 ------------------------------------------------------------------
    top5 = ranked("SELECT item, sum(amt) s FROM t GROUP BY 1 ORDER BY s DESC", 5)
    bot3 = ranked("SELECT item, sum(amt) s FROM t GROUP BY 1 ORDER BY s ASC", 3)
    jeans = one("SELECT sum(amt) FROM t WHERE item='Jeans'")
    assert "Jeans" in [r[0] for r in top5]
    chats.append([
        T("top 5 items by revenue pls", "in_schema", names=[r[0] for r in top5], first=top5[0][0],
          numbers=[r2(r[1]) for r in top5], note="SUM(amount) by Item Purchased, descending; no tie at #5/#6"),
        T("bottom 3?", "follow_up", names=[r[0] for r in bot3], first=bot3[0][0],
          numbers=[r2(r[1]) for r in bot3], note="same measure ascending; lowest first; no tie at #3/#4"),
        T("what revenue did you say jeans made, again?", "conversation", names=["Jeans"], numbers=[r2(jeans)],
          note="figure stated in turn 1 for Jeans"),
    ])

    # 3 ------------------------------------------------------------------
    mon = "SELECT date_trunc('month', d) m, sum(amt) s FROM t GROUP BY 1"
    best_m = ranked(mon + " ORDER BY s DESC", 1)[0]
    # weakest full month: exclude Oct 2023 (only 2023-10-01 present)
    worst_full = ranked(mon + " HAVING m < DATE '2023-10-01' ORDER BY s ASC", 1)[0]
    aug = one("SELECT sum(amt) FROM t WHERE d BETWEEN '2023-08-01' AND '2023-08-31'")
    sep = one("SELECT sum(amt) FROM t WHERE d BETWEEN '2023-09-01' AND '2023-09-30'")
    chats.append([
        T("which month had the highest sales?", "in_schema", names=[month_name(best_m[0])],
          numbers=[r2(best_m[1])], note="calendar months of Date Purchase, SUM(amount)"),
        T("and the weakest full month?", "follow_up", names=[month_name(worst_full[0])],
          numbers=[r2(worst_full[1])],
          note="lowest month excluding October 2023, which holds a single day (2023-10-01)"),
        T("how much did revenue change from aug to sep 2023, in %?", "in_schema",
          numbers=[pct(sep - aug, aug)], note="(Sep 2023 - Aug 2023) / Aug 2023 * 100; a drop"),
        T("remind me which month you said was the top one?", "conversation", names=[month_name(best_m[0])],
          numbers=[r2(best_m[1])], note="month and figure given in turn 1"),
    ])

    # 4 ------------------------------------------------------------------
    bd = ranked("SELECT d, sum(amt) s FROM t GROUP BY 1 ORDER BY s DESC", 1)[0]
    chats.append([
        T("which single day brought in the most revenue?", "in_schema", names=[day_name(bd[0])],
          numbers=[r2(bd[1])], note="SUM(amount) per Date Purchase"),
        T("how many transactions happened that day?", "follow_up",
          numbers=[one("SELECT count(*) FROM t WHERE d=?", bd[0])], note="rows on that date"),
    ])

    # 5 ------------------------------------------------------------------
    c_sp, c_n = row("SELECT sum(amt), count(*) FROM t WHERE cid='4109'")
    mx = rows("SELECT item, amt, d FROM t WHERE cid='4109' ORDER BY amt DESC NULLS LAST LIMIT 2")
    assert mx[0][1] != mx[1][1]
    chats.append([
        T("pull up customer 4109 - total spend and number of purchases?", "in_schema",
          numbers=[r2(c_sp), c_n], note="SUM(amount) and row count for Customer Reference ID 4109"),
        T("what was their most expensive purchase?", "follow_up",
          names=[mx[0][0], day_name(mx[0][2])], numbers=[r2(mx[0][1])], note="max amount row for 4109"),
        T("which customer id were we looking at?", "conversation", names=["4109"],
          note="customer key from turn 1"),
    ])

    # 6 ------------------------------------------------------------------
    topc = ranked("SELECT cid, sum(amt) s FROM t GROUP BY 1 ORDER BY s DESC", 3)
    topn = ranked("SELECT cid, count(*) n FROM t GROUP BY 1 ORDER BY n DESC", 1)[0]
    chats.append([
        T("who are our top 3 customers by spend", "in_schema", names=[r[0] for r in topc], first=topc[0][0],
          numbers=[r2(r[1]) for r in topc], note="SUM(amount) by Customer Reference ID; no tie at #3/#4"),
        T("and who's #1 by number of purchases?", "follow_up", names=[topn[0]], numbers=[topn[1]],
          note="row count by customer"),
    ])

    # 7 ------------------------------------------------------------------
    qs = rows("SELECT quarter(d) q, sum(amt) s FROM t WHERE year(d)=2023 GROUP BY 1 ORDER BY 1")
    assert [q for q, _ in qs] == [1, 2, 3, 4]
    best_q = ranked("SELECT quarter(d) q, sum(amt) s FROM t WHERE year(d)=2023 GROUP BY 1 ORDER BY s DESC", 1)[0]
    chats.append([
        T("revenue by quarter for 2023?", "in_schema", names=["Q1", "Q2", "Q3", "Q4"],
          numbers=[r2(s) for _, s in qs], note="calendar quarters of 2023; Q4 holds only 2023-10-01"),
        T("which one was best", "follow_up", names=[f"Q{best_q[0]}"], numbers=[r2(best_q[1])],
          note="max of the quarters above"),
    ])

    # 8 ------------------------------------------------------------------
    aov = one("SELECT avg(amt) FROM t")
    aov_pm = rows("SELECT pm, avg(amt) FROM t GROUP BY 1 ORDER BY 2 DESC")
    chats.append([
        T("whats the AOV overall", "in_schema", numbers=[r2(aov)],
          note="AVG(amount) over the 2,750 rows with an amount (revenue / priced rows)"),
        T("and credit card vs cash?", "follow_up", names=[p for p, _ in aov_pm],
          numbers=[r2(v) for _, v in aov_pm], note="AVG(amount) by Payment Method"),
    ])

    # 9 ------------------------------------------------------------------
    pmrev = rows("SELECT pm, sum(amt) s FROM t GROUP BY 1 ORDER BY s DESC")
    dec = rows("SELECT pm, sum(amt) s FROM t WHERE d BETWEEN '2022-12-01' AND '2022-12-31' GROUP BY 1 ORDER BY s DESC")
    assert dec[0][1] != dec[1][1]
    dec_tot = sum(s for _, s in dec)
    chats.append([
        T("split revenue by payment method, with % share", "extra_columns", names=[p for p, _ in pmrev],
          first=pmrev[0][0], numbers=[r2(s) for _, s in pmrev] + [pct(s, total_rev) for _, s in pmrev],
          note="SUM(amount) by Payment Method and share of total revenue"),
        T("how many transactions were paid in cash?", "extra_columns",
          numbers=[one("SELECT count(*) FROM t WHERE pm='Cash'")], note="rows with Payment Method = Cash"),
        T("same revenue split but just for december 2022", "follow_up", names=[p for p, _ in dec],
          first=dec[0][0], numbers=[r2(s) for _, s in dec] + [pct(s, dec_tot) for _, s in dec],
          note="December 2022 only, SUM(amount) by Payment Method and share of that month"),
    ])

    # 10 -----------------------------------------------------------------
    hi = ranked("SELECT item, avg(rr) a FROM t GROUP BY 1 ORDER BY a DESC", 1)[0]
    chats.append([
        T("what's the average review rating across everything?", "extra_columns",
          numbers=[r2(one("SELECT avg(rr) FROM t"))], note="AVG(Review Rating) over non-blank ratings"),
        T("which item has the best avg rating?", "extra_columns", names=[hi[0]], first=hi[0],
          numbers=[r2(hi[1])], note="AVG(Review Rating) by item, non-blank ratings"),
        T("how many purchases have no rating at all?", "extra_columns",
          numbers=[one("SELECT count(*) FROM t WHERE rr IS NULL")], note="blank Review Rating"),
    ])

    # 11 -----------------------------------------------------------------
    n5 = one("SELECT count(*) FROM t WHERE rr = 5")
    rated = one("SELECT count(rr) FROM t")
    lt2 = one("SELECT count(*) FROM t WHERE rr < 2")
    chats.append([
        T("how many purchases got a full 5-star review?", "extra_columns", numbers=[n5],
          note="Review Rating = 5.0"),
        T("what share of rated purchases scored below 2?", "extra_columns", numbers=[pct(lt2, rated), lt2],
          note="rating < 2 among the 3,076 rows with a rating"),
        T("revenue from purchases rated 4 or higher?", "extra_columns",
          numbers=[r2(one("SELECT sum(amt) FROM t WHERE rr >= 4"))], note="SUM(amount) where rating >= 4"),
    ])

    # 12 -----------------------------------------------------------------
    blank_top = ranked("SELECT item, count(*) n FROM t WHERE amt IS NULL GROUP BY 1 ORDER BY n DESC", 1)[0]
    chats.append([
        T("how many rows are missing a purchase amount?", "extra_columns",
          numbers=[one("SELECT count(*) FROM t WHERE amt IS NULL")], note="blank Purchase Amount (USD)"),
        T("which item has the most of those blanks?", "follow_up", names=[blank_top[0]], first=blank_top[0],
          numbers=[blank_top[1]], note="count of blank amounts by item"),
    ])

    # 13 -----------------------------------------------------------------
    big = rows("SELECT cid, item, amt, d FROM t ORDER BY amt DESC NULLS LAST LIMIT 2")
    assert big[0][2] != big[1][2]
    chats.append([
        T("biggest single purchase in the data? who, what, when", "in_schema",
          names=[big[0][0], big[0][1], day_name(big[0][3])], numbers=[r2(big[0][2])],
          note="row with max amount"),
        T("median purchase?", "in_schema", numbers=[r2(one("SELECT median(amt) FROM t"))],
          note="MEDIAN(amount) over non-blank amounts"),
    ])

    # 14 -----------------------------------------------------------------
    ex_tj = one("SELECT sum(amt) FROM t WHERE item NOT IN ('Tunic','Jeans')")
    ex_q4 = one("SELECT sum(amt) FROM t WHERE NOT (d BETWEEN '2022-10-01' AND '2022-12-31')")
    chats.append([
        T("total revenue for everything except tunics and jeans?", "negation_recency", numbers=[r2(ex_tj)],
          note="SUM(amount) where item not in (Tunic, Jeans)"),
        T("what was revenue outside Q4 2022 (all items)?", "negation_recency", numbers=[r2(ex_q4)],
          note="SUM(amount) for dates not in 2022-10-01..2022-12-31"),
    ])

    # 15 -----------------------------------------------------------------
    w_rev, w_n, w_c = row("SELECT sum(amt), count(*), count(DISTINCT cid) FROM t WHERE d >= ?::DATE - 29", latest)
    chats.append([
        T("how much did we sell in the last 30 days?", "negation_recency", numbers=[r2(w_rev)],
          note="30 days ending on the file's latest date 2023-10-01 inclusive: 2023-09-02..2023-10-01"),
        T("how many distinct customers bought in that window?", "follow_up", numbers=[w_c],
          note="COUNT(DISTINCT customer) in 2023-09-02..2023-10-01"),
        T("btw what's the most recent date in the data?", "negation_recency", names=[day_name(latest)],
          note="MAX(Date Purchase)"),
    ])

    # 16 -----------------------------------------------------------------
    lm_rev, lm_n = row("SELECT sum(amt), count(*) FROM t WHERE date_trunc('month', d) = date_trunc('month', ?::DATE)", latest)
    ytd = one("SELECT sum(amt) FROM t WHERE year(d) = year(?::DATE)", latest)
    chats.append([
        T("sales in the latest month we have?", "negation_recency", names=[month_name(latest)],
          numbers=[r2(lm_rev)], note="October 2023, which holds only 2023-10-01 (5 purchases)"),
        T("ok and the last full month?", "negation_recency", names=["September 2023"], numbers=[r2(sep)],
          note="September 2023"),
        T("what's revenue this year so far?", "negation_recency", numbers=[r2(ytd)],
          note="'this year' = year of the latest date (2023): 2023-01-01..2023-10-01"),
    ])

    # 17 -----------------------------------------------------------------
    cc_top = ranked("SELECT item, sum(amt) s FROM t WHERE pm <> 'Cash' GROUP BY 1 ORDER BY s DESC", 1)[0]
    never_cc = one("SELECT count(*) FROM (SELECT cid FROM t GROUP BY 1 HAVING count(*) FILTER (WHERE pm='Credit Card') = 0)")
    chats.append([
        T("if we leave out cash payments, which item earns the most?", "negation_recency", names=[cc_top[0]],
          first=cc_top[0], numbers=[r2(cc_top[1])], note="Payment Method <> Cash, SUM(amount) by item"),
        T("how many customers have never paid by credit card?", "negation_recency", numbers=[never_cc],
          note="customers with no Credit Card row (every customer used both methods)"),
    ])

    # 18 -----------------------------------------------------------------
    acc = ("Handbag", "Wallet", "Belt", "Backpack")
    acc_rev = one("SELECT sum(amt) FROM t WHERE item IN ?", list(acc))
    acc_top = ranked("SELECT item, count(*) n FROM t WHERE item IN ? GROUP BY 1 ORDER BY n DESC", 1, list(acc))[0]
    chats.append([
        T("hi, I'm Priya, I run the accessories buying team (handbags, wallets, belts, backpacks). "
          "what did those 4 items bring in together?", "extra_columns", numbers=[r2(acc_rev)],
          note="SUM(amount) for Handbag, Wallet, Belt, Backpack"),
        T("which of them had the most purchases?", "follow_up", names=[acc_top[0]], first=acc_top[0],
          numbers=[acc_top[1]], note="row count among those 4 items"),
        T("remind me - what's my name and which team did I say I run?", "conversation",
          names=["Priya", "accessories"], note="facts the user stated in turn 1"),
    ])

    # 19 -----------------------------------------------------------------
    shirts = [r[0] for r in rows("SELECT DISTINCT item FROM t WHERE item ILIKE '%shirt%' ORDER BY 1")]
    assert shirts == ["Flannel Shirt", "Polo Shirt", "T-shirt"], shirts
    chats.append([
        T("how much revenue did shirts bring in?", "extra_columns", clarify=True, names=shirts,
          note="'shirts' matches three items: T-shirt, Polo Shirt, Flannel Shirt"),
        T("just the polo ones", "follow_up", names=["Polo Shirt"],
          numbers=[r2(one("SELECT sum(amt) FROM t WHERE item='Polo Shirt'"))], note="SUM(amount) for Polo Shirt"),
    ])

    # 20 -----------------------------------------------------------------
    coats = [r[0] for r in rows("SELECT DISTINCT item FROM t WHERE item ILIKE '%coat%' ORDER BY 1")]
    assert coats == ["Coat", "Raincoat", "Trench Coat"], coats
    coats23 = one("SELECT sum(amt) FROM t WHERE item IN ? AND year(d)=2023", coats)
    chats.append([
        T("how are coat sales doing in 2023?", "extra_columns", clarify=True, names=coats,
          note="'coat' matches Coat, Trench Coat and Raincoat"),
        T("all three together please", "follow_up", numbers=[r2(coats23)],
          note="SUM(amount) for Coat + Trench Coat + Raincoat in 2023"),
    ])

    # 21 -----------------------------------------------------------------
    chats.append([
        T("what was our marketing spend in dec 2022?", "unanswerable", decline=True,
          note="no marketing/cost column"),
        T("how many handbags were returned, and why?", "unanswerable", decline=True,
          note="no returns or return-reason data"),
    ])

    # 22 -----------------------------------------------------------------
    chats.append([
        T("which store location sold the most?", "unanswerable", decline=True, note="no store/location column"),
        T("what's the gender split of our customers?", "unanswerable", decline=True,
          note="no gender/demographic column"),
        T("tell me exactly what revenue will be in november 2023", "unanswerable", decline=True,
          note="exact future revenue is not in the file (an estimate must be flagged as such, not stated as fact)"),
    ])

    # 23 -----------------------------------------------------------------
    q4_22 = one("SELECT sum(amt) FROM t WHERE d BETWEEN '2022-10-01' AND '2022-12-31'")
    q1_23 = one("SELECT sum(amt) FROM t WHERE d BETWEEN '2023-01-01' AND '2023-03-31'")
    chats.append([
        T("Q4 2022 vs Q1 2023 revenue - what's the % change?", "in_schema",
          numbers=[r2(q4_22), r2(q1_23), pct(q1_23 - q4_22, q4_22)],
          note="(Q1 2023 - Q4 2022) / Q4 2022 * 100; Q4 2022 starts 2022-10-02 in the file"),
    ])

    # 24 -----------------------------------------------------------------
    sw_may = row("SELECT count(*), sum(amt) FROM t WHERE item='Sweater' AND d BETWEEN '2023-05-01' AND '2023-05-31'")
    chats.append([
        T("how many sweaters did we sell in may 2023 and for how much?", "in_schema",
          numbers=[sw_may[0], r2(sw_may[1])], note="rows and SUM(amount) for Sweater in May 2023"),
        T("how many sweaters did you say for May?", "conversation", numbers=[sw_may[0]],
          note="count stated in turn 1"),
    ])

    # 25 -----------------------------------------------------------------
    b = row("SELECT avg(rr), count(*) FROM t WHERE item='Boots'")
    s = row("SELECT avg(rr), count(*) FROM t WHERE item='Sneakers'")
    assert r2(b[0]) != r2(s[0])
    chats.append([
        T("avg rating for boots?", "extra_columns", numbers=[r2(b[0])], note="AVG(Review Rating) for Boots"),
        T("and sneakers", "follow_up", numbers=[r2(s[0])], note="AVG(Review Rating) for Sneakers"),
        T("of the two items we just looked at, which rated higher?", "conversation",
          names=["Boots" if b[0] > s[0] else "Sneakers"], first="Boots" if b[0] > s[0] else "Sneakers",
          note="compare the two averages given earlier"),
    ])

    # 26 -----------------------------------------------------------------
    cash_share_n = pct(one("SELECT count(*) FROM t WHERE pm='Cash'"), one("SELECT count(*) FROM t"))
    best_pm_rating = rows("SELECT pm, count(*) FILTER (WHERE rr >= 4) n FROM t GROUP BY 1 ORDER BY n DESC")
    assert best_pm_rating[0][1] != best_pm_rating[1][1]
    chats.append([
        T("what % of transactions are paid by cash vs card?", "extra_columns",
          names=["Cash", "Credit Card"], numbers=[cash_share_n, r2(100 - cash_share_n)],
          note="row counts by Payment Method / 3,400"),
        T("how many distinct items do we sell?", "in_schema",
          numbers=[one("SELECT count(DISTINCT item) FROM t")], note="COUNT(DISTINCT Item Purchased)"),
        T("what did I ask you right before the items question?", "conversation",
          names=["what % of transactions are paid by cash vs card?"], note="exact text of turn 1"),
    ])

    return [{"chat": f"{PREFIX}-{i:03d}", "dataset": DATASET, "turns": turns}
            for i, turns in enumerate(chats, 1)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", default=os.environ.get("FASHION_RETAIL_CSV", CSV_DEFAULT))
    ap.add_argument("--jsonl", help="write the bank here instead of checking it")
    a = ap.parse_args()
    bank = build(DB(a.csv))
    lines = [json.dumps(c, ensure_ascii=False) for c in bank]
    nturns = sum(len(c["turns"]) for c in bank)
    if a.jsonl:
        with open(a.jsonl, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        print(f"wrote {a.jsonl}: {len(bank)} chats, {nturns} turns")
        return
    have = [json.loads(l) for l in open(BANK, encoding="utf-8") if l.strip()]
    want = [json.loads(l) for l in lines]
    if have != want:
        for h, w in zip(have, want):
            if h != w:
                print("MISMATCH in", w["chat"], file=sys.stderr)
                print(" bank  :", json.dumps(h)[:600], file=sys.stderr)
                print(" truth :", json.dumps(w)[:600], file=sys.stderr)
                break
        else:
            print(f"MISMATCH: bank has {len(have)} chats, truths {len(want)}", file=sys.stderr)
        sys.exit(1)
    print(f"OK: {len(bank)} chats, {nturns} turns match the truths")


if __name__ == "__main__":
    main()

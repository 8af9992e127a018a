#!/usr/bin/env python3
"""Truths for retail_demo_blind.jsonl (written blind).

Data: /work/evaldata/retail_demo/retail_sales_dataset.csv
Default: recompute every expectation with SQL (duckdb) and assert the bank file matches.
--jsonl OUT: write the computed bank to OUT.
"""
import hashlib, json, os, sys
import duckdb

HERE = os.path.dirname(os.path.abspath(__file__))
CSV = "/work/evaldata/retail_demo/retail_sales_dataset.csv"
SHA = "924860cb2e8571373d1a29d658c6da212e8d158663f722416d5008f525c39b00"
BANK = os.path.join(HERE, "retail_demo_blind.jsonl")
DS, PFX = "retail_demo", "rdb"

assert hashlib.sha256(open(CSV, "rb").read()).hexdigest() == SHA, "CSV sha256 mismatch"
con = duckdb.connect()
con.execute(f"""create view t as select "Transaction ID" tid, "Date"::DATE d, "Customer ID" cust,
  Gender g, Age age, "Product Category" cat, Quantity qty, "Price per Unit" price, "Total Amount" amt
  from read_csv('{CSV}', header=true, auto_detect=true)""")
# sanity: line total = qty*price everywhere; one row per transaction
assert con.execute("select count(*) from t where qty*price<>amt").fetchone()[0] == 0
assert con.execute("select count(*)=count(distinct tid) from t").fetchone()[0]
LATEST = con.execute("select max(d) from t").fetchone()[0]
assert str(LATEST) == "2024-01-01"

def v(sql):
    x = con.execute(sql).fetchone()[0]
    return round(float(x), 2) if isinstance(x, float) or not isinstance(x, int) else int(x)

def rows(sql):
    return con.execute(sql).fetchall()

def r2(x): return round(float(x), 2)
def pct(a, b): return r2(a * 100.0 / b)
def growth(new, old): return r2((new - old) * 100.0 / old)
MONTHS = ["January","February","March","April","May","June","July","August","September","October","November","December"]
def dname(d): return f"{MONTHS[d.month-1]} {d.day}, {d.year}"

def ranked(sql, n=None):
    """rows (name, value) ordered desc; assert no tie at the cut n (or between 1st and 2nd)."""
    rs = rows(sql)
    k = n if n else 1
    if len(rs) > k:
        assert rs[k-1][1] != rs[k][1], f"tie at cut: {rs[:k+1]}"
    return rs

REV = "sum(amt)"
TOT = v("select sum(amt) from t")

def _n(x):
    return int(x) if isinstance(x, float) and x.is_integer() else x

def E(**kw):
    if "numbers" in kw: kw["numbers"] = [_n(x) for x in kw["numbers"]]
    return {k: val for k, val in kw.items() if val not in (None, [], "")}

chats = []
def chat(*turns): chats.append(list(turns))
def T(q, cat, **exp): return {"q": q, "category": cat, "expect": E(**exp)}

# ---------- 001
q1 = "what's total revenue across the whole file?"
chat(T(q1, "in_schema", numbers=[TOT], note="sum(Total Amount) over all rows"),
     T("how many transactions is that?", "follow_up", numbers=[v("select count(*) from t")], note="rows = transactions"),
     T("whats the overall AOV?", "in_schema", numbers=[r2(TOT / v("select count(*) from t"))], note="revenue / transactions"),
     T("what did I ask first?", "conversation", names=[q1], note="first question text"))

# ---------- 002
m = ranked("select strftime(d,'%Y-%m') m, sum(amt) r from t group by 1 order by 2 desc")
m_low = ranked("select strftime(d,'%Y-%m') m, sum(amt) r from t where year(d)=2023 group by 1 order by 2 asc")
def mname(s): y, mm = s.split("-"); return f"{MONTHS[int(mm)-1]} {y}"
assert m_low[0][1] != m_low[1][1]
chat(T("quick one — total units sold?", "in_schema", numbers=[v("select sum(qty) from t")], note="sum(Quantity)"),
     T("which month had the highest rev?", "in_schema", names=[mname(m[0][0])], numbers=[r2(m[0][1])], first=mname(m[0][0]), note="monthly sum(Total Amount)"))

# ---------- 003
qr = {r[0]: r[1] for r in rows("select quarter(d), sum(amt) from t where year(d)=2023 group by 1")}
qbest = ranked("select 'Q'||quarter(d)||' 2023', sum(amt) from t where year(d)=2023 group by 1 order by 2 desc")
chat(T("for the weekly review: revenue in Q2 2023?", "in_schema", numbers=[r2(qr[2])], note="Apr-Jun 2023"),
     T("how does that compare to Q1 — growth %?", "follow_up", numbers=[r2(qr[1]), growth(qr[2], qr[1])], note="(Q2-Q1)/Q1*100"))

# ---------- 004
cats = ranked("select cat, sum(amt) from t group by 1 order by 2 desc", 3)
beauty = v("select sum(amt) from t where cat='Beauty'")
bg = rows("select g, sum(amt) from t where cat='Beauty' group by 1 order by 2 desc")
chat(T("revenue by product category pls", "extra_columns", names=[c for c, _ in cats], numbers=[r2(x) for _, x in cats], first=cats[0][0], note="sum by Product Category"),
     T("what share is beauty?", "extra_columns", numbers=[pct(beauty, TOT)], note="Beauty revenue / total *100"),
     T("split that by gender", "follow_up", names=[g for g, _ in bg], numbers=[r2(x) for _, x in bg], note="Beauty revenue by Gender"),
     T("which category were we looking at?", "conversation", names=["Beauty"]))

# ---------- 005
nf = v("select count(*) from t where g='Female'")
nm = v("select count(*) from t where g='Male'")
q_f = "how many transactions did female customers make?"
chat(T(q_f, "extra_columns", numbers=[nf]),
     T("avg spend per transaction, women vs men", "extra_columns", names=["Female", "Male"],
       numbers=[v("select avg(amt) from t where g='Female'"), v("select avg(amt) from t where g='Male'")], note="revenue/transactions per gender"),
     T("what number did you give me for female transactions?", "conversation", numbers=[nf]))

# ---------- 006
chat(T("I'm Priya, I manage the electronics counter. how many units did electronics move in 2023?", "extra_columns",
       numbers=[v("select sum(qty) from t where cat='Electronics' and year(d)=2023")], note="sum(Quantity), Electronics, 2023"),
     T("which category do I manage?", "conversation", names=["Electronics"]))

# ---------- 007
ne = v("select count(*) from t where cat<>'Electronics'")
chat(T("revenue for everything except clothing", "negation_recency", numbers=[v("select sum(amt) from t where cat<>'Clothing'")]),
     T("how many transactions outside electronics?", "negation_recency", numbers=[ne]),
     T("excluding beauty, whats the AOV", "negation_recency", numbers=[v("select avg(amt) from t where cat<>'Beauty'")], note="revenue/transactions, Clothing+Electronics"))

# ---------- 008
def lastn(n): return f"d > DATE '{LATEST}' - INTERVAL {n} DAY"
chat(T("what were sales in the last 7 days of data?", "negation_recency", numbers=[v(f"select sum(amt) from t where {lastn(7)}")], note="Dec 26 2023 - Jan 1 2024 inclusive"),
     T("how many transactions was that?", "follow_up", numbers=[v(f"select count(*) from t where {lastn(7)}")]),
     T("and over the last 30 days?", "negation_recency", numbers=[v(f"select sum(amt) from t where {lastn(30)}")], note="Dec 3 2023 - Jan 1 2024 inclusive"))

# ---------- 009
chat(T("this year so far — how much revenue?", "negation_recency", numbers=[v("select sum(amt) from t where year(d)=2024")], note="'this year' = year of latest date (2024: only Jan 1)"),
     T("and all of last year?", "follow_up", numbers=[v("select sum(amt) from t where year(d)=2023")], note="2023"))

# ---------- 010
chat(T("what's our profit margin on electronics?", "unanswerable", decline=True, note="no cost column"),
     T("ok then, electronics revenue in December 2023?", "extra_columns", numbers=[v("select sum(amt) from t where cat='Electronics' and strftime(d,'%Y-%m')='2023-12'")]),
     T("how much did we spend on marketing that month?", "unanswerable", decline=True, note="no marketing spend"))

# ---------- 011
wd = ranked("select dayname(d), sum(amt) from t group by 1 order by 2 desc")
assert wd[-1][1] != wd[-2][1]
wkend = v("select sum(amt) from t where dayofweek(d) in (0,6)")
chat(T("Which day of the week brings in the most revenue?", "in_schema", names=[wd[0][0]], numbers=[r2(wd[0][1])], first=wd[0][0]),
     T("and the slowest?", "follow_up", names=[wd[-1][0]], numbers=[r2(wd[-1][1])]))

# ---------- 012
days = ranked("select d, sum(amt) from t group by 1 order by 2 desc", 3)
chat(T("top 3 days by revenue?", "in_schema", names=[dname(x) for x, _ in days[:3]], numbers=[r2(y) for _, y in days[:3]], first=dname(days[0][0])),
     T("how many transactions on the top one?", "follow_up", numbers=[v(f"select count(*) from t where d=DATE '{days[0][0]}'")]),
     T("what was the 2nd date you listed?", "conversation", names=[dname(days[1][0])]))

# ---------- 013
ages = ranked("select cat, avg(age) from t group by 1 order by 2 desc", 3)
chat(T("avg customer age by category", "extra_columns", names=[c for c, _ in ages], numbers=[r2(a) for _, a in ages], first=ages[0][0]),
     T("youngest and oldest customer age?", "extra_columns", numbers=[v("select min(age) from t"), v("select max(age) from t")]),
     T("how many transactions from customers under 25?", "extra_columns", numbers=[v("select count(*) from t where age<25")], note="Age < 25"))

# ---------- 014
qm = ranked("select qty, count(*) from t group by 1 order by 2 desc")
p500 = v("select sum(amt) from t where price=500")
chat(T("whats the most common quantity per transaction?", "in_schema", numbers=[int(qm[0][0]), int(qm[0][1])], note="mode of Quantity and its count"),
     T("how many transactions at the 500 price point?", "in_schema", numbers=[v("select count(*) from t where price=500")], note="Price per Unit = 500"))

# ---------- 015
chat(T("what was revenue for 25?", "in_schema", clarify=True, note="25 is both an Age and a Price per Unit value"),
     T("the 25 price point, I mean", "follow_up", numbers=[v("select sum(amt) from t where price=25")]))

# ---------- 016
nov = v("select sum(amt) from t where strftime(d,'%Y-%m')='2023-11'")
dec = v("select sum(amt) from t where strftime(d,'%Y-%m')='2023-12'")
dc = ranked("select cat, sum(amt) from t where strftime(d,'%Y-%m')='2023-12' group by 1 order by 2 desc")
chat(T("mom growth nov -> dec 2023?", "in_schema", numbers=[nov, dec, growth(dec, nov)]),
     T("which category drove december?", "extra_columns", names=[dc[0][0]], numbers=[r2(dc[0][1])], first=dc[0][0], note="top category Dec 2023"))

# ---------- 017
chat(T("can you forecast revenue for Feb 2024?", "unanswerable", decline=True, note="forecast; data ends 2024-01-01"),
     T("fine. what was revenue in feb 2023 then?", "in_schema", numbers=[v("select sum(amt) from t where strftime(d,'%Y-%m')='2023-02'")]))

# ---------- 018
q18 = "Hi, I'm Marco, working on the women's segment. revenue from female customers in H2 2023?"
chat(T(q18, "extra_columns", numbers=[v("select sum(amt) from t where g='Female' and d between DATE '2023-07-01' and DATE '2023-12-31'")], note="Jul-Dec 2023, Female"),
     T("which segment am I working on?", "conversation", names=["Female"], note="women / female customers"))

# ---------- 019
chat(T("revenue from male customers excluding electronics", "negation_recency", numbers=[v("select sum(amt) from t where g='Male' and cat<>'Electronics'")]),
     T("how many transactions in 2023 outside of Q4?", "negation_recency", numbers=[v("select count(*) from t where year(d)=2023 and quarter(d)<>4")]))

# ---------- 020
bgen = ranked("select g, sum(amt) from t where cat='Beauty' group by 1 order by 2 desc")
chat(T("what's the return rate for clothing?", "unanswerable", decline=True, note="no returns data"),
     T("ok — which gender spends more on beauty?", "extra_columns", names=[bgen[0][0]], numbers=[r2(bgen[0][1])], first=bgen[0][0]))

# ---------- 021
mx = v("select max(amt) from t")
chat(T("how many unique customers do we have?", "in_schema", numbers=[v("select count(distinct cust) from t")]),
     T("biggest single transaction value?", "in_schema", numbers=[mx]))

# ---------- 022
o50 = ranked("select cat, sum(amt) from t where age>=50 group by 1 order by 2 desc", 3)
chat(T("for customers aged 50 and over, revenue by category", "extra_columns", names=[c for c, _ in o50], numbers=[r2(x) for _, x in o50], first=o50[0][0]),
     T("what's their share of total revenue?", "follow_up", numbers=[pct(sum(x for _, x in o50), TOT)]),
     T("what age cutoff did I use?", "conversation", numbers=[50]))

# ---------- 023
l14 = ranked(f"select cat, sum(amt) from t where {lastn(14)} group by 1 order by 2 desc")
chat(T("last 14 days — total rev?", "negation_recency", numbers=[v(f"select sum(amt) from t where {lastn(14)}")], note="Dec 19 2023 - Jan 1 2024 inclusive"),
     T("which category led in that window?", "follow_up", names=[l14[0][0]], numbers=[r2(l14[0][1])], first=l14[0][0]))

# ---------- 024
def hh(cat, h):
    rng = "DATE '2023-01-01' and DATE '2023-06-30'" if h == 1 else "DATE '2023-07-01' and DATE '2023-12-31'"
    return v(f"select sum(amt) from t where cat='{cat}' and d between {rng}")
chat(T("quick q - electronics rev growth H1 vs H2 2023?", "extra_columns", numbers=[hh('Electronics', 1), hh('Electronics', 2), growth(hh('Electronics', 2), hh('Electronics', 1))], note="(H2-H1)/H1*100"),
     T("do the same for clothng", "follow_up", numbers=[hh('Clothing', 1), hh('Clothing', 2), growth(hh('Clothing', 2), hh('Clothing', 1))]))

# ---------- 025
chat(T("what was the weather like on our best sales day?", "unanswerable", decline=True, note="no weather data"),
     T("how many transactions did we have in october 2023?", "in_schema", numbers=[v("select count(*) from t where strftime(d,'%Y-%m')='2023-10'")]),
     T("split by gender pls", "follow_up", names=["Female", "Male"],
       numbers=[v("select count(*) from t where g='Female' and strftime(d,'%Y-%m')='2023-10'"), v("select count(*) from t where g='Male' and strftime(d,'%Y-%m')='2023-10'")]),
     T("which month did I ask about?", "conversation", names=["October 2023"]))

bank = [{"chat": f"{PFX}-{i:03d}", "dataset": DS, "turns": turns} for i, turns in enumerate(chats, 1)]

def dump(b): return "\n".join(json.dumps(c, ensure_ascii=False) for c in b) + "\n"

if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--jsonl":
        open(sys.argv[2], "w").write(dump(bank)); print("wrote", sys.argv[2])
    else:
        got = [json.loads(l) for l in open(BANK) if l.strip()]
        assert got == json.loads("[" + ",".join(dump(bank).strip().split("\n")) + "]"), "bank differs from truths"
        from collections import Counter
        cnt = Counter(t["category"] for c in bank for t in c["turns"])
        print("OK", len(bank), "chats", sum(cnt.values()), "turns", dict(cnt))

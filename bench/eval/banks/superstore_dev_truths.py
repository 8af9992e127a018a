"""Recompute every truth of superstore_dev.jsonl from the raw CSV and assert the bank.

Standalone: needs only duckdb. Run:  uv run python bench/eval/banks/superstore_dev_truths.py
Conventions (see README): revenue = SUM(Sales); orders = COUNT(DISTINCT Order ID);
customers = COUNT(DISTINCT Customer ID); units = SUM(Quantity); AOV = revenue / orders;
margin = SUM(Profit)/SUM(Sales)*100; growth = (new-old)/old*100; products grouped by Product Name;
periods use Order Date; "this year" / "latest month" / "this quarter" / "last 6 months" are relative
to the latest order date 2017-12-30 (this year = 2017, last year = 2016, this quarter = Q4 2017,
last quarter = Q3 2017, last 6 calendar months = Jul-Dec 2017). Money and percents rounded to 2 decimals.
"""
import json
import os
import sys

import duckdb

HERE = os.path.dirname(os.path.abspath(__file__))
CSV = os.environ.get("SUPERSTORE_CSV", "/work/evaldata/superstore/superstore.csv")
BANK = os.path.join(HERE, "superstore_dev.jsonl")

con = duckdb.connect()
con.execute(f"""
CREATE VIEW t AS SELECT
  "Order ID" AS oid,
  strptime("Order Date", '%m/%d/%Y')::DATE AS od,
  strptime("Ship Date", '%m/%d/%Y')::DATE AS sd,
  "Ship Mode" AS sm, "Customer ID" AS cid, "Customer Name" AS cn, "Segment" AS seg,
  "City" AS city, "State" AS st, "Postal Code" AS pc, "Region" AS reg,
  "Category" AS cat, "Sub-Category" AS sub, "Product Name" AS pn,
  CAST("Sales" AS DOUBLE) AS s, CAST("Quantity" AS BIGINT) AS q,
  CAST("Discount" AS DOUBLE) AS d, CAST("Profit" AS DOUBLE) AS p
FROM read_csv('{CSV}', header=true, all_varchar=true)
""")


def one(sql):
    return con.execute(sql).fetchone()[0]


def rows(sql):
    return con.execute(sql).fetchall()


def r2(x):
    return round(float(x), 2)


def month_name(ym):
    import datetime
    y, m = ym.split("-")
    return datetime.date(int(y), int(m), 1).strftime("%B %Y")


# ---- sanity on the data itself -------------------------------------------------------------
assert one("SELECT count(*) FROM t") == 9994
assert str(one("SELECT max(od) FROM t")) == "2017-12-30"
assert str(one("SELECT min(od) FROM t")) == "2014-01-03"
# one ship date / ship mode / customer per order (so per-order ship facts are well defined)
assert one("""SELECT count(*) FROM (SELECT oid FROM t GROUP BY oid
              HAVING count(DISTINCT sd)>1 OR count(DISTINCT sm)>1 OR count(DISTINCT cid)>1)""") == 0
# customer names and ids are 1:1
assert one("SELECT count(DISTINCT cid) FROM t") == one("SELECT count(DISTINCT cn) FROM t") == \
    one("SELECT count(DISTINCT cid || '|' || cn) FROM t")

T = {}  # (chat, turn_index) -> expected dict (subset of keys checked)


def rev(where):
    return r2(one(f"SELECT sum(s) FROM t WHERE {where}"))


def orders(where):
    return one(f"SELECT count(DISTINCT oid) FROM t WHERE {where}")


def profit(where):
    return r2(one(f"SELECT sum(p) FROM t WHERE {where}"))


def margin(where):
    return r2(one(f"SELECT sum(p)/sum(s)*100 FROM t WHERE {where}"))


def ranking(sql, k, desc=True):
    """rows (name, value) ordered; asserts no tie at the cut k (value k != value k+1)."""
    rs = rows(sql)
    rs.sort(key=lambda r: r[1], reverse=desc)
    if len(rs) > k:
        assert rs[k - 1][1] != rs[k][1], f"tie at cut {k}: {rs[k-1]} vs {rs[k]}"
    return rs


# ss-dev-01
T["ss-dev-01", 0] = {"numbers": [rev("year(od)=2016")]}
T["ss-dev-01", 1] = {"numbers": [orders("year(od)=2016")]}
T["ss-dev-01", 2] = {"numbers": [r2(one("SELECT sum(s)/count(DISTINCT oid) FROM t WHERE year(od)=2016"))]}

# ss-dev-02
assert rows("SELECT DISTINCT cn FROM t WHERE cid='CG-12520'") == [("Claire Gute",)]
T["ss-dev-02", 0] = {"numbers": [rev("cid='CG-12520'")], "names": ["Claire Gute"]}
last = one("SELECT max(od) FROM t WHERE cid='CG-12520'")
T["ss-dev-02", 1] = {"names": [last.strftime("%B %-d, %Y")]}
T["ss-dev-02", 2] = {"numbers": [one("SELECT sum(q) FROM t WHERE cid='CG-12520'")]}

# ss-dev-03
T["ss-dev-03", 0] = {"numbers": [margin("reg='Central' AND year(od)=2017")]}
rs = ranking("SELECT st, sum(s) FROM t WHERE reg='Central' AND year(od)=2017 GROUP BY st", 1)
T["ss-dev-03", 1] = {"first": rs[0][0], "names": [rs[0][0]], "numbers": [r2(rs[0][1])]}
T["ss-dev-03", 2] = {"decline": True}
T["ss-dev-03", 3] = {"names": ["Central"]}

# ss-dev-04
rs = ranking("SELECT cn, sum(s) FROM t WHERE year(od)=2017 GROUP BY cn", 5)
T["ss-dev-04", 0] = {"first": rs[0][0], "names": [r[0] for r in rs[:5]], "numbers": [r2(r[1]) for r in rs[:5]]}
rs = rows("SELECT cn, count(DISTINCT oid) o FROM t WHERE year(od)=2017 GROUP BY cn ORDER BY o DESC")
top = [r for r in rs if r[1] == rs[0][1]]
assert len(top) == 2  # deliberate tie
T["ss-dev-04", 1] = {"names": [r[0] for r in top], "numbers": [rs[0][1]]}
T["ss-dev-04", 2] = {"names": ["customers", "revenue", "2017"]}

# ss-dev-05
T["ss-dev-05", 0] = {"decline": True}
T["ss-dev-05", 1] = {"numbers": [profit("year(od)=2017")]}
T["ss-dev-05", 2] = {"numbers": [profit("year(od)=2017 AND reg<>'Central'")]}

# ss-dev-06
CANON = "pn='Canon imageCLASS 2200 Advanced Copier'"
T["ss-dev-06", 0] = {"numbers": [one(f"SELECT sum(q) FROM t WHERE {CANON}"), rev(CANON)]}
T["ss-dev-06", 1] = {"names": [r[0] for r in rows(f"SELECT DISTINCT cn FROM t WHERE {CANON}")]}
T["ss-dev-06", 2] = {"numbers": [margin(CANON)]}

# ss-dev-07
rs = rows("SELECT sub, sum(p) FROM t GROUP BY sub HAVING sum(p) < 0 ORDER BY 2")
T["ss-dev-07", 0] = {"names": [r[0] for r in rs], "numbers": [r2(r[1]) for r in rs]}
rs = ranking("SELECT reg, sum(p) FROM t WHERE sub='Tables' GROUP BY reg", 1, desc=False)
T["ss-dev-07", 1] = {"first": rs[0][0], "names": [rs[0][0]], "numbers": [r2(rs[0][1])]}
T["ss-dev-07", 2] = {"numbers": [profit("cat='Furniture' AND sub<>'Tables'")]}

# ss-dev-08
T["ss-dev-08", 0] = {"numbers": [orders("year(od)=2015")]}
DAYS = "(SELECT oid, any_value(sm) sm, any_value(sd - od) dd FROM t GROUP BY oid)"
mx = one(f"SELECT max(dd) FROM {DAYS}")
n_mx = one(f"SELECT count(*) FROM {DAYS} WHERE dd = {mx}")
T["ss-dev-08", 1] = {"numbers": [mx, n_mx]}
modes = rows(f"SELECT DISTINCT sm FROM {DAYS} WHERE dd = {mx}")
assert len(modes) == 1
T["ss-dev-08", 2] = {"names": [modes[0][0]], "numbers": [n_mx]}

# ss-dev-09
T["ss-dev-09", 0] = {"numbers": [rev("year(od)=2017 AND cat<>'Technology'")]}
LAPSED = "(SELECT cid FROM t GROUP BY cid HAVING max(od) < DATE '2016-01-01')"
T["ss-dev-09", 1] = {"numbers": [one(f"SELECT count(*) FROM {LAPSED}")]}
rs = ranking(f"SELECT cn, sum(s) FROM t WHERE cid IN {LAPSED} GROUP BY cn", 1)
T["ss-dev-09", 2] = {"first": rs[0][0], "names": [rs[0][0]], "numbers": [r2(rs[0][1])]}

# ss-dev-10
c2015 = one("SELECT count(DISTINCT cid) FROM t WHERE year(od)=2015")
T["ss-dev-10", 0] = {"numbers": [c2015]}
T["ss-dev-10", 1] = {"numbers": [one("""SELECT count(*) FROM (SELECT cid FROM t GROUP BY cid
                                          HAVING max(od) < DATE '2017-07-01')""")]}
T["ss-dev-10", 2] = {"numbers": [c2015]}

# ss-dev-11
by_city = rows("SELECT city, count(DISTINCT oid) o FROM t GROUP BY city ORDER BY o DESC")
by_city_st = rows("SELECT city, count(DISTINCT oid) o FROM t GROUP BY city, st ORDER BY o DESC")
assert sorted(by_city[:5]) == sorted(by_city_st[:5])
cut = by_city[2][1]
top = [r for r in by_city if r[1] >= cut]
assert len(top) == 4 and by_city[2][1] == by_city[3][1]  # tie at the cut: SF and Philadelphia
T["ss-dev-11", 0] = {"first": by_city[0][0], "names": [r[0] for r in top],
                     "numbers": sorted({r[1] for r in top}, reverse=True)}
names = [r[0] for r in top]
rs = rows("SELECT city, sum(p) FROM t WHERE city IN (%s) GROUP BY city ORDER BY 2" % ",".join(f"'{n}'" for n in names))
T["ss-dev-11", 1] = {"names": [rs[0][0]], "numbers": [r2(rs[0][1])]}
rs = ranking("SELECT city, sum(p) FROM t GROUP BY city", 1)
rs2 = ranking("SELECT city, sum(p) FROM t GROUP BY city, st", 1)
assert rs[0] == rs2[0]
T["ss-dev-11", 2] = {"first": rs[0][0], "names": [rs[0][0]], "numbers": [r2(rs[0][1])]}

# ss-dev-12
T["ss-dev-12", 0] = {"numbers": [r2(one("SELECT avg(d)*100 FROM t WHERE st='Texas'"))]}
T["ss-dev-12", 1] = {"numbers": [r2(one("SELECT sum(s) FILTER (WHERE d > 0)/sum(s)*100 FROM t WHERE year(od)=2017"))]}
T["ss-dev-12", 2] = {"numbers": [profit("d > 0.3")]}

# ss-dev-13
rs = rows("SELECT seg, sum(s)/count(DISTINCT oid) FROM t GROUP BY seg ORDER BY seg")
T["ss-dev-13", 0] = {"names": [r[0] for r in rs], "numbers": [r2(r[1]) for r in rs]}
rs = ranking("SELECT seg, sum(p)/sum(s)*100 FROM t GROUP BY seg", 1)
T["ss-dev-13", 1] = {"first": rs[0][0], "names": [rs[0][0]], "numbers": [r2(rs[0][1])]}
T["ss-dev-13", 2] = {"names": ["segment"]}

# ss-dev-14
T["ss-dev-14", 0] = {"numbers": [rev("pc='10035'")]}
T["ss-dev-14", 1] = {"numbers": [orders("pc='10035' AND year(od)=2017")]}

# ss-dev-15
y17, y16 = rev("year(od)=2017"), rev("year(od)=2016")
g = r2((one("SELECT sum(s) FROM t WHERE year(od)=2017") - one("SELECT sum(s) FROM t WHERE year(od)=2016"))
       / one("SELECT sum(s) FROM t WHERE year(od)=2016") * 100)
T["ss-dev-15", 0] = {"numbers": [y17, y16, g]}
latest = one("SELECT strftime(max(od), '%Y-%m') FROM t")
T["ss-dev-15", 1] = {"names": [month_name(latest)], "numbers": [rev(f"strftime(od, '%Y-%m')='{latest}'")]}
prev = f"{int(latest[:4]) - 1}{latest[4:]}"
T["ss-dev-15", 2] = {"names": [month_name(prev)], "numbers": [rev(f"strftime(od, '%Y-%m')='{prev}'")]}

# ss-dev-16
rs = ranking("SELECT pn, sum(q) FROM t GROUP BY pn", 1)
T["ss-dev-16", 0] = {"first": rs[0][0], "names": [rs[0][0]], "numbers": [rs[0][1]]}
T["ss-dev-16", 1] = {"decline": True}
T["ss-dev-16", 2] = {"decline": True}
T["ss-dev-16", 3] = {"names": [rs[0][0]]}

# ss-dev-17
rs = ranking("SELECT pn, sum(s) FROM t GROUP BY pn", 3, desc=False)
T["ss-dev-17", 0] = {"first": rs[0][0], "names": [r[0] for r in rs[:3]], "numbers": [r2(r[1]) for r in rs[:3]]}
bottom = rs[0][0].replace("'", "''")
T["ss-dev-17", 1] = {"numbers": [one(f"SELECT sum(q) FROM t WHERE pn='{bottom}'")]}

# ss-dev-18
assert one("SELECT count(DISTINCT cid) FROM t WHERE cn='Sean Miller'") == 1
T["ss-dev-18", 0] = {"numbers": [orders("cn='Sean Miller'")]}
T["ss-dev-18", 1] = {"numbers": [rev("cn='Sean Miller'")]}
T["ss-dev-18", 2] = {"numbers": [profit("cn='Sean Miller'")]}

# ss-dev-19
T["ss-dev-19", 0] = {"decline": True}
T["ss-dev-19", 1] = {"decline": True}
T["ss-dev-19", 2] = {"numbers": [one("SELECT count(DISTINCT cid) FROM t WHERE seg<>'Consumer'")]}
assert one("SELECT count(*) FROM (SELECT cid FROM t GROUP BY cid HAVING count(DISTINCT seg)>1)") == 0

# ss-dev-20
chands = [r[0] for r in rows("SELECT DISTINCT cn FROM t WHERE cn ILIKE '% chand'")]
assert len(chands) > 1
T["ss-dev-20", 0] = {"clarify": True, "names": chands}
T["ss-dev-20", 1] = {"numbers": [rev("cn='Tamara Chand'")]}
T["ss-dev-20", 2] = {"names": ["Tamara Chand"]}

# ss-dev-21
rs = ranking("SELECT strftime(od, '%Y-%m'), sum(s) FROM t WHERE year(od)=2017 GROUP BY 1", 1)
lo = ranking("SELECT strftime(od, '%Y-%m'), sum(s) FROM t WHERE year(od)=2017 GROUP BY 1", 1, desc=False)
T["ss-dev-21", 0] = {"first": month_name(rs[0][0]), "names": [month_name(rs[0][0])], "numbers": [r2(rs[0][1])]}
T["ss-dev-21", 1] = {"names": [month_name(lo[0][0])], "numbers": [r2(lo[0][1])]}
T["ss-dev-21", 2] = {"numbers": [r2(rs[0][1])]}

# ss-dev-22
Q4 = "year(od)=2017 AND quarter(od)=4"
Q3 = "year(od)=2017 AND quarter(od)=3"
q4, q3 = one(f"SELECT sum(s) FROM t WHERE {Q4}"), one(f"SELECT sum(s) FROM t WHERE {Q3}")
T["ss-dev-22", 0] = {"numbers": [r2(q4), r2(q3), r2((q4 - q3) / q3 * 100)]}
T["ss-dev-22", 1] = {"numbers": [orders(Q4), orders(Q3)]}

# ss-dev-23
T["ss-dev-23", 0] = {"numbers": [rev("seg='Home Office' AND year(od)=2017")]}
rs = ranking("SELECT sub, sum(s) FROM t WHERE seg='Home Office' AND year(od)=2017 GROUP BY sub", 1)
T["ss-dev-23", 1] = {"first": rs[0][0], "names": [rs[0][0]], "numbers": [r2(rs[0][1])]}
T["ss-dev-23", 2] = {"names": ["Home Office"]}

# ss-dev-24
rs = ranking("SELECT st, sum(s) FROM t WHERE st NOT IN ('California','New York') GROUP BY st", 3)
T["ss-dev-24", 0] = {"first": rs[0][0], "names": [r[0] for r in rs[:3]], "numbers": [r2(r[1]) for r in rs[:3]]}
three = ",".join(f"'{r[0]}'" for r in rs[:3])
rs = ranking(f"SELECT st, sum(p) FROM t WHERE st IN ({three}) GROUP BY st", 1)
T["ss-dev-24", 1] = {"first": rs[0][0], "names": [rs[0][0]], "numbers": [r2(rs[0][1])]}
T["ss-dev-24", 2] = {"numbers": [one("SELECT count(DISTINCT cid) FROM t")]}

# ss-dev-25
T["ss-dev-25", 0] = {"numbers": [one("""SELECT count(DISTINCT cid) FROM t WHERE year(od)=2014
                                          AND cid NOT IN (SELECT cid FROM t WHERE year(od)=2017)""")]}
T["ss-dev-25", 1] = {"numbers": [one("SELECT count(*) FROM (SELECT cid FROM t GROUP BY cid HAVING year(min(od))=2017)")]}
T["ss-dev-25", 2] = {"names": ["2014", "2017"]}

# ss-dev-26
o17 = orders("year(od)=2017")
T["ss-dev-26", 0] = {"numbers": [r2(orders("year(od)=2017 AND sm='Same Day'") * 100 / o17)]}
T["ss-dev-26", 1] = {"numbers": [r2(orders("year(od)=2017 AND sm='First Class'") * 100 / o17)]}
T["ss-dev-26", 2] = {"decline": True}

# ss-dev-27
T["ss-dev-27", 0] = {"numbers": [profit("reg='West' AND year(od)=2015")]}
T["ss-dev-27", 1] = {"numbers": [profit("reg='East' AND year(od)=2015")]}
T["ss-dev-27", 2] = {"names": ["West", "East"]}

# ss-dev-28
T["ss-dev-28", 0] = {"numbers": [orders("sm='Second Class' AND st='Florida'")]}
T["ss-dev-28", 1] = {"numbers": [orders("year(od)=2017 AND sm<>'Standard Class'")]}
T["ss-dev-28", 2] = {"decline": True}

# ss-dev-29
TROY = "pn='Global Troy Executive Leather Low-Back Tilter'"
assert one("SELECT count(DISTINCT pn) FROM t WHERE pn ILIKE '%global troy%'") == 1
T["ss-dev-29", 0] = {"numbers": [rev(TROY), one(f"SELECT sum(q) FROM t WHERE {TROY}")]}
rs = ranking(f"SELECT reg, sum(q) FROM t WHERE {TROY} GROUP BY reg", 1)
T["ss-dev-29", 1] = {"first": rs[0][0], "names": [rs[0][0]], "numbers": [rs[0][1]]}
cubify = [r[0] for r in rows("SELECT DISTINCT pn FROM t WHERE pn ILIKE '%cubify%' ORDER BY 1")]
assert len(cubify) == 2
T["ss-dev-29", 2] = {"clarify": True, "names": cubify}

# ss-dev-30
u14 = one("SELECT sum(q) FROM t WHERE year(od)=2014")
T["ss-dev-30", 0] = {"numbers": [u14]}
T["ss-dev-30", 1] = {"numbers": [r2(one("SELECT sum(s)/count(DISTINCT oid) FROM t WHERE year(od)=2014"))]}
T["ss-dev-30", 2] = {"names": ["Technology", "Furniture"],
                     "numbers": [margin("cat='Technology'"), margin("cat='Furniture'")]}
T["ss-dev-30", 3] = {"numbers": [u14]}
T["ss-dev-30", 4] = {"names": ["Technology", "Furniture"]}


# ---- compare with the bank ------------------------------------------------------------------
CATS = {"in_schema", "extra_columns", "negation_recency", "follow_up", "conversation", "unanswerable"}
errors = []
seen = set()
with open(BANK) as f:
    bank = [json.loads(line) for line in f if line.strip()]
for ch in bank:
    assert ch["dataset"] == "superstore"
    assert 2 <= len(ch["turns"]) <= 5, ch["chat"]
    for i, turn in enumerate(ch["turns"]):
        key = (ch["chat"], i)
        seen.add(key)
        assert turn["category"] in CATS, key
        exp = turn["expect"]
        truth = T.get(key)
        if truth is None:
            errors.append(f"{key}: no truth computed")
            continue
        if (turn["category"] == "unanswerable") != bool(exp.get("decline")):
            errors.append(f"{key}: decline flag vs category mismatch")
        for k, v in truth.items():
            b = exp.get(k)
            if k == "numbers":
                if sorted(round(float(x), 2) for x in (b or [])) != sorted(round(float(x), 2) for x in v):
                    errors.append(f"{key}: numbers bank={b} truth={v}")
            elif k == "names":
                if sorted(b or []) != sorted(v):
                    errors.append(f"{key}: names bank={b} truth={v}")
            elif b != v:
                errors.append(f"{key}: {k} bank={b} truth={v}")
        for k in ("numbers", "names", "first", "decline", "clarify"):
            if k in exp and k not in truth:
                errors.append(f"{key}: bank has {k} but no truth for it")
missing = set(T) - seen
if missing:
    errors.append(f"truths without bank turn: {sorted(missing)}")

from collections import Counter
cnt = Counter(t["category"] for ch in bank for t in ch["turns"])
print(f"{len(bank)} chats, {sum(cnt.values())} turns:", dict(sorted(cnt.items())))
if errors:
    print("\n".join(errors))
    sys.exit(1)
print("all truths match")

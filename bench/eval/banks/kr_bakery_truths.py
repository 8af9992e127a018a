#!/usr/bin/env python3
"""Truths for the kr_bakery blind bank (kr_bakery_blind.jsonl).

Data: the receipts of a small bakery in Chuncheon (South Korea), one row per receipt, in a WIDE layout: a datetime, a
weekday label, the receipt `total` in Korean won, a `place` (the customer's neighbourhood, written in Korean, e.g.
`동면`, `후평 2동`) and then one column per menu item (angbutter, plain bread, ..., merinque cookies) holding the number
of that item on the receipt (blank = none). 2,420 receipts, 2019-07-11 ... 2020-05-02. The file is semicolon-delimited,
dates are d/m/Y, it has a UTF-8 BOM, CRLF line ends, 233 all-empty lines and one line that has only a datetime.
Taken from the public GitHub repository
RenatoCS25/Miga-de-Oro-Bussiness-Intelligence-para-la-Optimizacion-de-Ventas-de-Panaderia, path
data/Bakery Sales.csv, installed byte for byte (see the README section).

Every expected number and name is computed here with duckdb SQL; nothing is typed by hand except the question texts
(and, for `conversation` turns, the text of an earlier question or a fact the user stated, taken from the chat itself).

    cd /work/main && uv run --no-sync python bench/eval/banks/kr_bakery_truths.py [CSV]                    # print + check bank
    cd /work/main && uv run --no-sync python bench/eval/banks/kr_bakery_truths.py [CSV] --jsonl out.jsonl  # write the bank

CSV defaults to "/work/evaldata/kr_bakery/Bakery Sales.csv". Without --jsonl the script compares the computed chats
with kr_bakery_blind.jsonl next to it (or --bank PATH) and exits 1 on the first mismatch (also when the CSV's sha256,
header or row count is not the expected one). Needs only the standard library and duckdb.
"""
import argparse
import hashlib
import json
import sys
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import duckdb

DATASET = "kr_bakery"
PREFIX = "kb"
DEFAULT_CSV = "/work/evaldata/kr_bakery/Bakery Sales.csv"
SHA256 = "463a6786232f8cd194521313bbfd2248c1a7b869df5da659b31ce6183e735e81"
ROWS = 2654  # data lines after the header (2,420 receipts + 233 empty lines + 1 datetime-only line)
RECEIPTS = 2420
EMPTY_LINES = 233
ITEMS = [
    "angbutter", "plain bread", "jam", "americano", "croissant", "caffe latte", "tiramisu croissant", "cacao deep",
    "pain au chocolat", "almond croissant", "croque monsieur", "mad garlic", "milk tea", "gateau chocolat", "pandoro",
    "cheese cake", "lemon ade", "orange pound", "wiener", "vanila latte", "berry ade", "tiramisu", "merinque cookies",
]
HEADER = ("\ufeffdatetime;day of week;total;place;" + ";".join(ITEMS) + "\r\n").encode("utf-8")
FIRST = date(2019, 7, 11)  # first receipt
LATEST = date(2020, 5, 2)  # last receipt with a total; "this year", "last full month" are anchored here
STRAY = "18/06/2020 14:52"  # the one line with a datetime and nothing else (no total, no items): not a sale

con: duckdb.DuckDBPyConnection


# ---------------------------------------------------------------- helpers
def qi(c: str) -> str:
    return '"' + c.replace('"', '""') + '"'


def load(csv_path: str) -> None:
    global con
    raw = Path(csv_path).read_bytes()
    sha = hashlib.sha256(raw).hexdigest()
    if sha != SHA256:
        sys.exit(f"{csv_path}: sha256 {sha} is not the expected {SHA256}")
    if not raw.startswith(HEADER):
        sys.exit("unexpected header line")
    con = duckdb.connect()
    path_sql = csv_path.replace("'", "''")
    con.execute(
        f"create table raw as select * from read_csv('{path_sql}', header=true, all_varchar=true, delim=';', "
        f"quote='\"', escape='\"', strict_mode=true)"
    )
    if one("select count(*) from raw") != ROWS:
        sys.exit(f"expected {ROWS} data lines")
    allnull = " and ".join(f"{qi(c)} is null" for c in ["day of week", "total", "place"] + ITEMS)
    if one(f"select count(*) from raw where datetime is null and {allnull}") != EMPTY_LINES:
        sys.exit("number of empty lines changed")
    if rows(f"select datetime from raw where datetime is not null and total is null") != [(STRAY,)]:
        sys.exit("the datetime-only line changed")
    if one(f"select count(*) from raw where total is null and not ({allnull})"):
        sys.exit("a line without a total has other values")
    if one("select count(*) from raw where total is not null and (datetime is null "
           "or not regexp_full_match(datetime, '[0-9]{1,2}/[0-9]{2}/[0-9]{4} [0-9]{2}:[0-9]{2}'))"):
        sys.exit("a receipt whose datetime is not d/mm/yyyy hh:mm")
    items = ", ".join(f"coalesce({qi(c)}::int, 0) as {qi(c)}" for c in ITEMS)
    # datetime is d/mm/yyyy hh:mm, the day NOT zero-padded (e.g. 1/03/2020 12:05 = 1 March 2020, 26/07/2019 11:36 =
    # 26 July 2019); the receipt date is its date part.
    con.execute(
        f"""create view t as select
              strptime(datetime, '%d/%m/%Y %H:%M') as ts, cast(strptime(datetime, '%d/%m/%Y %H:%M') as date) as d,
              "day of week" as dow, total::bigint as total, place, trim(place) as pl, {items}
            from raw where total is not null"""
    )
    if one("select count(*) from t") != RECEIPTS:
        sys.exit("receipt count changed")
    if one("select min(d) from t") != FIRST or one("select max(d) from t") != LATEST:
        sys.exit("receipt date range changed")
    # one receipt (7/12/2019 14:02, 13,600 won, 동면) has a total but no item at all; it counts as a receipt.
    if rows("select ts, total from t where " + " + ".join(qi(c) for c in ITEMS) + " = 0") != [
            (datetime(2019, 12, 7, 14, 2), 13600)]:
        sys.exit("receipts without items changed")


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


def units_by_item(where: str = "true"):
    """(item, units) for every item column, in file order."""
    sums = rows("select " + ", ".join(f"sum({qi(c)})" for c in ITEMS) + f" from t where {where}")[0]
    return [(c, int(s or 0)) for c, s in zip(ITEMS, sums)]


def item_ranking(n: int, desc: bool = True, where: str = "true", skip_zero: bool = False):
    u = units_by_item(where)
    vals = ", ".join(f"('{c}', {s})" for c, s in u if not (skip_zero and s == 0))
    return ranked(f"select * from (values {vals}) v(item, units)", n, desc)


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


ALL_UNITS = " + ".join(qi(c) for c in ITEMS)
BIG = "The file's biggest receipt (1,293,000 won on 2019-07-26 11:36) is included as written."


# ---------------------------------------------------------------- chats
def chat01():
    rev, n = rows("select sum(total), count(*) from t")[0]
    return [
        turn("whats our total revenue in this file? (the total column, won)", "in_schema", [r2(rev)],
             note=f"SUM(total) over all 2,420 receipts (lines with a total), 2019-07-11 ... 2020-05-02. {BIG}"),
        turn("how many orders/receipts are in there?", "in_schema", [n],
             note="One line per receipt: 2,420 lines with a total. The 233 empty lines and the line that holds only "
                  f"'{STRAY}' are not receipts."),
        turn("so whats the avg ticket", "follow_up", [r2(dec(rev) / n)], note=f"Revenue / receipts = {rev} / {n}."),
    ]


def chat02():
    ms = rows("select strftime(d, '%Y-%m'), sum(total) from t group by 1 order by 1")
    v = dict(ms)
    return [
        turn("revenue by month pls", "in_schema", [r2(s) for _, s in ms], [mname(m) for m, _ in ms],
             note="SUM(total) by calendar month of the receipt date. July 2019 starts on the 11th and May 2020 has "
                  "only May 1-2 (both partial)."),
        turn("% change feb 2020 vs jan 2020?", "in_schema", [growth(v["2020-02"], v["2020-01"])],
             note=f"(Feb - Jan) / Jan * 100 = ({v['2020-02']} - {v['2020-01']}) / {v['2020-01']}."),
        turn("and april vs march?", "follow_up", [growth(v["2020-04"], v["2020-03"])],
             note=f"(Apr - Mar) / Mar * 100 = ({v['2020-04']} - {v['2020-03']}) / {v['2020-03']}."),
        turn("remind me what you said december 2019 was", "conversation", [r2(v["2019-12"])],
             note="The December 2019 figure from the first answer of this chat."),
    ]


def chat03():
    big = rows("select ts, total, " + ", ".join(qi(c) for c in ITEMS) + " from t order by total desc limit 2")
    assert big[0][1] != big[1][1]
    ts, tot = big[0][0], big[0][1]
    content = [(c, q) for c, q in zip(ITEMS, big[0][2:]) if q]
    best = ranked(f"select d, sum(total) from t where ts <> timestamp '{ts}' or total <> {tot} group by 1", 1)[0]
    return [
        turn("biggest single receipt ever - how much and when?", "in_schema", [r2(tot)], [dname(ts.date())],
             note=f"MAX(total): {tot} won at {ts:%Y-%m-%d %H:%M}. It is far above every other receipt (the next is "
                  f"{big[1][1]}) and looks like a keying error, but the file says so and that is the truth."),
        turn("what was on it?", "follow_up", [q for _, q in content], [c for c, _ in content],
             note="The non-empty item columns of that receipt: " + ", ".join(f"{c} {q}" for c, q in content) + "."),
        turn("leaving that one receipt out, which day had the most revenue?", "negation_recency", [r2(best[1])],
             [dname(best[0])], note=f"SUM(total) by receipt date without the {tot} won receipt: {best[0]}."),
        turn("sorry, what date was that big receipt again?", "conversation", names=[dname(ts.date())],
             note="The date from the first answer of this chat (2019-07-26)."),
    ]


def chat04():
    day = date(2020, 2, 23)
    rev, n = rows(f"select sum(total), count(*) from t where d = date '{day}'")[0]
    mar1, n_mar1 = rows("select sum(total), count(*) from t where d = date '2020-03-01'")[0]
    assert one("select count(*) from raw where datetime like '1/03/2020 %'") == n_mar1
    assert one("select count(*) from t where d = date '2020-01-03'") != n_mar1
    return [
        turn("how much did we take on 23 feb 2020?", "in_schema", [r2(rev)], [dname(day)],
             note=f"SUM(total) of the receipts dated {day.isoformat()} (written 23/02/2020 in the file)."),
        turn("how many receipts was that", "follow_up", [n], note=f"COUNT of receipts on {day.isoformat()}."),
        turn("what about 1 march 2020?", "in_schema", [r2(mar1)], [dname(date(2020, 3, 1))],
             note="SUM(total) on 2020-03-01, written '1/03/2020 ...' in the file (day first, not zero-padded; read "
                  f"month-first it would be January 3). {n_mar1} receipts."),
    ]


def chat05():
    q1 = "which day of the week gets the most orders?"
    wd = ranked("select dayname(d), count(*) from t group by 1", 2)
    lab = ranked("select dow, count(*) from t group by 1", 1)[0]
    tue = one("select count(*) from t where dayname(d) = 'Tuesday'")
    assert tue == one("select count(*) from t where dow = 'Tues'")
    return [
        turn(q1, "in_schema", names=[wd[0][0]],
             note=f"COUNT of receipts by weekday: {wd[0][0]} {wd[0][1]} by the date, {lab[0]} {lab[1]} by the "
                  f"'day of week' column (one receipt, 2019-07-28, a Sunday, is labelled 'Mon'). Either way "
                  f"{wd[0][0]} is first, ahead of {wd[1][0]} ({wd[1][1]})."),
        turn("and how many on tuesdays, total?", "follow_up", [tue],
             note="Receipts on a Tuesday (the label says 'Tues'); the bakery is almost never open on Tuesdays."),
        turn("what was my first question here?", "conversation", names=[q1],
             note="The first question of this chat, word for word."),
    ]


def chat06():
    top = item_ranking(5)
    bottom = item_ranking(3, desc=False, skip_zero=True)
    never = [c for c, s in units_by_item() if s == 0]
    return [
        turn("top 5 items by units sold", "extra_columns", [s for _, s in top], [c for c, _ in top], first=top[0][0],
             note="SUM of each item column (the file is wide: one column per menu item, value = pieces on the "
                  "receipt, blank = 0)."),
        turn("bottom 3? skip anything that never sold", "follow_up", [s for _, s in bottom], [c for c, _ in bottom],
             first=bottom[0][0], note="Lowest item-column sums above zero, lowest first."),
        turn("which items never sold at all?", "negation_recency", names=never,
             note="Item columns that are blank on every receipt."),
        turn("who was #2 in that top 5 again?", "conversation", names=[top[1][0]],
             note="Second item of the top-5 answer in this chat."),
    ]


def chat07():
    n, with_ab = rows("select count(*), count(*) filter (where angbutter > 0) from t")[0]
    am = one("select count(*) filter (where americano > 0) from t")
    return [
        turn("my boss says angbutter is in over 80% of orders. true? what's the actual %?", "extra_columns",
             [pct(with_ab, n)], ["angbutter"],
             note=f"Receipts with angbutter > 0 / all receipts = {with_ab} / {n} * 100 (so the boss is right)."),
        turn("and for americano?", "follow_up", [pct(am, n)], note=f"Receipts with americano > 0: {am} / {n} * 100."),
        turn("what % did i say my boss claimed?", "conversation", [80], ["angbutter"],
             note="The user said the boss claims angbutter is in over 80% of orders."),
    ]


def chat08():
    top = ranked("select pl, sum(total) from t where pl is not null group by 1", 1)[0]
    n = one(f"select count(*) from t where pl = '{top[0]}'")
    blank = one("select count(*) from t where place is null")
    first_place = one("select min(d) from t where place is not null")
    return [
        turn("which neighbourhood (place column) brings in the most revenue?", "extra_columns", [r2(top[1])],
             [top[0]], note="SUM(total) by place; place names are Korean neighbourhoods of Chuncheon as the file "
                            "writes them."),
        turn("how many receipts from there", "follow_up", [n], note=f"COUNT of receipts with place = '{top[0]}'."),
        turn("how many receipts have no place at all?", "extra_columns", [blank],
             note=f"place is blank on {blank} receipts, all from before {first_place} (the place was only recorded "
                  f"from {first_place} on)."),
    ]


def chat09():
    byn = ranked("select pl, count(*) from t where pl is not null group by 1", 3)
    assert byn == ranked("select place, count(*) from t where place is not null group by 1", 3)
    byr = ranked("select pl, sum(total) from t where pl is not null group by 1", 3)
    tot = one("select sum(total) from t")
    return [
        turn("top 3 neighbourhoods by number of receipts (ignore blank place)", "extra_columns",
             [c for _, c in byn], [p for p, _ in byn], first=byn[0][0],
             note="COUNT of receipts by place, blank place left out (blank has 254 receipts, the same as #2). "
                  "One neighbourhood also appears twice with a trailing space ('교동 '); it is not near the top 3."),
        turn("same but by revenue?", "follow_up", [r2(v) for _, v in byr], [p for p, _ in byr], first=byr[0][0],
             note="SUM(total) by place, blank place left out."),
        turn(f"what share of ALL revenue is {byr[0][0]}?", "extra_columns", [pct(byr[0][1], tot)],
             note=f"{byr[0][1]} / {tot} * 100 (total includes receipts with a blank place)."),
    ]


def chat10():
    units, n = rows(f"select sum({ALL_UNITS}), count(*) from t")[0]
    sold = sum(1 for _, s in units_by_item() if s > 0)
    return [
        turn("avg number of items per receipt?", "extra_columns", [r2(dec(units) / n)],
             note=f"Sum of all 23 item columns / receipts = {units} / {n} (one receipt, 2019-12-07 14:02, has a total "
                  "but no item and still counts as a receipt)."),
        turn("how many different items did we actually sell?", "extra_columns", [sold],
             note=f"Item columns with at least one piece sold: {sold} of the {len(ITEMS)} item columns "
                  "(croque monsieur and mad garlic never sold)."),
    ]


def chat11():
    coffees = ["americano", "caffe latte", "vanila latte"]
    expr = " + ".join(qi(c) for c in coffees)
    allc, c20 = rows(f"select sum({expr}), sum({expr}) filter (where year(d) = 2020) from t")[0]
    return [
        turn("how many coffees did we sell in total - americano + caffe latte + vanila latte?", "extra_columns",
             [int(allc)], note="SUM(americano + caffe latte + vanila latte) over all receipts."),
        turn("and in 2020 only?", "follow_up", [int(c20)], note="Same, receipts dated 2020-01-01 ... 2020-05-02."),
    ]


def chat12():
    q1 = "what hour of the day is busiest, by number of receipts?"
    h = ranked("select hour(ts), count(*) from t group by 1", 1)[0]
    late = rows("select ts from t where hour(ts) >= 18 order by 1")
    return [
        turn(q1, "extra_columns", [h[1]], [str(h[0])],
             note=f"COUNT of receipts by hour of the datetime: {h[0]}:00-{h[0]}:59 has {h[1]}. Receipts run from "
                  "11:00 to 17:xx, plus two late ones."),
        turn("did anything get sold after 6pm?", "follow_up", [len(late)], [dname(x[0].date()) for x in late],
             note="Receipts at 18:00 or later: " + ", ".join(f"{x[0]:%Y-%m-%d %H:%M}" for x in late) + "."),
        turn("what did you say the busiest hour was?", "conversation", [h[1]], [str(h[0])],
             note="The hour from the first answer of this chat."),
    ]


def chat13():
    cr = ranked("select strftime(d, '%Y-%m'), sum(croissant) from t group by 1", 1)[0]
    tc = ranked('select strftime(d, \'%Y-%m\'), sum("tiramisu croissant") from t group by 1', 1)[0]
    return [
        turn("which month did we sell the most plain croissants (the croissant column)?", "extra_columns", [int(cr[1])], [mname(cr[0])],
             note="SUM(croissant) by calendar month (the plain 'croissant' column only)."),
        turn("and tiramisu croissants?", "follow_up", [int(tc[1])], [mname(tc[0])],
             note="SUM(tiramisu croissant) by calendar month."),
    ]


def chat14():
    tot = one("select sum(total) from t")
    ex = one("select sum(total) from t where pl is distinct from '동면'")
    ex2 = one("select sum(total) from t where pl is not null and pl <> '동면'")
    return [
        turn("revenue not counting the 동면 orders?", "negation_recency", [r2(ex)],
             note=f"All receipts except place = '동면' (receipts with a blank place stay in): {tot} - 동면."),
        turn("now also drop the ones with no place", "negation_recency", [r2(ex2)],
             note="Also leave out the 254 receipts with a blank place."),
    ]


def chat15():
    rev, n = rows("select sum(total), count(*) from t where year(d) = 2020")[0]
    return [
        turn("revenue this year so far?", "negation_recency", [r2(rev)],
             note="'This year' = 2020, the year of the latest receipt (2020-05-02), not today's date: "
                  "2020-01-01 ... 2020-05-02."),
        turn("how many receipts is that", "follow_up", [n], note="COUNT of receipts dated in 2020."),
    ]


def chat16():
    a = one("select sum(total) from t where d >= date '2020-04-01' and d < date '2020-05-01'")
    b = one("select sum(total) from t where d >= date '2020-03-01' and d < date '2020-04-01'")
    return [
        turn("how did the last full month go, revenue?", "negation_recency", [r2(a)], ["April 2020"],
             note="The latest receipt is 2020-05-02, so May 2020 is partial (2 days); the last full month is April "
                  "2020."),
        turn("vs the month before?", "follow_up", [r2(b), growth(a, b)],
             note=f"March 2020 = {b}; change (April - March) / March * 100 = ({a} - {b}) / {b} * 100."),
    ]


def chat17():
    nope = [p for (p,) in rows("select pl from t where pl is not null group by 1 "
                               "having max(d) < date '2020-01-01' order by 1")]
    raw_nope = [p for (p,) in rows("select place from t where place is not null group by 1 "
                                   "having max(d) < date '2020-01-01' order by 1")]
    assert set(raw_nope) - set(nope) == {"교동 "}
    apr = [c for c, s in units_by_item("d >= date '2020-04-01' and d < date '2020-05-01'") if s == 0]
    never = [c for c, s in units_by_item() if s == 0]
    apr_only = [c for c in apr if c not in never]
    return [
        turn("which neighbourhoods haven't ordered at all this year?", "negation_recency", names=nope,
             note="Places whose last receipt is before 2020-01-01 ('this year' = 2020, year of the latest receipt). "
                  "'교동 ' (with a trailing space, 2 receipts in Nov 2019) is the same place as '교동', which did "
                  "order in 2020, so it is not counted."),
        turn("which items sold zero in april 2020? leave out the two that never sold at all", "negation_recency",
             names=apr_only, note="Item columns summing to 0 over 2020-04-01 ... 2020-04-30, without croque "
                                  "monsieur and mad garlic (never sold)."),
    ]


def chat18():
    n, rev = rows("select count(*), sum(total) from t where angbutter = 0")[0]
    return [
        turn("how many receipts had no angbutter at all? and what did they bring in?", "negation_recency",
             [n, r2(rev)], note="Receipts where the angbutter column is blank: COUNT and SUM(total)."),
    ]


def chat19():
    return [
        turn("how many unique customers do we have?", "unanswerable", decline=True,
             note="No customer id or name: place is a neighbourhood shared by many people, and receipts cannot be "
                  "linked to a person."),
        turn("whats the unit price of a croissant?", "unanswerable", decline=True,
             note="The file has receipt totals and piece counts only, no price per item (and totals are not a "
                  "clean sum of fixed prices)."),
    ]


def chat20():
    return [
        turn("what was our profit margin in april?", "unanswerable", decline=True,
             note="No cost, COGS or margin column."),
        turn("which staff member rang up the most orders?", "unanswerable", decline=True,
             note="No staff / cashier column."),
    ]


def chat21():
    n19 = one("select count(*) from t where year(d) = 2019")
    return [
        turn("how many of the orders were paid by card vs cash?", "unanswerable", decline=True,
             note="No payment-method column."),
        turn("ok then how many receipts in 2019?", "in_schema", [n19],
             note="COUNT of receipts dated 2019 (2019-07-11 ... 2019-12-31)."),
    ]


def chat22():
    return [
        turn("give me the exact revenue we'll make in june 2020", "unanswerable", decline=True,
             note=f"Receipts end on 2020-05-02 (the line '{STRAY}' has no total); an exact future figure cannot "
                  "come from this file."),
    ]


def chat23():
    q1 = one("select sum(total) from t where d >= date '2020-01-01' and d < date '2020-04-01'")
    q4 = one("select sum(total) from t where d >= date '2019-10-01' and d < date '2020-01-01'")
    return [
        turn("presenting to the owner, Ms Kim, on friday. how much revenue did we do in Q1 2020?", "in_schema",
             [r2(q1)], note="SUM(total), receipts dated 2020-01-01 ... 2020-03-31."),
        turn("and Q4 2019?", "follow_up", [r2(q4)], note="SUM(total), 2019-10-01 ... 2019-12-31."),
        turn("who did i say im presenting to?", "conversation", names=["Ms Kim"],
             note="The user said so in the first turn."),
    ]


def chat24():
    days = one("select count(distinct d) from t")
    rev = one("select sum(total) from t")
    return [
        turn("when's the first sale in the file, and the last?", "in_schema", names=[dname(FIRST), dname(LATEST)],
             note=f"MIN/MAX receipt date: {FIRST} and {LATEST}. The line '{STRAY}' carries only a datetime (no "
                  "total, no items), so it is not a sale."),
        turn("how many days did we actually trade?", "in_schema", [days],
             note="COUNT(DISTINCT receipt date)."),
        turn("avg revenue per trading day then?", "follow_up", [r2(dec(rev) / days)],
             note=f"Revenue / trading days = {rev} / {days}. {BIG}"),
    ]


def chat25():
    top = ranked("select d, count(*) from t group by 1", 3)
    return [
        turn("top 3 days by number of receipts", "in_schema", [c for _, c in top], [dname(d) for d, _ in top],
             first=dname(top[0][0]), note="COUNT of receipts by receipt date."),
        turn("what was the first answer you gave me?", "conversation", [top[0][1]], [dname(top[0][0])],
             note="The #1 day of the first answer."),
    ]


def chat26():
    ab, n = rows("select sum(angbutter), count(*) filter (where angbutter > 0) from t")[0]
    mx = max(one(f"select max({qi(c)}) from t") for c in ITEMS)
    who = [c for c in ITEMS if one(f"select max({qi(c)}) from t") == mx]
    assert who == ["croissant"]
    when = [x for (x,) in rows(f"select ts from t where croissant = {mx} order by 1")]
    return [
        turn("on receipts that have angbutter, how many do people take on avg?", "extra_columns",
             [r2(dec(ab) / n)], note=f"SUM(angbutter) / receipts with angbutter > 0 = {ab} / {n}."),
        turn("whats the most of one single item anyone bought on one receipt?", "extra_columns", [mx], who,
             note=f"MAX over all item columns: {mx} croissants."),
        turn("when was that", "follow_up", names=[dname(x.date()) for x in when],
             note="Two receipts share the maximum (a tie, both dates must be named): "
                  + ", ".join(f"{x:%Y-%m-%d %H:%M}" for x in when) + "."),
    ]


def chat27():
    p, o = rows('select sum(pandoro), sum("orange pound") from t')[0]
    assert o > p
    both = one('select count(*) from t where pandoro > 0 and "orange pound" > 0')
    return [
        turn("pandoro vs orange pound, which sold more pieces?", "extra_columns", [int(o), int(p)],
             ["orange pound"], note="SUM(orange pound) vs SUM(pandoro)."),
        turn("how many receipts had both?", "follow_up", [both],
             note="Receipts with pandoro > 0 and orange pound > 0."),
    ]


def chat28():
    t, tc = rows('select sum(tiramisu), sum("tiramisu croissant") from t')[0]
    return [
        turn("how many tiramisus did we sell?", "extra_columns", names=["tiramisu", "tiramisu croissant"],
             clarify=True,
             note=f"Ambiguous: there is a 'tiramisu' column ({t} pieces) and a 'tiramisu croissant' column ({tc} "
                  "pieces). A good answer asks which is meant (or clearly gives both)."),
        turn("the cake, not the croissant", "follow_up", [int(t)], ["tiramisu"], note="SUM(tiramisu)."),
    ]


def chat29():
    a19, a20 = [r2(dec(s) / n) for _, s, n in
                rows("select year(d), sum(total), count(*) from t group by 1 order by 1")]
    return [
        turn("avg order value 2019 vs 2020?", "in_schema", [a19, a20], ["2019", "2020"],
             note="SUM(total) / receipts per calendar year of the receipt date (2019 from Jul 11; 2020 to May 2). "
                  f"{BIG}"),
    ]


def chat30():
    n, rev, tot = rows("select count(*) filter (where total > 50000), sum(total) filter (where total > 50000), "
                       "sum(total) from t")[0]
    assert one("select count(*) from t where total = 50000") == 1  # 'over' excludes the one receipt of exactly 50,000
    return [
        turn("how many receipts were over 50,000 won?", "in_schema", [n],
             note="COUNT of receipts with total > 50000 (one receipt of exactly 50,000 is not 'over')."),
        turn("what share of revenue do they make up?", "follow_up", [pct(rev, tot)],
             note=f"{rev} / {tot} * 100. {BIG}"),
    ]


CHATS = [chat01, chat02, chat03, chat04, chat05, chat06, chat07, chat08, chat09, chat10, chat11, chat12, chat13,
         chat14, chat15, chat16, chat17, chat18, chat19, chat20, chat21, chat22, chat23, chat24, chat25, chat26,
         chat27, chat28, chat29, chat30]


def build():
    out = []
    for i, fn in enumerate(CHATS, 1):
        out.append({"chat": f"{PREFIX}-{i:03d}", "dataset": DATASET, "turns": fn()})
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("csv", nargs="?", default=DEFAULT_CSV)
    ap.add_argument("--jsonl", help="write the bank to this path")
    ap.add_argument("--bank", default=str(Path(__file__).with_name("kr_bakery_blind.jsonl")),
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

#!/usr/bin/env python3
"""Truths for the shopify_denim blind bank (shopify_denim_blind.jsonl).

Data: a real Shopify "Export orders" file (orders_export_1.csv) of a US menswear / denim web shop: one row per line
item, order-level fields (financial status, subtotal, shipping, taxes, total, discount, refunded amount, source,
payment method, shipping address ...) only on the first row of each order. Orders 2023-04-09 ... 2026-03-28, USD.
Taken from the public GitHub repository Steproac/Monfrere-Tactical-Audit, path "orders_export_1 (1).zip" (one member,
orders_export_1.csv, unzipped byte for byte; see the README section).

Every expected number and name is computed here with duckdb SQL; nothing is typed by hand except the question texts
(and, for `conversation` turns, the text of an earlier question, which is taken from the chat itself).
The file holds customers' names, e-mails, addresses and phone numbers as exported; no question and no truth uses them
(customers are only ever counted, by e-mail, and only where the count does not depend on how e-mails are normalised).

    cd /work/main && uv run --no-sync python bench/eval/banks/shopify_denim_truths.py [CSV]                    # print + check bank
    cd /work/main && uv run --no-sync python bench/eval/banks/shopify_denim_truths.py [CSV] --jsonl out.jsonl  # write the bank

CSV defaults to /work/evaldata/shopify_denim/orders_export_1.csv. Without --jsonl the script compares the computed
chats with shopify_denim_blind.jsonl next to it (or --bank PATH) and exits 1 on the first mismatch (also when the
CSV's sha256, header or row count is not the expected one). Needs only the standard library and duckdb.
"""
import argparse
import hashlib
import json
import sys
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import duckdb

DATASET = "shopify_denim"
PREFIX = "sd"
DEFAULT_CSV = "/work/evaldata/shopify_denim/orders_export_1.csv"
SHA256 = "d24891887dd363f54bd38e5a2411a81b8cac2e7943f8de1bec1288ed37c9b14f"
ROWS = 18341  # data records (line items); the file has 30,777 physical lines because notes hold line breaks
ORDERS = 9800
HEADER = (
    b"Name,Email,Financial Status,Paid at,Fulfillment Status,Fulfilled at,Accepts Marketing,Currency,Subtotal,"
    b"Shipping,Taxes,Total,Discount Code,Discount Amount,Shipping Method,Created at,Lineitem quantity,Lineitem name,"
    b"Lineitem price,Lineitem compare at price,Lineitem sku,Lineitem requires shipping,Lineitem taxable,"
    b"Lineitem fulfillment status,Billing Name,Billing Street,Billing Address1,Billing Address2,Billing Company,"
    b"Billing City,Billing Zip,Billing Province,Billing Country,Billing Phone,Shipping Name,Shipping Street,"
    b"Shipping Address1,Shipping Address2,Shipping Company,Shipping City,Shipping Zip,Shipping Province,"
    b"Shipping Country,Shipping Phone,Notes,Note Attributes,Cancelled at,Payment Method,Payment Reference,"
    b"Refunded Amount,Vendor,Outstanding Balance,Employee,Location,Device ID,Id,Tags,Risk Level,Source,"
    b"Lineitem discount,Tax 1 Name,Tax 1 Value,Tax 2 Name,Tax 2 Value,Tax 3 Name,Tax 3 Value,Tax 4 Name,Tax 4 Value,"
    b"Tax 5 Name,Tax 5 Value,Phone,Receipt Number,Duties,Billing Province Name,Shipping Province Name,Payment ID,"
    b"Payment Terms Name,Next Payment Due At,Payment References\n"
)
FIRST = date(2023, 4, 9)  # first order date
LATEST = date(2026, 3, 28)  # last order date in the file; every "recent" window is anchored here
ADDON_VENDORS = ("re:do", "Route")  # package protection / free unlimited return / shipping protection add-on lines

con: duckdb.DuckDBPyConnection


# ---------------------------------------------------------------- helpers
def load(csv_path: str) -> None:
    global con
    raw = Path(csv_path).read_bytes()
    sha = hashlib.sha256(raw).hexdigest()
    if sha != SHA256:
        sys.exit(f"{csv_path}: sha256 {sha} is not the expected {SHA256}")
    if not raw.startswith(HEADER):
        sys.exit("unexpected header line")
    con = duckdb.connect()
    con.execute(
        f"create table raw as select * from read_csv('{csv_path}', header=true, all_varchar=true, delim=',', "
        f"quote='\"', escape='\"', strict_mode=true)"
    )
    # Order-level view: the first row of every order is the one that carries the order fields (Currency is set on
    # exactly that row). Money as exact DECIMAL. Order date = the date part of "Created at" as written (shop time,
    # -0700/-0800), never converted to UTC.
    con.execute(
        """create view o as select
             Name as name, "Financial Status" as fs, "Fulfillment Status" as ff,
             Subtotal::decimal(18,2) as sub, Shipping::decimal(18,2) as ship, Taxes::decimal(18,2) as tax,
             Total::decimal(18,2) as tot, "Discount Code" as dcode, "Discount Amount"::decimal(18,2) as disc,
             "Shipping Method" as smeth, cast(substr("Created at", 1, 10) as date) as d, "Cancelled at" as cxl,
             "Payment Method" as pm, "Refunded Amount"::decimal(18,2) as refd, Source as src,
             "Shipping Province" as sprov, "Shipping Province Name" as sprov_name, "Shipping Country" as scty,
             "Risk Level" as risk,
             Email as em, lower(trim(Email)) as em_norm
           from raw where Currency is not null"""
    )
    # Line-item view: every row.
    con.execute(
        """create view l as select
             Name as name, cast(substr("Created at", 1, 10) as date) as d,
             "Lineitem quantity"::int as qty, "Lineitem name" as li, split_part("Lineitem name", ' - ', 1) as style,
             "Lineitem price"::decimal(18,2) as price, "Lineitem compare at price"::decimal(18,2) as cap,
             Vendor as vendor
           from raw"""
    )
    n = one("select count(*) from raw")
    if n != ROWS:
        sys.exit(f"expected {ROWS} rows, read {n}")
    if one("select count(*) from o") != ORDERS or one("select count(distinct name) from raw") != ORDERS:
        sys.exit("orders changed")
    if one("select count(*) from (select name from o group by 1 having count(*) > 1)") != 0:
        sys.exit("an order has two order-level rows")
    if one("select count(*) from raw where Currency is not null and Currency <> 'USD'") != 0:
        sys.exit("a currency other than USD")
    if one("select min(d) from o") != FIRST or one("select max(d) from o") != LATEST:
        sys.exit("order date range changed")
    if one("select count(*) from l where d is null or qty is null or price is null") != 0:
        sys.exit("a line without date, quantity or price")


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


def dname(d: date) -> str:
    return f"{d.strftime('%B')} {d.day}, {d.year}"


def mname(ym: str) -> str:
    y, m = ym.split("-")
    return f"{date(int(y), int(m), 1).strftime('%B')} {y}"


def same_for_both_email_keys(sql_template: str):
    """Customer counts must not depend on e-mail normalisation: run with the e-mail as written and lower(trim())."""
    a = one(sql_template.format(key="em"))
    b = one(sql_template.format(key="em_norm"))
    if a != b:
        raise SystemExit(f"customer count depends on e-mail normalisation: {a} vs {b}")
    return a


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


NOT_ADDON = "(vendor is null or vendor not in ('re:do', 'Route'))"


# ---------------------------------------------------------------- chats
def chat01():
    orders = one("select count(*) from o")
    lines = one("select count(*) from l")
    units = one("select sum(qty) from l")
    return [
        turn("how many orders are in this export? actual orders, not rows", "in_schema", [orders],
             note="COUNT(DISTINCT Name): one order spans several rows (one per line item); order fields sit on its first row."),
        turn("and how many rows / line items?", "follow_up", [lines], note="Data rows of the file (one per line item)."),
        turn("so on avg how many units per order", "follow_up", [r2(dec(units) / orders)],
             note=f"SUM(Lineitem quantity) over all lines / orders = {units} / {orders} (add-on lines such as package "
                  "protection count as they are recorded)."),
    ]


def chat02():
    ys = rows("select year(d)::varchar, sum(tot) from o group by 1 order by 1")
    assert [y for y, _ in ys] == ["2023", "2024", "2025", "2026"]
    v = {y: t for y, t in ys}
    return [
        turn("order totals by year pls (sum of the Total col)", "in_schema", [r2(t) for _, t in ys], [y for y, _ in ys],
             note="SUM(Total) over every order (all financial statuses, as recorded) by calendar year of Created at. "
                  "2023 starts on April 9, 2026 ends on March 28."),
        turn("% change 2025 vs 2024?", "in_schema", [growth(v["2025"], v["2024"])],
             note=f"(2025 - 2024) / 2024 * 100 = ({v['2025']} - {v['2024']}) / {v['2024']}; a decline."),
        turn("wait, 2026 isnt a full year right? what's the last order date in here", "in_schema", names=[dname(LATEST)],
             note=f"MAX(Created at) date = {LATEST.isoformat()} (the file starts {FIRST.isoformat()})."),
    ]


def chat03():
    q1 = "which month had the highest sales $? order totals"
    best = ranked("select strftime(d, '%Y-%m'), sum(tot) from o group by 1", 1)[0]
    worst = ranked("select strftime(d, '%Y-%m'), sum(tot) from o where d >= date '2023-05-01' and d < date '2026-03-01' "
                   "group by 1", 1, desc=False)[0]
    return [
        turn(q1, "in_schema", [r2(best[1])], [mname(best[0])], note=f"Calendar month {best[0]} by SUM(Total)."),
        turn("and the weakest full month?", "follow_up", [r2(worst[1])], [mname(worst[0])],
             note=f"Lowest SUM(Total) among the full months May 2023 ... February 2026 (April 2023 starts on the 9th and "
                  f"March 2026 ends on the 28th): {worst[0]}."),
        turn("what was the first thing i asked you here?", "conversation", names=[q1],
             note="The first question of this chat, word for word."),
    ]


def chat04():
    n, t = rows("select count(*), sum(tot) from o")[0]
    n25, t25 = rows("select count(*), sum(tot) from o where year(d) = 2025")[0]
    n25p, t25p = rows("select count(*), sum(tot) from o where year(d) = 2025 and tot > 0")[0]
    return [
        turn("whats our AOV overall? total $ / number of orders", "in_schema", [r2(dec(t) / n)],
             note=f"SUM(Total) / orders = {t} / {n}, every order included."),
        turn("same for 2025 only", "follow_up", [r2(dec(t25) / n25)], note=f"2025: {t25} / {n25}."),
        turn("now redo 2025 but leave out the $0 orders", "negation_recency", [r2(dec(t25p) / n25p)],
             note=f"2025 orders with Total > 0: {t25p} / {n25p} ({n25 - n25p} orders of 2025 have a Total of 0: "
                  "free samples, exchanges, TikTok samples)."),
    ]


def chat05():
    refd, tot = rows("select sum(refd), sum(tot) from o")[0]
    yr = rows("select year(d)::varchar, sum(refd) * 100 / sum(tot) from o group by 1 order by 2 desc")
    assert yr[0][1] != yr[1][1]
    return [
        turn("how much have we refunded in total? (Refunded Amount)", "extra_columns", [r2(refd)],
             note="SUM(Refunded Amount) over all orders (the field is on the order's first row)."),
        turn("as a % of gross order totals?", "follow_up", [pct(refd, tot)], note=f"{refd} / SUM(Total) {tot} * 100."),
        turn("which year had the worst refund rate on that basis", "follow_up", [r2(yr[0][1])], [yr[0][0]],
             note="SUM(Refunded Amount) / SUM(Total) * 100 by order year: "
                  + ", ".join(f"{y} {r2(v)}" for y, v in yr) + "."),
    ]


def chat06():
    full = one("select count(*) from o where fs = 'refunded'")
    part = one("select count(*) from o where fs = 'partially_refunded'")
    void = one("select count(*) from o where fs = 'voided'")
    net = one("select sum(tot - refd) from o where fs <> 'voided'")
    return [
        turn("count of orders fully refunded vs partialy refunded?", "extra_columns", [full, part],
             note="Financial Status = 'refunded' and = 'partially_refunded'."),
        turn("and voided?", "follow_up", [void], note="Financial Status = 'voided'."),
        turn("ok net sales after refunds for the whole file, ignoring voided orders completely", "negation_recency",
             [r2(net)], note="SUM(Total - Refunded Amount) over orders whose Financial Status is not 'voided'."),
    ]


def chat07():
    sql = "select vendor, sum(qty * price) from l where vendor is not null group by 1"
    top = ranked(sql, 5)
    bottom = ranked(sql, 3, desc=False)
    return [
        turn("rank vendors by item sales (qty x lineitem price), top 5", "extra_columns", [r2(v) for _, v in top],
             [n for n, _ in top], first=top[0][0],
             note="Vendor (here the product line / fit) by SUM(Lineitem quantity * Lineitem price), before order-level "
                  "discounts."),
        turn("bottom 3? skip the lines with no vendor", "follow_up", [r2(v) for _, v in bottom], [n for n, _ in bottom],
             note="Lowest SUM(qty * price) among vendors; the 15 'Bazo Counteroffer' lines have no Vendor and are left out."),
        turn("what was #2 in that top 5 again?", "conversation", [r2(top[1][1])], [top[1][0]],
             note="The second vendor of the earlier top-5 answer."),
    ]


def chat08():
    style = "Greyson Noir"
    units = one(f"select sum(qty) from l where style = '{style}'")
    # sizes are written '32', 'Noir / 32' or '32 / Noir'
    sizes = ranked(f"""select regexp_extract(li, '([0-9]{{2}})', 1), sum(qty) from l where style = '{style}' group by 1""", 1)
    assert one(f"select count(*) from l where style = '{style}' and regexp_extract(li, '([0-9]{{2}})', 1) = ''") == 0
    return [
        turn("units sold of the plain Greyson Noir jean, all sizes together?", "in_schema", [units], [style],
             note="Lines whose Lineitem name is 'Greyson Noir - <size>' (written '32', 'Noir / 32' or '32 / Noir'); "
                  "Greyson Noir Leather / Leopard / Suede / Tigre are other products. SUM(Lineitem quantity)."),
        turn("which size moved the most?", "follow_up", [sizes[0][1]], [sizes[0][0]],
             note=f"Units by the waist size in the variant name: size {sizes[0][0]} with {sizes[0][1]} units "
                  "(all three spellings of the variant together)."),
        turn("remind me which product we were looking at", "conversation", names=[style],
             note="The product of this chat's first question."),
    ]


def chat09():
    top_u = ranked(f"select style, sum(qty) from l where {NOT_ADDON} group by 1", 5)
    top_m = ranked(f"select style, sum(qty * price) from l where {NOT_ADDON} group by 1", 5)
    # the gift cards and the vendor-less Bazo lines are far from the top: leaving them out changes nothing
    assert top_u == ranked(f"select style, sum(qty) from l where {NOT_ADDON} and vendor is not null "
                           "and vendor <> 'GIFT CARD' group by 1", 5)
    return [
        turn("top 5 styles by units (ignore size), and leave out the package protection / free returns add-ons",
             "negation_recency", [v for _, v in top_u], [n for n, _ in top_u], first=top_u[0][0],
             note="Style = Lineitem name before ' - ' (the size/colour variant dropped); add-on lines = Vendor 're:do' "
                  "(Package Protetion / Free Unlimited Return) and 'Route' (Route package protection) left out. "
                  "SUM(Lineitem quantity)."),
        turn("now top 5 by $ instead", "follow_up", [r2(v) for _, v in top_m], [n for n, _ in top_m], first=top_m[0][0],
             note="Same styles, ranked by SUM(qty * Lineitem price)."),
    ]


def chat10():
    q1 = "how many orders came from Nordstrom, and what's the total $ on them?"
    n, t = rows("select count(*), sum(tot) from o where src = 'Nordstrom'")[0]
    web = one("select count(*) from o where src = 'web'")
    allo = one("select count(*) from o")
    return [
        turn(q1, "extra_columns", [n, r2(t)], names=["Nordstrom"],
             note="Source = 'Nordstrom' (on the order's first row): order count and SUM(Total)."),
        turn("what share of all orders came thru web?", "extra_columns", [pct(web, allo)],
             note=f"Source = 'web': {web} of {allo} orders."),
        turn("which channel did i ask about first?", "conversation", names=["Nordstrom"],
             note="The channel of the first question of this chat."),
    ]


def chat11():
    n = one("select count(*) from o where pm like '%Klarna%'")
    return [
        turn("how many orders had klarna in the payment method? count split payments too", "extra_columns", [n],
             note="Payment Method containing 'Klarna' ('Klarna', 'Shopify Payments + Klarna', 'Klarna + Gift Card')."),
    ]


def chat12():
    # On US orders, Shipping Province (code) and Shipping Province Name are 1:1 (abroad a code can repeat: TN is
    # also Trentino, MA also Malaga, DC also Capital District). The top 3 are the same with or without the foreign orders.
    assert one("select count(*) from (select sprov from o where scty = 'US' and sprov is not null group by 1 "
               "having count(distinct sprov_name) <> 1)") == 0
    top = ranked("select sprov_name, sum(tot) from o where sprov_name is not null group by 1", 3)
    assert top == ranked("select sprov_name, sum(tot) from o where scty = 'US' and sprov_name is not null group by 1", 3)
    codes = {n: one(f"select any_value(sprov) from o where sprov_name = '{n}'") for n, _ in top}
    tx = one("select sum(tot) from o where sprov_name = 'Texas'")
    outside = one("select count(*) from o where scty is not null and scty <> 'US'")
    blank = one("select count(*) from o where scty is null")
    return [
        turn("top 3 ship-to states by order $", "extra_columns", [r2(v) for _, v in top], [n for n, _ in top],
             first=top[0][0], note="Shipping Province Name by SUM(Total) (codes in Shipping Province: "
                                   + ", ".join(codes[n] for n, _ in top) + ")."),
        turn("texas?", "follow_up", [r2(tx)], ["Texas"], note="SUM(Total) where Shipping Province = 'TX' (Texas)."),
        turn("which state did you say was #1?", "conversation", [r2(top[0][1])], [top[0][0]],
             note="The first state of the earlier top-3 answer."),
        turn("how many orders shipped outside the US?", "negation_recency", [outside],
             note=f"Shipping Country set and not 'US' ({blank} orders have no shipping country and are not counted)."),
    ]


def chat13():
    n = one("select count(*) from o where dcode is not null")
    code = ranked("select dcode, count(*) from o where dcode is not null group by 1", 1)[0]
    disc = one("select sum(disc) from o")
    return [
        turn("how many orders used a discount code", "extra_columns", [n], note="Orders with a Discount Code."),
        turn("most used code?", "follow_up", [code[1]], [code[0]],
             note=f"Discount Code by number of orders: '{code[0]}' on {code[1]} orders."),
        turn("total discount $ given overall?", "extra_columns", [r2(disc)], note="SUM(Discount Amount) over all orders."),
    ]


def chat14():
    ship = one("select sum(ship) from o")
    top = ranked("select smeth, sum(ship) from o where smeth is not null group by 1", 1)[0]
    return [
        turn("total shiping charged to customers?", "extra_columns", [r2(ship)],
             note="SUM(Shipping) over all orders (order-level field)."),
        turn("which shipping method accounts for most of that", "follow_up", [r2(top[1])], [top[0]],
             note="Shipping Method by SUM(Shipping)."),
    ]


def chat15():
    def units(a, b):
        return one(f"select sum(qty) from l where {NOT_ADDON} and d between date '{a}' and date '{b}'")
    u25 = units("2025-10-01", "2025-12-31")
    u24 = units("2024-10-01", "2024-12-31")
    return [
        turn("hi, Marco from merch planning here. units sold in Q4 2025? real product only, no protection/return add-ons",
             "in_schema", [u25],
             note="SUM(Lineitem quantity), order dates 2025-10-01 ... 2025-12-31, Vendor not 're:do' / 'Route'."),
        turn("and Q4 2024?", "follow_up", [u24], note="Same, 2024-10-01 ... 2024-12-31."),
        turn("which team did i say i'm with", "conversation", names=["merch planning"],
             note="The user said: 'Marco from merch planning here'."),
    ]


def chat16():
    n = one("select count(*) from o where ff = 'unfulfilled'")
    n26 = one("select count(*) from o where ff = 'unfulfilled' and year(d) = 2026")
    return [
        turn("how many orders are still unfulfilled", "extra_columns", [n],
             note="Fulfillment Status = 'unfulfilled' (many are refunded or cancelled orders that were never shipped)."),
        turn("how many of those were placed this year?", "negation_recency", [n26],
             note="Unfulfilled orders with an order date in 2026, the year of the latest order date."),
    ]


def chat17():
    start = "2025-12-29"  # 90 days ending on the latest date, 2025-12-29 ... 2026-03-28
    assert (LATEST - date(2025, 12, 29)).days == 89
    cust = same_for_both_email_keys(
        "select count(distinct {key}) from o where d between date '%s' and date '%s'" % (start, LATEST))
    return [
        turn("how many distinct customers (by email) bought in the last 90 days of data?", "negation_recency", [cust],
             note=f"Distinct Email on orders dated {start} ... {LATEST} (90 days ending on the latest order date); "
                  "the count is the same whether e-mails are lower-cased or not."),
    ]


def chat18():
    cutoff = "2025-06-28"  # 9 months before the latest date
    res = rows(f"select vendor from l where vendor is not null group by 1 "
               f"having max(d) >= date '2025-01-01' and max(d) <= date '{cutoff}' order by 1")
    # the answer does not move if the 9 months are counted from a few days earlier or later
    for alt in ("2025-06-26", "2025-07-05"):
        assert res == rows(f"select vendor from l where vendor is not null group by 1 "
                           f"having max(d) >= date '2025-01-01' and max(d) <= date '{alt}' order by 1")
    names = [r[0] for r in res]
    return [
        turn("which vendors sold something in 2025 but have had zero sales in the last 9 months?", "negation_recency",
             [len(names)], names,
             note=f"Vendors with a line in 2025 whose latest line is on or before {cutoff} (9 months before the latest "
                  f"order date {LATEST}): " + ", ".join(names) + "."),
    ]


def chat19():
    t26 = one("select sum(tot) from o where strftime(d, '%Y-%m') = '2026-03'")
    t25 = one("select sum(tot) from o where strftime(d, '%Y-%m') = '2025-03'")
    return [
        turn("mar 2026 vs mar 2025 on order $ - % change?", "in_schema", [r2(t26), r2(t25), growth(t26, t25)],
             note=f"SUM(Total): March 2026 {t26} (orders up to the 28th, the last date) vs March 2025 {t25}."),
    ]


def chat20():
    u = one("select sum(qty) from l where vendor = 'BRANDO' and year(d) = 2025")
    return [
        turn("what's our gross margin on the BRANDO line?", "unanswerable", decline=True,
             note="No cost / COGS column; only selling prices."),
        turn("ok then what's the site conversion rate", "unanswerable", decline=True,
             note="The export has orders only: no sessions or visitors."),
        turn("fine. units sold in 2025 for vendor BRANDO? just that vendor, not the velvet/parisian luxe ones", "extra_columns", [u], ["BRANDO"],
             note="SUM(Lineitem quantity) where Vendor = 'BRANDO' (exactly; BRANDO VELVET etc. are other vendors), "
                  "order year 2025."),
    ]


def chat21():
    r25 = one("select sum(refd) from o where year(d) = 2025")
    return [
        turn("top return reasons this year?", "unanswerable", decline=True,
             note="No return-reason column (only refunded amounts and statuses)."),
        turn("ok how much was refunded on 2025 orders then", "extra_columns", [r2(r25)],
             note="SUM(Refunded Amount) of orders placed in 2025 (the file has no refund date)."),
    ]


def chat22():
    top = ranked("select name, tot from o", 1)[0]
    d = one(f"select d from o where name = '{top[0]}'")
    return [
        turn("biggest single order by total, order # and amount?", "in_schema", [r2(top[1])], [top[0]],
             note="Order (Name) with the highest Total."),
        turn("when was it placed", "follow_up", names=[dname(d)], note=f"Created at {d.isoformat()}."),
    ]


def chat23():
    day = ranked("select d, count(*) from o group by 1", 1)[0]
    t = one(f"select sum(tot) from o where d = date '{day[0]}'")
    return [
        turn("busiest day ever by number of orders?", "in_schema", [day[1]], [dname(day[0])],
             note=f"Order date {day[0].isoformat()} by order count."),
        turn("and the $ that day?", "follow_up", [r2(t)], note=f"SUM(Total) of the orders dated {day[0].isoformat()}."),
    ]


def chat24():
    n = one("select count(*) from o where cxl is not null")
    t25 = one("select sum(tot) from o where year(d) = 2025 and cxl is null")
    return [
        turn("how many orders got cancelled (have a Cancelled at)?", "extra_columns", [n],
             note="Orders with a Cancelled at timestamp."),
        turn("2025 order $ excluding the cancelled ones?", "negation_recency", [r2(t25)],
             note="SUM(Total) of 2025 orders without a Cancelled at."),
    ]


def chat25():
    n = one("select count(*) from l where cap > price")
    return [
        turn("how many line items were sold below their compare-at price?", "extra_columns", [n],
             note="Rows with Lineitem compare at price > Lineitem price (markdowns)."),
    ]


def chat26():
    med = one("select median(tot) from o")
    n = one("select count(*) from o")
    return [
        turn("whats the median order total? avg gets skewed by the big ones", "in_schema", [r2(med)],
             note=f"MEDIAN(Total) over all {n} orders ($0 orders included; an even count, so the mean of the two "
                  "middle values)."),
    ]


def chat27():
    n, t = rows(f"select count(*), sum(tot) from o where d between date '2026-01-01' and date '{LATEST}'")[0]
    n0, t0 = rows("select count(*), sum(tot) from o where d between date '2025-01-01' and date '2025-03-28'")[0]
    return [
        turn("can you forecast exactly what april 2026 sales will be?", "unanswerable", decline=True,
             note="The data ends on 2026-03-28; an exact future figure cannot be read from it."),
        turn("how many Greyson Noir 32s do we have left in stock", "unanswerable", decline=True,
             note="Orders only; no inventory."),
        turn("ok - this year so far vs the same stretch last year, order $?", "negation_recency",
             [r2(t), r2(t0), growth(t, t0)],
             note=f"SUM(Total) 2026-01-01 ... {LATEST} ({n} orders) vs 2025-01-01 ... 2025-03-28 ({n0} orders)."),
    ]


def chat28():
    q2 = "how many orders had just one line item"
    n1 = one("select count(*) from (select name from l group by 1 having count(*) = 1)")
    return [
        turn("whats the age / gender split of our customers?", "unanswerable", decline=True,
             note="No age or gender column."),
        turn(q2, "in_schema", [n1], note="Orders (Name) with exactly one row."),
        turn("what was my 2nd question?", "conversation", names=[q2], note="The second question of this chat, word for word."),
    ]


def chat29():
    order = "#15730"
    n, units = rows(f"select count(*), sum(qty) from l where name = '{order}'")[0]
    t = one(f"select tot from o where name = '{order}'")
    items = [r[0] for r in rows(f"select li from l where name = '{order}' and {NOT_ADDON} order by li")]
    return [
        turn("pull up order 15730 - how many lines are on it and what's the total?", "in_schema", [n, r2(t)], items,
             note=f"Order {order} (the last order of the file): {n} line items ({units} units) including one package "
                  f"protection add-on; Total {t}."),
    ]


def chat30():
    orders25 = one("select count(*) from o where year(d) = 2025")
    units25 = one(f"select sum(qty) from l where {NOT_ADDON} and year(d) = 2025")
    q1 = "orders in 2025?"
    return [
        turn(q1, "in_schema", [orders25], note="Orders with a 2025 order date."),
        turn("can you repeat that number", "conversation", [orders25], note="The figure of the previous answer."),
        turn("units sold in 2025? leave out the protection/returns add-on lines", "in_schema", [units25],
             note="SUM(Lineitem quantity) of 2025 lines, Vendor not 're:do' / 'Route'."),
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
    ap.add_argument("--bank", default=str(Path(__file__).with_name("shopify_denim_blind.jsonl")),
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

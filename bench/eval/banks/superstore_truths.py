#!/usr/bin/env python3
"""Compute the truths of the blind Superstore question bank.

Usage:
    python superstore_truths.py /work/evaldata/superstore/superstore.csv            # print questions + truths
    python superstore_truths.py /work/evaldata/superstore/superstore.csv --jsonl OUT # also write the bank

Needs: duckdb (pip install duckdb).  Written blind: nothing here comes from the
assistant's code; every figure is computed from the CSV alone.

Conventions used for every truth (see also README.md):
  revenue / sales  = SUM(Sales)               orders    = COUNT(DISTINCT "Order ID")
  customers        = COUNT(DISTINCT "Customer ID")   units = SUM(Quantity)
  average order value (AOV) = SUM(Sales) / COUNT(DISTINCT "Order ID")
  profit margin    = SUM(Profit) / SUM(Sales) * 100
  growth %         = (new - old) / old * 100
  dates            = "Order Date" parsed as %m/%d/%Y (month/day/4-digit year, no zero padding)
  products         = grouped by "Product Name" (Product ID is not 1:1 with name in this file)
  "this year", "latest month", "last N calendar months" are relative to the LATEST
  order date in the data (2017-12-30), never to today's date.
All numbers are rounded to 2 decimals; percentages are given as 12.34 meaning 12.34 %.
"""

import json
import sys

import duckdb

LATEST_NOTE = "relative to the latest Order Date in the file, 2017-12-30"


def load(path):
    con = duckdb.connect()
    con.execute(
        "create table raw as select * from read_csv(?, header=true, all_varchar=true, delim=',', quote='\"')",
        [path],
    )
    con.execute("""
        create table t as select
            cast("Row ID" as int) row_id, "Order ID" oid,
            strptime("Order Date", '%m/%d/%Y')::date od,
            strptime("Ship Date", '%m/%d/%Y')::date sd,
            "Ship Mode" mode, "Customer ID" cid, "Customer Name" cname, Segment seg,
            Country country, City city, State state, "Postal Code" zip, Region region,
            "Product ID" pid, Category cat, "Sub-Category" sub, "Product Name" pname,
            cast(Sales as double) sales, cast(Quantity as int) qty,
            cast(Discount as double) disc, cast(Profit as double) profit
        from raw""")
    n = con.execute("select count(*) from t").fetchone()[0]
    assert n == 9994, n
    return con


def build(con):
    def v(sql):
        return con.execute(sql).fetchone()[0]

    def rows(sql):
        return con.execute(sql).fetchall()

    def r2(x):
        return round(float(x), 2)

    def growth(new, old):
        return r2((new - old) / old * 100)

    def ranked(sql, n):
        """First n labels of a ranking (label, value) query; asserts no tie at the cut."""
        rs = rows(sql)
        for i in range(min(n, len(rs) - 1)):
            assert rs[i][1] != rs[i + 1][1], ("tie in ranking", sql, rs[i], rs[i + 1])
        return [clean(r[0]) for r in rs[:n]], [r[1] if isinstance(r[1], int) else r2(r[1]) for r in rs[:n]]

    def clean(s):
        # the file holds non-breaking spaces inside some names; normalise for matching
        return str(s).replace("\u00a0", " ")

    def T(q, cat, **exp):
        return {"q": q, "category": cat, "expect": exp}

    chats = []

    def chat(turns):
        chats.append({"chat": "ss-%03d" % (len(chats) + 1), "dataset": "superstore", "turns": turns})

    tot_sales = v("select sum(sales) from t")
    tot_orders = v("select count(distinct oid) from t")
    v("select sum(profit) from t")
    tot_cust = v("select count(distinct cid) from t")

    def ysales(y):
        return v(f"select sum(sales) from t where year(od)={y}")

    def yprofit(y):
        return v(f"select sum(profit) from t where year(od)={y}")

    def msales(y, m):
        return v(f"select sum(sales) from t where year(od)={y} and month(od)={m}")

    # ---------------- ss-001 -------------------------------------------------
    chat(
        [
            T(
                "what's our total revenue across the whole dataset?",
                "in_schema",
                numbers=[r2(tot_sales)],
                note="SUM(Sales) over all 9994 rows",
            ),
            T(
                "and how many orders was that?",
                "follow_up",
                numbers=[tot_orders],
                note="COUNT(DISTINCT Order ID), whole file",
            ),
            T(
                "so whats our average order value",
                "in_schema",
                numbers=[r2(tot_sales / tot_orders)],
                note="SUM(Sales)/COUNT(DISTINCT Order ID), whole file",
            ),
        ]
    )

    # ---------------- ss-002 -------------------------------------------------
    top5, _ = ranked("select cname, sum(sales) s from t group by 1 order by 2 desc", 5)
    sm_orders = v(f"select count(distinct oid) from t where cname='{top5[0]}'")
    big = rows(f"select oid, sum(sales) s from t where cname='{top5[0]}' group by 1 order by 2 desc limit 2")
    assert big[0][1] != big[1][1]
    chat(
        [
            T(
                "who are our top 5 customers by revenue?",
                "in_schema",
                names=top5,
                first=top5[0],
                note="SUM(Sales) by Customer Name, all years, descending",
            ),
            T(
                "how many orders did the #1 customer place?",
                "follow_up",
                numbers=[sm_orders],
                note=f"#1 = {top5[0]}; COUNT(DISTINCT Order ID)",
            ),
            T(
                f"what was {top5[0]}'s single biggest order? order id and amount pls",
                "in_schema",
                names=[big[0][0]],
                numbers=[r2(big[0][1])],
                note="largest SUM(Sales) per Order ID for that customer",
            ),
            T(
                "sorry, which customer are we talking about again?",
                "conversation",
                names=[top5[0]],
                note="the customer of turns 2-3",
            ),
        ]
    )

    # ---------------- ss-003 -------------------------------------------------
    nov17, oct17 = msales(2017, 11), msales(2017, 10)
    chat(
        [
            T(
                "revenue nov 2017?",
                "in_schema",
                numbers=[r2(nov17)],
                names=["November 2017"],
                note="SUM(Sales), Order Date in 2017-11",
            ),
            T(
                "how does nov 2017 compare with oct 2017? % change",
                "in_schema",
                numbers=[r2(oct17), growth(nov17, oct17)],
                note="Oct 2017 revenue and MoM growth (Nov-Oct)/Oct*100",
            ),
            T(
                "what was the revenue figure in your first answer?",
                "conversation",
                numbers=[r2(nov17)],
                note="answer of turn 1",
            ),
        ]
    )

    # ---------------- ss-004 -------------------------------------------------
    reg17, reg17v = ranked(
        "select region, sum(profit) from t where year(od)=2017 group by 1 order by 2 desc", 1
    )
    reg16, reg16v = ranked(
        "select region, sum(profit) from t where year(od)=2016 group by 1 order by 2 desc", 1
    )
    chat(
        [
            T(
                "yoy sales growth 2017 vs 2016?",
                "in_schema",
                numbers=[growth(ysales(2017), ysales(2016))],
                note=f"2017 {r2(ysales(2017))} vs 2016 {r2(ysales(2016))}; (2017-2016)/2016*100",
            ),
            T(
                "and profit growth 2017 vs 2016?",
                "extra_columns",
                numbers=[growth(yprofit(2017), yprofit(2016))],
                note=f"profit 2017 {r2(yprofit(2017))} vs 2016 {r2(yprofit(2016))}",
            ),
            T(
                "which region had the highest profit in 2017?",
                "extra_columns",
                names=reg17,
                first=reg17[0],
                numbers=reg17v,
                note="SUM(Profit) by Region, 2017",
            ),
            T(
                "what about 2016?",
                "follow_up",
                names=reg16,
                first=reg16[0],
                numbers=reg16v,
                note="same question for 2016: top Region by SUM(Profit)",
            ),
        ]
    )

    # ---------------- ss-005 -------------------------------------------------
    cg = rows(
        "select cname, sum(sales), count(distinct oid), max(od) from t where cid='CG-12520' group by 1"
    )[0]
    chat(
        [
            T(
                "how much has customer CG-12520 spent with us in total?",
                "in_schema",
                numbers=[r2(cg[1])],
                note=f"SUM(Sales) where Customer ID = CG-12520 ({cg[0]})",
            ),
            T(
                "how many orders has CG-12520 placed?",
                "in_schema",
                numbers=[cg[2]],
                note="COUNT(DISTINCT Order ID)",
            ),
            T(
                "when was CG-12520's most recent order?",
                "in_schema",
                names=[cg[3].strftime("%B %-d, %Y")],
                note=f"MAX(Order Date) = {cg[3].isoformat()}",
            ),
            T(
                "which customer id was i asking about?",
                "conversation",
                names=["CG-12520"],
                note="from turn 1 (the customer is Claire Gute)",
            ),
        ]
    )

    # ---------------- ss-006 -------------------------------------------------
    def margin(where):
        return r2(v(f"select 100*sum(profit)/sum(sales) from t where {where}"))

    worst_sub, worst_subv = ranked("select sub, sum(profit) from t group by 1 order by 2 asc", 1)
    chat(
        [
            T(
                "profit margn of Furniture?",
                "extra_columns",
                numbers=[margin("cat='Furniture'")],
                note="SUM(Profit)/SUM(Sales)*100, Category = Furniture, all years",
            ),
            T(
                "and technology?",
                "follow_up",
                numbers=[margin("cat='Technology'")],
                note="same for Category = Technology",
            ),
            T(
                "which sub-category lost the most money overall?",
                "extra_columns",
                names=worst_sub,
                first=worst_sub[0],
                numbers=worst_subv,
                note="lowest SUM(Profit) by Sub-Category",
            ),
        ]
    )

    # ---------------- ss-007 -------------------------------------------------
    q7a = "how many orders were shipped Same Day?"
    mode_top, _ = ranked("select mode, count(distinct oid) from t group by 1 order by 2 desc", 1)
    avg_line = v("select avg(sd-od) from t")
    avg_order = v("select avg(d) from (select oid, any_value(sd-od) d from t group by oid)")
    assert r2(avg_line) == r2(avg_order)
    chat(
        [
            T(
                q7a,
                "extra_columns",
                numbers=[v("select count(distinct oid) from t where mode='Same Day'")],
                note="COUNT(DISTINCT Order ID) with Ship Mode = Same Day",
            ),
            T(
                "whats the average number of days between order date and ship date?",
                "extra_columns",
                numbers=[r2(avg_line)],
                note="mean(Ship Date - Order Date) in days; same to 2 dp per line or per order",
            ),
            T(
                "which ship mode gets used the most?",
                "extra_columns",
                names=mode_top,
                first=mode_top[0],
                note="most orders (and most lines) use it",
            ),
            T("what was the first thing i asked you?", "conversation", names=[q7a], note="text of turn 1"),
        ]
    )

    # ---------------- ss-008 -------------------------------------------------
    q8a = "which states lost money overall?"
    losers = [
        clean(r[0]) for r in rows("select state from t group by 1 having sum(profit)<0 order by sum(profit)")
    ]
    worst_state, worst_statev = ranked("select state, sum(profit) from t group by 1 order by 2 asc", 1)
    chat(
        [
            T(
                q8a,
                "extra_columns",
                names=losers,
                note="States with SUM(Profit) < 0, all years (%d states)" % len(losers),
            ),
            T(
                "which state lost the most?",
                "extra_columns",
                names=worst_state,
                first=worst_state[0],
                numbers=worst_statev,
                note="lowest SUM(Profit) by State",
            ),
            T(
                "whats texas's profit margin overall",
                "extra_columns",
                numbers=[margin("state='Texas'")],
                note="SUM(Profit)/SUM(Sales)*100 for Texas, all years (negative)",
            ),
            T("remind me which question i started with?", "conversation", names=[q8a], note="text of turn 1"),
        ]
    )

    # ---------------- ss-009 -------------------------------------------------
    west3, _ = ranked("select sub, sum(sales) from t where region='West' group by 1 order by 2 desc", 3)
    east3, _ = ranked("select sub, sum(sales) from t where region='East' group by 1 order by 2 desc", 3)
    chat(
        [
            T(
                "top 3 sub-categories by sales in the West",
                "extra_columns",
                names=west3,
                first=west3[0],
                note="SUM(Sales) by Sub-Category, Region = West, all years",
            ),
            T(
                "what about the East?",
                "follow_up",
                names=east3,
                first=east3[0],
                note="same ranking for Region = East",
            ),
            T(
                "repeat your first answer please",
                "conversation",
                names=west3,
                first=west3[0],
                note="the West top 3 from turn 1",
            ),
        ]
    )

    # ---------------- ss-010 -------------------------------------------------
    south_top, south_topv = ranked(
        "select state, sum(sales) from t where region='South' group by 1 order by 2 desc", 1
    )
    chat(
        [
            T(
                "fyi my favourite region is the South. how much did it sell in 2017?",
                "extra_columns",
                numbers=[r2(v("select sum(sales) from t where region='South' and year(od)=2017"))],
                note="SUM(Sales), Region = South, 2017",
            ),
            T(
                "what was the south's profit margin in 2017?",
                "extra_columns",
                numbers=[margin("region='South' and year(od)=2017")],
                note="South, 2017: SUM(Profit)/SUM(Sales)*100",
            ),
            T(
                "whats the top state in the south by sales, all time?",
                "extra_columns",
                names=south_top,
                first=south_top[0],
                numbers=south_topv,
                note="SUM(Sales) by State within Region = South",
            ),
            T(
                "what did I say my favourite region was?",
                "conversation",
                names=["South"],
                note="stated by the user in turn 1",
            ),
        ]
    )

    # ---------------- ss-011 -------------------------------------------------
    chat(
        [
            T(
                "what are the main reasons customers return products?",
                "unanswerable",
                decline=True,
                note="the file has no returns or return-reason column",
            ),
            T(
                "ok. how much did we spend on marketing in 2017?",
                "unanswerable",
                decline=True,
                note="no cost / marketing spend data in the file",
            ),
        ]
    )

    # ---------------- ss-012 -------------------------------------------------
    chat(
        [
            T(
                "total sales in 2016?",
                "in_schema",
                numbers=[r2(ysales(2016))],
                note="SUM(Sales), Order Date in 2016",
            ),
            T(
                "was bad weather the reason february 2017 was so weak?",
                "unanswerable",
                decline=True,
                note="no weather data; Feb 2017 (20301.13) is indeed the weakest 2017 month, but the cause cannot be shown",
            ),
        ]
    )

    # ---------------- ss-013 -------------------------------------------------
    chat(
        [
            T(
                "who's the regional sales manager for Central?",
                "unanswerable",
                decline=True,
                note="no employee / manager names in the file",
            ),
            T(
                "give me the exact revenue we'll do in march 2018",
                "unanswerable",
                decline=True,
                note="data ends 2017-12-30; an exact future figure cannot be known",
            ),
        ]
    )

    # ---------------- ss-014 -------------------------------------------------
    chat(
        [
            T(
                "revenue excluding Technology?",
                "negation_recency",
                numbers=[r2(v("select sum(sales) from t where cat<>'Technology'"))],
                note="SUM(Sales) where Category <> Technology, all years",
            ),
            T(
                "now leave out furniture as well",
                "negation_recency",
                numbers=[r2(v("select sum(sales) from t where cat not in ('Technology','Furniture')"))],
                note="excluding Technology and Furniture (= Office Supplies)",
            ),
            T(
                "which category did I exclude first?",
                "conversation",
                names=["Technology"],
                note="from turn 1",
            ),
        ]
    )

    # ---------------- ss-015 -------------------------------------------------
    chat(
        [
            T(
                "total sales outside califronia?",
                "negation_recency",
                numbers=[r2(v("select sum(sales) from t where state<>'California'"))],
                note="State <> California, all years",
            ),
            T(
                "just for 2017?",
                "follow_up",
                numbers=[r2(v("select sum(sales) from t where state<>'California' and year(od)=2017"))],
                note="State <> California, Order Date in 2017",
            ),
        ]
    )

    # ---------------- ss-016 -------------------------------------------------
    lapsed = v(
        "select count(distinct cid) from t where cid not in (select cid from t where od >= '2017-07-01')"
    )
    active = v("select count(distinct cid) from t where od >= '2017-07-01'")
    assert lapsed + active == tot_cust
    chat(
        [
            T(
                "how many customers haven't ordered at all in the last 6 calendar months of the data?",
                "negation_recency",
                numbers=[lapsed],
                note=f"last 6 calendar months = Jul-Dec 2017 ({LATEST_NOTE}); customers with no order dated >= 2017-07-01",
            ),
            T(
                "and how many did order in those 6 months?",
                "negation_recency",
                numbers=[active],
                note="distinct customers with an order dated 2017-07-01..2017-12-30",
            ),
        ]
    )

    # ---------------- ss-017 -------------------------------------------------
    chat(
        [
            T(
                "how many SKUs (product IDs) were never sold with any discount?",
                "negation_recency",
                numbers=[v("select count(*) from (select pid from t group by 1 having max(disc)=0)")],
                note="Product IDs whose every line has Discount = 0 (193 if counted by Product Name)",
            ),
        ]
    )

    # ---------------- ss-018 -------------------------------------------------
    chat(
        [
            T(
                "whats revenue this year?",
                "negation_recency",
                numbers=[r2(ysales(2017))],
                names=["2017"],
                note=f"this year = 2017, {LATEST_NOTE}",
            ),
            T(
                "and in the latest month in the data?",
                "negation_recency",
                numbers=[r2(msales(2017, 12))],
                names=["December 2017"],
                note="latest month = December 2017",
            ),
            T(
                "how many orders in the most recent quarter?",
                "negation_recency",
                numbers=[v("select count(distinct oid) from t where year(od)=2017 and quarter(od)=4")],
                names=["Q4 2017"],
                note="most recent quarter in the data = Q4 2017 (Oct-Dec)",
            ),
            T(
                "what time period was my first question about?",
                "conversation",
                names=["2017"],
                note="'this year' in turn 1 = 2017",
            ),
        ]
    )

    # ---------------- ss-019 -------------------------------------------------
    chat(
        [
            T(
                "how many customers bought in 2016 but didnt buy anything in 2017?",
                "negation_recency",
                numbers=[
                    v(
                        "select count(distinct cid) from t where year(od)=2016 and cid not in (select cid from t where year(od)=2017)"
                    )
                ],
                note="distinct Customer IDs with a 2016 order and no 2017 order",
            ),
        ]
    )

    # ---------------- ss-020 -------------------------------------------------
    red17 = [
        clean(r[0])
        for r in rows(
            "select state from t where year(od)=2017 and state<>'Texas' group by 1 having sum(profit)<0 order by sum(profit)"
        )
    ]
    chat(
        [
            T(
                "total profit if we leave Texas out?",
                "negation_recency",
                numbers=[r2(v("select sum(profit) from t where state<>'Texas'"))],
                note="SUM(Profit) where State <> Texas, all years",
            ),
            T(
                "which states besides texas were in the red in 2017?",
                "negation_recency",
                names=red17,
                note="States <> Texas with SUM(Profit) < 0 in 2017 (%d states)" % len(red17),
            ),
        ]
    )

    # ---------------- ss-021 -------------------------------------------------
    chat(
        [
            T(
                "what % of sales comes from the consumer segment?",
                "extra_columns",
                numbers=[r2(100 * v("select sum(sales) from t where seg='Consumer'") / tot_sales)],
                note="Consumer SUM(Sales)/total*100",
            ),
            T(
                "revenue from everything except consumer?",
                "negation_recency",
                numbers=[r2(v("select sum(sales) from t where seg<>'Consumer'"))],
                note="Segment <> Consumer (Corporate + Home Office)",
            ),
            T("which segment did we start with?", "conversation", names=["Consumer"], note="from turn 1"),
        ]
    )

    # ---------------- ss-022 -------------------------------------------------
    spr = [clean(r[0]) for r in rows("select distinct state from t where city='Springfield' order by 1")]
    assert len(spr) > 1
    chat(
        [
            T(
                "how much did we sell in springfield?",
                "extra_columns",
                clarify=True,
                names=spr,
                note="City 'Springfield' exists in %d states; a good answer asks which (or splits by state)"
                % len(spr),
            ),
            T(
                "the one in virginia",
                "follow_up",
                numbers=[r2(v("select sum(sales) from t where city='Springfield' and state='Virginia'"))],
                note="Springfield, Virginia, SUM(Sales) all years",
            ),
            T("what city was that about?", "conversation", names=["Springfield"], note="from turn 1"),
        ]
    )

    # ---------------- ss-023 -------------------------------------------------
    chands = [r[0] for r in rows("select distinct cname from t where cname like '% Chand' order by 1")]
    assert len(chands) >= 2
    chat(
        [
            T(
                "how much has Chand bought from us?",
                "in_schema",
                clarify=True,
                names=chands,
                note="%d customers share the surname Chand; a good answer asks which one (or lists each)"
                % len(chands),
            ),
            T(
                "tamara",
                "follow_up",
                numbers=[r2(v("select sum(sales) from t where cname='Tamara Chand'"))],
                note="Tamara Chand, SUM(Sales) all years",
            ),
        ]
    )

    # ---------------- ss-024 -------------------------------------------------
    tp, tpv = ranked("select pname, sum(sales) from t group by 1 order by 2 desc", 1)
    chat(
        [
            T(
                "whats our best selling product by revenue?",
                "in_schema",
                names=tp,
                first=tp[0],
                numbers=tpv,
                note="SUM(Sales) by Product Name, all years",
            ),
            T(
                f"how many units of the {tp[0]} did we sell?",
                "in_schema",
                numbers=[v(f"select sum(qty) from t where pname='{tp[0]}'")],
                note="SUM(Quantity)",
            ),
            T(
                f"what profit did the {tp[0]} make overall?",
                "extra_columns",
                numbers=[r2(v(f"select sum(profit) from t where pname='{tp[0]}'"))],
                note="SUM(Profit) for that product",
            ),
            T("what did you say the top product was?", "conversation", names=tp, note="answer of turn 1"),
        ]
    )

    # ---------------- ss-025 -------------------------------------------------
    hon = "Hon Deluxe Fabric Upholstered Stacking Chairs, Rounded Back"
    hon15 = v(f"select count(*) from t where pname='{hon}' and year(od)=2015")
    assert hon15 == 0
    chat(
        [
            T(
                f"how many units of {hon} did we sell?",
                "in_schema",
                numbers=[v(f"select sum(qty) from t where pname='{hon}'")],
                note="SUM(Quantity) for that Product Name, all years",
            ),
            T(
                "what revenue did that product bring in during 2017?",
                "in_schema",
                numbers=[r2(v(f"select sum(sales) from t where pname='{hon}' and year(od)=2017"))],
                note="SUM(Sales), 2017",
            ),
            T(
                "and in 2015?",
                "follow_up",
                numbers=[0],
                note="the product has no sales lines in 2015: the right answer is none / 0",
            ),
        ]
    )

    # ---------------- ss-026 -------------------------------------------------
    bd = rows("select od, sum(sales) from t group by 1 order by 2 desc limit 2")
    assert bd[0][1] != bd[1][1]
    chat(
        [
            T(
                "sales on black friday 2017 (nov 24)?",
                "in_schema",
                numbers=[r2(v("select sum(sales) from t where od='2017-11-24'"))],
                note="SUM(Sales), Order Date = 2017-11-24",
            ),
            T(
                "how many orders were placed on nov 24 2017?",
                "in_schema",
                numbers=[v("select count(distinct oid) from t where od='2017-11-24'")],
                note="COUNT(DISTINCT Order ID) that day",
            ),
            T(
                "what was our biggest sales day ever?",
                "in_schema",
                names=[bd[0][0].strftime("%B %-d, %Y")],
                first=bd[0][0].strftime("%B %-d, %Y"),
                numbers=[r2(bd[0][1])],
                note=f"day with the highest SUM(Sales): {bd[0][0].isoformat()}",
            ),
        ]
    )

    # ---------------- ss-027 -------------------------------------------------
    q416 = v("select sum(sales) from t where year(od)=2016 and quarter(od)=4")
    q417 = v("select sum(sales) from t where year(od)=2017 and quarter(od)=4")
    chat(
        [
            T("q4 2016 revenue?", "in_schema", numbers=[r2(q416)], note="SUM(Sales), Oct-Dec 2016"),
            T(
                "and q4 2017? whats the growth",
                "in_schema",
                numbers=[r2(q417), growth(q417, q416)],
                note="Q4 2017 SUM(Sales) and growth vs Q4 2016",
            ),
            T("which quarter did I ask about first?", "conversation", names=["Q4 2016"], note="from turn 1"),
        ]
    )

    # ---------------- ss-028 -------------------------------------------------
    bot3, _ = ranked("select cname, sum(sales) from t group by 1 order by 2 asc", 3)
    chat(
        [
            T(
                "bottom 3 custmers by revenue",
                "in_schema",
                names=bot3,
                first=bot3[0],
                note="lowest SUM(Sales) by Customer Name, all years",
            ),
        ]
    )

    # ---------------- ss-029 -------------------------------------------------
    bm = rows("select year(od), month(od), sum(sales) from t group by 1,2 order by 3 desc limit 2")
    assert bm[0][2] != bm[1][2]
    import calendar

    bm_name = "%s %d" % (calendar.month_name[bm[0][1]], bm[0][0])
    chat(
        [
            T(
                "what share of total revnue did 2017 account for?",
                "in_schema",
                numbers=[r2(100 * ysales(2017) / tot_sales)],
                note="2017 SUM(Sales) / all-years SUM(Sales) * 100",
            ),
            T(
                "which month in the whole dataset had the highest revenue?",
                "in_schema",
                names=[bm_name],
                first=bm_name,
                numbers=[r2(bm[0][2])],
                note="SUM(Sales) by calendar month (year+month)",
            ),
        ]
    )

    # ---------------- ss-030 -------------------------------------------------
    city5, _ = ranked("select city, sum(sales) from t group by 1 order by 2 desc", 5)
    chat(
        [
            T(
                "top 5 cities by sales",
                "extra_columns",
                names=city5,
                first=city5[0],
                note="SUM(Sales) by City (top 5 are unique city names), all years",
            ),
            T(
                "profit in seattle?",
                "extra_columns",
                numbers=[r2(v("select sum(profit) from t where city='Seattle'"))],
                note="SUM(Profit), City = Seattle (Washington only)",
            ),
            T("which city did you list 3rd?", "conversation", names=[city5[2]], note="third city of turn 1"),
        ]
    )

    # ---------------- ss-031 -------------------------------------------------
    chat(
        [
            T(
                "what's the average discount on order lines in the Central region?",
                "extra_columns",
                numbers=[r2(100 * v("select avg(disc) from t where region='Central'"))],
                note="plain mean of Discount over Central rows, as %",
            ),
            T(
                "how many order lines had a discount of 50% or more?",
                "extra_columns",
                numbers=[v("select count(*) from t where disc >= 0.5")],
                note="rows with Discount >= 0.5, all regions",
            ),
            T(
                "what's the profit margin on those lines?",
                "follow_up",
                numbers=[margin("disc >= 0.5")],
                note="SUM(Profit)/SUM(Sales)*100 over rows with Discount >= 0.5 (negative)",
            ),
        ]
    )

    # ---------------- ss-032 -------------------------------------------------
    bestcat, bestcatv = ranked("select cat, 100*sum(profit)/sum(sales) from t group by 1 order by 2 desc", 1)
    chat(
        [
            T(
                "which category has the best profit margin?",
                "extra_columns",
                names=bestcat,
                first=bestcat[0],
                numbers=bestcatv,
                note="SUM(Profit)/SUM(Sales)*100 by Category, all years",
            ),
            T(
                "margin on office supplies in 2016?",
                "extra_columns",
                numbers=[margin("cat='Office Supplies' and year(od)=2016")],
                note="Office Supplies, 2016",
            ),
        ]
    )

    # ---------------- ss-033 -------------------------------------------------
    txcity, txcityv = ranked(
        "select city, sum(sales) from t where state='Texas' group by 1 order by 2 desc", 1
    )
    chat(
        [
            T(
                "sales in texas in 2017?",
                "extra_columns",
                numbers=[r2(v("select sum(sales) from t where state='Texas' and year(od)=2017"))],
                note="State = Texas, 2017",
            ),
            T(
                "and the profit?",
                "follow_up",
                numbers=[r2(v("select sum(profit) from t where state='Texas' and year(od)=2017"))],
                note="Texas, 2017, SUM(Profit) (negative)",
            ),
            T(
                "top city in texas by sales (all years)",
                "extra_columns",
                names=txcity,
                first=txcity[0],
                numbers=txcityv,
                note="SUM(Sales) by City within Texas",
            ),
            T(
                "which state are we looking at?",
                "conversation",
                names=["Texas"],
                note="the state of this chat",
            ),
        ]
    )

    # ---------------- ss-034 -------------------------------------------------
    seg15, seg15v = ranked("select seg, sum(profit) from t where year(od)=2015 group by 1 order by 2 desc", 1)
    chat(
        [
            T(
                "how many corporate customers do we have?",
                "extra_columns",
                numbers=[v("select count(distinct cid) from t where seg='Corporate'")],
                note="COUNT(DISTINCT Customer ID), Segment = Corporate",
            ),
            T(
                "which segment made the most profit in 2015?",
                "extra_columns",
                names=seg15,
                first=seg15[0],
                numbers=seg15v,
                note="SUM(Profit) by Segment, 2015",
            ),
        ]
    )

    # ---------------- ss-035 -------------------------------------------------
    mp, mpv = ranked("select pname, sum(profit) from t group by 1 order by 2 desc", 1)
    lp, lpv = ranked("select pname, sum(profit) from t group by 1 order by 2 asc", 1)
    chat(
        [
            T(
                "whats the most profitable product overall?",
                "extra_columns",
                names=mp,
                first=mp[0],
                numbers=mpv,
                note="SUM(Profit) by Product Name",
            ),
            T(
                "and the least profitable?",
                "extra_columns",
                names=lp,
                first=lp[0],
                numbers=lpv,
                note="lowest SUM(Profit) by Product Name",
            ),
            T("repeat your second answer", "conversation", names=lp, numbers=lpv, note="answer of turn 2"),
        ]
    )

    # ---------------- ss-036 -------------------------------------------------
    subu, subuv = ranked("select sub, sum(qty) from t group by 1 order by 2 desc", 1)
    chat(
        [
            T(
                "phones sales in the east regoin?",
                "extra_columns",
                numbers=[r2(v("select sum(sales) from t where sub='Phones' and region='East'"))],
                note="Sub-Category = Phones, Region = East, all years",
            ),
            T(
                "top sub-category by units sold?",
                "extra_columns",
                names=subu,
                first=subu[0],
                numbers=subuv,
                note="SUM(Quantity) by Sub-Category, all regions and years",
            ),
        ]
    )

    # ---------------- ss-037 -------------------------------------------------
    zc = rows("select distinct city from t where zip='10035'")
    assert len(zc) == 1
    chat(
        [
            T(
                "total sales for postal code 10035?",
                "extra_columns",
                numbers=[r2(v("select sum(sales) from t where zip='10035'"))],
                note="Postal Code = 10035",
            ),
            T(
                "which city is that zip in?",
                "extra_columns",
                names=[zc[0][0]],
                note="City of Postal Code 10035",
            ),
        ]
    )

    # ---------------- ss-038 -------------------------------------------------
    o17 = v("select count(distinct oid) from t where year(od)=2017")
    chat(
        [
            T(
                "hi, i'm Priya from finance. how many orders did we get in 2017?",
                "in_schema",
                numbers=[o17],
                note="COUNT(DISTINCT Order ID), 2017",
            ),
            T(
                "avg order val that year?",
                "in_schema",
                numbers=[r2(ysales(2017) / o17)],
                note="2017 SUM(Sales)/2017 orders",
            ),
            T(
                "how many distinct customers ordered in 2017?",
                "in_schema",
                numbers=[v("select count(distinct cid) from t where year(od)=2017")],
                note="COUNT(DISTINCT Customer ID), 2017",
            ),
            T(
                "what's my name and what team am i on?",
                "conversation",
                names=["Priya", "finance"],
                note="stated by the user in turn 1",
            ),
        ]
    )

    # ---------------- ss-039 -------------------------------------------------
    q39a = "how many units did we sell in 2016"
    dmin, dmax = rows("select min(od), max(od) from t")[0]
    chat(
        [
            T(
                q39a,
                "in_schema",
                numbers=[v("select sum(qty) from t where year(od)=2016")],
                note="SUM(Quantity), 2016",
            ),
            T(
                "when was the first order in the data, and the last one?",
                "in_schema",
                names=[dmin.strftime("%B %-d, %Y"), dmax.strftime("%B %-d, %Y")],
                note=f"MIN/MAX Order Date = {dmin.isoformat()} / {dmax.isoformat()}",
            ),
            T("what did I ask first?", "conversation", names=[q39a], note="text of turn 1"),
        ]
    )

    # ---------------- ss-040 -------------------------------------------------
    tc = v("select count(distinct oid) from t where cname='Tamara Chand'")
    rb = v("select count(distinct oid) from t where cname='Raymond Buch'")
    chat(
        [
            T(
                "how many orders did Tamara Chand place?",
                "in_schema",
                numbers=[tc],
                note="COUNT(DISTINCT Order ID)",
            ),
            T("and raymond buch?", "follow_up", numbers=[rb], note="same for Raymond Buch"),
            T(
                "which two customers did i ask about?",
                "conversation",
                names=["Tamara Chand", "Raymond Buch"],
                note="turns 1-2",
            ),
            T(
                "what was your answer to my second question?",
                "conversation",
                numbers=[rb],
                note="answer of turn 2 (order count of Raymond Buch)",
            ),
        ]
    )

    # ---------------- ss-041 -------------------------------------------------
    chat(
        [
            T(
                "what's the average age of our customers?",
                "unanswerable",
                decline=True,
                note="no age / demographic column",
            ),
            T(
                "ok, how many customers are in the Home Office segment then?",
                "extra_columns",
                numbers=[v("select count(distinct cid) from t where seg='Home Office'")],
                note="COUNT(DISTINCT Customer ID), Segment = Home Office",
            ),
        ]
    )

    # ---------------- ss-042 -------------------------------------------------
    p17, _ = ranked("select pname, sum(sales) from t where year(od)=2017 group by 1 order by 2 desc", 3)
    chat(
        [
            T(
                "did sales drop from 2014 to 2015? by how much in %?",
                "in_schema",
                numbers=[abs(growth(ysales(2015), ysales(2014)))],
                note=f"yes: 2015 {r2(ysales(2015))} vs 2014 {r2(ysales(2014))}, a decline of this many % (growth {growth(ysales(2015), ysales(2014))})",
            ),
            T(
                "top 3 products by revenue in 2017",
                "in_schema",
                names=p17,
                first=p17[0],
                note="SUM(Sales) by Product Name, 2017",
            ),
        ]
    )

    # ---------------- ss-043 -------------------------------------------------
    regord, regordv = ranked("select region, count(distinct oid) from t group by 1 order by 2 desc", 1)
    chat(
        [
            T(
                "which region gets the most orders?",
                "extra_columns",
                names=regord,
                first=regord[0],
                numbers=regordv,
                note="COUNT(DISTINCT Order ID) by Region, all years",
            ),
            T(
                "how many First Class orders did we ship in 2017?",
                "extra_columns",
                numbers=[v("select count(distinct oid) from t where mode='First Class' and year(od)=2017")],
                note="Ship Mode = First Class, Order Date in 2017",
            ),
        ]
    )

    # sanity: every name is NBSP-free, numbers are plain numbers
    for c in chats:
        for tr in c["turns"]:
            e = tr["expect"]
            for n in e.get("names", []):
                assert "\u00a0" not in n
            e["numbers"] = [
                int(x) if isinstance(x, int) else float(x) for x in e.get("numbers", [])
            ] or e.pop("numbers", None)
            if e.get("numbers") is None:
                e.pop("numbers", None)
    return chats


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    con = load(sys.argv[1])
    chats = build(con)
    counts = {}
    nq = 0
    for c in chats:
        print("=" * 70)
        print(c["chat"])
        for i, tr in enumerate(c["turns"], 1):
            nq += 1
            counts[tr["category"]] = counts.get(tr["category"], 0) + 1
            print(f"  [{i}] ({tr['category']}) {tr['q']}")
            print(f"      -> {json.dumps(tr['expect'], ensure_ascii=False)}")
    print("=" * 70)
    print(f"{len(chats)} chats, {nq} questions:", json.dumps(counts, sort_keys=True))
    if "--jsonl" in sys.argv:
        out = sys.argv[sys.argv.index("--jsonl") + 1]
        with open(out, "w", encoding="utf-8") as f:
            for c in chats:
                f.write(json.dumps(c, ensure_ascii=False) + "\n")
        print("wrote", out)


if __name__ == "__main__":
    main()

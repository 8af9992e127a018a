"""``analyze_sales``: any sales question as one typed query, answered by code.

The arguments are the reading of the question (``retail.analysis.Query``); the result's ``answer``
states what was computed and every figure (docs/architecture.md#answers-by-construction). The schema
carries the domain's vocabulary so that any client can read questions into it: each choice of
``measure``, ``group_by``, ``order`` and ``compare`` is listed in its description with the words
analysts use for it (``name = word, word``), and the countries are the data's own (with the spellings
people type for them). No ``from __future__ import annotations``: see ``tools_customers``.
"""

from typing import Annotated, Any

from pydantic import Field, ValidationError

from agent_orchestrator.mcp_server.arguments import compact_validation_error
from agent_orchestrator.mcp_server.toolkit import ToolKit, to_json
from agent_orchestrator.retail.analysis import Dimension, Measure, Query, answer_query
from agent_orchestrator.retail.analysis.query import MAX_ROWS
from agent_orchestrator.retail.analysis.render import cannot_answer
from agent_orchestrator.retail.countries import ALIAS_GROUPS
from agent_orchestrator.retail.countries import key as country_key

MEASURES = (
    "revenue = revenue, rev, sales, sold for, turnover, takings, take, took, income, money, spend, spent, "
    "earned, made, did we make, do we make, we make, making, "
    "value, valuable, lucrative, net revenue, net sales, gmv, gross merchandise value, how much did we sell, "
    "how much we sold, how much was sold, how much have we sold, everything we sold, all we sold, "
    "everything sold; "
    "orders = orders, invoices, purchases, transactions, baskets, order count, number of orders, "
    "order volume, frequent, frequently, often; "
    "customers = customers, custs, buyers, clients, shoppers, people, accounts; "
    "units = units, quantity, items, pieces, volume, sold, sell, sells, selling, seller, sellers, popular, "
    "shipped, ship, dispatched, delivered; "
    "avg_order_value = average order value, aov, average basket, basket size, average order, per order, "
    "avg order value, avg order, avg basket, revenue per order, average revenue per order, "
    "average sale, "
    "average spend per order, order value; "
    "revenue_per_customer = revenue per customer, average revenue per customer, spend per customer, "
    "average spend per customer, average spending per customer, spending per customer, arpu, customer value, "
    "average customer value, per customer; "
    "cancellations = cancellations, cancelled orders, cancelled, canceled, cancelled invoices, returns, "
    "refunds, returned; "
    "cancelled_revenue = value of cancellations, value of the cancellations, value of cancelled orders, "
    "cancelled value, cancelled revenue, cancelled sales, lost to cancellations, lost to returns, "
    "lost through cancellations, lost through returns, lost to refunds, value of returns, returns value, "
    "lose to cancellations, lose to returns, refunded, refund value, value of refunds, money refunded; "
    "orders_per_customer = orders per customer, average orders per customer, average number of orders "
    "per customer, orders per buyer, order frequency, purchase frequency, how often customers order, "
    "how often do customers order, how often customers buy; "
    "cancellation_rate = cancellation rate, cancelation rate, return rate, returns rate, refund rate, "
    "rate of cancellations, rate of returns, cancel rate, how often orders are cancelled, "
    "how often orders get cancelled, how often customers return; "
    "repeat_rate = repeat rate, repeat customer rate, repeat purchase rate, repurchase rate, "
    "returning customer rate, rate of repeat customers, repeat buyer rate; "
    "units_per_order = units per order, items per order, pieces per order, quantity per order, "
    "average units per order, average items per order, average number of items per order, "
    "average number of units per order, average quantity per order, items in an order, items per basket, "
    "units per basket; "
    "one_time_customers = one-time customers, one time customers, one-off customers, one-time buyers, "
    "single-order customers, only ordered once, ordered only once, only bought once, bought only once, "
    "only purchased once, purchased only once, just one order, only one order, exactly one order, "
    "never came back, never ordered again, never bought again, did not come back, didn't come back; "
    "repeat_customers = repeat customers, returning customers, repeat buyers, returning buyers, "
    "repeat purchasers, bought more than once, ordered more than once, purchased more than once, "
    "more than one order, came back, come back, bought again, ordered again; "
    "new_customers = new customers, new buyers, new clients, first-time customers, first time customers, "
    "first-time buyers, first time buyers, acquired customers, customer acquisition, acquisitions, "
    "won, win, gained, acquired, acquire; "
    "last_purchase = last order, last purchase, last bought, last buy, last ordered, last sale, last sell, "
    "last sold, most recent order, most recent purchase, latest order, latest purchase, most recently, "
    "recently, last time; "
    "first_purchase = first order, first purchase, first bought, first buy, first ordered, first sale, "
    "first sell, first sold, first time, since when; "
    "products = how many products, how many different products, how many distinct products, "
    "number of products, how many items, range, catalogue; "
    "countries = how many countries, how many markets; "
    "overview = tell me about, tell me something about, what happened, happened, going on, whats up with, "
    "what's up with, lowdown, low-down, highlights, headline figures, key numbers, talk me through, "
    "walk me through, perform, tell me more about, more about, "
    "overview, summary, summarise, summarize, "
    "figures, performance, performing, doing, how did we do, how did it do, how did it go, describe, "
    "rundown, run-down, profile, know about, information about, information on, info on, details on, "
    "details about, picture, numbers, stats, statistics, kpis, metrics, "
    "key figures, snapshot, anything interesting about, interesting about, anything notable about"
)
DIMENSIONS = (
    "country = country, countries, market, markets, where; "
    "product = product, products, item, items, stock code, sku, article, seller, sellers; "
    "customer = customer, customers, cust, custs, buyer, buyers, client, clients, spender, spenders, who; "
    "segment = segment, segments, group; "
    "month = month, months, monthly, per month, each month, by month, trend, over time, month by month; "
    "day = day, days, daily, date, per day, each day, trading day, trading days, business day; "
    "year = year, years, yearly, annual, annually, per year; "
    "quarter = quarter, quarters, quarterly, per quarter, each quarter, by quarter, quarter by quarter; "
    "weekday = weekday, weekdays, day of the week, days of the week, day of week, days of week"
)
ORDERS = (
    "highest = top, best, most, highest, biggest, largest, greatest, strongest, leading, max, maximum, "
    "busiest, peak, best performing, top performing; "
    "lowest = bottom, worst, least, lowest, smallest, fewest, weakest, min, minimum, quietest, slowest, "
    "poorest, worst performing"
)
COMPARES = (
    "previous_period = previous, prior, preceding, before, compared, vs, versus, change, growth, "
    "growth rate, rate of growth, grown, grow, increased, decreased, declined, dropped, difference, differ, "
    "go up, went up, gone up, "
    "go down, went down, gone down, up or down, stack up, stacks up, stacked up, "
    "month over month, mom, quarter over quarter, qoq, week over week, day over day; "
    "year_before = year before, year earlier, a year ago, last year, same month last year, year over year, "
    "year on year, year-on-year, yoy"
)
RANK_BY = (
    "growth = growth, growth rate, grew, grown, grow, grows, growing, increase, increased, increases, "
    "rise, rose, risen, "
    "gain, gained, gains, improved, improvement, faster, fastest, fastest growing, up the most; "
    "decline = decline, declined, declines, declining, drop, dropped, drops, fell, fall, falls, shrank, "
    "shrink, shrunk, down the most, lost the most, worst decline"
)
EXCLUDING = (
    "apart from, excluding, except, except for, not, non, but, but not, other than, besides, aside from, "
    "without, outside, outside of, leaving, leaving out, leave out, not including, not counting, ignoring, "
    "minus, exclude, excludes, remove, take out, omit, omitting, ex, excl, ignore"
)
"""The words before a name that leave it out ("all segments but Regular", "without the UK")."""
SHARES = (
    "Also the share of the total (share, percentage, percent, proportion, fraction, portion, slice, part of, "
    "%, of the total, of our total, of total, how much of, responsible for, account for, accounts for, "
    "accounted for, contribution, percentage-wise, percentage wise, pie, contribute to, contributes to, "
    "contributed to, represent, represents, "
    "represented, make up, makes up, made up)"
)
NOT_IN_DATA = (
    "Not in the data: profit, margin, cost, stock levels, inventory, reasons for returns, staff, marketing, "
    "web traffic, conversion rates, website, site visits, delivery times, delivery, shipping, couriers, "
    "carriers, suppliers, competitors, weather, "
    "forecasts."
)


def _country_note(countries: list[str]) -> str:
    """The spellings people type for the data's countries ("UK = United Kingdom"), from the alias table."""
    keys = {country_key(c): c for c in countries}
    pairs = []
    for group in ALIAS_GROUPS:
        stored = next((keys[country_key(a)] for a in group if country_key(a) in keys), None)
        if stored is not None:
            spelled = [a for a in group if country_key(a) not in keys and "." not in a]
            pairs += [f"{alias.lower()} = {stored}" for alias in spelled]
    return f"; aliases: {', '.join(pairs)}" if pairs else ""


def register(kit: ToolKit) -> None:
    countries = kit.countries
    names: dict[str, Any] = {"type": "string"}
    if countries:
        names["enum"] = countries
    Countries = Annotated[
        list[str],
        Field(
            max_length=12,
            description=f"Only these countries{_country_note(countries)}",
            json_schema_extra={"items": names},
        ),
    ]
    Excluded = Annotated[
        list[str],
        Field(
            max_length=12,
            description=f"Leave out these countries ({EXCLUDING}, outside)",
            json_schema_extra={"items": names},
        ),
    ]

    @kit.tool(
        "Any sales question as one query: a measure for countries, segments, a product or a customer in a "
        "period, ranked, compared with an earlier period or as a share. Quote the result's 'answer' as it is."
    )
    def analyze_sales(
        measure: Annotated[
            str,
            Field(
                description=f"What to compute. {MEASURES}. {NOT_IN_DATA}",
                json_schema_extra={"enum": [m.value for m in Measure]},
            ),
        ] = "revenue",
        group_by: Annotated[
            str | None,
            Field(
                description=f"Rank or list by. {DIMENSIONS}",
                json_schema_extra={"enum": [d.value for d in Dimension]},
            ),
        ] = None,
        countries: Countries = [],  # noqa: B006  # pydantic copies defaults
        exclude_countries: Excluded = [],  # noqa: B006
        segments: Annotated[
            list[str],
            Field(
                max_length=4,
                description="Only these customer segments",
                json_schema_extra={"items": {"type": "string", "enum": kit.segments}},
            ),
        ] = [],  # noqa: B006
        exclude_segments: Annotated[
            list[str],
            Field(
                max_length=4,
                description=f"Leave out these segments ({EXCLUDING})",
                json_schema_extra={"items": {"type": "string", "enum": kit.segments}},
            ),
        ] = [],  # noqa: B006
        products: Annotated[
            list[Annotated[str, Field(max_length=80)]],
            Field(
                max_length=12,
                description="Only these products, each a stock code or words of the product's name",
            ),
        ] = [],  # noqa: B006
        exclude_products: Annotated[
            list[Annotated[str, Field(max_length=80)]],
            Field(
                max_length=12,
                description=(
                    "Leave out the products matching these stock codes or words (excluding, except, "
                    "without, not counting, not including, ignoring, ignore, apart from, other than, "
                    "leaving out, leave out, minus)"
                ),
            ),
        ] = [],  # noqa: B006
        customer_id: Annotated[
            int | None,
            Field(
                ge=1,
                description=(
                    "Only this customer id (a number is one before: spent, spend, bought, buy, placed, "
                    "place, ordered, order, purchased)"
                ),
            ),
        ] = None,
        exclude_customer_ids: Annotated[
            list[Annotated[int, Field(ge=1)]],
            Field(max_length=20, description=f"Leave out these customer ids ({EXCLUDING})"),
        ] = [],  # noqa: B006
        exclude_top: Annotated[
            int | None,
            Field(
                ge=1,
                le=MAX_ROWS,
                description="Leave out the N biggest by revenue of exclude_top_of; our biggest customer is 1",
            ),
        ] = None,
        exclude_top_of: Annotated[
            str,
            Field(
                description="What exclude_top leaves out",
                json_schema_extra={"enum": ["customer", "country", "product"]},
            ),
        ] = "customer",
        exclude_cancellations: Annotated[
            bool,
            Field(
                description=(
                    "Leave out cancelled orders and returns instead of netting them: sales before them "
                    "(gross, before returns, before cancellations; left out: cancellations, cancelled "
                    "orders, cancelled ones, cancelled, canceled, returns, returned, refunds)"
                )
            ),
        ] = False,
        period: Annotated[
            str | None,
            Field(
                max_length=40,
                description=(
                    "YYYY, YYYY-Qn, YYYY-MM, YYYY-MM-DD, FIRST..LAST, or relative to the data's last day: "
                    "--MM or --MM-DD (the latest such month or day), 'last N days|weeks|months|years', "
                    "'latest month|quarter|year'"
                ),
            ),
        ] = None,
        exclude_period: Annotated[
            str | None,
            Field(
                max_length=40,
                description=f"Leave out this part of the period, in the period's forms ({EXCLUDING})",
            ),
        ] = None,
        compare: Annotated[
            str | None,
            Field(
                description=f"Compare with. {COMPARES}",
                json_schema_extra={"enum": ["previous_period", "year_before"]},
            ),
        ] = None,
        compare_with: Annotated[
            str | None,
            Field(max_length=40, description="Any other period to compare with, in the forms of period"),
        ] = None,
        order: Annotated[
            str,
            Field(
                description=f"Ranking direction. {ORDERS}", json_schema_extra={"enum": ["highest", "lowest"]}
            ),
        ] = "highest",
        rank_by: Annotated[
            str | None,
            Field(
                description=f"Rank by the change against the period compared with, not the value. {RANK_BY}",
                json_schema_extra={"enum": ["growth", "decline"]},
            ),
        ] = None,
        limit: Annotated[
            int | None, Field(ge=1, le=MAX_ROWS, description=f"Rows of a ranking, 1-{MAX_ROWS}")
        ] = None,
        rank: Annotated[
            int | None,
            Field(ge=1, le=MAX_ROWS, description="Only the row at this place of the ranking (second = 2)"),
        ] = None,
        among_top: Annotated[
            int | None,
            Field(
                ge=2,
                le=MAX_ROWS,
                description="Rank only among the top N by among_by (of our ten biggest countries by revenue)",
            ),
        ] = None,
        among_by: Annotated[
            str | None,
            Field(
                description="The measure of among_top", json_schema_extra={"enum": [m.value for m in Measure]}
            ),
        ] = None,
        together: Annotated[
            bool,
            Field(description="Add the ranked rows up into one figure (together, combined, between them)"),
        ] = False,
        versus_rest: Annotated[
            bool,
            Field(
                description=(
                    "The countries named beside all the other countries together (the rest of the "
                    "world, the rest, rest of world, everywhere else, all other countries)"
                )
            ),
        ] = False,
        share: Annotated[
            bool,
            Field(description=SHARES),
        ] = False,
        share_of: Annotated[
            str | None,
            Field(
                max_length=40,
                description="The larger period the share is of (as period: 2011 for October's share of 2011)",
            ),
        ] = None,
        share_within: Annotated[
            str | None,
            Field(
                description=(
                    "The filter the share is of, the others making the part (share of the Regular "
                    "segment's revenue from the UK: segments)"
                ),
                json_schema_extra={"enum": ["countries", "segments", "products", "customer_id"]},
            ),
        ] = None,
    ) -> str:
        arguments = {
            "measure": measure,
            "group_by": group_by,
            "countries": countries,
            "exclude_countries": exclude_countries,
            "segments": segments,
            "exclude_segments": exclude_segments,
            "products": products,
            "exclude_products": exclude_products,
            "customer_id": customer_id,
            "exclude_customer_ids": exclude_customer_ids,
            "exclude_top": exclude_top,
            "exclude_top_of": exclude_top_of,
            "exclude_cancellations": exclude_cancellations,
            "period": period,
            "exclude_period": exclude_period,
            "compare": compare,
            "compare_with": compare_with,
            "order": order,
            "rank_by": rank_by,
            "limit": limit,
            "rank": rank,
            "among_top": among_top,
            "among_by": among_by,
            "together": together,
            "versus_rest": versus_rest,
            "share": share,
            "share_of": share_of,
            "share_within": share_within,
        }
        try:
            query = Query(**arguments)
        except ValidationError as exc:
            given = {k: v for k, v in arguments.items() if v not in (None, [], False)}
            return to_json(cannot_answer(given, compact_validation_error(exc)))
        with kit.connect() as conn:
            return to_json(answer_query(conn, query))

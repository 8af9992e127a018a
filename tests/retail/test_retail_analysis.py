"""Typed queries on the hand-built dataset: every figure checked by hand, every answer's wording."""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from agent_orchestrator.retail.analysis import Query, answer_query, dataset_currency, set_currency
from agent_orchestrator.retail.analysis.query import PeriodError, parse_period, pinned_period


@pytest.fixture
def conn(known_db: Path) -> Iterator[sqlite3.Connection]:
    connection = sqlite3.connect(known_db)
    yield connection
    connection.close()


def ask(conn: sqlite3.Connection, **fields: object) -> dict:
    return answer_query(conn, Query(**fields))  # type: ignore[arg-type]


def test_a_total_states_its_reading_and_its_figure(conn):
    result = ask(conn, measure="revenue", countries=["france"], period="2025")
    assert result["answer"] == "Revenue, France, 2025: 170.00."
    assert [c["label"] for c in result["chips"]] == ["Revenue", "France", "2025"]


def test_a_relative_period_says_where_on_the_datas_calendar_it_fell(conn):
    """ "Last month" is the data's latest month, not the calendar's: the answer says which it was."""
    assert ask(conn, period="latest month")["answer"] == (
        "Revenue, December 2025 (the latest month in the data): 9,640.00."
    )
    assert ask(conn, period="previous month")["answer"].startswith(
        "Revenue, November 2025 (the month before the latest in the data): "
    )
    assert ask(conn, period="--11")["answer"].startswith(
        "Revenue, November 2025 (the latest November in the data): "
    )
    last_three = ask(conn, period="last 3 months")
    assert last_three["answer"].startswith("Revenue, the last 3 months (1 Oct 2025 to ")
    assert [c["label"] for c in last_three["chips"]] == [
        "Revenue",
        "the last 3 months",
    ]  # the chip stays short
    assert (
        ask(conn, period="2025-12")["answer"] == "Revenue, December 2025: 9,640.00."
    )  # named: nothing to add


def test_exclusions_single_days_and_counts_with_their_nouns(conn):
    assert ask(conn, measure="orders", exclude_countries=["UK"])["answer"] == (
        "Orders, excluding United Kingdom, all time: 12 orders."
    )
    assert ask(conn, period="2025-12-01")["answer"] == "Revenue, 1 December 2025: 4,040.00."
    # customer 8's only line is a cancellation: a customer of Spain, but no buyer in 2025
    assert ask(conn, measure="customers", countries=["Spain"])["answer"].endswith(": 2 customers.")
    assert ask(conn, measure="customers", countries=["Spain"], period="2025")["answer"].endswith(
        ": 1 customer."
    )


def test_rankings_go_both_ways_and_say_how_many_there_were(conn):
    top = ask(conn, group_by="country", limit=1)  # Italy and the UK tie at 8,000: by name
    assert top["answer"] == "Revenue, highest country, all time: Italy: 8,000.00 (of 5 countries)."
    bottom = ask(conn, group_by="country", order="lowest", limit=1)
    assert bottom["answer"] == "Revenue, lowest country, all time: Spain: 70.00 (of 5 countries)."


def test_a_share_and_a_comparison_are_computed_not_estimated(conn):
    share = ask(conn, countries=["Italy"], share=True)
    assert share["answer"] == "Revenue, Italy, all time: 8,000.00, 48.5% of the total 16,490.00."
    compared = ask(conn, period="2025-12", compare="previous_period")
    assert compared["answer"] == (
        "Revenue, December 2025, vs November 2025: 9,640.00; November 2025: 150.00; up 9,490.00 (6326.7%)."
    )


def test_a_comparison_outside_the_data_keeps_the_figure_and_says_why(conn):
    result = ask(conn, period="2024-01", compare="previous_period")  # the data starts in January 2024
    first, note = result["answer"].splitlines()
    assert first.startswith("Revenue, January 2024: ")
    assert note.startswith("There are no sales in December 2023 to compare with: the data covers")


def test_a_share_of_what_an_exclusion_leaves_is_of_everything(conn):
    outside = ask(conn, exclude_countries=["UK"], share=True)["answer"]
    assert outside.endswith("of the total 16,490.00.")


def test_a_series_lists_every_month_in_order(conn):
    result = ask(conn, group_by="month", period="2025-Q4", measure="orders")
    assert result["answer"].splitlines()[1:4] == [
        "- October 2025: 3 orders",
        "- November 2025: 2 orders",
        "- December 2025: 6 orders",
    ]


def test_a_series_shows_the_months_without_sales_too(conn):
    result = ask(conn, group_by="month", period="2024", measure="orders")  # one order, in January
    lines = result["answer"].splitlines()
    assert lines[1:3] == ["- January 2024: 1 order", "- February 2024: 0 orders"]
    assert len([line for line in lines if line.startswith("- ")]) == 12


def test_what_the_data_does_not_hold_is_said_not_computed_as_zero(conn):
    assert ask(conn, countries=["Mexico"]) == {
        "answer": "I can't answer that from this data: there is no country named 'Mexico' in the data.",
        "answered": False,
        "query": {"countries": ["Mexico"]},
        "unmatched": "countries",  # a follow-up does not carry the name on
    }
    assert "no sales in 2030" in ask(conn, period="2030")["answer"]
    assert ask(conn, products=["teapot"])["unmatched"] == "products"
    assert "nothing in the data matches 'teapot'" in ask(conn, products=["teapot"])["answer"]
    assert ask(conn, exclude_products=["teapot"])["unmatched"] == "exclude_products"
    assert "no customer with id 424242" in ask(conn, customer_id=424242)["answer"]


def test_no_currency_symbol_unless_the_dataset_declares_one(known_db: Path, tmp_path: Path):
    copy = tmp_path / "copy.sqlite"
    copy.write_bytes(known_db.read_bytes())
    with sqlite3.connect(copy) as conn:
        assert dataset_currency(conn) is None
        set_currency(conn, "gbp")
        assert ask(conn, countries=["France"], period="2025")["answer"] == "Revenue, France, 2025: £170.00."
        set_currency(conn, "CHF")
        assert ask(conn, countries=["France"], period="2025")["answer"].endswith(": 170.00 CHF.")
        with pytest.raises(ValueError, match="three-letter"):
            set_currency(conn, "pounds")


@pytest.mark.parametrize(
    ("text", "first", "last"),
    [
        ("2024", date(2024, 1, 1), date(2024, 12, 31)),
        ("2024-Q2", date(2024, 4, 1), date(2024, 6, 30)),
        ("2024-02", date(2024, 2, 1), date(2024, 2, 29)),
        ("2024-02-10..2024-03-05", date(2024, 2, 10), date(2024, 3, 5)),
        ("last 3 months", date(2025, 10, 1), date(2025, 12, 31)),
        ("latest quarter", date(2025, 10, 1), date(2025, 12, 31)),
        ("previous month", date(2025, 11, 1), date(2025, 11, 30)),
        ("--11", date(2025, 11, 1), date(2025, 11, 30)),  # a month without its year: the latest one
        ("--12-25", date(2025, 12, 25), date(2025, 12, 25)),
    ],
)
def test_periods_absolute_and_relative_to_the_data(text, first, last):
    period = parse_period(text, date(2025, 12, 31))
    assert (period.first, period.last) == (first, last)


def test_a_day_without_its_year_not_yet_reached_this_year_is_last_years():
    period = parse_period("--06-15", date(2025, 3, 1))
    assert (period.first, period.last) == (date(2024, 6, 15), date(2024, 6, 15))


def test_a_period_that_is_not_one_is_refused_with_the_forms_understood():
    with pytest.raises(PeriodError, match="YYYY-MM"):
        parse_period("soon", date(2025, 12, 31))
    with pytest.raises(PeriodError, match="not a date"):
        parse_period("2025-02-30", date(2025, 12, 31))


def test_new_customers_are_counted_where_and_when_they_first_bought(conn):
    first_time = ask(conn, measure="new_customers", period="2025")["answer"]
    assert first_time == "First-time customers, 2025: 7 first-time customers."  # not the New segment
    assert ask(conn, measure="new_customers", period="2024")["total"]["new_customers"] == 1
    germany = ask(conn, measure="new_customers", countries=["Germany"], period="2025")
    assert germany["total"]["new_customers"] == 2
    by_month = ask(conn, measure="new_customers", group_by="month", period="2025-Q4")
    assert [(r["label"], r["new_customers"]) for r in by_month["rows"]] == [
        ("October 2025", 1),
        ("November 2025", 2),
        ("December 2025", 2),
    ]
    assert "new_customers" not in ask(conn, measure="revenue")["total"]  # counted only when asked


def test_orders_per_customer_is_a_ratio_with_its_unit(conn):
    result = ask(conn, measure="orders_per_customer", period="2025")
    assert result["answer"] == "Orders per customer, 2025: 1.88 orders per customer."
    # one unit a line: 15 units in 15 orders, less the 2 returned units of the cancellations
    result = ask(conn, measure="units_per_order", period="2025")
    assert result["answer"] == "Units per order, 2025: 0.87 units per order."


def test_a_rate_is_a_fraction_of_its_own_base_stated_beside_it(conn):
    # 2025: 15 orders and 2 cancellations (Germany's and Spain's); 6 of the 8 buyers ordered twice
    assert ask(conn, measure="cancellation_rate", period="2025")["answer"] == (
        "Cancellation rate, 2025: 13.3% (2 cancelled orders of 15 orders)."
    )
    assert ask(conn, measure="repeat_rate", period="2025", compare="previous_period")["answer"] == (
        "Repeat customer rate, 2025, vs 2024: 75.0% (6 repeat customers of 8 customers); 2024: 0.0%; "
        "up 75.0 points.\nThe data holds 2024 only from 10 January 2024 to 31 December 2024."
    )
    # each country's own rate (Spain 1 of 3, Germany 1 of 4), not its share of all cancellations
    ranked = ask(conn, measure="cancellation_rate", group_by="country", limit=2)
    assert [(r["label"], r["cancellation_rate"]) for r in ranked["rows"]] == [
        ("Spain", 0.3333),
        ("Germany", 0.25),
    ]
    assert "Spain is ahead of Germany" not in ranked["answer"]  # two rows ranked, not two names
    side = ask(conn, measure="cancellation_rate", group_by="country", countries=["Spain", "Germany"])
    assert side["answer"].endswith("Spain is ahead of Germany by 8.3 points.")


def test_one_time_customers_ordered_exactly_once_in_scope(conn):
    # 2025: customers 1 and 2 ordered once; all time only customer 2 (customer 1 also ordered in
    # 2024, and customer 8's only line is a cancellation: no order at all)
    assert ask(conn, measure="one_time_customers", period="2025", share=True)["answer"] == (
        "One-time customers, 2025: 2 one-time customers, 25.0% of the total 8 customers."
    )
    assert ask(conn, measure="one_time_customers")["total"]["one_time_customers"] == 1
    by_country = ask(conn, measure="one_time_customers", group_by="country", period="2025", limit=5)
    assert {r["label"]: r["one_time_customers"] for r in by_country["rows"]}["United Kingdom"] == 1


def test_a_rate_asked_as_a_share_is_the_rate_itself(conn):
    asked = ask(conn, measure="cancellation_rate", period="2025", share=True)
    assert asked["query"] == {"measure": "cancellation_rate", "period": "2025"}


def test_a_product_left_out_is_named_and_its_lines_are_not_counted(conn):
    everything, without = ask(conn, period="2025"), ask(conn, period="2025", exclude_product="D")
    assert without["total"]["revenue"] == everything["total"]["revenue"] - 8000
    assert without["answer"].startswith("Revenue, excluding ITEM D (D), 2025: ")
    assert {"field": "exclude_products", "value": "D", "label": "excluding ITEM D (D)"} in without["chips"]


def test_several_products_are_taken_together_each_one_a_chip_or_a_row(conn):
    one, other = ask(conn, period="2025", products=["A"]), ask(conn, period="2025", products=["D"])
    both = ask(conn, period="2025", products=["A", "D"])
    assert both["total"]["revenue"] == round(one["total"]["revenue"] + other["total"]["revenue"], 2)
    assert [c["label"] for c in both["chips"] if c["field"] == "products"] == ["ITEM A (A)", "ITEM D (D)"]
    side = ask(conn, period="2025", products=["A", "D"], group_by="product")
    assert {row["key"] for row in side["rows"]} == {"A", "D"}
    neither = ask(conn, period="2025", exclude_products=["A", "D"])
    assert neither["total"]["revenue"] == round(
        ask(conn, period="2025")["total"]["revenue"] - both["total"]["revenue"], 2
    )
    assert neither["answer"].startswith("Revenue, excluding ITEM A (A) and ITEM D (D), 2025: ")


def test_a_period_left_out_of_another_is_stated_and_its_days_not_counted(conn):
    december = ask(conn, period="2025-12")["total"]["revenue"]
    year = ask(conn, period="2025")["total"]["revenue"]
    without = ask(conn, period="2025", exclude_period="2025-12")
    assert without["total"]["revenue"] == round(year - december, 2)
    assert without["answer"].startswith("Revenue, 2025, excluding December 2025: ")
    assert {"field": "exclude_period", "value": "2025-12", "label": "excluding December 2025"} in without[
        "chips"
    ]
    assert ask(conn, exclude_period="2025-13")["answered"] is False  # one clear reason, nothing computed
    months = ask(conn, period="2025", exclude_period="2025-12", group_by="month")
    assert [row["key"] for row in months["rows"]][-1] == "2025-11"  # no December to list


def test_the_biggest_left_out_are_the_top_by_revenue_in_the_same_scope_and_named(conn):
    top = ask(conn, period="2025", group_by="customer", limit=1)["rows"][0]["key"]
    without = ask(conn, period="2025", exclude_top=1)
    by_hand = ask(conn, period="2025", exclude_customer_ids=[int(top)])
    assert without["total"] == by_hand["total"]
    assert {
        "field": "exclude_top",
        "value": "1",
        "label": f"excluding the top customer by revenue (customer {top})",
    } in (without["chips"])
    assert not any(c["field"] == "exclude_customer_ids" for c in without["chips"])  # said once
    countries = ask(conn, exclude_top=2, exclude_top_of="country")
    assert "excluding the top 2 countries by revenue (Italy and United Kingdom)" in countries["answer"]


def test_revenue_lost_to_cancellations_is_money_and_its_share_is_of_gross_sales(conn):
    lost = ask(conn, measure="cancelled_revenue", period="2025")
    assert lost["answer"] == "Revenue lost to cancellations and returns, 2025: 60.00."
    share = ask(conn, measure="cancelled_revenue", period="2025", share=True, exclude_cancellations=True)
    assert share["answer"].endswith(": 60.00, 0.43% of the gross sales 14,050.00.")  # 13,990.00 net + 60.00
    spain = ask(conn, measure="cancelled_revenue", countries=["Spain"], share=True)
    assert spain["answer"].endswith(": 10.00, 16.7% of the total 60.00.")  # of all that was lost
    assert ask(conn, measure="cancelled_revenue", exclude_cancellations=True)["answered"] is False


def test_an_overview_by_a_dimension_gives_each_row_its_figures_not_the_total(conn):
    top = ask(conn, measure="overview", group_by="country", limit=1)
    assert top["answer"].startswith("Sales, highest country, all time: Italy: revenue 8,000.00; 2 orders;")


def test_a_segment_left_out_leaves_the_other_segments_customers(conn):
    """Customer 8's only line is a cancellation (-10.00): in no segment, so in none of the others."""
    others = ask(conn, exclude_segments=["At Risk"])
    assert others["answer"] == "Revenue, excluding the At Risk segment, all time: 11,420.00."
    assert (
        others["total"]["revenue"] == ask(conn, segments=["New", "Regular", "High Value"])["total"]["revenue"]
    )


def test_a_reading_stored_when_a_query_named_one_product_still_reads():
    stored = {"product": "A", "exclude_product": "D", "share": True, "share_within": "product"}
    query = Query.model_validate(stored)
    assert (query.products, query.exclude_products, query.share_within) == (["A"], ["D"], "products")


def test_two_names_side_by_side_say_how_far_apart_they_are(conn):
    result = ask(conn, group_by="country", countries=["France", "Spain"])
    assert result["answer"] == (
        "Revenue, by country, France, Spain, all time:\n1. France: 170.00\n2. Spain: 70.00\n\n"
        "France is ahead of Spain by 100.00 (142.9% more)."
    )


def test_an_open_ended_period_has_nothing_earlier_to_compare_with(conn):
    result = ask(conn, period="..2025-06-30", compare="previous_period")
    assert result["answered"] is True
    assert result["answer"].endswith("starts with the data: there is no earlier period to compare with.")


def test_repeat_customers_have_more_than_one_order_and_their_share_is_of_the_customers(conn):
    assert ask(conn, measure="repeat_customers")["total"]["repeat_customers"] == 7
    result = ask(conn, measure="repeat_customers", period="2025", share=True)
    assert result["answer"] == ("Repeat customers, 2025: 6 repeat customers, 75.0% of the total 8 customers.")
    by_country = ask(conn, measure="repeat_customers", group_by="country", period="2025")
    assert {r["label"]: r["repeat_customers"] for r in by_country["rows"]}["Germany"] == 2


def test_a_ranking_by_growth_or_decline_orders_by_the_change(conn):
    grown = ask(conn, group_by="country", period="2025-12", compare="previous_period", rank_by="growth")
    changes = [r["revenue"] - r["previous"]["revenue"] for r in grown["rows"]]
    assert changes == sorted(changes, reverse=True)
    assert grown["answer"].startswith("Revenue, top ")
    assert " by growth, December 2025, vs November 2025:" in grown["answer"]
    declined = ask(conn, group_by="country", period="2025-12", compare="previous_period", rank_by="decline")
    assert [r["revenue"] - r["previous"]["revenue"] for r in declined["rows"]] == sorted(changes)[
        : len(declined["rows"])
    ]
    alone = ask(conn, group_by="country", rank_by="growth")
    assert alone["answered"] is False and "needs a period to compare" in alone["answer"]


def test_a_series_ranked_by_change_compares_each_step_with_the_one_before_it(conn):
    """ "Which month fell most?": every month against the month before it, over the period asked."""
    months = {r["key"]: r["revenue"] for r in ask(conn, group_by="month")["rows"]}
    steps = {k: months[k] - months[p] for p, k in itertools.pairwise(sorted(months))}
    fell = ask(conn, group_by="month", rank_by="decline", limit=1)
    worst = min(steps, key=steps.get)
    assert fell["rows"][0]["key"] == worst
    assert fell["answer"].startswith(
        "Revenue, month with the largest decline on the month before, all time: "
    )
    assert f"(of {len(steps)} month" in fell["answer"]
    grew = ask(conn, group_by="month", rank_by="growth", compare="previous_period")
    assert [r["key"] for r in grew["rows"]] == sorted(steps, key=lambda k: (-steps[k], k))[
        : len(grew["rows"])
    ]


def test_a_share_is_of_what_the_part_belongs_to(conn):
    """Two names side by side: each of everything; a period alone: of all time; cancelled orders:
    of the orders; first-time customers: of the customers."""
    total = ask(conn, measure="revenue")["total"]["revenue"]
    pair = ask(conn, countries=["France", "Germany"], group_by="country", share=True)
    for row in pair["rows"]:
        assert f"({row['revenue'] / total:.1%})" in pair["answer"]
    period = ask(conn, measure="customers", period="2025-12", share=True)
    everyone = ask(conn, measure="customers")["total"]["customers"]
    assert period["answer"].endswith(f"of the all-time total {everyone:,.0f} customers.")
    cancelled = ask(conn, measure="cancellations", period="2025", share=True)
    orders = ask(conn, measure="orders", period="2025")["total"]["orders"]
    assert cancelled["answer"].endswith(f"of the total {orders:,.0f} orders.")


def test_a_short_word_matches_a_product_only_as_a_whole_word(conn):
    """ "EU" is no product because a description holds "BLEU": short words match whole words only."""
    result = ask(conn, product="te")  # inside "ITEM A"
    assert result["answered"] is False and "nothing in the data matches 'te'" in result["answer"]
    assert ask(conn, product="item")["answered"] is True
    assert ask(conn, product="a")["answer"].startswith("Revenue, ITEM A (A), all time: ")


def test_a_ranking_among_the_top_n_by_another_measure(conn):
    """ "Of our two biggest countries by revenue, which placed the fewest orders?" """
    by_revenue = [r["key"] for r in ask(conn, group_by="country", limit=2)["rows"]]
    result = ask(conn, group_by="country", among_top=2, among_by="revenue", measure="orders", order="lowest")
    assert {r["key"] for r in result["rows"]} == set(by_revenue)
    orders = [r["orders"] for r in result["rows"]]
    assert orders == sorted(orders)
    assert result["answer"].startswith("Orders, bottom 2 countries of the top 2 by revenue, all time:")


def test_the_top_rows_together_add_up_with_their_share(conn):
    rows = ask(conn, group_by="country", limit=2)["rows"]
    part = sum(r["revenue"] for r in rows)
    total = ask(conn, measure="revenue")["total"]["revenue"]
    result = ask(conn, group_by="country", limit=2, together=True, share=True)
    share = f"{part / total:.1%} of the total {total:,.2f}"
    assert result["answer"] == f"Revenue, top 2 countries together, all time: {part:,.2f}, {share}."
    assert (
        ask(conn, group_by="country", limit=2, together=True, measure="avg_order_value")["answer"].count("\n")
        > 1
    )


def test_a_share_of_a_product_outside_a_country_is_of_the_product(conn):
    """ "What % of ITEM B's units went outside the UK?": of ITEM B's units everywhere."""
    everywhere = ask(conn, measure="units", product="B")["total"]["units"]
    result = ask(conn, measure="units", product="B", exclude_countries=["United Kingdom"], share=True)
    assert result["answer"].endswith(f"of the ITEM B (B) total {everywhere:,.0f} units.")
    within = ask(conn, measure="revenue", countries=["Germany"], period="2025", share=True)
    total_2025 = ask(conn, measure="revenue", period="2025")["total"]["revenue"]
    assert within["answer"].endswith(f"of the total {total_2025:,.2f}.")


def test_a_period_can_be_compared_with_any_other(conn):
    result = ask(conn, measure="orders", period="2025-12", compare_with="2025-06")
    assert result["answer"].startswith("Orders, December 2025, vs June 2025: ")
    assert {"field": "compare_with", "value": "2025-06", "label": "vs June 2025"} in result["chips"]


def test_a_change_goes_from_the_earlier_period_to_the_later_whichever_was_named_first(conn):
    """ "Compare June and December": the change is from June to December, as it was in time."""
    later = ask(conn, measure="orders", period="2025-06", compare_with="2025-12")
    earlier = ask(conn, measure="orders", period="2025-12", compare_with="2025-06")
    june, december = later["total"]["orders"], earlier["total"]["orders"]
    change = earlier["answer"].rsplit("; ", 1)[1].removesuffix(".")
    assert later["answer"].endswith(f"; {change} from June 2025 to December 2025.")
    assert ("up" in change) == (december > june)

    def ranked(**fields: object) -> list[str]:
        rows = ask(conn, group_by="country", limit=3, rank_by="growth", **fields)["rows"]
        return [row["label"] for row in rows]

    assert ranked(period="2025-06", compare_with="2025-12") == ranked(
        period="2025-12", compare_with="2025-06"
    )


def test_the_lowest_sold_something_and_is_not_a_month_the_data_holds_in_part(conn):
    """A country whose only line is a return placed no order; the data's last month may be partial."""
    lowest = ask(conn, group_by="country", order="lowest", limit=5)
    assert all(r["orders"] > 0 for r in lowest["rows"])
    months = ask(conn, group_by="month", order="lowest", limit=1)
    last = ask(conn, measure="last_purchase")["answer"]
    assert "Left out of the lowest" in months["answer"] or "31 December" in last


def test_a_customer_or_the_cancellations_left_out_are_stated_and_not_counted(conn):
    assert (
        ask(conn, exclude_customer_ids=[9])["answer"] == "Revenue, excluding customer 9, all time: 8,490.00."
    )
    # everyone but customer 9 is a share of everyone
    assert ask(conn, exclude_customer_ids=[9], share=True)["answer"].endswith("51.5% of the total 16,490.00.")
    # gross: the two cancelled lines (-50 and -10) are left out, not netted
    gross = ask(conn, exclude_cancellations=True)
    assert gross["answer"] == "Revenue, excluding cancellations and returns, all time: 16,550.00."
    assert "excluding cancellations and returns" in [c["label"] for c in gross["chips"]]
    assert ask(conn, measure="customers", countries=["Spain"], exclude_cancellations=True)["answer"].endswith(
        ": 1 customer."
    )
    refused = ask(conn, measure="cancellations", exclude_cancellations=True)
    assert refused["answered"] is False and "no cancelled orders to count" in refused["answer"]
    unknown = ask(conn, exclude_customer_ids=[999])
    assert unknown["answered"] is False and "no customer with id 999" in unknown["answer"]


def test_the_countries_named_beside_all_the_others(conn):
    result = ask(conn, countries=["Italy"], versus_rest=True)
    assert [(r["label"], r["revenue"]) for r in result["rows"]] == [
        ("Italy", 8000.0),
        ("all other countries", 8490.0),
    ]
    assert result["answer"].startswith("Revenue, by country, Italy, vs all other countries, all time:")
    assert result["answer"].endswith("All other countries are ahead of Italy by 490.00 (6.1% more).")
    assert ask(conn, versus_rest=True)["answered"] is False  # the rest of nothing named


def test_a_comparison_of_periods_the_data_holds_in_part_says_so(conn):
    # the data runs from 10 January 2024 to 31 December 2025: 2024 lacks its first nine days
    result = ask(conn, period="2025", compare="previous_period")
    assert result["answer"].endswith("The data holds 2024 only from 10 January 2024 to 31 December 2024.")
    whole = ask(conn, period="2025-12", compare="previous_period")["answer"]
    assert "The data holds" not in whole


def test_a_product_word_matches_from_the_start_of_a_word(conn):
    # "TEM" is inside "ITEM" but starts no word of it; "item" starts one
    assert ask(conn, product="tem")["answered"] is False
    assert "4 products" in ask(conn, product="item")["answer"]


def test_a_segments_share_of_customers_is_of_the_customers_the_segments_classify(conn):
    # nine customers have a line; customer 8's only line is a cancellation, so no segment holds it
    assert ask(conn, measure="customers")["answer"].endswith(": 9 customers.")
    assert ask(conn, measure="customers", segments=["New"], share=True)["answer"].endswith(
        "1 customer, 12.5% of the total 8 customers."
    )


def test_quarters_are_a_series_of_their_own_and_rank_like_months(conn):
    series = ask(conn, group_by="quarter", period="2025")
    assert series["answer"].splitlines()[1:5] == [
        "- Q1 2025: 0.00",
        "- Q2 2025: 2,560.00",
        "- Q3 2025: 60.00",
        "- Q4 2025: 11,370.00",
    ]
    lowest = ask(conn, group_by="quarter", period="2025", order="lowest", limit=1)
    assert (
        lowest["answer"] == "Revenue, lowest quarter, 2025: Q3 2025: 60.00 (of 3 quarters)."
    )  # Q1 sold nothing
    grew = ask(conn, group_by="quarter", period="2025", rank_by="growth", compare="previous_period", limit=1)
    assert "Q4 2025: 11,370.00; Q3 2025: 60.00, up 11,310.00" in grew["answer"]


def test_days_of_the_week_run_monday_to_sunday_and_a_day_without_sales_shows(conn):
    """Every weekday is listed, in its own order, one without sales too; the lowest sold something."""
    from datetime import datetime

    from retail_fixtures import KNOWN_ROWS

    orders = [0] * 7
    for line in KNOWN_ROWS.splitlines():
        invoice, *_, when, _price, _customer, _country = line.split(",")
        if not invoice.startswith("C"):
            orders[datetime.fromisoformat(when).weekday()] += 1
    days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    series = ask(conn, group_by="weekday", measure="orders")
    listed = [line for line in series["answer"].splitlines() if line.startswith("- ")]
    assert [line.split(":")[0] for line in listed] == [f"- {d}" for d in days]
    assert [int(line.split(": ")[1].split()[0]) for line in listed] == orders
    fewest = min((n, i) for i, n in enumerate(orders) if n)[1]  # a tie goes to the earlier day
    lowest = ask(conn, group_by="weekday", measure="orders", order="lowest", limit=1)
    assert lowest["answer"].startswith(f"Orders, lowest day of the week, all time: {days[fewest]}: ")


def test_a_share_of_a_named_whole_keeps_that_filter_and_says_so(conn):
    """ "What share of the Regular segment's revenue comes from the UK?": of the segment, not of the
    UK (which a share of two filters is by default: "the UK's revenue from Regular customers")."""
    regular = ask(conn, segments=["Regular"])["total"]["revenue"]
    part = ask(conn, segments=["Regular"], countries=["United Kingdom"])["total"]["revenue"]
    within = ask(
        conn, segments=["Regular"], countries=["United Kingdom"], share=True, share_within="segments"
    )
    assert within["answer"].endswith(f"{part / regular:.1%} of the Regular segment total {regular:,.2f}.")
    uk = ask(conn, countries=["United Kingdom"])["total"]["revenue"]
    default = ask(conn, segments=["Regular"], countries=["United Kingdom"], share=True)
    assert default["answer"].endswith(f"{part / uk:.1%} of the United Kingdom total {uk:,.2f}.")


def test_a_share_compared_between_periods_gives_each_its_own_whole(conn):
    """ "Germany's share in December vs November": each period's share of that period's total
    (Germany made all of November's 150.00; December's 100.00 is after a 50.00 return)."""
    result = ask(conn, countries=["Germany"], period="2025-12", compare_with="2025-11", share=True)
    assert result["answer"] == (
        "Revenue, Germany, December 2025, vs November 2025: 100.00, 1.0% of the total 9,640.00; "
        "November 2025: 150.00, 100.0% of the total 150.00; the share down 99.0 points."
    )


def test_a_period_counted_from_the_datas_last_day_is_pinned_to_the_days_it_meant():
    """A chip changed on an old answer keeps the days the answer was about (``web/readings.py``)."""
    assert pinned_period("latest month", date(2025, 12, 1), date(2025, 12, 31)) == "2025-12"
    assert pinned_period("this year", date(2025, 1, 1), date(2025, 12, 31)) == "2025"
    assert pinned_period("previous quarter", date(2025, 7, 1), date(2025, 9, 30)) == "2025-Q3"
    assert pinned_period("latest day", date(2025, 12, 9), date(2025, 12, 9)) == "2025-12-09"
    assert pinned_period("last 3 months", date(2025, 10, 1), date(2025, 12, 9)) == "2025-10-01..2025-12-09"
    assert pinned_period("--03", date(2025, 3, 1), date(2025, 3, 31)) == "2025-03"
    for fixed in ("2024", "2024-Q2", "2024-05", "2024-05-06", "..2024-05-06", "2024-01-01..2024-02-01"):
        assert pinned_period(fixed, date(2025, 1, 1), date(2025, 12, 31)) == fixed

"""Questions read into semantic queries over a file's own columns, by family: a new dimension, a
value kept or left out, an entity ranked, a count, periods compared, a follow-up patched, and a word
nobody knows left unread. The data is the small store export of the semantic tests; every truth is
worked out by hand from its seven lines."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest

from agent_orchestrator.planner.row_reference import referred_row
from agent_orchestrator.planner.semantic_reading import SemanticReading, extra_columns, read_semantic
from agent_orchestrator.retail.datasets import inspect_csv
from agent_orchestrator.semantic import Engine, SemanticQuery, Vocabulary, profile_csv, suggest_model
from agent_orchestrator.semantic.render import render

STORE = Path(__file__).parents[1] / "semantic" / "data" / "store.csv"
KNOWN = {"order": "Order ID", "customer": "Customer ID", "time": "Order Date", "line_total": "Sales"}


@pytest.fixture(scope="module")
def engine() -> Engine:
    model = suggest_model(profile_csv(STORE), "Store", known=KNOWN)
    return Engine(model, STORE)


@pytest.fixture(scope="module")
def vocabulary(engine: Engine) -> Vocabulary:
    return Vocabulary(engine.model, engine.words())


def _read(engine: Engine, vocabulary: Vocabulary, question: str, previous: Any = None) -> SemanticReading:
    _, last = engine.span()
    return read_semantic(question, engine.model, vocabulary, last, previous)


def _rows(engine: Engine, reading: SemanticReading) -> list[tuple[Any, ...]]:
    assert reading.covered, reading
    return engine.run(SemanticQuery.model_validate(reading.arguments)).rows


_RETAIL_HEADER = "InvoiceNo,StockCode,Description,Quantity,InvoiceDate,UnitPrice,CustomerID,Country\n"
"""The Online Retail layout's header, for the small shops below."""


def _shop(path: Path, rows: str, known: dict[str, str] | None = None) -> tuple[Engine, Vocabulary, Any]:
    """A small export (with order numbers and line totals unless ``known`` says otherwise): its engine,
    vocabulary and last day."""
    path.write_text(rows)
    model = suggest_model(
        profile_csv(path), "Shop", known=known or {"order": "Order ID", "line_total": "Sales"}
    )
    shop = Engine(model, path)
    return shop, Vocabulary(model, shop.words()), shop.span()[1]


@pytest.mark.parametrize(
    "question",
    ["profit by region", "What is our total profit for each region?", "which region made the most profit?"],
)
def test_a_dimension_of_the_file_is_grouped_by(engine: Engine, vocabulary: Vocabulary, question: str) -> None:
    reading = _read(engine, vocabulary, question)
    assert reading.arguments["group_by"] == [{"column": "region"}]
    rows = [("West", 97.59), ("South", 51.07)]
    if question.startswith("which"):
        rows = rows[:1]  # one region asked for, in the singular
    assert [(r, round(p, 2)) for r, p in _rows(engine, reading)] == rows
    assert extra_columns(engine.model, reading.columns)


def test_a_value_is_kept_or_left_out(engine: Engine, vocabulary: Vocabulary) -> None:
    kept = _read(engine, vocabulary, "sales in Kentucky")
    assert round(_rows(engine, kept)[0][0], 2) == round(261.96 + 731.94 + 680.36, 2)
    left_out = _read(engine, vocabulary, "revenue outside kentucky")
    assert left_out.arguments["filters"] == [{"column": "state", "op": "not_in", "values": ["Kentucky"]}]
    both = _read(engine, vocabulary, "profit margin of furniture vs technology")
    assert both.arguments["group_by"] == [{"column": "category"}]  # side by side
    assert [r[0] for r in _rows(engine, both)] == ["Technology", "Furniture"]


def test_an_entity_is_ranked_and_counted(engine: Engine, vocabulary: Vocabulary) -> None:
    top = _read(engine, vocabulary, "top 2 customers by sales")
    assert top.arguments["limit"] == 2 and top.arguments["group_by"] == [{"column": "customer_id"}]
    assert [(r[0], r[1]) for r in _rows(engine, top)] == [
        ("CG-12520", "Claire Gute"),
        ("SO-20335", "Sean O'Donnell"),
    ]
    counted = _read(engine, vocabulary, "how many orders were shipped standard class?")
    assert counted.arguments["metrics"] == ["orders"] and _rows(engine, counted) == [(3,)]


def test_periods_are_placed_on_the_datas_calendar(engine: Engine, vocabulary: Vocabulary) -> None:
    compared = _read(engine, vocabulary, "revenue in 2017 vs 2016")
    assert compared.arguments["window"] == {"start": "2017-01-01", "end": "2017-12-31"}
    assert compared.arguments["compare"] == {"start": "2016-01-01", "end": "2016-12-31"}
    latest = _read(engine, vocabulary, "orders this year")  # the data's last year, not the calendar's
    assert latest.arguments["window"]["start"] == "2017-01-01"


def test_a_follow_up_changes_what_it_names(engine: Engine, vocabulary: Vocabulary) -> None:
    first = _read(engine, vocabulary, "profit in the South in 2016")
    then = _read(engine, vocabulary, "and in the West?", first.arguments)
    assert then.follow_up
    assert then.arguments["filters"] == [{"column": "region", "op": "in", "values": ["West"]}]
    assert then.arguments["window"] == first.arguments["window"]
    counted = _read(engine, vocabulary, "how many orders was that?", then.arguments)
    assert counted.arguments["metrics"] == ["orders"] and _rows(engine, counted) == [(1,)]


@pytest.mark.parametrize(
    ("question", "arguments"),
    [
        (
            "wat ws the totl profit in the wset regoin",
            {"metrics": ["profit"], "filters": [{"column": "region", "op": "in", "values": ["West"]}]},
        ),
        ("totl profit by categroy", {"metrics": ["profit"], "group_by": [{"column": "category"}]}),
        (
            "how many custmers in kentuky",
            {"metrics": ["customers"], "filters": [{"column": "state", "op": "in", "values": ["Kentucky"]}]},
        ),
    ],
)
def test_a_typo_of_the_datas_words_or_of_english_is_read_as_meant(
    engine: Engine, vocabulary: Vocabulary, question: str, arguments: dict[str, Any]
) -> None:
    reading = _read(engine, vocabulary, question)
    assert reading.covered and reading.arguments == arguments


def test_a_word_of_english_is_never_made_one_of_the_datas(engine: Engine, vocabulary: Vocabulary) -> None:
    """ "leave" is no typo of a value a letter or two away: leaving something out is a filter."""
    reading = _read(engine, vocabulary, "total furniture profit if you leave chairs out")
    assert reading.arguments["filters"] == [
        {"column": "category", "op": "in", "values": ["Furniture"]},
        {"column": "sub_category", "op": "not_in", "values": ["Chairs"]},
    ]
    assert not _read(engine, vocabulary, "profit by weather").covered


@pytest.mark.parametrize("question", ["profit by weather", "which region has the happiest staff?"])
def test_a_word_nobody_knows_leaves_the_question_unread(
    engine: Engine, vocabulary: Vocabulary, question: str
) -> None:
    reading = _read(engine, vocabulary, question)
    assert not reading.covered and reading.left


@pytest.mark.parametrize(
    ("question", "aside"),
    [
        ("how's 2017 shaping up against 2016 in profit?", ["shaping"]),
        ("unrelated - what was the profit in the West?", ["unrelated"]),
        ("I'm preparing a deck. What was the profit in the West?", ["preparing", "deck"]),
    ],
)
def test_words_that_only_colour_a_question_are_set_aside_and_said(
    engine: Engine, vocabulary: Vocabulary, question: str, aside: list[str]
) -> None:
    """A figure is named and the words nobody taught the reader only colour the question: it is read
    with the words it knows, and the words it did without are kept to be said with the answer."""
    reading = _read(engine, vocabulary, question)
    assert reading.covered and reading.aside == aside
    assert "profit" in reading.arguments["metrics"]


@pytest.mark.parametrize(
    "question",
    [
        "how much did we spend on marketing in 2017?",  # a subject no sales table holds
        "what's the weather in the West?",  # what is asked
        "how many orders were returned?",  # a condition on what is counted
        "what's the average customer age?",  # beside a word of the data's
        "what was the profit from our regular shoppers?",  # two unknown words: a phrase of their own
        "what was the longest profit streak?",  # a superlative
        "what was the profit of the Zorblat line?",  # no word of English: a name the data lacks
    ],
)
def test_words_that_may_be_what_is_asked_are_never_set_aside(
    engine: Engine, vocabulary: Vocabulary, question: str
) -> None:
    reading = _read(engine, vocabulary, question)
    assert not reading.covered and not reading.aside


def test_this_year_against_last_year_is_the_latest_against_the_one_before(
    engine: Engine, vocabulary: Vocabulary
) -> None:
    """Alone, "last year" is the data's latest; beside "this year" it is the one before it."""
    reading = _read(engine, vocabulary, "profit this year against last year")
    assert (reading.arguments["window"], reading.arguments["compare"]) == (
        {"start": "2017-01-01", "end": "2017-12-31"},
        {"start": "2016-01-01", "end": "2016-12-31"},
    )


def test_the_days_between_two_dates_of_a_row_are_a_metric(engine: Engine, vocabulary: Vocabulary) -> None:
    reading = _read(engine, vocabulary, "what is the average shipping time in the West?")
    assert reading.arguments["metrics"] == ["days_to_ship"]
    # CA-2016-2: 6/12 to 6/16 (4 days); CA-2017-4: 12/30 to 12/30 (0 days)
    assert _rows(engine, reading) == [(2.0,)]
    months = _read(engine, vocabulary, "revenue over the last 6 calendar months")
    assert months.arguments["window"] == {"start": "2017-07-01", "end": "2017-12-30"}


def test_growth_between_two_periods_ranks_by_the_change(engine: Engine, vocabulary: Vocabulary) -> None:
    reading = _read(engine, vocabulary, "which region had the biggest growth in sales from 2016 to 2017?")
    assert reading.arguments["by_change"] and reading.arguments["compare"]["start"] == "2016-01-01"
    # West: 907.15 in 2017 against 14.62 in 2016; South: 680.36 against 993.90
    assert [row[0] for row in _rows(engine, reading)] == ["West"]  # one region asked for


def test_a_measure_had_or_not_and_a_ratio_per_entity(engine: Engine, vocabulary: Vocabulary) -> None:
    discounted = _read(engine, vocabulary, "how many orders had a discount?")
    assert discounted.arguments["filters"] == [{"column": "discount", "op": "gt", "values": [0]}]
    assert _rows(engine, discounted) == [(2,)]  # US-2015-3 and CA-2017-4
    per_order = _read(engine, vocabulary, "average sales per order for furniture")
    assert per_order.arguments["metrics"] == ["average_order_value"]


@pytest.mark.parametrize(
    ("question", "cutoff", "customers"),
    [
        ("how many customers haven't ordered since 2015?", "2016-01-01", ["SO-20335"]),
        (
            "How many customers have not bought anything since June 2016?",
            "2016-07-01",
            ["DV-13045", "SO-20335"],
        ),
        ("which customers haven't placed an order since 2016?", "2017-01-01", ["DV-13045", "SO-20335"]),
    ],
)
def test_not_since_a_period_is_a_last_order_in_it_or_before(
    engine: Engine, vocabulary: Vocabulary, question: str, cutoff: str, customers: list[str]
) -> None:
    """ "Not since 2015" is a last order in 2015 or earlier; "how many" counts the customers who
    pass, "which" lists them."""
    reading = _read(engine, vocabulary, question)
    assert {"metric": "last_order_date", "op": "lt", "values": [cutoff]} in reading.arguments["filters"]
    assert reading.arguments.get("count", False) == question.lower().startswith("how many")
    query = SemanticQuery.model_validate(reading.arguments)
    assert [r[0] for r in engine.run(query).rows] == customers
    assert engine.group_count(query) == len(customers)


@pytest.mark.parametrize(
    ("question", "metrics", "group_by"),
    [
        ("which 3 states place the most orders? count distinct order ids", ["orders"], [{"column": "state"}]),
        ("top regions by number of unique customer ids", ["customers"], [{"column": "region"}]),
        ("revenue by order id", ["revenue"], [{"column": "order_id"}]),
    ],
)
def test_distinct_ids_counted_are_the_things_counted(
    engine: Engine, vocabulary: Vocabulary, question: str, metrics: list[str], group_by: list[dict[str, str]]
) -> None:
    """ "Count distinct order ids" counts the orders, never a breakdown by each order; "by order
    id" still is one."""
    reading = _read(engine, vocabulary, question)
    assert reading.arguments["metrics"] == metrics
    assert reading.arguments["group_by"] == group_by
    furniture = {
        "metrics": ["revenue"],
        "filters": [{"column": "category", "op": "in", "values": ["Furniture"]}],
    }
    after = _read(engine, vocabulary, "how many different order ids is that?", furniture)
    assert after.arguments["metrics"] == ["orders"] and after.arguments["filters"] == furniture["filters"]


@pytest.mark.parametrize(
    ("question", "by_change", "order"),
    [
        ("revenue growth by year", False, None),
        ("which year grew the most?", True, "desc"),
        ("was there a year where we went backwards?", True, "asc"),
        ("which month of 2017 grew the most?", True, "desc"),
    ],
)
def test_growth_of_a_series_is_each_period_against_the_one_before(
    engine: Engine, vocabulary: Vocabulary, question: str, by_change: bool, order: str | None
) -> None:
    """Growth asked of periods ("by year", "which month of 2017") is each against the one before,
    never one window against another year's (whose months would not meet)."""
    reading = _read(engine, vocabulary, question)
    assert reading.arguments.get("each_against_previous"), reading.arguments
    assert "compare" not in reading.arguments
    assert reading.arguments.get("by_change", False) == by_change
    assert reading.arguments.get("order") == order
    engine.run(SemanticQuery.model_validate(reading.arguments))


@pytest.mark.parametrize(
    ("question", "metric", "op", "values", "count"),
    [
        ("how many orders had just one line item?", "lines", "between", [1.0, 1.0], 3),
        ("orders with 2 or more lines", "lines", "ge", [2.0], 2),
        ("how many customers placed 2 or more orders?", "orders", "ge", [2.0], 1),
    ],
)
def test_a_count_said_number_first_ranges_each_thing(
    engine: Engine,
    vocabulary: Vocabulary,
    question: str,
    metric: str,
    op: str,
    values: list[float],
    count: int,
) -> None:
    """ "Orders with 2 or more lines" is each order's lines, never its revenue of 2 or more; a
    number may be a word ("just one line item", a singular that names what "line items" does)."""
    reading = _read(engine, vocabulary, question)
    assert {"metric": metric, "op": op, "values": values} in reading.arguments["filters"]
    query = SemanticQuery.model_validate(reading.arguments)
    if reading.arguments.get("count"):
        assert engine.group_count(query) == count
        assert reading.arguments["metrics"] == [metric]  # each listed with it, not as one order
    else:
        assert engine.run(query).rows[0][-1] == count


@pytest.mark.parametrize(
    ("question", "things", "listed"),
    [
        ("which states had no sales in 2016?", "state", ["Washington", "Florida"]),
        ("how many products haven't sold since 2016?", "product_name", None),
        ("list the categories that have had zero sales since june 2017", "category", None),
    ],
)
def test_recency_lists_the_things_asked_about_not_the_customers(
    engine: Engine, vocabulary: Vocabulary, question: str, things: str, listed: list[str] | None
) -> None:
    """ "Which states had no sales in 2016?" is states, each with its last day: a period over before
    the data's end keeps those with no line in it (Washington sold in 2017 only); one that runs to
    the end is a last day before it; "how many products" counts them though "products sold" reads
    as units too."""
    reading = _read(engine, vocabulary, question)
    assert reading.arguments["group_by"] == [{"column": things}]
    assert reading.arguments["metrics"] == ["last_order_date"]
    assert reading.arguments.get("count", False) == question.startswith("how many")
    query = SemanticQuery.model_validate(reading.arguments)
    rows = engine.run(query).rows
    if listed is not None:
        assert [r[0] for r in rows] == listed
    assert all(r[1] < date(2017, 1, 1) for r in rows) or listed is not None


@pytest.mark.parametrize(
    "question",
    [
        "when was Claire Gute's last order?",
        "when did claire gute last order?",
        "Claire Gute's most recent purchase",
    ],
)
def test_the_last_order_is_the_latest_order_date(
    engine: Engine, vocabulary: Vocabulary, question: str
) -> None:
    reading = _read(engine, vocabulary, question)
    assert reading.arguments["metrics"] == ["last_order_date"]
    assert [str(r[0]) for r in _rows(engine, reading)] == ["2017-11-22"]


def test_a_run_of_a_names_words_is_that_name_not_other_values_it_holds(tmp_path: Path) -> None:
    """ "the Global Troy tilter": one product, though Troy is also a city; "the Cubify 3D printer" is
    two products, to be offered, never one of them guessed."""
    path = tmp_path / "shop.csv"
    path.write_text(
        "Order ID,Order Date,Customer ID,City,Region,Product Name,Sales,Quantity\n"
        "A-1,2024-01-02,C-1,Troy,East,Global Troy Executive Leather Tilter,100.00,2\n"
        "A-2,2024-01-03,C-2,Austin,West,Global Troy Executive Leather Tilter,50.00,1\n"
        "A-3,2024-01-04,C-1,Troy,East,Cubify CubeX 3D Printer Double Head,900.00,1\n"
        "A-4,2024-01-05,C-2,Austin,West,Cubify CubeX 3D Printer Triple Head,1200.00,1\n"
    )
    model = suggest_model(
        profile_csv(path), "Shop", known={"order": "Order ID", "line_total": "Sales", "quantity": "Quantity"}
    )
    with Engine(model, path) as shop:
        words = Vocabulary(model, shop.words())
        _, last = shop.span()
        tilter = read_semantic(
            "Which region moved the most units of the Global Troy tilter?", model, words, last
        )
        assert tilter.covered
        assert tilter.arguments["filters"] == [
            {"column": "product_name", "op": "in", "values": ["Global Troy tilter"]}
        ]
        assert tilter.arguments["group_by"] == [{"column": "region"}]
        printer = read_semantic("units of the Cubify 3D printer", model, words, last)
        assert printer.covered
        assert shop.matches(model.column("product_name"), "Cubify 3D printer") == [
            "Cubify CubeX 3D Printer Double Head",
            "Cubify CubeX 3D Printer Triple Head",
        ]


@pytest.mark.parametrize(
    ("question", "op", "metrics"),
    [
        ("profit on discounted lines", "gt", ["profit"]),
        ("sales from discounted orders", "gt", ["revenue"]),
        ("how many undiscounted lines?", "le", ["lines"]),
    ],
)
def test_a_measure_said_as_a_participle_is_had_or_not(
    engine: Engine, vocabulary: Vocabulary, question: str, op: str, metrics: list[str]
) -> None:
    reading = _read(engine, vocabulary, question)
    assert reading.covered
    assert reading.arguments["metrics"] == metrics
    assert reading.arguments["filters"] == [{"column": "discount", "op": op, "values": [0]}]


def test_a_small_number_alone_is_no_part_of_a_name(engine: Engine, vocabulary: Vocabulary) -> None:
    assert not _read(engine, vocabulary, "what share of sales came with discount > 0?").covered


@pytest.fixture(scope="module")
def retail(tmp_path_factory: pytest.TempPathFactory) -> tuple[Engine, Vocabulary]:
    """The Online Retail layout: "C" invoices cancel, countries of several words."""
    path = tmp_path_factory.mktemp("retail") / "retail.csv"
    lines = [
        f"5363{n:02},85123A,WHITE HEART,2,2011-{n % 3 + 1:02}-0{n % 9 + 1} 08:26:00,2.50,178{n:02},"
        f"{'United Kingdom' if n % 4 else 'France'}\n"
        for n in range(12)
    ]
    path.write_text(
        _RETAIL_HEADER
        + "".join(lines)
        + "C536379,85123A,WHITE HEART,-2,2011-01-02 09:41:00,2.50,17800,United Kingdom\n"
    )
    model = suggest_model(profile_csv(path), "Retail")
    engine = Engine(model, path)
    return engine, Vocabulary(model, engine.words())


@pytest.mark.parametrize(
    ("question", "metric", "revenue"),
    [
        ("total revenue, net of cancellations", "revenue", 12 * 5.0 - 5.0),
        ("revenue before cancellations", "gross_revenue", 12 * 5.0),
        ("gross sales, non-cancelled lines only", "gross_revenue", 12 * 5.0),
    ],
)
def test_net_and_gross_of_cancellations(
    retail: tuple[Engine, Vocabulary], question: str, metric: str, revenue: float
) -> None:
    engine, words = retail
    reading = _read(engine, words, question)
    assert reading.covered and reading.arguments["metrics"] == [metric]
    assert _rows(engine, reading) == [(pytest.approx(revenue),)]


def test_one_period_ranked_and_countries_counted(retail: tuple[Engine, Vocabulary]) -> None:
    engine, words = retail
    best = _read(engine, words, "which month had the highest revenue?")
    assert best.arguments["order_by"] == "revenue" and best.arguments["limit"] == 1
    trend = _read(engine, words, "revenue by month")
    assert "order_by" not in trend.arguments  # a trend reads in time order
    counted = _read(engine, words, "how many countries besides the UK do we sell to?")
    assert counted.arguments["count"] is True
    assert counted.arguments["filters"] == [
        {"column": "country", "op": "not_in", "values": ["United Kingdom"]}
    ]
    assert engine.group_count(SemanticQuery.model_validate(counted.arguments)) == 1


def test_things_named_by_a_plural_are_every_one_so_named(tmp_path: Path) -> None:
    """ "how many different doormats": the products whose names hold "doormat", counted; a word
    naming several things is what is counted, not a choice to make."""
    path = tmp_path / "shop.csv"
    shop, words, last = _shop(
        path,
        (
            "Order ID,Order Date,Customer ID,Product ID,Product Name,Sales\n"
            "A-1,2024-01-02,C-1,P-1,DOORMAT RED,10.00\nA-2,2024-01-03,C-2,P-2,DOORMAT BLUE,20.00\n"
            "A-3,2024-01-04,C-1,P-3,LUNCH BAG,5.00\n"
        ),
    )
    model = shop.model
    with shop:
        counted = read_semantic("how many different doormats do we sell?", model, words, last)
        assert counted.covered and counted.arguments["metrics"] == ["products"]
        assert counted.arguments["filters"] == [
            {"column": "product_name", "op": "contains", "values": ["doormat"]}
        ]
        assert shop.run(SemanticQuery.model_validate(counted.arguments)).rows == [(2,)]
        summed = read_semantic("sales of doormats", model, words, last)
        assert shop.run(SemanticQuery.model_validate(summed.arguments)).rows == [(30.0,)]


def test_which_n_things_is_a_ranking_of_n(engine: Engine, vocabulary: Vocabulary) -> None:
    reading = _read(engine, vocabulary, "which 2 states have the smallest sales over the whole data set?")
    assert reading.covered and reading.arguments["limit"] == 2 and reading.arguments["order"] == "asc"


def test_initials_are_a_value_only_in_capitals(tmp_path: Path) -> None:
    """ "the UK" is United Kingdom; "was" (stemmed "wa") is no city called West Allis."""
    path = tmp_path / "shop.csv"
    shop, words, last = _shop(
        path,
        (
            "Order ID,Order Date,City,Country,Sales\n"
            "A-1,2024-01-02,West Allis,United States,10.00\nA-2,2024-01-03,Leeds,United Kingdom,20.00\n"
        ),
    )
    model = shop.model
    with shop:
        plain = read_semantic("what was total revenue?", model, words, last)
        assert plain.covered and "filters" not in plain.arguments
        outside = read_semantic("what was revenue outside the UK?", model, words, last)
        assert outside.arguments["filters"] == [
            {"column": "country", "op": "not_in", "values": ["United Kingdom"]}
        ]


def test_a_row_of_the_list_before_is_asked_about_by_its_place(engine: Engine, vocabulary: Vocabulary) -> None:
    top = _read(engine, vocabulary, "top 3 customers by sales")
    listed = ("customer_id", [str(row[0]) for row in _rows(engine, top)])
    assert listed[1] == ["CG-12520", "SO-20335", "SM-20320"]
    _, last = engine.span()
    for question, customer in [
        ("how many orders did no. 2 on that list place?", "SO-20335"),
        ("and the third one?", "SM-20320"),
        ("what about the bottom one", "SM-20320"),  # ranked highest first: the last row
        ("profit of the top one", "CG-12520"),
    ]:
        reading = read_semantic(question, engine.model, vocabulary, last, top.arguments, listed)
        assert reading.follow_up and "group_by" not in reading.arguments, question
        assert reading.arguments["filters"] == [{"column": "customer_id", "op": "in", "values": [customer]}]
        assert "limit" not in reading.arguments  # "top", "2" named a row, not a ranking
    lowest = _read(engine, vocabulary, "which 2 regions have the lowest sales?")
    bottom = read_semantic("orders of the bottom one", engine.model, vocabulary, last, lowest.arguments,
                           ("region", ["South", "West"]))  # fmt: skip
    assert bottom.arguments["filters"][-1]["values"] == ["South"]  # ranked lowest first: the first row
    beyond = read_semantic("and no. 7 on that list?", engine.model, vocabulary, last, top.arguments, listed)
    assert not beyond.covered  # a place the list does not have is no row


def test_one_asked_for_is_then_they(engine: Engine, vocabulary: Vocabulary) -> None:
    biggest = _read(engine, vocabulary, "who is our biggest customer by sales?")
    assert biggest.arguments["limit"] == 1  # one customer, said in the singular
    _, last = engine.span()
    listed = ("customer_id", ["CG-12520"])
    orders = read_semantic("how many orders have they placed?", engine.model, vocabulary, last,
                           biggest.arguments, listed)  # fmt: skip
    assert orders.arguments["metrics"] == ["orders"]
    assert orders.arguments["filters"] == [{"column": "customer_id", "op": "in", "values": ["CG-12520"]}]
    when = read_semantic("and when was their last order?", engine.model, vocabulary, last, orders.arguments)
    assert (
        when.arguments["metrics"] == ["last_order_date"]
        and _rows(engine, when)[0][0].isoformat() == "2017-11-22"
    )


def test_a_share_of_a_wider_whole_is_the_part_over_the_whole(engine: Engine, vocabulary: Vocabulary) -> None:
    period = _read(engine, vocabulary, "What share of 2017 sales came from the West?")
    assert period.arguments["share_of"] == {"window": {"start": "2017-01-01", "end": "2017-12-31"}}
    assert period.arguments["filters"] == [{"column": "region", "op": "in", "values": ["West"]}]
    query = SemanticQuery.model_validate(period.arguments)
    text = render(engine.model, query, engine.run(query))
    assert text == "Revenue, Region West, 2017: 907.15 (57.14% of 1,587.51, the revenue of 2017)."
    total = _read(engine, vocabulary, "what % of total sales is the South on its own?")
    assert total.arguments["share_of"] == {} and "group_by" not in total.arguments
    query = SemanticQuery.model_validate(total.arguments)
    assert "(74.22% of 3,575.98" in render(engine.model, query, engine.run(query))
    each = _read(engine, vocabulary, "what share of sales came from each region?")
    assert each.arguments["share"] and "share_of" not in each.arguments  # the groups' own total
    _, last = engine.span()
    later = read_semantic("and in 2016?", engine.model, vocabulary, last, period.arguments)
    assert later.arguments["share_of"] == {"window": {"start": "2016-01-01", "end": "2016-12-31"}}


@pytest.mark.parametrize(
    ("question", "op", "days", "sales"),
    [
        ("sales on Tuesdays", "in", ["Tuesday"], 261.96 + 731.94),
        ("how much did we sell at weekends?", "in", ["Saturday", "Sunday"], 14.62 + 957.58 + 22.37 + 907.15),
        ("revenue on a wednesday in 2017", "in", ["Wednesday"], 680.36),
        ("sales not on sundays", "not_in", ["Sunday"], 261.96 + 731.94 + 907.15 + 680.36),
    ],
)
def test_a_weekday_is_a_part_of_every_date(
    engine: Engine, vocabulary: Vocabulary, question: str, op: str, days: list[str], sales: float
) -> None:
    reading = _read(engine, vocabulary, question)
    assert reading.arguments["filters"] == [
        {"column": "order_date", "part": "weekday", "op": op, "values": days}
    ]
    assert "group_by" not in reading.arguments  # two days are one filter, not a breakdown
    assert round(_rows(engine, reading)[0][0], 2) == round(sales, 2)


def test_one_day_with_its_weekday_is_that_day(engine: Engine, vocabulary: Vocabulary) -> None:
    reading = _read(engine, vocabulary, "sales on Tuesday 8 November 2016")
    assert reading.arguments["window"] == {"start": "2016-11-08", "end": "2016-11-08"}
    assert "filters" not in reading.arguments


def test_what_each_customer_did_or_never_did_is_a_condition_on_their_count(tmp_path: Path) -> None:
    shop, vocabulary, last = _shop(
        tmp_path / "shop.csv",
        _RETAIL_HEADER + "1001,A1,RED MUG,2,2011-01-03 10:00:00,5.00,17001,United Kingdom\n"
        "1002,A1,RED MUG,1,2011-02-03 10:00:00,5.00,17002,France\n"
        "C1003,A1,RED MUG,-1,2011-02-04 10:00:00,5.00,17002,France\n"
        "1004,B2,BLUE BOWL,4,2011-03-03 10:00:00,2.50,17003,France\n"
        "C1005,B2,BLUE BOWL,-2,2011-03-04 10:00:00,2.50,17004,Germany\n",
    )
    never = read_semantic("How many customers have never cancelled anything?", shop.model, vocabulary, last)
    assert {"metric": "cancelled_orders", "op": "le", "values": [0]} in never.arguments["filters"]
    assert never.arguments["count"] and never.arguments["group_by"] == [{"column": "customerid"}]
    assert sorted(r[0] for r in _rows(shop, never)) == ["17001", "17003"]
    once = read_semantic(
        "and how many cancelled at least once?", shop.model, vocabulary, last, never.arguments
    )
    assert once.arguments["filters"] == [{"metric": "cancelled_orders", "op": "ge", "values": [1]}]
    assert once.arguments.get("order", "desc") == "desc"  # "at least" ranks nothing
    assert sorted(r[0] for r in _rows(shop, once)) == ["17002", "17004"]
    top = read_semantic("Of the ones who never cancelled, who spent the most?", shop.model, vocabulary, last)
    assert top.arguments["limit"] == 1 and _rows(shop, top)[0][0] == "17001"  # 10.00 against 10.00: tied
    aside = read_semantic(
        "How many customers have never cancelled anything? (at least one normal order, no C invoices at all)",
        shop.model,
        vocabulary,
        last,
    )
    assert aside.arguments == never.arguments  # an aside that explains and names nothing is set aside


def test_a_blank_customer_is_a_guests_line(tmp_path: Path) -> None:
    shop, vocabulary, last = _shop(
        tmp_path / "shop.csv",
        _RETAIL_HEADER + "1001,A1,RED MUG,2,2011-01-03 10:00:00,5.00,17001,United Kingdom\n"
        "1002,A1,RED MUG,1,2011-02-03 10:00:00,5.00,,France\n"
        "1003,B2,BLUE BOWL,4,2011-03-03 10:00:00,2.50,,France\n"
        "1004,B2,BLUE BOWL,1,2011-03-04 10:00:00,2.50,,Germany\n",
    )
    for question in ("how much revenue came from guest checkouts?", "revenue of lines with no CustomerID"):
        reading = read_semantic(question, shop.model, vocabulary, last)
        assert reading.arguments["filters"] == [{"column": "customerid", "op": "missing"}], question
        assert round(_rows(shop, reading)[0][0], 2) == 17.50
    most = read_semantic("which country has the most guest lines?", shop.model, vocabulary, last)
    assert _rows(shop, most) == [("France", 2)]
    known = read_semantic("how many orders had a customer id?", shop.model, vocabulary, last)
    assert known.arguments["filters"] == [{"column": "customerid", "op": "present"}] and _rows(
        shop, known
    ) == [(1,)]
    assert shop.names_of(shop.model.column("stockcode"), ["B2", "Z9"]) == {"stockcode=B2": "BLUE BOWL"}


def test_a_period_of_the_list_before_is_asked_about(engine: Engine, vocabulary: Vocabulary) -> None:
    best = _read(engine, vocabulary, "which month had the highest sales?")
    (row,) = _rows(engine, best)
    assert row[0].isoformat() == "2016-11-01"
    _, last = engine.span()
    listed = ("order_date@month", ["2016-11-01"])
    compared = read_semantic(
        "how did that compare to the month before?", engine.model, vocabulary, last, best.arguments, listed
    )
    assert compared.arguments["window"] == {"start": "2016-11-01", "end": "2016-11-30"}
    assert compared.arguments["compare"] == {"start": "2016-10-01", "end": "2016-10-31"}
    assert "group_by" not in compared.arguments


def test_a_comparison_is_not_carried_into_a_new_breakdown(engine: Engine, vocabulary: Vocabulary) -> None:
    _, last = engine.span()
    both = _read(engine, vocabulary, "furniture sales in 2016 vs 2015")
    by_region = read_semantic("and by region?", engine.model, vocabulary, last, both.arguments)
    assert "compare" not in by_region.arguments and "window" not in by_region.arguments
    growth = read_semantic("and which region grew most?", engine.model, vocabulary, last, both.arguments)
    assert growth.arguments["compare"] == both.arguments["compare"]


_GIFTS = (
    _RETAIL_HEADER + "1001,A1,PAPER CHAIN KIT EMPIRE,2,2011-01-03 10:00:00,5.00,17001,United Kingdom\n"
    "1002,A2,PAPER CHAIN KIT VINTAGE CHRISTMAS,3,2011-02-03 10:00:00,4.00,17002,France\n"
    "1003,B1,DOORMAT RED,1,2011-06-30 10:00:00,8.00,17002,France\n"
    "1004,B2,DOORMAT BLUE,2,2011-07-04 10:00:00,8.00,17001,United Kingdom\n"
    "C1005,B2,DOORMAT BLUE,-1,2011-07-05 10:00:00,8.00,17001,United Kingdom\n"
)


def test_names_written_in_lower_case_and_choices_picked_by_a_word(tmp_path: Path) -> None:
    shop, vocabulary, last = _shop(tmp_path / "gifts.csv", _GIFTS)
    kit = read_semantic("how much did the paper chain kit make?", shop.model, vocabulary, last)
    assert kit.arguments["filters"] == [{"column": "description", "op": "in", "values": ["paper chain kit"]}]
    offered = ("description", ["PAPER CHAIN KIT EMPIRE", "PAPER CHAIN KIT VINTAGE CHRISTMAS"])
    pick = read_semantic(
        "sorry - the vintage christmas one", shop.model, vocabulary, last, kit.arguments, offered
    )
    assert pick.arguments["filters"][0]["values"] == ["PAPER CHAIN KIT VINTAGE CHRISTMAS"]
    assert "window" not in pick.arguments  # "christmas" is the name's word here, not a day
    doormats = read_semantic("how many different doormats do we sell?", shop.model, vocabulary, last)
    best = read_semantic(
        "which one brought in the most revenue?", shop.model, vocabulary, last, doormats.arguments
    )
    assert best.arguments["group_by"] == [{"column": "stockcode"}] and best.arguments["limit"] == 1
    recount = read_semantic(
        "and how many products have KIT in them?", shop.model, vocabulary, last, best.arguments
    )
    assert "group_by" not in recount.arguments  # a count of products is no breakdown by product


def test_where_value_and_passive_wordings(tmp_path: Path) -> None:
    shop, vocabulary, last = _shop(tmp_path / "gifts.csv", _GIFTS)
    where = read_semantic(
        "customer 17002: total spend, and where are they based?", shop.model, vocabulary, last
    )
    assert where.arguments["group_by"] == [{"column": "country"}] and _rows(shop, where)[0][0] == "France"
    cancelled = read_semantic("how many invoices got cancelled in 2011?", shop.model, vocabulary, last)
    assert cancelled.arguments["metrics"] == ["cancelled_orders"] and _rows(shop, cancelled) == [(1,)]
    value = read_semantic(
        "whats the total value of those?", shop.model, vocabulary, last, cancelled.arguments
    )
    assert value.arguments["metrics"] == ["cancelled_revenue"] and _rows(shop, value) == [(8.0,)]
    lapsed = read_semantic("how many customers haven't ordered since the end of June 2011?", shop.model,
                           vocabulary, last)  # fmt: skip
    assert {"metric": "last_invoicedate", "op": "lt", "values": ["2011-07-01"]} in lapsed.arguments["filters"]
    assert [r[0] for r in _rows(shop, lapsed)] == ["17002"]


def test_who_without_a_superlative_is_everyone_and_a_breakdown_keeps_the_metric(
    engine: Engine, vocabulary: Vocabulary
) -> None:
    _, last = engine.span()
    chairs = _read(engine, vocabulary, "sales of the Hon Chair")
    buyers = read_semantic("who bought it?", engine.model, vocabulary, last, chairs.arguments)
    assert buyers.arguments["group_by"] == [{"column": "customer_id"}] and "limit" not in buyers.arguments
    losses = _read(engine, vocabulary, "which regions lost money?")
    worst = read_semantic(
        "for furniture, which region is worst?", engine.model, vocabulary, last, losses.arguments
    )
    assert worst.arguments["metrics"] == ["profit"]  # the losses' measure, not the default revenue


def test_a_yes_or_no_about_one_thing_shows_what_it_is(engine: Engine, vocabulary: Vocabulary) -> None:
    reading = _read(engine, vocabulary, "Is customer CG-12520 in the West region?")
    assert reading.arguments["group_by"] == [{"column": "region"}]  # a no says where they are
    assert reading.arguments["filters"] == [{"column": "customer_id", "op": "in", "values": ["CG-12520"]}]
    assert [r[0] for r in _rows(engine, reading)] == ["South"]


def test_a_number_in_two_columns_is_the_named_columns(tmp_path: Path) -> None:
    shop, vocabulary, last = _shop(
        tmp_path / "shop.csv",
        _RETAIL_HEADER + "1001,22156,RED MUG,2,2011-01-03 10:00:00,5.00,17001,United Kingdom\n"
        "1002,A1,BLUE BOWL,1,2011-02-03 10:00:00,5.00,22156,France\n",
    )
    reading = read_semantic("revenue of customer 22156", shop.model, vocabulary, last)
    assert reading.arguments["filters"] == [{"column": "customerid", "op": "in", "values": ["22156"]}]
    assert _rows(shop, reading) == [(5.0,)]


def test_since_a_period_runs_to_the_last_day_of_the_data(engine: Engine, vocabulary: Vocabulary) -> None:
    reading = _read(engine, vocabulary, "sales since June 2017")
    assert reading.arguments["window"] == {"start": "2017-06-01", "end": "2017-12-30"}
    assert round(_rows(engine, reading)[0][0], 2) == round(907.15 + 680.36, 2)


def test_a_sale_a_line_without_a_quantity_is_counted_by_its_own_noun(tmp_path: Path) -> None:
    """A dealer's export: a car a line, its price, a key of its own and no order number. Its revenue
    is the prices' sum, its cars are its lines (the key's noun), and "which dealer" is the dealer's
    name, not its number or its region."""
    path = tmp_path / "cars.csv"
    path.write_text(
        "Car_id,Date,Dealer_Name,Dealer_No,Dealer_Region,Company,Price ($)\n"
        "C_1,2023-01-02,Star Motors,06457-3834,Austin,Ford,26000\n"
        "C_2,2023-01-03,Star Motors,06457-3834,Austin,Dodge,19000\n"
        "C_3,2023-01-04,Pitre Cars,60504-7114,Pasco,Ford,31500\n"
    )
    model = suggest_model(profile_csv(path), "Cars", known={"time": "Date", "unit_price": "Price ($)"})
    assert model.metric("revenue").over == "price"
    assert "cars" in model.metric("orders").synonyms
    with Engine(model, path) as cars:
        words = Vocabulary(model, cars.words())
        _, last = cars.span()
        sold = read_semantic("Which dealer sold the most cars?", model, words, last)
        assert sold.covered
        assert sold.arguments["metrics"] == ["orders"]
        assert sold.arguments["group_by"] == [{"column": "dealer_name"}]
        assert cars.run(SemanticQuery.model_validate(sold.arguments)).rows[0] == ("Star Motors", 2)
        revenue = read_semantic("total revenue", model, words, last)
        assert cars.run(SemanticQuery.model_validate(revenue.arguments)).rows == [(76500,)]


def test_a_word_of_a_dimensions_values_names_them_and_a_months_typo_is_read(tmp_path: Path) -> None:
    """ "fashion" is the one product line holding it; "accessories" is in two, looked up as written
    (the tool offers both, never one guessed); a file's rows are its lines; "febuary" is February."""
    till, words, last = _shop(
        tmp_path / "till.csv",
        "Invoice ID,Date,Product line,Total\n"
        "1,2019-01-05,Fashion accessories,10.00\n2,2019-02-05,Electronic accessories,20.00\n"
        "3,2019-02-06,Food and beverages,5.00\n4,2019-03-01,Fashion accessories,7.00\n",
        {"order": "Invoice ID", "line_total": "Total"},
    )
    model = till.model
    with till:
        fashion = read_semantic("revenue of the fashion line", model, words, last)
        assert fashion.covered
        assert fashion.arguments["filters"] == [{"column": "product_line", "op": "in", "values": ["fashion"]}]
        assert till.matches(model.column("product_line"), "fashion") == ["Fashion accessories"]
        both = read_semantic("revenue from accessories", model, words, last)
        assert both.covered
        assert till.matches(model.column("product_line"), "accessories") == [
            "Electronic accessories",
            "Fashion accessories",
        ]
        rows = read_semantic("how many rows are in the file?", model, words, last)  # every table has them
        assert (rows.covered, rows.arguments["metrics"]) == (True, ["lines"])
        february = read_semantic("revenue in febuary 2019", model, words, last)
        assert february.covered
        assert till.run(SemanticQuery.model_validate(february.arguments)).rows == [(25,)]


def test_what_a_line_does_not_have_and_what_its_name_holds(retail: tuple[Engine, Vocabulary]) -> None:
    """ "don't have a CustomerID" is a blank key, never its opposite; "with 'HEART' in the name" the
    things whose name holds it; a question before an elaboration is never dropped as a lead-in."""
    engine, words = retail
    blank = _read(engine, words, "How many rows in the file don't have a CustomerID?")
    assert blank.arguments["filters"] == [{"column": "customerid", "op": "missing"}]
    holding = _read(engine, words, "how much did we sell of anything with 'HEART' in the name in 2011?")
    assert holding.covered
    assert holding.arguments["filters"] == [{"column": "description", "op": "contains", "values": ["heart"]}]
    assert holding.arguments["window"] == {"start": "2011-01-01", "end": "2011-12-31"}
    elaborated = _read(engine, words, "how many units did the heart lights sell in 2011? units, all lines")
    assert not elaborated.covered or elaborated.arguments.get("window")  # never the units of all time


@pytest.mark.parametrize(
    ("question", "metric"),
    [
        ("which ship mode gets used the most?", "orders"),  # a form of a plain word, a way used: orders
        ("which region gets the most orders?", "orders"),
        ("avg order val by region", "average_order_value"),  # an analyst's shorthand
        ("rev by region", "revenue"),
    ],
)
def test_forms_of_plain_words_and_shorthand_are_read(
    engine: Engine, vocabulary: Vocabulary, question: str, metric: str
) -> None:
    reading = _read(engine, vocabulary, question)
    assert reading.covered, reading
    assert reading.arguments["metrics"] == [metric]
    grouped = "region" if "region" in question else "ship_mode"
    assert reading.arguments["group_by"] == [{"column": grouped}]


def test_how_many_of_a_value_were_sold_counts_its_units(tmp_path: Path) -> None:
    """ "How many Phones did we sell?": the units of the phones, not their revenue; "moves" is sells."""
    shop, vocabulary, last = _shop(
        tmp_path / "phones.csv",
        "Order ID,Order Date,Category,Quantity,Sales\n1,1/2/2023,Phones,4,400\n2,1/3/2023,Phones,3,300\n"
        "3,1/3/2023,Chairs,1,50\n",
        known={"order": "Order ID", "quantity": "Quantity", "line_total": "Sales"},
    )
    sold = read_semantic("How many Phones did we sell?", shop.model, vocabulary, last, None)
    assert sold.arguments["metrics"] == ["units"]
    assert shop.run(SemanticQuery.model_validate(sold.arguments)).rows == [(7,)]
    moved = read_semantic("which category moves the most units?", shop.model, vocabulary, last, None)
    assert shop.run(SemanticQuery.model_validate(moved.arguments)).rows == [("Phones", 7)]


def test_a_loss_is_read_however_it_is_said(engine: Engine, vocabulary: Vocabulary) -> None:
    """ "lost the most", "in the red": a profit below zero, the biggest loss first; "red" is no name."""
    for question in ("which sub-category lost the most money?", "which sub-category lost the most?"):
        reading = _read(engine, vocabulary, question)
        assert reading.arguments["limit"] == 1
        assert _rows(engine, reading) == [("Tables", pytest.approx(-383.03))]
    red = _read(engine, vocabulary, "which states were in the red?")
    assert [r[0] for r in _rows(engine, red)] == ["Florida"]


def test_a_things_word_before_a_column_says_whose_it_is(engine: Engine, vocabulary: Vocabulary) -> None:
    """ "the customer segment", "which product category": the column after, never each customer."""
    reading = _read(engine, vocabulary, "which product category sold the most?")
    assert reading.arguments["group_by"] == [{"column": "category"}]


def test_a_file_without_quantities_sells_a_unit_a_line(tmp_path: Path) -> None:
    """A car dealer's export: no quantity, so "how many Porsches were sold?" counts its lines, and a
    brand is the file's Company."""
    shop, vocabulary, last = _shop(
        tmp_path / "cars.csv",
        "Car_id,Date,Company,Price ($)\nC1,1/2/2023,Porsche,90000\nC2,1/3/2023,Porsche,80000\n"
        "C3,1/4/2023,Ford,20000\n",
        known={"line_total": "Price ($)"},
    )
    sold = read_semantic("How many Porsches were sold?", shop.model, vocabulary, last, None)
    assert shop.run(SemanticQuery.model_validate(sold.arguments)).rows == [(2,)]
    brand = read_semantic("which brand made the most revenue?", shop.model, vocabulary, last, None)
    assert shop.run(SemanticQuery.model_validate(brand.arguments)).rows == [("Porsche", 170000)]


def test_bought_in_one_period_but_not_the_next_is_a_last_order_in_the_first(
    engine: Engine, vocabulary: Vocabulary
) -> None:
    """ "bought in 2016 but didnt buy in 2017" (the data's last year): a last order in 2016; the other
    way round is no comparison of the two years, and is not read."""
    reading = _read(engine, vocabulary, "how many customers bought in 2016 but didnt buy anything in 2017?")
    assert reading.arguments["count"] is True
    assert {r[0] for r in _rows(engine, reading)} == {"DV-13045"}  # Claire Gute ordered again in 2017
    other_way = _read(engine, vocabulary, "how many customers bought in 2017 but not in 2016?")
    assert not other_way.covered and "not" in other_way.left


def test_that_year_is_the_period_of_the_last_answer_of_any_tool(
    engine: Engine, vocabulary: Vocabulary
) -> None:
    _, last = engine.span()
    period = {"start": "2016-01-01", "end": "2016-12-31"}
    reading = read_semantic("which region had the most profit that year?", engine.model, vocabulary, last,
                            period_before=period)  # fmt: skip
    assert reading.arguments["window"] == period
    assert _rows(engine, reading) == [("South", pytest.approx(41.91 + 219.58))]


def test_that_compared_with_a_period_named_is_the_period_answered_against_it(
    engine: Engine, vocabulary: Vocabulary
) -> None:
    """ "How'd that compare with 2016?" after 2017's profit: 2017 against 2016, not 2016 against 2015;
    "which day…, and how many that day?" asks for its own day, not the period before."""
    _, last = engine.span()
    before = {"window": {"start": "2017-01-01", "end": "2017-12-31"}, "metrics": ["profit"]}
    compared = read_semantic("How'd that compare with 2016?", engine.model, vocabulary, last, before)
    assert compared.arguments["window"] == before["window"]
    assert compared.arguments["compare"] == {"start": "2016-01-01", "end": "2016-12-31"}
    day = read_semantic(
        "Which single day had the most orders, and how many were there that day?",
        engine.model,
        vocabulary,
        last,
        before,
    )
    assert "window" not in day.arguments and day.arguments["group_by"][0]["grain"] == "day"


def test_cancelled_orders_left_out_or_counted_with_their_value_on_a_status_file(tmp_path: Path) -> None:
    """A file that marks a refund by a status: "excluding cancelled orders" and "don't count refunds"
    keep the orders of every other status; "how many were refunded, and how much was on them?" is
    the refunded orders' own value, not all revenue; "don't count" is no customer's recency."""
    shop, vocabulary, last = _shop(
        tmp_path / "shop.csv",
        "Order ID,Created at,Financial Status,Lineitem price,Lineitem quantity,Total\n"
        "#1001,2024-01-02,paid,10.00,1,10.00\n#1002,2024-01-03,refunded,20.00,1,20.00\n"
        "#1003,2024-01-04,paid,30.00,2,60.00\n",
        known={"order": "Order ID", "line_total": "Total"},
    )

    def figures(question: str) -> list[Any]:
        reading = read_semantic(question, shop.model, vocabulary, last, None)
        assert reading.covered, reading
        return list(shop.run(SemanticQuery.model_validate(reading.arguments)).rows[0])

    assert figures("total revenue excluding cancelled orders") == [70]
    assert figures("revenue in 2024, don't count refunds") == [70]
    assert figures("how many orders got cancelled, and how much $ was on them?") == [1, 20]
    kept = read_semantic("total revenue excluding cancelled orders", shop.model, vocabulary, last, None)
    which = read_semantic("and how many cancelled orders?", shop.model, vocabulary, last, kept.arguments)
    assert shop.run(SemanticQuery.model_validate(which.arguments)).rows == [(1,)]  # not the none left


def test_per_a_column_and_biggest_first_are_breakdowns_of_every_group(
    engine: Engine, vocabulary: Vocabulary
) -> None:
    """ "revenue per region" is revenue by region (not the ratio *Revenue per customer* by its first
    words); "…, biggest first" orders every region rather than naming one."""
    per = _read(engine, vocabulary, "revenue per region please")
    assert per.arguments["metrics"] == ["revenue"] and per.arguments["group_by"] == [{"column": "region"}]
    assert _read(engine, vocabulary, "revenue per customer").arguments["metrics"] == ["revenue_per_customer"]
    ordered = _read(engine, vocabulary, "revenue by region, biggest first")
    assert "limit" not in ordered.arguments
    assert [r[0] for r in _rows(engine, ordered)] == ["South", "West"]


def test_a_row_by_its_ordinal_place_on_a_list() -> None:
    listed = ("customer_id", ["14646", "18102", "17450", "14911", "12415"])
    fourth = referred_row("which customer was fourth on that list you gave me", listed)
    last = referred_row("the last one in your list", listed)
    assert fourth is not None and fourth.value == "14911"
    assert last is not None and last.value == "12415"
    for question in ("split the #1 by fulfilment", "what about # 1?", "and no. 1"):  # a "#" after a space too
        first = referred_row(question, listed)
        assert first is not None and first.value == "14646", question


def test_the_lowest_of_a_one_row_ranking_is_the_other_end_not_that_row() -> None:
    """After "which month brought in the most?" (one month of 24 shown), "and the weakest one?" asks
    for the lowest month, not again for the one shown; after a top 2 too (the weakest of them all),
    but "the weakest of those" and "the bottom one" are the list's last row."""
    assert referred_row("and the weakest one", ("date@month", ["2023-12-01"])) is None
    assert referred_row("and the weakest one", ("region", ["South", "West"])) is None
    for question in ("and the weakest one of those", "and the bottom one"):
        several = referred_row(question, ("region", ["South", "West"]))
        assert several is not None and several.value == "West", question


def test_the_growth_of_a_comparison_asked_next_keeps_it(engine: Engine, vocabulary: Vocabulary) -> None:
    """ "so what's the yoy growth?" after two years side by side is their change, not a yearly series;
    "ytd" is the data's latest year."""
    previous = _read(engine, vocabulary, "profit 2016 vs 2017").arguments
    for question in ("so what's the yoy growth?", "what was the growth?"):
        growth = _read(engine, vocabulary, question, previous)
        assert growth.covered and growth.arguments == previous, question
    assert _read(engine, vocabulary, "profit ytd").arguments["window"] == {
        "start": "2017-01-01",
        "end": "2017-12-31",
    }


def test_a_whole_question_after_another_is_no_follow_up_of_it(engine: Engine, vocabulary: Vocabulary) -> None:
    """ "…of orders that aren't Furniture" names what it averages over, with "that" as a relative
    pronoun, and "how many chairs were sold across all regions?" asks a count of its own: neither
    keeps the region of the question before, nor counts orders as a second figure."""
    previous = _read(engine, vocabulary, "profit in the South").arguments
    averaged = _read(engine, vocabulary, "average discount of orders that aren't Furniture?", previous)
    assert averaged.arguments == {
        "metrics": ["average_discount"],
        "filters": [{"column": "category", "op": "not_in", "values": ["Furniture"]}],
    }
    chairs = _read(engine, vocabulary, "how many chairs were sold across all regions?", previous)
    assert chairs.arguments["filters"] == [{"column": "sub_category", "op": "in", "values": ["Chairs"]}]
    assert "group_by" not in chairs.arguments and not chairs.arguments.get("count")
    assert _read(engine, vocabulary, "how many orders was that?", chairs.arguments).follow_up


def test_periods_and_names_counted_are_the_ones_with_a_line(engine: Engine, vocabulary: Vocabulary) -> None:
    """ "On how many distinct days did we sell?" counts the days with a line, whatever a row word
    beside it names; "how many different customer names" counts the names."""
    days = _read(engine, vocabulary, "on how many distinct days did we sell at least one order?")
    assert days.arguments["group_by"] == [{"column": "order_date", "grain": "day"}]
    assert days.arguments["count"] is True
    assert len(_rows(engine, days)) == 5  # the five days with an order: counted by the answer
    names = _read(engine, vocabulary, "how many different customer names are there?")
    assert names.arguments.get("count") is True


def test_a_follow_up_keeps_the_range_the_groups_counted_and_the_comparison(
    engine: Engine, vocabulary: Vocabulary
) -> None:
    """After a count of lines in a range, "and how many were 0.4 or above?" is the same measure's
    range instead; after a count of the orders over 500, "how many of those…" narrows those orders
    (all of them, not the few listed); after two years compared, "and from 2015 to 2016?" compares."""
    low = _read(engine, vocabulary, "how many orders had a discount under 0.1?")
    high = _read(engine, vocabulary, "and how many were 0.4 or above?", low.arguments)
    assert high.covered and high.arguments["filters"] == [{"column": "discount", "op": "ge", "values": [0.4]}]
    counted = _read(engine, vocabulary, "how many orders were over 500?")
    assert counted.arguments["count"] is True
    listed = ("order_id", ["CA-2016-1"])  # the first of them, listed under the count
    _, last = engine.span()
    those = read_semantic(
        "how many of those were in the West?", engine.model, vocabulary, last, counted.arguments, listed
    )
    assert those.arguments["group_by"] == counted.arguments["group_by"] and those.arguments["count"] is True
    assert {f.get("column") for f in those.arguments["filters"]} == {None, "region"}
    compared = _read(engine, vocabulary, "profit 2016 vs 2017")
    earlier = _read(engine, vocabulary, "and from 2015 to 2016?", compared.arguments)
    assert (earlier.arguments["window"]["start"], earlier.arguments["compare"]["start"]) == (
        "2016-01-01",
        "2015-01-01",
    )


def test_the_last_complete_month_and_the_month_before_that(tmp_path: Path) -> None:
    """The data ends on August 7th: its last complete month is July; "and the month before that?"
    after August is July too, a window rather than a breakdown by month."""
    shop, words, last = _shop(
        tmp_path / "till.csv",
        "Order ID,Order Date,Sales\nA,2025-06-10,1\nB,2025-07-04,2\nC,2025-08-07,4\n",
    )
    complete = read_semantic("revenue in the last complete month", shop.model, words, last)
    assert complete.covered and complete.arguments["window"] == {"start": "2025-07-01", "end": "2025-07-31"}
    latest = read_semantic("revenue in the latest month", shop.model, words, last)
    before = read_semantic("and the month before that?", shop.model, words, last, latest.arguments)
    assert before.arguments == {
        "window": {"start": "2025-07-01", "end": "2025-07-31"},
        "metrics": ["revenue"],
    }


def test_which_of_the_two_ranks_the_two_listed_by_the_figure_named(
    engine: Engine, vocabulary: Vocabulary
) -> None:
    """After profit in the South and the West, "which of the two had more orders?" counts the orders
    of those two regions, not a ranking of orders."""
    both = _read(engine, vocabulary, "profit in the South and the West")
    _, last = engine.span()
    listed = ("region", ["South", "West"])
    which = read_semantic(
        "which of the two had more orders?", engine.model, vocabulary, last, both.arguments, listed
    )
    assert which.arguments["metrics"] == ["orders"] and which.arguments["group_by"] == [{"column": "region"}]


def test_a_share_of_cancellations_is_the_rate_or_the_cancelled_lines_share(tmp_path: Path) -> None:
    """With cancellations as a status, "what % of all orders got cancelled?" is the cancellation
    rate, and "what share of sales came from orders that were cancelled?" the cancelled lines' share
    of revenue, never revenue alone; "how much did we sell on …?" after another question is its own."""
    shop, words, last = _shop(
        tmp_path / "shop.csv",
        "Order ID,Order Date,Order Status,Payment,Sales\n"
        "A,2024-01-02,Completed,Cash,10\nB,2024-01-03,Cancelled,Card,30\nC,2024-01-04,Completed,Card,60\n",
    )
    rate = read_semantic("what % of all orders got cancelled?", shop.model, words, last)
    assert rate.arguments == {"metrics": ["cancellation_rate"]}
    share = read_semantic(
        "what share of sales came from orders that were cancelled?", shop.model, words, last
    )
    assert share.arguments["metrics"] == ["revenue"]
    assert {"column": "order_status", "op": "in", "values": ["Cancelled"]} in share.arguments["filters"]
    card = read_semantic("revenue from orders not paid in cash", shop.model, words, last)
    day = read_semantic("how much did we sell on january 3 2024?", shop.model, words, last, card.arguments)
    assert "filters" not in day.arguments and not day.follow_up


def test_who_does_a_thing_names_its_column_and_an_aside_is_plain(tmp_path: Path) -> None:
    """ "card payers" are the payments by card; "…the most money tho?" asks the same as without it."""
    shop, words, last = _shop(
        tmp_path / "shop.csv",
        "Order ID,Order Date,Payment Method,Product,Sales\n"
        "A,2024-01-02,Credit Card,Latte,10\nB,2024-01-03,Cash,Tea,30\n",
    )
    payers = read_semantic("revenue from credit card payers", shop.model, words, last)
    assert payers.arguments["filters"] == [
        {"column": "payment_method", "op": "in", "values": ["Credit Card"]}
    ]
    tho = read_semantic("which product makes us the most money tho?", shop.model, words, last)
    assert tho.covered and tho.arguments["limit"] == 1


def test_a_lead_in_names_what_the_question_points_back_to(tmp_path: Path) -> None:
    """ "their", "there" and "its" in the asked sentence point back to what the lead-in named: it is
    kept as the question's own condition; without such a word, or against a value of the same column
    the question names, the lead-in is no condition of it."""
    shop, words, last = _shop(
        tmp_path / "sheet.csv",
        "Invoice Date,Retailer,Region,Units Sold,Total Sales\n"
        "2021-01-04,Walmart,Northeast,5,50\n2021-02-05,Kohl's,West,7,70\n2021-04-06,Walmart,West,9,90\n",
        known={"line_total": "Total Sales"},
    )

    def read(question: str) -> Any:
        return read_semantic(question, shop.model, words, last)

    walmart = read("got a meeting with the Walmart buyer tmrw. what were their total sales in 2021?")
    assert walmart.covered and walmart.arguments["filters"] == [
        {"column": "retailer", "op": "in", "values": ["Walmart"]}
    ]
    there = read("I look after the Northeast region. What did we do in total sales there in 2021?")
    assert there.covered and there.arguments["filters"] == [
        {"column": "region", "op": "in", "values": ["Northeast"]}
    ]
    assert not read("got a meeting with the Walmart buyer tmrw. what were total sales in 2021?").covered
    assert not read("got a meeting with the Walmart buyer. what were their sales at Kohl's?").covered
    existential = read("got a meeting with the Walmart buyer. are there sales in the West?")
    assert not existential.covered
    for kohls in ("sales at Kohl's", "sales at kohl\u2019s", "kohls sales"):  # a possessive in a name
        assert read(kohls).arguments["filters"] == [{"column": "retailer", "op": "in", "values": ["Kohl's"]}]


_STORES = (
    "Invoice Date,Retailer,State,City,Units Sold,Total Sales\n"
    '2021-01-04,Walmart,Texas,Houston,5,"$25,000,000"\n2021-02-05,Walmart,Texas,Dallas,7,"$1,000"\n'
    "2021-04-06,Kohl's,Ohio,Columbus,9,\"$3,000,000\"\n2021-04-07,Kohl's,Texas,Houston,2,$200\n"
    "2021-05-06,Amazon,Ohio,Columbus,1,$250\n"
)


def test_a_dimension_is_counted_as_a_figure_of_its_own(tmp_path: Path) -> None:
    """How many different values a dimension has is a figure like any other: two asked at once, by
    another dimension, or ranked; a dimension with values of its own named is no count."""
    shop, words, last = _shop(tmp_path / "stores.csv", _STORES, known={"line_total": "Total Sales"})

    def rows(question: str) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
        reading = read_semantic(question, shop.model, words, last)
        assert reading.covered, (question, reading)
        return reading.arguments, shop.run(SemanticQuery.model_validate(reading.arguments)).rows

    for question in ("how many retailers and how many states?", "how many retailers, states and cities?"):
        arguments, found = rows(question)
        assert (
            arguments["metrics"][:2] == ["number_of_retailer", "number_of_state"]
            and "group_by" not in arguments
        )
        assert found[0][:2] == (3, 2)
    arguments, found = rows("which retailer sells in the most states?")
    assert (arguments["group_by"], arguments["limit"]) == ([{"column": "retailer"}], 1)
    assert found == [("Kohl's", 2)]
    arguments, found = rows("how many cities does each retailer sell in?")
    assert arguments["metrics"] == ["number_of_city"] and sorted(found) == [
        ("Amazon", 1),
        ("Kohl's", 2),
        ("Walmart", 2),
    ]
    assert shop.model.metric("number_of_city").title == "Number of cities"
    arguments, _ = rows("how many states do we sell in?")  # one count alone: the states, counted and listed
    assert arguments["count"] is True and arguments["group_by"] == [{"column": "state"}]
    arguments, _ = rows("which retailer sold the most units?")
    assert arguments["metrics"] == ["units_sold"]


def test_a_range_of_each_things_figure_said_with_its_scale(tmp_path: Path) -> None:
    """ "states with sales over 20 million": each state's sales, its scale and separators read;
    counted, listed or taken together as asked; "lines with sales over 200k" are the lines'."""
    shop, words, last = _shop(tmp_path / "stores.csv", _STORES, known={"line_total": "Total Sales"})

    def read(question: str) -> dict[str, Any]:
        reading = read_semantic(question, shop.model, words, last)
        assert reading.covered, (question, reading)
        return reading.arguments

    over = [{"metric": "revenue", "op": "gt", "values": [20_000_000.0]}]
    counted = read("how many states have sales over 20 million?")
    assert (counted["filters"], counted["count"], counted["group_by"]) == (over, True, [{"column": "state"}])
    listed = read("which states had total sales above 20m in 2021?")
    assert listed["filters"] == over and "count" not in listed and "together" not in listed
    assert read("total sales from states with sales over $20,000,000")["together"] is True
    lines = read("how many lines had total sales over 200k?")
    assert lines["filters"] == [{"column": "total_sales", "op": "gt", "values": [200_000.0]}]
    assert "group_by" not in lines


def test_a_range_of_each_periods_or_groups_figure_said_either_way(tmp_path: Path) -> None:
    """ "which months had sales over 2 million?", "which months had more than 6 units sold?": each
    month's figure ranged, every month that passes listed (never a line's amount, never one month);
    counted or taken together when asked; "came from Q2" is Q2's, no "since"."""
    shop, words, last = _shop(tmp_path / "stores.csv", _STORES, known={"line_total": "Total Sales"})

    def rows(question: str) -> list[tuple[Any, ...]]:
        reading = read_semantic(question, shop.model, words, last)
        assert reading.covered, (question, reading)
        return shop.run(SemanticQuery.model_validate(reading.arguments)).rows

    with shop:
        months = [r[0].month for r in rows("which months had sales over 2 million?")]
        assert sorted(months) == [1, 4]
        assert sorted(r[0].month for r in rows("which months had more than 6 units sold?")) == [2, 4]
        assert sorted(r[0].month for r in rows("months where units were above 6")) == [2, 4]
        assert sorted(r[0] for r in rows("how many retailers had over 2000000 in sales?")) == [
            "Kohl's",
            "Walmart",
        ]
        assert rows("sales from retailers with more than 6 units")[0][0] == 28_001_200.0
        share = rows("what % of 2021 sales came from Q2?")[0]
        assert round(share[1] * 100, 2) == round(3_000_450 / 28_001_450 * 100, 2)


_PIZZAS = (
    "order_id,order_date,quantity,unit_price,total_price,pizza_size,pizza_category,pizza_ingredients,pizza_name\n"
    '1,2015-01-01,2,10,20,L,Veggie,"Mushrooms, Garlic, Tomatoes",The Garden Pizza\n'
    '1,2015-01-01,1,8,8,S,Classic,"Pepperoni, Garlic",The Pepperoni Pizza\n'
    '2,2015-02-01,3,9,27,M,Classic,"Pepperoni, Mushrooms",The Pepperoni Pizza\n'
    '3,2015-03-01,1,12,12,XL,Veggie,"Spinach, Feta",The Greek Pizza\n'
)


def test_what_a_shop_sells_by_its_own_noun_sizes_and_lists_of_ingredients(tmp_path: Path) -> None:
    """A shop's own noun for its products ("pizzas") counts what was sold and is the subject of a
    figure, not a breakdown; a size column's letters are said as words; a column of lists holds
    the item asked for, or not; an adverb and an analyst's shorthand read."""
    path = tmp_path / "pizzas.csv"
    path.write_text(_PIZZAS)
    preview = inspect_csv(path)
    assert preview.mapping["description"] == "pizza_name" and preview.mapping["line_total"] == "total_price"
    known = {"order": "order_id", "product_name": "pizza_name", "time": "order_date", "quantity": "quantity"}
    known |= {"unit_price": "unit_price", "line_total": "total_price"}
    model = suggest_model(profile_csv(path), "Pizzas", known=known)
    shop = Engine(model, path)
    words, last = Vocabulary(model, shop.words()), shop.span()[1]

    def read(question: str) -> dict[str, Any]:
        reading = read_semantic(question, model, words, last)
        assert reading.covered, (question, reading)
        return reading.arguments

    def figure(question: str) -> Any:
        return shop.run(SemanticQuery.model_validate(read(question))).rows[0][0]

    assert figure("how many pizzas did we sell?") == 7
    assert figure("how many large pizzas did we sell?") == 2
    assert figure("how many different pizzas do we have?") == 3
    assert round(figure("on average how many pizzas are in an order?"), 2) == 2.33
    assert read("What % of our revenue comes from Veggie pizzas?")["metrics"] == ["revenue"]
    assert figure("revenue from pizzas that have mushrooms") == 47
    assert figure("how many pizzas did we sell that don't have pepperoni?") == 3
    assert figure("how many different pizzas on the menu contain garlic") == 2
    top = read("which pizza sold the most units?")
    assert (top["group_by"], top["limit"]) == ([{"column": "pizza_name"}], 1)
    assert read("For large pizzas specifically, which month brings in the most revenue?")["limit"] == 1
    assert read("qtr by qtr revenue for 2015")["group_by"][0]["grain"] == "quarter"
    worst = read("whats the worst seller by number of pizzas sold")  # a ranking's count, no count asked
    assert (worst["metrics"], worst["group_by"], worst["order"]) == (
        ["units"],
        [{"column": "pizza_name"}],
        "asc",
    )


def test_a_marketplace_reports_words_cancelled_a_city_called_city_and_chatter(tmp_path: Path) -> None:
    """ "Cancelled", a status and a courier's status alike, is the status that marks cancellations;
    "which city" is the column even where one city is written "City"; a lead-in that names nothing
    exactly is chatter, even when a word of it is part of some name ("seller" of "Returned to Seller")."""
    shop, words, last = _shop(
        tmp_path / "report.csv",
        "Order ID,Date,Status,Courier Status,Amount,ship-city,ship-state\n"
        "A1,2022-04-30,Shipped,Shipped,100,PUNE,MAHARASHTRA\nA2,2022-04-30,Cancelled,Cancelled,50,City,KERALA\n"
        "A3,2022-05-01,Shipped - Returned to Seller,Shipped,70,PUNE,MAHARASHTRA\n"
        "A4,2022-05-02,Cancelled,Unshipped,20,KOCHI,KERALA\n",
        known={"order": "Order ID", "line_total": "Amount"},
    )

    def read(question: str) -> Any:
        reading = read_semantic(question, shop.model, words, last)
        assert reading.covered, (question, reading)
        return reading

    assert shop.model.cancellation is not None and shop.model.cancellation.column == "status"
    assert read("how many orders were cancelled?").arguments["metrics"] == ["cancelled_orders"]
    cancelled = read("how many order lines were cancelled?").arguments["filters"]
    assert cancelled == [{"column": "status", "op": "in", "values": ["Cancelled"]}]
    kept = read("revenue excluding cancelled").arguments["filters"]
    assert kept == [{"column": "status", "op": "not_in", "values": ["Cancelled"]}]
    assert read("which city generates the most revenue for us").arguments["group_by"] == [
        {"column": "ship_city"}
    ]
    chatter = read("boss wants numbers for the seller meeting. which 5 states brought in the most revenue?")
    assert "filters" not in chatter.arguments and chatter.aside == ["boss", "meeting"]
    claimed = read("my boss reckons KERALA is our #2 state. can you rank the states by revenue?")
    assert "filters" not in claimed.arguments  # what someone holds is context, not a condition
    assert claimed.arguments["group_by"] == [{"column": "ship_state"}]
    introduced = read("hi, Tomasz from rev ops here. how many orders were cancelled?")  # who asks: no figure
    assert introduced.arguments["metrics"] == ["cancelled_orders"]
    row = read_semantic(  # a lead-in that is a row of the list before is no chatter
        "the 2nd one on that list — what was its revenue?",
        shop.model,
        words,
        last,
        chatter.arguments,
        ("ship_state", ["MAHARASHTRA", "KERALA"]),
    )
    assert {"column": "ship_state", "op": "in", "values": ["KERALA"]} in row.arguments["filters"]
    assert shop.parents(shop.model.column("status")) == []  # a status is no name: never "which one?"
    assert not read_semantic("avg number of days from order to delivery?", shop.model, words, last).covered
    assert read("whats our total revenue across teh whole file? all statuses").arguments["metrics"] == [
        "revenue"
    ]
    assert read("how many lines still have courier status = unshipped").arguments["filters"] == [
        {"column": "courier_status", "op": "in", "values": ["Unshipped"]}
    ]


def test_days_between_two_dates_are_named_by_the_two(tmp_path: Path) -> None:
    shop, words, last = _shop(
        tmp_path / "orders.csv",
        "Order ID,Order Date,Ship Date,Ship Mode,Sales\nA1,2017-01-02,2017-01-05,First,10\n"
        "A2,2017-01-03,2017-01-10,Standard,20\n",
    )
    for question in (
        "average days from order to ship",
        "how many days between order and shipping by ship mode?",
    ):
        reading = read_semantic(question, shop.model, words, last)
        assert reading.covered and reading.arguments["metrics"] == ["days_to_ship"], reading
    assert read_semantic(
        "how many days between order and shipping by ship mode?", shop.model, words, last
    ).arguments["group_by"] == [{"column": "ship_mode"}]
    assert not read_semantic("days from order to delivery", shop.model, words, last).covered


def test_a_sheets_words_for_its_columns_and_a_ranking_changed_by_a_follow_up(tmp_path: Path) -> None:
    """ "how much … sold" is money ("sold" alone does not name *Units Sold*); "the peak month" is the
    highest; a sales method is a channel; a lead-in set off by a dash is left out; and a follow-up
    that asks another figure ranks by it, not by the one before."""
    shop, words, last = _shop(
        tmp_path / "sheet.csv",
        "Invoice Date,Retailer,City,Sales Method,Units Sold,Total Sales\n"
        "2021-01-04,Walmart,Portland,Online,5,50\n2021-02-05,Kohl's,Boston,In-store,7,70\n"
        "2021-04-06,Walmart,Boston,Outlet,9,90\n",
        known={"line_total": "Total Sales"},
    )

    def read(question: str, previous: Any = None) -> dict[str, Any]:
        reading = read_semantic(question, shop.model, words, last, previous)
        assert reading.covered, (question, reading)
        return reading.arguments

    assert read("how much has Portland sold in total?")["metrics"] == ["revenue"]
    assert read("2021 sales but leave out the Online channel")["filters"] == [
        {"column": "sales_method", "op": "not_in", "values": ["Online"]}
    ]
    peak = read("switching gears for a sec — which month was the peak for total sales?")
    assert (peak["group_by"], peak["limit"]) == ([{"column": "invoice_date", "grain": "month"}], 1)
    units = read("and units sold in Q1 2021?", read("which quarter had the highest total sales in 2021?"))
    assert units["metrics"] == [units["order_by"]] and units["order_by"].startswith("units")


def test_a_value_that_is_a_ranking_word_is_the_value_only_beside_its_column(tmp_path: Path) -> None:
    """A clothes shop's category "Top": "top 2 states by sales" ranks states, "the Top category" and
    "tops" are the category's."""
    shop, words, last = _shop(
        tmp_path / "clothes.csv",
        (
            "Order ID,Date,Category,State,Sales\n"
            "1,2024-01-02,Top,Goa,10.00\n2,2024-01-03,Set,Kerala,30.00\n3,2024-01-04,Set,Delhi,20.00\n"
        ),
    )
    ranked = read_semantic("top 2 states by sales", shop.model, words, last).arguments
    assert "filters" not in ranked and ranked["limit"] == 2
    for question in ("sales of the Top category", "how much did tops sell?"):
        named = read_semantic(question, shop.model, words, last).arguments
        assert named["filters"] == [{"column": "category", "op": "in", "values": ["Top"]}], question


_BIKES = (
    "Date,Country,Product_Category,Sub_Category,Status,Profit,Revenue\n"
    "2014-03-02,United States,Bikes,Road Bikes,Delivered,40,100\n"
    "2015-02-10,United States,Bikes,Mountain Bikes,Returned,10,50\n"
    "2015-08-20,Germany,Accessories,Bike Racks,Cancelled,5,30\n"
    "2016-01-15,Germany,Bikes,Road Bikes,Delivered,50,200\n"
    "2016-02-10,United States,Accessories,Bike Racks,Delivered,2,20\n"
)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("total revenue excluding 2014 and 2015?", 220.0),  # whole years left out
        ("revenue in H2 (Jul-Dec)", 30.0),  # the latest second half; the months said again
        ("gross profit in 2016?", 52.0),  # the profit (a cancellation is a status here)
        ("revenue of bike sales?", 350.0),  # "bike": the category Bikes, not every "Bike …"
        ("whats the total revenue? include everything, cancelled/returned and all", 400.0),
        ("revenue outside the US", 230.0),  # initials in capitals, though "us" is a word
        ("rev for the trailing 12 months", 250.0),  # 2015-03-01 to 2016-02-29
    ],
)
def test_periods_words_and_values_analysts_write(tmp_path: Path, question: str, expected: float) -> None:
    shop, words, last = _shop(tmp_path / "bikes.csv", _BIKES, known={"line_total": "Revenue"})
    with shop:
        reading = read_semantic(question, shop.model, words, last)
        assert reading.covered, (question, reading)
        assert shop.run(SemanticQuery.model_validate(reading.arguments)).rows[0][0] == expected, (
            reading.arguments
        )


def test_the_span_of_the_data_and_a_year_so_far_against_the_same_days_before(tmp_path: Path) -> None:
    """ "what date range does the file cover?": its first and last day; "this year so far vs the same
    period last year" (and "ytd vs last year"): both years cut at the data's last day of the year."""
    shop, words, last = _shop(tmp_path / "bikes.csv", _BIKES, known={"line_total": "Revenue"})
    with shop:
        span = read_semantic("what date range does the file actually cover?", shop.model, words, last)
        assert span.covered and span.arguments["metrics"] == ["first_date", "last_date"]
        for question in ("this year so far vs same period last yr, revenue?", "revenue ytd vs last year"):
            so_far = read_semantic(question, shop.model, words, last).arguments
            assert so_far["window"] == {"start": "2016-01-01", "end": "2016-02-10"}
            assert so_far["compare"] == {"start": "2015-01-01", "end": "2015-02-10"}
            assert shop.run(SemanticQuery.model_validate(so_far)).rows == [(220.0, 50.0)]


def test_two_values_side_by_side_are_both_shown_with_the_gap(tmp_path: Path) -> None:
    """ "Women vs men, who spends more and by how much?": both, never only the first, and how far apart."""
    shop, words, last = _shop(
        tmp_path / "clothes.csv",
        "Order ID,Date,Gender,Sales\n"
        "1,2024-01-02,Women,30.00\n2,2024-01-03,Men,10.00\n3,2024-01-04,Women,20.00\n",
    )
    with shop:
        reading = read_semantic("Women vs men - who spends more, and by how much?", shop.model, words, last)
        query = SemanticQuery.model_validate(reading.arguments)
        assert "limit" not in reading.arguments
        text = render(shop.model, query, shop.run(query))
        assert "1. Women: 50.00" in text and "2. Men: 10.00" in text
        assert "Women is ahead of Men on revenue by 40.00 (400.00%)." in text


_CHANNELS = (
    "Order ID,Cust ID,Date,Channel,Age Group,Gender,Size,B2B,Amount\n"
    "1,11,2022-01-04,Amazon,Adult,Women,M,FALSE,50\n2,12,2022-02-05,Myntra,Teenager,Men,L,FALSE,30\n"
    "3,13,2022-03-06,Amazon,Senior,Women,S,TRUE,10\n4,14,2022-03-06,Ajio,Adult,Men,M,FALSE,10\n"
)


def test_follow_ups_that_ask_a_share_leave_out_the_listed_or_split_anew(tmp_path: Path) -> None:
    """A value of the breakdown a share was asked of ("and Myntra?"): its share of the whole; "as a %
    of total?" of a figure; "excluding those" the rows listed, together; "split that by gender" shows
    every gender, not the top one before; "the most" after "the fewest" ranks highest first again."""
    shop, words, last = _shop(
        tmp_path / "orders.csv", _CHANNELS, known={"order": "Order ID", "line_total": "Amount"}
    )

    def follow(first: str, then: str, listed: tuple[str, list[str]] | None = None) -> dict[str, Any]:
        before = read_semantic(first, shop.model, words, last).arguments
        reading = read_semantic(then, shop.model, words, last, before, listed)
        assert reading.covered, (then, reading)
        return reading.arguments

    with shop:
        myntra = follow(
            "which channel brings in the most revenue, and what share of total is it?", "what about Myntra?"
        )
        assert myntra["filters"] == [{"column": "channel", "op": "in", "values": ["Myntra"]}]
        assert shop.run(SemanticQuery.model_validate(myntra)).rows == [(30.0, 0.3, 100.0)]
        share = follow("how much revenue came from Amazon?", "as a % of total?")
        assert shop.run(SemanticQuery.model_validate(share)).rows == [(60.0, 0.6, 100.0)]
        rest = follow(
            "top 2 channels by revenue", "and everything excluding those?", ("channel", ["Amazon", "Myntra"])
        )
        assert "group_by" not in rest and shop.run(SemanticQuery.model_validate(rest)).rows == [(10.0,)]
        split = follow("revenue from customers who aren't in the Adult age group?", "split that by gender")
        assert "limit" not in split and split["group_by"] == [{"column": "gender"}]
        most = follow("which size sells the fewest units?", "and within Amazon, which size sells the most?")
        assert most.get("order", "desc") == "desc"


def test_a_column_of_yes_and_no_is_what_the_lines_are_or_a_breakdown(tmp_path: Path) -> None:
    """ "B2B orders" are the lines marked so, "non-B2B" the others, "by B2B" both."""
    shop, words, last = _shop(
        tmp_path / "orders.csv", _CHANNELS, known={"order": "Order ID", "line_total": "Amount"}
    )
    with shop:
        for question, expected in (
            ("how much revenue came from B2B orders?", 10.0),
            ("non-B2B revenue", 90.0),
            ("revenue of orders that had a B2B", 10.0),  # a flag is had when it says yes, not when written
        ):
            reading = read_semantic(question, shop.model, words, last)
            assert shop.run(SemanticQuery.model_validate(reading.arguments)).rows == [(expected,)], question
        assert read_semantic("revenue by b2b", shop.model, words, last).arguments["group_by"] == [
            {"column": "b2b"}
        ]


def test_gross_is_a_name_s_word_when_the_file_has_one(tmp_path: Path) -> None:
    """A till's own "gross income" is that column; a "gross profit" of a file without one is its profit."""
    shop, words, last = _shop(
        tmp_path / "till.csv",
        "Invoice ID,Date,Total,gross income\nA-1,2024-01-02,100.00,4.76\nA-2,2024-01-03,50.00,2.38\n",
        known={"order": "Invoice ID", "line_total": "Total"},
    )
    with shop:
        reading = read_semantic("what's the gross income?", shop.model, words, last)
        assert reading.arguments["metrics"] == ["gross_income"]


_MALLS = (
    "invoice_no,customer_id,gender,age,category,quantity,price,payment_method,invoice_date,shopping_mall\n"
    "I1,C1,Female,22,Clothing,2,600.16,Cash,5/1/2022,Kanyon\n"
    "I2,C2,Male,35,Food & Beverage,1,5.23,Credit Card,6/1/2022,Forum Istanbul\n"
    "I3,C3,Female,47,Clothing,1,300.08,Debit Card,15/2/2022,Metrocity\n"
    "I4,C4,Male,63,Food & Beverage,3,15.69,Cash,20/3/2022,Kanyon\n"
    "I5,C5,Female,29,Shoes,1,600.17,Credit Card,2/4/2022,Metrocity\n"
    "I6,C6,Male,71,Shoes,2,1200.34,Cash,9/5/2022,Forum Istanbul\n"
)
"""A mall chain's export: an age of each customer, a category of several words, dates day first."""


def test_ages_said_as_people_say_them_and_bands_side_by_side(tmp_path: Path) -> None:
    """ "60 or older", "the under-30s", "in their 40s", "25-34 year olds" are ranges of the age; "which
    age group spends the most: 18-29, 30-44, 45-59 or 60+?" breaks the answer down by those bands,
    listed as said (a bare "5+" is no age)."""
    shop, words, last = _shop(
        tmp_path / "malls.csv", _MALLS, known={"order": "invoice_no", "line_total": "price"}
    )

    def rows(question: str) -> list[tuple[Any, ...]]:
        reading = read_semantic(question, shop.model, words, last)
        assert reading.covered, (question, reading)
        return shop.run(SemanticQuery.model_validate(reading.arguments)).rows

    with shop:
        assert rows("how many custmers are 60 or older?") == [(2,)]
        assert rows("revenue from the under 30s") == [(1200.33,)]
        assert rows("orders from customers in their 40s") == [(1,)]
        assert rows("revenue from 25-34 year olds") == [(600.17,)]
        assert rows("which age group spends the most: 18-29, 30-44, 45-59 or 60+?") == [("60+", 1216.03)]
        banded = read_semantic("revenue by age band 18-29, 30-44, 45-59, 60+", shop.model, words, last)
        query = SemanticQuery.model_validate(banded.arguments)
        text = render(shop.model, query, shop.run(query))
        assert text.splitlines()[:5] == [
            "Revenue by age band, all time:",
            "1. 18-29: 1,200.33",
            "2. 30-44: 5.23",
            "3. 45-59: 300.08",
            "4. 60+: 1,216.03",
        ]
        assert not read_semantic("units of orders with 5+ items", shop.model, words, last).covered


def test_values_left_out_as_a_list_and_initials_joined_by_an_ampersand(tmp_path: Path) -> None:
    """ "everything but cash"; "outside the two big ones, Kanyon and Metrocity": every value of the list
    after the cue is left out; "f&b" is Food & Beverage."""
    shop, words, last = _shop(
        tmp_path / "malls.csv", _MALLS, known={"order": "invoice_no", "line_total": "price"}
    )
    with shop:
        cash = {"column": "payment_method", "op": "not_in", "values": ["Cash"]}
        two = {"column": "shopping_mall", "op": "not_in", "values": ["Kanyon", "Metrocity"]}
        food = {"column": "category", "op": "in", "values": ["Food & Beverage"]}
        not_kanyon = {"column": "shopping_mall", "op": "not_in", "values": ["Kanyon"]}
        for question, expected in (
            ("total revenue from everything but cash?", [cash]),
            ("rev outside the two big ones, Kanyon and Metrocity?", [two]),
            ("f&b revenue excluding Kanyon?", [food, not_kanyon]),
        ):
            reading = read_semantic(question, shop.model, words, last)
            assert reading.covered and reading.arguments["filters"] == expected, question


def test_periods_said_as_a_span_or_a_count_of_whole_ones(tmp_path: Path) -> None:
    """ "across 2021-2022" is one span (never 2022 vs 2021); "the last 3 full months" the three whole
    months before the data's last, cut short one; "bottom 2 months" ranks months, no duration."""
    shop, words, last = _shop(
        tmp_path / "malls.csv", _MALLS, known={"order": "invoice_no", "line_total": "price"}
    )
    with shop:
        span = read_semantic("revenue in 2021-2022", shop.model, words, last).arguments
        assert span["window"] == {"start": "2021-01-01", "end": "2022-12-31"} and "compare" not in span
        full = read_semantic("revenue over the last 3 full months?", shop.model, words, last).arguments
        assert full["window"] == {"start": "2022-02-01", "end": "2022-04-30"}
        bottom = read_semantic("bottom 2 months by revenue across 2021-2022?", shop.model, words, last)
        assert bottom.covered and bottom.arguments["limit"] == 2 and bottom.arguments["order"] == "asc"


def test_follow_ups_compare_the_two_answers_before_or_rank_the_other_end(tmp_path: Path) -> None:
    """ "so what's the % change?" after two periods asked one by one compares them; "and the weakest
    one?" after a top 2 is the bottom of the whole ranking, "the weakest one of those" the listed one."""
    shop, words, last = _shop(
        tmp_path / "malls.csv", _MALLS, known={"order": "invoice_no", "line_total": "price"}
    )
    with shop:
        q1 = read_semantic("revenue in Q1 2022", shop.model, words, last).arguments
        q2 = read_semantic("and Q2 2022?", shop.model, words, last, q1).arguments
        change = read_semantic(
            "so what's the % change", shop.model, words, last, q2, None, q2["window"], q1["window"]
        ).arguments
        assert (change["window"], change["compare"]) == (q2["window"], q1["window"])
        top = read_semantic("top 2 malls by revenue", shop.model, words, last).arguments
        listed = ("shopping_mall", ["Forum Istanbul", "Metrocity"])
        weakest = read_semantic("and the weakest one?", shop.model, words, last, top, listed).arguments
        assert (weakest["order"], weakest["limit"]) == ("asc", 1)
        assert shop.run(SemanticQuery.model_validate(weakest)).rows == [("Kanyon", 615.85)]
        those = read_semantic("the weakest one of those?", shop.model, words, last, top, listed).arguments
        assert those["filters"] == [{"column": "shopping_mall", "op": "in", "values": ["Metrocity"]}]


def test_months_of_every_year_left_out_and_one_period_left_out_declined(tmp_path: Path) -> None:
    """ "excluding february, what was 2022 revenue?": the month of every date; "excluding February
    2022" leaves one period out of the rest, which no window says: declined, never read as that month."""
    shop, words, last = _shop(
        tmp_path / "malls.csv", _MALLS, known={"order": "invoice_no", "line_total": "price"}
    )
    with shop:
        reading = read_semantic("excluding february, what was 2022 revenue?", shop.model, words, last)
        assert reading.arguments["filters"] == [
            {"column": "invoice_date", "part": "month", "op": "not_in", "values": [2]}
        ]
        assert shop.run(SemanticQuery.model_validate(reading.arguments)).rows == [(2421.59,)]
        text = render(shop.model, SemanticQuery.model_validate(reading.arguments), shop.run(
            SemanticQuery.model_validate(reading.arguments)))  # fmt: skip
        assert text == "Revenue, not in February, 2022: 2,421.59."
        assert not read_semantic("revenue excluding February 2022", shop.model, words, last).covered


def test_a_name_said_short_is_its_value_or_a_choice_between_them(tmp_path: Path) -> None:
    """ "Metro" begins two malls' names: which is asked, never guessed; "Shoe" begins one category's."""
    shop, words, last = _shop(
        tmp_path / "malls.csv",
        _MALLS.replace("Forum Istanbul", "Metropol AVM"),
        known={"order": "invoice_no", "line_total": "price"},
    )
    with shop:
        metro = read_semantic("how did Metro do in 2022?", shop.model, words, last)
        assert not metro.covered and metro.left == ["metro"]
        assert [m.value for m in metro.ambiguous["metro"]] == ["Metrocity", "Metropol AVM"]
        one = read_semantic("revenue from Shoe in 2022", shop.model, words, last)
        assert one.arguments["filters"] == [{"column": "category", "op": "in", "values": ["Shoes"]}]


_CHOCOLATE = (
    "Sales Person,Country,Product,Date,Amount,Boxes Shipped\n"
    "Jehu Rudeforth,UK,50% Dark Bites,2022-01-04,5320,180\n"
    "Van Tuxwell,India,70% Dark Bites,2022-08-01,7896,94\n"
    "Gigi Bohling,USA,Almond Choco,2022-07-14,4501,91\nVan Tuxwell,USA,50% Dark Bites,2022-07-15,1000,10\n"
)
"""A chocolate maker's shipments: no order number (a line is a shipment), boxes counted, no price."""


def test_what_a_quantity_counts_names_the_units_and_the_lines(tmp_path: Path) -> None:
    """ "Boxes Shipped": "how many boxes" are the units, "shipments" the lines, "revenue per box" the
    revenue over the units; "outside the US" of a file writing "USA"; "avg deal size" the order value;
    "bottom 2?" after a ranking is that ranking, lowest first; "who" of a file without customers asks
    about its sales people."""
    shop, words, last = _shop(
        tmp_path / "chocolate.csv", _CHOCOLATE, known={"quantity": "Boxes Shipped", "line_total": "Amount"}
    )

    def rows(question: str, previous: Any = None) -> list[tuple[Any, ...]]:
        reading = read_semantic(question, shop.model, words, last, previous)
        assert reading.covered, (question, reading)
        return shop.run(SemanticQuery.model_validate(reading.arguments)).rows

    with shop:
        assert rows("how many boxes went out?") == [(375,)]
        assert rows("how many shipments are in the file?") == [(4,)]
        assert rows("whats the average revenue per box?") == [(18717 / 375,)]
        assert rows("total revnue outside the US?") == [(13216,)]
        assert rows("avg deal size for Van Tuxwell?") == [(4448.0,)]
        top = read_semantic("top 2 products by rev", shop.model, words, last).arguments
        assert rows("bottom 2?", top) == [("Almond Choco", 4501), ("50% Dark Bites", 6320)]
        assert rows("who had the highest revenue?") == [("Van Tuxwell", 8896)]  # no customers: the people


def test_a_period_said_without_its_year_takes_the_year_said_or_answered(tmp_path: Path) -> None:
    """ "H1 vs H2 2022" compares the two halves of 2022; "how does that compare to Q1?" after Q2 2022
    is Q1 2022; "outside of Q4" leaves its three months out of every year; "customers under 25" are
    under that age; a lead-in before a colon is chatter ("for the weekly review: …")."""
    shop, words, last = _shop(
        tmp_path / "malls.csv", _MALLS, known={"order": "invoice_no", "line_total": "price"}
    )
    with shop:
        halves = read_semantic("rev growth H1 vs H2 2022?", shop.model, words, last).arguments
        assert halves["window"] == {"start": "2022-07-01", "end": "2022-12-31"}
        assert halves["compare"] == {"start": "2022-01-01", "end": "2022-06-30"}
        q2 = read_semantic("for the weekly review: revenue in Q2 2022?", shop.model, words, last)
        assert q2.covered and q2.arguments["window"] == {"start": "2022-04-01", "end": "2022-06-30"}
        q1 = read_semantic("how does that compare to Q1?", shop.model, words, last, q2.arguments).arguments
        assert q1["compare"] == {"start": "2022-01-01", "end": "2022-03-31"}
        outside = read_semantic("orders in 2022 outside of Q1", shop.model, words, last).arguments
        assert outside["filters"] == [
            {"column": "invoice_date", "part": "month", "op": "not_in", "values": [1, 2, 3]}
        ]
        young = read_semantic("how many transactions from customers under 25?", shop.model, words, last)
        assert young.arguments["filters"] == [{"column": "age", "op": "lt", "values": [25.0]}]

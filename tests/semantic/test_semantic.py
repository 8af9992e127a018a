"""The semantic model from a file, the typed query, its SQL and DuckDB's answers, on small files in
the layouts of two real exports: a store export with line totals, text customer keys, categories,
regions and profit (the Superstore sample's layout, dates as m/d/Y: ``data/store.csv``); the Online
Retail files' layout
(quantity times unit price, numeric customer keys, a guest checkout: ``data/online_retail.csv``).
Every truth here is worked out by hand from those rows."""

from __future__ import annotations

import ast
from datetime import date
from pathlib import Path

import pytest
from pydantic import ValidationError

from agent_orchestrator.errors import InvalidInputError
from agent_orchestrator.semantic import (
    Engine,
    Entity,
    Filter,
    GroupBy,
    Kind,
    Role,
    SemanticModel,
    SemanticQuery,
    Vocabulary,
    Whole,
    Window,
    compile_query,
    profile_csv,
    query_schema,
    suggest_model,
)
from agent_orchestrator.semantic.model import ratio_name
from agent_orchestrator.semantic.profile import CsvReading
from agent_orchestrator.semantic.render import figure, placed, render
from agent_orchestrator.semantic.suggest import run_together
from agent_orchestrator.semantic.written import plain_number

DATA = Path(__file__).with_name("data")


@pytest.fixture(scope="module")
def store() -> tuple[SemanticModel, Path]:
    path = DATA / "store.csv"
    return suggest_model(profile_csv(path), "Store"), path


@pytest.fixture(scope="module")
def engine(store: tuple[SemanticModel, Path]) -> Engine:
    model, path = store
    return Engine(model, path)


def test_roles_are_suggested_from_the_header_and_the_values(store):
    model, _ = store
    roles = {c.source: (c.role, c.entity) for c in model.columns}
    assert roles["Row ID"] == (Role.ignore, None)
    assert roles["Order ID"] == (Role.key, Entity.order)
    assert roles["Order Date"][0] is Role.time and roles["Ship Date"][0] is Role.time
    assert roles["Customer ID"] == (Role.key, Entity.customer)
    assert roles["Customer Name"] == (Role.label, Entity.customer)
    assert roles["Product Name"] == (Role.label, Entity.product)
    for dimension in (
        "Ship Mode",
        "Segment",
        "City",
        "State",
        "Postal Code",
        "Region",
        "Category",
        "Sub-Category",
    ):
        assert roles[dimension] == (Role.dimension, None), dimension
    for measure in ("Sales", "Quantity", "Discount", "Profit"):
        assert roles[measure] == (Role.measure, None), measure
    assert model.column("discount").unit == "percent" and model.column("sales").unit == "money"
    assert model.column("order_date").date_format == "%m/%d/%Y"
    metrics = {m.name for m in model.metrics}
    assert {"revenue", "orders", "customers", "products", "units", "profit", "margin"} <= metrics
    assert {"average_order_value", "average_discount", "last_order_date", "first_ship_date"} <= metrics
    assert model.metric("revenue").over == "sales"  # the file's line totals, as the shop counts them


def test_revenue_orders_and_margin_by_region(engine):
    result = engine.run(
        SemanticQuery(
            metrics=["revenue", "orders", "margin"], group_by=[GroupBy(column="region")], share=True
        )
    )
    rows = {r["region"]: r for r in result.records()}
    south_revenue = 261.96 + 731.94 + 957.58 + 22.37 + 680.36
    assert rows["South"]["revenue"] == pytest.approx(south_revenue)
    assert rows["South"]["orders"] == 3
    south_profit = 41.91 + 219.58 - 383.03 + 2.52 + 170.09
    assert rows["South"]["margin"] == pytest.approx(south_profit / south_revenue)
    assert rows["West"]["revenue"] == pytest.approx(14.62 + 907.15)
    assert result.columns[0] == "region" and result.rows[0][0] == "South"  # highest revenue first
    total = south_revenue + 14.62 + 907.15
    assert rows["West"]["revenue__share"] == pytest.approx((14.62 + 907.15) / total)


def test_text_keys_are_kept_as_written_and_shown_with_their_names(engine):
    result = engine.run(
        SemanticQuery(
            metrics=["orders", "revenue"],
            group_by=[GroupBy(column="customer_id")],
            filters=[Filter(column="customer_id", op="in", values=["CG-12520"])],
        )
    )
    assert result.records() == [
        {
            "customer_id": "CG-12520",
            "customer_id__label": "Claire Gute",
            "orders": 2,
            "revenue": pytest.approx(1674.26),
        }
    ]


def test_negation_ranges_and_a_window_of_days(engine):
    outside_technology = engine.run(
        SemanticQuery(
            metrics=["revenue"], filters=[Filter(column="category", op="not_in", values=["Technology"])]
        )
    )
    assert outside_technology.rows[0][0] == pytest.approx(261.96 + 731.94 + 14.62 + 957.58 + 22.37)
    discounted_2016_on = engine.run(
        SemanticQuery(
            metrics=["lines"],
            filters=[Filter(column="discount", op="gt", values=[0])],
            window=Window(start=date(2016, 1, 1)),
        )
    )
    assert discounted_2016_on.rows[0][0] == 1  # the Seattle phone
    same_day = engine.run(
        SemanticQuery(metrics=["orders"], filters=[Filter(column="ship_mode", op="eq", values=["Same Day"])])
    )
    assert same_day.rows[0][0] == 1
    # a figure's range with no groups is of the one total: kept when it holds, nothing when not
    for op, rows in (("gt", 1), ("lt", 0)):
        total = engine.run(
            SemanticQuery(metrics=["revenue"], filters=[Filter(metric="revenue", op=op, values=[0])])
        )
        assert len(total.rows) == rows, op


def test_never_is_every_row_of_the_things_without_such_a_row(engine):
    """ "customers who never bought Furniture": an anti-join on the things' key, label or dimension
    ("states with no line in 2016": whole days of the time column), never on a figure."""
    never = Filter(column="category", op="in", values=["Furniture"], never_by="customer_id")
    result = engine.run(SemanticQuery(metrics=["customers"], filters=[never]))
    everyone = engine.run(SemanticQuery(metrics=["customers"])).rows[0][0]
    furniture = engine.run(
        SemanticQuery(metrics=["customers"], filters=[never.model_copy(update={"never_by": None})])
    ).rows[0][0]
    assert result.rows[0][0] == everyone - furniture > 0
    with pytest.raises(InvalidInputError, match="no things"):
        SemanticQuery(
            metrics=["customers"], filters=[never.model_copy(update={"never_by": "sales"})]
        ).checked(engine.model)
    in_2016 = Filter(column="order_date", op="between", values=["2016-01-01", "2016-12-31"], never_by="state")
    quiet = engine.run(
        SemanticQuery(metrics=["last_order_date"], group_by=[GroupBy(column="state")], filters=[in_2016])
    )
    assert sorted(r[0] for r in quiet.rows) == ["Florida", "Washington"]  # 2015 and 2017 only


def test_a_column_against_another_of_its_kind(engine):
    """Row by row: two dates as days, two figures; never a date against a figure, never with values."""
    late = Filter(column="ship_date", op="gt", than="order_date")
    assert engine.run(SemanticQuery(metrics=["lines"], filters=[late])).rows[0][0] == 6  # one: that day
    loss = Filter(column="profit", op="lt", than="sales")
    assert engine.run(SemanticQuery(metrics=["lines"], filters=[loss])).rows[0][0] == 7
    with pytest.raises(InvalidInputError, match="two dates or two figures"):
        SemanticQuery(
            metrics=["lines"], filters=[Filter(column="profit", op="lt", than="order_date")]
        ).checked(engine.model)
    with pytest.raises(ValueError, match="no values"):
        Filter(column="profit", op="lt", than="sales", values=[3])


def test_recency_is_a_filter_on_the_last_date_of_each_customer(engine):
    """ "Customers with no order in the last 6 months of the data" (the data ends 2017-12-30)."""
    assert engine.span() == (date(2015, 10, 11), date(2017, 12, 30))
    result = engine.run(
        SemanticQuery(
            metrics=["last_order_date"],
            group_by=[GroupBy(column="customer_id")],
            filters=[Filter(metric="last_order_date", op="lt", values=["2017-07-01"])],
            order="asc",
        )
    )
    assert [r["customer_id__label"] for r in result.records()] == ["Sean O'Donnell", "Darrin Van Huff"]


def test_a_comparison_is_the_same_metrics_over_the_earlier_window(engine):
    result = engine.run(
        SemanticQuery(
            metrics=["revenue"],
            window=Window(start=date(2017, 1, 1), end=date(2017, 12, 31)),
            compare=Window(start=date(2016, 1, 1), end=date(2016, 12, 31)),
        )
    )
    assert result.records() == [
        {"revenue": pytest.approx(907.15 + 680.36), "revenue__before": pytest.approx(261.96 + 731.94 + 14.62)}
    ]


def test_a_trend_by_month_reads_in_time_order(engine):
    result = engine.run(
        SemanticQuery(metrics=["revenue"], group_by=[GroupBy(column="order_date", grain="year")])
    )
    assert [row[0] for row in result.rows] == [date(2015, 1, 1), date(2016, 1, 1), date(2017, 1, 1)]


def test_any_two_totals_divide_into_a_ratio_the_model_need_not_declare(engine, store):
    """ "profit as % of sales", "profit per order": named by ``ratio_name``, computed from the two
    totals of each group; an average or a name the model lacks divides into nothing."""
    model, _ = store
    share, each = ratio_name("profit", "revenue", percent=True), ratio_name("profit", "orders", percent=False)
    assert (model.metric(share).title, model.metric(share).unit) == ("Profit as % of revenue", "ratio")
    assert (model.metric(each).title, model.metric(each).unit) == ("Profit per order", "money")
    result = engine.run(SemanticQuery(metrics=[share, each], group_by=[GroupBy(column="region")]))
    south = next(r for r in result.records() if r["region"] == "South")
    south_profit = 41.91 + 219.58 - 383.03 + 2.52 + 170.09
    south_revenue = 261.96 + 731.94 + 957.58 + 22.37 + 680.36
    assert south[share] == pytest.approx(south_profit / south_revenue)
    assert south[each] == pytest.approx(south_profit / 3)
    for name in (ratio_name("weather", "revenue", True), ratio_name("margin", "revenue", True)):
        with pytest.raises(InvalidInputError, match="no metric"):
            model.metric(name)


def test_a_range_of_every_period_keeps_the_groups_whose_every_period_passes(tmp_path):
    """Each month's profit, not the whole window's: a month a group has no lines in is a 0 for it,
    failing "above 0" and passing "at least 0"; the range needs groups to keep."""
    path = tmp_path / "monthly.csv"
    path.write_text(
        "Date,State,Profit\n2024-01-01,Utah,5\n2024-02-01,Utah,-1\n2024-03-01,Utah,3\n"
        "2024-01-01,Ohio,2\n2024-02-01,Ohio,2\n2024-03-01,Ohio,2\n2024-01-01,Iowa,4\n2024-03-01,Iowa,1\n"
    )
    model = suggest_model(profile_csv(path), "Monthly")
    with Engine(model, path) as engine:

        def states(op: str) -> set[str]:
            rule = Filter(metric="profit", op=op, values=[0], each="month")  # type: ignore[arg-type]
            query = SemanticQuery(metrics=["profit"], group_by=[GroupBy(column="state")], filters=[rule])
            return {r["state"] for r in engine.run(query).records()}

        assert states("gt") == {"Ohio"}
        assert states("ge") == {"Ohio", "Iowa"}
    with pytest.raises(InvalidInputError, match="of the groups"):
        compile_query(
            model,
            SemanticQuery(
                metrics=["profit"], filters=[Filter(metric="profit", op="gt", values=[0], each="month")]
            ),
        )
    with pytest.raises(ValidationError):
        Filter(column="state", op="in", values=["Utah"], each="month")


def test_a_change_since_the_earlier_window_keeps_the_groups_that_moved(engine):
    """A range of the change, not of the figure: the regions whose revenue fell from one window to
    the next; a change without a comparison is refused."""
    rule = Filter(metric="revenue", op="lt", values=[0], change=True)
    query = SemanticQuery(
        metrics=["revenue"],
        group_by=[GroupBy(column="region")],
        filters=[rule],
        window=Window(start=date(2017, 1, 1), end=date(2017, 12, 31)),
        compare=Window(start=date(2016, 1, 1), end=date(2016, 12, 31)),
    )
    assert [r["region"] for r in engine.run(query).records()] == [
        "South"
    ]  # 680.36 after 993.90; the West grew
    with pytest.raises(InvalidInputError, match="compare with"):
        engine.run(SemanticQuery(metrics=["revenue"], group_by=[GroupBy(column="region")], filters=[rule]))


def test_names_outside_the_model_are_refused_before_anything_runs(store):
    model, _ = store
    with pytest.raises(InvalidInputError, match="no metric 'weather'"):
        compile_query(model, SemanticQuery(metrics=["weather"]))
    with pytest.raises(InvalidInputError, match="no column 'colour'"):
        compile_query(model, SemanticQuery(metrics=["revenue"], group_by=[GroupBy(column="colour")]))
    with pytest.raises(InvalidInputError, match="needs a grain"):
        compile_query(model, SemanticQuery(metrics=["revenue"], group_by=[GroupBy(column="order_date")]))
    with pytest.raises(ValidationError):
        SemanticQuery(metrics=["revenue"], filters=[Filter(column="region", op="between", values=["a"])])


def test_values_a_question_brings_are_parameters_never_sql(engine):
    sneaky = "West'; DROP TABLE sales; --"
    compiled = compile_query(
        engine.model,
        SemanticQuery(metrics=["revenue"], filters=[Filter(column="region", op="in", values=[sneaky])]),
    )
    assert sneaky not in compiled.sql and compiled.params == [sneaky]
    assert engine.run(
        SemanticQuery(metrics=["revenue"], filters=[Filter(column="region", op="in", values=[sneaky])])
    ).rows == [(None,)]


def test_the_query_schema_names_only_the_models_metrics_columns_and_values(engine):
    schema = query_schema(engine.model, engine.values())
    metrics = schema["properties"]["metrics"]["items"]["enum"]
    assert "margin" in metrics and "weather" not in metrics
    by_column, by_period = schema["properties"]["group_by"]["items"]["anyOf"]
    assert {"region", "category", "sub_category", "customer_id"} <= set(
        by_column["properties"]["column"]["enum"]
    )
    assert "grain" not in by_column["properties"]  # a grain only with a date column, and always with one
    assert by_period["properties"]["column"]["enum"] == ["order_date", "ship_date"]
    assert by_period["required"] == ["column", "grain"]
    shapes = schema["properties"]["filters"]["items"]["anyOf"]
    filters = {
        f["properties"]["column"]["const"]: f["properties"] for f in shapes if "column" in f["properties"]
    }
    assert filters["ship_mode"]["values"]["items"]["enum"] == ["Same Day", "Second Class", "Standard Class"]
    assert filters["region"]["values"]["items"]["enum"] == ["South", "West"]  # a region's, never a state's
    assert filters["discount"]["op"]["enum"] == ["gt", "ge", "lt", "le", "between"]
    assert filters["discount"]["values"]["items"] == {"type": "number"}
    assert filters["customer_id"]["op"]["enum"] == [
        "in",
        "not_in",
        "contains",
        "not_contains",
        "missing",
        "present",
    ]
    # a date's days are the window's; a filter on a date names only its weekday
    assert filters["order_date"]["part"] == {"const": "weekday"}
    assert filters["order_date"]["values"]["items"]["enum"][0] == "Monday"


def test_the_online_retail_layout_counts_guest_lines_in_revenue_and_orders():
    path = DATA / "online_retail.csv"
    model = suggest_model(profile_csv(path), "Online Retail")
    assert (
        model.column("customerid").role is Role.key and model.column("customerid").entity is Entity.customer
    )
    assert model.column("description").role is Role.label and model.column("stockcode").role is Role.key
    assert model.metric("revenue").times == "unitprice"
    titles = [model.column(name).title for name in ("stockcode", "customerid", "unitprice", "invoicedate")]
    assert titles == ["Stock code", "Customer ID", "Unit price", "Invoice date"]  # said as people say them
    assert "last order" in model.metric("last_invoicedate").synonyms  # the table's own date is its orders'
    with Engine(model, path) as engine:
        totals = engine.run(SemanticQuery(metrics=["revenue", "orders", "customers"])).records()[0]
    assert totals["revenue"] == pytest.approx(6 * 2.55 + 6 * 3.39 + 6 * 1.85 + 32 * 1.69)
    assert totals["orders"] == 3  # the guest checkout's order counts
    assert totals["customers"] == 2  # a guest is nobody's customer figure


def test_a_model_that_contradicts_itself_is_refused_whole():
    with pytest.raises(ValidationError, match="a ratio divides two metrics"):
        SemanticModel(
            dataset="x",
            columns=[{"name": "sales", "source": "Sales", "role": "measure"}],
            metrics=[{"name": "margin", "kind": "ratio", "numerator": "profit", "denominator": "sales"}],
        )
    with pytest.raises(ValidationError, match="metric names must be unique"):
        SemanticModel(
            dataset="x",
            columns=[{"name": "sales", "source": "Sales", "role": "measure"}],
            metrics=[{"name": "sales", "kind": "sum", "over": "sales"}, {"name": "sales", "kind": "rows"}],
        )


def test_a_file_that_is_not_a_table_is_one_clear_error(tmp_path):
    path = tmp_path / "binary.csv"
    path.write_bytes(b"\x00\x01\x02\xff" * 100)
    with pytest.raises(InvalidInputError, match="could not be read as CSV"):
        profile_csv(path)


def test_the_domain_package_imports_no_other_room():
    """docs/architecture.md#who-may-call-whom: ``semantic`` stands on the shared modules only."""
    package = Path(__import__("agent_orchestrator.semantic").semantic.__file__).parent
    for path in package.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("agent_orchestrator"):
                assert node.module in ("agent_orchestrator.errors",) or node.module.startswith(
                    "agent_orchestrator.semantic"
                ), f"{path.name} imports {node.module}"


def test_a_question_is_linked_to_the_datas_own_values_columns_and_metrics(engine):
    vocabulary = Vocabulary(engine.model, engine.words())
    found = vocabulary.find("Profit margin of furniture in Kentucky by sub-category, for customer CG-12520?")
    assert {(m.column, m.value) for m in found.mentions} == {
        ("category", "Furniture"),
        ("state", "Kentucky"),
        ("customer_id", "CG-12520"),
    }
    assert found.metrics == ("margin",) and found.columns == ("sub_category", "customer_id")
    typo = vocabulary.find("sales in califronia")
    assert [(m.column, m.value, m.exact) for m in typo.mentions] == [("state", "California", False)]
    assert typo.metrics == ("revenue",)
    named = vocabulary.find("how much did Sean O'Donnell spend on the Bretford Table?")
    assert {(m.column, m.value) for m in named.mentions} == {
        ("customer_name", "Sean O'Donnell"),
        ("product_name", "Bretford Table"),
    }


def test_a_schema_for_what_the_question_named_offers_nothing_else(engine):
    found = Vocabulary(engine.model, engine.words()).find("profit margin of furniture by sub-category")
    schema = query_schema(engine.model, engine.values(), found)
    assert schema["properties"]["metrics"]["items"]["enum"] == ["margin"]
    assert schema["properties"]["metrics"]["maxItems"] == 1
    [by_column] = schema["properties"]["group_by"]["items"]["anyOf"]  # no period named: none offered
    assert by_column["properties"]["column"]["enum"] == ["sub_category"]
    shapes = schema["properties"]["filters"]["items"]["anyOf"]
    filters = {
        f["properties"]["column"]["const"]: f["properties"] for f in shapes if "column" in f["properties"]
    }
    assert list(filters) == ["category"]  # a value it named; sub-category is only grouped by
    assert filters["category"]["values"]["items"]["enum"] == ["Furniture"]
    monthly = query_schema(
        engine.model, engine.values(), Vocabulary(engine.model, {}).find("monthly revenue")
    )
    [by_period] = monthly["properties"]["group_by"]["items"]["anyOf"]
    assert by_period["properties"]["grain"]["enum"] == ["month"]
    total = query_schema(engine.model, engine.values(), Vocabulary(engine.model, {}).find("total revenue?"))
    assert "group_by" not in total["properties"]


def test_sums_are_exact_decimals_rounded_half_up_as_a_spreadsheet_does(tmp_path):
    """Three amounts of 0.275 make 0.825 exactly, shown 0.83; summed as binary doubles they make
    0.8249999…, which rounds to 0.82."""
    path = tmp_path / "cents.csv"
    path.write_text("Order ID,Order Date,Sales\nA,2024-01-01,0.275\nB,2024-01-02,0.275\nC,2024-01-03,0.275\n")
    model = suggest_model(profile_csv(path), "Cents")
    with Engine(model, path) as exact:
        result = exact.run(SemanticQuery(metrics=["revenue"]))
    assert 0.275 + 0.275 + 0.275 != 0.825
    assert result.records()[0]["revenue"] == 0.825
    assert figure(model.metric("revenue"), 0.825) == "0.83"
    assert figure(model.metric("revenue"), 118447.825) == "118,447.83"


def test_a_count_of_groups_is_said_first_then_the_groups(engine):
    query = SemanticQuery(
        metrics=["profit"],
        group_by=[GroupBy(column="region")],
        filters=[Filter(metric="profit", op="gt", values=[0])],
        count=True,
    )
    text = render(engine.model, query, engine.run(query), total_groups=engine.group_count(query))
    assert text.startswith("Number of regions (Profit by region), profit over 0.00, all time: 2 regions")
    with pytest.raises(InvalidInputError, match="what is counted"):
        SemanticQuery(metrics=["profit"], count=True).checked(engine.model)


def test_cancelled_invoices_are_no_orders_and_metrics_of_their_own(tmp_path):
    """The Online Retail layout marks a cancellation with a "C" before the invoice number: revenue is
    net of it, orders, customers and units count what was bought."""
    path = tmp_path / "retail.csv"
    path.write_text(
        "InvoiceNo,StockCode,Description,Quantity,InvoiceDate,UnitPrice,CustomerID,Country\n"
        + "".join(
            f"5363{n:02},85123A,WHITE HEART,2,2010-12-01 08:26:00,2.50,178{n:02},United Kingdom\n"
            for n in range(12)
        )
        + "C536379,85123A,WHITE HEART,-2,2010-12-02 09:41:00,2.50,17800,United Kingdom\n"
    )
    model = suggest_model(profile_csv(path), "Retail")
    assert model.cancellation is not None and model.cancellation.prefix == "C"
    with Engine(model, path) as engine:
        query = SemanticQuery(
            metrics=["revenue", "orders", "customers", "units", "cancelled_orders", "cancellation_rate"]
        )
        found = engine.run(query).records()[0]
        text = render(model, query, engine.run(query))
    assert found["revenue"] == pytest.approx(12 * 5.0 - 5.0)
    assert (found["orders"], found["customers"], found["units"]) == (12, 12, 24)
    assert found["cancelled_orders"] == 1
    with Engine(model, path) as engine:
        lost = engine.run(SemanticQuery(metrics=["cancelled_revenue"])).records()[0]["cancelled_revenue"]
    assert lost == pytest.approx(5.0)  # what was cancelled, as a positive amount
    assert "Cancellation rate 7.69%" in text  # 1 of 13 invoices


def test_a_status_that_refunds_an_order_is_a_cancellation_of_an_order_placed(tmp_path):
    """A refunded order was placed: it counts in orders as its amount counts in revenue (the file's
    own totals); the refunds are metrics of their own."""
    path = tmp_path / "shop.csv"
    path.write_text(
        "Order ID,Created at,Financial Status,Lineitem price,Lineitem quantity,Total\n"
        "#1001,2024-01-02,paid,10.00,1,10.00\n#1002,2024-01-03,refunded,20.00,1,20.00\n"
        "#1003,2024-01-04,paid,30.00,2,60.00\n#1004,2024-01-05,paid,5.00,1,5.00\n"
    )
    model = suggest_model(profile_csv(path), "Shop", known={"order": "Order ID", "line_total": "Total"})
    assert model.cancellation is not None and model.cancellation.values == ["refunded"]
    with Engine(model, path) as engine:
        found = engine.run(
            SemanticQuery(
                metrics=["revenue", "orders", "cancelled_orders", "cancelled_revenue", "cancellation_rate"]
            )
        ).records()
    assert found == [
        {
            "revenue": 95.0,
            "orders": 4,
            "cancelled_orders": 1,
            "cancelled_revenue": 20.0,
            "cancellation_rate": 0.25,
        }
    ]


def test_a_guests_lines_are_no_customers_group():
    path = DATA / "online_retail.csv"
    model = suggest_model(profile_csv(path), "Online Retail")
    with Engine(model, path) as engine:
        rows = engine.run(SemanticQuery(metrics=["orders"], group_by=[GroupBy(column="customerid")])).rows
    assert sorted(str(r[0]) for r in rows) == ["13047", "17850"]  # the guest checkout is nobody's


def test_a_unit_price_is_averaged_over_the_lines_sold():
    path = DATA / "online_retail.csv"
    model = suggest_model(profile_csv(path), "Online Retail")
    assert "unit price" in model.metric("average_price").synonyms
    with Engine(model, path) as engine:
        (row,) = engine.run(SemanticQuery(metrics=["average_price"])).rows
    assert row[0] == pytest.approx((2.55 + 3.39 + 1.85 + 1.69) / 4)


def test_a_share_of_a_wider_whole_binds_the_parts_and_the_wholes_values_in_order(engine):
    south = Filter(column="region", op="in", values=["South"])
    years = Window(start=date(2015, 1, 1), end=date(2016, 12, 31))
    query = SemanticQuery(
        metrics=["revenue"],
        filters=[south, Filter(column="category", op="in", values=["Furniture"])],
        window=years,
        share_of=Whole(window=years, filters=[south]),
    )
    record = engine.run(query).records()[0]
    assert (round(record["revenue"], 2), round(record["revenue__whole"], 2)) == (1951.48, 1973.85)
    assert render(engine.model, query, engine.run(query)).endswith(
        "(98.87% of 1,973.85, the revenue of Region South, January 1, 2015 to December 31, 2016)."
    )
    by_category = SemanticQuery(
        metrics=["revenue"],
        group_by=[GroupBy(column="category")],
        filters=[south],
        share_of=Whole(filters=[south]),
    )
    lines = render(engine.model, by_category, engine.run(by_category)).splitlines()
    assert lines[1] == "1. Furniture: 1,951.48 (73.52% of 2,654.21, the revenue of Region South, all time)"


def test_a_weekday_filter_is_checked_and_bound(engine):
    sundays = Filter(column="order_date", part="weekday", op="in", values=["Sunday"])
    found = engine.run(SemanticQuery(metrics=["orders"], filters=[sundays])).rows
    assert found == [(2,)]  # CA-2016-2 and US-2015-3
    with pytest.raises(ValidationError):
        Filter(column="order_date", part="weekday", op="in", values=["Funday"])
    with pytest.raises(InvalidInputError):  # a weekday is of a date, never of a region
        SemanticQuery(
            metrics=["orders"], filters=[Filter(column="region", part="weekday", op="in", values=["Sunday"])]
        ).checked(engine.model)


TILL = (
    "Invoice ID,City,Total,Date,Time\n"
    "750-1,Yangon,100.50,1/5/2019,13:08\n"
    "750-2,Yangon,20,1/5/2019,19:10\n"
    "750-3,Mandalay,30,1/6/2019,19:45\n"
    "750-4,Mandalay,5.25,2/6/2019,10:29\n"
)


def test_hours_are_read_from_a_time_of_day_and_from_a_moment(tmp_path):
    """A till's ``Time`` beside its ``Date`` and an export's timestamps are grouped and filtered by
    the hour; a date alone has no hours, and a time alone no periods or windows."""
    till = tmp_path / "till.csv"
    till.write_text(TILL)
    model = suggest_model(profile_csv(till), "Till")
    assert [(c.name, c.day_time) for c in model.with_role(Role.time)] == [("date", "date"), ("time", "time")]
    assert model.time is not None and model.time.name == "date"
    assert [c.name for c in model.clocked] == ["time"]
    assert "first_time" not in {m.name for m in model.metrics}  # a time of day is no event's date
    with Engine(model, till) as engine:
        busiest = SemanticQuery(
            metrics=["orders", "revenue"], group_by=[GroupBy(column="time", grain="hour")], order_by="orders"
        )
        assert engine.run(busiest).rows[0] == (19, 2, 50.0)
        listed = render(model, busiest, engine.run(busiest)).splitlines()
        assert listed[1] == "1. 19:00: Orders 2; Revenue 50.00"
        evening = SemanticQuery(
            metrics=["revenue"], filters=[Filter(column="time", part="hour", op="ge", values=[18])]
        )
        assert render(model, evening, engine.run(evening)) == "Revenue, from 18:00, all time: 50.00."
        midday = Filter(column="time", part="hour", op="between", values=[10, 13])
        assert engine.run(SemanticQuery(metrics=["revenue"], filters=[midday])).rows == [(105.75,)]
    for wrong in (
        SemanticQuery(metrics=["orders"], group_by=[GroupBy(column="date", grain="hour")]),
        SemanticQuery(metrics=["orders"], group_by=[GroupBy(column="time", grain="month")]),
        SemanticQuery(metrics=["orders"], filters=[Filter(column="date", part="hour", op="in", values=[9])]),
        SemanticQuery(metrics=["orders"], window=Window(start=date(2019, 1, 1), column="time")),
    ):
        with pytest.raises(InvalidInputError):
            wrong.checked(model)
    with pytest.raises(ValidationError):
        Filter(column="time", part="hour", op="in", values=[24])

    stamps = suggest_model(profile_csv(DATA / "online_retail.csv"), "OR")
    (moment,) = stamps.with_role(Role.time)
    assert moment.day_time == "date_time" and stamps.clocked == [moment] and stamps.time == moment
    with Engine(stamps, DATA / "online_retail.csv") as engine:
        hours = SemanticQuery(metrics=["lines"], group_by=[GroupBy(column=moment.name, grain="hour")])
        assert engine.run(hours).rows == [(8, 4)]
        assert engine.span() == (date(2010, 12, 1), date(2011, 1, 5))  # days, whatever the hour
        december = Window(start=date(2010, 12, 1), end=date(2010, 12, 1))
        assert engine.run(SemanticQuery(metrics=["lines"], window=december)).rows == [(3,)]


def test_groups_kept_by_their_own_figures_are_taken_together(engine):
    """ "Revenue from orders over 500": each order's revenue chooses it, and the revenue of the
    orders chosen is one figure, with how many there were; row filters and the window hold for both."""
    big = Filter(metric="revenue", op="gt", values=[500])
    query = SemanticQuery(metrics=["revenue", "units"], group_by=[GroupBy(column="order_id")], filters=[big])
    together = query.model_copy(update={"together": True})
    assert engine.run(together).rows == [(3561.36, 19.0, 4)]  # all but CA-2016-2 (14.62)
    assert render(engine.model, together, engine.run(together)) == (
        "Revenue and Units, orders with revenue over 500.00, all time: Revenue 3,561.36; Units 19 (4 orders)."
    )
    west = together.model_copy(update={"filters": [big, Filter(column="region", op="in", values=["West"])]})
    assert engine.run(west).rows == [(907.15, 4.0, 1)]  # CA-2017-4
    with pytest.raises(InvalidInputError):  # groups taken together are not also counted
        query.model_copy(update={"together": True, "count": True}).checked(engine.model)


def test_a_value_written_several_ways_is_one_value_as_most_lines_write_it(tmp_path):
    """An export's "PayPal" and "Paypal" are one payment method: grouped once and filtered as one."""
    path = tmp_path / "sales.csv"
    methods = ["PayPal"] * 3 + ["Paypal"] * 2 + [" paypal"] + ["Cash"] * 4
    path.write_text(
        "Date,Payment Method,Total\n"
        + "".join(f"2024-01-{day:02},{method},10.00\n" for day, method in enumerate(methods, 1))
    )
    model = suggest_model(profile_csv(path), "Shop")
    assert model.column("payment_method").spellings == {" paypal": "PayPal", "Paypal": "PayPal"}
    with Engine(model, path) as engine:
        by_method = SemanticQuery(metrics=["revenue"], group_by=[GroupBy(column="payment_method")])
        assert sorted(engine.run(by_method).rows) == [("Cash", 40.0), ("PayPal", 60.0)]
        paypal = Filter(column="payment_method", op="in", values=["PayPal"])
        assert engine.run(SemanticQuery(metrics=["revenue"], filters=[paypal])).rows == [(60.0,)]


def test_values_written_other_ways_too_many_to_list_are_folded_as_most_lines_write_them(tmp_path):
    """A shop whose cities are typed "PUNE", "Pune" and "pune" on different orders, for more cities than
    a model lists one by one: each city is one group, as most of its lines write it."""
    path = tmp_path / "orders.csv"
    cities = [f"City{n}" for n in range(60)]
    lines = [(c.upper(), 3) for c in cities] + [(c, 2) for c in cities] + [(cities[0].lower(), 1)]
    path.write_text(
        "Date,Ship City,Amount\n"
        + "".join(f"2024-01-{n % 28 + 1:02},{city},10.00\n" for city, times in lines for n in range(times))
    )
    model = suggest_model(profile_csv(path), "Shop")
    city = model.column("ship_city")
    assert city.folded and not city.spellings
    with Engine(model, path) as engine:
        by_city = engine.run(
            SemanticQuery(metrics=["revenue"], group_by=[GroupBy(column="ship_city")], limit=50)
        )
        assert len(by_city.rows) == 50 and by_city.rows[0] == ("CITY0", 60.0)
        assert len(engine.words()["ship_city"]) == 60


def test_a_name_is_read_by_a_part_only_it_has_but_never_a_keys_part():
    """ "barista" is *Barista ID* and "loyalty points" the points earned (the metric over the column
    of that name); "stock" alone is no *StockCode*: "in stock" asks about inventory."""
    till = SemanticModel.model_validate(
        {
            "dataset": "Till",
            "columns": [
                {"name": "barista_id", "source": "Barista ID", "role": "dimension"},
                {
                    "name": "loyalty_points_earned",
                    "source": "Points",
                    "role": "measure",
                    "label": "Loyalty points earned",
                },
                {
                    "name": "stockcode",
                    "source": "StockCode",
                    "role": "key",
                    "entity": "product",
                    "label": "Stock code",
                },
                {"name": "total", "source": "Total", "role": "measure", "unit": "money"},
            ],
            "metrics": [
                {"name": "revenue", "kind": "sum", "over": "total", "unit": "money"},
                {
                    "name": "loyalty_points_earned",
                    "kind": "sum",
                    "over": "loyalty_points_earned",
                    "label": "Loyalty points earned",
                },
            ],
        }
    )
    vocabulary = Vocabulary(till, {})
    assert vocabulary.find("revenue by barista").columns == ("barista_id",)
    assert vocabulary.find("loyalty points this year").metrics == ("loyalty_points_earned",)
    assert "stockcode" not in vocabulary.find("how many lanterns are in stock").columns


def test_a_header_written_as_one_word_is_read_in_its_words(tmp_path):
    """An export's run-together capitals ("PRODUCTLINE", "DEALSIZE", "PRICEEACH") are the words
    people say ("which product line…", "large deals"); a word of its own stays whole."""
    assert run_together("productline") == ["product", "line"]
    assert run_together("contactlastname") == ["contact", "last", "name"]
    assert run_together("addressline1") == ["address", "line", "1"]
    assert run_together("territory") == ["territory"]
    assert run_together("msrp") == ["msrp"]
    path = tmp_path / "sales.csv"
    path.write_text(
        "ORDERNUMBER,ORDERDATE,PRODUCTLINE,DEALSIZE,SALES\n"
        "10100,1/6/2003,Motorcycles,Small,100.00\n10101,1/9/2003,Classic Cars,Large,900.00\n"
    )
    model = suggest_model(profile_csv(path), "Sales", known={"order": "ORDERNUMBER", "line_total": "SALES"})
    assert (model.column("productline").title, model.column("dealsize").title) == (
        "Product line",
        "Deal size",
    )
    assert model.column("productline").role is Role.dimension


def test_a_name_said_in_a_row_is_the_one_value_holding_it_so(tmp_path, engine):
    """ "Sean" names two customers, a choice to make; "Land of Toys" is Land of Toys Inc., which holds
    the words as said, not Toys of Finland, which holds them apart."""
    assert engine.matches(engine.model.column("customer_name"), "Sean") == ["Sean Miller", "Sean O'Donnell"]
    path = tmp_path / "toys.csv"
    path.write_text(
        "Order,Date,Customer,Sales\n1,2024-01-02,Land of Toys Inc.,10\n"
        '2,2024-01-03,"Toys of Finland, Co.",20\n'
    )
    model = suggest_model(profile_csv(path), "Toys", known={"order": "Order", "line_total": "Sales"})
    shop = Engine(model, path)
    customer = next(c for c in shop.model.columns if c.source == "Customer")
    assert shop.matches(customer, "land of toys") == ["Land of Toys Inc."]
    assert shop.matches(customer, "land toys") == ["Land of Toys Inc."]  # as read, its "of" left out
    assert shop.matches(customer, "toys") == ["Land of Toys Inc.", "Toys of Finland, Co."]


def test_a_window_says_where_it_sits_against_the_datas_last_day() -> None:
    """The data's "last month" is not the calendar's: an answer says which it was."""
    last = date(2017, 12, 30)
    assert (
        placed(Window(start=date(2017, 12, 1), end=date(2017, 12, 31)), last)
        == " (the latest month in the data)"
    )
    assert (
        placed(Window(start=date(2017, 10, 1), end=date(2017, 12, 31)), last)
        == " (the latest quarter in the data)"
    )
    assert (
        placed(Window(start=date(2017, 1, 1), end=date(2017, 12, 31)), last)
        == " (the latest year in the data)"
    )
    assert (
        placed(Window(start=date(2017, 12, 30), end=date(2017, 12, 30)), last)
        == " (the latest day in the data)"
    )
    assert placed(Window(start=date(2017, 7, 1), end=last), last) == " (to the data's last day)"
    assert placed(Window(start=date(2017, 11, 1), end=date(2017, 11, 30)), last) == ""  # an earlier month
    assert placed(Window(start=date(2017, 12, 1), end=date(2017, 12, 31), column="ship_date"), last) == ""
    assert placed(None, last) == placed(Window(start=date(2017, 12, 1)), last) == ""


@pytest.mark.parametrize(
    ("written", "plain", "decimal"),
    [
        ("$600,000 ", "600000", "."),
        ("($13,500.25)", "-13500.25", "."),
        ("-3%", "-3", "."),
        ("€ 1.234,56", "1234.56", ","),
        ("1 234,5", "1234.5", ","),
        ("12-34", None, "."),
        ("1,2,3", None, "."),
        ("SM-20320", None, "."),
    ],
)
def test_a_number_written_for_people_is_read_as_its_figure(written, plain, decimal):
    assert plain_number(written, decimal) == plain


def test_a_formatted_sheets_amounts_are_measures_in_their_currency(tmp_path):
    """A column whose every value is a number written for people is a measure: whole ones counted as
    integers, amounts exact; its symbol is the file's currency. A column of codes with digits stays
    text, as does one of plain numbers mixed with words."""
    path = tmp_path / "sheet.csv"
    path.write_text(
        "Order,Date,Units,Sales,Margin,Code,Note\n"
        'A,2024-01-01,"1,200","$1,000.50 ",50%,12-1,7\n'
        'B,2024-01-02,3,"($200.25)",-3%,12-2,none\n'
    )
    profile = profile_csv(path)
    types = {c.header: (c.type, c.symbol) for c in profile.columns}
    assert types["Units"] == ("BIGINT", "") and types["Sales"] == ("DECIMAL(18,6)", "$")
    assert types["Margin"][0] == "BIGINT" and types["Code"][0] == types["Note"][0] == "VARCHAR"
    model = suggest_model(profile, "Sheet", known={"order": "Order", "line_total": "Sales"})
    assert model.currency == "USD"
    with Engine(model, path) as sheet:
        result = sheet.run(SemanticQuery(metrics=["revenue", "units"]))
    assert result.records() == [{"revenue": 800.25, "units": 1203}]


def test_an_operating_profit_is_the_profit_and_a_margin_column_is_recomputed_never_summed(tmp_path):
    """ "Operating Profit" is the file's profit (no column is called "Profit"); its "Operating
    Margin" is a rate: the margin is the profit over the sales, 388,500 / 1,390,000, not a sum of
    50 % + 30 % + 30 % nor their average."""
    path = tmp_path / "sheet.csv"
    path.write_text(
        "Invoice Date,Region,Total Sales,Operating Profit,Operating Margin\n"
        "2021-01-04,West,600000,300000,0.5\n2021-01-05,South,450000,-13500,-0.03\n"
        "2021-01-06,West,340000,102000,0.3\n"
    )
    model = suggest_model(profile_csv(path), "Sheet", known={"line_total": "Total Sales"})
    assert "profit" in model.metric("operating_profit").synonyms
    margin = model.metric("margin")
    assert (margin.numerator, margin.denominator) == ("operating_profit", "revenue")
    assert "operating margin" in margin.synonyms
    assert not [m for m in model.metrics if m.over == "operating_margin"]
    with Engine(model, path) as sheet:
        result = sheet.run(SemanticQuery(metrics=["margin", "operating_profit"]))
    assert result.records()[0]["operating_profit"] == 388_500.0
    assert round(result.records()[0]["margin"], 6) == round(388_500 / 1_390_000, 6)


def test_a_dates_parts_a_customers_traits_and_a_status_beside_a_cancellation(tmp_path):
    """A bike shop's export: "Day", "Month" and "Year" repeat its "Date" (months are asked of the
    date, with their year; a day of the month is never summed), "Customer_Gender" is a trait to group
    by, not a customer's key, and beside "Cancelled" a "Returned" is a status of its own. Its own
    "Revenue" column shares the revenue metric's name: shares and rankings still read the metric."""
    path = tmp_path / "bikes.csv"
    rows = [
        ("2016-01-05", "M", "Delivered", 100),
        ("2016-01-20", "F", "Returned", 50),
        ("2016-02-03", "F", "Cancelled", 30),
        ("2016-02-14", "M", "Delivered", 220),
    ]
    path.write_text(
        "Date,Day,Month,Year,Customer_Gender,Customer_Age,Status,Revenue\n"
        + "".join(
            f"{d},{int(d[8:])},{['January', 'February'][int(d[5:7]) - 1]},2016,{g},30,{s},{r}\n"
            for d, g, s, r in rows
        )
    )
    model = suggest_model(profile_csv(path), "Bikes")
    roles = {c.name: c.role for c in model.columns}
    assert roles["day"] is roles["month"] is roles["year"] is Role.ignore
    assert roles["customer_gender"] is Role.dimension and model.key_of(Entity.customer) is None
    assert model.cancellation is not None and model.cancellation.values == ["Cancelled"]
    with Engine(model, path) as engine:
        by_month = SemanticQuery(
            metrics=["revenue"], group_by=[GroupBy(column="date", grain="month")], share=True
        )
        assert engine.run(by_month).rows == [
            (date(2016, 1, 1), 150.0, 0.375),
            (date(2016, 2, 1), 250.0, 0.625),
        ]
        february = Window(start=date(2016, 2, 1), end=date(2016, 2, 29))
        part = SemanticQuery(metrics=["revenue"], window=february, share_of=Whole())
        assert engine.run(part).rows == [(250.0, 0.625, 400.0)]
        ranked = SemanticQuery(
            metrics=["revenue"],
            group_by=[GroupBy(column="customer_gender")],
            window=february,
            compare=Window(start=date(2016, 1, 1), end=date(2016, 1, 31)),
            by_change=True,
        )
        assert engine.run(ranked).rows[0][0] == "M"


def test_an_erp_exports_numbered_things_dates_and_a_wide_files_metrics(tmp_path):
    """ "_StoreID" numbers stores (a dimension, said "Store ID"), never a measure to sum; the date an
    admin confirmed is the model's time, and days to ship run from it, not from an earlier date
    the file has (whose days run to it); a file of many measures keeps the metrics the model holds
    (their extremes last)."""
    path = tmp_path / "erp.csv"
    path.write_text(
        "OrderNumber,ProcuredDate,OrderDate,ShipDate,_StoreID,_ProductID,Order Quantity,Unit Price\n"
        "SO-1,31/12/17,31/5/18,14/6/18,259,12,5,10.5\nSO-2,31/12/17,1/6/18,22/6/18,196,27,3,4.0\n"
    )
    model = suggest_model(profile_csv(path), "Erp", known={"time": "OrderDate", "order": "OrderNumber"})
    store = model.column("storeid")
    assert (store.role, store.title) == (Role.dimension, "Store ID")
    assert model.time is not None and model.time.name == "orderdate"
    days = model.metric("days_to_ship")
    assert (days.since, days.over) == ("orderdate", "shipdate")
    procured = model.metric("days_to_order")  # from a date before the sale: to the sale, never past it
    assert (procured.since, procured.over) == ("procureddate", "orderdate")
    wide = tmp_path / "wide.csv"
    wide.write_text(
        ",".join(f"Measure {n}" for n in range(60)) + "\n" + ",".join(str(n) for n in range(60)) + "\n"
    )
    metrics = suggest_model(profile_csv(wide), "Wide").metrics
    assert len(metrics) == 100 and metrics[-1].kind in (Kind.minimum, Kind.maximum)


def test_a_file_with_a_unit_cost_and_a_cost_of_its_own_sums_its_own(tmp_path):
    """ "Unit_Cost" beside a "Cost" column: the cost is the file's own column summed (no second
    metric of that name, which would make the model invalid and the import fail)."""
    path = tmp_path / "bikes.csv"
    path.write_text(
        "Date,Order_Quantity,Unit_Cost,Unit_Price,Profit,Cost,Revenue\n"
        "2013-11-26,8,45,120,590,360,950\n2015-11-26,2,45,120,150,90,240\n"
    )
    model = suggest_model(profile_csv(path), "Bikes")
    cost = model.metric("cost")
    assert (cost.kind, cost.over, cost.times) == (Kind.sum, "cost", None)
    assert "cost of goods" in cost.synonyms and model.metric("average_unit_cost").kind is Kind.average
    assert not any(m.kind is Kind.sum and m.over == "unit_cost" for m in model.metrics)  # never summed
    assert model.metric("margin").numerator == "profit"


def test_a_shop_exports_addresses_are_no_values_and_its_codes_are_written_as_they_are(tmp_path):
    """A web shop's export writes an order's address and discount code on its first line only: among
    the lines that write them, each address is its own (free text, never a value a question names),
    while many codes are still things to count. A state's code is read as written ("WA", "in OK"),
    never from a word that spells it otherwise ("was", "pls") or a word it is ("ok")."""
    path = tmp_path / "orders_export.csv"
    lines = [
        "Name,Created at,Billing Street,Discount Code,Shipping Province,Shipping Country,Total,"
        "Shipping Province Name,Source"
    ]
    for order in range(60):
        state, country, name = ("WA", "US", "Washington") if order % 3 else ("OK", "PL", "Oklahoma")
        code = f"GIFT{order}" if order % 2 else ""
        day = f"2025-01-{order % 28 + 1:02d}"
        lines.append(f"#{1000 + order},{day},{order} Main St,{code},{state},{country},10,{name},web")
        lines.append(f"#{1000 + order},{day},,,,,,,")
    path.write_text("\n".join(lines) + "\n")
    engine = Engine(suggest_model(profile_csv(path), "Shop"), path)
    roles = {c.name: c.role for c in engine.model.columns}
    assert (roles["billing_street"], roles["discount_code"]) == (Role.ignore, Role.dimension)
    vocabulary = Vocabulary(engine.model, engine.words())
    for plain in ("when was it placed", "ok how much did we sell", "totals by year pls"):
        assert vocabulary.find(plain).mentions == (), plain
    assert [m.value for m in vocabulary.find("orders shipped to WA").mentions] == ["WA"]
    assert [m.value for m in vocabulary.find("orders in shipping province ok").mentions] == ["OK"]
    # the ship-to state is the province's name (its code leaves the words to it); a source a channel
    assert vocabulary.find("top ship-to states").columns == ("shipping_province_name",)
    assert vocabulary.find("orders by channel").columns == ("source",)


def test_a_shops_order_total_is_an_orders_value_and_its_moments_are_the_shops_own_days(tmp_path):
    """A web shop's "Total" beside its lines' prices is what each order came to (shipping, taxes and
    discounts in): "order totals" name it and an order's average value is of it. Its moments carry
    their offset from UTC; an evening order is on the day the shop wrote, never the next."""
    path = tmp_path / "orders_export.csv"
    path.write_text(
        "Name,Created at,Lineitem quantity,Lineitem name,Lineitem price,Total,Refunded Amount,Cancelled at\n"
        "#1,2025-12-31 22:29:09 -0700,2,Jeans,100,215.50,15.50,\n"
        "#1,2025-12-31 22:29:09 -0700,1,Belt,20,,,\n"
        "#2,2026-01-01 09:00:00 -0700,1,Belt,20,25.00,25.00,2026-01-02 10:00:00 -0700\n"
    )
    known = {"order": "Name", "quantity": "Lineitem quantity", "unit_price": "Lineitem price"}
    reading = CsvReading(date_format="%Y-%m-%d %H:%M:%S %z")  # as the Data page's preview reads it
    engine = Engine(suggest_model(profile_csv(path, reading), "Shop", known=known), path)
    assert engine.model.metric("average_order_value").numerator == "total"
    assert Vocabulary(engine.model, {}).find("order totals by year").metrics == ("total",)
    result = engine.run(
        SemanticQuery(
            metrics=["total", "revenue", "average_order_value"],
            group_by=[GroupBy(column="created_at", grain="year")],
        )
    )
    rows = {str(row[0])[:4]: dict(zip(result.columns, row, strict=True)) for row in result.rows}
    assert (rows["2025"]["total"], rows["2025"]["revenue"]) == (pytest.approx(215.50), pytest.approx(220))
    assert rows["2026"]["average_order_value"] == pytest.approx(25.00)
    # "Refunded Amount" is what "refunds" are, of the orders' totals; "Cancelled at" marks a cancellation
    vocabulary = Vocabulary(engine.model, {})
    assert vocabulary.find("how much was refunded").metrics == ("refunded_amount",)
    assert vocabulary.find("refund rate by year").metrics == ("refund_rate",)
    assert engine.model.cancellation is not None and engine.model.cancellation.written
    result = engine.run(SemanticQuery(metrics=["refund_rate", "cancelled_orders", "orders"]))
    assert result.rows[0] == (pytest.approx(40.5 / 240.5), 1, 2)
    median = engine.run(SemanticQuery(metrics=["median_total"])).rows[0][0]  # "the median order total"
    assert median == pytest.approx((215.50 + 25.00) / 2) and Vocabulary(engine.model, {}).find(
        "median order total"
    ).metrics == ("median_total",)
    kept = Filter(column="cancelled_at", op="missing")  # "excluding the cancelled ones"
    assert engine.run(SemanticQuery(metrics=["total"], filters=[kept])).rows[0] == (pytest.approx(215.50),)


def test_a_typo_of_a_word_of_a_longer_value_is_never_the_nearest_short_value():
    """ "partialy refunded": "partialy" is a slip of *partially_refunded*'s word, left for the reader
    to respell, never the fulfilment status *partial* (a silent misreading)."""
    shop = SemanticModel.model_validate(
        {
            "dataset": "Shop",
            "columns": [
                {"name": "name", "source": "Name", "role": "key", "entity": "order"},
                {"name": "financial_status", "source": "Financial Status", "role": "dimension"},
                {"name": "fulfillment_status", "source": "Fulfillment Status", "role": "dimension"},
            ],
            "metrics": [{"name": "orders", "kind": "count_distinct", "over": "name", "unit": "count"}],
        }
    )
    values = {"financial_status": ["paid", "partially_refunded"], "fulfillment_status": ["partial"]}
    vocabulary = Vocabulary(shop, values)
    assert vocabulary.find("partialy refunded orders").mentions == ()
    assert [m.value for m in vocabulary.find("partal shipped orders").mentions] == ["partial"]


def test_a_dealer_export_its_levels_its_shops_its_models_and_what_it_sells(tmp_path):
    """A maker's order lines to dealer shops: numbered levels of one hierarchy are the category and
    its sub-category; a "bikeshop" is a shop, also a dealer, never a bike; a "model" is the product;
    the file's name says what the products are called when its values say it too; a map's point and
    a web page are no figures; "top 3 cities" is the City column, not the kind of bike "City"."""
    path = tmp_path / "bike_orderlines.csv"
    path.write_text(
        "order_id,order_date,model,category_1,category_2,price,quantity,total_price,url,bikeshop,city,lat\n"
        + "".join(
            f"{n},2019-0{1 + n % 9}-1{n % 10}T00:00:00Z,Model {n % 4},{('Road', 'E-Bikes')[n % 2]},"
            f"{('City', 'Race', 'Triathlon Bike')[n % 3]},{100 * (1 + n % 4)},{1 + n % 2},"
            f"{100 * (1 + n % 4) * (1 + n % 2)},https://example.com/{n},{('WITT-RAD', 'Lucky Bike')[n % 2]},"
            f"{('Hamburg', 'Bremen', 'Essen')[n % 3]},53.{n}\n"
            for n in range(40)
        )
    )
    model = suggest_model(profile_csv(path), "bike_orderlines")
    roles = {c.name: (c.role.value, c.entity.value if c.entity else None) for c in model.columns}
    assert roles["model"] == ("key", "product")
    assert roles["url"][0] == roles["lat"][0] == "ignore"
    assert model.column("category_1").synonyms[0] == "category"
    assert "sub category" in model.column("category_2").synonyms
    assert "bike dealer" in model.column("bikeshop").synonyms
    assert {"bikes", "bike", "models"} <= set(model.metric("products").synonyms)
    with Engine(model, path) as engine:
        vocabulary = Vocabulary(model, engine.words())
    assert vocabulary.find("top 3 cities").columns == ("city",)
    assert vocabulary.find("dealers").columns == ("bikeshop",)
    assert vocabulary.find("bikes").metrics == ("products",)


def test_each_period_against_the_one_before(engine):
    """ "Revenue growth by year": each year beside the year before (the first has none), ranked by
    the change when asked which grew or fell most; one period grouped, no comparison window."""
    by_year = [GroupBy(column="order_date", grain="year")]
    series = engine.run(SemanticQuery(metrics=["revenue"], group_by=by_year, each_against_previous=True))
    rows = [dict(zip(series.columns, row, strict=True)) for row in series.rows]
    assert [r["revenue__before"] for r in rows] == [None, rows[0]["revenue"], rows[1]["revenue"]]
    grew = engine.run(
        SemanticQuery(
            metrics=["revenue"], group_by=by_year, each_against_previous=True, by_change=True, limit=1
        )
    )
    assert str(grew.rows[0][0])[:4] == "2017"  # up 578.99, the most
    with pytest.raises(InvalidInputError, match="one period"):
        SemanticQuery(
            metrics=["revenue"], group_by=[GroupBy(column="region")], each_against_previous=True
        ).checked(engine.model)


def test_a_share_of_each_groups_own_whole(engine):
    """ "What % of lines were discounted, by region?": each region's discounted lines over that
    region's lines, not over all discounted lines."""
    query = SemanticQuery(
        metrics=["lines"],
        group_by=[GroupBy(column="region")],
        filters=[Filter(column="discount", op="gt", values=[0])],
        share_of=Whole(each_group=True),
    )
    result = engine.run(query)
    rows = {r[0]: dict(zip(result.columns, r, strict=True)) for r in result.rows}
    for region, row in rows.items():
        everything = engine.run(
            SemanticQuery(metrics=["lines"], filters=[Filter(column="region", op="in", values=[region])])
        ).rows[0][0]
        assert row["lines__whole"] == everything and row["lines__share"] == pytest.approx(
            row["lines"] / everything
        )

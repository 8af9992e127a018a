"""The analyst tools over stdio: input schemas with exact choices, filters, bounds and errors.

The numbers are checked against plain SQL over the same file; the query functions behind the tools
have their own tests against independent computations (tests/retail/test_retail_queries.py).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp_helpers import call_json, mcp_session, text_of

from agent_orchestrator.mcp_server import MAX_COUNTRY_ROWS, MAX_LIMIT, MAX_MONTHS

SEGMENTS = ["High Value", "Regular", "At Risk", "New"]


@pytest.fixture
def db(retail_db: Path) -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(f"{retail_db.resolve().as_uri()}?mode=ro", uri=True)
    yield conn
    conn.close()


def _one(db: sqlite3.Connection, sql: str, *params: Any) -> Any:
    return db.execute(sql, params).fetchone()[0]


def _walk(schema: Any) -> Iterator[dict[str, Any]]:
    if isinstance(schema, dict):
        yield schema
        for value in schema.values():
            yield from _walk(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _walk(item)


async def test_schemas_are_small_and_advertise_exact_choices(retail_db: Path, db: sqlite3.Connection) -> None:
    countries = sorted(row[0] for row in db.execute("SELECT DISTINCT country FROM customers"))
    async with mcp_session(["--db", str(retail_db)]) as session:
        tools = {t.name: t for t in (await session.list_tools()).tools}
    for name, tool in tools.items():
        if name == "query_data":  # one filter shape per column: its schema is tested in test_query_data.py
            continue
        schema = tool.input_schema
        assert all("title" not in node and "anyOf" not in node for node in _walk(schema)), name
        properties = schema["properties"]
        for argument, spec in properties.items():
            assert spec.get("description"), (name, argument)
            # lists and flags only as exact choices: arrays of an enum, of ids or of names of a bounded
            # length, booleans (the typed query)
            simple = spec.get("type") in {"string", "integer", "number", "boolean"}
            ids = argument.endswith("_ids") and spec["items"].get("type") == "integer"
            names = spec.get("type") == "array" and spec["items"].get("maxLength") and spec.get("maxItems")
            assert simple or ids or names or spec["items"].get("enum"), (name, argument)
        if "segment" in properties:
            assert properties["segment"]["enum"] == SEGMENTS, name
        if "country" in properties:
            assert properties["country"]["enum"] == countries, name
        if "countries" in properties:
            assert properties["countries"]["items"]["enum"] == countries, name
    assert {n for n, t in tools.items() if "country" in t.input_schema["properties"]} == {
        "find_customers",
        "top_customers",
        "sales_summary",
        "monthly_trend",
        "top_products",
        "list_transactions",
    }
    assert tools["find_customers"].input_schema["properties"]["sort_by"]["enum"] == [
        "revenue",
        "orders",
        "recency",
        "last_purchase",
    ]
    assert tools["top_products"].input_schema["properties"]["sort_by"]["enum"] == ["revenue", "quantity"]
    assert "required" not in tools["find_customers"].input_schema  # every filter is optional


async def test_without_a_database_there_is_no_country_enum(tmp_path: Path) -> None:
    async with mcp_session(["--db", str(tmp_path / "later.sqlite")]) as session:
        tools = {t.name: t for t in (await session.list_tools()).tools}
    country = tools["find_customers"].input_schema["properties"]["country"]
    assert country["type"] == "string" and "enum" not in country and country["maxLength"] == 64
    assert tools["find_customers"].input_schema["properties"]["segment"]["enum"] == SEGMENTS


async def test_find_customers_counts_lists_and_pages(retail_db: Path, db: sqlite3.Connection) -> None:
    async with mcp_session(["--db", str(retail_db)]) as session:
        german_at_risk = await call_json(
            session, "find_customers", {"segment": "at risk", "country": "germany"}
        )
        frequent = await call_json(
            session, "find_customers", {"min_orders": 11, "sort_by": "orders", "limit": 20}
        )
        silent = await call_json(
            session, "find_customers", {"min_recency_days": 180, "sort_by": "recency", "order": "asc"}
        )
        first = await call_json(session, "find_customers", {"limit": 3})
        second = await call_json(session, "find_customers", {"limit": 3, "offset": 3})
        both = await call_json(session, "find_customers", {"limit": 6})
        uk = await call_json(session, "find_customers", {"country": "UK", "segment": "", "limit": 1})

    assert german_at_risk["filters"] == {"segment": "At Risk", "country": "Germany"}
    expected = _one(
        db, "SELECT COUNT(*) FROM customer_stats WHERE segment = 'At Risk' AND country = 'Germany'"
    )
    assert german_at_risk["total"] == expected > 0 and german_at_risk["offset"] == 0
    assert {(c["segment"], c["country"]) for c in german_at_risk["customers"]} == {("At Risk", "Germany")}
    assert set(german_at_risk["customers"][0]) == {
        "id",
        "country",
        "segment",
        "orders",
        "revenue",
        "last_purchase",
        "recency_days",
    }

    assert frequent["total"] == _one(db, "SELECT COUNT(*) FROM customer_stats WHERE orders >= 11") > 0
    orders = [c["orders"] for c in frequent["customers"]]
    assert len(orders) == min(20, frequent["total"]) and orders == sorted(orders, reverse=True)
    assert min(orders) >= 11

    assert silent["total"] == _one(db, "SELECT COUNT(*) FROM customer_stats WHERE recency_days >= 180")
    recencies = [c["recency_days"] for c in silent["customers"]]
    assert len(recencies) == 10 and recencies == sorted(recencies) and recencies[0] >= 180

    assert first["total"] == 300 and second["offset"] == 3
    assert first["customers"] + second["customers"] == both["customers"]
    assert uk["filters"] == {"country": "United Kingdom"}  # alias resolved; "" segment = no filter
    assert uk["total"] == _one(db, "SELECT COUNT(*) FROM customer_stats WHERE country = 'United Kingdom'")


async def test_sales_summary_answers_totals_for_a_period_and_place(
    retail_db: Path, db: sqlite3.Connection
) -> None:
    async with mcp_session(["--db", str(retail_db)]) as session:
        march = await call_json(session, "sales_summary", {"date_from": "2025-03", "date_to": "2025-03"})
        germany = await call_json(
            session, "sales_summary", {"country": "Germany", "date_from": "2024", "date_to": "2024"}
        )
        everything = await call_json(session, "sales_summary")

    assert march["filters"] == {"date_from": "2025-03-01", "date_to": "2025-03-31"}
    revenue, orders, buyers = db.execute(
        "SELECT SUM(amount), COUNT(DISTINCT CASE WHEN is_cancellation = 0 THEN invoice END), "
        "COUNT(DISTINCT CASE WHEN is_cancellation = 0 THEN customer_id END) FROM transactions "
        "WHERE substr(invoiced_at, 1, 7) = '2025-03'"
    ).fetchone()
    assert march["revenue"] == pytest.approx(revenue, abs=0.01)
    assert (march["orders"], march["customers"]) == (orders, buyers)
    assert march["avg_order_value"] == pytest.approx(revenue / orders, abs=0.01)
    assert march["first_day"] >= "2025-03-01" and march["last_day"] <= "2025-03-31"

    assert germany["filters"] == {"country": "Germany", "date_from": "2024-01-01", "date_to": "2024-12-31"}
    expected = _one(
        db, "SELECT SUM(amount) FROM transactions WHERE country = 'Germany' AND invoiced_at LIKE '2024-%'"
    )
    assert germany["revenue"] == pytest.approx(expected, abs=0.01)
    assert everything["filters"] == {} and everything["orders"] == _one(
        db, "SELECT COUNT(DISTINCT invoice) FROM transactions WHERE is_cancellation = 0"
    )


async def test_monthly_trend_overall_by_segment_country_and_range(retail_db: Path) -> None:
    async with mcp_session(["--db", str(retail_db)]) as session:
        overall = await call_json(session, "monthly_trend")
        year = await call_json(session, "monthly_trend", {"date_from": "2024-01", "date_to": "2024-12"})
        quarter = await call_json(
            session,
            "monthly_trend",
            {"country": "Germany", "segment": "Regular", "date_from": "2025-07-01", "date_to": "2025-09-30"},
        )
        too_long = await session.call_tool("monthly_trend", {"date_from": "2023-01", "date_to": "2025-12"})

    assert [p["month"] for p in overall["months"]] == [f"2025-{m:02d}" for m in range(7, 13)]
    assert overall["filters"] == {} and set(overall["months"][0]) == {"month", "revenue", "orders", "buyers"}
    assert [p["month"] for p in year["months"]] == [f"2024-{m:02d}" for m in range(1, 13)]
    assert [p["month"] for p in quarter["months"]] == ["2025-07", "2025-08", "2025-09"]
    assert quarter["filters"] == {
        "segment": "Regular",
        "country": "Germany",
        "date_from": "2025-07-01",
        "date_to": "2025-09-30",
    }
    assert all(
        p["orders"] <= q["orders"] for p, q in zip(quarter["months"], overall["months"][:3], strict=True)
    )
    assert too_long.is_error and f"more than {MAX_MONTHS} months" in text_of(too_long)
    best = max(year["months"], key=lambda p: p["revenue"])
    assert year["summary"]["highest_revenue_month"] == best["month"]
    assert year["summary"]["highest_revenue"] == best["revenue"]
    assert year["summary"]["total_orders"] == sum(p["orders"] for p in year["months"])


async def test_top_products_and_country_breakdown(retail_db: Path, db: sqlite3.Connection) -> None:
    mug = _one(db, "SELECT description FROM products WHERE description LIKE '%MUG%' LIMIT 1")
    async with mcp_session(["--db", str(retail_db)]) as session:
        best = await call_json(session, "top_products")
        by_units = await call_json(
            session, "top_products", {"sort_by": "quantity", "country": "France", "limit": 3}
        )
        one = await call_json(session, "top_products", {"product": mug.lower()})
        countries = await call_json(session, "country_breakdown")
        all_countries = await call_json(session, "country_breakdown", {"limit": MAX_COUNTRY_ROWS})
        at_risk = await call_json(session, "country_breakdown", {"segment": "At Risk", "limit": 3})

    assert len(best["products"]) == 5 and best["by"] == "revenue"
    assert set(best["products"][0]) == {"product", "code", "revenue", "quantity", "orders", "buyers"}
    revenues = [p["revenue"] for p in best["products"]]
    assert revenues == sorted(revenues, reverse=True)
    top_code = db.execute(
        "SELECT stock_code FROM transactions GROUP BY stock_code "
        "ORDER BY SUM(amount) DESC, stock_code LIMIT 1"
    ).fetchone()[0]
    assert best["products"][0]["code"] == top_code

    assert by_units["filters"] == {"country": "France"} and len(by_units["products"]) == 3
    units = [p["quantity"] for p in by_units["products"]]
    assert units == sorted(units, reverse=True)
    assert any(p["product"] == mug for p in one["products"])
    assert all("mug" in p["product"].lower() for p in one["products"])

    n_countries = _one(db, "SELECT COUNT(DISTINCT country) FROM transactions")
    assert countries["total"] == n_countries and len(countries["countries"]) == min(10, n_countries)
    assert countries["countries"][0]["country"] == "United Kingdom"
    assert set(countries["countries"][0]) == {
        "country",
        "customers",
        "revenue",
        "revenue_share",
        "orders",
        "avg_order_value",
    }
    assert len(all_countries["countries"]) == n_countries
    assert sum(c["revenue_share"] for c in all_countries["countries"]) == pytest.approx(1.0, abs=1e-3)
    uk = all_countries["countries"][0]
    assert uk["customers"] == _one(
        db,
        "SELECT COUNT(DISTINCT customer_id) FROM transactions WHERE country = 'United Kingdom' "
        "AND is_cancellation = 0",
    )
    assert at_risk["filters"] == {"segment": "At Risk"} and len(at_risk["countries"]) == 3


BAD_CALLS = [
    ("find_customers", {"limit": MAX_LIMIT + 1}, f"limit: Input should be less than or equal to {MAX_LIMIT}"),
    ("find_customers", {"min_orders": 5, "max_orders": 2}, "min_orders must not exceed max_orders"),
    ("find_customers", {"sort_by": "name"}, "sort_by"),
    (
        "find_customers",
        {"country": "Narnia"},
        "no country named 'Narnia' in the data; countries: United Kingdom,",
    ),
    ("top_customers", {"limit": MAX_LIMIT + 1}, "limit"),
    ("top_products", {"limit": MAX_LIMIT + 1}, "limit"),
    ("top_products", {"customer_id": 1}, "no customer with id 1"),
    ("top_products", {"product": "FLYING CARPET"}, "no product matching 'FLYING CARPET'"),
    ("sales_summary", {"customer_id": 1}, "no customer with id 1"),
    (
        "sales_summary",
        {"date_from": "2025-02-01", "date_to": "2025-01-01"},
        "date_from must not be after date_to",
    ),
    ("sales_summary", {"date_from": "March"}, "date_from"),
    ("sales_summary", {"segment": "VIP"}, "unknown segment 'VIP'"),
    ("country_breakdown", {"limit": MAX_COUNTRY_ROWS + 1}, f"less than or equal to {MAX_COUNTRY_ROWS}"),
    ("monthly_trend", {"months": 0}, "months"),
    ("list_transactions", {"customer_id": 1}, "no customer with id 1"),
]


async def test_bad_arguments_are_one_line_tool_errors(retail_db: Path) -> None:
    async with mcp_session(["--db", str(retail_db)]) as session:
        for tool, arguments, expected in BAD_CALLS:
            result = await session.call_tool(tool, arguments)
            assert result.is_error, (tool, arguments)
            assert expected in text_of(result), (tool, arguments, text_of(result))
            assert "\n" not in text_of(result)


async def test_lists_stay_small_for_a_small_model(retail_db: Path) -> None:
    """The largest answer each list tool can give, at its row cap, in characters."""
    async with mcp_session(["--db", str(retail_db)]) as session:
        sizes = {
            tool: len(text_of(await session.call_tool(tool, arguments)))
            for tool, arguments in {
                "find_customers": {"limit": MAX_LIMIT},
                "top_products": {"limit": MAX_LIMIT},
                "country_breakdown": {"limit": MAX_COUNTRY_ROWS},
                "monthly_trend": {"months": MAX_MONTHS},
                "list_transactions": {"limit": MAX_LIMIT},
            }.items()
        }
    assert all(size < 6_000 for size in sizes.values()), json.dumps(sizes)


async def test_every_result_leads_with_a_headline_that_states_its_answer(retail_db: Path) -> None:
    """A 0.5B model named the third row "the top customer" and a page size as the count: the
    headline says the leader, the count and the strongest month in words, first."""
    async with mcp_session(["--db", str(retail_db)]) as session:
        top = await call_json(session, "top_customers", {"country": "Germany"})
        found = await call_json(session, "find_customers", {"segment": "At Risk"})
        trend = await call_json(session, "monthly_trend", {"months": 12})
        countries = await call_json(session, "country_breakdown")
        products = await call_json(session, "top_products", {"sort_by": "quantity"})
        segments = await call_json(session, "list_segments")
        one = await call_json(session, "get_customer_summary", {"customer_id": top["customers"][0]["id"]})

    assert all(next(iter(r)) == "headline" for r in (top, found, trend, countries, products, segments, one))
    leaders = [f"customer {c['id']} (Germany" for c in top["customers"][:3]]
    assert top["headline"].startswith("The top customers by revenue (country Germany) are " + leaders[0])
    assert all(leader in top["headline"] for leader in leaders)
    assert found["headline"].startswith(f"{found['total']:,} customers match (segment At Risk)")
    at_risk = next(s for s in segments["segments"] if s["segment"] == "At Risk")
    assert found["total_revenue"] == pytest.approx(at_risk["revenue"])  # all of them, not one page
    assert f"revenue {at_risk['revenue']:,.2f} in total" in found["headline"]
    assert f"highest revenue in {trend['summary']['highest_revenue_month']}" in trend["headline"]
    assert f"is {countries['countries'][0]['country']}:" in countries["headline"]
    assert products["headline"].startswith(
        f"The top products by units sold are {products['products'][0]['product']}"
    )
    assert all(s["segment"] in segments["headline"] for s in segments["segments"])
    assert one["headline"].startswith(f"Customer {one['id']} is in the {one['segment']} segment")

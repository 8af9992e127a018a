"""``query_data`` over an imported export's own columns: the reading and figures written by code, a
name looked up in the data (none said, several offered as choices), a bad query one line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from sales_csv import STORE_EXPORT

from agent_orchestrator.mcp_server.server import RetailMCPServer, build_server
from agent_orchestrator.retail.datasets import DatasetLibrary, inspect_csv


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RetailMCPServer]:
    folder = tmp_path_factory.mktemp("query")
    path = folder / "store.csv"
    path.write_text(STORE_EXPORT)
    library = DatasetLibrary(folder / "data")
    preview = inspect_csv(path)
    mapping = {field: column for field, column in preview.mapping.items() if column}
    library.import_csv(path, mapping, preview.format, mode="replace", actor="admin", source_name="store.csv")
    yield build_server(library.current_path)
    library.close()


async def _ask(server: RetailMCPServer, **arguments: Any) -> dict[str, Any]:
    result = await server.call_tool("query_data", arguments)
    return json.loads(result.content[0].text)  # type: ignore[union-attr]


async def test_its_schema_is_the_datasets_own(server: RetailMCPServer) -> None:
    tool = next(t for t in await server.list_tools() if t.name == "query_data")
    schema = tool.input_schema
    assert "profit" in schema["properties"]["metrics"]["items"]["enum"]
    assert "region = region" in schema["properties"]["group_by"]["description"]
    regions = [
        shape
        for shape in schema["properties"]["filters"]["items"]["anyOf"]
        if shape["properties"].get("column", {}).get("const") == "region"
    ]
    assert regions[0]["properties"]["values"]["items"]["enum"] == ["South", "West"]


async def test_a_new_dimension_is_answered_with_its_reading_and_the_groups_total(
    server: RetailMCPServer,
) -> None:
    found = await _ask(server, metrics=["profit"], group_by=[{"column": "region"}])
    assert found["answer"].splitlines() == [
        "Profit by region, all time:",
        "1. South: 261.50",
        "2. West: -376.16",
        "",
        "Total of the 2: -114.66",
    ]
    assert found["overall"] == {"profit": -114.664}  # exact, as the rows are; the answer rounds it
    average = await _ask(server, metrics=["profit", "average_order_value"], group_by=[{"column": "region"}])
    assert average["answer"].splitlines()[-1].startswith("Overall: Profit -114.66; Average order value ")
    counted = await _ask(server, metrics=["orders"], group_by=[{"column": "region"}], count=True)
    assert "Total" not in counted["answer"] and "overall" not in counted  # a count of groups is its own total
    found = await _ask(
        server, metrics=["orders"], filters=[{"column": "ship_mode", "op": "in", "values": ["same day"]}]
    )
    assert found["answer"] == "Orders, Ship mode Same Day, all time: 1."


async def test_a_customer_is_named_as_the_file_names_them(server: RetailMCPServer) -> None:
    found = await _ask(server, metrics=["revenue"], group_by=[{"column": "customer_id"}], limit=1)
    assert found["answer"].splitlines()[1] == "1. Claire Gute (CG-12520): 993.90"
    assert "(top 1 of 3)" in found["answer"]


async def test_a_name_is_looked_up_never_guessed(server: RetailMCPServer) -> None:
    several = await _ask(
        server, metrics=["orders"], filters=[{"column": "customer_name", "op": "in", "values": ["Chand"]}]
    )
    assert several["answer"] == "Which customer do you mean: Darrin Chand or Sean Chand?"
    assert several["clarify"]["choices"] == ["Darrin Chand", "Sean Chand"]
    none = await _ask(
        server, metrics=["orders"], filters=[{"column": "region", "op": "in", "values": ["Narnia"]}]
    )
    assert none["answer"] == "I can't answer that from this data: no region is called 'Narnia'."
    bad = await _ask(server, metrics=["weather"])
    assert bad["answer"].startswith("I can't answer that from this data:") and "weather" in bad["answer"]


async def test_groups_tied_with_the_last_of_a_cut_list_are_named_too(server: RetailMCPServer) -> None:
    found = await _ask(server, metrics=["orders"], group_by=[{"column": "ship_mode"}], limit=1)
    lines = found["answer"].splitlines()
    assert lines[0] == "Orders by ship mode, all time (top 1 of 3, and 2 tied with the last):"
    assert len(lines) == 6 and len(found["rows"]) == 3
    assert lines[-1] == "Total of the 3: 3"  # every group's, not only the ones listed
    untied = await _ask(server, metrics=["orders"], group_by=[{"column": "region"}], limit=1)
    assert untied["answer"].splitlines() == [
        "Orders by region, all time (top 1 of 2):",
        "1. West: 2",
        "",
        "Total of the 2: 3",
    ]


async def test_a_word_naming_several_of_what_is_counted_counts_them(server: RetailMCPServer) -> None:
    found = await _ask(
        server, metrics=["products"], filters=[{"column": "product_name", "op": "in", "values": ["ab"]}]
    )
    assert found["answer"] == "Products, Product name containing ab, all time: 2."  # Labels, Table
    chosen = await _ask(
        server, metrics=["revenue"], filters=[{"column": "product_name", "op": "in", "values": ["ab"]}]
    )
    assert chosen["answer"] == "Which product do you mean: Labels or Table?"


async def test_a_count_and_a_share_of_a_whole_reach_the_tool(server: RetailMCPServer) -> None:
    counted = await _ask(server, metrics=["revenue"], group_by=[{"column": "region"}], count=True)
    assert counted["query"]["count"] is True
    assert counted["answer"].splitlines()[0] == "Number of regions (Revenue by region), all time: 2 regions"

    whole = await _ask(
        server,
        metrics=["revenue"],
        filters=[{"column": "region", "op": "in", "values": ["West"]}],
        share_of={},
    )
    assert (
        whole["answer"]
        == "Revenue, Region West, all time: 972.20 (49.45% of 1,966.10, the revenue of all time)."
    )

"""The planner and the real tools follow the data, not the code: after an import that brings a
product (its name and its stock code) and a country the generated shop never had, questions naming
them are read and answered with no change to the code (docs/architecture.md#dataset-versions).

Real parts only: the dataset library imports a real CSV file into a new version, the real MCP
server (over ``library.current_path``, as the web app runs it) lists its tools again for the new
file, and the query guide reads the questions from those schemas and calls the real tool.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_orchestrator.local_model.guide import GuidedAnswer, GuidedCall
from agent_orchestrator.mcp_server.server import RetailMCPServer, build_server
from agent_orchestrator.planner import QueryGuide
from agent_orchestrator.retail.datasets import DatasetLibrary, inspect_csv
from agent_orchestrator.retail.generator import GeneratorConfig, generate_dataset

PREFIX = "retail-analytics-"
PRODUCT, CODE, COUNTRY = "Moonstone Tea Kettle", "QZ7741", "Atlantis"
# Three sales of the new product in the new country (2 x 12.50 each: 75.00), and one of it in
# Germany (1 x 12.50), appended to the generated shop's own lines.
NEW_LINES = [
    ("880001", CODE, PRODUCT, 2, "2025-06-03 10:00:00", "12.50", "990001", COUNTRY),
    ("880002", CODE, PRODUCT, 2, "2025-06-04 11:00:00", "12.50", "990002", COUNTRY),
    ("880003", CODE, PRODUCT, 2, "2025-06-05 12:00:00", "12.50", "990003", COUNTRY),
    ("880004", CODE, PRODUCT, 1, "2025-06-06 13:00:00", "12.50", "990004", "Germany"),
]
HEADER = "InvoiceNo,StockCode,Description,Quantity,InvoiceDate,UnitPrice,CustomerID,Country"


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DatasetLibrary]:
    data = tmp_path_factory.mktemp("imported")
    generate_dataset(data / "retail.sqlite", GeneratorConfig(seed=3, customers=300, transactions=3_000))
    found = DatasetLibrary(data)
    yield found
    found.close()


async def _tools(server: RetailMCPServer) -> list[dict[str, Any]]:
    """The tools as the runtime offers them to a model (OpenAI function tools)."""
    return [
        {
            "type": "function",
            "function": {"name": PREFIX + t.name, "description": t.description, "parameters": t.input_schema},
        }
        for t in await server.list_tools()
    ]


def _countries(tools: list[dict[str, Any]]) -> list[str]:
    (analyze,) = [t for t in tools if t["function"]["name"] == f"{PREFIX}analyze_sales"]
    return analyze["function"]["parameters"]["properties"]["countries"]["items"]["enum"]


async def _ask(server: RetailMCPServer, question: str) -> tuple[dict[str, Any], str]:
    """One question, as the runtime runs it: the guide's call, the real tool's result, the answer."""
    guide, tools = QueryGuide(), await _tools(server)
    messages: list[dict[str, Any]] = [{"role": "user", "content": question}]
    step = guide.step(messages, tools)
    assert isinstance(step, GuidedCall), (question, step)
    result = await server.call_tool(step.name.removeprefix(PREFIX), step.arguments)
    content = result.content[0].text
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": step.name, "arguments": json.dumps(step.arguments)},
    }
    messages += [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": content},
    ]
    answer = guide.step(messages, tools)
    assert isinstance(answer, GuidedAnswer), (question, answer)
    return step.arguments, answer.text


async def test_a_product_and_a_country_only_the_import_brought_are_understood(
    library: DatasetLibrary, tmp_path: Path
) -> None:
    server = build_server(library.current_path)
    assert COUNTRY not in _countries(await _tools(server))
    _, before = await _ask(server, f"How much revenue did {PRODUCT} make?")
    assert f"nothing in the data matches '{PRODUCT}'" in before

    csv = tmp_path / "new-lines.csv"
    csv.write_text(HEADER + "\n" + "\n".join(",".join(map(str, line)) for line in NEW_LINES) + "\n")
    preview = inspect_csv(csv)
    mapping = {field: column for field, column in preview.mapping.items() if column}
    library.import_csv(csv, mapping, preview.format, mode="append", actor="admin", source_name=csv.name)
    assert COUNTRY in _countries(await _tools(server))  # the same server, its schema the new data's

    by_name, answer = await _ask(server, f"How much revenue did {PRODUCT} make?")
    assert by_name["products"] == [PRODUCT] and answer.endswith(": 87.50."), answer
    lower, answer = await _ask(
        server, f"how many units of {PRODUCT.lower()} did we sell in {COUNTRY.lower()}?"
    )
    assert (lower["measure"], lower["countries"], lower["products"]) == (
        "units",
        [COUNTRY],
        [PRODUCT.lower()],
    )
    assert answer == f"Units sold, {COUNTRY}, {PRODUCT} ({CODE}), all time: 6 units.", answer
    by_code, answer = await _ask(server, f"Revenue of {CODE} in {COUNTRY}")
    assert (by_code["countries"], by_code["products"]) == ([COUNTRY], [CODE]), by_code
    assert answer == f"Revenue, {COUNTRY}, {PRODUCT} ({CODE}), all time: 75.00.", answer
    customers, answer = await _ask(server, f"How many customers do we have in {COUNTRY}?")
    assert customers["countries"] == [COUNTRY] and answer.endswith(": 3 customers."), answer

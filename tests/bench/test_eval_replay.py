"""``--replay``'s checks of an up-rated answer asked again (bench/eval_replay.py): the new answer must
give the rated one's figures again, and every figure it gives must agree with what the rated answer
stood on -- what its tools returned, as the admin's export recorded it. The tool results here are
the real MCP server's answers over a generated dataset, so a change of their shape that the replay no
longer reads fails here."""

import importlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_orchestrator.mcp_server.server import build_server
from agent_orchestrator.retail import GeneratorConfig, generate_dataset

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
replay = importlib.import_module("eval_replay")


@pytest.fixture(scope="module")
def retail_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    config = GeneratorConfig(seed=5, customers=300, transactions=6_000, products=200)
    return generate_dataset(tmp_path_factory.mktemp("replay") / "retail.sqlite", config)


async def exported(db: Path, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """One tool result as the feedback export writes it."""
    answer = await build_server(db).call_tool(tool, arguments)
    assert not answer.is_error
    return {"tool": tool, "arguments": arguments, "content": answer.content[0].text}


def case_line(question: str, answer: str, rating: str, tool_results: list[dict[str, Any]]) -> str:
    case = {"question": question, "answer": answer, "rating": rating, "note": ""}
    return json.dumps(case | {"tool_results": tool_results, "rated_at": "2026-01-01T00:00:00+00:00"})


async def test_an_up_rated_answer_asked_again_may_only_show_figures_its_tools_returned(
    retail_db: Path, tmp_path: Path
) -> None:
    top = await exported(retail_db, "top_customers", {"limit": 3})
    segments = await exported(retail_db, "list_segments", {})
    rows = json.loads(top["content"])["customers"]
    high_value = json.loads(segments["content"])["segments"][0]
    first, second = rows[0], rows[1]
    rated = f"Customer {first['id']} spent {first['revenue']:,.2f}, the most."
    path = tmp_path / "cases.jsonl"
    path.write_text(case_line("Who are our top 3 customers?", rated, "up", [top, segments]) + "\n")
    (case,) = replay.read_cases(path)
    assert [r["tool"] for r in case.tool_results] == ["top_customers", "list_segments"]

    # Figures of the tools' rows, their list's length, a share as a percentage, rounded: all agree.
    again = (
        f"The top 3 are customer {first['id']} ({first['revenue'] / 1000:.1f}k) and {second['id']} "
        f"({second['revenue']:,.2f}) ...; {high_value['segment']} customers are "
        f"{high_value['share'] * 100:.0f} % of all."
    )
    assert replay.missing_figures(case.answer, again) == []
    assert replay.unsupported_figures(case, again) == []

    # A made-up customer and figure, and a wrong share, are not what the tools returned.
    invented = f"Customer {first['id']} spent {first['revenue']:,.2f}; customer 99123 spent 7,777,777."
    assert replay.unsupported_figures(case, invented) == ["99123", "7777777"]
    assert replay.unsupported_figures(case, "83 % are High Value.") == ["83%"]  # near no figure of seed 5
    done = replay.Replayed(case, invented, None, 1.0, [], replay.unsupported_figures(case, invented))
    assert done.outcome == "fail"


def test_without_tool_results_an_answer_stands_on_the_rated_answer_and_the_question(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text(
        case_line("Revenue in May 2025?", "Revenue in May was 1,234.50, up 12 % on April.", "up", [])
        + "\n"
        + json.dumps({"question": "Q", "answer": "A", "rating": "up", "note": "", "tool_results": "x"})
        + "\n"
    )
    (case,) = replay.read_cases(path)  # the second line's tool results are not a list: skipped
    assert replay.unsupported_figures(case, "In May 2025 it was £1,235 (+12%).") == []
    assert replay.unsupported_figures(case, "In May 2025 it was £1,235, 3,000 orders.") == ["3000"]
    assert replay.missing_figures(case.answer, "In May 2025 it was £1,235.") == ["12%"]

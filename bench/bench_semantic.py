"""How fast a question on a file's own columns is answered by the fast path: read in code, computed
by DuckDB, written by code (docs/architecture.md#the-semantic-model).

    uv run python bench/bench_semantic.py                      # a generated store export (50,000 lines)
    uv run python bench/bench_semantic.py --csv /work/evaldata/superstore/superstore.cp1252.csv

Prints, in one run: the import's extra cost (profile, model, Parquet rows) against the whole import,
the guide's first step on a new version (the vocabulary of every value), then per question the
reading (``DataGuide.step``) and the tool's answer (``tools_query.answer``), p50 and p90 over a set
of analysts' questions written for this bench. Target: the fast path ≤ 0.5 s p50.
"""

from __future__ import annotations

import argparse
import csv
import random
import statistics
import tempfile
import time
from pathlib import Path

from agent_orchestrator.local_model.guide import GuidedCall
from agent_orchestrator.mcp_server.tools_query import SemanticData, answer
from agent_orchestrator.planner.data_guide import DataGuide
from agent_orchestrator.retail.datasets import DatasetLibrary, inspect_csv
from agent_orchestrator.retail.datasets.semantic import semantic_source

QUESTIONS = (
    "profit by region",
    "which category had the lowest margin in 2016?",
    "top 5 states by sales outside the west",
    "how many orders were shipped same day?",
    "average discount by segment",
    "revenue by month in 2017",
    "who are our top 10 customers?",
    "which sub-categories lost money?",
    "what share of revenue comes from each region?",
    "units sold per category in q4 2017 vs q4 2016",
)
TOOLS = [{"type": "function", "function": {"name": "retail-analytics-query_data", "parameters": {}}}]


def generated_store(path: Path, lines: int) -> None:
    """A store export in the Superstore layout: orders of 1-4 lines over four years."""
    rng = random.Random(7)
    regions = {
        "West": ["California", "Washington"],
        "East": ["New York", "Ohio"],
        "South": ["Texas", "Florida"],
    }
    categories = {
        "Furniture": ["Chairs", "Tables"],
        "Technology": ["Phones", "Machines"],
        "Office": ["Paper"],
    }
    with path.open("w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(
            ["Row ID", "Order ID", "Order Date", "Ship Mode", "Customer ID", "Customer Name", "Segment",
             "State", "Region", "Product ID", "Category", "Sub-Category", "Product Name", "Sales",
             "Quantity", "Discount", "Profit"]
        )  # fmt: skip
        row = 0
        while row < lines:
            order = f"CA-{rng.randint(2014, 2017)}-{rng.randint(100000, 999999)}"
            day = f"{rng.randint(1, 12)}/{rng.randint(1, 28)}/{order[3:7]}"
            customer = rng.randint(1, 800)
            region = rng.choice(list(regions))
            for _ in range(rng.randint(1, 4)):
                row += 1
                category = rng.choice(list(categories))
                sub = rng.choice(categories[category])
                product = rng.randint(1, 1500)
                sales = round(rng.uniform(2, 2000), 4)
                out.writerow(
                    [row, order, day, rng.choice(["Same Day", "First Class", "Standard Class"]),
                     f"CU-{customer:05d}", f"Customer {customer}", rng.choice(["Consumer", "Corporate"]),
                     rng.choice(regions[region]), region, f"P-{product}", category, sub,
                     f"{sub} model {product}", sales, rng.randint(1, 9), rng.choice([0, 0.2]),
                     round(sales * rng.uniform(-0.3, 0.4), 4)]
                )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--csv", type=Path, help="a store export (default: one generated)")
    parser.add_argument("--lines", type=int, default=50_000)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = options.csv
        if path is None:
            path = Path(folder) / "store.csv"
            generated_store(path, options.lines)
        library = DatasetLibrary(Path(folder) / "data")
        preview = inspect_csv(path)
        mapping = {field: column for field, column in preview.mapping.items() if column}
        started = time.perf_counter()
        report = library.import_csv(path, mapping, preview.format, mode="replace", actor="b", source_name="b")
        whole = time.perf_counter() - started
        started = time.perf_counter()
        semantic_source(library.current_path())
        extract = time.perf_counter() - started
        print(
            f"import of {report.imported:,} lines: {whole:.2f} s (rows out of the version: {extract:.3f} s)"
        )
        guide = DataGuide(library.current_path)
        started = time.perf_counter()
        guide.step([{"role": "user", "content": QUESTIONS[0]}], TOOLS)
        print(f"first question on a new version (every value's words): {time.perf_counter() - started:.2f} s")
        data = SemanticData(library.current_path())
        reads, answers, unread = [], [], []
        for _ in range(3):
            for question in QUESTIONS:
                started = time.perf_counter()
                step = guide.step([{"role": "user", "content": question}], TOOLS)
                reads.append(time.perf_counter() - started)
                if not isinstance(step, GuidedCall):
                    unread.append(question)
                    continue
                started = time.perf_counter()
                answer(data, step.arguments)
                answers.append(time.perf_counter() - started)
        data.engine.close()
        library.close()

    def line(name: str, values: list[float]) -> str:
        values = sorted(values)
        p90 = values[int(len(values) * 0.9) - 1]
        return f"{name}: p50 {statistics.median(values) * 1000:.1f} ms, p90 {p90 * 1000:.1f} ms"

    print(line("reading (DataGuide.step)", reads))
    print(line("answer (query_data)", answers))
    total = statistics.median(reads) + statistics.median(answers)
    print(
        f"fast path, p50 reading + answer: {total * 1000:.1f} ms (target ≤ 500 ms: {total / 0.5:.2f} of it)"
    )
    if unread:
        print(f"left to the retail reader (a question every sales table answers): {sorted(set(unread))}")


if __name__ == "__main__":
    main()

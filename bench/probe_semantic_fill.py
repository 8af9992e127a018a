"""Can the embedded model fill a semantic query under a grammar? A probe for issue 43's design.

    uv run python bench/probe_semantic_fill.py --data /work/evaldata/superstore/superstore.csv [--linked]

The dataset's model is suggested from the file (``semantic.suggest_model``), its query schema turned
into a GBNF grammar by llama.cpp's converter (vendored in cyllama), and the 0.5B model asked to fill
it for each question below (questions of this probe's own, written for it: never the blind bank's).
Every output parses and names only what the model has, by construction; the probe prints, for each
question, the query, whether its answer equals the answer of the query written by hand, and the
time, then the share right and the median latency. Nothing is tuned here: it measures how far the
bare design goes before a fast path, few-shot examples or follow-up patches are added.

Measured (Dec 2026, 0.5B, 2 cores, fill p50 about 5 s without a prefix cache): 5/20 right with one
free-form grammar; 8/20 once a grain could only go with a date column; 7/20 once each filter's values
were its own column's; 6/20 with ``--linked`` (the grammar offers only the values, columns, metrics
and grains the question names; 7/20 without it in the same run). Every output is valid JSON of the
model's names. The misses say what the model should not be asked: it fills every optional field it
is offered -- a window over all the data or from the wrong day, a filter on a metric with a made-up
threshold, order "desc" for "lowest" -- whatever the grammar allows. So narrowing the choices is not
enough; the next step is to ask it fewer things: periods and values linked in code (today's
timeframe reader, ``vocabulary.py``), the query's optional parts added only when the question names
them, and the model left to choose among what remains (which metric, which grouping, which order),
one small decision at a time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from datetime import date
from pathlib import Path
from typing import Any

from cyllama.utils.json_schema_to_grammar import json_schema_to_grammar

from agent_orchestrator.local_model.engine import GenerationParams, GenerationStats, LocalEngine
from agent_orchestrator.local_model.weights import resolve_weights
from agent_orchestrator.semantic import (
    Engine,
    SemanticModel,
    SemanticQuery,
    Vocabulary,
    profile_csv,
    query_schema,
    suggest_model,
)

PROJECT = Path(__file__).resolve().parents[1]

# (question, the query a person would write for it): the probe's own, on the Superstore layout.
QUESTIONS: list[tuple[str, dict[str, Any]]] = [
    ("What was total revenue?", {"metrics": ["revenue"]}),
    ("profit by region", {"metrics": ["profit"], "group_by": [{"column": "region"}]}),
    (
        "How many orders did we get in 2016?",
        {"metrics": ["orders"], "window": {"start": "2016-01-01", "end": "2016-12-31"}},
    ),
    ("top 5 states by sales", {"metrics": ["revenue"], "group_by": [{"column": "state"}], "limit": 5}),
    (
        "which category has the lowest profit margin?",
        {"metrics": ["margin"], "group_by": [{"column": "category"}], "order": "asc", "limit": 1},
    ),
    (
        "revenue per month in 2017",
        {
            "metrics": ["revenue"],
            "group_by": [{"column": "order_date", "grain": "month"}],
            "window": {"start": "2017-01-01", "end": "2017-12-31"},
            "limit": 12,
        },
    ),
    (
        "How many customers are in the Corporate segment?",
        {"metrics": ["customers"], "filters": [{"column": "segment", "op": "in", "values": ["Corporate"]}]},
    ),
    (
        "sales excluding Technology",
        {
            "metrics": ["revenue"],
            "filters": [{"column": "category", "op": "not_in", "values": ["Technology"]}],
        },
    ),
    (
        "average discount in the Central region",
        {
            "metrics": ["average_discount"],
            "filters": [{"column": "region", "op": "in", "values": ["Central"]}],
        },
    ),
    (
        "number of orders shipped Same Day",
        {"metrics": ["orders"], "filters": [{"column": "ship_mode", "op": "in", "values": ["Same Day"]}]},
    ),
    (
        "average order value by segment",
        {"metrics": ["average_order_value"], "group_by": [{"column": "segment"}]},
    ),
    (
        "units sold of Phones",
        {"metrics": ["units"], "filters": [{"column": "sub_category", "op": "in", "values": ["Phones"]}]},
    ),
    (
        "Which sub-category sold the most units?",
        {"metrics": ["units"], "group_by": [{"column": "sub_category"}], "limit": 1},
    ),
    (
        "profit in California in 2015",
        {
            "metrics": ["profit"],
            "filters": [{"column": "state", "op": "in", "values": ["California"]}],
            "window": {"start": "2015-01-01", "end": "2015-12-31"},
        },
    ),
    (
        "what share of sales does each region make?",
        {"metrics": ["revenue"], "group_by": [{"column": "region"}], "share": True},
    ),
    (
        "How many orders were placed on 2017-11-24?",
        {"metrics": ["orders"], "window": {"start": "2017-11-24", "end": "2017-11-24"}},
    ),
    (
        "revenue by ship mode in the West",
        {
            "metrics": ["revenue"],
            "group_by": [{"column": "ship_mode"}],
            "filters": [{"column": "region", "op": "in", "values": ["West"]}],
        },
    ),
    (
        "Which states lost money?",
        {
            "metrics": ["profit"],
            "group_by": [{"column": "state"}],
            "filters": [{"metric": "profit", "op": "lt", "values": [0]}],
            "order": "asc",
        },
    ),
    (
        "customer count per year",
        {"metrics": ["customers"], "group_by": [{"column": "order_date", "grain": "year"}]},
    ),
    ("When was the last order?", {"metrics": ["last_order_date"]}),
]


def describe(
    model: SemanticModel, values: dict[str, list[str]], span: tuple[date | None, date | None]
) -> str:
    """The dataset as the model reads it before filling a query: metrics, columns, a few values."""
    metrics = "; ".join(f"{m.name} ({', '.join(m.synonyms[:4]) or m.title.lower()})" for m in model.metrics)
    columns = []
    for column in model.groupable + model.with_role("time"):  # type: ignore[arg-type]
        known = values.get(column.name)
        shown = f": {', '.join(known[:8])}" if known else ""
        columns.append(f"{column.name}{shown}")
    first, last = span
    return (
        f"Sales data from {first} to {last}.\n"
        f"Metrics: {metrics}.\n"
        f"Columns: {'; '.join(columns)}.\n"
        "Write the question as a JSON query: metrics to compute, group_by columns (a date column with a "
        "grain), filters (column, op, values), a window of days (start, end), order (desc for highest, "
        "asc for lowest), limit."
    )


def fill(llm: LocalEngine, system: str, question: str, grammar: str) -> tuple[str, float]:
    template = "<|im_start|>system\n{s}<|im_end|>\n<|im_start|>user\n{q}<|im_end|>\n<|im_start|>assistant\n"
    prompt = template.format(s=system, q=question)
    started = time.perf_counter()
    pieces = []
    for piece in llm.generate(prompt, GenerationParams(max_tokens=200, grammar=grammar)):
        if not isinstance(piece, GenerationStats):
            pieces.append(piece)
    return "".join(pieces), time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="a CSV in the Superstore layout")
    parser.add_argument(
        "--linked", action="store_true", help="restrict each grammar to what the question names"
    )
    args = parser.parse_args()
    model = suggest_model(profile_csv(args.data), args.data.stem)
    engine = Engine(model, args.data)
    values = engine.values()
    vocabulary = Vocabulary(model, engine.words())
    system = describe(model, values, engine.span())
    weights = resolve_weights("0.5b", cache_dir=PROJECT / ".data" / "models", progress=False)
    llm = LocalEngine(weights, n_ctx=4096)
    llm.warm_up()
    right, times = 0, []
    for question, expected in QUESTIONS:
        # With --linked, the grammar offers only what the question was found to name (vocabulary.py).
        schema = query_schema(model, values, vocabulary.find(question) if args.linked else None)
        text, seconds = fill(llm, system, question, json_schema_to_grammar(schema))
        times.append(seconds)
        truth = engine.run(SemanticQuery.model_validate(expected)).rows
        try:
            got = engine.run(SemanticQuery.model_validate(json.loads(text))).rows
            verdict = "right" if got == truth else "wrong answer"
        except Exception as error:  # a query the model may write but the checks refuse
            verdict = f"refused: {str(error).splitlines()[0][:80]}"
        right += verdict == "right"
        print(f"{seconds:5.1f} s  {verdict:12.12}  {question}\n         {text}")
    print(
        f"\n{right}/{len(QUESTIONS)} right ({right / len(QUESTIONS):.0%}); "
        f"fill p50 {statistics.median(times):.1f} s, max {max(times):.1f} s (0.5B, 2 cores, no prefix cache)"
    )


if __name__ == "__main__":
    main()

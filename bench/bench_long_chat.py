"""Does a long chat stay as fast as a fresh one? Turn times through the real web API and runtime.

    uv run python bench/bench_long_chat.py [--turns 50] [--model 0.5b|1.5b]

One chat of ``--turns`` analyst questions that need a tool (segments, countries, months, customers in
rotation), on the embedded model. Printed: every turn's time, p50 of the first five turns (a fresh
chat), p50 of the last ten, and their ratio (target ≤ 1.5).

The history the model reads is windowed in blocks (``local_model.history_window``), and each turn
prefills only the newest messages (KV cache), so turn time should not grow with the chat's length.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from eval_assistant import AssistantClient, embedded_route, prepare_home

from agent_orchestrator.testing.app_process import AppProcess

QUESTIONS = (
    "How many customers are in the {segment} segment?",
    "Who are the top 3 customers in {country}?",
    "What was our revenue in {month}?",
    "Which country brings the most revenue among {segment} customers?",
    "Show the monthly revenue trend for {country}.",
)
SEGMENTS = ("At Risk", "High Value", "Regular", "New")
COUNTRIES = ("Germany", "France", "Spain", "Italy", "Netherlands", "Belgium", "Sweden")
MONTHS = ("March 2025", "April 2025", "May 2025", "June 2025", "July 2025", "August 2025")


def question(i: int) -> str:
    return QUESTIONS[i % len(QUESTIONS)].format(
        segment=SEGMENTS[i % len(SEGMENTS)],
        country=COUNTRIES[i % len(COUNTRIES)],
        month=MONTHS[i % len(MONTHS)],
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=50)
    parser.add_argument("--model", default="0.5b")
    args = parser.parse_args()
    route = embedded_route(args.model, None)
    if isinstance(route, str):
        print(f"skipped: {route}")
        return 0
    with tempfile.TemporaryDirectory(prefix="bench-long-chat-") as tmp:
        env = {**os.environ, "AGENT_ORCHESTRATOR_HOME": tmp, **route.env}
        prepare_home(Path(tmp), 42, env)
        app = AppProcess(env).start(timeout=600)
        client = AssistantClient(app.url)
        try:
            session = client.new_session("long chat")
            times: list[float] = []
            for i in range(args.turns):
                answer = client.ask(session, question(i))
                times.append(answer.seconds)
                status = "error: " + answer.error if answer.error else f"tools:{len(answer.tools)}"
                print(f"[{i + 1:3}/{args.turns}] {answer.seconds:5.1f}s {status} {question(i)}", flush=True)
        finally:
            client.close()
            app.stop()
    fresh = statistics.median(times[:5])
    late = statistics.median(times[-10:])
    print(f"\nroute: {route.description}")
    last = f"turns {args.turns - 9}-{args.turns}"
    print(f"turns 1-5 p50 {fresh:.1f}s, {last} p50 {late:.1f}s: ratio {late / fresh:.2f} (target <= 1.5)")
    print(f"all turns: p50 {statistics.median(times):.1f}s, max {max(times):.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

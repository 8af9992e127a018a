"""Behaviour eval of the embedded model through the local server, at temperature 0.

    uv run python bench/eval_local_model.py [--model 0.5b|1.5b] [--model-path P]
                                            [--base-url URL --api-key TOKEN]
                                            [--cases bench/eval_cases.json] [--only ID] [-v]

The cases (bench/eval_cases.json) are data: conversations plus case-insensitive substring checks on
the final reply (a tool call fails a case unless it says ``tool_call_ok``). Categories: memory across
turns, answers grounded in tool results (the conversation holds the assistant's tool calls and the
``tool`` messages answering them), and not inventing data that is absent. Tools are offered on every
request, as the Copilot runtime does (``--no-tools`` to compare: the 0.5B model recalls facts far
better when no tools are offered).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]


def build_prefix(case: dict[str, Any], system: str) -> list[dict[str, Any]]:
    return [{"role": "system", "content": case.get("system", system)}]


def tool_messages(case: dict[str, Any]) -> list[dict[str, Any]]:
    """The question, the assistant's tool calls (content null) and one ``tool`` message per call."""
    calls = [
        {
            "id": f"call_{i}",
            "type": "function",
            "function": {"name": r["name"], "arguments": json.dumps(r["arguments"])},
        }
        for i, r in enumerate(case["tool_results"])
    ]
    results = [
        {"role": "tool", "tool_call_id": f"call_{i}", "content": r["result"]}
        for i, r in enumerate(case["tool_results"])
    ]
    return [
        {"role": "user", "content": case["question"]},
        {"role": "assistant", "content": None, "tool_calls": calls},
        *results,
    ]


def ask(
    client: httpx.Client, messages: list[dict[str, Any]], tools: list[dict[str, Any]], max_tokens: int
) -> dict:
    body = {"model": "eval", "messages": messages, "temperature": 0, "max_tokens": max_tokens}
    if tools:
        body["tools"] = tools
    r = client.post("/chat/completions", json=body)
    r.raise_for_status()
    return r.json()["choices"][0]["message"]


def reply_text(message: dict[str, Any]) -> str:
    text = message.get("content") or ""
    for call in message.get("tool_calls") or ():  # every case wants an answer: a call fails it
        text += f" [tool_call {call['function']['name']} {call['function']['arguments']}]"
    return text.strip()


def run_case(client: httpx.Client, case: dict[str, Any], system: str, tools: list, max_tokens: int) -> str:
    messages = build_prefix(case, system)
    reply: dict[str, Any] = {}
    for turn in case.get("turns", []):
        messages.append({"role": "user", "content": turn})
        reply = ask(client, messages, tools, max_tokens)
        messages.append({"role": "assistant", "content": reply.get("content"), **_calls(reply)})
    if "tool_results" in case:
        messages += tool_messages(case)
        reply = ask(client, messages, tools, max_tokens)
    return reply_text(reply)


def _calls(reply: dict[str, Any]) -> dict[str, Any]:
    return {"tool_calls": reply["tool_calls"]} if reply.get("tool_calls") else {}


def check(answer: str, rules: dict[str, list[str]]) -> list[str]:
    """The failed rules, as readable strings (empty = pass)."""
    low = answer.lower()
    failed = ["a tool call instead of an answer"] if "[tool_call " in answer else []
    failed += [f"missing {s!r}" for s in rules.get("contains_all", []) if s.lower() not in low]
    anyof = rules.get("contains_any", [])
    if anyof and not any(s.lower() in low for s in anyof):
        failed.append(f"none of {anyof}")
    failed += [f"contains {s!r}" for s in rules.get("excludes", []) if s.lower() in low]
    return failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="0.5b")
    parser.add_argument("--model-path", type=Path, default=None)
    parser.add_argument("--base-url", default=None, help="use a running server instead of starting one")
    parser.add_argument("--api-key", default=None, help="the running server's token (serve prints it)")
    parser.add_argument("--cases", type=Path, default=ROOT / "bench" / "eval_cases.json")
    parser.add_argument("--only", action="append", default=[], help="run only these case ids")
    parser.add_argument("--max-tokens", type=int, default=80)
    parser.add_argument("--no-tools", action="store_true", help="offer no tools (the runtime always does)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every answer")
    args = parser.parse_args()

    spec = json.loads(args.cases.read_text())
    cases = [c for c in spec["cases"] if not args.only or c["id"] in args.only]
    with ExitStack() as stack:
        base_url, api_key = args.base_url, args.api_key
        if base_url is None:
            from agent_orchestrator.local_model.server import LocalModelServer
            from agent_orchestrator.local_model.weights import get_choice, resolve_weights

            choice = get_choice(args.model)
            path = resolve_weights(choice, cache_dir=ROOT / ".data" / "models", explicit_path=args.model_path)
            server = stack.enter_context(LocalModelServer(path, model_id=choice.model_id))
            base_url, api_key = server.base_url, server.token
            print(f"model {path.name}")
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        client = stack.enter_context(httpx.Client(base_url=base_url, headers=headers, timeout=600))
        per_category: dict[str, list[bool]] = defaultdict(list)
        started = time.perf_counter()
        for case in cases:
            tools = [] if args.no_tools else spec["tools"]
            answer = run_case(client, case, spec["system"], tools, args.max_tokens)
            failed = check(answer, case["check"])
            if case.get("tool_call_ok") and "[tool_call " in answer:
                failed = []  # fetching the data instead of guessing it is right too
            per_category[case["category"]].append(not failed)
            status = "PASS" if not failed else "FAIL"
            line = f"{status} {case['id']:32}"
            if failed or args.verbose:
                line += f" {answer[:140]!r}" + (f"  <- {'; '.join(failed)}" if failed else "")
            print(line)
    total = [ok for oks in per_category.values() for ok in oks]
    print(f"\n{time.perf_counter() - started:.0f}s")
    for category, oks in per_category.items():
        print(f"{category:14} {sum(oks)}/{len(oks)}")
    print(f"pass rate: {sum(total)}/{len(total)} = {sum(total) / max(len(total), 1):.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

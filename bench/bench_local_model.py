"""Benchmark the local model: our HTTP server vs the raw llama.cpp binding, same prompt, same threads.

    uv run python bench/bench_local_model.py [--model-path P] [--ctx 8192] [--tokens 128] [--repeats 3]

Figures:
- load: server process start -> /health answers (and the engine's own load time); raw: model + context;
- first token, turn 1: a fresh conversation (system prompt + question), streamed;
- first token, turn 2: the same conversation extended by the reply and a follow-up. The server keeps
  the KV cache of turn 1, so it prefills only the new tokens; "turn 2 cold" is the same request after
  an unrelated one has evicted that prefix, i.e. what every turn would cost without prefix reuse;
- a checked answer after tool results, streamed: when its first sentence arrives against when the
  whole answer has (each sentence goes out once checked; before, nothing went out until the end);
- decode tok/s: completion tokens after the first / time from first to last token (median of repeats);
- peak RSS: VmHWM of the server process; ru_maxrss of this process for the raw run.

The server runs as a subprocess (``python -m agent_orchestrator.local_model serve``) so its RSS is its
own; the raw run happens afterwards in this process, so the two never compete for the two cores.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import secrets
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

from agent_orchestrator.local_model.engine import GenerationParams, LocalEngine

ROOT = Path(__file__).resolve().parents[1]
TOKEN = secrets.token_urlsafe(32)  # the server's API key: it answers no one without it
SYSTEM = (
    "You are a retail-analytics assistant for a UK online shop. You answer questions about customers, "
    "segments (Champions, Loyal, At Risk, Hibernating, Lost), orders and revenue. Be precise, show "
    "your reasoning briefly, and prefer short Python snippets when code helps. Never invent figures."
)
TURN1 = "Write a Python class Inventory with add, remove and report methods, with docstrings."
TURN2 = "Now add a method that returns the three items with the lowest stock."
PAUSE = 1.0
OTHER = "What is the capital of France? Answer in one word."
_CALL = {"id": "c1", "type": "function", "function": {"name": "sales_by_region", "arguments": "{}"}}
_REGIONS = {"North": 48213.5, "South": 31877.25, "East": 22410.0, "West": 9105.75}
TOOL_ANSWER = [
    {
        "role": "user",
        "content": "Describe our sales by region: which regions lead, which lag, and by how much?",
    },
    {"role": "assistant", "content": None, "tool_calls": [_CALL]},
    {"role": "tool", "tool_call_id": "c1", "content": json.dumps({"regions": _REGIONS})},
]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "sales_by_region",
            "description": "Sales per region.",
            "parameters": {"type": "object", "properties": {}},
        },
    }
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stream_timed(
    client: httpx.Client, messages: list[dict], max_tokens: int, tools: list[dict] | None = None
) -> dict:
    """One streamed completion: first-token latency, decode rate, text and usage."""
    body = {
        "model": "bench",
        "messages": messages,
        "temperature": 0,
        "max_tokens": max_tokens,
        "stream": True,
        "stream_options": {"include_usage": True},
        **({"tools": tools} if tools else {}),
    }
    started = time.perf_counter()
    first = last = None
    text, usage = [], None
    with client.stream("POST", "/chat/completions", json=body) as r:
        r.raise_for_status()
        for line in r.iter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            event = json.loads(line.removeprefix("data: "))
            if event.get("usage"):
                usage = event["usage"]
            for choice in event["choices"]:
                piece = choice["delta"].get("content")
                if piece:
                    now = time.perf_counter()
                    first = first or now
                    last = now
                    text.append(piece)
    assert first is not None and last is not None and usage is not None
    n = usage["completion_tokens"]
    return {
        "first_token_s": first - started,
        "last_token_s": last - started,
        "pieces": len(text),
        "decode_tps": (n - 1) / (last - first) if n > 1 and last > first else float("nan"),
        "completion_tokens": n,
        "prompt_tokens": usage["prompt_tokens"],
        "cached_tokens": usage["prompt_tokens_details"]["cached_tokens"],
        "text": "".join(text),
    }


class RawRunner:
    """The same prompt through cyllama's low-level API, the way llama.cpp's own examples decode."""

    def __init__(self, model_path: Path, ctx: int, threads: int) -> None:
        from cyllama.llama import llama_cpp as L

        self.L = L
        L.disable_logging()
        L.ggml_backend_load_all()
        started = time.perf_counter()
        self.model = L.LlamaModel(str(model_path), L.LlamaModelParams())
        params = L.LlamaContextParams()
        params.n_ctx, params.n_batch = ctx, 512
        params.n_threads = params.n_threads_batch = threads
        self.ctx = L.LlamaContext(self.model, params)
        self.load_s = time.perf_counter() - started
        self.vocab = self.model.get_vocab()

    def run(self, prompt: str, tokens: int) -> dict:
        L, ctx, vocab = self.L, self.ctx, self.vocab
        prompt_tokens = vocab.tokenize(prompt, add_special=True, parse_special=True)
        ctx.kv_cache_clear()
        sampler = L.LlamaSampler(L.LlamaSamplerChainParams())
        sampler.add_greedy()
        t0 = time.perf_counter()
        for j in range(0, len(prompt_tokens), 512):
            ctx.decode(L.llama_batch_get_one(prompt_tokens[j : j + 512], j))
        token = sampler.sample(ctx, -1)
        t_first = time.perf_counter()
        pos, n = len(prompt_tokens), 1
        while n < tokens and not vocab.is_eog(token):
            vocab.token_to_piece(token, special=True)
            ctx.decode(L.llama_batch_get_one([token], pos))
            pos += 1
            token = sampler.sample(ctx, -1)
            n += 1
        t_last = time.perf_counter()
        return {"first_token_s": t_first - t0, "decode_tps": (n - 1) / (t_last - t_first), "tokens": n}


def start_server(model_path: Path, ctx: int) -> tuple[subprocess.Popen, str, dict]:
    port = free_port()
    cmd = [sys.executable, "-m", "agent_orchestrator.local_model", "serve", "--model-path", str(model_path)]
    cmd += ["--port", str(port), "--ctx", str(ctx), "--token", TOKEN]
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stderr=subprocess.PIPE, text=True)
    root = f"http://127.0.0.1:{port}"
    while True:
        if proc.poll() is not None:
            raise SystemExit(f"server exited: {proc.stderr.read() if proc.stderr else ''}")
        try:
            health = httpx.get(f"{root}/health", timeout=1).json()
            break
        except httpx.HTTPError:
            time.sleep(0.05)
    return proc, root, {"load_s": time.perf_counter() - started, "engine_load_s": health["load_seconds"]}


def peak_rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("VmHWM")).split()[1]) / 1024


LCP_SNIPPET = r"""
import json, sys, time
from llama_cpp import Llama
path, prompt, prompt2, ctx, tokens, threads, repeats = sys.argv[1:8]
t0 = time.perf_counter()
n = int(threads)
llm = Llama(model_path=path, n_ctx=int(ctx), n_threads=n, n_threads_batch=n, verbose=False)
load = time.perf_counter() - t0

def run(p, n):
    start = time.perf_counter(); first = last = None; count = 0
    for chunk in llm.create_completion(p, max_tokens=n, temperature=0.0, stream=True):
        now = time.perf_counter(); first = first or now; last = now; count += 1
    return first - start, (count - 1) / (last - first) if count > 1 else float("nan"), count

run(prompt, 8)  # warm-up
rows = []
for _ in range(int(repeats)):
    llm.reset()
    ft1, tps, n = run(prompt, int(tokens))
    ft2, _, _ = run(prompt2, 8)  # built-in prefix reuse: prompt2 extends prompt
    rows.append((ft1, tps, ft2))
rows.sort(key=lambda r: r[1])
mid = rows[len(rows) // 2]
out = {"load_s": load, "first_token_t1_s": mid[0], "decode_tps": mid[1], "first_token_t2_s": mid[2]}
print(json.dumps(out))
"""


def bench_llama_cpp_python(
    python: str, path: Path, prompt: str, prompt2: str, args: argparse.Namespace
) -> dict:
    """The same prompts through llama-cpp-python (in its own virtualenv), for the binding choice."""
    threads = len(os.sched_getaffinity(0))
    argv = [python, "-c", LCP_SNIPPET, str(path), prompt, prompt2, str(args.ctx), str(args.tokens)]
    argv += [str(threads), str(args.repeats)]
    out = subprocess.run(argv, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def engine_decode_tps(engine: LocalEngine, prompt: str, tokens: int) -> float:
    """Decode rate of our engine on the prompt, from a cold KV cache (as the raw runner does)."""
    engine.reset()
    first = last = 0.0
    stats = None
    for item in engine.generate(engine.tokenize(prompt), GenerationParams(max_tokens=tokens, temperature=0)):
        if isinstance(item, str):
            last = time.perf_counter()
            first = first or last
        else:
            stats = item
    assert stats is not None
    return (stats.completion_tokens - 1) / (last - first) if last > first else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model-path", type=Path, default=None)
    parser.add_argument("--ctx", type=int, default=8192)
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--llama-cpp-python", metavar="PYTHON", help="also time llama-cpp-python in that interpreter"
    )
    args = parser.parse_args()

    from agent_orchestrator.local_model.chat_format import ChatTemplate, normalize_messages
    from agent_orchestrator.local_model.weights import resolve_weights

    path = args.model_path or resolve_weights("0.5b", cache_dir=ROOT / ".data" / "models")
    threads = len(os.sched_getaffinity(0))
    print(f"model {path.name}; {threads} cores; load avg before {os.getloadavg()[0]:.2f}")

    proc, root, server = start_server(path, args.ctx)
    try:
        raw_runner = RawRunner(path, args.ctx, threads)
        prompt_text = ChatTemplate(raw_runner.model.get_default_chat_template()).render(
            normalize_messages([{"role": "system", "content": SYSTEM}, {"role": "user", "content": TURN1}])
        )
        raw_runner.run(prompt_text, 8)  # warm-up, as the server does at load
        raw_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # before our engine loads
        engine = LocalEngine(path, n_ctx=args.ctx)  # our engine in this process: no HTTP, no client
        engine.warm_up()  # on this thread, which runs its generations too
        conv = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": TURN1}]
        s_t1, s_t2, s_cold, s_tps, r_t1, r_tps, e_tps = [], [], [], [], [], [], []
        answers: list[dict] = []
        auth = {"Authorization": f"Bearer {TOKEN}"}
        with httpx.Client(base_url=f"{root}/v1", headers=auth, timeout=600) as client:
            # Server and raw runs alternate, so a noisy neighbour hits both alike.
            for i in range(args.repeats):
                # Raw first on odd rounds, and a pause between the two: llama.cpp's worker threads
                # spin for a while after a decode and would slow down whichever runs next.
                raw = raw_runner.run(prompt_text, args.tokens) if i % 2 else None
                time.sleep(PAUSE)
                stream_timed(client, [{"role": "user", "content": OTHER}], 4)  # evict any cached prefix
                r1 = stream_timed(client, conv, args.tokens)
                turn2 = [
                    *conv,
                    {"role": "assistant", "content": r1["text"]},
                    {"role": "user", "content": TURN2},
                ]
                r2 = stream_timed(client, turn2, args.tokens)
                stream_timed(client, [{"role": "user", "content": OTHER}], 4)
                cold = stream_timed(client, turn2, 8)
                answers.append(stream_timed(client, TOOL_ANSWER, args.tokens, TOOLS))
                time.sleep(PAUSE)
                raw = raw or raw_runner.run(prompt_text, args.tokens)
                s_t1.append(r1["first_token_s"])
                s_t2.append(r2["first_token_s"])
                s_cold.append(cold["first_token_s"])
                s_tps += [r1["decode_tps"], r2["decode_tps"]]
                r_t1.append(raw["first_token_s"])
                r_tps.append(raw["decode_tps"])
                time.sleep(PAUSE)
                e_tps.append(engine_decode_tps(engine, prompt_text, args.tokens))
        server_rss = peak_rss_mb(proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    med = statistics.median
    lcp = None
    if args.llama_cpp_python:
        turn2_text = ChatTemplate(raw_runner.model.get_default_chat_template()).render(
            normalize_messages(
                [*conv, {"role": "assistant", "content": r1["text"]}, {"role": "user", "content": TURN2}]
            )
        )
        lcp = bench_llama_cpp_python(args.llama_cpp_python, path, prompt_text, turn2_text, args)

    print(f"load avg after {os.getloadavg()[0]:.2f}; medians of {args.repeats} alternating runs")
    print(f"{'':30}{'server':>9}{'raw':>9}")
    print(f"{'load (s)':30}{server['load_s']:>9.2f}{raw_runner.load_s:>9.2f}", end="")
    print(f"   server: process start to /health; engine {server['engine_load_s']:.2f} s incl. warm-up")
    print(f"{'first token, turn 1 (s)':30}{med(s_t1):>9.3f}{med(r_t1):>9.3f}", end="")
    print(f"   {r1['prompt_tokens']} prompt tokens; best {min(s_t1):.3f} / {min(r_t1):.3f}")
    print(f"{'first token, turn 2 (s)':30}{med(s_t2):>9.3f}{'':>9}", end="")
    print(f"   {r2['prompt_tokens']} prompt tokens, {r2['cached_tokens']} reused; best {min(s_t2):.3f}")
    print(f"{'first token, turn 2 cold (s)':30}{med(s_cold):>9.3f}{'':>9}", end="")
    print(f"   same prompt, nothing reused; best {min(s_cold):.3f}")
    first, whole = med(a["first_token_s"] for a in answers), med(a["last_token_s"] for a in answers)
    print(f"{'checked answer, first (s)':30}{first:>9.3f}{'':>9}", end="")
    print(
        f"   whole answer {whole:.3f} s (first/whole {first / whole:.2f});"
        f" in {answers[-1]['pieces']} piece(s)"
    )
    print(f"{'decode (tok/s)':30}{med(s_tps):>9.1f}{med(r_tps):>9.1f}", end="")
    print(f"   {r1['completion_tokens']} tokens; best {max(s_tps):.1f} / {max(r_tps):.1f}")
    print(f"{'peak RSS (MB)':30}{server_rss:>9.0f}{raw_rss:>9.0f}")
    print(
        f"server/raw decode ratio: median {med(s_tps) / med(r_tps):.2f}, best {max(s_tps) / max(r_tps):.2f}"
        " (target >= 0.9; medians swing with the neighbours' load, best-of-N less so)"
    )
    print(
        f"engine/raw decode ratio (our engine in-process, no HTTP): median {med(e_tps) / med(r_tps):.2f}; "
        "the rest of the server's gap is serving HTTP and a streaming client on the same two cores"
    )
    if lcp:
        print(
            f"llama-cpp-python: load {lcp['load_s']:.2f} s, first token t1 {lcp['first_token_t1_s']:.3f} s, "
            f"t2 (its prefix reuse) {lcp['first_token_t2_s']:.3f} s, decode {lcp['decode_tps']:.1f} tok/s"
        )


if __name__ == "__main__":
    main()

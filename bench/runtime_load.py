"""The throughput benchmark's yardstick: the same load straight on the runtime, no app.

    uv run python bench/runtime_load.py --users 100 --turns 5     (bench_throughput.py runs it)
    uv run python bench/runtime_load.py --soak 300                  (one session, turn after turn)

Sessions are configured exactly as the app configures them (``CopilotRuntime`` with streaming, and the
retail MCP server's tools served through one MCP connection of this process) and kept open: each is
created once, then every turn is a plain send on the open session. That is the fastest a server
could answer, so the app's figures are divided by these (docs/architecture.md#performance-budgets).

It runs in a process of its own so that its CPU and memory are measured like the app's (a process tree
apart from the benchmark's scripted model). Settings come from the environment (model route, home);
the figures go to stdout as one JSON object.
"""

import argparse
import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator

from copilot import CopilotSession
from load_stats import Send, bounded, cpu_reader, run_load, timed, tree_rss_bytes

from agent_orchestrator.mcp_server import SERVER_NAME
from agent_orchestrator.mcp_server.http import RetailMcpHttpServer
from agent_orchestrator.retail import ensure_dataset
from agent_orchestrator.runtime import CopilotRuntime
from agent_orchestrator.runtime.mcp_tools import McpTools
from agent_orchestrator.settings import load_settings


async def measure(users: int, turns: int) -> dict[str, object]:
    async with _runtime() as runtime:
        sessions: list[CopilotSession] = []

        async def create(index: int) -> None:
            sessions.append(await runtime.create_session(f"bench-runtime-{index:05d}"))

        await bounded([lambda i=i: create(i) for i in range(users)])

        def sender(session: CopilotSession) -> Send:
            async def send() -> None:
                await runtime.ask(session, "hi")

            return send

        pid = os.getpid()
        figures = await run_load([sender(s) for s in sessions], turns, cpu_reader(pid))
        for session in sessions:
            await session.disconnect()
    return figures.to_dict()


async def soak(turns: int, prompt: str, rss_every: int) -> dict[str, object]:
    """One session, ``turns`` turns one after the other: each turn's time, and the process tree's
    memory every ``rss_every`` turns (the same figures the app's soak gives)."""
    async with _runtime() as runtime:
        session = await runtime.create_session("bench-runtime-soak")
        samples, times = [(0, tree_rss_bytes(os.getpid()))], []
        for turn in range(1, turns + 1):
            times.append(await timed(lambda: runtime.ask(session, prompt)))
            if turn % rss_every == 0 or turn == turns:
                samples.append((turn, tree_rss_bytes(os.getpid())))
        await session.disconnect()
    return {"times": times, "samples": samples}


@contextlib.asynccontextmanager
async def _runtime() -> AsyncIterator[CopilotRuntime]:
    settings = load_settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    retail_db = settings.data_dir / "retail.sqlite"
    await asyncio.to_thread(ensure_dataset, retail_db)
    retail_mcp = RetailMcpHttpServer(retail_db)
    await asyncio.to_thread(retail_mcp.start)
    config = retail_mcp.copilot_config()
    try:
        async with (
            McpTools(SERVER_NAME, config["url"], config["headers"]) as tools,
            CopilotRuntime(settings.runtime, retail_tools=tools.tools, streaming=True) as rt,
        ):
            yield rt
    finally:
        await asyncio.to_thread(retail_mcp.stop)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=100)
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--soak", type=int, default=0, help="instead: one session with this many turns")
    parser.add_argument("--prompt", default="hi", help="what the soak sends")
    parser.add_argument("--rss-every", type=int, default=50)
    args = parser.parse_args()
    if args.soak:
        print(json.dumps(asyncio.run(soak(args.soak, args.prompt, args.rss_every))))
    else:
        print(json.dumps(asyncio.run(measure(args.users, args.turns))))


if __name__ == "__main__":
    main()

"""The throughput benchmark's yardstick: the same load straight on the runtime, no app.

    uv run python bench/runtime_load.py --users 100 --turns 5     (bench_throughput.py runs it)

Sessions are configured exactly as the app configures them (``CopilotRuntime`` with streaming and the
retail MCP server attached) and kept open: each is created once, then every turn is a plain send on
the open session. That is the fastest a server could answer, so the app's figures are divided by these
(docs/architecture.md#performance-budgets).

It runs in a process of its own so that its CPU and memory are measured like the app's (a process tree
apart from the benchmark's scripted model). Settings come from the environment (model route, home);
the figures go to stdout as one JSON object.
"""

import argparse
import asyncio
import json
import os

from copilot import CopilotSession
from load_stats import Send, bounded, run_load, tree_cpu_seconds

from agent_orchestrator.mcp_server.http import RetailMcpHttpServer
from agent_orchestrator.retail import ensure_dataset
from agent_orchestrator.runtime import CopilotRuntime
from agent_orchestrator.settings import load_settings


async def measure(users: int, turns: int) -> dict[str, object]:
    settings = load_settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    retail_db = settings.data_dir / "retail.sqlite"
    await asyncio.to_thread(ensure_dataset, retail_db)
    retail_mcp = RetailMcpHttpServer(retail_db)
    await asyncio.to_thread(retail_mcp.start)
    try:
        runtime = CopilotRuntime(settings.runtime, retail_mcp=retail_mcp.copilot_config(), streaming=True)
        async with runtime:
            sessions: list[CopilotSession] = []

            async def create(index: int) -> None:
                sessions.append(await runtime.create_session(f"bench-runtime-{index:05d}"))

            await bounded([lambda i=i: create(i) for i in range(users)])

            def sender(session: CopilotSession) -> Send:
                async def send() -> None:
                    await runtime.ask(session, "hi")

                return send

            pid = os.getpid()
            figures = await run_load([sender(s) for s in sessions], turns, lambda: tree_cpu_seconds(pid))
            for session in sessions:
                await session.disconnect()
    finally:
        await asyncio.to_thread(retail_mcp.stop)
    return figures.to_dict()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=100)
    parser.add_argument("--turns", type=int, default=5)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(measure(args.users, args.turns))))


if __name__ == "__main__":
    main()

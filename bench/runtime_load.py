"""The throughput benchmark's yardstick: the same load straight on the runtime, no app.

    uv run python bench/runtime_load.py --users 100        (bench_throughput.py runs it and talks to it)
    uv run python bench/runtime_load.py --soak 300           (one session, turn after turn)
    uv run python bench/runtime_load.py --cold ID,ID         (stored sessions resumed cold, one turn each)

Sessions are configured exactly as the app configures them (``CopilotRuntime`` with streaming, and the
retail MCP server's tools served through one MCP connection of this process), on the app's event loop
(uvloop), and kept open: each is created once, then every turn is a plain send on the open session.
That is the fastest a server could answer, so the app's figures are divided by these
(docs/architecture.md#performance-budgets).

It runs in a process of its own so that its CPU and memory are measured like the app's (a process tree
apart from the benchmark's scripted model). Settings come from the environment (model route, home).
With ``DATABASE_URL`` set to a PostgreSQL database, the sessions' files go through the shared store
(``session_fs``), as a PostgreSQL-mode server's do: the yardstick of what the runtime itself costs in
that mode, apart from anything the app adds.
With ``--users`` it prepares that many sessions, prints ``{"ready": true}``, then runs one load per
line read from stdin (``{"kind": "burst", "turns": 1}``: see ``load_stats.run_phase``) and answers each
with its figures as one JSON line, so the benchmark can run the same load on the runtime and on the
app within seconds of each other. The soak's figures go to stdout as one JSON object, and so do
``--cold``'s: each stored session of the home resumed in this new process and sent one turn, against a
fresh session's first turn (created first, as the app's new chats are), one of each in turn.
"""

import argparse
import asyncio
import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator
from dataclasses import asdict

import uvloop
from copilot import CopilotSession
from load_stats import Send, bounded, cpu_reader, run_phase, timed, tree_rss_bytes

from agent_orchestrator.mcp_server import SERVER_NAME
from agent_orchestrator.mcp_server.http import RetailMcpHttpServer
from agent_orchestrator.mcp_server.profile import retail_profile
from agent_orchestrator.retail import ensure_dataset
from agent_orchestrator.runtime import CopilotRuntime
from agent_orchestrator.runtime.mcp_tools import McpTools
from agent_orchestrator.sessions.files.postgres import PostgresSessionFiles
from agent_orchestrator.settings import load_settings


async def serve(users: int) -> None:
    """Prepared sessions, then the loads the benchmark asks for (see the module docstring)."""
    async with _runtime() as runtime:
        sessions: list[CopilotSession] = []

        async def create(index: int) -> None:
            sessions.append(await runtime.create_session(f"bench-runtime-{index:05d}"))

        await bounded([lambda i=i: create(i) for i in range(users)])

        def sender(session: CopilotSession) -> Send:
            async def send() -> None:
                await runtime.ask(session, "hi")

            return send

        senders = [sender(s) for s in sessions]
        await bounded(senders)  # every session has history, as a busy server's have
        cpu = cpu_reader(os.getpid())
        print(json.dumps({"ready": True}), flush=True)
        loop = asyncio.get_running_loop()
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            load = json.loads(line)
            phase = await run_phase(senders, load["kind"], load["turns"], cpu)
            print(json.dumps(asdict(phase)), flush=True)
        for session in sessions:
            await session.disconnect()


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


async def cold(session_ids: list[str], prompt: str) -> dict[str, object]:
    """The first turn of each stored session in a runtime that has never opened it (resume, then
    send), beside a fresh session's first turn (send only: created and opened before), alternated."""
    async with _runtime() as runtime:
        warm_up = await runtime.create_session("bench-runtime-cold-warm-up")
        await runtime.ask(warm_up, prompt)  # the process's one-time costs are out of the figures
        fresh, resumed = [], []
        for index, session_id in enumerate(session_ids):
            new = await runtime.create_session(f"bench-runtime-fresh-{index:05d}")
            fresh.append(await timed(lambda new=new: runtime.ask(new, prompt)))

            async def resume_and_send(session_id: str = session_id) -> None:
                await runtime.ask(await runtime.resume_session(session_id), prompt)

            resumed.append(await timed(resume_and_send))
    return {"fresh": fresh, "cold": resumed}


@contextlib.asynccontextmanager
async def _runtime() -> AsyncIterator[CopilotRuntime]:
    settings = load_settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    retail_db = settings.data_dir / "retail.sqlite"
    await asyncio.to_thread(ensure_dataset, retail_db)
    retail_mcp = RetailMcpHttpServer(retail_db)
    await asyncio.to_thread(retail_mcp.start)
    config = retail_mcp.copilot_config()
    shared = PostgresSessionFiles.from_url(settings.web.database_url) if settings.web.is_postgres else None
    try:
        async with contextlib.AsyncExitStack() as stack:
            if shared is not None:
                await stack.enter_async_context(shared)
            tools = await stack.enter_async_context(McpTools(SERVER_NAME, config["url"], config["headers"]))
            runtime = CopilotRuntime(
                settings.runtime,
                profile=retail_profile(tools=tools.tools),
                session_files=shared,
                streaming=True,
            )
            yield await stack.enter_async_context(runtime)
    finally:
        await asyncio.to_thread(retail_mcp.stop)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=100)
    parser.add_argument("--soak", type=int, default=0, help="instead: one session with this many turns")
    parser.add_argument("--cold", default="", help="instead: resume these stored sessions (comma-separated)")
    parser.add_argument("--prompt", default="hi", help="what the soak and --cold send")
    parser.add_argument("--rss-every", type=int, default=50)
    args = parser.parse_args()
    if args.soak:
        print(json.dumps(uvloop.run(soak(args.soak, args.prompt, args.rss_every))))
    elif args.cold:
        print(json.dumps(uvloop.run(cold(args.cold.split(","), args.prompt))))
    else:
        uvloop.run(serve(args.users))


if __name__ == "__main__":
    main()

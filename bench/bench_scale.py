"""Many servers on one PostgreSQL, measured in one run (docs/deploy.md#capacity), with the instant
scripted model so that the figures are the app's, the runtime's and the database's own:

1. messages per second, p50/p99 turn latency and p50/p99 cross-server live latency (the moment a
   feed on another server hears an answer's end, after the sender heard it) for one server, for three
   with PostgreSQL ``NOTIFY`` fan-out and for three with Redis pub/sub fan-out; acknowledged messages
   lost (must be 0);
2. what a turn costs: PostgreSQL transactions (each of a turn's statements is its own, in autocommit)
   and bytes written to the store per turn, an app server's CPU (its Python and its Copilot runtime)
   per turn, and its memory per idle open chat (a browser tab following a chat's live feed).

Every user sends through one server and follows its chat on the next (with one server, the same),
one message at a time, as fast as answers come.

    uv run python bench/bench_scale.py [--users 24] [--seconds 20] [--idle 200]
"""

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psycopg
from load_stats import percentile, tree_cpu_seconds, tree_rss_bytes

from agent_orchestrator.sessions.store import UserStore, make_engine, migrate
from agent_orchestrator.testing.app_process import AppProcess
from agent_orchestrator.testing.environment import clean_environment
from agent_orchestrator.testing.postgres import fresh_schema
from agent_orchestrator.testing.scripted_model import ScriptedModel, Text

PASSWORD = "bench-password-1"
LIVE_TARGET_MS = 200.0
IDLE_WINDOW = 30.0


@dataclass
class Run:
    turns: list[float] = field(default_factory=list)
    live: list[float] = field(default_factory=list)
    sent: int = 0
    acknowledged: int = 0
    lost: int = 0
    seconds: float = 0.0


async def _client(url: str, name: str) -> httpx.AsyncClient:
    client = httpx.AsyncClient(base_url=url, timeout=120, limits=httpx.Limits(max_connections=None))
    login = await client.post("/api/auth/login", json={"username": name, "password": PASSWORD})
    client.headers["X-CSRF-Token"] = login.raise_for_status().json()["csrf_token"]
    return client


async def _follow(
    client: httpx.AsyncClient, chat: str, heard: dict[str, float], ready: asyncio.Event
) -> None:
    """The chat's feed: when each answer's end arrived, by the question it answered."""
    asked = ""
    while True:
        async with client.stream("GET", f"/api/sessions/{chat}/events", timeout=None) as response:
            ready.set()
            kind = ""
            async for line in response.aiter_lines():
                if line.startswith("event:"):
                    kind = line[6:].strip()
                elif line.startswith("data:") and kind == "user":
                    asked = json.loads(line[5:])["content"]
                elif line.startswith("data:") and kind == "done":
                    heard[asked] = time.perf_counter()


async def _user(sender: httpx.AsyncClient, follower: httpx.AsyncClient, until: float, run: Run) -> list[str]:
    chat = (await sender.post("/api/sessions", json={})).json()["id"]
    heard: dict[str, float] = {}
    ready = asyncio.Event()
    feed = asyncio.create_task(_follow(follower, chat, heard, ready))
    await ready.wait()
    answered: dict[str, float] = {}
    acknowledged = []
    number = 0
    while time.perf_counter() < until:
        content = f"question {number} of {chat}"
        number += 1
        run.sent += 1
        started = time.perf_counter()
        async with sender.stream("POST", f"/api/sessions/{chat}/messages", json={"content": content}) as sent:
            if sent.status_code != 200:
                await sent.aread()
                await asyncio.sleep(0.05)
                continue
            acknowledged.append(content)
            async for line in sent.aiter_lines():
                if line == "event: done":
                    answered[content] = time.perf_counter()
        run.turns.append(answered[content] - started)
    await asyncio.sleep(1.0)  # the last answers' fan-out
    feed.cancel()
    run.live += [(heard[c] - answered[c]) * 1000 for c in answered if c in heard]
    transcript = (await sender.get(f"/api/sessions/{chat}/messages")).json()["messages"]
    logged = {m["content"] for m in transcript if m["role"] == "user"}
    run.acknowledged += len(acknowledged)
    run.lost += sum(1 for content in acknowledged if content not in logged)
    return acknowledged


async def _load(urls: list[str], users: list[str], seconds: float) -> Run:
    run = Run()
    clients = [
        (await _client(urls[n % len(urls)], name), await _client(urls[(n + 1) % len(urls)], name))
        for n, name in enumerate(users)
    ]
    start = time.perf_counter()
    await asyncio.gather(*(_user(s, f, start + seconds, run) for s, f in clients))
    run.seconds = time.perf_counter() - start
    for sender, follower in clients:
        await sender.aclose()
        await follower.aclose()
    return run


def _servers(count: int, home: Path, url: str, model: ScriptedModel, fanout: str) -> list[AppProcess]:
    return [
        AppProcess(
            clean_environment(
                AGENT_ORCHESTRATOR_HOME=str(home / f"server{n}"),
                DATABASE_URL=url,
                AGENT_PROVIDER_BASE_URL=model.base_url,
                AGENT_MODEL="scripted-model",
                AGENT_WEB_RETAIL="0",
                AGENT_SERVER_ID=f"server-{n}",
                AGENT_LIVE_FANOUT=fanout,
            )
        ).start()
        for n in range(count)
    ]


def _database_counters(url: str) -> tuple[int, int]:
    """Committed transactions in the database so far, and the bytes of the schema's tables."""
    with psycopg.connect(url, autocommit=True) as conn:
        xacts = conn.execute("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")
        size = conn.execute(
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = current_schema() AND c.relkind = 'r'"
        )
        return int(xacts.fetchone()[0]), int(size.fetchone()[0])


def _line(label: str, run: Run) -> str:
    live = (
        f"live p50 {statistics.median(run.live):6.1f} ms p99 {percentile(run.live, 0.99):6.1f} ms "
        f"(target {LIVE_TARGET_MS:.0f}, ratio {percentile(run.live, 0.99) / LIVE_TARGET_MS:.2f})"
        if run.live
        else "live -"
    )
    return (
        f"{label:<28} {len(run.turns) / run.seconds:6.1f} msg/s  "
        f"turn p50 {statistics.median(run.turns) * 1000:6.0f} ms "
        f"p99 {percentile(run.turns, 0.99) * 1000:6.0f} ms  "
        f"{live}  lost {run.lost} of {run.acknowledged}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=24)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--idle", type=int, default=200, help="idle open chats for the memory figure")
    args = parser.parse_args()
    users = [f"user{n:03d}" for n in range(args.users)]

    with tempfile.TemporaryDirectory() as tmp, ScriptedModel() as model:
        model.default = lambda body: Text("Revenue rose 4 % on the month before.")
        for count, fanout in ((1, "postgres"), (3, "postgres"), (3, "redis")):
            with fresh_schema("bench") as schema:
                engine = make_engine(schema.sqlalchemy_url)
                migrate(engine)
                for name in users:
                    UserStore(engine).create(name, PASSWORD)
                engine.dispose()
                apps = _servers(count, Path(tmp) / f"{count}-{fanout}", schema.url, model, fanout)
                try:
                    xacts, size = _database_counters(schema.url)
                    cpu = [tree_cpu_seconds(app.proc.pid) for app in apps]
                    run = asyncio.run(_load([app.url for app in apps], users, args.seconds))
                    label = f"{count} server{'s' if count > 1 else ''}, {fanout} fan-out"
                    print(_line(label, run), flush=True)
                    if count == 1:
                        xacts_after, size_after = _database_counters(schema.url)
                        turns = len(run.turns)
                        spent = tree_cpu_seconds(apps[0].proc.pid) - cpu[0]
                        print(
                            f"  per turn: {(xacts_after - xacts) / turns:.1f} PostgreSQL transactions "
                            f"(≈ statements: autocommit), "
                            f"{(size_after - size) / turns / 1024:.1f} KiB stored, "
                            f"{spent / turns * 1000:.1f} ms of CPU on the app server (Python + runtime)"
                        )
                        print(f"  {_idle_memory(apps[0], users[0], args.idle)}", flush=True)
                finally:
                    for app in apps:
                        app.kill()


def _idle_memory(app: AppProcess, name: str, count: int) -> str:
    async def measure() -> str:
        client = await _client(app.url, name)
        chats = [(await client.post("/api/sessions", json={})).json()["id"] for _ in range(count)]
        await asyncio.sleep(1.0)
        before = tree_rss_bytes(app.proc.pid)
        readies = [asyncio.Event() for _ in chats]
        feeds = [
            asyncio.create_task(_follow(client, chat, {}, ready))
            for chat, ready in zip(chats, readies, strict=True)
        ]
        await asyncio.gather(*(ready.wait() for ready in readies))
        await asyncio.sleep(2.0)
        after = tree_rss_bytes(app.proc.pid)
        # A feed's keep-alives and its reconnect every 25 s, over a window that holds one of each.
        spent = tree_cpu_seconds(app.proc.pid)
        await asyncio.sleep(IDLE_WINDOW)
        busy = tree_cpu_seconds(app.proc.pid) - spent
        for feed in feeds:
            feed.cancel()
        await client.aclose()
        spent = tree_cpu_seconds(app.proc.pid)
        await asyncio.sleep(IDLE_WINDOW)
        quiet = tree_cpu_seconds(app.proc.pid) - spent
        each = (after - before) / count / 1024
        cpu = max(busy - quiet, 0.0) / count / IDLE_WINDOW * 3600
        return (
            f"an idle open chat: {each:.0f} KiB of memory ({count} open, RSS {before / 2**20:.0f} → "
            f"{after / 2**20:.0f} MiB), {cpu * 1000:.0f} ms of CPU an hour"
        )

    return asyncio.run(measure())


if __name__ == "__main__":
    main()

"""Live-feed figures, measured in one run (docs/architecture.md#live-sessions):

1. fan-out latency of an event, from the publishing call on the writing server to a follower on the
   same server and to one on another server (PostgreSQL ``LISTEN/NOTIFY``), with the real log and hubs
   (two hubs, each with its own engine and listener, as two servers have), p50 against the targets
   (50 ms, 200 ms); and the same server on SQLite (in-process fan-out only);
2. two real app servers on one PostgreSQL: a turn's answer deltas as a browser on each server gets them
   (server-sent events over HTTP), the other server's lag behind the writing one;
3. 1,000 idle live subscribers (HTTP) on one server: the server's memory (RSS) before and with them,
   and how long one rename takes to reach all of them.

    uv run python bench/bench_live.py [--events 200] [--subscribers 1000]
"""

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from agent_orchestrator.sessions.live.feed import LiveHub
from agent_orchestrator.sessions.live.notify import PostgresAnnouncements
from agent_orchestrator.sessions.store import LiveEvent, LiveEventLog, UserStore, make_engine, migrate
from agent_orchestrator.testing.app_process import AppProcess
from agent_orchestrator.testing.environment import clean_environment
from agent_orchestrator.testing.postgres import fresh_schema
from agent_orchestrator.testing.scripted_model import ScriptedModel, Text

PASSWORD = "bench-password-1"
SAME_SERVER_TARGET_MS = 50.0
OTHER_SERVER_TARGET_MS = 200.0


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _row(label: str, values_ms: list[float], target: float | None = None) -> None:
    p50 = statistics.median(values_ms)
    budget = f"   target {target:5.0f} ms  ratio {p50 / target:5.2f}" if target else ""
    print(f"  {label:<46} p50 {p50:7.2f} ms   p95 {_p(values_ms, 0.95):7.2f} ms{budget}")


# ------------------------------------------------------------------------------- 1. hubs in-process


async def _follow(
    hub: LiveHub, stream: str, count: int, arrivals: dict[int, float], ready: asyncio.Event
) -> None:
    ready.set()
    async for event in hub.follow(stream, 0):
        if not isinstance(event, LiveEvent):
            continue
        arrivals[event.seq] = time.perf_counter()
        if len(arrivals) == count:
            return


async def _hub_latency(url_a: str, url_b: str | None, events: int) -> tuple[list[float], list[float]]:
    engine_a = make_engine(url_a)
    migrate(engine_a)
    hub_a = LiveHub(LiveEventLog(engine_a))
    engine_b = make_engine(url_b) if url_b else None
    hub_b = LiveHub(LiveEventLog(engine_b)) if engine_b else None
    listener = PostgresAnnouncements(hub_b) if hub_b else None
    listening = asyncio.create_task(listener.run()) if listener else None
    stream = "s:bench-chat"
    try:
        if listener:
            await asyncio.wait_for(listener.listening.wait(), 30)
        same: dict[int, float] = {}
        other: dict[int, float] = {}
        ready_a, ready_b = asyncio.Event(), asyncio.Event()
        followers = [asyncio.create_task(_follow(hub_a, stream, events, same, ready_a))]
        if hub_b:
            followers.append(asyncio.create_task(_follow(hub_b, stream, events, other, ready_b)))
        await ready_a.wait()
        await asyncio.sleep(0.5)  # both followers have opened their channels
        sent: dict[int, float] = {}
        for _ in range(events):
            start = time.perf_counter()
            event = await hub_a.publish(stream, "delta", {"text": "a few words of an answer"})
            sent[event.seq] = start
            await asyncio.sleep(0.02)
        await asyncio.wait_for(asyncio.gather(*followers), 60)
        return (
            [(same[s] - sent[s]) * 1000 for s in sent],
            [(other[s] - sent[s]) * 1000 for s in sent] if hub_b else [],
        )
    finally:
        if listening:
            listening.cancel()
        engine_a.dispose()
        if engine_b:
            engine_b.dispose()


# ------------------------------------------------------------------------------ 2. and 3. over HTTP


def _login(client: httpx.Client | httpx.AsyncClient, response: httpx.Response) -> None:
    client.headers["X-CSRF-Token"] = response.json()["csrf_token"]


async def _sse(
    client: httpx.AsyncClient, path: str, on_event, connected: asyncio.Event | None = None
) -> None:
    async with client.stream("GET", path, headers={"Accept": "text/event-stream"}, timeout=None) as response:
        if connected:
            connected.set()
        kind = ""
        async for line in response.aiter_lines():
            if line.startswith("event:"):
                kind = line[6:].strip()
            elif line.startswith("data:") and on_event(kind, line[5:].strip()):
                return


async def _turn_across_servers(url_a: str, url_b: str, model: ScriptedModel) -> list[float]:
    """A turn on A; a subscriber on A and one on B: B's lag behind A for each delta, in ms."""
    async with httpx.AsyncClient(base_url=url_a) as a, httpx.AsyncClient(base_url=url_b) as b:
        for client in (a, b):
            _login(
                client, await client.post("/api/auth/login", json={"username": "bench", "password": PASSWORD})
            )
        session_id = (await a.post("/api/sessions", json={"title": "Bench"})).json()["id"]
        arrivals: dict[str, list[float]] = {"a": [], "b": []}

        def collect(name: str):
            def on_event(kind: str, _data: str) -> bool:
                if kind == "delta":
                    arrivals[name].append(time.perf_counter())
                return kind == "idle"

            return on_event

        lags: list[float] = []
        for _ in range(10):
            arrivals["a"].clear()
            arrivals["b"].clear()
            ready_a, ready_b = asyncio.Event(), asyncio.Event()
            feeds = [
                asyncio.create_task(_sse(a, f"/api/sessions/{session_id}/events", collect("a"), ready_a)),
                asyncio.create_task(_sse(b, f"/api/sessions/{session_id}/events", collect("b"), ready_b)),
            ]
            await ready_a.wait()
            await ready_b.wait()
            model.script(Text("Germany leads with 31 % of revenue, then France with 18 %.", pace=0.05))
            response = await a.post(f"/api/sessions/{session_id}/messages", json={"content": "Who leads?"})
            assert response.status_code == 200, response.text
            await asyncio.wait_for(asyncio.gather(*feeds), 60)
            lags += [(tb - ta) * 1000 for ta, tb in zip(arrivals["a"], arrivals["b"], strict=True)]
        return lags


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


async def _idle_subscribers(app: AppProcess, count: int) -> None:
    assert app.proc is not None
    limits = httpx.Limits(max_connections=count + 10, max_keepalive_connections=count + 10)
    async with httpx.AsyncClient(base_url=app.url, limits=limits) as client:
        _login(client, await client.post("/api/auth/login", json={"username": "bench", "password": PASSWORD}))
        session_id = (await client.post("/api/sessions", json={"title": "Idle"})).json()["id"]
        before = _rss_mb(app.proc.pid)
        received: list[float] = []

        def on_event(kind: str, _data: str) -> bool:
            if kind == "renamed":
                received.append(time.perf_counter())
                return True
            return False

        started = time.perf_counter()
        tasks, connected = [], []
        for _ in range(count):
            ready = asyncio.Event()
            connected.append(ready)
            tasks.append(
                asyncio.create_task(_sse(client, f"/api/sessions/{session_id}/events", on_event, ready))
            )
        await asyncio.wait_for(asyncio.gather(*(e.wait() for e in connected)), 120)
        attach = time.perf_counter() - started
        await asyncio.sleep(2)
        with_them = _rss_mb(app.proc.pid)
        sent = time.perf_counter()
        await client.patch(f"/api/sessions/{session_id}", json={"title": "Renamed"})
        await asyncio.wait_for(asyncio.gather(*tasks), 60)
        reach = [(t - sent) * 1000 for t in received]
        print(f"  {count} idle subscribers attached in {attach:.1f} s (one client process, one login)")
        print(
            f"  server RSS: {before:.1f} MB without, {with_them:.1f} MB with them: "
            f"{(with_them - before) * 1024 / count:.1f} KB per subscriber"
        )
        print(
            f"  one rename reaches all {len(reach)}: p50 {statistics.median(reach):.1f} ms, "
            f"last {max(reach):.1f} ms after the PATCH was sent"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--subscribers", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, fresh_schema("bench_live") as schema, ScriptedModel() as model:
        print(f"1. fan-out of {args.events} events, publish call -> follower (hubs with the real log)")
        sqlite_url = f"sqlite:///{Path(tmp) / 'catalog.sqlite'}"
        same_sqlite, _ = asyncio.run(_hub_latency(sqlite_url, None, args.events))
        _row("same server, SQLite (in-process)", same_sqlite, SAME_SERVER_TARGET_MS)
        same_pg, other_pg = asyncio.run(
            _hub_latency(schema.sqlalchemy_url, schema.sqlalchemy_url, args.events)
        )
        _row("same server, PostgreSQL", same_pg, SAME_SERVER_TARGET_MS)
        _row("other server, PostgreSQL LISTEN/NOTIFY", other_pg, OTHER_SERVER_TARGET_MS)

        engine = make_engine(schema.sqlalchemy_url)
        UserStore(engine).create("bench", PASSWORD)
        engine.dispose()
        servers = [
            AppProcess(
                clean_environment(
                    AGENT_ORCHESTRATOR_HOME=str(Path(tmp) / name),
                    DATABASE_URL=schema.url,
                    AGENT_PROVIDER_BASE_URL=model.base_url,
                    AGENT_MODEL="scripted-model",
                    AGENT_WEB_RETAIL="0",
                    AGENT_SERVER_ID=f"bench-{name}",
                    # Subscribers here do not reconnect: keep their feeds open for the whole run.
                    AGENT_WEB_LIVE_FEED_SECONDS="600",
                )
            )
            for name in ("a", "b")
        ]
        try:
            for server in servers:
                server.start()
            print("2. two app servers on one PostgreSQL, a browser-like SSE client on each")
            lags = asyncio.run(_turn_across_servers(servers[0].url, servers[1].url, model))
            _row("answer deltas: other server's lag behind writer's", lags)
            print(f"3. idle live subscribers on one server (HTTP, {args.subscribers})")
            asyncio.run(_idle_subscribers(servers[1], args.subscribers))
        finally:
            for server in servers:
                server.stop()


if __name__ == "__main__":
    main()

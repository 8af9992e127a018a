"""Web app figures, measured in one run: transcript of a 1,000-turn session, a sessions page with
100,000 sessions in the catalog, and 100 concurrent users chatting on the instant scripted model.

The app runs for real (uvicorn, the Copilot CLI, SQLite catalog) with the scripted model behind it, so
latencies are the server's and the runtime's own overhead.

    uv run python bench/bench_web.py [--users 100] [--sessions 100000]
"""

import argparse
import asyncio
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import httpx
from sqlalchemy import insert
from timing import median_seconds

from agent_orchestrator.sessions.store import UserStore, make_engine, migrate
from agent_orchestrator.sessions.store.catalog import fold_title
from agent_orchestrator.sessions.store.schema import sessions as sessions_table
from agent_orchestrator.sessions.store.schema import users as users_table
from agent_orchestrator.sessions.store.schema import utcnow
from agent_orchestrator.sessions.transcript import parse_events
from agent_orchestrator.testing.app_process import AppProcess
from agent_orchestrator.testing.environment import clean_environment
from agent_orchestrator.testing.scripted_model import ScriptedModel

PASSWORD = "bench-password-1"
TURNS = 1_000


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:8.2f} ms"


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _login(url: str, username: str) -> httpx.Client:
    client = httpx.Client(base_url=url, timeout=300)
    token = client.post("/api/auth/login", json={"username": username, "password": PASSWORD}).json()
    client.headers["X-CSRF-Token"] = token["csrf_token"]
    return client


def _grow_to_1000_turns(events: Path) -> None:
    """Repeat the real turn block of a 1-turn session (same event shapes the runtime writes)."""
    lines = events.read_bytes().splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith(b'{"type":"user.message"'))
    end = next(i for i, line in enumerate(lines) if line.startswith(b'{"type":"assistant.turn_end"'))
    events.write_bytes(b"".join(lines[:start] + lines[start : end + 1] * TURNS + lines[end + 1 :]))


def _seed_catalog(database_url: str, owner_id: int, total: int) -> None:
    """``total`` sessions spread over 1,000 owners, 1% of them the measured user's."""
    engine = make_engine(database_url)
    now = utcnow()
    others = [
        {"id": 10_000 + n, "username": f"seeded{n}", "password_hash": "-", "created_at": now}
        for n in range(999)
    ]
    rows = [
        {
            "id": f"seed-{i:07d}",
            "owner_id": owner_id if i % 100 == 0 else 10_000 + i % 999,
            "title": f"Seeded session {i}",
            "title_folded": fold_title(f"Seeded session {i}"),
            "case_key": f"case-{i % 50}",
            "model": "scripted-model",
            "created_at": now - timedelta(seconds=i),
            "updated_at": now - timedelta(seconds=i),
            "preview": "seeded",
            "status": "idle",
            "turn_count": 1,
        }
        for i in range(total)
    ]
    with engine.begin() as conn:
        conn.execute(insert(users_table), others)
        conn.execute(insert(sessions_table), rows)
    engine.dispose()


async def _concurrent_turns(url: str, clients: list[httpx.Client], ids: list[str]) -> list[float]:
    async def one(client: httpx.Client, session_id: str) -> float:
        async with httpx.AsyncClient(
            base_url=url, cookies=client.cookies, headers=client.headers, timeout=600
        ) as http:
            started = time.perf_counter()
            response = await http.post(f"/api/sessions/{session_id}/messages", json={"content": "hi"})
            assert "event: done" in response.text, response.text[-300:]
            return time.perf_counter() - started

    return list(await asyncio.gather(*(one(c, s) for c, s in zip(clients, ids, strict=True))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=100)
    parser.add_argument("--sessions", type=int, default=100_000)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp, ScriptedModel() as model:
        data = Path(tmp)
        database_url = f"sqlite:///{data / 'catalog.sqlite'}"
        engine = make_engine(database_url)
        migrate(engine)
        users = UserStore(engine)
        names = [f"user{i:03d}" for i in range(args.users)]
        first_user = users.create(names[0], PASSWORD)
        for name in names[1:]:
            users.create(name, PASSWORD)
        engine.dispose()
        _seed_catalog(database_url, owner_id=first_user.id, total=args.sessions)
        env = clean_environment(
            AGENT_ORCHESTRATOR_HOME=str(data),
            AGENT_PROVIDER_BASE_URL=model.base_url,
            AGENT_MODEL="scripted-model",
        )
        app = AppProcess(env).start()
        try:
            url = app.url
            clients = [_login(url, name) for name in names]
            ids = [c.post("/api/sessions", json={"title": "bench"}).json()["id"] for c in clients]
            first = clients[0]

            # 1. A user's sessions page with the catalog holding --sessions sessions.
            page = median_seconds(
                lambda: first.get("/api/sessions", params={"limit": 50}).raise_for_status(), 200
            )
            print(
                f"sessions page (50 of {args.sessions // 100 + 1:,} own, {args.sessions:,} in catalog): "
                f"GET /api/sessions {_ms(page)} (target 10 ms, ratio {page / 0.01:.2f})"
            )

            # 2. Transcript of a 1,000-turn session.
            first.post(f"/api/sessions/{ids[0]}/messages", json={"content": "What is our best segment?"})
            events = data / "copilot" / "session-state" / ids[0] / "events.jsonl"
            _grow_to_1000_turns(events)
            raw = events.read_bytes()
            cold = median_seconds(
                lambda: first.get(f"/api/sessions/{ids[0]}/messages").raise_for_status(), 1, warm_up=False
            )
            parse = median_seconds(lambda: parse_events(raw.splitlines()), 20)
            http = median_seconds(
                lambda: first.get(f"/api/sessions/{ids[0]}/messages").raise_for_status(), 10
            )
            print(
                f"transcript, {TURNS} turns ({len(raw) / 1e6:.1f} MB log): parse {_ms(parse)}, "
                f"GET /messages first {_ms(cold)}, then {_ms(http)} (target 100 ms, ratio {http / 0.1:.2f})"
            )

            # 3. Concurrent users, one turn each, on the instant scripted model.
            second, second_id = clients[1], ids[1]
            alone = median_seconds(
                lambda: second.post(
                    f"/api/sessions/{second_id}/messages", json={"content": "hi"}
                ).raise_for_status(),
                5,
            )
            latencies = asyncio.run(_concurrent_turns(url, clients, ids))
            print(f"one turn alone: p50 {_ms(alone)}")
            print(
                f"{args.users} concurrent users, one turn each: p50 {_ms(_percentile(latencies, 0.5))}, "
                f"p95 {_ms(_percentile(latencies, 0.95))}, max {_ms(max(latencies))}"
            )
        finally:
            app.stop()


if __name__ == "__main__":
    main()

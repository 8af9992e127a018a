"""Web app figures, measured in one run: transcript of a 1,000-turn session, and a sessions page with
100,000 sessions in the catalog. Turn throughput under load is ``bench_throughput.py``'s.

The app runs for real (uvicorn, the Copilot CLI, SQLite catalog) with the scripted model behind it, so
latencies are the server's and the runtime's own overhead.

    uv run python bench/bench_web.py [--sessions 100000]
"""

import argparse
import tempfile
from datetime import timedelta
from pathlib import Path

import httpx
from event_log import grow_event_log
from load_stats import ms
from sqlalchemy import insert
from timing import median_seconds
from web_users import PASSWORD, runtime_ids

from agent_orchestrator.sessions.history.transcript import parse_events
from agent_orchestrator.sessions.store import UserStore, make_engine, migrate
from agent_orchestrator.sessions.store.catalog import fold_title
from agent_orchestrator.sessions.store.schema import sessions as sessions_table
from agent_orchestrator.sessions.store.schema import users as users_table
from agent_orchestrator.sessions.store.schema import utcnow
from agent_orchestrator.testing.app_process import AppProcess
from agent_orchestrator.testing.environment import clean_environment
from agent_orchestrator.testing.scripted_model import ScriptedModel

TURNS = 1_000


def _login(url: str, username: str) -> httpx.Client:
    client = httpx.Client(base_url=url, timeout=300)
    token = client.post("/api/auth/login", json={"username": username, "password": PASSWORD}).json()
    client.headers["X-CSRF-Token"] = token["csrf_token"]
    return client


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
            "public_id": f"seed-{i:07d}",  # as a session stored before ids were per owner
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=100_000)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp, ScriptedModel() as model:
        data = Path(tmp)
        database_url = f"sqlite:///{data / 'catalog.sqlite'}"
        engine = make_engine(database_url)
        migrate(engine)
        first_user = UserStore(engine).create("user000", PASSWORD)
        engine.dispose()
        _seed_catalog(database_url, owner_id=first_user.id, total=args.sessions)
        env = clean_environment(
            AGENT_ORCHESTRATOR_HOME=str(data),
            AGENT_PROVIDER_BASE_URL=model.base_url,
            AGENT_MODEL="scripted-model",
        )
        app = AppProcess(env).start()
        try:
            first = _login(app.url, "user000")
            session_id = first.post("/api/sessions", json={"title": "bench"}).json()["id"]

            # 1. A user's sessions page with the catalog holding --sessions sessions.
            page = median_seconds(
                lambda: first.get("/api/sessions", params={"limit": 50}).raise_for_status(), 200
            )
            print(
                f"sessions page (50 of {args.sessions // 100 + 1:,} own, {args.sessions:,} in catalog): "
                f"GET /api/sessions {ms(page)} (target 10 ms, ratio {page / 0.01:.2f})"
            )

            # 2. Transcript of a 1,000-turn session.
            first.post(f"/api/sessions/{session_id}/messages", json={"content": "What is our best segment?"})
            [folder] = runtime_ids(database_url, [session_id])  # the runtime's folder: its own id
            events = data / "copilot" / "session-state" / folder / "events.jsonl"
            grow_event_log(events, TURNS)
            raw = events.read_bytes()
            cold = median_seconds(
                lambda: first.get(f"/api/sessions/{session_id}/messages").raise_for_status(), 1, warm_up=False
            )
            parse = median_seconds(lambda: parse_events(raw.splitlines()), 20)
            http = median_seconds(
                lambda: first.get(f"/api/sessions/{session_id}/messages").raise_for_status(), 10
            )
            print(
                f"transcript, {TURNS} turns ({len(raw) / 1e6:.1f} MB log): parse {ms(parse)}, "
                f"GET /messages first {ms(cold)}, then {ms(http)} (target 100 ms, ratio {http / 0.1:.2f})"
            )

        finally:
            app.stop()


if __name__ == "__main__":
    main()

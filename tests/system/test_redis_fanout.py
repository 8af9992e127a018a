"""Live fan-out through Redis pub/sub (``AGENT_LIVE_FANOUT=redis``) between two servers on one
PostgreSQL: a feed open on server B hears a turn sent through server A as it happens, every event once
and in order, as with PostgreSQL's NOTIFY (docs/architecture.md#live-sessions)."""

from pathlib import Path

import httpx
import pytest
import redis
from live_feed import Feed

from agent_orchestrator.sessions.store import UserStore, make_engine, migrate
from agent_orchestrator.testing.app_process import AppProcess
from agent_orchestrator.testing.environment import clean_environment
from agent_orchestrator.testing.postgres import FreshSchema
from agent_orchestrator.testing.scripted_model import ScriptedModel, Text

pytestmark = pytest.mark.postgres
PASSWORD = "fanout-password-1"
REDIS = "redis://127.0.0.1:6379/0"


def test_a_feed_on_one_server_hears_a_turn_on_another_through_redis(
    tmp_path: Path, scripted_model: ScriptedModel, postgres_schema: FreshSchema
) -> None:
    try:
        redis.Redis.from_url(REDIS).ping()
    except redis.RedisError:
        pytest.fail(f"Redis is not running at {REDIS}")
    engine = make_engine(postgres_schema.url)
    migrate(engine)
    UserStore(engine).create("alice", PASSWORD)
    engine.dispose()
    apps = [
        AppProcess(
            clean_environment(
                AGENT_ORCHESTRATOR_HOME=str(tmp_path / name),
                DATABASE_URL=postgres_schema.url,
                AGENT_PROVIDER_BASE_URL=scripted_model.base_url,
                AGENT_MODEL="scripted-model",
                AGENT_WEB_RETAIL="0",
                AGENT_LIVE_FANOUT="redis",
                AGENT_REDIS_URL=REDIS,
            )
        )
        for name in ("a", "b")
    ]
    try:
        for app in apps:
            app.start()
        clients = []
        for app in apps:
            client = httpx.Client(base_url=app.url, timeout=60)
            login = client.post("/api/auth/login", json={"username": "alice", "password": PASSWORD})
            client.headers["X-CSRF-Token"] = login.raise_for_status().json()["csrf_token"]
            clients.append(client)
        on_a, on_b = clients
        chat = on_a.post("/api/sessions", json={}).json()["id"]
        feed = Feed(on_b, f"/api/sessions/{chat}/events")
        try:
            scripted_model.script(Text("Germany leads, then France.", pace=0.2))
            assert (
                "event: done"
                in on_a.post(f"/api/sessions/{chat}/messages", json={"content": "Who leads?"}).text
            )
            heard = feed.take_until("done", timeout=30)
        finally:
            feed.close()
        kinds = [event.kind for event in heard]
        assert kinds[0] == "user" and "delta" in kinds and kinds[-1] == "done"
        assert heard[-1].data["content"] == "Germany leads, then France."
        ids = [event.id for event in heard]
        assert ids == sorted(set(ids))
    finally:
        for app in apps:
            app.kill()

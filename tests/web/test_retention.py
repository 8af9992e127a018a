"""The retention policy on a running server: sessions past AGENT_RETENTION_DAYS go on schedule, audited,
except one whose turn is running (its lease is held)."""

import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy import Engine, update

from agent_orchestrator.background_server import BackgroundServer
from agent_orchestrator.runtime import RuntimeSettings
from agent_orchestrator.sessions.store import (
    AuditLog,
    LeaseManager,
    SessionCatalog,
    UserStore,
    make_engine,
    migrate,
)
from agent_orchestrator.sessions.store.schema import sessions, utcnow
from agent_orchestrator.settings import WebSettings
from agent_orchestrator.testing.scripted_model import ScriptedModel
from agent_orchestrator.web.app import create_app

PASSWORD = "correct horse battery"


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    engine = make_engine(f"sqlite:///{tmp_path / 'catalog.sqlite'}")
    migrate(engine)
    UserStore(engine).create("alice", PASSWORD)
    yield engine
    engine.dispose()


def _backdate(engine: Engine, session_id: str, days: float) -> None:
    with engine.begin() as conn:
        conn.execute(
            update(sessions)
            .where(sessions.c.id == session_id)
            .values(updated_at=utcnow() - timedelta(days=days))
        )


def test_sessions_past_retention_are_purged_on_schedule_but_not_under_a_running_turn(
    tmp_path: Path, engine: Engine, scripted_model: ScriptedModel
) -> None:
    web = WebSettings(
        data_dir=tmp_path,
        database_url=str(engine.url),
        retail_dataset=False,
        retention_days=30,
        retention_interval=0.3,
    )
    runtime = RuntimeSettings(data_dir=tmp_path, provider_base_url=scripted_model.base_url, model="m")
    server = BackgroundServer(create_app(web, runtime), health_path="/api/health")
    client = httpx.Client(base_url=server.start(timeout=60), timeout=60)
    try:
        login = client.post("/api/auth/login", json={"username": "alice", "password": PASSWORD}).json()
        client.headers["X-CSRF-Token"] = login["csrf_token"]
        old, running, recent = (client.post("/api/sessions", json={"title": t}).json()["id"] for t in "ABC")
        assert (runtime.copilot_home / "session-state" / old).is_dir()
        LeaseManager(engine).acquire(running, "a turn on some server", ttl=60)
        _backdate(engine, old, 31)
        _backdate(engine, running, 31)
        _backdate(engine, recent, 29)
        catalog = SessionCatalog(engine)
        deadline = time.monotonic() + 30
        while catalog.get(old) is not None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert catalog.get(old) is None and not (runtime.copilot_home / "session-state" / old).exists()
        assert catalog.get(running) is not None and catalog.get(recent) is not None
        [deleted] = [e for e in AuditLog(engine).recent() if e.action == "delete"]
        assert (deleted.session_id, deleted.username) == (old, "retention")
        assert deleted.details["reason"] == "retention"
    finally:
        client.close()
        server.stop()

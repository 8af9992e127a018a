"""The retention policy on a running server: sessions past AGENT_RETENTION_DAYS go on schedule, audited,
except one whose turn is running (its lease is held)."""

import time
from collections.abc import Callable
from datetime import timedelta

from sqlalchemy import Engine, update

from agent_orchestrator.sessions.store import AuditLog, LeaseManager, SessionCatalog, make_engine
from agent_orchestrator.sessions.store.schema import sessions, utcnow


def _backdate(engine: Engine, session_id: str, days: float) -> None:
    with engine.begin() as conn:
        conn.execute(
            update(sessions)
            .where(sessions.c.id == session_id)
            .values(updated_at=utcnow() - timedelta(days=days))
        )


def test_sessions_past_retention_are_purged_on_schedule_but_not_under_a_running_turn(
    start_app: Callable,
) -> None:
    app = start_app(retention_days=30, retention_interval=0.3)
    client = app.client("alice")
    old, running, recent = (client.post("/api/sessions", json={"title": t}).json()["id"] for t in "ABC")
    session_state = app.web.data_dir / "copilot" / "session-state"
    assert (session_state / old).is_dir()
    engine = make_engine(app.web.database_url)
    try:
        LeaseManager(engine).acquire(running, "a turn on some server", ttl=60)
        _backdate(engine, old, 31)
        _backdate(engine, running, 31)
        _backdate(engine, recent, 29)
        catalog = SessionCatalog(engine)
        deadline = time.monotonic() + 30
        while catalog.get(old) is not None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert catalog.get(old) is None and not (session_state / old).exists()
        assert catalog.get(running) is not None and catalog.get(recent) is not None
        [deleted] = [e for e in AuditLog(engine).recent() if e.action == "delete"]
        assert (deleted.session_id, deleted.username) == (old, "retention")
        assert deleted.details["reason"] == "retention"
    finally:
        engine.dispose()

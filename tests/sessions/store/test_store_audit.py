"""The audit log: typed events, recorded and queried the same way on every backend."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import Engine

from agent_orchestrator.sessions.store import AuditEvent, AuditLog


def test_events_round_trip_newest_first(store_engine: Engine) -> None:
    log = AuditLog(store_engine)
    at = datetime(2026, 5, 4, 3, 2, 1, 123456, tzinfo=UTC)
    first = AuditEvent("login", "alice", 1, client_addr="10.0.0.7", at=at)
    second = AuditEvent("create", "alice", 1, "sess-1", "10.0.0.7", {"title": "Q3", "n": 2}, at=at)
    first_id, second_id = log.record(first), log.record(second)
    assert second_id > first_id
    recent = log.recent()
    assert [e.id for e in recent] == [second_id, first_id]
    assert recent[0] == AuditEvent(
        action="create",
        username="alice",
        user_id=1,
        session_id="sess-1",
        client_addr="10.0.0.7",
        details={"title": "Q3", "n": 2},
        at=at,
        id=second_id,
    )


def test_recent_filters_by_session_and_user_and_is_bounded(store_engine: Engine) -> None:
    log = AuditLog(store_engine)
    log.record(AuditEvent("create", "alice", 1, "sess-a"))
    log.record(AuditEvent("denied", "bob", 2, "sess-a", details={"attempted": "read"}))
    log.record(AuditEvent("read", "alice", 1, "sess-a"))
    log.record(AuditEvent("create", "bob", 2, "sess-b"))
    log.record(AuditEvent("login_failed", "mallory", None, client_addr="203.0.113.9"))
    assert [e.action for e in log.recent(session_id="sess-a")] == ["read", "denied", "create"]
    assert [e.action for e in log.recent(user_id=2)] == ["create", "denied"]
    assert [e.action for e in log.recent(session_id="sess-a", user_id=2)] == ["denied"]
    assert [e.action for e in log.recent(limit=2)] == ["login_failed", "create"]
    failed = log.recent(limit=1)[0]
    assert failed.user_id is None and failed.session_id is None and failed.username == "mallory"


def test_events_are_checked_when_made() -> None:
    with pytest.raises(ValueError, match="Unknown audit action"):
        AuditEvent("drop_table", "alice")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="timezone-aware"):
        AuditEvent("read", "alice", at=datetime(2026, 1, 1))
    with pytest.raises(TypeError):
        AuditEvent("read", "alice", details={"when": datetime.now(UTC)})
    details = {"k": "v"}
    event = AuditEvent("read", "alice", details=details)
    details["k"] = "changed"
    assert event.details == {"k": "v"}  # a snapshot, and read-only
    with pytest.raises(TypeError):
        event.details["k"] = "x"  # type: ignore[index]
    assert len(AuditEvent("login_failed", "x" * 1000).username) == 200

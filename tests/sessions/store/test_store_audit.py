"""The audit log: typed events, recorded and queried the same way on every backend."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

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


def test_a_limited_action_is_recorded_at_most_so_often_per_period(store_engine: Engine) -> None:
    log, hour = AuditLog(store_engine), timedelta(hours=1)
    at = datetime(2026, 5, 4, 3, 0, tzinfo=UTC)
    for minute in (0, 10, 20):
        assert (
            log.record_at_most(
                AuditEvent("import_file", "bob", 2, at=at + timedelta(minutes=minute)), 3, hour
            )
            is None
        )
    refused = AuditEvent("import_file", "bob", 2, at=at + timedelta(minutes=30))
    assert log.record_at_most(refused, 3, hour) == timedelta(minutes=30)  # when the first leaves the hour
    assert (
        log.record_at_most(AuditEvent("import_file", "eve", 3, at=at + timedelta(minutes=30)), 3, hour)
        is None
    )
    assert log.record_at_most(AuditEvent("export", "bob", 2, at=at + timedelta(minutes=30)), 3, hour) is None
    assert (
        log.record_at_most(AuditEvent("import_file", "bob", 2, at=at + timedelta(minutes=61)), 3, hour)
        is None
    )
    assert [e.action for e in log.recent(user_id=2)] == ["import_file", "export", *["import_file"] * 3]


def test_servers_charging_a_limited_action_at_once_never_pass_the_limit(store_engine: Engine) -> None:
    log = AuditLog(store_engine)
    with ThreadPoolExecutor(max_workers=8) as pool:
        outcomes = list(
            pool.map(
                lambda _: log.record_at_most(AuditEvent("import_file", "bob", 2), 5, timedelta(hours=1)),
                range(16),
            )
        )
    assert sum(outcome is None for outcome in outcomes) == 5
    assert len(log.recent(user_id=2)) == 5

"""The retention policy on a running server: sessions past AGENT_RETENTION_DAYS go on schedule, audited,
except one whose turn is running (its lease is held)."""

import threading
from collections.abc import Callable
from datetime import timedelta

import httpx
from chat_helpers import runtime_id
from live_feed import Feed
from sqlalchemy import Engine, insert, select, update

from agent_orchestrator.sessions.store import AuditLog, LeaseManager, SessionCatalog, make_engine
from agent_orchestrator.sessions.store.schema import live_events, sessions, utcnow
from agent_orchestrator.testing.eventually import eventually


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
    named = [client.post("/api/sessions", json={"title": t}).json()["id"] for t in "ABC"]
    old, running, recent = (runtime_id(app, public_id) for public_id in named)  # what the purge is keyed by
    session_state = app.web.data_dir / "copilot" / "session-state"
    assert (session_state / old).is_dir()
    engine = make_engine(app.web.database_url)
    try:
        LeaseManager(engine).acquire(running, "a turn on some server", ttl=60)
        _backdate(engine, old, 31)
        _backdate(engine, running, 31)
        _backdate(engine, recent, 29)
        catalog = SessionCatalog(engine)
        eventually(lambda: catalog.get(old) is None, timeout=30, interval=0.1)
        assert catalog.get(old) is None and not (session_state / old).exists()
        assert catalog.get(running) is not None and catalog.get(recent) is not None
        [deleted] = [e for e in AuditLog(engine).recent() if e.action == "delete"]
        assert (deleted.session_id, deleted.username) == (old, "retention")
        assert (deleted.details["reason"], deleted.details["public_id"]) == ("retention", named[0])
    finally:
        engine.dispose()


def _feed_kinds(engine: Engine, session_id: str) -> list[str]:
    with engine.connect() as conn:
        query = select(live_events.c.kind).where(live_events.c.stream == f"s:{session_id}")
        return list(conn.scalars(query.order_by(live_events.c.seq)))


def test_a_purged_sessions_live_feed_goes_with_it(start_app: Callable) -> None:
    """The feed kept up to 500 events of the conversation, prompts and answers: a purge leaves only the
    stream's ``deleted``, and the owner's sessions list hears of it."""
    app = start_app(retention_days=30, retention_interval=0.3)
    client = app.client("alice")
    session_id = client.post("/api/sessions", json={"id": "old-plans"}).json()["id"]
    stored = runtime_id(app, session_id)
    assert (
        "event: done"
        in client.post(
            f"/api/sessions/{session_id}/messages", json={"content": "My secret plan is Quokka-42."}
        ).text
    )
    engine = make_engine(app.web.database_url)
    try:
        position = client.get("/api/sessions").json()  # the list as a tab shows it, then its feed
        assert [s["id"] for s in position["items"]] == [session_id]
        sessions_list = Feed(client, "/api/events")
        try:
            _backdate(engine, stored, 31)
            assert [(e.kind, e.data) for e in sessions_list.take_until("deleted")] == [
                ("deleted", {"id": session_id})  # the owner's list hears the public id
            ]
        finally:
            sessions_list.close()
        assert SessionCatalog(engine).get(stored) is None
        assert _feed_kinds(engine, stored) == ["deleted"]
    finally:
        engine.dispose()


def test_a_session_becomes_visible_with_its_own_feed_only(start_app: Callable) -> None:
    """A stream left with events of an earlier conversation under the id (a purge before its feed went
    with it, of a session whose id was its runtime id too) is never the new session's: it gets a runtime
    id, and so a stream, of its own, started before the session can be seen, so its first follower,
    however quick, gets nothing of the earlier one."""
    app = start_app()
    alice = app.client("alice")
    engine = make_engine(app.web.database_url)
    try:
        with engine.begin() as conn:
            conn.execute(
                insert(live_events),
                [
                    {"stream": "s:left-over", "seq": seq, "kind": kind, "data": data, "at": utcnow()}
                    for seq, kind, data in [
                        (1, "user", '{"content": "My secret plan is Quokka-42."}'),
                        (2, "done", '{"content": "Quokka-42 it is."}'),
                    ]
                ],
            )
    finally:
        engine.dispose()
    created = threading.Thread(target=lambda: alice.post("/api/sessions", json={"id": "left-over"}))
    follower = app.client("alice")
    created.start()
    try:
        # Read the feed as soon as the session exists (polled tightly, before anything else is said).
        first = eventually(
            lambda: _first_event(follower, "/api/sessions/left-over/events?after=0"), timeout=30, interval=0.0
        )
    finally:
        created.join()
    assert first in ("event: reset", "event: created"), first  # not the earlier conversation's "user"


def _first_event(client: httpx.Client, path: str) -> str | None:
    """The first event line of the feed at ``path`` (``None`` while it answers 404)."""
    with client.stream("GET", path) as response:
        if response.status_code == 404:
            return None
        assert response.status_code == 200
        return next(line for line in response.iter_lines() if line.startswith("event:"))

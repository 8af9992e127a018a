"""A delete is final (docs/architecture.md#crash-safety-and-restart-recovery): a chat deleted while it
is answering leaves nothing behind, not even what its running turn would have written after the
delete, on both backends and with encryption at rest."""

import threading
import time

import httpx
import pytest
from chat_helpers import events, runtime_id, send
from sqlalchemy import select

from agent_orchestrator.runtime import RuntimeSettings
from agent_orchestrator.sessions.crypto import MasterKeys, SessionKeys
from agent_orchestrator.sessions.files.postgres import PostgresSessionFiles
from agent_orchestrator.sessions.store import make_engine
from agent_orchestrator.sessions.store.schema import live_events
from agent_orchestrator.testing.scripted_model import Text

SLOW_ANSWER = Text("An answer that takes its time to come.", delay=4, pace=0.5)


@pytest.fixture(
    params=["sqlite", "sqlite-sealed", pytest.param("postgres-sealed", marks=pytest.mark.postgres)]
)
def app(request: pytest.FixtureRequest):
    """The app on SQLite with local files (in clear and sealed) and on PostgreSQL's shared store, sealed;
    with its master key (or ``None``)."""
    start_app = request.getfixturevalue("start_app")
    master_key = MasterKeys.generate() if request.param.endswith("sealed") else None
    if request.param.startswith("postgres"):
        schema = request.getfixturevalue("postgres_schema")
        files = PostgresSessionFiles.from_url(schema.url)
        return start_app(schema.sqlalchemy_url, files, master_key=master_key), master_key
    return start_app(master_key=master_key), master_key


def _stored_anywhere(live_app, session_id: str) -> list[str]:
    """What is left of the session (by its runtime id): files on this server's disk or in the shared
    store, live feed rows."""
    data_dir = live_app.web.data_dir
    roots = [RuntimeSettings(data_dir=data_dir).copilot_home, data_dir / "sealed-sessions"]
    left = [str(path) for root in roots if root.exists() for path in root.rglob(f"*{session_id}*")]
    engine = make_engine(live_app.web.database_url)
    try:
        with engine.connect() as conn:
            feed = conn.execute(
                select(live_events.c.kind).where(live_events.c.stream == f"s:{session_id}")
            ).scalars()
            left += [f"live event {kind}" for kind in feed if kind != "deleted"]
            if live_app.web.is_postgres:
                files = conn.exec_driver_sql(
                    "SELECT path FROM session_fs_files WHERE session_id = %(sid)s", {"sid": session_id}
                ).scalars()
                left += [f"shared file {path}" for path in files]
    finally:
        engine.dispose()
    return left


def test_a_chat_deleted_while_it_answers_is_gone_for_good(app) -> None:
    live_app, master_key = app
    alice = live_app.client("alice")
    session_id = alice.post("/api/sessions", json={"id": "doomed-chat"}).json()["id"]
    stored = runtime_id(live_app, session_id)  # what the files, feed and key are keyed by
    assert events(send(alice, session_id, "A first question"))[-1][0] == "done"
    live_app.model.script(SLOW_ANSWER)
    answered: dict[str, httpx.Response] = {}
    turn = threading.Thread(target=lambda: answered.setdefault("turn", send(alice, session_id, "Go on")))
    turn.start()
    live_app.model.wait_for_requests(2, timeout=30)  # the second turn is with the model

    assert alice.delete(f"/api/sessions/{session_id}").status_code == 204
    deleted_at = time.monotonic()
    turn.join(60)
    assert time.monotonic() - deleted_at < 3, "the running turn was not cancelled"
    said = events(answered["turn"])
    assert said[-1] == ("error", {"message": "This chat was deleted.", "code": "turn_failed"})
    time.sleep(SLOW_ANSWER.delay or 0)  # kept: what the turn would have done after the delete, had it gone on
    assert _stored_anywhere(live_app, stored) == []
    if master_key is not None:
        engine = make_engine(live_app.web.database_url)
        try:
            assert SessionKeys(engine, MasterKeys.from_text(master_key)).existing_key(stored) is None
        finally:
            engine.dispose()

    again = alice.post("/api/sessions", json={"id": session_id})
    assert again.status_code == 201, again.text
    assert runtime_id(live_app, session_id) != stored  # the id again, a runtime session never seen
    assert alice.get(f"/api/sessions/{session_id}/messages").json()["messages"] == []
    assert events(send(alice, session_id, "A new start"))[-1][0] == "done"
    assert alice.get("/api/usage").json()["today"]["turns"] == 2  # the deleted chat's tokens still count

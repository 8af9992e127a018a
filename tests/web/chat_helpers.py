"""Helpers for the branching and exchange tests: a model with perfect memory, and three-fact chats."""

import functools
import json
import shutil
import ssl
import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import update

from agent_orchestrator.retail.analysis import Query, answer_query
from agent_orchestrator.retail.db import open_readonly
from agent_orchestrator.sessions.store import AuditLog, SessionCatalog, UserStore, make_engine, migrate
from agent_orchestrator.sessions.store.schema import share_links, utcnow
from agent_orchestrator.testing.scripted_model import Reply, Text, user_messages

FACTS = ["fact one: apple", "fact two: banana", "fact three: cherry"]
PASSWORD = "correct horse battery"
LOCAL_TLS = ssl.create_default_context()
"""One TLS context for every test client (they speak plain HTTP to 127.0.0.1): httpx would otherwise
load the CA bundle again for each, some 25 ms of CPU a client."""


def memory_rule(body: dict[str, Any]) -> Reply:
    """A model with perfect memory: asked what was said, it lists the earlier facts it was sent."""
    said = [text.strip().splitlines()[-1] for text in user_messages(body)]
    if "what did i say" in said[-1].lower():
        facts = [text for text in said[:-1] if text.startswith("fact")]
        return Text("You said: " + "; ".join(facts) if facts else "You said nothing.")
    return Text(f"Noted {said[-1].split(':')[-1].strip()}.")


def events(response: httpx.Response) -> list[tuple[str, dict]]:
    assert response.status_code == 200, response.text
    frames = []
    for block in response.text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        frames.append((lines["event"], json.loads(lines["data"])))
    return frames


def send(client: httpx.Client, session_id: str, content: str) -> httpx.Response:
    return client.post(f"/api/sessions/{session_id}/messages", json={"content": content})


def messages(client: httpx.Client, session_id: str) -> list[dict]:
    return client.get(f"/api/sessions/{session_id}/messages").json()["messages"]


def contents(client: httpx.Client, session_id: str) -> list[str]:
    return [m["content"] for m in messages(client, session_id)]


def answer(client: httpx.Client, session_id: str, content: str) -> str:
    """The turn's answer; a turn that ended otherwise fails the test with what it said instead."""
    said = events(send(client, session_id, content))
    assert said and said[-1][0] == "done", f"the turn did not answer: {said}"
    return said[-1][1]["content"]


def runtime_id(app, public_id: str, username: str = "alice") -> str:
    """The runtime id under ``username``'s session ``public_id`` (docs/architecture.md#session-ids): what
    the runtime's files, the leases, the feeds and the store's rows are keyed by."""
    engine = make_engine(app.web.database_url)
    try:
        user = UserStore(engine).get_by_username(username)
        assert user is not None, username
        record = SessionCatalog(engine).get_owned(public_id, user.id)
        assert record is not None, f"{username} has no session {public_id}"
        return record.id
    finally:
        engine.dispose()


def audit_actions(live_app, session_id: str, username: str = "alice") -> list[str]:
    """The audit trail of ``username``'s session ``session_id`` (its public id), newest first: rows
    name the public id in their details, so a deleted session's trail is found too."""
    engine = make_engine(live_app.web.database_url)
    try:
        user = UserStore(engine).get_by_username(username)
        assert user is not None, username
        trail = AuditLog(engine).recent(user_id=user.id, limit=1000)
        return [e.action for e in trail if e.details.get("public_id") == session_id]
    finally:
        engine.dispose()


def computed(app: Any, query: dict[str, Any]) -> dict[str, Any]:
    """What analyze_sales answers for ``query`` on the app's retail data, straight from retail.analysis."""
    conn = open_readonly(app.web.retail_db)
    try:
        return answer_query(conn, Query(**query))
    finally:
        conn.close()


@functools.cache
def _migrated_sqlite() -> Path:
    """A store migrated once per test process, copied for each test's SQLite catalog: migrating a
    blank one runs every Alembic revision (some 0.2 s of CPU an app)."""
    template = Path(tempfile.mkdtemp(prefix="ao-store-")) / "catalog.sqlite"
    engine = make_engine(f"sqlite:///{template}")
    migrate(engine)
    engine.dispose()
    return template


def create_users(database_url: str, *names: str) -> None:
    """The users, with the conftest's password, in a migrated store (a new SQLite one starts as a copy
    of a migrated one)."""
    if (
        database_url.startswith("sqlite:///")
        and not (path := Path(database_url[len("sqlite:///") :])).exists()
    ):
        shutil.copyfile(_migrated_sqlite(), path)
    engine = make_engine(database_url)
    migrate(engine)
    users = UserStore(engine)
    for name in names:
        users.create(name, PASSWORD)
    engine.dispose()


def expire_share_links(database_url: str) -> None:
    """Every share link's expiry moved into the past, as time passing would."""
    engine = make_engine(database_url)
    try:
        with engine.begin() as conn:
            conn.execute(update(share_links).values(expires_at=utcnow() - timedelta(seconds=1)))
    finally:
        engine.dispose()

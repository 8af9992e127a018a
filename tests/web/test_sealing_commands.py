"""With a master key, the sessions CLI stores conversations sealed exactly as the web app does: ``import``
writes them sealed, and ``seal-existing`` seals those stored in clear before the key was set (their files
and the catalog's kept prompts), skipping busy sessions, and a second run changes nothing. Both stores
(SQLite with files on this disk; PostgreSQL with the shared files), the app and the CLI in processes of
their own as an operator runs them."""

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import psycopg
import pytest
from sqlalchemy import Engine, select, update

from agent_orchestrator.sessions.crypto import MasterKeys
from agent_orchestrator.sessions.crypto.frames import MAGIC
from agent_orchestrator.sessions.store import LeaseManager, SessionCatalog, make_engine
from agent_orchestrator.sessions.store.schema import (
    interrupted_turns,
    live_events,
    search_messages,
    sessions,
    turn_versions,
    utcnow,
)
from agent_orchestrator.testing.app_process import AppProcess
from agent_orchestrator.testing.environment import clean_environment
from agent_orchestrator.testing.postgres import FreshSchema
from agent_orchestrator.testing.scripted_model import ScriptedModel, Text, user_messages

SECRET, ANSWER = "My secret plan is Quokka-42.", "Quokka-42 needs Wombat-77."
CATALOG_FILES = ("catalog.sqlite", "catalog.sqlite-wal", "catalog.sqlite-shm")


class Deployment:
    """A data directory and its catalog: SQLite with local files, or a PostgreSQL schema (shared mode)."""

    def __init__(self, root: Path, model: ScriptedModel, schema: FreshSchema | None) -> None:
        self.root, self.model, self.schema = root, model, schema
        self.master_key = MasterKeys.generate()

    def env(self, *, sealed: bool) -> dict[str, str]:
        env = clean_environment(
            AGENT_ORCHESTRATOR_HOME=str(self.root),
            AGENT_PROVIDER_BASE_URL=self.model.base_url,
            AGENT_MODEL="scripted-model",
            AGENT_WEB_RETAIL="0",
        )
        env.pop("DATABASE_URL", None)
        if self.schema is not None:
            env["DATABASE_URL"] = self.schema.url
        if sealed:
            env["AGENT_MASTER_KEY"] = self.master_key
        return env

    @contextmanager
    def app(self, *, sealed: bool) -> Iterator[httpx.Client]:
        """The web app running on this data, and its demo user logged in."""
        app = AppProcess(self.env(sealed=sealed)).start()
        try:
            with httpx.Client(base_url=app.url, timeout=60) as client:
                password = (self.root / "demo-login.txt").read_text().strip()
                login = client.post("/api/auth/login", json={"username": "demo", "password": password})
                login.raise_for_status()
                client.headers["X-CSRF-Token"] = login.json()["csrf_token"]
                yield client
        finally:
            app.stop()

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "agent_orchestrator.sessions", *args]
        return subprocess.run(
            command, env=self.env(sealed=True), capture_output=True, text=True, timeout=180, check=False
        )

    def engine(self) -> Engine:
        return make_engine(
            self.schema.sqlalchemy_url if self.schema else f"sqlite:///{self.root / 'catalog.sqlite'}"
        )

    def stored_files(self) -> list[bytes]:
        """Every stored byte of every session's files (as a backup of the disk or a dump has them)."""
        if self.schema is None:
            return [
                path.read_bytes()
                for path in self.root.rglob("*")
                if path.is_file() and path.name not in CATALOG_FILES
            ]
        with psycopg.connect(self.schema.url) as conn:
            bases = conn.execute("SELECT content FROM session_fs_files WHERE NOT is_dir").fetchall()
            chunks = conn.execute("SELECT data FROM session_fs_chunks").fetchall()
        return [bytes(row[0]) for row in bases + chunks]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def deployment(request: pytest.FixtureRequest, tmp_path: Path, scripted_model: ScriptedModel) -> Deployment:
    schema = request.getfixturevalue("postgres_schema") if request.param == "postgres" else None
    scripted_model.default = lambda body: Text(ANSWER)
    return Deployment(tmp_path / "data", scripted_model, schema)


def _chat(client: httpx.Client, session_id: str, content: str) -> None:
    assert (
        "event: done" in client.post(f"/api/sessions/{session_id}/messages", json={"content": content}).text
    )


def _messages(client: httpx.Client, session_id: str) -> list[tuple[str, str, bool]]:
    messages = client.get(f"/api/sessions/{session_id}/messages").json()["messages"]
    return [(m["role"], m["content"], m["interrupted"]) for m in messages]


def _nothing_in_clear(deployment: Deployment, *texts: bytes) -> None:
    stored = deployment.stored_files()
    assert stored and not [blob for blob in stored if any(text in blob for text in texts)]
    session_files = [blob for blob in stored if blob.startswith(MAGIC)]
    assert session_files  # the sealed ones are there


def _chatgpt_file(path: Path) -> Path:
    def node(key: str, role: str, text: str, parent: str, child: str | None) -> dict:
        message = {"author": {"role": role}, "content": {"content_type": "text", "parts": [text]}}
        return {"id": key, "message": message, "parent": parent, "children": [child] if child else []}

    mapping = {
        "r": {"id": "r", "message": None, "parent": None, "children": ["u"]},
        "u": node("u", "user", SECRET, "r", "a"),
        "a": node("a", "assistant", ANSWER, "u", None),
    }
    path.write_text(json.dumps([{"title": "Plans", "mapping": mapping, "current_node": "a"}]))
    return path


def test_an_imported_session_is_stored_sealed_and_resumes_in_the_app(deployment: Deployment) -> None:
    with deployment.app(sealed=True):
        pass  # the first start creates the demo account
    imported = deployment.cli(
        "import", str(_chatgpt_file(deployment.root.parent / "c.json")), "--user", "demo"
    )
    assert imported.returncode == 0, imported.stderr
    _nothing_in_clear(deployment, b"Quokka", b"Wombat")
    engine = deployment.engine()
    try:
        with engine.connect() as conn:  # the search rows and the live feed
            bodies = conn.scalars(select(search_messages.c.body)).all()
            feed = conn.scalars(select(live_events.c.data)).all()
    finally:
        engine.dispose()
    assert bodies and all(body.startswith("sealed:v1:") for body in bodies)
    assert feed and not any("Quokka" in body or "Plans" in body for body in feed)

    with deployment.app(sealed=True) as client:
        [listed] = client.get("/api/sessions").json()["items"]
        assert _messages(client, listed["id"]) == [("user", SECRET, False), ("assistant", ANSWER, False)]
        _chat(client, listed["id"], "And then?")
        first, second = user_messages(deployment.model.requests[-1])  # resumed with its history
        assert first.endswith(SECRET) and second.endswith("And then?")


def test_seal_existing_seals_clear_sessions_under_their_lease_once(deployment: Deployment) -> None:
    with deployment.app(sealed=False) as client:  # before the key: everything in clear
        ids = [client.post("/api/sessions", json={"title": f"Chat {n}"}).json()["id"] for n in (1, 2)]
        for session_id in ids:
            _chat(client, session_id, SECRET)
        # The first answer asked again: the one it replaced is kept as a version, in clear so far.
        assert "event: done" in client.post(f"/api/sessions/{ids[1]}/regenerate").text
    engine = deployment.engine()
    try:
        # The demo user's sessions, by the runtime ids the stores are keyed by.
        with engine.connect() as conn:
            stored = {
                row.public_id: row.id for row in conn.execute(select(sessions.c.public_id, sessions.c.id))
            }
        first, second = (stored[public_id] for public_id in ids)
        # What a key-less server leaves in the catalog when it crashes mid-turn: the turn's message
        # (pending), and one kept from an earlier crash.
        with engine.begin() as conn:
            conn.execute(update(sessions).where(sessions.c.id == first).values(pending_prompt="Koala-9?"))
        SessionCatalog(engine).save_interrupted(second, "Koala-3?", utcnow())
        assert any(b"Quokka" in blob for blob in deployment.stored_files())

        lease = LeaseManager(engine).acquire(second, "a-turn-elsewhere", 60)  # a turn runs on it
        assert lease is not None
        busy = deployment.cli("seal-existing")
        assert busy.returncode == 0, busy.stderr
        assert busy.stdout == (
            f"skipped {second}: a turn is running\n"
            "Sealed 1 session(s); 0 already sealed; skipped 1 busy; run again for the skipped ones.\n"
            "Titles, previews and search rows of 2 session(s) sealed.\n"
        )
        LeaseManager(engine).release(lease)
        done = deployment.cli("seal-existing")
        assert (
            done.stdout
            == "Sealed 1 session(s); 1 already sealed; skipped 0 busy.\n"
            + "Titles, previews and search rows of 2 session(s) sealed.\n"
        ), done.stderr
        again = deployment.cli("seal-existing")
        assert (
            again.stdout
            == "Sealed 0 session(s); 2 already sealed; skipped 0 busy.\n"
            + "Titles, previews and search rows of 2 session(s) sealed.\n"
        ), again.stderr

        _nothing_in_clear(deployment, b"Quokka", b"Wombat", b"user.message")
        with engine.connect() as conn:
            kept = [conn.scalar(select(sessions.c.pending_prompt).where(sessions.c.id == first))]
            kept += conn.scalars(select(interrupted_turns.c.prompt)).all()
        assert len(kept) == 2 and all(text.startswith("sealed:v1:") and "Koala" not in text for text in kept)
        with engine.connect() as conn:
            versions = conn.scalars(
                select(turn_versions.c.tail).where(turn_versions.c.tail.is_not(None))
            ).all()
        assert len(versions) == 1 and versions[0].startswith("sealed:v1:") and "Quokka" not in versions[0]
        with engine.connect() as conn:  # the catalog's own copies of the conversation
            titles = conn.execute(select(sessions.c.title, sessions.c.preview)).all()
        assert titles and all(text.startswith("sealed:v1:") for row in titles for text in row)
        with engine.connect() as conn:  # the live feed's copies: prompts, answers, titles
            feed = conn.scalars(select(live_events.c.data).where(live_events.c.stream.like("s:%"))).all()
        assert feed and all(body == "{}" or body.startswith("sealed:v1:") for body in feed)
        assert not any(word in body for body in feed for word in ("Quokka", "Wombat", "Chat 1"))
    finally:
        engine.dispose()

    with deployment.app(sealed=True) as client:
        found = client.get("/api/search", params={"q": "quokka"}).json()["messages"]  # blind terms now
        assert sorted({hit["session_id"] for hit in found}) == sorted(ids)
        assert [s["title"] for s in client.get("/api/sessions").json()["items"]] == ["Chat 2", "Chat 1"]
        assert _messages(client, ids[0]) == [
            ("user", SECRET, False),
            ("assistant", ANSWER, False),
            ("user", "Koala-9?", True),
        ]
        assert [m[1:] for m in _messages(client, ids[1])] == [
            (SECRET, False),
            (ANSWER, False),
            ("Koala-3?", True),
        ]
        _chat(client, ids[0], "And then?")
        asked = user_messages(deployment.model.requests[-1])  # resumed from the sealed files, whole
        assert asked[0].endswith(SECRET) and asked[-1].endswith("And then?")

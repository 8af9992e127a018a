"""Encryption at rest of the shared session files (PostgreSQL): nothing of the conversation is readable in
the stored rows without the key, the app reads and resumes as before, and deleting a session destroys
its key, so a dump taken before the delete stays unreadable."""

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import httpx
import psycopg
import pytest

from agent_orchestrator.sessions.crypto import MasterKeys, SessionCipher, SessionKeys
from agent_orchestrator.sessions.crypto.cipher import ERASED, SEALED_TEXT
from agent_orchestrator.sessions.crypto.frames import MAGIC
from agent_orchestrator.sessions.files.postgres import PostgresSessionFiles
from agent_orchestrator.sessions.store import make_engine
from agent_orchestrator.testing.postgres import FreshSchema, fresh_schema
from agent_orchestrator.testing.scripted_model import ScriptedModel, Text, user_messages

pytestmark = pytest.mark.postgres
SECRET_QUESTION = "My secret plan is Quokka-42. What do you think?"
SECRET_ANSWER = "The plan Quokka-42 needs Wombat-77."


@dataclass
class EncryptedApp:
    client: httpx.Client
    data: FreshSchema
    keys: FreshSchema
    master: MasterKeys


@pytest.fixture
def keystore(postgres_url: str) -> Iterator[FreshSchema]:
    """The key store's own schema: a dump of the data schema never holds a key."""
    with fresh_schema("keystore", url=postgres_url) as keys:
        yield keys


@pytest.fixture
def app(postgres_schema: FreshSchema, keystore: FreshSchema, start_app: Callable) -> EncryptedApp:
    """The app on PostgreSQL with a master key (torn down before the key store's schema goes)."""
    master_key = MasterKeys.generate()
    live = start_app(
        postgres_schema.sqlalchemy_url,
        PostgresSessionFiles.from_url(postgres_schema.url),
        master_key=master_key,
        keystore_url=keystore.sqlalchemy_url,
    )
    return EncryptedApp(live.client("alice"), postgres_schema, keystore, MasterKeys.from_text(master_key))


def _runtime_id(schema: FreshSchema, public_id: str) -> str:
    """The runtime id under Alice's session (the only user here): what files and keys are keyed by."""
    with psycopg.connect(schema.url) as conn:
        row = conn.execute("SELECT id FROM sessions WHERE public_id = %s", (public_id,)).fetchone()
    assert row is not None, public_id
    return str(row[0])


def _stored_files(schema: FreshSchema, session_id: str) -> list[bytes]:
    """Every stored byte of the session's files (base contents and appended chunks), as a dump has them."""
    with psycopg.connect(schema.url) as conn:
        bases = conn.execute("SELECT content FROM session_fs_files WHERE session_id = %s", (session_id,))
        contents = [bytes(row[0]) for row in bases]
        chunks = conn.execute(
            "SELECT c.data FROM session_fs_chunks c JOIN session_fs_files f ON f.id = c.file_id"
            " WHERE f.session_id = %s",
            (session_id,),
        )
        return contents + [bytes(row[0]) for row in chunks]


def test_stored_files_hold_no_readable_text_and_a_deleted_session_stays_unreadable(
    app: EncryptedApp, scripted_model: ScriptedModel
) -> None:
    scripted_model.default = lambda body: Text(SECRET_ANSWER)
    session_id = app.client.post("/api/sessions", json={"title": "Plans"}).json()["id"]
    stored = _runtime_id(app.data, session_id)
    sent = app.client.post(f"/api/sessions/{session_id}/messages", json={"content": SECRET_QUESTION})
    assert "event: done" in sent.text
    again = app.client.post(f"/api/sessions/{session_id}/messages", json={"content": "And then?"})
    assert "event: done" in again.text
    first, second = user_messages(scripted_model.requests[-1])  # resumed with the whole history
    assert first.endswith(SECRET_QUESTION) and second.endswith("And then?")
    messages = app.client.get(f"/api/sessions/{session_id}/messages").json()["messages"]
    assert [m["content"] for m in messages] == [SECRET_QUESTION, SECRET_ANSWER, "And then?", SECRET_ANSWER]

    scripted_model.script(Text(SECRET_ANSWER, delay=2))  # while it runs, the catalog keeps the message
    running = threading.Thread(
        target=app.client.post,
        args=(f"/api/sessions/{session_id}/messages",),
        kwargs={"json": {"content": "Koala-9 too?"}},
    )
    running.start()
    scripted_model.wait_for_requests(3, timeout=30)
    with psycopg.connect(app.data.url) as conn:
        pending = conn.execute("SELECT pending_prompt FROM sessions WHERE id = %s", (stored,)).fetchone()
    running.join()
    assert pending is not None and pending[0].startswith("sealed:v1:") and "Koala" not in pending[0]

    dump = _stored_files(app.data, stored)
    everything = b"".join(dump)
    assert dump and all(blob.startswith(MAGIC) for blob in dump if blob)
    for text in (b"Quokka", b"Wombat", b"And then?", b"user.message"):
        assert text not in everything

    assert app.client.delete(f"/api/sessions/{session_id}").status_code == 204
    engine = make_engine(app.keys.sqlalchemy_url)
    try:
        # The key is gone from the key store, and the data dump never held one: it stays ciphertext.
        assert SessionKeys(engine, app.master).existing_key(stored) is None
    finally:
        engine.dispose()
    with psycopg.connect(app.data.url) as conn:
        tables = {
            row[0]
            for row in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
        }
    assert "session_keys" not in tables and "session_fs_files" in tables


def test_titles_previews_and_the_search_index_hold_no_readable_text(
    app: EncryptedApp, scripted_model: ScriptedModel
) -> None:
    """The catalog and the search index, through the app: searching works on blind terms, the rows
    hold none of the words, and a pre-delete copy of them stays unreadable."""
    scripted_model.default = lambda body: Text(SECRET_ANSWER)
    session_id = app.client.post("/api/sessions", json={}).json()["id"]  # named after its first message
    stored = _runtime_id(app.data, session_id)
    sent = app.client.post(f"/api/sessions/{session_id}/messages", json={"content": SECRET_QUESTION})
    assert "event: done" in sent.text
    found = app.client.get("/api/search", params={"q": "plans quokka"}).json()  # stemmed: "plan"
    titled = SECRET_QUESTION.rstrip("?")  # the title the app gave it (docs/architecture.md#titles)
    assert [hit["event_id"] for hit in found["messages"]] and found["messages"][0]["title"] == titled
    assert [part["text"] for part in found["messages"][0]["snippet"] if part["hit"]] == ["plan", "Quokka"]
    assert [s["id"] for s in app.client.get("/api/search", params={"q": "secr"}).json()["sessions"]] == [
        session_id
    ]
    listed = app.client.get("/api/sessions").json()["items"]
    assert [(s["title"], s["preview"]) for s in listed] == [(titled, SECRET_ANSWER)]

    with psycopg.connect(app.data.url) as conn:
        copied = [
            *conn.execute("SELECT title, preview, title_folded FROM sessions").fetchone(),
            *(
                cell
                for row in conn.execute("SELECT body, terms, tsv::text FROM search_messages")
                for cell in row
            ),
        ]
    for word in ("quokka", "wombat", "secret"):
        assert not any(word in cell.lower() for cell in copied), word

    assert app.client.delete(f"/api/sessions/{session_id}").status_code == 204
    engine = make_engine(app.keys.sqlalchemy_url)
    try:
        keys = SessionKeys(engine, app.master)
        assert keys.existing_key(stored) is None
        opened = [
            SessionCipher(keys).open_text(stored, cell) for cell in copied if cell.startswith(SEALED_TEXT)
        ]
    finally:
        engine.dispose()
    assert len(opened) == 4 and set(opened) == {ERASED}  # title, preview, question and answer


def test_a_kept_version_of_a_turn_is_sealed_and_shown_again_in_clear(
    app: EncryptedApp, scripted_model: ScriptedModel
) -> None:
    scripted_model.default = lambda body: Text(SECRET_ANSWER)
    session_id = app.client.post("/api/sessions", json={"title": "Plans"}).json()["id"]
    assert (
        "event: done"
        in app.client.post(f"/api/sessions/{session_id}/messages", json={"content": SECRET_QUESTION}).text
    )
    scripted_model.script(Text("A second thought."))
    assert "event: done" in app.client.post(f"/api/sessions/{session_id}/regenerate").text
    with psycopg.connect(app.data.url) as conn:
        tails = [row[0] for row in conn.execute("SELECT tail FROM turn_versions WHERE tail IS NOT NULL")]
    assert len(tails) == 1 and tails[0].startswith(SEALED_TEXT) and "Quokka" not in tails[0]

    question = app.client.get(f"/api/sessions/{session_id}/messages").json()["messages"][0]
    shown = app.client.put(
        f"/api/sessions/{session_id}/messages/{question['event_id']}/version", json={"number": 1}
    )
    assert shown.status_code == 200
    messages = app.client.get(f"/api/sessions/{session_id}/messages").json()["messages"]
    assert [m["content"] for m in messages] == [SECRET_QUESTION, SECRET_ANSWER]

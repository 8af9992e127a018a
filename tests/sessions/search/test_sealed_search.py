"""Sealed titles, previews and search rows with a master key, on both backends
(docs/architecture.md#encryption-at-rest): nothing of the text is readable in the database, yet search
by word, stem and title prefix works, owner-scoped; a deleted session's rows copied beforehand stay
unreadable; rotation and reindexing keep search working."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from sqlalchemy import Engine, text
from store_helpers import StoreDb

from agent_orchestrator.sessions.crypto import MasterKeys, SessionCipher, SessionKeys
from agent_orchestrator.sessions.crypto.cipher import ERASED, SEALED_TEXT
from agent_orchestrator.sessions.files.local import LocalSessionFiles
from agent_orchestrator.sessions.history.transcript import TranscriptMessage
from agent_orchestrator.sessions.ops.admin import reindex_search
from agent_orchestrator.sessions.search.index import SearchIndex, snippet
from agent_orchestrator.sessions.search.words import stems
from agent_orchestrator.sessions.store import SessionCatalog, SessionRecord, UserStore

TITLE = "Quokka migration Pelican"
QUESTION = "Which cherries did Zanzibar order?"
ANSWER = "Zanzibar ordered Wombat cherries twice."
SECRETS = ("quokka", "pelican", "migration", "cherri", "zanzibar", "wombat", "twice")


def _message(role: str, content: str, event_id: str) -> TranscriptMessage:
    return TranscriptMessage(role, content, f"2026-01-01T00:00:{event_id[-2:]}.000Z", event_id=event_id)  # type: ignore[arg-type]


def _cipher(engine: Engine, master: MasterKeys) -> SessionCipher:
    """A cipher whose key store is the catalog's own database (the default)."""
    keys = SessionKeys(engine, master)
    keys.ensure_table()
    return SessionCipher(keys)


@pytest.fixture
def master_key() -> str:
    return MasterKeys.generate()


@pytest.fixture
def cipher(store_engine: Engine, master_key: str) -> SessionCipher:
    return _cipher(store_engine, MasterKeys.from_text(f"old {master_key}"))


def _setup(engine: Engine, users: UserStore, cipher: SessionCipher) -> tuple[int, int]:
    alice = users.create("alice", "correct horse battery").id
    bob = users.create("bob", "correct horse battery").id
    catalog = SessionCatalog(engine, sealer=cipher)
    catalog.create(SessionRecord.new("s-alice", alice, TITLE))
    catalog.record_turn("s-alice", preview=ANSWER, status="idle")
    catalog.create(SessionRecord.new("s-bob", bob, "Quokka notes"))
    index = SearchIndex(engine, cipher)
    index.add("s-alice", alice, [_message("user", QUESTION, "e-01"), _message("assistant", ANSWER, "e-02")])
    index.add("s-bob", bob, [_message("user", "Cherries in Zanzibar", "e-03")])
    return alice, bob


def _stored_bytes(engine: Engine, db: StoreDb) -> bytes:
    """Everything the database holds, as someone with a copy of it reads it: the SQLite files (main
    database and write-ahead log), or every row of every table in the PostgreSQL schema."""
    if engine.dialect.name == "sqlite":
        path = Path(db.url.removeprefix("sqlite:///"))
        return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))
    with engine.connect() as conn:
        tables = conn.scalars(text("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"))
        return b"".join(
            str(conn.execute(text(f'SELECT t::text FROM "{table}" t')).all()).encode()
            for table in list(tables)
        )


def test_nothing_of_the_text_is_readable_in_the_database(
    store_db: StoreDb, store_engine: Engine, user_store: UserStore, cipher: SessionCipher
) -> None:
    _setup(store_engine, user_store, cipher)
    dump = _stored_bytes(store_engine, store_db).lower()
    assert b"s-alice" in dump  # the dump is real
    for word in SECRETS:
        assert word.encode() not in dump, word
    with store_engine.connect() as conn:
        title, preview, folded = conn.execute(
            text("SELECT title, preview, title_folded FROM sessions WHERE id = 's-alice'")
        ).one()
        bodies = conn.scalars(text("SELECT body FROM search_messages")).all()
    assert all(value.startswith(SEALED_TEXT) for value in (title, preview, *bodies))
    assert folded.strip() and set(folded) <= set(" abcdefghijklmnop")  # blind terms only


def test_catalog_reads_list_rename_and_search_titles_by_word_prefix(
    store_engine: Engine, user_store: UserStore, cipher: SessionCipher
) -> None:
    alice, bob = _setup(store_engine, user_store, cipher)
    catalog = SessionCatalog(store_engine, sealer=cipher)
    record = catalog.get_owned("s-alice", alice)
    assert record is not None and (record.title, record.preview) == (TITLE, ANSWER)

    def titles(owner: int, query: str) -> list[str]:
        return [r.title for r in catalog.list_for_owner(owner, search=query).items]

    assert titles(alice, "") == [TITLE]
    assert titles(alice, "quo") == titles(alice, "QUOKKA") == titles(alice, "pel mig") == [TITLE]
    assert titles(alice, "okka") == []  # word prefixes, not substrings
    assert titles(alice, "q") == []  # one character is no word prefix yet
    assert titles(alice, "quokka zebra") == []  # every word must match
    assert titles(bob, "quo") == ["Quokka notes"]  # owner-scoped
    assert catalog.rename("s-alice", alice, "Café Zürich")
    assert titles(alice, "cafe zur") == ["Café Zürich"]
    assert titles(alice, "quo") == []


def test_messages_are_found_by_word_and_stem_owner_scoped_with_marked_hits(
    store_engine: Engine, user_store: UserStore, cipher: SessionCipher
) -> None:
    alice, bob = _setup(store_engine, user_store, cipher)
    index = SearchIndex(store_engine, cipher)
    hits = index.search(alice, "cherry")  # stemmed: finds "cherries"
    assert [(hit.event_id, hit.title) for hit in hits] == [("e-02", TITLE), ("e-01", TITLE)]
    assert hits[1].snippet == (("Which ", False), ("cherries", True), (" did Zanzibar order?", False))
    assert [hit.event_id for hit in index.search(alice, "ordering zanzibar")] == ["e-02", "e-01"]
    assert [hit.event_id for hit in index.search(alice, "wombat")] == ["e-02"]
    assert index.search(alice, "zanzi") == []  # whole words only
    assert [hit.event_id for hit in index.search(bob, "cherries")] == ["e-03"]
    assert index.search(bob, "wombat") == []
    assert index.search(alice, '" OR 1=1 -- NEAR(* owner_id:') == []


def test_snippets_keep_sixteen_words_around_the_most_hits() -> None:
    text = " ".join(f"w{i}" for i in range(40)) + " cherries end."
    parts = snippet(text, stems("cherry"))
    assert parts == (
        ("…w26 w27 w28 w29 w30 w31 w32 w33 w34 w35 w36 w37 w38 w39 ", False),
        ("cherries", True),
        (" end.", False),
    )
    middle = snippet(text + " " + text, stems("cherry"))  # two hits: the window holds the first
    assert "".join(p for p, _ in middle) == "…w37 w38 w39 cherries end. w0 w1 w2 w3 w4 w5 w6 w7 w8 w9 w10…"
    assert snippet("No hit here", {"zzz"}) == (("No hit here", False),)


def test_a_deleted_sessions_copied_rows_stay_unreadable(
    store_engine: Engine, user_store: UserStore, cipher: SessionCipher
) -> None:
    alice, _ = _setup(store_engine, user_store, cipher)
    with store_engine.connect() as conn:  # a copy taken before the delete
        row = conn.execute(text("SELECT title, preview FROM sessions WHERE id = 's-alice'")).one()
        bodies = conn.scalars(text("SELECT body FROM search_messages WHERE session_id = 's-alice'")).all()
    assert cipher.keys.destroy("s-alice")  # what the file stores do when the session is deleted
    assert SessionCatalog(store_engine, sealer=cipher).delete("s-alice", alice)
    for stored in (row.title, row.preview, *bodies):
        assert cipher.open_text("s-alice", stored) == ERASED
    assert cipher.keys.existing_key("s-alice") is None  # reading made no new key


def test_search_survives_rotating_the_master_key(
    store_engine: Engine, user_store: UserStore, cipher: SessionCipher, master_key: str
) -> None:
    alice, _ = _setup(store_engine, user_store, cipher)
    new_key = MasterKeys.generate()
    both = MasterKeys.from_text(f"old {master_key}\nnew {new_key}")
    assert SessionKeys(store_engine, both).rotate() == 3  # two sessions' keys and the index key
    rotated = _cipher(store_engine, MasterKeys.from_text(f"new {new_key}"))  # the old key is gone
    assert [hit.event_id for hit in SearchIndex(store_engine, rotated).search(alice, "cherries")] == [
        "e-02",
        "e-01",
    ]
    page = SessionCatalog(store_engine, sealer=rotated).list_for_owner(alice, search="quokka")
    assert [record.title for record in page.items] == [TITLE]


def test_reindex_seals_what_was_stored_in_clear(
    store_engine: Engine, user_store: UserStore, cipher: SessionCipher, tmp_path: Path
) -> None:
    alice = user_store.create("alice", "correct horse battery").id
    SessionCatalog(store_engine).create(SessionRecord.new("s-old", alice, TITLE))
    messages = [_message("user", QUESTION, "e-01"), _message("assistant", ANSWER, "e-02")]
    SearchIndex(store_engine).add("s-old", alice, messages)  # before the key was set
    files = LocalSessionFiles(tmp_path / "copilot")
    asyncio.run(files.write_events("s-old", _log(messages)))

    assert asyncio.run(reindex_search(store_engine, files, cipher)) == 1

    with store_engine.connect() as conn:
        stored = conn.execute(text("SELECT title, preview FROM sessions")).one()
        bodies = conn.execute(text("SELECT body, terms FROM search_messages")).all()
    assert stored.title.startswith(SEALED_TEXT) and len(bodies) == 2
    assert all(body.startswith(SEALED_TEXT) and terms for body, terms in bodies)
    index = SearchIndex(store_engine, cipher)
    assert [hit.event_id for hit in index.search(alice, "cherry")] == ["e-02", "e-01"]
    page = SessionCatalog(store_engine, sealer=cipher).list_for_owner(alice, search="peli")
    assert [record.title for record in page.items] == [TITLE]
    assert SearchIndex(store_engine).search(alice, "cherry") == []  # no clear row is left


def _log(messages: list[TranscriptMessage]) -> bytes:
    kinds = {"user": "user.message", "assistant": "assistant.message"}
    lines = [
        {"type": kinds[m.role], "data": {"content": m.content}, "id": m.event_id, "timestamp": m.timestamp}
        for m in messages
    ]
    return "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines).encode()

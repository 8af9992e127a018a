"""The search index on both backends: owner-scoped, every word (stemmed), newest first, snippets
with marked hits, rows replaced wholesale and deleted with their session, the last turn read from the
log's tail."""

from sqlalchemy import Engine

from agent_orchestrator.sessions.history.transcript import TranscriptMessage
from agent_orchestrator.sessions.search.index import SearchIndex
from agent_orchestrator.sessions.store import SessionCatalog, SessionRecord, UserStore


def _message(role: str, content: str, event_id: str) -> TranscriptMessage:
    return TranscriptMessage(role, content, f"2026-01-01T00:00:{event_id[-2:]}.000Z", event_id=event_id)  # type: ignore[arg-type]


def _setup(engine: Engine, user_store: UserStore) -> tuple[int, int, SearchIndex]:
    alice, bob = (
        user_store.create("alice", "correct horse battery"),
        user_store.create("bob", "correct horse battery"),
    )
    catalog = SessionCatalog(engine)
    catalog.create(SessionRecord.new("s-alice", alice.id, "Alice"))
    catalog.create(SessionRecord.new("s-bob", bob.id, "Bob"))
    index = SearchIndex(engine)
    index.add(
        "s-alice",
        alice.id,
        [
            _message("user", "Which customers churned in Germany last quarter?", "e-01"),
            _message("assistant", "Twelve customers churned; most were At Risk.", "e-02"),
        ],
    )
    index.add("s-bob", bob.id, [_message("user", "Customers churned in France", "e-03")])
    return alice.id, bob.id, index


def test_search_is_owner_scoped_stemmed_and_marks_the_hits(
    store_engine: Engine, user_store: UserStore
) -> None:
    alice, bob, index = _setup(store_engine, user_store)
    hits = index.search(alice, "churn customer")
    assert [hit.event_id for hit in hits] == ["e-02", "e-01"]  # newest first
    assert all(hit.session_id == "s-alice" and hit.title == "Alice" for hit in hits)
    question = next(hit for hit in hits if hit.event_id == "e-01")
    # PostgreSQL's ts_headline cuts at word boundaries (the question mark goes); FTS5 keeps it.
    assert "".join(text for text, _ in question.snippet).startswith(
        "Which customers churned in Germany last quarter"
    )
    assert {text.lower() for text, hit in question.snippet if hit} == {"customers", "churned"}
    assert [hit.event_id for hit in index.search(alice, "germ")] == []  # whole words only
    assert [hit.event_id for hit in index.search(alice, "churning germany")] == ["e-01"]  # stemmed
    assert index.search(alice, "france") == []
    assert [hit.event_id for hit in index.search(bob, "churned")] == ["e-03"]
    assert index.search(alice, '" OR 1=1 -- NEAR(* owner_id:') == []
    assert index.search(alice, "   ") == []


def test_rows_are_added_once_replaced_wholesale_and_deleted_with_the_session(
    store_engine: Engine, user_store: UserStore
) -> None:
    alice, _, index = _setup(store_engine, user_store)
    index.add("s-alice", alice, [_message("user", "Which customers churned?", "e-01")])  # indexed already
    assert [hit.event_id for hit in index.search(alice, "germany")] == ["e-01"]
    index.replace("s-alice", alice, [_message("user", "Only pricing now", "e-09")])
    assert index.search(alice, "churned") == []
    assert [hit.event_id for hit in index.search(alice, "pricing")] == ["e-09"]
    assert SessionCatalog(store_engine).delete("s-alice", alice)
    assert index.search(alice, "pricing") == []

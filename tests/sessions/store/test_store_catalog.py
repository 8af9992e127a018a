"""The session catalog contract, on every backend."""

from __future__ import annotations

import base64
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from argon2 import PasswordHasher
from sqlalchemy import Engine

from agent_orchestrator.errors import InvalidInputError, SessionExistsError
from agent_orchestrator.sessions.store import (
    AuditEvent,
    AuditLog,
    SessionCatalog,
    SessionRecord,
    User,
    UserStore,
)

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def catalog(store_engine: Engine) -> SessionCatalog:
    return SessionCatalog(store_engine)


@pytest.fixture
def alice(store_engine: Engine, fast_hasher: PasswordHasher) -> User:
    return UserStore(store_engine, hasher=fast_hasher).create("alice", "password-a")


@pytest.fixture
def bob(store_engine: Engine, fast_hasher: PasswordHasher) -> User:
    return UserStore(store_engine, hasher=fast_hasher).create("bob", "password-b")


def new(
    session_id: str, owner: User, title: str = "Chat", *, at: datetime = T0, **kwargs: object
) -> SessionRecord:
    return SessionRecord.new(session_id, owner.id, title, at=at, **kwargs)  # type: ignore[arg-type]


def all_pages(catalog: SessionCatalog, owner: User, limit: int, **filters: object) -> list[list[str]]:
    pages: list[list[str]] = []
    cursor = None
    while True:
        page = catalog.list_for_owner(owner.id, limit=limit, cursor=cursor, **filters)  # type: ignore[arg-type]
        pages.append([r.id for r in page.items])
        if page.next_cursor is None:
            return pages
        cursor = page.next_cursor


def test_create_then_get_round_trips_every_field(catalog: SessionCatalog, alice: User) -> None:
    record = new("sess-one", alice, "  Q3 review  ", case_key="case-7", model="gpt-5")
    stored = catalog.create(record)
    assert stored.title == "Q3 review"
    assert catalog.get("sess-one") == stored
    assert stored == SessionRecord(
        id="sess-one",
        owner_id=alice.id,
        title="Q3 review",
        created_at=T0,
        updated_at=T0,
        case_key="case-7",
        model="gpt-5",
        preview="",
        status="idle",
        turn_count=0,
    )
    assert stored.created_at.tzinfo is UTC


def test_a_taken_runtime_id_is_refused_whoever_owns_it(
    catalog: SessionCatalog, alice: User, bob: User
) -> None:
    """``SessionRecord.new`` without a public id makes both ids the same: the runtime id is global."""
    catalog.create(new("sess-dup", alice))
    with pytest.raises(SessionExistsError):
        catalog.create(new("sess-dup", alice))
    with pytest.raises(SessionExistsError):
        catalog.create(new("sess-dup", bob, "Bob's"))
    assert catalog.get("sess-dup").owner_id == alice.id  # type: ignore[union-attr]


def test_a_refused_create_writes_no_audit_record(
    catalog: SessionCatalog, store_engine: Engine, alice: User, bob: User
) -> None:
    """The audit event rides in the create's transaction: no session, no 'create' record."""
    catalog.create(new("sess-x", alice), audit=AuditEvent("create", "alice", alice.id, "sess-x"))
    with pytest.raises(SessionExistsError):
        catalog.create(new("sess-x", bob), audit=AuditEvent("create", "bob", bob.id, "sess-x"))
    assert [(e.action, e.username) for e in AuditLog(store_engine).recent(session_id="sess-x")] == [
        ("create", "alice")
    ]


def test_a_turns_start_and_its_audit_record_are_written_together(
    catalog: SessionCatalog, store_engine: Engine, alice: User
) -> None:
    catalog.create(new("sess-t", alice))
    audit = AuditEvent("resume", "alice", alice.id, "sess-t", "10.0.0.1", {"via": "web"}, at=T0)
    assert catalog.record_turn("sess-t", preview="Hello", status="busy", prompt="Hello there", audit=audit)
    record = catalog.get("sess-t")
    assert record is not None
    assert (record.status, record.turn_count, record.pending_prompt) == ("busy", 1, "Hello there")
    [logged] = AuditLog(store_engine).recent(session_id="sess-t")
    assert logged == replace(audit, id=logged.id)
    # A session deleted meanwhile: nothing to update, and the attempt is on the record all the same.
    gone = AuditEvent("resume", "alice", alice.id, "sess-gone")
    assert not catalog.record_turn("sess-gone", preview="Hi", status="busy", prompt="Hi", audit=gone)
    assert [e.session_id for e in AuditLog(store_engine).recent(user_id=alice.id)] == ["sess-gone", "sess-t"]


def test_ids_titles_and_statuses_are_validated(catalog: SessionCatalog, alice: User) -> None:
    with pytest.raises(InvalidInputError, match="Session ids"):
        catalog.create(new("ghp_" + "a" * 36, alice))
    with pytest.raises(InvalidInputError, match="Session ids"):
        catalog.create(new("bad id", alice))
    for title in ["", "   ", "x" * 121, "bell\x07", "two\nlines"]:
        with pytest.raises(InvalidInputError, match="Titles"):
            catalog.create(new("sess-t", alice, title))
    catalog.create(new("sess-t", alice, "x" * 120))
    with pytest.raises(InvalidInputError, match="Titles"):
        catalog.rename("sess-t", alice.id, "tab\there")
    with pytest.raises(ValueError):
        catalog.set_status("sess-t", "sleeping")  # type: ignore[arg-type]
    assert catalog.get("sess-t").title == "x" * 120  # type: ignore[union-attr]


def test_another_users_session_looks_exactly_like_an_unknown_one(
    catalog: SessionCatalog, alice: User, bob: User
) -> None:
    catalog.create(new("sess-alice", alice))
    assert catalog.get_owned("sess-alice", alice.id) is not None
    assert catalog.get_owned("sess-alice", bob.id) is None
    assert catalog.get_owned("sess-nobody", bob.id) is None
    assert catalog.rename("sess-alice", bob.id, "mine now") is False
    assert catalog.rename("sess-nobody", bob.id, "mine now") is False
    assert catalog.delete("sess-alice", bob.id) is False
    assert catalog.delete("sess-nobody", bob.id) is False
    assert catalog.list_for_owner(bob.id).items == ()
    assert catalog.get("sess-alice").title == "Chat"  # type: ignore[union-attr]


def test_public_ids_are_per_owner_and_each_owner_sees_only_their_own(
    catalog: SessionCatalog, alice: User, bob: User
) -> None:
    alices = catalog.create(new("rt-alice", alice, "Alice's merger", public_id="acme-merger"))
    bobs = catalog.create(new("rt-bob", bob, "Bob's merger", public_id="acme-merger"))
    assert (alices.public_id, bobs.public_id) == ("acme-merger", "acme-merger")
    assert catalog.get_owned("acme-merger", alice.id) == alices
    assert catalog.get_owned("acme-merger", bob.id) == bobs
    assert catalog.get_owned("rt-alice", alice.id) is None  # a runtime id names nothing for its owner
    with pytest.raises(SessionExistsError):
        catalog.create(new("rt-alice-2", alice, public_id="acme-merger"))
    assert [r.id for r in catalog.list_for_owner(alice.id).items] == ["rt-alice"]
    assert [r.id for r in catalog.list_for_owner(bob.id).items] == ["rt-bob"]
    assert [r.id for r in catalog.named("acme-merger")] == ["rt-alice", "rt-bob"]  # an operator's view

    assert catalog.delete("rt-alice", alice.id)
    assert catalog.get_owned("acme-merger", alice.id) is None
    assert catalog.get_owned("acme-merger", bob.id) == bobs
    # The public id is free again for its owner; the new session has a runtime id of its own.
    again = catalog.create(new("rt-alice-2", alice, public_id="acme-merger"))
    assert catalog.get_owned("acme-merger", alice.id) == again


def test_pages_break_ties_by_public_id_and_the_cursor_holds_no_runtime_id(
    catalog: SessionCatalog, alice: User
) -> None:
    # Runtime ids sort the other way round from the public ids: the order is the public ids'.
    for i in range(5):
        catalog.create(new(f"rt-{9 - i}", alice, public_id=f"case-{i}"))
    pages: list[list[str]] = []
    cursor = None
    while True:
        page = catalog.list_for_owner(alice.id, limit=2, cursor=cursor)
        pages.append([r.public_id for r in page.items])
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        assert "rt-" not in raw and pages[-1][-1] in raw
    assert pages == [["case-4", "case-3"], ["case-2", "case-1"], ["case-0"]]


def test_list_is_newest_first_and_pages_cover_everything_once_despite_ties(
    catalog: SessionCatalog, alice: User, bob: User
) -> None:
    # 11 sessions: four share one updated_at, three share another; ids break the ties.
    stamps = [T0, T0, T0, T0, T0 + timedelta(minutes=1), T0 - timedelta(days=1)]
    stamps += [T0 + timedelta(seconds=30)] * 3 + [
        T0 + timedelta(microseconds=1),
        T0 - timedelta(microseconds=1),
    ]
    for i, at in enumerate(stamps):
        catalog.create(new(f"sess-{i:02d}", alice, at=at))
    catalog.create(new("sess-bob", bob, at=T0 + timedelta(hours=1)))
    expected = [
        f"sess-{i:02d}" for i, _ in sorted(enumerate(stamps), key=lambda p: (p[1], p[0]), reverse=True)
    ]

    assert [r.id for r in catalog.list_for_owner(alice.id).items] == expected
    pages = all_pages(catalog, alice, limit=3)
    assert [len(p) for p in pages] == [3, 3, 3, 2]
    assert [session_id for page in pages for session_id in page] == expected
    assert all_pages(catalog, alice, limit=11) == [expected]  # exact fit: no empty trailing page


def test_limit_is_clamped_and_foreign_cursors_are_refused(catalog: SessionCatalog, alice: User) -> None:
    for i in range(3):
        catalog.create(new(f"sess-{i}", alice, at=T0 + timedelta(seconds=i)))
    assert len(catalog.list_for_owner(alice.id, limit=0).items) == 1
    assert len(catalog.list_for_owner(alice.id, limit=10_000).items) == 3
    for bad in ["", "not-a-cursor", "W10", "WyJ4IiwieSJd", "WyIyMDI2LTAzLTAxVDEyOjAwOjAwIiwieSJd"]:
        with pytest.raises(InvalidInputError, match="Invalid page cursor"):
            catalog.list_for_owner(alice.id, cursor=bad)


def test_filter_by_case_paginates_within_the_case(catalog: SessionCatalog, alice: User) -> None:
    for i in range(7):
        case_key = "case-a" if i % 2 else None if i == 4 else "case-b"
        catalog.create(new(f"sess-{i}", alice, at=T0 + timedelta(seconds=i), case_key=case_key))
    assert all_pages(catalog, alice, limit=2, case_key="case-a") == [["sess-5", "sess-3"], ["sess-1"]]
    assert all_pages(catalog, alice, limit=2, case_key="case-b") == [["sess-6", "sess-2"], ["sess-0"]]
    assert catalog.list_for_owner(alice.id, case_key="case-zzz").items == ()


def test_search_is_a_case_insensitive_substring_with_wildcards_taken_literally(
    catalog: SessionCatalog, alice: User, bob: User
) -> None:
    titles = ["Growth 50% in Q3", "Growth 500 in Q3", "a_b test", "axb test", "path/to %s", "weekly GROWTH"]
    for i, title in enumerate(titles):
        catalog.create(new(f"sess-{i}", alice, title, at=T0 + timedelta(seconds=i)))
    catalog.create(new("sess-bob", bob, "growth for bob"))

    def found(search: str) -> list[str]:
        return [r.title for r in catalog.list_for_owner(alice.id, search=search).items]

    assert found("growth") == ["weekly GROWTH", "Growth 500 in Q3", "Growth 50% in Q3"]
    assert found("50%") == ["Growth 50% in Q3"]
    assert found("%") == ["path/to %s", "Growth 50% in Q3"]
    assert found("a_b") == ["a_b test"]
    assert found("_") == ["a_b test"]
    assert found("/to %") == ["path/to %s"]
    assert found("nothing like it") == []
    assert found("  ") == found("")  # blank search means no filter
    assert len(found("")) == len(titles)
    page = catalog.list_for_owner(alice.id, search="growth", limit=2)
    rest = catalog.list_for_owner(alice.id, search="growth", limit=2, cursor=page.next_cursor)
    assert [r.title for r in rest.items] == ["Growth 50% in Q3"] and rest.next_cursor is None
    catalog.rename("sess-5", alice.id, "Weekly ÄRGER über Straße")
    assert found("ärger ÜBER strasse") == ["Weekly ÄRGER über Straße"]  # Unicode case folding
    assert found("growth") == ["Growth 500 in Q3", "Growth 50% in Q3"]  # the old title is forgotten


def test_rename_changes_the_title_but_not_the_order(catalog: SessionCatalog, alice: User) -> None:
    catalog.create(new("sess-old", alice, at=T0))
    catalog.create(new("sess-new", alice, at=T0 + timedelta(seconds=1)))
    audit = AuditEvent("rename", "alice", alice.id, "sess-old", details={"title": "Renamed"})
    assert catalog.rename("sess-old", alice.id, "  Renamed ", audit=audit) is True
    record = catalog.get_owned("sess-old", alice.id)
    assert record is not None and record.title == "Renamed" and record.updated_at == T0
    assert [r.id for r in catalog.list_for_owner(alice.id).items] == ["sess-new", "sess-old"]


def test_record_turn_tracks_activity_preview_status_and_turn_count(
    catalog: SessionCatalog, alice: User
) -> None:
    catalog.create(new("sess-a", alice, at=T0))
    catalog.create(new("sess-b", alice, at=T0 + timedelta(minutes=1)))
    start = T0 + timedelta(minutes=5)
    prompt = "  What were\nQ3 sales?  "
    assert catalog.record_turn("sess-a", preview=prompt, status="busy", prompt=prompt, at=start)
    record = catalog.get("sess-a")
    assert record is not None and record.pending_prompt == prompt  # kept whole, for crash recovery
    assert (record.status, record.preview, record.turn_count, record.updated_at) == (
        "busy",
        "What were Q3 sales?",
        1,
        start,
    )
    assert [r.id for r in catalog.list_for_owner(alice.id).items] == ["sess-a", "sess-b"]

    answer = "Sales grew. " * 40
    assert catalog.record_turn("sess-a", preview=answer, status="idle", at=start + timedelta(seconds=9))
    record = catalog.get("sess-a")
    assert record is not None
    assert record.status == "idle" and record.turn_count == 1 and record.pending_prompt is None
    assert len(record.preview) == 200 and record.preview.endswith("…")
    assert record.preview.startswith("Sales grew. Sales grew.")

    assert catalog.record_turn("sess-a", preview=None, status="busy", at=start + timedelta(minutes=1))
    record = catalog.get("sess-a")
    assert record is not None and record.turn_count == 2 and record.preview.startswith("Sales grew.")
    assert catalog.record_turn("sess-missing", preview="x", status="busy") is False


def test_set_status_keeps_the_list_order(catalog: SessionCatalog, alice: User) -> None:
    catalog.create(new("sess-a", alice, at=T0))
    assert catalog.set_status("sess-a", "interrupted") is True
    record = catalog.get("sess-a")
    assert record is not None and record.status == "interrupted" and record.updated_at == T0
    assert catalog.set_status("sess-missing", "idle") is False


def test_delete_removes_the_session_and_keeps_an_audit_record(
    catalog: SessionCatalog, store_engine: Engine, alice: User
) -> None:
    catalog.create(new("sess-del", alice))
    assert catalog.delete("sess-del", alice.id, audit=AuditEvent("delete", "alice", alice.id, "sess-del"))
    assert catalog.get("sess-del") is None
    assert (
        catalog.delete("sess-del", alice.id, audit=AuditEvent("delete", "alice", alice.id, "sess-del"))
        is False
    )
    assert [e.action for e in AuditLog(store_engine).recent(session_id="sess-del")] == ["delete"]
    catalog.create(new("sess-del", alice, "Again"))  # the id is free again


def test_list_older_than_finds_sessions_for_retention(
    catalog: SessionCatalog, alice: User, bob: User
) -> None:
    catalog.create(new("sess-ancient", alice, at=T0 - timedelta(days=400)))
    catalog.create(new("sess-old", bob, at=T0 - timedelta(days=100)))
    catalog.create(new("sess-recent", alice, at=T0 - timedelta(days=1)))
    catalog.record_turn("sess-old", preview="still here", status="idle", at=T0)  # activity saves it
    assert catalog.list_older_than(T0 - timedelta(days=30)) == ["sess-ancient"]
    assert catalog.list_older_than(T0 + timedelta(seconds=1)) == ["sess-ancient", "sess-recent", "sess-old"]
    assert catalog.list_older_than(T0 + timedelta(seconds=1), limit=1) == ["sess-ancient"]


def test_naive_timestamps_are_refused(catalog: SessionCatalog, alice: User) -> None:
    with pytest.raises(Exception, match="timezone-aware"):
        catalog.create(new("sess-naive", alice, at=datetime(2026, 1, 1)))

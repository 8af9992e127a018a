"""Migrations: a blank database ends with exactly the expected schema, once, however many migrate it;
a database of the earlier hand-written runner is adopted and carried on from where it stood."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from alembic import command as alembic_command
from sqlalchemy import Column, Engine, MetaData, String, Table, insert, inspect, select, text
from store_helpers import StoreDb, columns, describe_schema, indexes

from agent_orchestrator.errors import SessionExistsError
from agent_orchestrator.sessions.search.index import SearchIndex
from agent_orchestrator.sessions.store import (
    SessionCatalog,
    SessionRecord,
    applied_migrations,
    make_engine,
    migrate,
    migration_names,
)
from agent_orchestrator.sessions.store.migrations import VERSION_TABLE, alembic_config
from agent_orchestrator.sessions.store.schema import NATIVE_SEARCH_NAMES, UTCDateTime, metadata, users
from agent_orchestrator.testing.environment import clean_environment

WORKER = Path(__file__).with_name("store_worker.py")
PROJECT_ROOT = Path(__file__).resolve().parents[3]
ALL = list(migration_names())

EXPECTED_SCHEMA = {
    "alembic_version": {
        "columns": [("version_num", False)],
        "primary_key": ["version_num"],
        "foreign_keys": [],
        "indexes": [],
    },
    "audit_log": {
        "columns": [
            ("id", False),
            ("at", False),
            ("user_id", True),
            ("username", False),
            ("action", False),
            ("session_id", True),
            ("client_addr", True),
            ("details", False),
            ("asked_id", True),
        ],
        "primary_key": ["id"],
        "foreign_keys": [],
        "indexes": [
            ("ix_audit_log_asked_id", False),
            ("ix_audit_log_at", False),
            ("ix_audit_log_session_id", False),
            ("ix_audit_log_user_id", False),
        ],
    },
    "interrupted_turns": {
        "columns": [("id", False), ("session_id", False), ("prompt", False), ("at", False)],
        "primary_key": ["id"],
        "foreign_keys": [(("session_id",), "sessions", "CASCADE")],
        "indexes": [("ix_interrupted_turns_session", False)],
    },
    "live_events": {
        "columns": [("stream", False), ("seq", False), ("kind", False), ("data", False), ("at", False)],
        "primary_key": ["stream", "seq"],
        "foreign_keys": [],
        "indexes": [],
    },
    "login_throttle": {
        "columns": [
            ("key", False),
            ("failures", False),
            ("window_started_at", False),
            ("locked_until", True),
        ],
        "primary_key": ["key"],
        "foreign_keys": [],
        "indexes": [("ix_login_throttle_window", False)],
    },
    "logins": {
        "columns": [
            ("token_hash", False),
            ("user_id", False),
            ("csrf_token", False),
            ("created_at", False),
            ("expires_at", False),
        ],
        "primary_key": ["token_hash"],
        "foreign_keys": [(("user_id",), "users", "CASCADE")],
        "indexes": [("ix_logins_expires_at", False), ("ix_logins_user_id", False)],
    },
    "search_messages": {
        "columns": [
            ("id", False),
            ("session_id", False),
            ("owner_id", False),
            ("event_id", False),
            ("role", False),
            ("at", False),
            ("body", False),
            ("terms", True),
        ],
        "primary_key": ["id"],
        "foreign_keys": [(("session_id",), "sessions", "CASCADE")],
        "indexes": [("ix_search_messages_owner", False), ("ux_search_messages_event", True)],
    },
    "session_leases": {
        "columns": [("session_id", False), ("holder", True), ("fencing_token", False), ("expires_at", False)],
        "primary_key": ["session_id"],
        "foreign_keys": [],
        "indexes": [],
    },
    "sessions": {
        "columns": [
            ("id", False),
            ("owner_id", False),
            ("title", False),
            ("case_key", True),
            ("model", True),
            ("created_at", False),
            ("updated_at", False),
            ("preview", False),
            ("status", False),
            ("turn_count", False),
            ("pending_prompt", True),
            ("title_folded", False),
            ("parent_id", True),
            ("parent_event_id", True),
            ("public_id", False),
            ("pinned_at", True),
            ("archived_at", True),
            ("title_source", False),
        ],
        "primary_key": ["id"],
        "foreign_keys": [(("owner_id",), "users", "CASCADE")],
        "indexes": [
            ("ix_sessions_owner_case_updated", False),
            ("ix_sessions_owner_updated_title", False),
            ("ix_sessions_updated_at", False),
            ("ux_sessions_owner_public_id", True),
        ],
    },
    "turn_versions": {
        "columns": [
            ("session_id", False),
            ("anchor", False),
            ("number", False),
            ("tail", True),
            ("created_at", False),
        ],
        "primary_key": ["session_id", "anchor", "number"],
        "foreign_keys": [(("session_id",), "sessions", "CASCADE")],
        "indexes": [],
    },
    "turn_usage": {
        "columns": [
            ("id", False),
            ("session_id", False),
            ("user_id", False),
            ("at", False),
            ("model", True),
            ("input_tokens", False),
            ("output_tokens", False),
            ("reserved_tokens", False),
        ],
        "primary_key": ["id"],
        "foreign_keys": [],
        "indexes": [("ix_turn_usage_session", False), ("ix_turn_usage_user_at", False)],
    },
    "api_tokens": {
        "columns": [
            ("id", False),
            ("user_id", False),
            ("name", False),
            ("scopes", False),
            ("token_hash", False),
            ("hint", False),
            ("created_at", False),
            ("expires_at", False),
            ("last_used_at", True),
            ("last_used_addr", True),
        ],
        "primary_key": ["id"],
        "foreign_keys": [(("user_id",), "users", "CASCADE")],
        "indexes": [("ux_api_tokens_token_hash", True), ("ux_api_tokens_user_name", True)],
    },
    "device_grants": {
        "columns": [
            ("code_hash", False),
            ("user_code", False),
            ("client_name", False),
            ("created_at", False),
            ("expires_at", False),
            ("user_id", True),
            ("scopes", True),
        ],
        "primary_key": ["code_hash"],
        "foreign_keys": [(("user_id",), "users", "CASCADE")],
        "indexes": [("ux_device_grants_user_code", True)],
    },
    "share_links": {
        "columns": [
            ("id", False),
            ("token_hash", False),
            ("session_id", False),
            ("owner_id", False),
            ("created_at", False),
            ("expires_at", False),
            ("revoked_at", True),
            ("signed_in_only", False),
            ("title", False),
            ("snapshot", False),
            ("snapshot_at", False),
            ("views", False),
        ],
        "primary_key": ["id"],
        "foreign_keys": [(("owner_id",), "users", "CASCADE"), (("session_id",), "sessions", "CASCADE")],
        "indexes": [
            ("ix_share_links_owner_created", False),
            ("ix_share_links_session", False),
            ("ux_share_links_token_hash", True),
        ],
    },
    "session_tags": {
        "columns": [("session_id", False), ("tag", False), ("owner_id", False)],
        "primary_key": ["session_id", "tag"],
        "foreign_keys": [(("owner_id",), "users", "CASCADE"), (("session_id",), "sessions", "CASCADE")],
        "indexes": [("ix_session_tags_owner_tag", False)],
    },
    "message_feedback": {
        "columns": [
            ("session_id", False),
            ("event_id", False),
            ("owner_id", False),
            ("rating", False),
            ("note", False),
            ("updated_at", False),
        ],
        "primary_key": ["session_id", "event_id"],
        "foreign_keys": [(("owner_id",), "users", "CASCADE"), (("session_id",), "sessions", "CASCADE")],
        "indexes": [("ix_message_feedback_updated", False)],
    },
    "users": {
        "columns": [
            ("id", False),
            ("username", False),
            ("password_hash", False),
            ("created_at", False),
            ("role", False),
        ],
        "primary_key": ["id"],
        "foreign_keys": [],
        "indexes": [("ux_users_username_lower", True)],
    },
}


def test_blank_database_migrates_to_exactly_the_expected_schema(blank_db: StoreDb) -> None:
    engine = blank_db.engine()
    try:
        assert applied_migrations(engine) == []
        assert migrate(engine) == ALL
        assert describe_schema(engine) == EXPECTED_SCHEMA
        assert applied_migrations(engine) == ALL
    finally:
        engine.dispose()


def test_migrated_schema_matches_the_tables_the_queries_use(store_db: StoreDb) -> None:
    """The migrations keep frozen DDL; this catches a drift between them and ``schema.py``."""
    engine = store_db.engine()
    try:
        inspector = inspect(engine)
        assert set(inspector.get_table_names()) - NATIVE_SEARCH_NAMES == {*metadata.tables, VERSION_TABLE}
        for table in metadata.sorted_tables:
            reflected = columns(engine, table.name)
            assert reflected == [(c.name, c.nullable) for c in table.columns], table.name
            expected_indexes = sorted((ix.name, ix.unique) for ix in table.indexes)
            assert indexes(engine, table.name) == expected_indexes, table.name
    finally:
        engine.dispose()


def test_migrate_is_idempotent(blank_db: StoreDb) -> None:
    engine = blank_db.engine()
    try:
        assert migrate(engine) == ALL
        assert migrate(engine) == []
        assert migrate(engine) == []
        assert describe_schema(engine) == EXPECTED_SCHEMA
    finally:
        engine.dispose()


def test_concurrent_migrations_from_threads_apply_each_step_once(blank_db: StoreDb) -> None:
    engines = [blank_db.engine() for _ in range(4)]
    barrier = threading.Barrier(len(engines))
    results: list[list[str]] = []
    errors: list[BaseException] = []

    def run(index: int) -> None:
        try:
            barrier.wait()
            results.append(migrate(engines[index]))
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(engines))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert errors == []
        assert sorted(results, key=len) == [[], [], [], ALL]
        assert describe_schema(engines[0]) == EXPECTED_SCHEMA
    finally:
        for engine in engines:
            engine.dispose()


@pytest.mark.slow  # worker processes of their own
def test_concurrent_migrations_from_processes_apply_each_step_once(blank_db: StoreDb) -> None:
    start_at = str(time.time() + 2.5)  # both processes past their imports, then migrate together
    command = [sys.executable, str(WORKER), "migrate", blank_db.url, start_at]
    procs = [subprocess.Popen(command, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [proc.communicate(timeout=120)[0] for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0]
    assert sorted((json.loads(out) for out in outputs), key=len) == [[], ALL]
    engine = blank_db.engine()
    try:
        assert describe_schema(engine) == EXPECTED_SCHEMA
    finally:
        engine.dispose()


def test_title_search_migration_folds_existing_titles(blank_db: StoreDb) -> None:
    engine = blank_db.engine()
    try:
        migrate(engine, target="0002_pending_prompt")
        now = datetime.now(UTC)
        with engine.begin() as conn:
            conn.execute(insert(users).values(id=1, username="alice", password_hash="x", created_at=now))
            conn.execute(
                text(
                    "INSERT INTO sessions (id, owner_id, title, created_at, updated_at, preview, status,"
                    " turn_count) VALUES ('sess-1', 1, 'ÄRGER mit Straße', :now, :now, '', 'idle', 0)"
                ),
                {"now": now.replace(tzinfo=None) if engine.dialect.name == "sqlite" else now},
            )
        assert migrate(engine) == ALL[ALL.index("0003_title_search") :]
        catalog = SessionCatalog(engine)
        assert [r.id for r in catalog.list_for_owner(1, search="ärger MIT strasse").items] == ["sess-1"]
        with pytest.raises(ValueError):
            migrate(engine, target="9999_future")
    finally:
        engine.dispose()


# Rows of every table keyed by a session id, as 0010 left them (the runtime id keys them all).
_KEYED_BY_SESSION = {
    "interrupted_turns": "SELECT session_id, prompt FROM interrupted_turns ORDER BY id",
    "search_messages": "SELECT session_id, owner_id, event_id, body FROM search_messages ORDER BY id",
    "session_leases": "SELECT session_id, holder, fencing_token FROM session_leases ORDER BY session_id",
    "live_events": "SELECT stream, seq, kind, data FROM live_events ORDER BY stream, seq",
    "turn_usage": "SELECT session_id, user_id, input_tokens FROM turn_usage ORDER BY id",
    "audit_log": "SELECT session_id, action, details FROM audit_log ORDER BY id",
}


def test_existing_sessions_keep_their_ids_as_both_public_and_runtime_id(blank_db: StoreDb) -> None:
    """Migration 0011 on a database with sessions: each keeps its id as its owner's public id and as
    the runtime id, nothing keyed by it moves, and only then may another owner take the same id."""
    engine = blank_db.engine()
    try:
        migrate(engine, target="0010_usage_reservations")
        now = datetime.now(UTC)
        stamp = now.replace(tzinfo=None) if engine.dialect.name == "sqlite" else now
        later = (now + timedelta(seconds=1)).replace(tzinfo=None) if engine.dialect.name == "sqlite" else now
        with engine.begin() as conn:
            for user_id, name in ((1, "alice"), (2, "bob")):
                conn.execute(
                    insert(users).values(id=user_id, username=name, password_hash="x", created_at=now)
                )
            session = (
                "INSERT INTO sessions (id, owner_id, title, created_at, updated_at, preview, status,"
                " turn_count, title_folded, parent_id, parent_event_id) VALUES (:id, :owner, :title, :at,"
                " :at, '', 'idle', 1, :folded, :parent, :parent_event)"
            )
            for sid, owner, at, parent in (
                ("acme-merger", 1, stamp, None),
                ("chat-0190abc", 1, later, "acme-merger"),
                ("q3-review", 2, stamp, None),
            ):
                conn.execute(
                    text(session),
                    {
                        "id": sid,
                        "owner": owner,
                        "title": f"Title {sid}",
                        "folded": f"title {sid}",
                        "at": at,
                        "parent": parent,
                        "parent_event": "ev-1" if parent else None,
                    },
                )
            conn.execute(
                text(
                    "INSERT INTO interrupted_turns (session_id, prompt, at)"
                    " VALUES ('acme-merger', 'half', :at)"
                ),
                {"at": stamp},
            )
            conn.execute(
                text(
                    "INSERT INTO search_messages (session_id, owner_id, event_id, role, at, body)"
                    " VALUES ('acme-merger', 1, 'ev-1', 'user', '2026-01-01T00:00:00.000Z', 'cherry pie')"
                )
            )
            conn.execute(
                text(
                    "INSERT INTO session_leases (session_id, holder, fencing_token, expires_at)"
                    " VALUES ('acme-merger', NULL, 7, :at)"
                ),
                {"at": stamp},
            )
            conn.execute(
                text(
                    "INSERT INTO live_events (stream, seq, kind, data, at)"
                    " VALUES ('s:acme-merger', 1, 'idle', '{}', :at)"
                ),
                {"at": stamp},
            )
            conn.execute(
                text(
                    "INSERT INTO turn_usage (session_id, user_id, at, input_tokens, output_tokens)"
                    " VALUES ('acme-merger', 1, :at, 10, 2)"
                ),
                {"at": stamp},
            )
            conn.execute(
                text(
                    "INSERT INTO audit_log (at, user_id, username, action, session_id, details)"
                    " VALUES (:at, 1, 'alice', 'create', 'acme-merger', '{}')"
                ),
                {"at": stamp},
            )

        def keyed_rows() -> dict[str, list[tuple]]:
            with engine.connect() as conn:
                return {
                    table: [tuple(r) for r in conn.execute(text(q))] for table, q in _KEYED_BY_SESSION.items()
                }

        before = keyed_rows()
        assert migrate(engine, target="0011_owner_session_ids") == ["0011_owner_session_ids"]
        assert keyed_rows() == before
        migrate(engine)  # the catalog of today reads the later revisions' columns too

        catalog = SessionCatalog(engine)
        for sid, owner in (("acme-merger", 1), ("chat-0190abc", 1), ("q3-review", 2)):
            record = catalog.get_owned(sid, owner)
            assert record is not None and record.id == record.public_id == sid
            assert catalog.get(sid) == record
        assert catalog.get_owned("acme-merger", 2) is None
        assert [r.public_id for r in catalog.list_for_owner(1).items] == ["chat-0190abc", "acme-merger"]
        fork = catalog.get_owned("chat-0190abc", 1)
        assert fork is not None and (fork.parent_id, fork.parent_event_id) == ("acme-merger", "ev-1")
        hits = SearchIndex(engine).search(1, "cherry")
        assert [(hit.session_id, hit.event_id) for hit in hits] == [("acme-merger", "ev-1")]

        # Now ids are per owner: bob may have an acme-merger of his own, alice not a second one.
        bobs = catalog.create(SessionRecord.new("rt-bob-1", 2, "Bob's merger", public_id="acme-merger"))
        assert catalog.get_owned("acme-merger", 2) == bobs
        assert catalog.get_owned("acme-merger", 1) == catalog.get("acme-merger")
        with pytest.raises(SessionExistsError):
            catalog.create(SessionRecord.new("rt-alice-2", 1, "Again", public_id="acme-merger"))
    finally:
        engine.dispose()


def test_roles_make_the_first_existing_account_the_admin(blank_db: StoreDb) -> None:
    """Migration 0012 on a database with accounts: the lowest id becomes the admin, every other an
    analyst, so a deployment that had users before roles keeps one who can manage the data."""
    engine = blank_db.engine()
    try:
        migrate(engine, target="0011_owner_session_ids")
        now = datetime.now(UTC)
        with engine.begin() as conn:
            for user_id, name in ((3, "carol"), (1, "alice"), (2, "bob")):
                conn.execute(
                    text(
                        "INSERT INTO users (id, username, password_hash, created_at)"
                        " VALUES (:id, :n, 'x', :at)"
                    ),
                    {"id": user_id, "n": name, "at": now},
                )
        assert migrate(engine, target="0012_user_roles") == ["0012_user_roles"]
        with engine.connect() as conn:
            roles = dict(conn.execute(select(users.c.username, users.c.role)).all())
        assert roles == {"alice": "admin", "bob": "analyst", "carol": "analyst"}
    finally:
        engine.dispose()


def test_chats_stored_before_organising_keep_their_titles_and_are_neither_pinned_nor_archived(
    blank_db: StoreDb,
) -> None:
    """Migration 0014 on a database with chats: each counts as titled by its owner (the app never
    renames it now), is neither pinned nor archived, has no tags, and lists as before."""
    engine = blank_db.engine()
    try:
        migrate(engine, target="0013_share_links")
        now = datetime.now(UTC)
        with engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO users (id, username, password_hash, created_at)"
                    " VALUES (1, 'alice', 'x', :at)"
                ),
                {"at": now},
            )
            conn.execute(
                text(
                    "INSERT INTO sessions (id, owner_id, title, created_at, updated_at, preview, status,"
                    " turn_count, title_folded, public_id) VALUES ('rt-1', 1, 'Q3 review', :at, :at, '',"
                    " 'idle', 2, 'q3 review', 'q3-review')"
                ),
                {"at": now},
            )
        assert migrate(engine, target="0014_organise") == ["0014_organise"]
        catalog = SessionCatalog(engine)
        record = catalog.get_owned("q3-review", 1)
        assert record is not None
        assert (record.title_source, record.pinned_at, record.archived_at, record.tags) == (
            "user",
            None,
            None,
            (),
        )
        assert not catalog.auto_title("rt-1", 1, "Something else")
        assert [r.title for r in catalog.list_for_owner(1, archived=False, pinned=False).items] == [
            "Q3 review"
        ]
    finally:
        engine.dispose()


# -- databases of the hand-written runner that came before Alembic ----------------------------------

# That runner's bookkeeping table, as it created it: one row per applied step, named like our revisions.
LEGACY_VERSIONS = Table(
    "schema_migrations",
    MetaData(),
    Column("name", String(200), primary_key=True),
    Column("applied_at", UTCDateTime(), nullable=False),
)
LEGACY_SCHEMA_ENTRY = {
    "columns": [("name", False), ("applied_at", False)],
    "primary_key": ["name"],
    "foreign_keys": [],
    "indexes": [],
}


def leave_as_the_earlier_runner_did(engine: Engine, last: str) -> None:
    """Make the database what the earlier runner left after applying the steps up to ``last``.

    The revisions create byte-for-byte the DDL its steps did (checked with ``sqlite_master`` and
    ``pg_dump`` when they were ported), so only the bookkeeping differs: its own table, no Alembic's.
    """
    migrate(engine, target=last)
    with engine.begin() as conn:
        conn.execute(text(f"DROP TABLE {VERSION_TABLE}"))
        LEGACY_VERSIONS.create(conn)
        steps = ALL[: ALL.index(last) + 1]
        conn.execute(
            insert(LEGACY_VERSIONS), [{"name": name, "applied_at": datetime.now(UTC)} for name in steps]
        )


def alembic_version(engine: Engine) -> list[str]:
    with engine.connect() as conn:
        return list(conn.scalars(text(f"SELECT version_num FROM {VERSION_TABLE}")))


@pytest.mark.parametrize("last", ALL)
def test_a_database_of_the_earlier_runner_is_adopted_and_upgraded(blank_db: StoreDb, last: str) -> None:
    engine = blank_db.engine()
    try:
        leave_as_the_earlier_runner_did(engine, last)
        done = ALL[: ALL.index(last) + 1]
        assert applied_migrations(engine) == done

        assert migrate(engine) == ALL[len(done) :]
        assert alembic_version(engine) == [ALL[-1]]
        assert applied_migrations(engine) == ALL
        # Left as it was, so a server of the previous release restarted mid-upgrade still starts.
        assert describe_schema(engine) == {**EXPECTED_SCHEMA, "schema_migrations": LEGACY_SCHEMA_ENTRY}
        with engine.connect() as conn:
            assert sorted(conn.scalars(select(LEGACY_VERSIONS.c.name))) == done
        assert migrate(engine) == []
    finally:
        engine.dispose()


def test_an_adopted_database_keeps_its_data_through_the_steps_it_lacked(blank_db: StoreDb) -> None:
    engine = blank_db.engine()
    try:
        leave_as_the_earlier_runner_did(engine, "0002_pending_prompt")
        now = datetime.now(UTC)
        with engine.begin() as conn:
            conn.execute(insert(users).values(id=1, username="alice", password_hash="x", created_at=now))
            conn.execute(
                text(
                    "INSERT INTO sessions (id, owner_id, title, created_at, updated_at, preview, status,"
                    " turn_count, pending_prompt) VALUES ('sess-1', 1, 'Straße', :now, :now, '', 'busy', 1,"
                    " 'half-asked')"
                ),
                {"now": now.replace(tzinfo=None) if engine.dialect.name == "sqlite" else now},
            )
        assert migrate(engine) == ALL[ALL.index("0003_title_search") :]
        record = SessionCatalog(engine).get("sess-1")
        assert record is not None
        assert record.pending_prompt == "half-asked"
        assert [r.id for r in SessionCatalog(engine).list_for_owner(1, search="STRASSE").items] == ["sess-1"]
    finally:
        engine.dispose()


@pytest.mark.slow  # worker processes of their own
def test_servers_starting_together_on_an_earlier_runners_database_adopt_it_once(blank_db: StoreDb) -> None:
    setup = blank_db.engine()
    leave_as_the_earlier_runner_did(setup, "0002_pending_prompt")
    setup.dispose()
    start_at = str(time.time() + 2.5)
    command = [sys.executable, str(WORKER), "migrate", blank_db.url, start_at]
    procs = [subprocess.Popen(command, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [proc.communicate(timeout=120)[0] for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0]
    assert sorted((json.loads(out) for out in outputs), key=len) == [[], ALL[2:]]
    engine = blank_db.engine()
    try:
        assert alembic_version(engine) == [ALL[-1]]
        assert describe_schema(engine) == {**EXPECTED_SCHEMA, "schema_migrations": LEGACY_SCHEMA_ENTRY}
    finally:
        engine.dispose()


# -- Alembic's own tools -----------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:.*expression-based index:UserWarning")
@pytest.mark.filterwarnings("ignore:.*expression-based index:sqlalchemy.exc.SAWarning")
def test_alembic_finds_no_drift_between_the_revisions_and_schema_py(store_db: StoreDb) -> None:
    """Alembic's autogenerate, comparing the migrated database with ``schema.metadata``."""
    engine = store_db.engine()
    try:
        alembic_command.check(alembic_config(engine))  # raises if an upgrade operation is missing
    finally:
        engine.dispose()


@pytest.mark.slow  # the alembic CLI in a process of its own
def test_the_alembic_command_line_migrates_the_apps_database(tmp_path: Path) -> None:
    """``alembic`` in the project (pyproject's ``[tool.alembic]``) reaches the database the app would."""
    environment = clean_environment(DATABASE_URL=f"sqlite:///{tmp_path / 'catalog.sqlite'}")

    def alembic(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "alembic", *args],
            cwd=PROJECT_ROOT,
            env=environment,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    alembic("upgrade", "head")
    assert alembic("current").strip() == f"{ALL[-1]} (head)"
    engine = make_engine(environment["DATABASE_URL"])
    try:
        assert describe_schema(engine) == EXPECTED_SCHEMA
    finally:
        engine.dispose()

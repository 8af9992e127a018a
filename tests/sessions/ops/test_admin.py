"""Session operations: export one session as JSON, purge sessions past retention.

Real stores throughout: a SQLite catalog with the runtime's local files, and one shared-mode run on the
machine's PostgreSQL (catalog and files in one fresh schema). The CLI runs in a child process, as an
operator would run it from cron.
"""

import json
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from argon2 import PasswordHasher
from sqlalchemy import Engine

from agent_orchestrator.errors import InvalidInputError, SessionNotFoundError
from agent_orchestrator.runtime.session_files import SessionFiles
from agent_orchestrator.sessions.composition import open_storage
from agent_orchestrator.sessions.files.deployment import deployment_files, shared_store
from agent_orchestrator.sessions.files.local import LocalSessionFiles
from agent_orchestrator.sessions.ops.admin import export_session, purge_sessions
from agent_orchestrator.sessions.store import (
    AuditLog,
    LeaseManager,
    SessionCatalog,
    SessionRecord,
    User,
    UserStore,
    make_engine,
    migrate,
)
from agent_orchestrator.sessions.store.schema import utcnow
from agent_orchestrator.settings import load_settings
from agent_orchestrator.testing.environment import clean_environment
from agent_orchestrator.testing.postgres import FreshSchema

FAST_HASHER = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)


def realistic_events(session_id: str) -> bytes:
    """An ``events.jsonl`` as the runtime writes it: one answered turn (with a tool call and usage
    bookkeeping), then a second turn cut off before its answer."""

    def event(kind: str, at: str, **data: object) -> str:
        # Compact, UTF-8, "type" first: exactly what the runtime writes (and what parse_events expects).
        record = {"type": kind, "data": data, "id": f"{session_id}-{at}", "timestamp": at}
        return json.dumps(record, separators=(",", ":"), ensure_ascii=False)

    lines = [
        event("session.start", "2025-01-02T09:00:00.000Z", sessionId=session_id, version=1),
        event("user.message", "2025-01-02T09:00:01.000Z", content="Top segment by revenue?", turnId="0"),
        event("system.message", "2025-01-02T09:00:01.100Z", role="system", content="You are..."),
        event("assistant.turn_start", "2025-01-02T09:00:01.200Z", turnId="0"),
        event("session.usage_record", "2025-01-02T09:00:02.000Z", usage={"inputTokens": 98}),
        event("assistant.message", "2025-01-02T09:00:02.100Z", content="", toolRequests=[{"name": "q"}]),
        event("tool.execution_complete", "2025-01-02T09:00:02.500Z", success=True),
        event(
            "assistant.message", "2025-01-02T09:00:03.000Z", content="Cafés: 41 % (€1.2M).", toolRequests=[]
        ),
        event("assistant.turn_end", "2025-01-02T09:00:03.100Z", turnId="0"),
        event("user.message", "2025-01-02T09:05:00.000Z", content="And last year?", turnId="1"),
        event("assistant.turn_start", "2025-01-02T09:05:00.100Z", turnId="1"),
    ]
    return "".join(line + "\n" for line in lines).encode()


def write_local_events(data_dir: Path, session_id: str) -> Path:
    folder = data_dir / "copilot" / "session-state" / session_id
    (folder / "checkpoints").mkdir(parents=True)
    (folder / "workspace.yaml").write_text(f"id: {session_id}\n")
    (folder / "events.jsonl").write_bytes(realistic_events(session_id))
    return folder


def catalogue(engine: Engine, session_id: str, owner: User, *, days_ago: float) -> SessionRecord:
    at = utcnow() - timedelta(days=days_ago)
    record = SessionRecord.new(session_id, owner.id, f"Chat {session_id}", model="m", at=at)
    return SessionCatalog(engine).create(record)


def run_cli(*args: str, data_dir: Path, database_url: str | None = None) -> subprocess.CompletedProcess[str]:
    env = clean_environment(AGENT_ORCHESTRATOR_HOME=str(data_dir))
    env.pop("DATABASE_URL", None)
    if database_url is not None:
        env["DATABASE_URL"] = database_url
    return subprocess.run(
        [sys.executable, "-m", "agent_orchestrator.sessions", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    """The catalog where the CLI looks for it with ``AGENT_ORCHESTRATOR_HOME=tmp_path``."""
    engine = make_engine(f"sqlite:///{tmp_path / 'catalog.sqlite'}")
    migrate(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def users(engine: Engine) -> tuple[User, User]:
    store = UserStore(engine, hasher=FAST_HASHER)
    return store.create("alice", "correct horse battery"), store.create("bob", "correct horse battery")


@pytest.fixture
def files(tmp_path: Path) -> SessionFiles:
    """The files the CLI opens with ``AGENT_ORCHESTRATOR_HOME=tmp_path``, no master key, no PostgreSQL."""
    return deployment_files(tmp_path, None)


# -- export ---------------------------------------------------------------------------------------


async def test_the_local_backend_is_chosen_unless_the_database_is_postgresql(
    files: SessionFiles, tmp_path: Path
) -> None:
    assert shared_store(f"sqlite:///{tmp_path / 'catalog.sqlite'}") is None
    assert isinstance(files, LocalSessionFiles)


async def test_export_has_the_catalog_row_the_transcript_and_the_raw_event_log(
    engine: Engine, users: tuple[User, User], files: SessionFiles, tmp_path: Path
) -> None:
    alice, _ = users
    record = catalogue(engine, "case-42", alice, days_ago=3)
    folder = write_local_events(tmp_path, "case-42")

    document = await export_session(engine, files, "case-42")

    assert json.loads(json.dumps(document)) == document  # plain JSON, no datetimes left
    session = document["session"]
    assert (session["id"], session["owner_id"], session["title"]) == ("case-42", alice.id, "Chat case-42")
    assert datetime.fromisoformat(session["updated_at"]) == record.updated_at
    assert datetime.fromisoformat(session["created_at"]).tzinfo is not None
    assert session["status"] == "idle" and session["turn_count"] == 0 and session["model"] == "m"
    assert document["transcript"] == [
        {
            "role": "user",
            "content": "Top segment by revenue?",
            "timestamp": "2025-01-02T09:00:01.000Z",
            "event_id": "case-42-2025-01-02T09:00:01.000Z",
            "interrupted": False,
        },
        {
            "role": "assistant",
            "content": "Cafés: 41 % (€1.2M).",
            "timestamp": "2025-01-02T09:00:03.000Z",
            "event_id": "case-42-2025-01-02T09:00:03.000Z",
            "interrupted": False,
        },
        {
            "role": "user",
            "content": "And last year?",
            "timestamp": "2025-01-02T09:05:00.000Z",
            "event_id": "case-42-2025-01-02T09:05:00.000Z",
            "interrupted": True,
        },
    ]
    assert document["events"] == (folder / "events.jsonl").read_text(encoding="utf-8")
    assert utcnow() - datetime.fromisoformat(document["exported_at"]) < timedelta(minutes=1)
    [audited] = AuditLog(engine).recent(session_id="case-42")
    assert (audited.action, audited.username, dict(audited.details)) == (
        "read",
        "export",
        {"public_id": "case-42", "reason": "export"},
    )


async def test_a_session_without_an_event_log_exports_an_empty_conversation(
    engine: Engine, users: tuple[User, User], files: SessionFiles
) -> None:
    catalogue(engine, "fresh-1", users[0], days_ago=0)
    document = await export_session(engine, files, "fresh-1")
    assert (document["transcript"], document["events"]) == ([], "")


async def test_an_unknown_or_malformed_id_is_a_clear_error(
    engine: Engine, files: SessionFiles, tmp_path: Path
) -> None:
    write_local_events(tmp_path, "orphan-1")  # files without a catalog row are not a session either
    with pytest.raises(SessionNotFoundError, match="No session with id orphan-1"):
        await export_session(engine, files, "orphan-1")
    with pytest.raises(InvalidInputError, match="Session ids"):
        await export_session(engine, files, "../etc")


@pytest.mark.slow  # the CLI in a process per call, seconds each on 2 cores
async def test_an_operator_names_a_session_by_its_owner_when_several_have_its_id(
    engine: Engine, users: tuple[User, User], files: SessionFiles, tmp_path: Path
) -> None:
    """Public ids are per owner (docs/architecture.md#session-ids): ``acme-merger`` may be Alice's and
    Bob's; the export is named by the public id, and only an id one session has needs no owner."""
    alice, bob = users
    catalog = SessionCatalog(engine)
    for runtime, owner in (("rt-alice", alice), ("rt-bob", bob)):
        catalog.create(SessionRecord.new(runtime, owner.id, f"{owner.username}'s", public_id="acme-merger"))
        write_local_events(tmp_path, runtime)
    with pytest.raises(InvalidInputError, match=r"2 sessions have the id acme-merger.*--user"):
        await export_session(engine, files, "acme-merger")
    document = await export_session(engine, files, "acme-merger", username="bob")
    assert (document["session"]["id"], document["session"]["title"]) == ("acme-merger", "bob's")
    assert "rt-bob" in document["events"] and "public_id" not in document["session"]
    assert (await export_session(engine, files, "rt-alice"))["session"]["title"] == "alice's"
    with pytest.raises(SessionNotFoundError, match="alice has no session with id rt-bob"):
        await export_session(engine, files, "rt-bob", username="alice")
    [audited] = AuditLog(engine).recent(session_id="rt-bob")
    assert dict(audited.details) == {"public_id": "acme-merger", "reason": "export"}

    shown = run_cli("export", "acme-merger", "--user", "alice", "--markdown", data_dir=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("# alice's\n") and "session `acme-merger`" in shown.stdout
    refused = run_cli("export", "acme-merger", data_dir=tmp_path)
    assert refused.returncode == 1 and "name the owner with --user" in refused.stderr


# -- purge ----------------------------------------------------------------------------------------


async def test_purge_deletes_old_sessions_everywhere_audits_them_and_skips_a_running_turn(
    engine: Engine, users: tuple[User, User], files: SessionFiles, tmp_path: Path
) -> None:
    alice, bob = users
    catalog, leases = SessionCatalog(engine), LeaseManager(engine)
    for session_id, owner, days in [
        ("old-a", alice, 40),
        ("old-b", bob, 35),
        ("busy-1", alice, 50),
        ("new-1", bob, 2),
    ]:
        catalogue(engine, session_id, owner, days_ago=days)
        write_local_events(tmp_path, session_id)
    turn = leases.acquire("busy-1", "web-1/turn", ttl=60)  # another server is answering in busy-1
    assert turn is not None

    dry = await purge_sessions(engine, files, 30, dry_run=True)
    assert dry.deleted_ids == ["old-a", "old-b"]
    assert [record.id for record in dry.busy] == ["busy-1"]
    for session_id in ("old-a", "old-b", "busy-1", "new-1"):
        assert catalog.get(session_id) is not None
        assert await files.has_session(session_id)
    assert not [event for event in AuditLog(engine).recent() if event.action == "delete"]

    report = await purge_sessions(engine, files, 30)

    assert report.deleted_ids == ["old-a", "old-b"] and not report.dry_run
    assert [record.id for record in report.busy] == ["busy-1"]
    for gone in ("old-a", "old-b"):
        assert catalog.get(gone) is None
        assert not (tmp_path / "copilot" / "session-state" / gone).exists()
        assert leases.current(gone) is None  # the purge's own lease is released
        [event] = AuditLog(engine).recent(session_id=gone)
        assert (event.action, event.username, event.user_id) == ("delete", "retention", None)
        assert dict(event.details) == {"public_id": gone, "reason": "retention", "older_than_days": 30}
    for kept in ("busy-1", "new-1"):
        assert catalog.get(kept) is not None and await files.has_session(kept)
    assert leases.check("busy-1", turn.fencing_token)  # the running turn still holds its lease

    leases.release(turn)
    assert (await purge_sessions(engine, files, 30)).deleted_ids == ["busy-1"]


async def test_purge_refuses_less_than_a_day(engine: Engine, files: SessionFiles) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        await purge_sessions(engine, files, 0)


# -- CLI ------------------------------------------------------------------------------------------


@pytest.mark.slow  # the CLI in a process per call, seconds each on 2 cores
def test_cli_export_to_stdout_and_to_an_owner_only_file(
    engine: Engine, users: tuple[User, User], tmp_path: Path
) -> None:
    catalogue(engine, "case-7", users[0], days_ago=1)
    write_local_events(tmp_path, "case-7")

    shown = run_cli("export", "case-7", data_dir=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["session"]["id"] == "case-7"

    out = tmp_path / "exports" / "case-7.json"
    out.parent.mkdir()
    written = run_cli("export", "case-7", "--out", str(out), data_dir=tmp_path)
    assert written.returncode == 0, written.stderr
    assert written.stdout == ""
    assert [m["content"] for m in json.loads(out.read_text())["transcript"]][:2] == [
        "Top segment by revenue?",
        "Cafés: 41 % (€1.2M).",
    ]
    assert out.stat().st_mode & 0o777 == 0o600


@pytest.mark.slow  # the CLI in a process per call, seconds each on 2 cores
def test_cli_errors_are_one_line_without_a_traceback(engine: Engine, tmp_path: Path) -> None:
    for args, expected in [
        (("export", "nope-1"), "error: No session with id nope-1 in the catalog."),
        (("export", "ghp_" + "a1B2" * 9), "error: Session ids must not contain secrets or tokens"),
        (("purge", "--older-than", "soon"), "error: argument --older-than: expected a whole number"),
    ]:
        result = run_cli(*args, data_dir=tmp_path)
        assert result.returncode != 0
        assert result.stdout == ""
        assert len(result.stderr.splitlines()) == 1, result.stderr
        assert result.stderr.startswith(expected), result.stderr


@pytest.mark.slow  # the CLI in a process per call, seconds each on 2 cores
def test_cli_purge_dry_run_then_purge(engine: Engine, users: tuple[User, User], tmp_path: Path) -> None:
    catalogue(engine, "old-1", users[0], days_ago=100)
    catalogue(engine, "busy-2", users[1], days_ago=100)
    catalogue(engine, "new-2", users[1], days_ago=1)
    for session_id in ("old-1", "busy-2", "new-2"):
        write_local_events(tmp_path, session_id)
    assert LeaseManager(engine).acquire("busy-2", "web-1/turn", ttl=120) is not None

    dry = run_cli("purge", "--older-than", "90", "--dry-run", data_dir=tmp_path)
    assert dry.returncode == 0, dry.stderr
    lines = dry.stdout.splitlines()
    assert lines[0].startswith(f"would delete old-1 of user {users[0].id} (last active ")
    assert lines[1:] == [
        f"skipped busy-2 of user {users[1].id}: a turn is running",
        "Would delete 1 session(s) not updated for 90 day(s); skipped 1 busy; dry run, nothing deleted.",
    ]
    assert SessionCatalog(engine).get("old-1") is not None

    done = run_cli("purge", "--older-than", "90", data_dir=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].startswith(f"deleted old-1 of user {users[0].id} (last active ")
    assert done.stdout.splitlines()[-1] == "Deleted 1 session(s) not updated for 90 day(s); skipped 1 busy."
    assert SessionCatalog(engine).get("old-1") is None
    assert not (tmp_path / "copilot" / "session-state" / "old-1").exists()
    assert (tmp_path / "copilot" / "session-state" / "new-2" / "events.jsonl").is_file()


# -- shared mode ----------------------------------------------------------------------------------


@pytest.fixture
def shared_database_url(postgres_schema: FreshSchema) -> str:
    """``DATABASE_URL`` for shared mode on a fresh schema (via ``search_path``), dropped afterwards."""
    return postgres_schema.url


@pytest.mark.postgres
async def test_shared_mode_exports_and_purges_catalog_and_files_in_postgresql(
    shared_database_url: str, tmp_path: Path
) -> None:
    from agent_orchestrator.sessions.files.postgres import PostgresSessionFiles, PostgresSessionFsProvider

    settings = load_settings({"DATABASE_URL": shared_database_url, "AGENT_ORCHESTRATOR_HOME": str(tmp_path)})
    database_url = settings.database_url
    engine = make_engine(database_url)
    try:
        migrate(engine)
        alice = UserStore(engine, hasher=FAST_HASHER).create("alice", "correct horse battery")
        catalogue(engine, "pg-old", alice, days_ago=60)
        catalogue(engine, "pg-new", alice, days_ago=1)
        async with open_storage(settings.web, shared_store(database_url)) as storage:
            files = storage.files
            assert isinstance(files, PostgresSessionFiles)
            for session_id in ("pg-old", "pg-new"):
                provider = PostgresSessionFsProvider(files, session_id)
                await provider.write_file_bytes("/session-state/events.jsonl", realistic_events(session_id))

            exported = run_cli("export", "pg-old", data_dir=tmp_path, database_url=shared_database_url)
            assert exported.returncode == 0, exported.stderr
            document = json.loads(exported.stdout)
            assert document["events"] == realistic_events("pg-old").decode()
            assert [m["interrupted"] for m in document["transcript"]] == [False, False, True]

            purged = run_cli(
                "purge", "--older-than", "30", data_dir=tmp_path, database_url=shared_database_url
            )
            assert purged.returncode == 0, purged.stderr
            assert (
                purged.stdout.splitlines()[-1]
                == "Deleted 1 session(s) not updated for 30 day(s); skipped 0 busy."
            )
            assert not await files.has_session("pg-old")
            assert await files.has_session("pg-new")
        assert SessionCatalog(engine).get("pg-old") is None
        assert SessionCatalog(engine).get("pg-new") is not None
        [event] = [e for e in AuditLog(engine).recent(session_id="pg-old") if e.action == "delete"]
        assert (event.username, dict(event.details)) == (
            "retention",
            {"public_id": "pg-old", "reason": "retention", "older_than_days": 30},
        )
        assert not (tmp_path / "copilot").exists()  # nothing went to (or was looked for on) local disk
    finally:
        engine.dispose()

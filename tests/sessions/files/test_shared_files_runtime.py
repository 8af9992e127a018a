"""Two "servers" (two Copilot runtimes with their own data dirs) sharing one PostgreSQL store.

Everything is real -- SDK, CLI, PostgreSQL -- except the model, which is the scripted one from the
suite's conftest (its rule recalls a "favourite retail segment" from earlier user turns).
"""

import asyncio
import json
from pathlib import Path

import pytest

from agent_orchestrator.errors import RuntimeFailure, SessionExistsError, SessionNotFoundError
from agent_orchestrator.runtime import CopilotRuntime, RuntimeSettings
from agent_orchestrator.sessions.files.postgres import PostgresSessionFiles
from agent_orchestrator.sessions.store import LeaseManager, Write, make_engine, migrate
from agent_orchestrator.testing.scripted_model import ScriptedModel, Text, user_messages

pytestmark = pytest.mark.postgres

EVENTS = "/session-state/events.jsonl"
TELL = "Remember: my favourite retail segment is 'Loyal Customers'."
ASK = "Which retail segment is my favourite?"


def _runtime(data_dir: Path, model: ScriptedModel, store: PostgresSessionFiles) -> CopilotRuntime:
    settings = RuntimeSettings(
        data_dir=data_dir, provider_base_url=model.base_url, model="scripted-model", turn_timeout=60
    )
    return CopilotRuntime(settings, session_files=store)


def _local_session_state(data_dir: Path) -> list[str]:
    folder = data_dir / "copilot" / "session-state"
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) if folder.exists() else []


def _event_types(log: bytes) -> list[str]:
    return [json.loads(line)["type"] for line in log.decode().splitlines()]


async def test_a_session_from_server_a_resumes_with_full_history_on_server_b(tmp_path, scripted_model, store):
    server_a, server_b = tmp_path / "a", tmp_path / "b"
    async with (
        _runtime(server_a, scripted_model, store) as runtime,
        await runtime.create_session("shared-resume-1") as session,
    ):
        assert await runtime.ask(session, TELL) == "OK"
    async with (
        _runtime(server_b, scripted_model, store) as runtime,
        await runtime.resume_session("shared-resume-1") as session,
    ):
        answer = await runtime.ask(session, ASK)

    assert answer == "Your favourite retail segment is 'Loyal Customers'."
    on_b = scripted_model.requests[-1]["messages"]
    assert [m["role"] for m in on_b[1:]] == ["user", "assistant", "user"]
    assert TELL in user_messages(scripted_model.requests[-1])[0] and on_b[2]["content"] == "OK"
    # The conversation lives only in PostgreSQL: neither server has a session-state folder for it.
    assert _local_session_state(server_a) == [] and _local_session_state(server_b) == []
    log = (await store.export_files("shared-resume-1"))[EVENTS]
    types = _event_types(log)
    assert types[0] == "session.start" and "session.resume" in types
    assert types.count("user.message") == 2


async def test_no_conversation_text_stays_on_the_servers_disk(tmp_path, scripted_model, store):
    """Regression: shared mode moves the session *files*, but the runtime's cross-session store kept a
    SQLite ``session-store.db`` on each server with every turn's prompt and reply and a full-text index,
    which no "delete everywhere" could reach. Sessions now run with ``enable_session_store=False``."""
    async with (
        _runtime(tmp_path, scripted_model, store) as runtime,
        await runtime.create_session("shared-local-index-1") as session,
    ):
        await runtime.ask(session, TELL)
    assert _local_session_state(tmp_path) == []
    files = [p for p in (tmp_path / "copilot").rglob("*") if p.is_file()]
    assert [p for p in files if TELL.encode() in p.read_bytes()] == []


async def test_resuming_an_id_stored_nowhere_is_not_found_and_stores_nothing(tmp_path, scripted_model, store):
    """The runtime asks the provider for ``workspace.yaml`` and ``events.jsonl``; both missing is its
    "Session not found", which the factory turns into ``SessionNotFoundError``."""
    async with _runtime(tmp_path, scripted_model, store) as runtime:
        with pytest.raises(SessionNotFoundError):
            await runtime.resume_session("shared-missing-1")
    assert "shared-missing-1" not in await store.session_ids()
    assert scripted_model.requests == []


async def test_creating_an_id_that_lives_in_the_store_is_refused_on_another_server(
    tmp_path, scripted_model, store
):
    """Regression: ``get_session_metadata`` only scans the local COPILOT_HOME, so a second server did
    not see a stored session, created it again and appended a second ``session.start`` to its log (the
    new turn started without the old history). The factory now also asks ``store.has_session``."""
    async with (
        _runtime(tmp_path / "a", scripted_model, store) as runtime,
        await runtime.create_session("shared-dup-1") as session,
    ):
        await runtime.ask(session, TELL)
    async with _runtime(tmp_path / "b", scripted_model, store) as runtime:
        assert await runtime.get_metadata("shared-dup-1") is None  # the runtime alone cannot tell
        with pytest.raises(SessionExistsError):
            await runtime.create_session("shared-dup-1")
    types = _event_types((await store.export_files("shared-dup-1"))[EVENTS])
    assert types.count("session.start") == 1


async def test_a_stale_writers_late_write_is_rejected(tmp_path, scripted_model, store, module_schema):
    """Fencing: server A's lease expires while its turn is stuck (here: a slow model); server B takes
    the session over. When A's model finally answers, the runtime's append of that answer must not
    land in the log B is now writing."""
    engine = make_engine(module_schema.sqlalchemy_url)
    migrate(engine)
    leases = LeaseManager(engine)
    async with (
        _runtime(tmp_path / "seed", scripted_model, store) as runtime,
        await runtime.create_session("shared-fenced-1") as session,
    ):
        await runtime.ask(session, TELL)
    stale = leases.acquire("shared-fenced-1", "server-a", ttl=5.0)
    assert stale is not None

    async def fenced(session_id: str) -> Write:
        live = await asyncio.to_thread(leases.check, session_id, stale.fencing_token)
        return Write.PASS if live else Write.REFUSE

    store.writer_check = fenced
    scripted_model.script(Text("late answer", delay=8))
    try:
        async with _runtime(tmp_path / "a", scripted_model, store) as runtime:
            session = await runtime.resume_session("shared-fenced-1")
            asking = asyncio.create_task(runtime.ask(session, "a slow question"))
            await asyncio.sleep(5.5)  # kept: A's lease runs out while its model is still thinking
            assert leases.acquire("shared-fenced-1", "server-b", ttl=30) is not None  # B takes over
            with pytest.raises(RuntimeFailure):
                await asking
            with pytest.raises(RuntimeError, match="detach"):  # even its shutdown record is refused
                await session.disconnect()
    finally:
        store.writer_check = None
        engine.dispose()
    log = (await store.export_files("shared-fenced-1"))[EVENTS]
    assert b"late answer" not in log


async def test_a_stale_copy_closes_cleanly_and_its_server_resumes_the_session_fresh(
    tmp_path, scripted_model, store, module_schema, pg_url, pg_schema
):
    """Issue 42: server A keeps its copy of a session open after a turn; server B then answers a turn
    of it. A's copy is stale: closing it used to fail (its shutdown record was refused with EACCES),
    which left the runtime holding a half-closed copy, and A's next resume of the session failed with
    "session close failed" -- an acknowledged message lost. A stale copy's writes are dropped instead:
    the close succeeds, nothing of it reaches the log, and A resumes the whole conversation."""
    engine = make_engine(module_schema.sqlalchemy_url)
    migrate(engine)
    leases = LeaseManager(engine)
    first = leases.acquire("shared-stale-1", "server-a/1", ttl=30)
    assert first is not None
    fence = {"token": first.fencing_token, "turn": True}

    async def as_server_a(session_id: str) -> Write:  # TurnRunner.may_write, reduced to one session
        if fence["turn"]:
            live = await asyncio.to_thread(leases.check, session_id, fence["token"])
            return Write.PASS if live else Write.REFUSE
        latest = await asyncio.to_thread(leases.is_latest, session_id, fence["token"])
        return Write.PASS if latest else Write.DROP

    store.writer_check = as_server_a
    try:
        async with _runtime(tmp_path / "a", scripted_model, store) as server_a:
            kept = await server_a.create_session("shared-stale-1")
            assert await server_a.ask(kept, "hello") == "OK"
            await server_a.save_session("shared-stale-1")
            leases.release(first)
            fence["turn"] = False  # kept open between turns

            on_b = PostgresSessionFiles.from_url(pg_url, schema=pg_schema, max_size=2)  # B's own fences: none
            async with on_b, _runtime(tmp_path / "b", scripted_model, on_b) as server_b:
                second = leases.acquire("shared-stale-1", "server-b/1", ttl=30)
                assert second is not None
                async with await server_b.resume_session("shared-stale-1") as session:
                    await server_b.ask(session, TELL)
                leases.release(second)
            before = (await store.export_files("shared-stale-1"))[EVENTS]

            third = leases.acquire("shared-stale-1", "server-a/2", ttl=30)
            assert third is not None
            await kept.disconnect()  # the stale copy: closed cleanly, its shutdown record dropped
            assert (await store.export_files("shared-stale-1"))[EVENTS] == before
            fence.update(token=third.fencing_token, turn=True)
            async with await server_a.resume_session("shared-stale-1") as session:
                answer = await server_a.ask(session, ASK)
    finally:
        store.writer_check = None
        engine.dispose()
    assert answer == "Your favourite retail segment is 'Loyal Customers'."

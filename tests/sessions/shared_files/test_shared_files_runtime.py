"""Two "servers" (two Copilot runtimes with their own data dirs) sharing one PostgreSQL store.

Everything is real -- SDK, CLI, PostgreSQL -- except the model, which is the scripted one from the
suite's conftest (its rule recalls a "favourite retail segment" from earlier user turns).
"""

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from agent_orchestrator.runtime import CopilotRuntime, RuntimeSettings
from agent_orchestrator.runtime.errors import SessionNotFoundError
from agent_orchestrator.sessions.shared_files import PostgresSessionFiles
from agent_orchestrator.testing.scripted_model import ScriptedModel, user_messages

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


async def test_the_runtime_still_indexes_turns_in_its_local_session_store_db(tmp_path, scripted_model, store):
    """Shared mode moves the session *files*, not everything: each server's COPILOT_HOME keeps a SQLite
    ``session-store.db`` with the session, every turn's prompt and reply, and a full-text index. Deleting
    a session "everywhere" (DESIGN §5) has to reach that file on every server too."""
    async with (
        _runtime(tmp_path, scripted_model, store) as runtime,
        await runtime.create_session("shared-local-index-1") as session,
    ):
        await runtime.ask(session, TELL)
    with closing(sqlite3.connect(tmp_path / "copilot" / "session-store.db")) as db:
        turns = db.execute("SELECT user_message FROM turns WHERE session_id = ?", ("shared-local-index-1",))
        assert [row[0] for row in turns] == [TELL]
    assert _local_session_state(tmp_path) == []


async def test_resuming_an_id_stored_nowhere_is_not_found_and_stores_nothing(tmp_path, scripted_model, store):
    """The runtime asks the provider for ``workspace.yaml`` and ``events.jsonl``; both missing is its
    "Session not found", which the factory turns into ``SessionNotFoundError``."""
    async with _runtime(tmp_path, scripted_model, store) as runtime:
        with pytest.raises(SessionNotFoundError):
            await runtime.resume_session("shared-missing-1")
    assert "shared-missing-1" not in await store.session_ids()
    assert scripted_model.requests == []


async def test_in_shared_mode_the_runtime_cannot_see_stored_ids_so_create_does_not_refuse_them(
    tmp_path, scripted_model, store
):
    """The story: ``CopilotRuntime.create_session`` refuses existing ids by asking the runtime's
    ``get_session_metadata``, which only scans the local COPILOT_HOME. On a second server a session that
    lives in the store is unknown to it (metadata ``None``, not listed, "not found" on delete), so
    create goes ahead and the runtime appends a *second* ``session.start`` to the stored log: the new
    turn starts without the old history. ``store.has_session`` sees it; the catalog must ask it."""
    async with (
        _runtime(tmp_path / "a", scripted_model, store) as runtime,
        await runtime.create_session("shared-dup-1") as session,
    ):
        await runtime.ask(session, TELL)
    async with _runtime(tmp_path / "b", scripted_model, store) as runtime:
        assert await store.has_session("shared-dup-1")
        assert await runtime.get_metadata("shared-dup-1") is None
        assert "shared-dup-1" not in [meta.session_id for meta in await runtime.list_sessions()]
        with pytest.raises(SessionNotFoundError):
            await runtime.delete_session("shared-dup-1")
        async with await runtime.create_session("shared-dup-1") as session:  # not refused
            answer = await runtime.ask(session, ASK)
    assert answer == "You have not told me a favourite segment."
    types = _event_types((await store.export_files("shared-dup-1"))[EVENTS])
    assert types.count("session.start") == 2

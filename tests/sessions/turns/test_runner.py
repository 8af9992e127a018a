"""The TurnRunner against the real Copilot CLI and the scripted model: the lease a turn takes and
gives back, a second sender refused, the warm copy kept for the next turn; a turn whose server died
before telling the feed its end is ended in the feed by the next turn."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import delete

from agent_orchestrator.errors import SessionBusyError
from agent_orchestrator.runtime import CopilotRuntime, RuntimeSettings
from agent_orchestrator.sessions.files.local import LocalSessionFiles
from agent_orchestrator.sessions.live.feed import LiveHub
from agent_orchestrator.sessions.service import Actor, SessionService
from agent_orchestrator.sessions.store import (
    AuditLog,
    LeaseManager,
    LiveEventLog,
    SessionCatalog,
    UserStore,
    make_engine,
    migrate,
)
from agent_orchestrator.sessions.store.live_events import session_stream
from agent_orchestrator.sessions.store.schema import live_events
from agent_orchestrator.sessions.turn_runner import TurnRunner
from agent_orchestrator.sessions.turns.stream import Done
from agent_orchestrator.testing.scripted_model import ScriptedModel

pytestmark = pytest.mark.slow


@dataclass
class _Runner:
    service: SessionService
    turns: TurnRunner
    live: LiveHub
    actor: Actor


@contextlib.asynccontextmanager
async def _runner(tmp_path: Path, model: ScriptedModel) -> AsyncIterator[_Runner]:
    """A session service and its turn runner on SQLite and the real runtime, one user acting."""
    engine = make_engine(f"sqlite:///{tmp_path / 'catalog.sqlite'}")
    migrate(engine)
    user = UserStore(engine).create("runner", "correct horse battery")
    settings = RuntimeSettings(data_dir=tmp_path, provider_base_url=model.base_url, model="scripted-model")
    async with CopilotRuntime(settings, streaming=True) as runtime:
        catalog, files = SessionCatalog(engine), LocalSessionFiles(settings.copilot_home)
        live = LiveHub(LiveEventLog(engine))
        turns = TurnRunner(
            runtime=runtime,
            catalog=catalog,
            leases=LeaseManager(engine),
            files=files,
            live=live,
            server_id="t",
        )
        service = SessionService(
            runtime=runtime, catalog=catalog, audit=AuditLog(engine), files=files, live=live, turns=turns
        )
        try:
            yield _Runner(service, turns, live, Actor(user, "test"))
        finally:
            await turns.wait_for_turns()
            await turns.warm.close_all()


async def _scenario(tmp_path: Path, model: ScriptedModel) -> None:
    async with _runner(tmp_path, model) as run:
        service, turns, actor = run.service, run.turns, run.actor
        record = await service.create(actor, title="Runner", case_key=None)
        stream = await service.send(actor, record.public_id, "hello")
        assert await turns.turn_running(record.id)  # the turn holds the lease
        with pytest.raises(SessionBusyError):  # a second sender is refused while it does
            await service.send(actor, record.public_id, "again")
        events = [event async for event in stream]
        assert isinstance(events[-1], Done)
        assert not await turns.turn_running(record.id)  # released as the stream ends
        assert record.id in turns.warm  # the copy stays open for the next turn
        second = [event async for event in await service.send(actor, record.public_id, "more")]
        assert isinstance(second[-1], Done)
        assert (await service.get(actor, record.public_id)).turn_count == 2


def test_a_turn_takes_the_lease_refuses_a_second_sender_and_keeps_its_warm_copy(
    tmp_path: Path, scripted_model: ScriptedModel
) -> None:
    asyncio.run(_scenario(tmp_path, scripted_model))


async def _unended_turn(tmp_path: Path, model: ScriptedModel) -> None:
    async with _runner(tmp_path, model) as run:
        service, live, actor = run.service, run.live, run.actor
        record = await service.create(actor, title="Runner", case_key=None)
        first = [event async for event in await service.send(actor, record.public_id, "hello")]
        assert isinstance(first[-1], Done)
        # Its server died after ending the turn (catalog, lease) and before the feed heard the end.
        stream = session_stream(record.id)
        told = next(e.seq for e in live.log.after(stream, 0) if e.kind == "user")
        with live.log.engine.begin() as conn:
            conn.execute(delete(live_events).where(live_events.c.stream == stream, live_events.c.seq > told))
        second = [event async for event in await service.send(actor, record.public_id, "more")]
        assert isinstance(second[-1], Done)
        feed = [(e.kind, e.data.get("content")) for e in live.log.after(stream, 0) if e.kind != "delta"]
        assert feed == [
            ("created", None),
            ("user", "hello"),
            ("done", first[-1].text),  # told by the next turn, before its message
            ("idle", None),
            ("user", "more"),
            ("done", second[-1].text),
            ("idle", None),
        ]


def test_a_turn_its_server_never_told_the_feed_the_end_of_is_ended_by_the_next(
    tmp_path: Path, scripted_model: ScriptedModel
) -> None:
    asyncio.run(_unended_turn(tmp_path, scripted_model))

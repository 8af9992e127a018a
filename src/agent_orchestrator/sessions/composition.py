"""The session service and what it stands on, built in one place for the web app and the commands.

Two steps, because the web app starts its retail tools between them (the runtime's profile needs them):

* :func:`open_storage`: the catalog's engine (migrated), the cipher of encryption at rest (with a
  master key) and the deployment's session files (:mod:`.files.deployment`), open for the block. The
  web app and every operator's command start here, so they read and write the same sessions the same
  way (sealed alike, in the same backend).
* :func:`compose`: on that storage, the runtime, the live hub, the search index, the usage keeper and
  the :class:`~.service.SessionService` over them, with the actions the front ends call beside it
  (branching, readings, exchange). Search rows and live feed bodies are sealed with the storage's
  cipher, as the catalog's texts are.

What a process is for is the one difference. A **server** of the web app (the default) takes its
server id, lease ttl and warm pool from the settings, streams answer deltas, fences the shared store's
writes by the service's leases (``PostgresSessionFiles.writer_check``), hears the other servers' live
events through PostgreSQL and sweeps idle warm copies. An operator's **command** (``command`` names
it: ``cli-import``) builds the service for one run: it holds leases as ``<command>:<random>`` with the
service's own defaults and does none of that, as a run that starts no turn and has no followers needs
none of it; its imports are not limited per hour, the users' limit being the web app's.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import Engine

from agent_orchestrator.runtime import CopilotRuntime
from agent_orchestrator.runtime.profile import PLAIN, SessionProfile
from agent_orchestrator.runtime.session_files import SessionFiles, hook_store
from agent_orchestrator.sessions.actions.activity import SessionActivity
from agent_orchestrator.sessions.actions.branching import Branching
from agent_orchestrator.sessions.actions.exchange import MAX_IMPORTS_PER_HOUR, Exchange
from agent_orchestrator.sessions.actions.feedback import Feedback
from agent_orchestrator.sessions.actions.organising import Organising
from agent_orchestrator.sessions.actions.readings import Readings
from agent_orchestrator.sessions.actions.sharing import Sharing
from agent_orchestrator.sessions.crypto import SessionCipher, open_cipher
from agent_orchestrator.sessions.files.deployment import deployment_files
from agent_orchestrator.sessions.live.feed import LiveHub
from agent_orchestrator.sessions.live.notify import PostgresAnnouncements
from agent_orchestrator.sessions.live.redis_fanout import RedisAnnouncements, RedisPublisher
from agent_orchestrator.sessions.search.index import SearchIndex
from agent_orchestrator.sessions.service import SessionService
from agent_orchestrator.sessions.store import (
    AuditLog,
    LeaseManager,
    LiveEventLog,
    SessionCatalog,
    UsageLedger,
    make_engine,
    make_holder_id,
    migrate,
)
from agent_orchestrator.sessions.store.feedback import FeedbackStore
from agent_orchestrator.sessions.store.share_links import ShareLinks
from agent_orchestrator.sessions.store.turn_versions import TurnVersions
from agent_orchestrator.sessions.turn_runner import TurnRunner
from agent_orchestrator.sessions.turns.usage import UsageKeeper
from agent_orchestrator.settings import RuntimeSettings, WebSettings

if TYPE_CHECKING:
    from agent_orchestrator.sessions.files.postgres import PostgresSessionFiles

# A server's warm copies idle past AGENT_WARM_IDLE are looked for this often at most.
_WARM_SWEEP_SECONDS = 60.0


@dataclass(frozen=True)
class Storage:
    """The deployment's storage, open: the catalog's engine, the cipher (``None`` without a master
    key), the session files, and the shared PostgreSQL store they are (``None`` on this server's disk)."""

    engine: Engine
    cipher: SessionCipher | None
    files: SessionFiles
    shared: PostgresSessionFiles | None


@dataclass(frozen=True)
class Sessions:
    """The session service and the collaborators the front ends use beside it."""

    service: SessionService
    search: SearchIndex
    usage: UsageKeeper
    branching: Branching
    exchange: Exchange
    readings: Readings
    sharing: Sharing
    activity: SessionActivity
    organising: Organising
    feedback: Feedback


@asynccontextmanager
async def open_storage(
    web: WebSettings, shared: PostgresSessionFiles | None = None
) -> AsyncIterator[Storage]:
    """The storage of the deployment ``web`` describes, open for the block and closed in the reverse
    order. ``shared`` is shared mode's PostgreSQL store, not open yet
    (:func:`~.files.deployment.shared_store`); ``None`` keeps the files on this server's disk."""
    async with AsyncExitStack() as stack:
        engine = make_engine(web.database_url)
        stack.callback(engine.dispose)
        await asyncio.to_thread(migrate, engine)
        cipher = await asyncio.to_thread(open_cipher, web)
        if cipher is not None:
            stack.callback(cipher.close)
        files = deployment_files(web.data_dir, cipher, shared)
        if shared is not None:
            await shared.open()
            stack.push_async_callback(shared.close)
        yield Storage(engine, cipher, files, shared)


@asynccontextmanager
async def compose(
    storage: Storage,
    web: WebSettings,
    runtime_settings: RuntimeSettings,
    *,
    profile: SessionProfile = PLAIN,
    command: str | None = None,
) -> AsyncIterator[Sessions]:
    """The session service on ``storage`` and a started runtime (sessions made for ``profile``), for a
    server of the web app, or for one run of the operator's ``command`` (see the module docstring).
    Stopped in the reverse order at the end of the block, after the turns running then have finished."""
    server = command is None
    async with AsyncExitStack() as stack:
        runtime = CopilotRuntime(
            runtime_settings, profile=profile, session_files=hook_store(storage.files), streaming=server
        )
        await runtime.start()
        stack.push_async_callback(runtime.stop)
        engine, cipher = storage.engine, storage.cipher
        search = SearchIndex(engine, cipher)
        # Across servers, live events are announced through PostgreSQL's NOTIFY, or Redis pub/sub.
        publisher = RedisPublisher(web.redis_url) if web.is_postgres and web.live_fanout == "redis" else None
        if publisher is not None:
            stack.callback(publisher.close)
        live = LiveHub(LiveEventLog(engine, sealer=cipher, publisher=publisher))
        if server and web.is_postgres:
            listener = RedisAnnouncements(live, web.redis_url) if publisher else PostgresAnnouncements(live)
            announcer = asyncio.create_task(listener.run())
            stack.callback(announcer.cancel)
        usage = UsageKeeper(UsageLedger(engine), daily_budget=web.daily_token_budget)
        catalog = SessionCatalog(engine, sealer=cipher)
        # The turn engine (leases, fences, warm pool, usage) and the catalog side over it.
        build = functools.partial(
            TurnRunner,
            runtime=runtime,
            catalog=catalog,
            leases=LeaseManager(engine),
            files=storage.files,
            live=live,
            search=search,
            usage=usage,
        )
        if server:
            turns = build(
                server_id=web.server_id,
                lease_ttl=web.lease_ttl,
                warm_sessions=web.warm_sessions,
                warm_idle=web.warm_idle,
            )
        else:
            turns = build(server_id=f"{command}:{make_holder_id()}")
        service = SessionService(
            runtime=runtime,
            catalog=catalog,
            audit=AuditLog(engine),
            files=storage.files,
            live=live,
            turns=turns,
        )
        stack.push_async_callback(turns.warm.close_all)
        stack.push_async_callback(turns.wait_for_turns)
        if server:
            if storage.shared is not None:
                storage.shared.writer_check = turns.may_write
            sweep = turns.warm.sweep_every(min(web.warm_idle / 4, _WARM_SWEEP_SECONDS))
            stack.callback(asyncio.create_task(sweep).cancel)
        versions = TurnVersions(engine, sealer=cipher)
        exchange = Exchange(
            service, search, versions, imports_per_hour=MAX_IMPORTS_PER_HOUR if server else None
        )
        yield Sessions(
            service=service,
            search=search,
            usage=usage,
            branching=Branching(service, search, versions),
            exchange=exchange,
            readings=Readings(service, search),
            sharing=Sharing(service, ShareLinks(engine, sealer=cipher), exchange),
            activity=SessionActivity(service),
            organising=Organising(service),
            feedback=Feedback(service, FeedbackStore(engine, sealer=cipher)),
        )

"""Operations on stored sessions: export one as JSON or Markdown, import a file for a user, rebuild the
search index, purge the ones past retention.

Usage (the CLI, ``cli.py``, is a thin shell over this)::

    async with open_storage(settings.web, shared_store(settings.database_url)) as storage:
        document = await export_session(storage.engine, storage.files, "case-42")
        report = await purge_sessions(storage.engine, storage.files, older_than_days=90, dry_run=True)

What shaped it:

* **One backend switch.** The commands get the runtime's files as the web app does
  (:mod:`agent_orchestrator.sessions.files.deployment`): PostgreSQL (shared mode) when the database URL
  is PostgreSQL, else this server's disk, sealed when a master key is set. Catalog and files then
  always answer about the same sessions, and a command writes them exactly as the web app would.
* **Never under a running turn.** A purge takes the session's lease before deleting, instead of only
  asking whether one is held: between "nobody holds it" and the delete a turn could start and write to
  files that are going away. Holding the lease makes a concurrent send answer "busy" instead. A session
  whose lease is held is skipped and reported; the next run picks it up.
* **Files first, then the live feed, then the catalog row** (with its audit event, in the same
  transaction). The feed kept up to 500 of the conversation's events, prompts and answers: it is
  started over with only its ``deleted`` (docs/architecture.md#live-sessions), which also tells the
  session's followers. A crash in between leaves a catalog row whose files (or feed) are gone, which
  the next run deletes; the other order would leave files and events no run could find again.
* **Re-checked under the lease.** A turn that finished between listing and deleting made the session
  recent again: it is left alone.
* **Naming a session as an operator.** Public ids are per owner (docs/architecture.md#session-ids), so
  an operator names a session by its public id and its owner (``--user``), or by an id only one session
  has as its public or runtime id (:func:`find_session`); what the commands print and audit names the
  public id with the owner, and everything they touch is keyed by the runtime id.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine

from agent_orchestrator.errors import InvalidInputError, NotFoundError, SessionNotFoundError
from agent_orchestrator.runtime.session_files import SessionFiles
from agent_orchestrator.sessions.actions.exchange import export_document, export_markdown, parse_import
from agent_orchestrator.sessions.composition import Storage, compose
from agent_orchestrator.sessions.crypto import SessionCipher
from agent_orchestrator.sessions.history.transcript import parse_events
from agent_orchestrator.sessions.ids import validate_session_id
from agent_orchestrator.sessions.live.feed import LiveHub, session_stream, user_stream
from agent_orchestrator.sessions.search.index import SearchIndex
from agent_orchestrator.sessions.service import Actor
from agent_orchestrator.sessions.store import (
    AuditEvent,
    AuditLog,
    Batch,
    LeaseManager,
    LiveEventLog,
    SessionCatalog,
    SessionRecord,
    UserStore,
    make_holder_id,
)
from agent_orchestrator.sessions.store.catalog import TextSealer
from agent_orchestrator.sessions.store.schema import utcnow
from agent_orchestrator.settings import Settings

logger = logging.getLogger(__name__)

RETENTION_USER = "retention"
EXPORT_USER = "export"
IMPORT_USER = "cli-import"
PURGE_LIMIT = 10_000
# Long enough to delete one session's files; released right after.
_PURGE_LEASE_TTL = 120.0


def find_session(
    engine: Engine, name: str, *, username: str | None = None, sealer: TextSealer | None = None
) -> SessionRecord:
    """The session an operator names: ``username``'s session of that public id, or without a user the
    one session whose public id or runtime id is ``name``. :class:`SessionNotFoundError` if there is
    none, :class:`InvalidInputError` if several owners have one of that id (then name the owner)."""
    name = validate_session_id(name)
    catalog = SessionCatalog(engine, sealer=sealer)
    if username is not None:
        user = UserStore(engine).get_by_username(username)
        if user is None:
            raise NotFoundError(f"No user named {username!r}.")
        record = catalog.get_owned(name, user.id)
        if record is None:
            raise SessionNotFoundError(f"{user.username} has no session with id {name}.")
        return record
    found = catalog.named(name)
    if not found:
        raise SessionNotFoundError(f"No session with id {name} in the catalog.")
    if len(found) > 1:
        raise InvalidInputError(
            f"{len(found)} sessions have the id {name} (ids are per owner); name the owner with --user."
        )
    return found[0]


async def export_session(
    engine: Engine,
    files: SessionFiles,
    name: str,
    *,
    username: str | None = None,
    sealer: TextSealer | None = None,
) -> dict[str, Any]:
    """One session (:func:`find_session`) as a JSON-ready document: catalog row, visible transcript and
    the raw event log (:func:`export_record`)."""
    record = await asyncio.to_thread(find_session, engine, name, username=username, sealer=sealer)
    document = await export_record(engine, files, record)
    assert isinstance(document, dict)
    return document


async def export_record(
    engine: Engine, files: SessionFiles, record: SessionRecord, *, markdown: bool = False
) -> dict[str, Any] | str:
    """The session as our JSON document (or as Markdown), named by its public id as its owner's own
    export is. Recorded in the audit log as a ``read`` by ``export``: it discloses the whole
    conversation."""
    raw = await files.read_events(record.id) or b""
    exported = export_markdown(record, raw) if markdown else export_document(record, raw)
    details = {"public_id": record.public_id, "reason": "export"}
    event = AuditEvent(action="read", username=EXPORT_USER, session_id=record.id, details=details)
    await asyncio.to_thread(AuditLog(engine).record, event)
    return exported


@dataclass(frozen=True)
class PurgeReport:
    """What a purge did (or, with ``dry_run``, would do). Records are as they were before deletion."""

    cutoff: datetime
    older_than_days: int
    dry_run: bool
    deleted: list[SessionRecord] = field(default_factory=list)  # would be deleted, on a dry run
    busy: list[SessionRecord] = field(default_factory=list)  # a turn is running: skipped
    limit_reached: bool = False  # more candidates than one run handles: run again

    @property
    def deleted_ids(self) -> list[str]:
        return [record.id for record in self.deleted]


async def purge_sessions(
    engine: Engine,
    files: SessionFiles,
    older_than_days: int,
    *,
    dry_run: bool = False,
    limit: int = PURGE_LIMIT,
    before_delete: Callable[[str], Awaitable[None]] | None = None,
    live: LiveHub | None = None,
) -> PurgeReport:
    """Delete every session (any owner) not updated for ``older_than_days`` days, oldest first.

    Each goes from the files backend, the live feed and the catalog, audited as a ``delete`` by
    ``retention``, and its owner's sessions list hears it went. A session with a running turn is
    skipped and listed in ``busy``. At most ``limit`` sessions are considered per run
    (``limit_reached`` then says to run again). ``before_delete`` runs under the session's lease first
    (the web app closes its warm copy: docs/architecture.md#warm-sessions); ``live`` is the web app's
    hub, so that its own followers hear it too.
    """
    if older_than_days < 1:
        raise ValueError("--older-than is a whole number of days, at least 1.")
    catalog, leases = SessionCatalog(engine), LeaseManager(engine)
    live = live or LiveHub(LiveEventLog(engine))
    cutoff = utcnow() - timedelta(days=older_than_days)
    candidates = await asyncio.to_thread(catalog.list_older_than, cutoff, limit=limit)
    report = PurgeReport(cutoff, older_than_days, dry_run, limit_reached=len(candidates) >= limit)
    holder = f"{RETENTION_USER}:{make_holder_id()}"
    for session_id in candidates:
        record = await asyncio.to_thread(catalog.get, session_id)
        if record is None:
            continue  # deleted meanwhile
        if dry_run:
            busy = await asyncio.to_thread(leases.current, session_id) is not None
            (report.busy if busy else report.deleted).append(record)
            continue
        lease = await asyncio.to_thread(leases.acquire, session_id, holder, _PURGE_LEASE_TTL)
        if lease is None:
            report.busy.append(record)
            continue
        gone = False
        try:
            record = await asyncio.to_thread(catalog.get, session_id)
            if record is None or record.updated_at >= cutoff:
                continue  # deleted, or a turn finished since the listing: no longer a candidate
            if before_delete is not None:
                await before_delete(session_id)
            await files.delete_session(session_id)
            await live.restart(session_stream(session_id), "deleted", {})
            event = AuditEvent(
                action="delete",
                username=RETENTION_USER,
                session_id=session_id,
                details={
                    "public_id": record.public_id,
                    "reason": "retention",
                    "older_than_days": older_than_days,
                },
            )
            gone = await asyncio.to_thread(catalog.delete, session_id, record.owner_id, audit=event)
        finally:
            await asyncio.to_thread(leases.release, lease)
        if gone:
            report.deleted.append(record)
            await _announce_gone(live, record)
    return report


async def _announce_gone(live: LiveHub, record: SessionRecord) -> None:
    """Tell the owner's sessions list; a failure is logged only: the session is gone all the same."""
    try:
        deleted = ("deleted", {"id": record.public_id})  # the owner knows it by its public id
        await live.publish_all([Batch(user_stream(record.owner_id), [deleted])])
    except Exception:
        logger.exception(
            "Live feed of user %d: announcing the purge of %s failed", record.owner_id, record.id
        )


async def reindex_search(engine: Engine, files: SessionFiles, cipher: SessionCipher | None = None) -> int:
    """Rebuild every session's search rows from its event log (after upgrading to migration 0006, or
    to repair); returns how many sessions were indexed. With a ``cipher`` (a master key is set) the
    rows are written sealed with their blind terms, and the catalog's titles and previews sealed too:
    run it once after turning encryption on (docs/architecture.md#encryption-at-rest)."""
    catalog, index = SessionCatalog(engine, sealer=cipher), SearchIndex(engine, cipher)
    done, after = 0, ""
    while page := await asyncio.to_thread(catalog.owners, after=after):
        for session_id, owner_id in page:
            if cipher is not None:
                await asyncio.to_thread(catalog.reseal, session_id)
            raw = await files.read_events(session_id) or b""
            await asyncio.to_thread(index.replace, session_id, owner_id, parse_events(raw.splitlines()))
            done += 1
        after = page[-1][0]
    return done


async def import_for_user(
    storage: Storage, settings: Settings, username: str, data: bytes
) -> list[SessionRecord]:
    """Import a file (our JSON or a ChatGPT export) as sessions of ``username``, exactly as the web
    app's import does: on ``storage`` (:func:`~agent_orchestrator.sessions.composition.open_storage`: sealed
    as the web app seals them), with the session service :func:`~agent_orchestrator.sessions.composition.
    compose` builds for the web app, started for this command (a runtime on the configured model route
    creates the sessions; each is announced on its owner's feed like any new chat)."""
    user = await asyncio.to_thread(UserStore(storage.engine).get_by_username, username)
    if user is None:
        raise NotFoundError(f"No user named {username!r}.")
    parse_import(data)  # a bad file fails before any runtime starts
    async with compose(storage, settings.web, settings.runtime, command=IMPORT_USER) as sessions:
        return await sessions.exchange.import_file(Actor(user, IMPORT_USER), data)


def export_json(document: dict[str, Any]) -> str:
    """The export as pretty JSON text (non-ASCII kept readable)."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"

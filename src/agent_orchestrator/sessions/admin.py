"""Operations on stored sessions: export one as JSON, purge the ones past retention.

Usage (the CLI in ``__main__`` is a thin shell over this)::

    engine = make_engine(settings.database_url)
    async with open_session_files(settings.data_dir, settings.database_url) as files:
        document = await export_session(engine, files, "case-42")
        report = await purge_sessions(engine, files, older_than_days=90, dry_run=True)

What shaped it:

* **One backend switch.** :func:`open_session_files` picks the runtime's files the way the web app
  does: PostgreSQL (shared mode) when the database URL is PostgreSQL, else this server's
  ``COPILOT_HOME``. Catalog and files then always answer about the same sessions.
* **Never under a running turn.** A purge takes the session's lease before deleting, instead of only
  asking whether one is held: between "nobody holds it" and the delete a turn could start and write to
  files that are going away. Holding the lease makes a concurrent send answer "busy" instead. A session
  whose lease is held is skipped and reported; the next run picks it up.
* **Files first, then the catalog row** (with its audit event, in the same transaction). A crash in
  between leaves a catalog row whose files are gone, which the next run deletes; the other order would
  leave files no run could find again.
* **Re-checked under the lease.** A turn that finished between listing and deleting made the session
  recent again: it is left alone.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.engine import make_url

from agent_orchestrator.errors import SessionNotFoundError
from agent_orchestrator.runtime.session_files import LocalSessionFiles, SessionFiles
from agent_orchestrator.sessions.ids import validate_session_id
from agent_orchestrator.sessions.store import (
    AuditEvent,
    AuditLog,
    LeaseManager,
    SessionCatalog,
    SessionRecord,
    make_holder_id,
)
from agent_orchestrator.sessions.store.schema import utcnow
from agent_orchestrator.sessions.transcript import parse_events
from agent_orchestrator.settings import RuntimeSettings

EXPORT_FORMAT = 1
RETENTION_USER = "retention"
EXPORT_USER = "export"
PURGE_LIMIT = 10_000
# Long enough to delete one session's files; released right after.
_PURGE_LEASE_TTL = 120.0


@asynccontextmanager
async def open_session_files(data_dir: Path, database_url: str | None) -> AsyncIterator[SessionFiles]:
    """The runtime's session files for this deployment, open for the duration of the block.

    ``database_url`` is the catalog's (``Settings.database_url``): a PostgreSQL URL means
    shared mode, whose files live in the same database (tables found through its ``search_path``);
    anything else means this server's ``<data_dir>/copilot/session-state/``.
    """
    if database_url and make_url(database_url).get_backend_name() == "postgresql":
        # Imported here: psycopg's pool is only needed in shared mode.
        from agent_orchestrator.sessions.shared_files import PostgresSessionFiles

        async with PostgresSessionFiles.from_url(database_url) as store:
            yield store
    else:
        yield LocalSessionFiles(RuntimeSettings(data_dir=data_dir).copilot_home)


async def export_session(engine: Engine, files: SessionFiles, session_id: str) -> dict[str, Any]:
    """One session as a JSON-ready document: catalog row, visible transcript and the raw event log.

    :class:`SessionNotFoundError` if the catalog has no such session (whoever owns it). The export is
    recorded in the audit log as a ``read`` by ``export``: it discloses the whole conversation.
    """
    session_id = validate_session_id(session_id)
    record = await asyncio.to_thread(SessionCatalog(engine).get, session_id)
    if record is None:
        raise SessionNotFoundError(f"No session with id {session_id} in the catalog.")
    raw = await files.read_events(session_id) or b""
    document = {
        "format": EXPORT_FORMAT,
        "session": _record_json(record),
        # Tool results stay in "events" only, so the transcript's format is unchanged.
        "transcript": [
            {key: value for key, value in asdict(message).items() if key != "tool_results"}
            for message in parse_events(raw.splitlines())
        ],
        # The log is UTF-8 JSON lines; a torn last line after a crash may end mid-character.
        "events": raw.decode("utf-8", errors="replace"),
        "exported_at": utcnow().isoformat(),
    }
    event = AuditEvent(
        action="read", username=EXPORT_USER, session_id=session_id, details={"reason": "export"}
    )
    await asyncio.to_thread(AuditLog(engine).record, event)
    return document


def _record_json(record: SessionRecord) -> dict[str, Any]:
    return {
        key: value.isoformat() if isinstance(value, datetime) else value
        for key, value in asdict(record).items()
    }


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
) -> PurgeReport:
    """Delete every session (any owner) not updated for ``older_than_days`` days, oldest first.

    Each goes from the files backend and the catalog, audited as a ``delete`` by ``retention``. A
    session with a running turn is skipped and listed in ``busy``. At most ``limit`` sessions are
    considered per run (``limit_reached`` then says to run again).
    """
    if older_than_days < 1:
        raise ValueError("--older-than is a whole number of days, at least 1.")
    catalog, leases = SessionCatalog(engine), LeaseManager(engine)
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
        try:
            record = await asyncio.to_thread(catalog.get, session_id)
            if record is None or record.updated_at >= cutoff:
                continue  # deleted, or a turn finished since the listing: no longer a candidate
            await files.delete_session(session_id)
            event = AuditEvent(
                action="delete",
                username=RETENTION_USER,
                session_id=session_id,
                details={"reason": "retention", "older_than_days": older_than_days},
            )
            if await asyncio.to_thread(catalog.delete, session_id, record.owner_id, audit=event):
                report.deleted.append(record)
        finally:
            await asyncio.to_thread(leases.release, lease)
    return report


def export_json(document: dict[str, Any]) -> str:
    """The export as pretty JSON text (non-ASCII kept readable)."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"

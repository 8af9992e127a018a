"""Sealing what was stored in clear before a master key was set (``sessions seal-existing``;
docs/architecture.md#sealing-existing-sessions).

Usage (the CLI, ``cli.py``, is a thin shell over this)::

    async with open_storage(settings.web, shared_store(settings.database_url)) as storage:
        engine, files, cipher = storage.engine, storage.files, storage.cipher  # a master key is set
        report = await seal_existing(engine, files, cipher, data_dir=settings.data_dir)

What shaped it:

* **Every session, once.** The sessions are those of the catalog and those with files in the store
  (or, on a single server, with a clear folder the runtime wrote itself); each is sealed if anything
  of it is in clear, and counted as already sealed otherwise, so a second run changes nothing.
* **Never under a running turn.** Each session is sealed while holding its lease, as a purge deletes:
  a turn that starts meanwhile answers "busy" instead of appending to a file being rewritten. A
  session whose lease is held is skipped and reported; the next run picks it up.
* **Crash-safe per session.** On a single server the sealed copy is built beside the store and
  renamed into place before the clear folder goes; in PostgreSQL a session's files are rewritten in
  one transaction; the catalog's texts in another. Whatever a crash interrupts, the next run finishes.
* **The catalog's kept prompts** (``pending_prompt``, crash-interrupted turns), the kept versions of
  its turns (``turn_versions``) and the session's live feed rows (``live_events``) are sealed with
  the session's key through the cipher's ``seal_text``,
  exactly as the catalog and the feed seal new ones.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import Engine, select, update

from agent_orchestrator.runtime.session_files import SessionFiles
from agent_orchestrator.sessions.crypto import SessionCipher
from agent_orchestrator.sessions.crypto.cipher import SEALED_TEXT
from agent_orchestrator.sessions.files.local import LocalSessionFiles
from agent_orchestrator.sessions.files.postgres import PostgresSessionFiles
from agent_orchestrator.sessions.files.sealed import SealedLocalSessionFiles
from agent_orchestrator.sessions.store import LeaseManager, SessionCatalog, make_holder_id
from agent_orchestrator.sessions.store.engine import write_transaction
from agent_orchestrator.sessions.store.live_events import session_stream
from agent_orchestrator.sessions.store.schema import interrupted_turns, live_events, sessions, turn_versions
from agent_orchestrator.settings import RuntimeSettings

SEAL_USER = "seal-existing"
# Long enough to seal one session's files; released right after.
_SEAL_LEASE_TTL = 120.0


@dataclass(frozen=True)
class SealReport:
    """Session ids by outcome: ``sealed`` now, ``already`` sealed (nothing in clear), ``busy`` (a turn
    holds the lease: skipped), ``conflicts`` (a single server holds a clear and a different sealed copy:
    both left alone)."""

    sealed: list[str] = field(default_factory=list)
    already: list[str] = field(default_factory=list)
    busy: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)


async def seal_existing(
    engine: Engine, files: SessionFiles, cipher: SessionCipher, *, data_dir: Path
) -> SealReport:
    """Seal every session's clear files and kept prompts, each under its lease (see the module
    docstring). ``files`` is the deployment's sealed store (the storage's, with ``cipher``:
    :func:`~agent_orchestrator.sessions.composition.open_storage`); ``data_dir`` locates the runtime's own
    clear folders."""
    seal_files: Callable[[str], Awaitable[str]]  # "sealed", "absent" (nothing in clear) or "conflict"
    if isinstance(files, PostgresSessionFiles):
        on_store = await files.session_ids()

        async def seal_files(session_id: str) -> str:
            return "sealed" if await files.seal_plain(session_id) else "absent"

    elif isinstance(files, SealedLocalSessionFiles):
        clear = LocalSessionFiles(RuntimeSettings(data_dir=data_dir).copilot_home)
        on_store = await clear.session_ids()

        async def seal_files(session_id: str) -> str:
            return await files.adopt_plain(session_id, clear.folder(session_id))

    else:
        raise TypeError("Sealing needs the sealed session files (open them with the cipher).")
    report = SealReport()
    leases = LeaseManager(engine)
    holder = f"{SEAL_USER}:{make_holder_id()}"
    for session_id in sorted(set(on_store) | set(await asyncio.to_thread(_catalogued, engine))):
        lease = await asyncio.to_thread(leases.acquire, session_id, holder, _SEAL_LEASE_TTL)
        if lease is None:
            report.busy.append(session_id)
            continue
        try:
            outcome = await seal_files(session_id)
            texts = await asyncio.to_thread(_seal_catalog_texts, engine, cipher, session_id)
        finally:
            await asyncio.to_thread(leases.release, lease)
        if outcome == "conflict":
            report.conflicts.append(session_id)
        else:
            (report.sealed if outcome == "sealed" or texts else report.already).append(session_id)
    return report


def _catalogued(engine: Engine) -> list[str]:
    catalog, ids, after = SessionCatalog(engine), [], ""
    while page := catalog.owners(after=after):
        ids += [session_id for session_id, _ in page]
        after = page[-1][0]
    return ids


def _seal_catalog_texts(engine: Engine, cipher: SessionCipher, session_id: str) -> int:
    """Seal the session's kept prompts, kept versions and live feed rows still in clear, in one
    transaction; how many there were."""
    done = 0
    with write_transaction(engine) as conn:
        pending = conn.scalar(select(sessions.c.pending_prompt).where(sessions.c.id == session_id))
        if pending is not None and not pending.startswith(SEALED_TEXT):
            sealed = cipher.seal_text(session_id, pending)
            conn.execute(update(sessions).where(sessions.c.id == session_id).values(pending_prompt=sealed))
            done += 1
        t = interrupted_turns
        for row in conn.execute(select(t.c.id, t.c.prompt).where(t.c.session_id == session_id)).all():
            if not row.prompt.startswith(SEALED_TEXT):
                sealed = cipher.seal_text(session_id, row.prompt)
                conn.execute(update(t).where(t.c.id == row.id).values(prompt=sealed))
                done += 1
        v = turn_versions
        versions = select(v.c.anchor, v.c.number, v.c.tail).where(v.c.session_id == session_id)
        for kept in conn.execute(versions.where(v.c.tail.is_not(None))).all():
            if not kept.tail.startswith(SEALED_TEXT):
                sealed = cipher.seal_text(session_id, kept.tail)
                where = (v.c.anchor == kept.anchor) & (v.c.number == kept.number)
                conn.execute(update(v).where(v.c.session_id == session_id, where).values(tail=sealed))
                done += 1
        feed, stream = live_events, session_stream(session_id)
        for row in conn.execute(select(feed.c.seq, feed.c.data).where(feed.c.stream == stream)).all():
            if row.data != "{}" and not row.data.startswith(SEALED_TEXT):  # as the feed writes them
                sealed = cipher.seal_text(session_id, row.data)
                conn.execute(
                    update(feed).where(feed.c.stream == stream, feed.c.seq == row.seq).values(data=sealed)
                )
                done += 1
    return done

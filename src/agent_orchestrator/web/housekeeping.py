"""Upkeep the web app does on its own, off the request path: expired logins and stale login-throttle
rows leave the store, and, with a retention period set, old sessions are purged.

An expired login already fails every lookup (``UserStore.login_for_token`` checks expiry), and a stale
throttle row no longer counts, so those purges only keep tables from growing forever; nothing depends
on their timing. Hence no work per request: each server purges once at start and then once per
interval. The deletes are idempotent, so several servers purging one database is harmless. The
retention purge runs on one server at a time (docs/architecture.md#retention).
"""

import asyncio
import logging
from collections.abc import Awaitable, Callable

from sqlalchemy import Engine

from agent_orchestrator.runtime.session_files import SessionFiles
from agent_orchestrator.sessions import LiveHub, purge_sessions
from agent_orchestrator.sessions.store import JobLock, LoginThrottle, UserStore
from agent_orchestrator.settings import WebSettings

logger = logging.getLogger(__name__)

LOGIN_PURGE_INTERVAL = 3600.0


async def every(interval: float, job: Callable[[], Awaitable[object]], what: str) -> None:
    """Run ``job`` every ``interval`` seconds, until cancelled.

    A failed run (the database briefly away) is logged and tried again next time: the loop must
    outlive it, or what it cleans up would pile up again unnoticed.
    """
    while True:
        await asyncio.sleep(interval)
        try:
            outcome = await job()
        except Exception as error:
            logger.warning("%s failed; next try in %.0f s: %s", what, interval, error)
        else:
            logger.debug("%s: %s", what, outcome)


async def purge_expired_logins_every(users: UserStore, interval: float = LOGIN_PURGE_INTERVAL) -> None:
    """Every ``interval`` seconds, until cancelled, delete the logins that have expired."""
    await every(interval, lambda: asyncio.to_thread(users.purge_expired_logins), "Purging expired logins")


async def purge_past_retention(
    engine: Engine,
    files: SessionFiles,
    days: int,
    evict: Callable[[str], Awaitable[None]] | None = None,
    live: LiveHub | None = None,
) -> str:
    """One retention run: on the one server that gets the job lock, delete the sessions not updated
    for ``days`` days (each audited as a ``delete`` by ``retention``; those with a running turn are
    skipped and picked up by a later run). What it did, in words, for the log."""
    lock = JobLock(engine, "retention")
    if not await asyncio.to_thread(lock.acquire):
        return "another server is purging"
    try:
        report = await purge_sessions(engine, files, days, before_delete=evict, live=live)
    finally:
        await asyncio.to_thread(lock.release)
    if report.deleted:
        logger.info("Retention: deleted %d session(s) older than %d days", len(report.deleted), days)
    return f"{len(report.deleted)} deleted, {len(report.busy)} busy (skipped)"


def start_chores(
    web: WebSettings,
    engine: Engine,
    *,
    users: UserStore,
    throttle: LoginThrottle,
    files: SessionFiles,
    evict: Callable[[str], Awaitable[None]] | None = None,
    live: LiveHub | None = None,
) -> list[asyncio.Task[None]]:
    """Start this server's periodic upkeep; the caller cancels the tasks at shutdown. ``evict`` closes
    this server's warm copy of a session that retention deletes, and ``live`` (its live feeds' hub)
    tells this server's followers."""
    chores = [
        purge_expired_logins_every(users),
        every(
            LOGIN_PURGE_INTERVAL, lambda: asyncio.to_thread(throttle.purge_stale), "Purging login throttling"
        ),
    ]
    if web.retention_days is not None:
        days = web.retention_days
        chores.append(
            every(
                web.retention_interval,
                lambda: purge_past_retention(engine, files, days, evict, live),
                "Retention",
            )
        )
    return [asyncio.create_task(chore) for chore in chores]

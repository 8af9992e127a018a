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

from agent_orchestrator.sessions.store import UserStore

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

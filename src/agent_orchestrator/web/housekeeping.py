"""Upkeep the web app does on its own, off the request path: expired logins leave the store.

An expired login already fails every lookup (``UserStore.login_for_token`` checks expiry), so purging
only keeps the ``logins`` table from growing forever; nothing depends on its timing. Hence no work per
request: each server purges once at start and then once per interval. The delete is idempotent, so
several servers purging one database is harmless.
"""

import asyncio
import logging

from agent_orchestrator.sessions.store import UserStore

logger = logging.getLogger(__name__)

LOGIN_PURGE_INTERVAL = 3600.0


async def purge_expired_logins_every(users: UserStore, interval: float = LOGIN_PURGE_INTERVAL) -> None:
    """Every ``interval`` seconds, until cancelled, delete the logins that have expired.

    A failed purge (the database briefly away) is logged and tried again next time: the loop must
    outlive it, or expired logins would pile up again unnoticed.
    """
    while True:
        await asyncio.sleep(interval)
        try:
            purged = await asyncio.to_thread(users.purge_expired_logins)
        except Exception as error:
            logger.warning("Purging expired logins failed; next try in %.0f s: %s", interval, error)
        else:
            logger.debug("Purged %d expired login(s)", purged)

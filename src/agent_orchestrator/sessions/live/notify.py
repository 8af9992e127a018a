"""Live events across servers: PostgreSQL ``LISTEN`` on one connection per server.

(docs/architecture.md#live-sessions) The log's appending transaction sends ``NOTIFY`` with
``"<stream> <seq>"`` only; this listener passes each announcement to the :class:`LiveHub`, which reads
the bodies from the log for the streams this server's clients follow. No broker beyond the database
we already run. When the connection drops it reconnects, and the hub then reads whatever it missed.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import psycopg
from psycopg import sql

from agent_orchestrator.sessions.live.feed import LiveHub

logger = logging.getLogger(__name__)

RETRY_SECONDS = 1.0


class PostgresAnnouncements:
    """Hears the log's ``NOTIFY`` s and tells the hub; :meth:`run` until cancelled."""

    def __init__(self, hub: LiveHub) -> None:
        engine = hub.log.engine
        # The engine's own connection arguments (host, database, search_path options...), so the
        # listener reaches exactly the database and schema the log writes to.
        args, kwargs = engine.dialect.create_connect_args(engine.url)
        self._connect_args: tuple[Any, ...] = tuple(args)
        self._connect_kwargs: dict[str, Any] = dict(kwargs)
        self._hub = hub
        self.listening = asyncio.Event()

    async def run(self) -> None:
        channel = await asyncio.to_thread(self._hub.log.channel)
        first = True
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(
                    *self._connect_args, **self._connect_kwargs, autocommit=True
                ) as conn:
                    await conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(channel)))
                    if not first:
                        await self._hub.resync()
                    first = False
                    self.listening.set()
                    async for note in conn.notifies():
                        stream, _, seq = note.payload.rpartition(" ")
                        await self._hub.heard(stream, int(seq))
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the database went away: keep trying, the feed catches up
                self.listening.clear()
                logger.warning("Live announcements interrupted (%s); reconnecting", type(error).__name__)
                await asyncio.sleep(RETRY_SECONDS)

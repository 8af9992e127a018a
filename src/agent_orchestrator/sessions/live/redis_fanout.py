"""Live events across servers through Redis pub/sub, the alternative to PostgreSQL ``NOTIFY``
(docs/architecture.md#live-sessions, `AGENT_LIVE_FANOUT=redis`).

The log still holds every event; only the announcement ``"<stream> <seq>"`` travels another way. A
write publishes it after its commit (``NOTIFY`` is delivered at commit, which PostgreSQL serialises
under a global lock while the database is busy writing); each server's listener tells its
:class:`LiveHub`, which reads the bodies from the log for the streams its clients follow. Redis keeps
nothing: a listener that lost its connection reads on reconnect whatever it missed meanwhile
(``resync``), and a publish that fails is logged and costs followers elsewhere only the wait until the
stream's next announcement or their feed's next reconnect, which both read the log.
"""

from __future__ import annotations

import asyncio
import logging

import redis
import redis.asyncio

from agent_orchestrator.sessions.live.feed import LiveHub

logger = logging.getLogger(__name__)

RETRY_SECONDS = 1.0


class RedisPublisher:
    """Publishes announcements (a :class:`~agent_orchestrator.sessions.store.live_events.Publisher`);
    called from the log's worker threads, so it is the blocking client, pooled."""

    def __init__(self, url: str) -> None:
        self._client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)

    def publish(self, channel: str, message: str) -> None:
        try:
            self._client.publish(channel, message)
        except redis.RedisError as error:
            logger.warning("Live announcement not published (%s); followers catch up", type(error).__name__)

    def close(self) -> None:
        self._client.close()


class RedisAnnouncements:
    """Hears the channel's announcements and tells the hub; :meth:`run` until cancelled."""

    def __init__(self, hub: LiveHub, url: str) -> None:
        self._hub = hub
        self._url = url
        self.listening = asyncio.Event()

    async def run(self) -> None:
        channel = await asyncio.to_thread(self._hub.log.channel)
        first = True
        while True:
            client = redis.asyncio.Redis.from_url(self._url, socket_connect_timeout=2)
            try:
                async with client.pubsub(ignore_subscribe_messages=True) as pubsub:
                    await pubsub.subscribe(channel)
                    if not first:
                        await self._hub.resync()
                    first = False
                    self.listening.set()
                    async for message in pubsub.listen():
                        stream, _, seq = message["data"].decode().rpartition(" ")
                        await self._hub.heard(stream, int(seq))
            except asyncio.CancelledError:
                raise
            except Exception as error:  # Redis went away: keep trying, the feed catches up
                self.listening.clear()
                logger.warning("Live announcements interrupted (%s); reconnecting", type(error).__name__)
                await asyncio.sleep(RETRY_SECONDS)
            finally:
                await client.aclose()

"""Live sessions: every tab, device and server sees a conversation as it happens.

(docs/architecture.md#live-sessions) Each event is first written to the store's bounded log
(:class:`~agent_orchestrator.sessions.store.LiveEventLog`), which numbers it, and then handed to the
followers on this server by :class:`LiveHub`. Other servers hear of it through PostgreSQL
``NOTIFY`` (:mod:`agent_orchestrator.sessions.live.notify`) and read it from the log. A follower
that is behind (a reconnect with ``Last-Event-ID``, a slow client) is served from the hub's recent
events, or from the log; one that is too far behind is told to reload.

Two kinds of stream: a session's (user messages, answer deltas, tools, done, errors, turn end, renames,
deletion) and a user's (sessions created, renamed, deleted, busy, idle) for the sessions list.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections import deque
from collections.abc import AsyncIterator, Awaitable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from agent_orchestrator.sessions.history.transcript import TranscriptMessage, log_timestamp
from agent_orchestrator.sessions.store import Batch, LiveEvent, LiveEventLog
from agent_orchestrator.sessions.store.live_events import BOUNDARY_KINDS, KEEP, session_stream, user_stream
from agent_orchestrator.sessions.turns.stream import (
    Delta,
    Done,
    Failed,
    Stopped,
    ToolFinished,
    ToolStarted,
    TurnEvent,
)

logger = logging.getLogger(__name__)

_T = TypeVar("_T")
IDLE_SECONDS = 10.0  # a follower hears ``None`` (time for a keep-alive) after this much quiet
RECENT = 1024  # events a stream's channel keeps in memory for followers that fall a little behind
# How long a turn's answer waits to be written with the end of the turn (see PublishingQueue): the
# turn's bookkeeping between the two is a transaction or two.
END_WAIT = 1.0
# How long an answer's first delta waits for the ones after it before they are written together: a
# streaming model sends a delta per token, and each write is a statement and a NOTIFY on PostgreSQL (a
# 500-token answer was up to 500). Followers on other tabs and devices see the answer in steps this
# long at most; the sender's own stream is not delayed.
DELTA_WINDOW = 0.05


@dataclass(frozen=True, slots=True)
class Reset:
    """The follower is further behind than the log reaches (or ahead of it): it must reload."""

    seq: int


def describe(event: TurnEvent) -> tuple[str, dict[str, Any]]:
    """A turn event as the live feed (and the turn's own stream) name it and carry it."""
    match event:
        case Delta(text=text):
            return "delta", {"text": text}
        case ToolStarted(call_id=call_id, name=name):
            return "tool", {"call_id": call_id, "name": name, "status": "started"}
        case ToolFinished(call_id=call_id, success=success):
            return "tool", {"call_id": call_id, "status": "finished", "success": success}
        case Done(text=text, tool_results=results):
            return "done", {"content": text, "tool_results": [asdict(result) for result in results]}
        case Failed(message=message):
            return "error", {"message": message, "code": "turn_failed"}
        case Stopped(text=text, tool_results=results):
            return "done", {
                "content": text,
                "tool_results": [asdict(result) for result in results],
                "stopped": True,
            }


class _Channel:
    """One stream on this server: its latest events in order, and a wake-up for its followers.

    ``recent`` holds every event numbered in ``(complete_after, last]`` that the log still had when it
    was read, so a follower positioned at or after ``complete_after`` is served from memory.
    """

    def __init__(self) -> None:
        self.followers = 0
        self.last: int | None = None  # None until the first follower has read the log's head
        self.heard = 0  # the highest number announced before that
        self.complete_after = 0
        self.recent: deque[LiveEvent] = deque()
        self.lock = asyncio.Lock()
        self._changed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def add(self, events: list[LiveEvent], upto: int) -> None:
        for event in events:
            if len(self.recent) == RECENT:
                self.complete_after = self.recent.popleft().seq
            self.recent.append(event)
        self.last = max(upto, self.last or 0)
        changed, self._changed = self._changed, asyncio.get_running_loop().create_future()
        changed.set_result(None)

    def since(self, seq: int) -> list[LiveEvent] | None:
        """What follows ``seq`` from memory, or ``None`` if memory does not reach back that far."""
        if self.last is None or seq < self.complete_after or seq > self.last:
            return None
        return [e for e in self.recent if e.seq > seq] if seq < self.last else []

    def changed(self) -> asyncio.Future[None]:
        return self._changed


class LiveHub:
    """Publish events (numbered by the log) and follow streams, fanned out in this process."""

    def __init__(self, log: LiveEventLog) -> None:
        self.log = log
        self._channels: dict[str, _Channel] = {}

    async def restart(self, stream: str, kind: str, data: dict[str, Any]) -> LiveEvent:
        """Start the stream over with this event (``LiveEventLog.restart``)."""
        event = await asyncio.to_thread(self.log.restart, stream, kind, data)
        await self.heard(stream, event.seq, event)
        return event

    async def publish_all(self, batches: list[Batch]) -> list[list[LiveEvent]]:
        """Publish each batch to its stream, all in one write (``LiveEventLog.append_each``)."""
        published = await asyncio.to_thread(self.log.append_each, batches)
        for batch, events in zip(batches, published, strict=True):
            for event in events:
                await self.heard(batch.stream, event.seq, event)
        return published

    async def end_open_turn(
        self,
        stream: str,
        message: str,
        *,
        answer: str | None = None,
        prompt: str | None = None,
        since: datetime | None = None,
    ) -> None:
        """End a turn whose server died mid-way, so its followers stop waiting (see the log's method)."""
        end = functools.partial(self.log.end_open_turn, answer=answer, prompt=prompt, since=since)
        ended = await asyncio.to_thread(end, stream, message)
        for event in ended:
            await self.heard(stream, event.seq, event)

    async def heard(self, stream: str, seq: int, event: LiveEvent | None = None) -> None:
        """Event ``seq`` of ``stream`` exists: pass it on (read from the log unless it is the next one
        and in hand) to this server's followers, if any."""
        channel = self._channels.get(stream)
        if channel is None:
            return
        if channel.last is None:
            channel.heard = max(channel.heard, seq)
            return
        async with channel.lock:
            if seq <= channel.last:
                return
            if event is not None and seq == channel.last + 1:
                channel.add([event], seq)
            else:
                await self._catch_up(stream, channel)

    async def resync(self) -> None:
        """After a lost connection to the announcements: read whatever was missed meanwhile."""
        for stream, channel in list(self._channels.items()):
            if channel.last is not None:
                async with channel.lock:
                    await self._catch_up(stream, channel)

    async def _catch_up(self, stream: str, channel: _Channel) -> None:
        assert channel.last is not None
        events = await asyncio.to_thread(self.log.after, stream, channel.last)
        if events:
            channel.add(events, events[-1].seq)

    async def follow(
        self, stream: str, after: int, *, idle: float = IDLE_SECONDS
    ) -> AsyncIterator[LiveEvent | Reset | None]:
        """The stream's events numbered above ``after``, then each new one as it comes, forever.

        Yields ``None`` after ``idle`` seconds without events (time for a keep-alive), and a
        :class:`Reset` instead of events it can no longer deliver in full.
        """
        channel = self._channels.get(stream)
        if channel is None:
            channel = self._channels[stream] = _Channel()
        channel.followers += 1
        try:
            await self._open(stream, channel)
            position = after
            while True:
                changed = channel.changed()
                batch = channel.since(position)
                if batch is None:
                    if not await asyncio.to_thread(self.log.covers, stream, position):
                        position = await asyncio.to_thread(self.log.latest, stream)
                        yield Reset(position)
                        continue
                    batch = await asyncio.to_thread(self.log.after, stream, position)
                for event in batch:
                    position = event.seq
                    yield event
                if batch:
                    continue
                try:
                    await asyncio.wait_for(asyncio.shield(changed), idle)
                except TimeoutError:
                    yield None
        finally:
            channel.followers -= 1
            if channel.followers == 0 and self._channels.get(stream) is channel:
                del self._channels[stream]

    async def _open(self, stream: str, channel: _Channel) -> None:
        """The first follower reads the log's head; announcements heard meanwhile are caught up."""
        async with channel.lock:
            if channel.last is not None:
                return
            head = await asyncio.to_thread(self.log.latest, stream)
            channel.complete_after = head
            channel.add([], head)
            if channel.heard > head:
                await self._catch_up(stream, channel)

    @property
    def followed_streams(self) -> int:
        return len(self._channels)


class PublishingQueue(asyncio.Queue[TurnEvent | None]):
    """A turn's event queue (what the turn fills and its HTTP response drains) that also publishes
    every event to the session's live feed, in order, without ever blocking or failing the turn.

    Events that queue up while the previous ones are being written are published together, in one
    write; a delta waits up to :data:`DELTA_WINDOW` for those after it, which are joined into one
    (anything else ends the wait). The answer (``done`` or ``error``) waits up to :data:`END_WAIT` for
    the end of the turn (``None``: the lease is released by then), so that both go in one write, with
    ``idle``, the dropping of the deltas of earlier turns (this turn's stay until the next one ends,
    for followers that lag behind) and the owner's sessions list hearing the session is idle.
    """

    def __init__(
        self,
        hub: LiveHub,
        session_id: str,
        owner_id: int,
        *,
        public_id: str | None = None,
        since: int | None = None,
    ) -> None:
        """``session_id`` is the runtime id, whose stream the turn goes to; the owner's list hears the
        public id (by default the same), the one its owner knows (docs/architecture.md#session-ids).
        ``since``: the turn's message in the feed, after which nothing but this turn may end it."""
        super().__init__()
        self._since = since
        self._hub = hub
        self._session_id = session_id
        self._public_id = public_id or session_id
        self._owner_id = owner_id
        self._outbox: asyncio.Queue[TurnEvent | None] = asyncio.Queue()
        self.published = asyncio.create_task(self._publish_all())

    def put_nowait(self, item: TurnEvent | None) -> None:
        super().put_nowait(item)
        self._outbox.put_nowait(item)

    async def _publish_all(self) -> None:
        stream = session_stream(self._session_id)
        first = self._since  # the number of the turn's first event in the feed
        ended = False
        while not ended:
            items = await self._next_items()
            ended = items[-1] is None  # nothing is put after the end
            events = [describe(item) for item in _joined_deltas(items) if item is not None]
            batches = [Batch(stream, events)]
            if ended:
                events.append(("idle", {}))
                batches = [
                    Batch(stream, events, ends_turn_from=first or 0),
                    Batch(user_stream(self._owner_id), [("idle", {"id": self._public_id})]),
                ]
            published = await self._quietly(self._hub.publish_all(batches))
            if published and published[0] and first is None:
                first = published[0][0].seq

    async def _next_items(self) -> list[TurnEvent | None]:
        """What is queued (at least one item); an answer waits a little for the end of the turn."""
        items = [await self._outbox.get()]
        if isinstance(items[0], Delta):  # the deltas of the next DELTA_WINDOW, up to anything else
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(DELTA_WINDOW):  # one timer; a cancelled get loses no item
                    while isinstance(items[-1], Delta):
                        items.append(await self._outbox.get())
        while True:
            while not self._outbox.empty():
                items.append(self._outbox.get_nowait())
            if not isinstance(items[-1], Done | Failed | Stopped):
                return items
            try:
                items.append(await asyncio.wait_for(self._outbox.get(), END_WAIT))
            except TimeoutError:
                return items

    async def _quietly(self, step: Awaitable[_T]) -> _T | None:
        try:
            return await step
        except Exception:  # the feed is a view: a failed write must not stop the turn or its answer
            logger.exception("Live feed of session %s: publishing failed", self._session_id)
            return None


def _joined_deltas(items: list[TurnEvent | None]) -> list[TurnEvent | None]:
    """``items`` with each run of deltas as one delta (followers append them all the same)."""
    joined: list[TurnEvent | None] = []
    for item in items:
        if isinstance(item, Delta) and joined and isinstance(last := joined[-1], Delta):
            joined[-1] = Delta(last.text + item.text)
        else:
            joined.append(item)
    return joined


@dataclass(frozen=True)
class LiveTurn:
    """A turn still being answered, as far as it got: what a client joining mid-turn shows."""

    prompt: str
    text: str
    tools: list[dict[str, Any]]


@dataclass(frozen=True)
class Joined:
    """A conversation to show and the feed position it is consistent with."""

    messages: list[TranscriptMessage]
    last_event_id: int
    live_turn: LiveTurn | None


def turn_boundary(turn: list[LiveEvent]) -> int:
    """The number of the last turn boundary in ``LiveEventLog.current_turn``'s answer (0: none)."""
    return turn[0].seq if turn and turn[0].kind in BOUNDARY_KINDS else 0


def join(messages: list[TranscriptMessage], turn: list[LiveEvent], *, busy: bool) -> Joined:
    """What a client opening the session shows: the transcript up to the turn in flight (if any),
    that turn as far as it got, and the feed position after which everything else comes live.

    ``turn`` was read after the transcript, with the same boundary as before it, so no turn started or
    ended in between. A turn in flight may already have its answer in the runtime's log; that answer
    is left to the feed's ``done``, so it is never shown twice.
    """
    last = turn[-1].seq if turn else 0
    start = turn[0] if turn and turn[0].kind == "user" else None
    if start is None or not busy:  # no turn in flight (or its server died: the lease says so)
        return Joined(messages, last, None)
    prompt = str(start.data.get("content", ""))
    shown = list(messages)
    while shown and shown[-1].role != "user":
        shown.pop()
    if not shown or shown[-1].content != prompt:  # not yet in the runtime's log nor in the catalog
        shown = [*messages, TranscriptMessage("user", prompt, log_timestamp(datetime.now(UTC)))]
    tools: dict[str, dict[str, Any]] = {}
    for event in turn[1:]:
        if event.kind == "tool":
            call = str(event.data.get("call_id", ""))
            tools[call] = {**tools.get(call, {}), **event.data}
    text = "".join(str(e.data.get("text", "")) for e in turn if e.kind == "delta")
    return Joined(shown, last, LiveTurn(prompt, text, list(tools.values())))


def missed_messages(log: LiveEventLog, stream: str, seen: int) -> tuple[list[dict[str, object]] | None, int]:
    """The messages (prompts, answers, failures) a client that has seen up to ``seen`` has missed,
    ``None`` if the log no longer reaches back that far; and the number it should have seen."""
    if not log.covers(stream, seen):
        return None, log.latest(stream)
    events = log.after(stream, seen)
    if not events:
        return [], seen
    if len(events) == KEEP:
        return None, log.latest(stream)
    roles = {"user": "user", "done": "assistant", "error": "error"}
    missed: list[dict[str, object]] = [
        {"role": roles[e.kind], "content": str(e.data.get("content", e.data.get("message", "")))}
        for e in events
        if e.kind in roles
    ]
    return missed, events[-1].seq

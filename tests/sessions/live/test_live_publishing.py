"""A turn's events reach the live feed in few writes: what queued up together, an answer's deltas a
short window at a time, and the answer with the end of the turn (on both backends)."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import Engine

from agent_orchestrator.sessions.live import feed
from agent_orchestrator.sessions.live.feed import LiveHub, PublishingQueue
from agent_orchestrator.sessions.store import Batch, LiveEventLog
from agent_orchestrator.sessions.turns.stream import Delta, Done
from agent_orchestrator.testing.eventually import eventually_async


class CountingLog(LiveEventLog):
    """The real log, recording what each write carried: (stream, kinds) per batch."""

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        self.writes: list[list[tuple[str, list[str]]]] = []

    def append_each(self, batches):
        self.writes.append([(batch.stream, [kind for kind, _ in batch.events]) for batch in batches])
        return super().append_each(batches)


async def test_the_answer_is_written_with_the_end_of_the_turn(store_engine: Engine) -> None:
    log = CountingLog(store_engine)
    queue = PublishingQueue(LiveHub(log), "chat-1", owner_id=7)
    queue.put_nowait(Delta("Hel"))
    await eventually_async(lambda: log.writes)  # the delta, once its window is over
    queue.put_nowait(Done("Hello"))
    await asyncio.sleep(0.05)  # kept: the turn's bookkeeping, for which the answer waits (unwritten)
    queue.put_nowait(None)
    await queue.published
    assert log.writes == [
        [("s:chat-1", ["delta"])],
        [("s:chat-1", ["done", "idle"]), ("u:7", ["idle"])],
    ]
    assert [e.kind for e in log.after("s:chat-1", 0)] == ["delta", "done", "idle"]


async def test_deltas_within_the_window_are_one_delta_in_one_write(store_engine: Engine) -> None:
    log = CountingLog(store_engine)
    queue = PublishingQueue(LiveHub(log), "chat-1", owner_id=7)
    for piece in ("Reve", "nue ", "is up"):  # a model streaming token by token
        queue.put_nowait(Delta(piece))
        await asyncio.sleep(0.005)  # kept: the pace of a model streaming, well within the window
    await eventually_async(lambda: len(log.writes) == 1)  # the window is over: written
    queue.put_nowait(Delta("."))  # after the window: the next write
    await eventually_async(lambda: len(log.writes) == 2)
    queue.put_nowait(None)
    await queue.published
    assert log.writes[:2] == [[("s:chat-1", ["delta"])], [("s:chat-1", ["delta"])]]
    deltas = [e.data["text"] for e in log.after("s:chat-1", 0) if e.kind == "delta"]
    assert deltas == ["Revenue is up", "."]
    # The sender's own stream is not held back or joined: it drains every event as it was put.
    assert [queue.get_nowait() for _ in range(5)] == [
        Delta("Reve"),
        Delta("nue "),
        Delta("is up"),
        Delta("."),
        None,
    ]


async def test_a_short_answer_streamed_with_its_end_is_one_write(store_engine: Engine) -> None:
    log = CountingLog(store_engine)
    queue = PublishingQueue(LiveHub(log), "chat-1", owner_id=7)
    for item in (Delta("O"), Delta("K"), Done("OK"), None):  # what an instant model's turn puts
        queue.put_nowait(item)
    await queue.published
    assert log.writes == [[("s:chat-1", ["delta", "done", "idle"]), ("u:7", ["idle"])]]


async def test_an_answer_whose_end_is_late_is_not_held_back(store_engine, monkeypatch) -> None:
    monkeypatch.setattr(feed, "END_WAIT", 0.05)
    log = CountingLog(store_engine)
    queue = PublishingQueue(LiveHub(log), "chat-1", owner_id=7)
    queue.put_nowait(Done("Hello"))
    await eventually_async(lambda: log.writes)  # after END_WAIT, without the end
    assert log.writes == [[("s:chat-1", ["done"])]]
    queue.put_nowait(None)
    await queue.published
    assert log.writes[1] == [("s:chat-1", ["idle"]), ("u:7", ["idle"])]


@pytest.mark.parametrize("kinds", [["user"], ["user", "delta"]])
async def test_a_hub_publishes_to_several_streams_at_once(store_engine: Engine, kinds) -> None:
    hub = LiveHub(CountingLog(store_engine))
    published = await hub.publish_all(
        [Batch("s:chat-1", [(kind, {}) for kind in kinds]), Batch("u:7", [("busy", {"id": "chat-1"})])]
    )
    assert [[e.seq for e in events] for events in published] == [list(range(1, len(kinds) + 1)), [1]]

"""The warm-session pool's rules, on plain stand-in objects: it never calls a session, only hands it
back or passes it to the close callback, so no runtime is needed here (tests/web/test_warm_sessions.py
runs the same rules through the real runtime)."""

import asyncio
from typing import Any, cast

from copilot import CopilotSession

from agent_orchestrator.sessions.turns.warm import WarmSessions


class Pool:
    def __init__(self, capacity: int = 3, idle_timeout: float = 60.0) -> None:
        self.closed: list[tuple[str, int]] = []
        self.warm = WarmSessions(capacity=capacity, idle_timeout=idle_timeout, close=self._close)

    async def _close(self, session_id: str, session: CopilotSession, fencing_token: int) -> None:
        await asyncio.sleep(0.01)  # kept: closing takes a runtime round trip
        self.closed.append((session_id, fencing_token))


def _session(name: str) -> CopilotSession:
    return cast(Any, name)


async def test_a_copy_is_handed_back_only_to_the_next_lease_of_its_server():
    pool = Pool()
    pool.warm.keep("s1", _session("copy"), fencing_token=4)
    copy = await pool.warm.take("s1", fencing_token=5)
    assert copy is not None and copy.session == "copy" and not copy.ahead
    assert pool.closed == [] and "s1" not in pool.warm


async def test_a_stale_copy_is_closed_before_the_turn_resumes():
    pool = Pool()
    pool.warm.keep("s1", _session("copy"), fencing_token=4)
    # Token 7: two other leases came in between (another server's turn, a rewind): the copy is stale.
    assert await pool.warm.take("s1", fencing_token=7) is None
    assert pool.closed == [("s1", 4)]


async def test_the_least_recently_used_copy_goes_when_the_pool_is_full():
    pool = Pool(capacity=2)
    for number in (1, 2):
        pool.warm.keep(f"s{number}", _session(f"copy{number}"), fencing_token=1)
    assert (copy := await pool.warm.take("s1", fencing_token=2)) is not None and copy.session == "copy1"
    pool.warm.keep("s1", _session("copy1"), fencing_token=2)  # s1 is now the most recently used
    pool.warm.keep("s3", _session("copy3"), fencing_token=1)
    await pool.warm.close_all()
    assert pool.closed[0] == ("s2", 1)
    assert sorted(pool.closed[1:]) == [("s1", 2), ("s3", 1)]


async def test_idle_copies_are_closed_and_a_take_waits_for_a_close_in_progress():
    pool = Pool(idle_timeout=0.05)
    pool.warm.keep("s1", _session("copy"), fencing_token=1)
    await asyncio.sleep(0.06)  # kept: the clock moves past the idle timeout
    pool.warm.close_idle()
    assert len(pool.warm) == 0
    # The close is still running: a turn must not resume the session until it is done.
    assert await pool.warm.take("s1", fencing_token=2) is None
    assert pool.closed == [("s1", 1)]


async def test_evict_closes_at_once_and_a_pool_of_size_zero_keeps_nothing():
    pool = Pool(capacity=0)
    pool.warm.keep("s1", _session("copy"), fencing_token=1)
    await pool.warm.evict("s1")
    assert pool.closed == [("s1", 1)] and len(pool.warm) == 0


async def test_opening_ahead_runs_at_most_two_at_once_and_a_take_or_evict_waits_for_it():
    pool = Pool()
    release = asyncio.Event()

    def opener(session_id: str):
        async def open_copy() -> None:
            await release.wait()  # a resume in progress
            pool.warm.keep(session_id, _session(f"copy-{session_id}"), fencing_token=3, ahead=True)

        return open_copy

    assert pool.warm.open_ahead("s1", opener("s1")) and pool.warm.open_ahead("s2", opener("s2"))
    assert not pool.warm.open_ahead("s3", opener("s3"))  # two are opening already
    assert not pool.warm.open_ahead("s1", opener("s1"))  # and s1 is one of them
    asyncio.get_running_loop().call_later(0.05, release.set)
    copy = await pool.warm.take("s1", fencing_token=4)  # waits for the opening, then takes its copy
    assert copy is not None and copy.session == "copy-s1" and copy.ahead
    await pool.warm.evict("s2")
    assert pool.closed == [("s2", 3)]
    assert Pool(capacity=0).warm.open_ahead("s9", opener("s9")) is False


async def test_a_copy_still_closing_is_opened_ahead_again_once_it_is_closed():
    pool = Pool(capacity=1)
    pool.warm.keep("s1", _session("old"), fencing_token=1)
    pool.warm.keep("s2", _session("other"), fencing_token=1)  # s1 leaves the full pool: closing

    async def open_copy() -> None:
        assert pool.closed == [("s1", 1)]  # the runtime never holds the session open twice
        pool.warm.keep("s1", _session("new"), fencing_token=2, ahead=True)

    assert pool.warm.open_ahead("s1", open_copy)
    copy = await pool.warm.take("s1", fencing_token=3)
    assert copy is not None and copy.session == "new" and copy.ahead

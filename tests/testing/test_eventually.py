"""``eventually``: polls until a check passes, returns what it returned, fails showing the last failure."""

import asyncio
import time

import pytest

from agent_orchestrator.testing.eventually import eventually, eventually_async


class Countdown:
    """A check that fails ``misses`` times (by assertion, or by returning a falsy value) and then passes."""

    def __init__(self, misses: int, *, asserting: bool = True) -> None:
        self.misses, self.asserting, self.calls = misses, asserting, 0

    def __call__(self) -> str | None:
        self.calls += 1
        if self.calls <= self.misses:
            if self.asserting:
                raise AssertionError(f"miss {self.calls}")
            return None
        return "ready"


@pytest.mark.parametrize("asserting", [True, False])
def test_it_tries_until_the_check_passes_and_returns_its_result(asserting: bool) -> None:
    check = Countdown(3, asserting=asserting)
    assert eventually(check, timeout=5, interval=0.001) == "ready"
    assert check.calls == 4


def test_a_timeout_shows_the_last_failure_and_chains_it() -> None:
    check = Countdown(10**6)
    with pytest.raises(AssertionError, match=r"^not within 0.05 s \(\d+ tries\): miss \d+$") as failure:
        eventually(check, timeout=0.05, interval=0.01)
    assert isinstance(failure.value.__cause__, AssertionError)
    assert str(failure.value.__cause__) == f"miss {check.calls}"  # the very last try's


def test_a_falsy_result_is_not_yet_and_shows_in_the_timeout() -> None:
    with pytest.raises(AssertionError, match=r"the check returned \[\]$"):
        eventually(list, timeout=0.02, interval=0.01)


def test_the_check_gets_a_last_try_at_the_deadline() -> None:
    started = time.monotonic()
    calls: list[float] = []

    def check() -> bool:
        calls.append(time.monotonic() - started)
        return False

    with pytest.raises(AssertionError):
        eventually(check, timeout=0.2, interval=10)
    assert len(calls) == 2 and calls[1] >= 0.2


def test_any_other_exception_ends_the_wait_at_once() -> None:
    calls = 0

    def check() -> bool:
        nonlocal calls
        calls += 1
        raise RuntimeError("the server exited")

    with pytest.raises(RuntimeError, match="the server exited"):
        eventually(check, timeout=5)
    assert calls == 1


def test_the_wait_between_tries_can_be_someone_elses() -> None:
    pauses: list[float] = []
    assert eventually(Countdown(2), interval=0.5, sleep=pauses.append) == "ready"
    assert pauses == [0.5, 0.5]


async def test_the_async_twin_lets_the_loop_run_between_tries() -> None:
    done = asyncio.Event()
    asyncio.get_running_loop().call_later(0.05, done.set)
    assert await eventually_async(done.is_set, timeout=5, interval=0.01) is True


async def test_the_async_twin_awaits_an_async_check_and_fails_like_the_sync_one() -> None:
    check = Countdown(2)

    async def async_check() -> str | None:
        return check()

    assert await eventually_async(async_check, timeout=5, interval=0.001) == "ready"
    with pytest.raises(AssertionError, match=r"^not within 0.02 s \(\d+ tries\): miss \d+$"):
        await eventually_async(Countdown(10**6), timeout=0.02, interval=0.005)

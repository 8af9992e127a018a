"""Waiting for background work in a test: poll a check until it passes, or fail showing why it did not.

``eventually(check)`` calls ``check()`` every ``interval`` seconds until it returns something truthy
without raising :class:`AssertionError`, and returns that value. A check may return a value to wait for
(``lambda: catalog.get(old) is None``, a list that must not be empty) or assert and then return it;
``None`` and other falsy results count as "not yet", so an assert-only check ends with ``return True``.
Any other exception ends the wait at once: that is how a check says "this will never pass" (a server
process that exited, ``pytest.fail``).

At ``timeout`` the check has one last try; if that fails too, an :class:`AssertionError` says how long
and how often it was tried and shows the last failure (chained, so pytest prints the assertion's
introspection) or the last result.

:func:`eventually_async` is the same for async tests: the event loop keeps running between tries, and
the check may be a coroutine function.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar, cast

T = TypeVar("T")

TIMEOUT = 30.0  # seconds: generous, because the machines that run the suite are shared and busy
INTERVAL = 0.05


class _Tries:
    """The bookkeeping of one wait: the deadline, how many tries, and the last failure."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.deadline = time.monotonic() + timeout
        self.count = 0
        self.error: AssertionError | None = None
        self.result: object = None

    def passed(self, outcome: object) -> bool:
        self.count += 1
        self.error, self.result = None, outcome
        return bool(outcome)

    def failed(self, error: AssertionError) -> None:
        self.count += 1
        self.error = error

    def pause(self, interval: float) -> float | None:
        """How long to sleep before the next try, or ``None`` once the deadline is behind us."""
        remaining = self.deadline - time.monotonic()
        return None if remaining <= 0 else min(interval, remaining)

    def timed_out(self) -> AssertionError:
        last = f"{self.error}" if self.error is not None else f"the check returned {self.result!r}"
        tries = f"{self.count} {'try' if self.count == 1 else 'tries'}"
        error = AssertionError(f"not within {self.timeout:g} s ({tries}): {last}")
        error.__cause__ = self.error
        return error


def eventually(
    check: Callable[[], T],
    *,
    timeout: float = TIMEOUT,
    interval: float = INTERVAL,
    sleep: Callable[[float], object] = time.sleep,
) -> T:
    """Poll ``check`` until it passes and return its result (see the module's docstring).

    ``sleep`` waits between tries: a browser test passes Playwright's own wait, which keeps its event
    loop (route handlers, events) running, where ``time.sleep`` would block it.
    """
    tries = _Tries(timeout)
    while True:
        try:
            if tries.passed(outcome := check()):
                return outcome
        except AssertionError as error:
            tries.failed(error)
        pause = tries.pause(interval)
        if pause is None:
            raise tries.timed_out()
        sleep(pause)


async def eventually_async(
    check: Callable[[], T | Awaitable[T]],
    *,
    timeout: float = TIMEOUT,  # noqa: ASYNC109  # the wait's budget, like eventually's; no cancel scope
    interval: float = INTERVAL,
) -> T:
    """:func:`eventually` for async tests: sleeps with ``asyncio.sleep``; ``check`` may be async."""
    tries = _Tries(timeout)
    while True:
        try:
            outcome = check()
            if inspect.isawaitable(outcome):
                outcome = await outcome
            if tries.passed(outcome):
                return cast(T, outcome)
        except AssertionError as error:
            tries.failed(error)
        pause = tries.pause(interval)
        if pause is None:
            raise tries.timed_out()
        await asyncio.sleep(pause)

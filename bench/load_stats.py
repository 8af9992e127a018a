"""Figures of a load, shared by the throughput benchmark and its runtime-alone worker: latency
percentiles, and the CPU time and resident memory of a process *tree* read from ``/proc``.

A tree, because the app's (and the runtime's) work is split over processes: the Copilot CLI is a Node
child of the Python process that drives it. CPU counts the live processes of the tree plus the
children they already reaped (``cutime``/``cstime``), so nothing that ran during a load is missed.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

_TICKS = os.sysconf("SC_CLK_TCK")
_PAGE = os.sysconf("SC_PAGE_SIZE")
# At most this many turns at once while preparing (untimed), so preparing does not become a load test.
PREPARE_CONCURRENCY = 8
# One turn alone is a small figure on a noisy machine: its median is taken over this many.
ALONE_TURNS = 15

Send = Callable[[], Awaitable[None]]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(values: list[float]) -> str:
    """``p50 …, p95 …, max …`` of ``values`` (seconds)."""
    return f"p50 {ms(percentile(values, 0.5))}, p95 {ms(percentile(values, 0.95))}, max {ms(max(values))}"


def _stat_fields(pid: int) -> list[str]:
    """``/proc/<pid>/stat`` from field 3 (state) on; the command name before it may hold spaces."""
    text = Path(f"/proc/{pid}/stat").read_text()
    return text[text.rindex(")") + 2 :].split()


def process_tree(root: int) -> list[int]:
    """``root`` and all its live descendants."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int(_stat_fields(int(entry.name))[1])
            except (FileNotFoundError, ProcessLookupError, IndexError):
                continue  # exited while we looked
            children.setdefault(parent, []).append(int(entry.name))
    tree, pending = [], [root]
    while pending:
        pid = pending.pop()
        tree.append(pid)
        pending.extend(children.get(pid, []))
    return tree


def tree_cpu_seconds(root: int) -> float:
    """User + system CPU time of the tree so far, including its reaped children."""
    ticks = 0
    for pid in process_tree(root):
        try:
            fields = _stat_fields(pid)
        except (FileNotFoundError, ProcessLookupError):
            continue
        ticks += sum(int(value) for value in fields[11:15])  # utime, stime, cutime, cstime
    return ticks / _TICKS


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU time of the one process ``pid`` (its own threads, not its children): the
    Python side of a tree whose other part is the runtime's Node process."""
    return sum(int(value) for value in _stat_fields(pid)[11:13]) / _TICKS


def cpu_reader(root: int) -> Callable[[], tuple[float, float]]:
    """CPU seconds so far of the tree under ``root`` and of ``root`` alone (see :func:`run_phase`)."""
    return lambda: (tree_cpu_seconds(root), process_cpu_seconds(root))


def tree_rss_bytes(root: int) -> int:
    """Resident memory of the tree (shared pages counted in every process that maps them)."""
    total = 0
    for pid in process_tree(root):
        try:
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * _PAGE
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


@dataclass
class Phase:
    """One load on one target: each turn's time (seconds), and the CPU seconds the phase cost the
    target's process tree and its root (the Python process) alone."""

    times: list[float]
    cpu: float
    python_cpu: float


# The kinds of load :func:`run_phase` runs.
ALONE, BURST, CONVERSATIONS = "alone", "burst", "conversations"


async def timed(send: Send) -> float:
    started = time.perf_counter()
    await send()
    return time.perf_counter() - started


async def bounded(sends: list[Send], limit: int = PREPARE_CONCURRENCY) -> None:
    """Run ``sends`` with at most ``limit`` under way (untimed preparation)."""
    gate = asyncio.Semaphore(limit)

    async def one(send: Send) -> None:
        async with gate:
            await send()

    await asyncio.gather(*(one(send) for send in sends))


async def run_phase(
    senders: list[Send], kind: str, turns: int, cpu_seconds: Callable[[], tuple[float, float]]
) -> Phase:
    """One load on any target (``senders[i]()`` sends one turn on user ``i``'s session, which already
    has history): ``alone``, ``turns`` turns of user 0 one after the other; ``burst``, every user at
    once with one turn each; ``conversations``, every user at once with ``turns`` turns each (sequential
    per user). ``cpu_seconds()`` gives the target's (whole tree, Python process) CPU so far."""
    start = cpu_seconds()
    if kind == ALONE:
        times = [await timed(senders[0]) for _ in range(turns)]
    else:

        async def conversation(send: Send) -> list[float]:
            return [await timed(send) for _ in range(turns if kind == CONVERSATIONS else 1)]

        times = [t for user in await asyncio.gather(*(conversation(s) for s in senders)) for t in user]
    tree, python = _spent(cpu_seconds, start)
    return Phase(times, tree, python)


def _spent(cpu_seconds: Callable[[], tuple[float, float]], start: tuple[float, float]) -> tuple[float, float]:
    tree, python = cpu_seconds()
    return tree - start[0], python - start[1]

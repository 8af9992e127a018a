"""Timing helper shared by the benchmarks (run as scripts: ``bench/`` is on ``sys.path``)."""

import statistics
import time
from collections.abc import Callable


def median_seconds(fn: Callable[[], object], runs: int, *, warm_up: bool = True) -> float:
    """Median wall time of ``runs`` calls; one untimed call first warms page and statement caches."""
    if warm_up:
        fn()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)

"""Dataset import benchmark: a CSV into a new dataset version, end to end.

    uv run python bench/bench_import.py [CSV] [--runs N] [--postgres]

Default CSV: the real Online Retail file at ``/work/evaldata/real/OnlineRetail.csv`` (541,909 lines,
not in the repository). ``--postgres`` uses a fresh schema on the test PostgreSQL as the shared
store (the version's bytes are stored there too). Prints plain ``name: value`` lines per run: wall
time, rows/s, the peak RSS above the RSS before the import (sampled at every progress report), and
the longest gap between two progress reports. Targets (docs/architecture.md#dataset-versions):
<= 15 s, <= +200 MB, a report at least once a second. The machine is shared: run it a few times.
"""

from __future__ import annotations

import argparse
import itertools
import os
import resource
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from agent_orchestrator.retail.datasets import DatasetLibrary, ImportProgress, inspect_csv

REAL_FILE = Path("/work/evaldata/real/OnlineRetail.csv")
TARGET_S = 15.0


def _rss_mb() -> float:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def _run(csv_path: Path, library: DatasetLibrary, run: int) -> None:
    preview = inspect_csv(csv_path)
    mapping = {field: column for field, column in preview.mapping.items() if column}
    reports: list[float] = []
    peak = [0.0]
    baseline = _rss_mb()

    def progress(update: ImportProgress) -> None:
        reports.append(time.monotonic())
        peak[0] = max(peak[0], _rss_mb())

    start = time.monotonic()
    report = library.import_csv(
        csv_path,
        mapping,
        preview.format,
        mode="replace",
        actor="bench",
        source_name=csv_path.name,
        progress=progress,
    )
    seconds = time.monotonic() - start
    gap = max(b - a for a, b in itertools.pairwise([start, *reports]))
    print(f"run {run}: import_seconds: {seconds:.2f} (target {TARGET_S:.0f}, ratio {seconds / TARGET_S:.2f})")
    print(f"run {run}: rows_per_second: {report.rows_read / seconds:,.0f}")
    counts = f"{report.rows_read:,} read, {report.imported:,} imported, {report.skipped:,} skipped"
    print(f"run {run}: rows: {counts}")
    print(f"run {run}: peak_rss_delta_mb: {peak[0] - baseline:.0f}")
    print(f"run {run}: max_progress_gap_s: {gap:.2f} ({len(reports)} reports)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("csv", type=Path, nargs="?", default=REAL_FILE)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--postgres", action="store_true", help="a shared store on the test PostgreSQL")
    args = parser.parse_args()
    for run in range(1, args.runs + 1):
        with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
            engine = None
            if args.postgres:
                from sqlalchemy import create_engine

                from agent_orchestrator.testing.postgres import fresh_schema

                schema = stack.enter_context(fresh_schema("bench_import"))
                engine = create_engine(schema.sqlalchemy_url)
                stack.callback(engine.dispose)
            library = DatasetLibrary(Path(tmp), engine=engine)
            stack.callback(library.close)
            _run(args.csv, library, run)
    print(f"max_rss_mb: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f}")


if __name__ == "__main__":
    main()

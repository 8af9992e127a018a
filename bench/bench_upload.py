"""Bring your own data, end to end over HTTP: the real Online Retail file (541,909 lines, 45 MB)
uploaded, mapped as suggested, imported in the background and followed by polling, as the Data page
does it (docs/architecture.md#the-data-page).

Prints the upload's and the import's seconds, the gaps between the progress updates the poller saw,
and the growth of the app process's resident memory (its peak during the run against before the
upload), each next to its budget: at most 15 s in all, at least one update a second, at most +200 MB
(the file is streamed to disk, never held whole). The app runs as a real server process (uvicorn, the
Copilot CLI, the scripted model). Skips, saying so, when the file is absent.

    uv run python bench/bench_upload.py [--file /work/evaldata/real/OnlineRetail.csv]
"""

import argparse
import itertools
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
from web_users import PASSWORD, create_users

from agent_orchestrator.retail import GeneratorConfig, generate_dataset
from agent_orchestrator.testing.app_process import AppProcess
from agent_orchestrator.testing.environment import clean_environment
from agent_orchestrator.testing.scripted_model import ScriptedModel

REAL_FILE = Path("/work/evaldata/real/OnlineRetail.csv")
BUDGET_SECONDS = 15.0
BUDGET_GAP = 1.0
BUDGET_RSS_MB = 200.0
POLL_SECONDS = 0.1
CHUNK = 1024 * 1024


def rss_mb(pid: int) -> float:
    """The process's resident set size, from ``/proc`` (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


class PeakRss:
    """Samples a process's RSS every 50 ms in a thread; the peak seen."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak, self._stop = pid, rss_mb(pid), threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> "PeakRss":
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(0.05):
            self.peak = max(self.peak, rss_mb(self.pid))


def file_chunks(path: Path) -> Iterator[bytes]:
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            yield chunk


def run(path: Path) -> bool:
    with tempfile.TemporaryDirectory() as tmp, ScriptedModel() as model:
        data = Path(tmp)
        # A small version zero, so the app does not generate the full sample first.
        generate_dataset(data / "retail.sqlite", GeneratorConfig(seed=7, customers=300, transactions=6_000))
        database_url = f"sqlite:///{data / 'catalog.sqlite'}"
        create_users(database_url, ["admin"])  # the first account: the admin
        env = clean_environment(
            AGENT_ORCHESTRATOR_HOME=str(data),
            AGENT_PROVIDER_BASE_URL=model.base_url,
            AGENT_MODEL="scripted-model",
        )
        app = AppProcess(env).start()
        try:
            assert app.proc is not None
            return measure(app.url, app.proc.pid, path)
        finally:
            app.stop()


def measure(url: str, pid: int, path: Path) -> bool:
    client = httpx.Client(base_url=url, timeout=300)
    login = client.post("/api/auth/login", json={"username": "admin", "password": PASSWORD}).json()
    client.headers["X-CSRF-Token"] = login["csrf_token"]
    before = rss_mb(pid)
    with PeakRss(pid) as peak:
        started = time.perf_counter()
        answered = client.post(
            "/api/datasets/uploads",
            params={"name": path.name},
            content=file_chunks(path),
            headers={"Content-Type": "text/csv"},
        )
        answered.raise_for_status()
        preview = answered.json()
        uploaded = time.perf_counter()
        body = {"upload_id": preview["upload_id"], "mapping": preview["mapping"], "format": preview["format"]}
        job = client.post("/api/datasets/imports", json=body).json()
        seen: list[tuple[float, int, str, float]] = []  # (when, rows read, phase, percent) of each change
        while job["state"] == "running":
            time.sleep(POLL_SECONDS)
            job = client.get("/api/datasets/imports/current").json()["job"]
            progress = job["progress"]
            snapshot = (progress["rows_read"], progress["phase"], progress["percent"]) if progress else None
            if snapshot and (not seen or seen[-1][1:] != snapshot):
                seen.append((time.perf_counter(), *snapshot))
        ended = time.perf_counter()
    if job["state"] != "finished":
        print(f"the import {job['state']}: {job['error']}")
        return False
    report = job["report"]
    gaps = [b[0] - a[0] for a, b in itertools.pairwise(seen)]
    reading = [b[0] - a[0] for a, b in itertools.pairwise(seen) if a[2] == "reading"]
    total = ended - started
    growth = peak.peak - before
    longest = max(gaps, default=0.0)
    print(f"file {path.name}: {path.stat().st_size / 2**20:.1f} MB, {report['rows_read']:,} records")
    print(
        f"imported {report['imported']:,}, skipped {report['skipped']:,} {report['skipped_by_reason']}, "
        f"{report['customers']:,} customers, {report['products']:,} products, "
        f"{report['first_date']} to {report['last_date']}"
    )
    print(
        f"upload {uploaded - started:.2f} s, import {ended - uploaded:.2f} s "
        f"(the library's own {report['seconds']:.2f} s)"
    )
    print(f"end to end {total:.2f} s (budget {BUDGET_SECONDS:.0f} s: {total / BUDGET_SECONDS:.2f}x)")
    print(
        f"progress updates seen: {len(seen)}, longest gap {longest:.2f} s (budget {BUDGET_GAP:.0f} s), "
        f"while reading {max(reading, default=0.0):.2f} s"
    )
    print(
        f"app RSS {before:.0f} MB before, peak {peak.peak:.0f} MB: +{growth:.0f} MB "
        f"(budget +{BUDGET_RSS_MB:.0f} MB)"
    )
    return total <= BUDGET_SECONDS and longest <= BUDGET_GAP and growth <= BUDGET_RSS_MB


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--file", type=Path, default=REAL_FILE)
    args = parser.parse_args()
    if not args.file.is_file():
        print(f"skipped: {args.file} is not here (the real Online Retail CSV; it is not in the repository)")
        return 0
    return 0 if run(args.file) else 1


if __name__ == "__main__":
    sys.exit(main())

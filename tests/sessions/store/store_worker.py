"""A second process for the store's concurrency tests: ``python store_worker.py COMMAND URL ...``.

Commands (each prints one JSON line):

* ``migrate URL START_AT`` - wait until the epoch time START_AT, migrate, print the names applied.
* ``lease URL SESSION ROUNDS START_AT`` - do ROUNDS critical sections under the session's lease: each
  reads the ``probe`` counter, sleeps, writes it back + 1 (a lost update if two ever overlap), checks
  its fencing token, releases. Prints the tokens it held.
"""

from __future__ import annotations

import json
import os
import sys
import time

from sqlalchemy import Engine, text

from agent_orchestrator.sessions.store import LeaseManager, make_engine, migrate
from agent_orchestrator.testing.eventually import eventually


def wait_until(start_at: float) -> None:
    """Start with the other worker, at the same instant, for the most contention."""
    time.sleep(max(0.0, start_at - time.time()))  # kept: a start line shared by processes


def critical_sections(engine: Engine, session_id: str, holder: str, rounds: int) -> list[int]:
    """Run ``rounds`` lease-guarded read-modify-write steps on ``probe``; return the tokens held."""
    leases = LeaseManager(engine)
    tokens: list[int] = []
    while len(tokens) < rounds:  # the other worker holds the lease in turn: wait for it to let go
        lease = eventually(lambda: leases.acquire(session_id, holder, ttl=10), timeout=60, interval=0.001)
        with engine.begin() as conn:
            counter = conn.execute(text("SELECT counter FROM probe WHERE id = 1")).scalar_one()
        time.sleep(0.002)  # kept: widens the read-modify-write, where an overlap would lose an update
        if not leases.check(session_id, lease.fencing_token):
            raise AssertionError(f"{holder} lost a live lease")
        with engine.begin() as conn:
            conn.execute(text("UPDATE probe SET counter = :c WHERE id = 1"), {"c": counter + 1})
        tokens.append(lease.fencing_token)
        if not leases.release(lease):
            raise AssertionError(f"{holder} could not release its lease")
    return tokens


def main(argv: list[str]) -> None:
    command, url = argv[0], argv[1]
    engine = make_engine(url)
    try:
        if command == "migrate":
            wait_until(float(argv[2]))
            print(json.dumps(migrate(engine)))
        elif command == "lease":
            session_id, rounds, start_at = argv[2], int(argv[3]), float(argv[4])
            wait_until(start_at)
            print(json.dumps(critical_sections(engine, session_id, f"process-{os.getpid()}", rounds)))
        else:
            raise SystemExit(f"unknown command {command!r}")
    finally:
        engine.dispose()


if __name__ == "__main__":
    main(sys.argv[1:])

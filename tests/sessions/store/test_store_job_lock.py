"""The job lock: one holder at a time on PostgreSQL (across engines, as across servers); SQLite grants it."""

from __future__ import annotations

from store_helpers import StoreDb

from agent_orchestrator.sessions.store.job_lock import JobLock


def test_one_server_at_a_time_holds_a_job(store_db: StoreDb) -> None:
    first, second = store_db.engine(), store_db.engine()
    try:
        mine, theirs = JobLock(first, "retention"), JobLock(second, "retention")
        assert mine.acquire()
        shared = first.dialect.name == "postgresql"
        assert theirs.acquire() is not shared  # SQLite: every process is on this machine, granted
        other = JobLock(second, "another job")
        assert other.acquire()
        other.release()
        theirs.release()
        mine.release()
        assert theirs.acquire()
        theirs.release()
    finally:
        first.dispose()
        second.dispose()

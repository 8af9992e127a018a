"""One server at a time for a periodic job (the retention purge): docs/architecture.md#retention.

PostgreSQL: a session-level advisory lock, tried without waiting, keyed by the job's name and the
current schema, held on its own pooled connection until :meth:`JobLock.release`. If the server dies
holding it, PostgreSQL drops the lock with the connection, so no stale lock ever blocks the job.
SQLite: every process on the file runs on one machine and the jobs it guards are idempotent and
lease-safe, so the lock is always granted.
"""

from __future__ import annotations

from sqlalchemy import Connection, Engine, text

# First half of the two-int advisory lock key ("JOB5"); the migration lock uses another class.
_PG_LOCK_CLASS = 0x10B5
_KEY = "hashtext(current_schema() || ':' || :job)"


class JobLock:
    """``if lock.acquire(): try: ... finally: lock.release()``; blocking calls (run them in a thread)."""

    def __init__(self, engine: Engine, job: str) -> None:
        self._engine = engine
        self._job = job
        self._conn: Connection | None = None

    def acquire(self) -> bool:
        """Take the lock if no other server holds it; ``False`` at once otherwise."""
        if self._engine.dialect.name != "postgresql":
            return True
        conn = self._engine.connect()
        try:
            got = conn.execute(
                text(f"SELECT pg_try_advisory_lock({_PG_LOCK_CLASS}, {_KEY})"), {"job": self._job}
            ).scalar_one()
            conn.commit()
        except BaseException:
            conn.close()
            raise
        if not got:
            conn.close()
            return False
        self._conn = conn
        return True

    def release(self) -> None:
        if self._conn is None:
            return
        try:
            self._conn.execute(
                text(f"SELECT pg_advisory_unlock({_PG_LOCK_CLASS}, {_KEY})"), {"job": self._job}
            )
            self._conn.commit()
        finally:
            self._conn.close()  # a broken connection ends its backend, and the lock with it
            self._conn = None

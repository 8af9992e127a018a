"""Engines for the session store: one SQLAlchemy Core code path over SQLite and PostgreSQL.

    engine = make_engine(settings.database_url)   # agent_orchestrator.settings: DATABASE_URL or SQLite
    migrate(engine)

Why these settings:

* SQLite is the embedded default, but the web app calls the store from a thread pool and several
  processes may open the same file, so: WAL (readers never block the writer), a ``busy_timeout`` (a
  writer waits for the lock instead of failing at once), foreign keys on (off by default in SQLite),
  and connections usable from any thread.
* pysqlite's own transaction handling begins transactions late and cannot say ``BEGIN IMMEDIATE``. A
  deferred transaction that reads and then writes can fail with ``SQLITE_BUSY`` *without* waiting when
  another process wrote in between (its snapshot is stale). So we switch the driver to autocommit and
  emit ``BEGIN`` ourselves: :func:`write_transaction` emits ``BEGIN IMMEDIATE``, which takes the write
  lock up front (waiting up to ``busy_timeout``), so writers queue instead of failing.
* PostgreSQL is shared by many app servers: a bounded pool per process, a check at checkout so a
  restarted server (or a killed backend) costs one reconnect instead of an error (``liveness``: no
  round trip unless the server has said goodbye), and a recycle age under typical proxy idle timeouts.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Dialect, Engine, create_engine, event, func, select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DisconnectionError

from agent_orchestrator.home import owner_only_file
from agent_orchestrator.sessions.store import liveness
from agent_orchestrator.sessions.store.schema import UTCDateTime, utcnow

SQLITE_BUSY_TIMEOUT_MS = 15_000
# One pooled connection per thread of asyncio's default executor (``min(32, cores + 4)``), which is
# where the app runs every store call: a connection beyond the pool is closed when returned, so a
# smaller pool made a busy server open (a PostgreSQL backend forked, authenticated and warmed) and
# close a connection over and over.
PG_POOL_SIZE = min(32, (os.cpu_count() or 1) + 4)
PG_MAX_OVERFLOW = 10
PG_POOL_RECYCLE_S = 1_800
PG_CONNECT_TIMEOUT_S = 10
# As many SQLite connections kept as threads may use the store at once (asyncio's default executor has
# at most 32): a connection opened beyond the pool is closed after one call, and opening one costs its
# pragmas each time. An idle connection to a file costs little memory.
SQLITE_POOL_SIZE = 32
_BEGIN_IMMEDIATE = "agent_orchestrator_begin_immediate"


def make_engine(url: str, *, pool_size: int = PG_POOL_SIZE, max_overflow: int = PG_MAX_OVERFLOW) -> Engine:
    """An engine for a SQLite file or a PostgreSQL (psycopg 3) URL, configured as described above.

    The pool arguments apply to PostgreSQL only. Create one engine per process (after any fork) and
    share it between threads.
    """
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        return _sqlite_engine(url)
    if backend == "postgresql":
        if parsed.get_driver_name() != "psycopg":
            raise ValueError("PostgreSQL URLs must use the psycopg 3 driver: postgresql+psycopg://...")
        engine = create_engine(
            url,
            pool_size=pool_size,
            max_overflow=max_overflow,
            pool_recycle=PG_POOL_RECYCLE_S,
            pool_timeout=30,
            connect_args={"connect_timeout": PG_CONNECT_TIMEOUT_S},
        )
        event.listen(engine, "checkout", partial(_check_on_checkout, engine.dialect))
        return engine
    raise ValueError(f"Unsupported database {backend!r}: use sqlite:///PATH or postgresql+psycopg://...")


def _check_on_checkout(dialect: Dialect, dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
    """Hand out only a live connection: ``DisconnectionError`` makes the pool replace this one."""
    if liveness.surely_alive(dbapi_connection):
        return
    try:
        dialect.do_ping(dbapi_connection)
    except Exception as error:
        raise DisconnectionError("The database ended this pooled connection.") from error


def _sqlite_engine(url: str) -> Engine:
    parsed = make_url(url)
    database = parsed.database or ""
    if database in ("", ":memory:") or parsed.query.get("mode") == "memory":
        # Each pooled connection would get its own empty in-memory database.
        raise ValueError("The session store needs a SQLite file, not an in-memory database.")
    if not database.startswith("file:"):
        # Owner-only whatever the umask (password hashes); SQLite gives its -wal and -shm files the
        # database's mode (docs/architecture.md#the-home-is-owner-only).
        owner_only_file(Path(database).expanduser())
    engine = create_engine(
        url,
        pool_size=SQLITE_POOL_SIZE,
        connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000},
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we emit BEGIN ourselves (see module docstring)
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
            _enable_wal(cursor)
            # In WAL mode NORMAL syncs at checkpoints, not at every commit: a killed process loses
            # nothing, a power cut may lose the last commits but never corrupts the file. FULL's sync per
            # commit was the largest cost of a busy server's turn (docs/architecture.md#warm-sessions).
            cursor.execute("PRAGMA synchronous = NORMAL")
            cursor.execute("PRAGMA foreign_keys = ON")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        immediate = conn.get_execution_options().get(_BEGIN_IMMEDIATE, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


def _enable_wal(cursor: sqlite3.Cursor) -> None:
    """Switch the file to WAL (a persistent setting, so usually already done).

    Trap: the switch needs an exclusive lock, and when several connections open a brand-new file at
    once SQLite answers "database is locked" at once, without consulting ``busy_timeout``. So read
    the mode first (no lock) and retry the switch for up to the busy timeout.
    """
    deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT_MS / 1000
    delay = 0.005
    while True:
        try:
            if cursor.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.2)


@contextmanager
def write_transaction(engine: Engine) -> Iterator[Connection]:
    """A transaction that will write: ``BEGIN IMMEDIATE`` on SQLite, a plain transaction elsewhere.

    Commits on success, rolls back on error.
    """
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            conn = conn.execution_options(**{_BEGIN_IMMEDIATE: True})
        with conn.begin():
            yield conn


@contextmanager
def read_connection(engine: Engine) -> Iterator[Connection]:
    """A connection for reads. On PostgreSQL in autocommit: a read is its statement alone, not
    ``BEGIN``, the statement and ``ROLLBACK`` (three round trips); under READ COMMITTED each statement
    sees the latest commits either way. SQLite's local ``BEGIN`` costs no round trip."""
    with engine.connect() as conn:
        if engine.dialect.name == "postgresql":
            conn = conn.execution_options(isolation_level="AUTOCOMMIT")
        yield conn


def database_now(conn: Connection) -> datetime:
    """The time that decides expiries shared between servers (leases, login lockouts): the database
    server's ``clock_timestamp()`` on PostgreSQL, so app servers with skewed clocks still agree; on
    SQLite, whose users all run on one machine, Python's UTC clock."""
    if conn.dialect.name == "postgresql":
        return conn.execute(select(func.clock_timestamp(type_=UTCDateTime()))).scalar_one()
    return utcnow()

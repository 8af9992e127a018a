"""Opening the retail SQLite file: writable for the generator/importer, read-only for everyone else.

Readers (REST API, MCP server) use ``open_readonly``: the ``file:...?mode=ro`` URI makes SQLite
itself refuse writes, so "read-only" does not depend on every query being careful; ``query_only``
is a second lock on the same door.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from agent_orchestrator.errors import RetailDatabaseError
from agent_orchestrator.retail.schema import SCHEMA_VERSION, get_meta

BUSY_TIMEOUT_S = 5.0


def open_readwrite(path: Path | str) -> sqlite3.Connection:
    """Writable connection in manual-transaction mode (callers ``BEGIN`` and ``COMMIT`` themselves)."""
    conn = sqlite3.connect(Path(path), timeout=BUSY_TIMEOUT_S, isolation_level=None)
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


def open_readonly(path: Path | str, *, check_same_thread: bool = True) -> sqlite3.Connection:
    """Read-only connection to an existing retail database, or ``RetailDatabaseError``.

    ``check_same_thread=False`` is for FastAPI, whose sync dependencies and endpoints may run on
    different worker threads; each request still uses its connection from one thread at a time.
    """
    resolved = Path(path).expanduser().resolve()
    if not resolved.is_file():
        raise RetailDatabaseError(
            f"retail database not found at {resolved}; create it with "
            f"`python -m agent_orchestrator.retail generate --db {resolved}`"
        )
    uri = f"{resolved.as_uri()}?mode=ro"
    conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, check_same_thread=check_same_thread)
    try:
        conn.execute("PRAGMA query_only = ON")
        version = get_meta(conn, "schema_version")
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise RetailDatabaseError(f"{resolved} is not a readable retail database: {exc}") from exc
    if version != str(SCHEMA_VERSION):
        conn.close()
        raise RetailDatabaseError(
            f"{resolved} has retail schema version {version!r}, expected {SCHEMA_VERSION}; regenerate it"
        )
    return conn

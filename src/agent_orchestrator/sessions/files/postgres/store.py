"""The runtime's session files in PostgreSQL, so that any server can resume any session.

Usage::

    store = PostgresSessionFiles.from_url("postgresql://app@db/agent", schema="agent")
    async with store, CopilotRuntime(settings, session_files=store) as runtime:
        session = await runtime.resume_session("case-42")   # created on another server

What the runtime surprised us with, and what it shapes here:

* ``provider_for`` is **synchronous** and the SDK calls it on the event-loop thread while creating or
  resuming a session (its docstring even allows the RPC reader thread). It therefore does no I/O: it
  binds a provider to the session id and returns. The pool opens on the first file call (or earlier,
  via ``await store.open()``), inside the loop that serves the runtime.
* The runtime's paths carry no session id (``/session-state/events.jsonl`` for every session), so every
  row is keyed by ``(session_id, path)`` and a provider only ever sees its own session.
* In shared mode the runtime's ``list_sessions``/``get_session_metadata``/``delete_session`` still
  scan the local ``COPILOT_HOME`` and know nothing of the store, and ``create_session`` with an id that
  exists *only in the store* is not refused by the runtime: it starts a fresh conversation and appends a
  second ``session.start`` to the stored log. Ask :meth:`PostgresSessionFiles.has_session` (or the
  catalog) before creating; :meth:`session_ids`, :meth:`delete_session` and :meth:`export_files` are
  the store-side answers.
* The runtime still keeps a local ``session-store.db`` (SQLite) in each server's ``COPILOT_HOME`` with a
  row per session, each turn's prompt and reply, and a full-text index of them. That file is not routed
  through the provider; deleting a session everywhere must also deal with it.

Pool: psycopg's ``AsyncConnectionPool`` in autocommit mode. Every provider call is a coroutine on the
runtime's event loop, so an async pool keeps each file operation to a network round trip with no
thread hop (a sync pool would need ``asyncio.to_thread`` per call, which costs more than the ~0.1 ms
statement on two shared cores). The pool belongs to the event loop that opened it.
"""

import asyncio
import errno
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any, Self

import psycopg
from copilot import CopilotSession
from copilot.session import SessionFsConfig
from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool

from agent_orchestrator.errors import SessionFileStoreError
from agent_orchestrator.sessions.crypto import SessionCipher, frames
from agent_orchestrator.sessions.files.paths import (
    MAX_PATH_BYTES,
    SESSION_STATE_PATH,
    WORKING_DIRECTORY,
    check_session_id,
)
from agent_orchestrator.sessions.files.postgres import provider as provider_module
from agent_orchestrator.sessions.files.postgres.appends import GroupedAppends
from agent_orchestrator.sessions.files.postgres.provider import PostgresSessionFsProvider
from agent_orchestrator.sessions.files.postgres.schema import Tables, ensure_schema
from agent_orchestrator.sessions.store import Write, liveness

MAX_FILE_BYTES = 64 * 1024 * 1024
_SCHEMES = ("postgresql", "postgres")

_ADMIN = {
    "SESSION_IDS": "SELECT DISTINCT session_id FROM {files} ORDER BY session_id",
    "HAS_SESSION": "SELECT EXISTS (SELECT 1 FROM {files} WHERE session_id = %s AND path = %s AND NOT is_dir)",
    "DELETE_SESSION": "DELETE FROM {files} WHERE session_id = %s",
    "LAST_MODIFIED": "SELECT max(mtime) FROM {files} WHERE session_id = %s",
    # A session's files holding clear bytes (base content or a chunk not starting with the frame
    # marker), locked, with their contents: only those are read, so a run over sealed data is cheap.
    "LOCK_CLEAR": """
SELECT f.id, f.content, ARRAY(SELECT c.data FROM {chunks} c WHERE c.file_id = f.id ORDER BY c.seq)
FROM {files} f
WHERE f.session_id = %(sid)s AND NOT f.is_dir AND (
    (length(f.content) > 0 AND substring(f.content FROM 1 FOR %(n)s) <> %(magic)s)
    OR EXISTS (SELECT 1 FROM {chunks} c WHERE c.file_id = f.id
               AND length(c.data) > 0 AND substring(c.data FROM 1 FOR %(n)s) <> %(magic)s))
ORDER BY f.path FOR UPDATE OF f
""",
    "EXPORT": """
SELECT f.path, f.content,
       (SELECT string_agg(c.data, ''::bytea ORDER BY c.seq) FROM {chunks} c WHERE c.file_id = f.id)
FROM {files} f WHERE f.session_id = %s AND NOT f.is_dir ORDER BY f.path
""",
}


def _psycopg_url(url: str) -> str:
    """``url`` as libpq takes it; SQLAlchemy-style ``postgresql+psycopg://`` is accepted too."""
    scheme, sep, rest = url.partition("://")
    base = scheme.split("+", 1)[0]
    if not sep or base not in _SCHEMES:
        raise ValueError(f"Expected a postgresql:// URL for the shared session files, got {scheme}://")
    return f"postgresql://{rest}"


class PostgresSessionFiles:
    """A :class:`~agent_orchestrator.runtime.session_files.SessionFileStore` on PostgreSQL.

    Build it with :meth:`from_url`; ``await open()`` (or ``async with``) creates the tables if needed
    and fills the pool, ``await close()`` releases it. Without ``open()`` the first file access opens
    the pool. Limits: files up to ``max_file_bytes`` (64 MiB; a larger write or append fails with
    ``EFBIG`` and leaves the file as it was), paths up to ``max_path_bytes`` (``ENAMETOOLONG``).
    The built-in ``sql`` tool stays disabled in our sessions, so no ``sqlite_*`` support.
    """

    def __init__(
        self,
        conninfo: str,
        *,
        schema: str | None = None,
        min_size: int = 1,
        max_size: int = 4,
        create_schema: bool = True,
        max_file_bytes: int = MAX_FILE_BYTES,
        max_path_bytes: int = MAX_PATH_BYTES,
        compact_after_chunks: int = provider_module.COMPACT_AFTER_CHUNKS,
        working_directory: str = WORKING_DIRECTORY,
        open_timeout: float = 10.0,
    ) -> None:
        self._conninfo = conninfo
        self._pool_size = (min_size, max_size)
        self.tables = Tables(schema)
        self.statements = provider_module.render_statements(self.tables.render)
        self._admin = {name: self.tables.render(text) for name, text in _ADMIN.items()}
        self.create_schema = create_schema
        self.max_file_bytes = max_file_bytes
        self.max_path_bytes = max_path_bytes
        self.compact_after_chunks = compact_after_chunks
        self.working_directory = working_directory
        self._open_timeout = open_timeout
        self._pool: AsyncConnectionPool | None = None
        self._open_lock: asyncio.Lock | None = None
        self.writer_check: Callable[[str], Awaitable[Write]] | None = None
        self.appends = GroupedAppends(self)
        # Encryption at rest (docs/architecture.md#encryption-at-rest): file contents are sealed with
        # the session's data key; sizes, paths and times stay readable (``stat`` needs no key).
        self.cipher: SessionCipher | None = None

    @classmethod
    def from_url(cls, url: str, *, schema: str | None = None, **options: Any) -> Self:
        """A store on the database at ``url`` (``postgresql://user@host:port/db``); nothing connects
        until :meth:`open` or the first file access. ``schema`` keeps the tables out of ``public``;
        ``options`` are the constructor's (pool ``min_size``/``max_size``, limits, ...)."""
        return cls(_psycopg_url(url), schema=schema, **options)

    # -- lifecycle -------------------------------------------------------------------------------

    async def open(self) -> None:
        """Connect, and create the tables unless ``create_schema=False``; idempotent. A pool belongs to
        the event loop that opened it (psycopg cannot reopen a closed pool, so each open builds one)."""
        if self._pool is not None:
            return
        if self._open_lock is None:
            self._open_lock = asyncio.Lock()
        async with self._open_lock:
            if self._pool is not None:
                return
            min_size, max_size = self._pool_size
            pool = AsyncConnectionPool(
                self._conninfo,
                min_size=min_size,
                max_size=max_size,
                kwargs={"autocommit": True},
                # A restarted PostgreSQL leaves dead connections in the pool: test each one on checkout.
                check=_check_connection,
                open=False,
                name="session-files",
            )
            try:
                await pool.open(wait=True, timeout=self._open_timeout)
                if self.create_schema:
                    async with pool.connection() as conn:
                        await ensure_schema(conn, self.tables)
            except psycopg.Error as error:
                await pool.close()
                raise SessionFileStoreError(
                    errno.EIO, f"The shared session-file store is unavailable: {error}"
                ) from error
            self._pool = pool

    async def close(self) -> None:
        """Release the pool's connections; a later call opens a new pool."""
        await self.appends.wait_idle()
        pool, self._pool = self._pool, None
        self._open_lock = None
        if pool is not None:
            await pool.close()

    async def __aenter__(self) -> Self:
        await self.open()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def ensure_schema(self) -> None:
        """Create the tables (and the named schema) if they are missing; safe to run concurrently."""
        async with self.connection("ensure_schema", "") as conn:
            await ensure_schema(conn, self.tables)

    async def check_writer(self, session_id: str, path: str) -> bool:
        """Fencing: whether to make a write (``False``: drop it, as a stale copy's); refuses (``EACCES``)
        a write from a server whose turn no longer holds the session's lease.

        ``writer_check`` is installed by the session service (it knows which turns this server runs
        and their fencing tokens, and which copies it keeps open between turns). A server that stalled
        past its lease expiry and wakes up to finish its turn would otherwise append to a log another
        server is now writing; a copy kept open between turns that another server has written since
        would append its shutdown record to it (see :class:`~agent_orchestrator.sessions.store.Write`).
        """
        verdict = Write.PASS if self.writer_check is None else await self.writer_check(session_id)
        if verdict is Write.REFUSE:
            raise SessionFileStoreError(
                errno.EACCES, f"Stale writer: this server no longer holds the lease of {session_id} ({path})"
            )
        return verdict is Write.PASS

    @property
    def compact_threshold(self) -> int:
        """Appended chunks after which a file is compacted (sooner when sealed: see the provider)."""
        if self.cipher is None:
            return self.compact_after_chunks
        return min(self.compact_after_chunks, provider_module.SEALED_COMPACT_AFTER_CHUNKS)

    async def seal(self, session_id: str, plaintext: bytes) -> bytes:
        """What to store for ``plaintext``: sealed frames with a cipher, else the bytes themselves."""
        return plaintext if self.cipher is None else await self.cipher.seal(session_id, plaintext)

    async def unseal(self, session_id: str, stored: bytes) -> bytes:
        return stored if self.cipher is None else await self.cipher.unseal(session_id, stored)

    @asynccontextmanager
    async def connection(self, operation: str, path: str) -> AsyncIterator[AsyncConnection]:
        """A pooled autocommit connection; database failures become one clear ``OSError`` (EIO)."""
        if self._pool is None:
            await self.open()
        assert self._pool is not None
        try:
            async with self._pool.connection() as conn:
                yield conn
        except psycopg.Error as error:
            target = f" {path}" if path else ""
            detail = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise SessionFileStoreError(
                errno.EIO, f"Shared session-file store: {operation}{target} failed: {detail}"
            ) from error

    # -- the SessionFileStore protocol -----------------------------------------------------------

    def client_config(self) -> SessionFsConfig:
        """The client's ``session_fs`` option: a virtual POSIX layout, binary reads/writes supported."""
        return {
            "initial_working_directory": self.working_directory,
            "session_state_path": SESSION_STATE_PATH,
            "conventions": "posix",
            "capabilities": {"binary": True},
        }

    def provider_for(self, session: CopilotSession) -> PostgresSessionFsProvider:
        """The provider for one session; synchronous and I/O-free (see the module docstring)."""
        return PostgresSessionFsProvider(self, check_session_id(session.session_id))

    # -- whole sessions --------------------------------------------------------------------------

    async def session_ids(self) -> list[str]:
        """Every session id with at least one stored file or directory, sorted."""
        rows = await self._fetch("session_ids", "SESSION_IDS", ())
        return [row[0] for row in rows]

    async def has_session(self, session_id: str) -> bool:
        """Whether a resume would find the session: its ``events.jsonl`` is stored (the runtime
        answers "Session not found" without it)."""
        events = f"{SESSION_STATE_PATH}/events.jsonl"
        rows = await self._fetch("has_session", "HAS_SESSION", (check_session_id(session_id), events))
        return bool(rows[0][0])

    async def read_events(self, session_id: str) -> bytes | None:
        """The session's ``events.jsonl`` (appended chunks included), or ``None`` if not stored."""
        provider = PostgresSessionFsProvider(self, check_session_id(session_id))
        try:
            return await provider.read_file_bytes(f"{SESSION_STATE_PATH}/events.jsonl")
        except FileNotFoundError:
            return None

    async def write_events(self, session_id: str, events: bytes) -> None:
        """Replace the session's ``events.jsonl`` in one transaction (fenced like any other write)."""
        provider = PostgresSessionFsProvider(self, check_session_id(session_id))
        await provider.write_file_bytes(f"{SESSION_STATE_PATH}/events.jsonl", events)

    async def delete_session(self, session_id: str) -> int:
        """Remove all of a session's files and directories; returns how many entries went."""
        async with self.connection("delete_session", session_id) as conn:
            cur = await conn.execute(self._admin["DELETE_SESSION"], (check_session_id(session_id),))
        if self.cipher is not None:  # crypto-erasure: copies of the files elsewhere stay unreadable
            await self.cipher.destroy(session_id)
        return cur.rowcount

    async def seal_plain(self, session_id: str) -> int:
        """Seal the session's files stored in clear before the master key was set; returns how many
        files it sealed (docs/architecture.md#sealing-existing-sessions). Run it under the session's
        lease. One transaction, with the files' rows locked (an append waits): each file holding clear
        bytes -- in its base content or in any appended chunk, such as a key-less server's appends to
        a file whose base is sealed, or a keyed server's sealed appends to a clear file -- is rewritten
        as one frame of its whole plaintext. Sealed files are left as they are, so it is idempotent."""
        if self.cipher is None:
            raise ValueError("Sealing needs the store's cipher (a master key).")
        session_id = check_session_id(session_id)
        params = {"sid": session_id, "magic": frames.MAGIC, "n": len(frames.MAGIC)}
        async with self.connection("seal_plain", session_id) as conn, conn.transaction():
            cur = await conn.execute(self._admin["LOCK_CLEAR"], params)
            clear = await cur.fetchall()
            for file_id, base, chunks in clear:
                parts = [bytes(base), *(bytes(chunk) for chunk in chunks)]
                plaintext = b"".join([await self.cipher.unseal(session_id, part) for part in parts])
                await conn.execute(
                    self.statements["REWRITE"], (await self.cipher.seal(session_id, plaintext), file_id)
                )
                await conn.execute(self.statements["DROP_CHUNKS"], (file_id,))
        return len(clear)

    async def export_files(self, session_id: str) -> dict[str, bytes]:
        """Every file of the session, path to exact bytes (appended chunks included), sorted by path."""
        rows = await self._fetch("export_files", "EXPORT", (check_session_id(session_id),))
        return {
            path: await self.unseal(session_id, bytes(base) + bytes(tail or b"")) for path, base, tail in rows
        }

    async def last_modified(self, session_id: str) -> datetime | None:
        """The newest ``mtime`` among the session's entries, or ``None`` if nothing is stored."""
        rows = await self._fetch("last_modified", "LAST_MODIFIED", (check_session_id(session_id),))
        return rows[0][0]

    async def _fetch(self, operation: str, statement: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        async with self.connection(operation, "") as conn:
            cur = await conn.execute(self._admin[statement], params)
            return await cur.fetchall()


async def _check_connection(conn: AsyncConnection) -> None:
    """The pool's checkout check, with no round trip unless the server has ended the connection
    (``agent_orchestrator.sessions.store.liveness``); raises if it has."""
    if liveness.surely_alive(conn):
        return
    await AsyncConnectionPool.check_connection(conn)

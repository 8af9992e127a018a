"""One session's files in PostgreSQL: the ``SessionFsProvider`` the SDK calls for every file access.

What the runtime does through it (observed with a recording provider, CLI 1.0.102): on create it
reads ``settings.json``/``workspace.yaml``/``plan.md``/``permissions.json`` (ENOENT is normal),
``mkdir -p`` s ``checkpoints``, ``files``, ``research``, ``temp``, writes ``workspace.yaml`` atomically
as *write a ``.tmp.<uuid>`` file, then rename over the target*, and appends every event to
``events.jsonl`` (two or three appends of 1-2 KB per turn, ``mode=0o600``). On resume it checks
``exists(workspace.yaml)`` and ``exists(events.jsonl)`` -- both missing means "Session not found" --
and reads the whole ``events.jsonl`` once. So: appends must be cheap, reads of the log must be one
query, and rename must replace atomically.

Appends are one statement on the fast path (bump ``size``/``chunks`` on the file row, which also
row-locks it, and insert the chunk), shared with the other sessions' appends that wait meanwhile
(``appends.py``); the rare cases -- file missing, a directory, over the size limit -- fall to a
transaction that finds out which. Concurrent appends to one file are ordered by
that row lock: a chunk's ``seq`` is drawn while the lock is held. ``mode`` is accepted and ignored
(no one reads it back; the store is not a POSIX file system).

Directories are stored explicitly (``mkdir`` and every write create missing parents), so ``readdir``
is an index lookup on ``parent`` and an empty directory exists. ``/`` and the configured working
directory always exist (the runtime ``stat``s its working directory on resume).
"""

import errno
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from copilot.generated.rpc import DebugCollectLogsEntryKind, SessionFSReaddirWithTypesEntry
from copilot.session_fs_provider import SessionFsFileInfo, SessionFsProvider
from psycopg import AsyncConnection

from agent_orchestrator.sessions.files.paths import (
    ROOT,
    ancestors,
    descendant_range,
    fs_error,
    is_below,
    normalize,
    parent_of,
)
from agent_orchestrator.sessions.files.postgres.backend import FileBackend

# Fold appended chunks into the base content once a file has this many: keeps a read of the log one
# short aggregate, at the cost of rewriting the file once per this many appends.
COMPACT_AFTER_CHUNKS = 1024
# Sealed files compact sooner: each chunk is a frame to decrypt on every read (~10 us each), and the
# re-sealing compaction costs one encryption of the file.
SEALED_COMPACT_AFTER_CHUNKS = 64
_EPOCH = datetime.fromtimestamp(0, UTC)

STATEMENTS: dict[str, str] = {
    "READ": """
SELECT f.is_dir, f.content,
       (SELECT string_agg(c.data, ''::bytea ORDER BY c.seq) FROM {chunks} c WHERE c.file_id = f.id)
FROM {files} f WHERE f.session_id = %s AND f.path = %s
""",
    "STAT": "SELECT is_dir, size, mtime, birthtime FROM {files} WHERE session_id = %s AND path = %s",
    "LOCK": "SELECT id, is_dir, size FROM {files} WHERE session_id = %s AND path = %s FOR UPDATE",
    "PARENTS_STATE": "SELECT path, is_dir FROM {files} WHERE session_id = %s AND path = ANY(%s)",
    "MAKE_DIRS": """
INSERT INTO {files} (session_id, path, parent, is_dir)
SELECT %s, p, par, true FROM unnest(%s::text[], %s::text[]) AS u(p, par)
ON CONFLICT (session_id, path) DO NOTHING
""",
    "UPSERT_FILE": """
INSERT INTO {files} AS f (session_id, path, parent, is_dir, content, size)
VALUES (%s, %s, %s, false, %s, %s)
ON CONFLICT (session_id, path) DO UPDATE
    SET content = excluded.content, size = excluded.size, chunks = 0, mtime = now()
    WHERE NOT f.is_dir
RETURNING id
""",
    "CREATE_FILE": """
INSERT INTO {files} (session_id, path, parent, is_dir, content, size) VALUES (%s, %s, %s, false, %s, %s)
ON CONFLICT (session_id, path) DO NOTHING RETURNING id
""",
    "DROP_CHUNKS": "DELETE FROM {chunks} WHERE file_id = %s",
    "APPEND": """
WITH f AS (
    UPDATE {files} SET size = size + %(n)s, chunks = chunks + 1, mtime = now()
    WHERE session_id = %(sid)s AND path = %(path)s AND NOT is_dir AND size + %(n)s <= %(limit)s
    RETURNING id, chunks
)
INSERT INTO {chunks} (file_id, data) SELECT id, %(data)s FROM f RETURNING (SELECT chunks FROM f)
""",
    # Appends to many files at once (``appends.py``): the same two steps per file, numbered in their
    # order in the arrays; those not returned found their file missing, a directory or full.
    "APPEND_MANY": """
WITH a AS (
    SELECT * FROM unnest(%(sids)s::text[], %(paths)s::text[], %(sizes)s::bigint[], %(datas)s::bytea[])
        WITH ORDINALITY AS a(sid, path, n, data, number)
),
f AS (
    UPDATE {files} AS f SET size = f.size + a.n, chunks = f.chunks + 1, mtime = now()
    FROM a
    WHERE f.session_id = a.sid AND f.path = a.path AND NOT f.is_dir AND f.size + a.n <= %(limit)s
    RETURNING f.id, f.chunks, a.number, a.data
),
added AS (INSERT INTO {chunks} (file_id, data) SELECT id, data FROM f)
SELECT number, chunks FROM f
""",
    "COMPACT": """
UPDATE {files} SET chunks = 0, content = content || coalesce(
    (SELECT string_agg(data, ''::bytea ORDER BY seq) FROM {chunks} WHERE file_id = %(id)s), ''::bytea)
WHERE id = %(id)s
""",
    "REWRITE": "UPDATE {files} SET chunks = 0, content = %s WHERE id = %s",
    "CREATE_DIR": "INSERT INTO {files} (session_id, path, parent, is_dir) VALUES (%s, %s, %s, true)",
    "LIST": """
SELECT path, is_dir, path = %(path)s FROM {files}
WHERE session_id = %(sid)s AND (path = %(path)s OR parent = %(path)s) ORDER BY path
""",
    "HAS_CHILD": "SELECT EXISTS (SELECT 1 FROM {files} WHERE session_id = %s AND parent = %s)",
    "DELETE_TREE": """
DELETE FROM {files} WHERE session_id = %s AND (path = %s OR (path > %s AND path < %s))
""",
    "DELETE_ID": "DELETE FROM {files} WHERE id = %s",
    "MOVE_FILE": "UPDATE {files} SET path = %s, parent = %s WHERE id = %s",
    "MOVE_TREE": """
UPDATE {files} SET
    path = %(dest)s || substr(path, %(n)s + 1),
    parent = CASE WHEN path = %(src)s THEN %(dest_parent)s ELSE %(dest)s || substr(parent, %(n)s + 1) END
WHERE session_id = %(sid)s AND (path = %(src)s OR (path > %(low)s AND path < %(high)s))
""",
}


def render_statements(render: Callable[[str], str]) -> dict[str, str]:
    """Every statement of this module with the store's table names (done once per store)."""
    return {name: render(template) for name, template in STATEMENTS.items()}


class PostgresSessionFsProvider(SessionFsProvider):
    """The files of one session (``session_id``), served from the store's PostgreSQL pool.

    Implements the binary methods too (``read_file_bytes``/``write_file_bytes``: content is
    ``bytea``), but not ``SessionFsSqliteProvider``: the runtime routes ``sqlite_*`` calls here only
    for its built-in ``sql`` tool, which our sessions keep disabled (their ``available_tools``
    allow-list never contains it), so the SDK answers those calls with "not supported".
    """

    def __init__(self, store: FileBackend, session_id: str) -> None:
        self._store = store
        self._sql = store.statements
        self.session_id = session_id

    # -- reading ---------------------------------------------------------------------------------

    async def read_file_bytes(self, path: str) -> bytes:
        path = self._path(path)
        async with self._store.connection("read", path) as conn:
            cur = await conn.execute(self._sql["READ"], (self.session_id, path))
            row = await cur.fetchone()
        if row is None:
            raise fs_error(errno.EISDIR if self._implicit_dir(path) else errno.ENOENT, path)
        is_dir, content, appended = row
        if is_dir:
            raise fs_error(errno.EISDIR, path)
        return await self._store.unseal(self.session_id, bytes(content) + bytes(appended or b""))

    async def read_file(self, path: str) -> str:
        # Node's readFile(..., "utf8") replaces invalid sequences the same way.
        return (await self.read_file_bytes(path)).decode("utf-8", errors="replace")

    async def exists(self, path: str) -> bool:
        return await self._stat_row(self._path(path)) is not None

    async def stat(self, path: str) -> SessionFsFileInfo:
        path = self._path(path)
        row = await self._stat_row(path)
        if row is None:
            raise fs_error(errno.ENOENT, path)
        is_dir, size, mtime, birthtime = row
        return SessionFsFileInfo(not is_dir, is_dir, 0 if is_dir else size, mtime, birthtime)

    async def readdir(self, path: str) -> list[str]:
        return [name for name, _ in await self._list(path)]

    async def readdir_with_types(self, path: str) -> Sequence[SessionFSReaddirWithTypesEntry]:
        kinds = {True: DebugCollectLogsEntryKind.DIRECTORY, False: DebugCollectLogsEntryKind.FILE}
        entries = await self._list(path)
        return [SessionFSReaddirWithTypesEntry(name, kinds[is_dir]) for name, is_dir in entries]

    # -- writing ---------------------------------------------------------------------------------

    async def write_file_bytes(self, path: str, content: bytes, mode: int | None = None) -> None:
        path = self._path(path)
        if not await self._store.check_writer(self.session_id, path):
            return
        self._check_size(path, len(content))
        if self._implicit_dir(path):
            raise fs_error(errno.EISDIR, path)
        stored = await self._store.seal(self.session_id, content)  # ``size`` stays the plaintext's
        async with self._store.connection("write", path) as conn, conn.transaction():
            await self._make_parents(conn, path)
            cur = await conn.execute(
                self._sql["UPSERT_FILE"], (self.session_id, path, parent_of(path), stored, len(content))
            )
            row = await cur.fetchone()
            if row is None:
                raise fs_error(errno.EISDIR, path)
            await conn.execute(self._sql["DROP_CHUNKS"], (row[0],))

    async def write_file(self, path: str, content: str, mode: int | None = None) -> None:
        await self.write_file_bytes(path, content.encode("utf-8"), mode)

    async def append_file(self, path: str, content: str, mode: int | None = None) -> None:
        await self.append_file_bytes(path, content.encode("utf-8"))

    async def append_file_bytes(self, path: str, data: bytes) -> None:
        """Append ``data``; in one statement with the appends waiting meanwhile when the file exists (the
        usual case for ``events.jsonl``)."""
        path = self._path(path)
        if not await self._store.check_writer(self.session_id, path):
            return
        self._check_size(path, len(data))
        stored = await self._store.seal(self.session_id, data)  # sealed frames concatenate
        chunks = await self._store.appends.append(self.session_id, path, len(data), stored)
        if chunks is not None and chunks < self._store.compact_threshold:
            return
        params = {"sid": self.session_id, "path": path, "n": len(data), "limit": self._store.max_file_bytes}
        async with self._store.connection("append", path) as conn:
            if chunks is None:
                row = await self._append_slowly(conn, path, stored, params)
                chunks = None if row is None else row[0]
            if chunks is not None and chunks >= self._store.compact_threshold:
                await self._compact(conn, path)

    async def _append_slowly(
        self, conn: AsyncConnection, path: str, data: bytes, params: dict[str, Any]
    ) -> tuple[int] | None:
        """The file is missing, a directory or full: find out which, under the row lock. ``data`` is
        what is stored (sealed or not); ``params["n"]`` its plaintext size."""
        async with conn.transaction():
            cur = await conn.execute(self._sql["LOCK"], (self.session_id, path))
            current = await cur.fetchone()
            if current is None:
                if self._implicit_dir(path):
                    raise fs_error(errno.EISDIR, path)
                await self._make_parents(conn, path)
                args = (self.session_id, path, parent_of(path), data, params["n"])
                cur = await conn.execute(self._sql["CREATE_FILE"], args)
                if await cur.fetchone() is not None:
                    return None
                # Someone created it between our two statements; it is locked-visible now.
                cur = await conn.execute(self._sql["LOCK"], (self.session_id, path))
                current = await cur.fetchone()
                assert current is not None
            _, is_dir, size = current
            if is_dir:
                raise fs_error(errno.EISDIR, path)
            self._check_size(path, size + params["n"])
            cur = await conn.execute(self._sql["APPEND"], {**params, "data": data})
            return await cur.fetchone()

    async def _compact(self, conn: AsyncConnection, path: str) -> None:
        async with conn.transaction():
            cur = await conn.execute(self._sql["LOCK"], (self.session_id, path))
            current = await cur.fetchone()
            if current is None:
                return
            if self._store.cipher is None:
                await conn.execute(self._sql["COMPACT"], {"id": current[0]})
            else:  # one frame for the whole file: a read then decrypts a few frames, not one per append
                cur = await conn.execute(self._sql["READ"], (self.session_id, path))
                row = await cur.fetchone()
                assert row is not None  # locked above
                _, content, appended = row
                whole = await self._store.unseal(self.session_id, bytes(content) + bytes(appended or b""))
                sealed = await self._store.seal(self.session_id, whole)
                await conn.execute(self._sql["REWRITE"], (sealed, current[0]))
            await conn.execute(self._sql["DROP_CHUNKS"], (current[0],))

    async def mkdir(self, path: str, recursive: bool, mode: int | None = None) -> None:
        path = self._path(path)
        if not await self._store.check_writer(self.session_id, path):
            return
        if self._implicit_dir(path):
            if not recursive:
                raise fs_error(errno.EEXIST, path)
            return
        if recursive and (existing := await self._stat_row(path)) is not None and existing[0]:
            # The runtime runs ``mkdir -p`` on its folders at every create and resume. Answer from a
            # plain read: the locking path below makes a row lock, hence a commit that waits for WAL.
            return
        async with self._store.connection("mkdir", path) as conn, conn.transaction():
            cur = await conn.execute(self._sql["LOCK"], (self.session_id, path))
            current = await cur.fetchone()
            if current is not None:
                if recursive and current[1]:
                    return
                raise fs_error(errno.EEXIST, path)
            if recursive:
                await self._make_parents(conn, path)
            else:
                await self._require_parent(conn, path)
            await conn.execute(self._sql["CREATE_DIR"], (self.session_id, path, parent_of(path)))

    async def rm(self, path: str, recursive: bool, force: bool) -> None:
        path = self._path(path)
        if not await self._store.check_writer(self.session_id, path):
            return
        if path == ROOT:
            raise fs_error(errno.EPERM, path, "refusing to remove a session's root")
        async with self._store.connection("rm", path) as conn, conn.transaction():
            cur = await conn.execute(self._sql["LOCK"], (self.session_id, path))
            current = await cur.fetchone()
            if current is None and not self._implicit_dir(path):
                if force:
                    return
                raise fs_error(errno.ENOENT, path)
            if current is not None and not current[1]:
                await conn.execute(self._sql["DELETE_ID"], (current[0],))
                return
            if not recursive:
                cur = await conn.execute(self._sql["HAS_CHILD"], (self.session_id, path))
                if (await cur.fetchone())[0]:  # type: ignore[index]
                    raise fs_error(errno.ENOTEMPTY, path)
            await conn.execute(self._sql["DELETE_TREE"], (self.session_id, path, *descendant_range(path)))

    async def rename(self, src: str, dest: str) -> None:
        """Move a file or directory within this session, atomically; an existing destination file (or
        empty directory) is replaced, as ``rename(2)`` does -- the runtime's atomic-write pattern."""
        src, dest = self._path(src), self._path(dest)
        if not await self._store.check_writer(self.session_id, dest):
            return
        if src == ROOT or self._implicit_dir(src):
            raise fs_error(errno.EBUSY, src, "cannot move a session's root or working directory")
        if is_below(dest, src):
            raise fs_error(errno.EINVAL, dest, f"cannot move {src} into itself")
        async with self._store.connection("rename", src) as conn, conn.transaction():
            cur = await conn.execute(self._sql["LOCK"], (self.session_id, src))
            moving = await cur.fetchone()
            if moving is None:
                raise fs_error(errno.ENOENT, src)
            if src == dest:
                return
            cur = await conn.execute(self._sql["LOCK"], (self.session_id, dest))
            target = await cur.fetchone()
            if self._implicit_dir(dest) and target is None:
                raise fs_error(errno.EISDIR if not moving[1] else errno.EBUSY, dest)
            if target is not None:
                await self._clear_target(conn, moving[1], target, dest)
            await self._make_parents(conn, dest)
            if not moving[1]:
                await conn.execute(self._sql["MOVE_FILE"], (dest, parent_of(dest), moving[0]))
                return
            low, high = descendant_range(src)
            await conn.execute(
                self._sql["MOVE_TREE"],
                {
                    "sid": self.session_id,
                    "src": src,
                    "dest": dest,
                    "dest_parent": parent_of(dest),
                    "n": len(src),
                    "low": low,
                    "high": high,
                },
            )

    async def _clear_target(
        self, conn: AsyncConnection, moving_dir: bool, target: tuple[int, bool, int], dest: str
    ) -> None:
        target_id, target_dir, _ = target
        if not moving_dir and target_dir:
            raise fs_error(errno.EISDIR, dest)
        if moving_dir and not target_dir:
            raise fs_error(errno.ENOTDIR, dest)
        if target_dir:
            cur = await conn.execute(self._sql["HAS_CHILD"], (self.session_id, dest))
            if (await cur.fetchone())[0]:  # type: ignore[index]
                raise fs_error(errno.ENOTEMPTY, dest)
        await conn.execute(self._sql["DELETE_ID"], (target_id,))

    # -- helpers ---------------------------------------------------------------------------------

    def _path(self, path: str) -> str:
        return normalize(path, max_bytes=self._store.max_path_bytes)

    def _implicit_dir(self, path: str) -> bool:
        return path == ROOT or path == self._store.working_directory

    def _check_size(self, path: str, size: int) -> None:
        limit = self._store.max_file_bytes
        if size > limit:
            raise fs_error(errno.EFBIG, path, f"{size} bytes, the shared store's limit is {limit}")

    async def _stat_row(self, path: str) -> tuple[bool, int, datetime, datetime] | None:
        async with self._store.connection("stat", path) as conn:
            cur = await conn.execute(self._sql["STAT"], (self.session_id, path))
            row = await cur.fetchone()
        if row is None and self._implicit_dir(path):
            return True, 0, _EPOCH, _EPOCH
        return row

    async def _list(self, path: str) -> list[tuple[str, bool]]:
        path = self._path(path)
        async with self._store.connection("readdir", path) as conn:
            cur = await conn.execute(self._sql["LIST"], {"sid": self.session_id, "path": path})
            rows = await cur.fetchall()
        itself = [is_dir for _, is_dir, is_self in rows if is_self]
        if not itself and not self._implicit_dir(path):
            raise fs_error(errno.ENOENT, path)
        if itself and not itself[0]:
            raise fs_error(errno.ENOTDIR, path)
        return [(entry.rsplit("/", 1)[-1], is_dir) for entry, is_dir, is_self in rows if not is_self]

    async def _make_parents(self, conn: AsyncConnection, path: str) -> None:
        """Create the missing directories above ``path``; a file in the way is ENOTDIR."""
        needed = [p for p in ancestors(path) if not self._implicit_dir(p)]
        if not needed:
            return
        cur = await conn.execute(self._sql["PARENTS_STATE"], (self.session_id, needed))
        found: dict[str, bool] = dict(await cur.fetchall())  # path -> is_dir
        if blocked := [p for p, is_dir in found.items() if not is_dir]:
            raise fs_error(errno.ENOTDIR, path, f"{min(blocked)} is a file")
        if missing := [p for p in needed if p not in found]:
            await conn.execute(
                self._sql["MAKE_DIRS"], (self.session_id, missing, [parent_of(p) for p in missing])
            )

    async def _require_parent(self, conn: AsyncConnection, path: str) -> None:
        parent = parent_of(path)
        if self._implicit_dir(parent):
            return
        cur = await conn.execute(self._sql["PARENTS_STATE"], (self.session_id, [parent]))
        row = await cur.fetchone()
        if row is None:
            raise fs_error(errno.ENOENT, path, f"{parent} does not exist")
        if not row[1]:
            raise fs_error(errno.ENOTDIR, path, f"{parent} is a file")

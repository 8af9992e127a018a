"""The two tables behind the shared session files, created idempotently.

* ``session_fs_files``: one row per file *or* directory, keyed by ``(session_id, path)``. A file's
  ``content`` holds its base bytes; ``size`` and ``mtime`` are kept current on every append so
  ``stat`` never reads content. ``path``/``parent`` use the ``"C"`` collation so "everything below a
  directory" is a byte range on the primary index (``rm -r``, directory rename). The table's
  fillfactor leaves room for HOT updates: every append rewrites this small row.
* ``session_fs_chunks``: appended pieces, in ``seq`` order after the base content. ``events.jsonl`` is
  append-only and is appended to several times per turn; ``content || $1`` would rewrite (and
  re-TOAST) the whole log on each append, O(n²) over a session. Chunks are folded back into
  ``content`` now and then (see ``provider.COMPACT_AFTER_CHUNKS``).

This module is self-contained on purpose; it could later become one step of the versioned migrations
in ``sessions/store/``. ``CREATE ... IF NOT EXISTS`` alone is not safe when several servers start at
once (two concurrent creates of one table can fail on the catalog's unique index), hence the
transaction-scoped advisory lock.
"""

from dataclasses import dataclass

from psycopg import AsyncConnection, sql

FILES_TABLE = "session_fs_files"
CHUNKS_TABLE = "session_fs_chunks"
# Any constant works as long as nobody else uses it and every server uses the same one (hashed by the
# server). It is this module's name from before it moved: servers of both versions take one lock.
_LOCK_KEY = "agent_orchestrator.sessions.shared_files.schema"

_DDL = """
CREATE TABLE IF NOT EXISTS {files} (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    session_id text COLLATE "C" NOT NULL,
    path       text COLLATE "C" NOT NULL,
    parent     text COLLATE "C" NOT NULL,
    is_dir     boolean NOT NULL,
    content    bytea NOT NULL DEFAULT ''::bytea,
    size       bigint NOT NULL DEFAULT 0,
    chunks     integer NOT NULL DEFAULT 0,
    birthtime  timestamptz NOT NULL DEFAULT now(),
    mtime      timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT {files_key} UNIQUE (session_id, path)
) WITH (fillfactor = 80);
CREATE INDEX IF NOT EXISTS {parent_index} ON {files} (session_id, parent);
CREATE TABLE IF NOT EXISTS {chunks} (
    file_id bigint NOT NULL REFERENCES {files} (id) ON DELETE CASCADE,
    seq     bigint GENERATED ALWAYS AS IDENTITY,
    data    bytea NOT NULL,
    PRIMARY KEY (file_id, seq)
);
"""


@dataclass(frozen=True)
class Tables:
    """Qualified table names; :meth:`render` turns a ``{files}``/``{chunks}`` template into SQL text."""

    schema: str | None = None

    def _name(self, table: str) -> sql.Identifier:
        return sql.Identifier(self.schema, table) if self.schema else sql.Identifier(table)

    def render(self, template: str) -> str:
        """SQL text with the table names filled in (rendered once, so the hot path reuses strings
        and psycopg can prepare them)."""
        return (
            sql.SQL(template)
            .format(
                files=self._name(FILES_TABLE),
                chunks=self._name(CHUNKS_TABLE),
                files_key=sql.Identifier(f"{FILES_TABLE}_key"),
                parent_index=sql.Identifier(f"{FILES_TABLE}_parent_idx"),
            )
            .as_string(None)
        )


async def ensure_schema(conn: AsyncConnection, tables: Tables) -> None:
    """Create the schema (if one was named) and both tables; safe to run from many servers at once."""
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (_LOCK_KEY,))
        if tables.schema:
            create = sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(tables.schema))
            await conn.execute(create)
        await conn.execute(tables.render(_DDL))

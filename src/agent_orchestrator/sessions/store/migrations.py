"""Schema migrations with Alembic: the revision scripts ship in this package (``alembic/versions``) and
:func:`migrate` runs them at start-up.

Why versioned steps and not ``create_all``: deployed databases must move forward step by step, in the
same order everywhere, and a step that has run must never run again. Each revision keeps its own
frozen DDL (it does not import the live table objects from ``schema.py``), so later edits cannot
rewrite what an old step did. Add revisions (``uv run alembic revision -m "..."``); never edit
applied ones. Migrations only go forward.

Several app servers may start at once against one database, so every run happens inside
:func:`migration_transaction`, which serialises them:

* PostgreSQL: ``pg_advisory_xact_lock`` keyed by the current schema, held until the migrating
  transaction commits. DDL is transactional there, so a failed step leaves nothing half-applied.
* SQLite: ``BEGIN IMMEDIATE`` takes the database write lock up front; a second process waits
  (``busy_timeout``) and then finds the steps already recorded.

Within one process, runs also take turns on a thread lock: Alembic's ``context`` and ``op`` are
process-wide proxies, so two threads running Alembic at once would share (and tear down) one another's.
The common case (nothing to do) takes no lock at all.

Databases created before Alembic recorded their steps by name in ``schema_migrations``; the revision
ids are those same names, so the first run under the lock stamps ``alembic_version`` with the last
recorded step and carries on from there. ``schema_migrations`` is left as it was, never written again:
a server of the previous release restarted during a rolling upgrade still finds its steps applied.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, inspect, text

from agent_orchestrator.sessions.store.engine import write_transaction

SCRIPT_LOCATION = "agent_orchestrator.sessions.store:alembic"
VERSION_TABLE = "alembic_version"
LEGACY_VERSION_TABLE = "schema_migrations"
# First half of the two-int advisory lock key ("SE55" for session store); the second is the schema.
# The same key as the earlier runner's, so a server of either release waits for the other.
_PG_LOCK_CLASS = 0x5E55
_ONE_RUN_PER_PROCESS = threading.Lock()


def alembic_config(engine: Engine | None = None, applied: list[str] | None = None) -> Config:
    """Alembic's configuration for the store, without an ini file. ``engine`` is the database to
    migrate (``env.py`` otherwise takes the app's own from the environment); revisions that an
    upgrade applies are appended to ``applied``."""
    config = Config(attributes={"engine": engine, "applied": applied})
    config.set_main_option("script_location", SCRIPT_LOCATION)
    return config


@functools.cache
def _script() -> ScriptDirectory:
    return ScriptDirectory.from_config(alembic_config())


@functools.cache
def migration_names() -> tuple[str, ...]:
    """Every revision, oldest first."""
    return tuple(reversed([revision.revision for revision in _script().walk_revisions()]))


def applied_migrations(engine: Engine) -> list[str]:
    """The revisions applied to the database at ``engine``, oldest first (from the earlier runner's
    records if Alembic has not adopted it yet)."""
    with engine.connect() as conn:
        current = _current_revision(conn)
        if current is None:
            current = _legacy_revision(conn)
    return _up_to(current)


def migrate(engine: Engine, *, target: str | None = None) -> list[str]:
    """Apply the pending revisions (up to and including ``target`` if given); return the ids applied
    by this call (``[]`` if none).

    Idempotent, and safe to call from several threads, processes or servers at the same time.
    """
    names = migration_names()
    if target is not None and target not in names:
        raise ValueError(f"Unknown migration {target!r}")
    destination = target or names[-1]
    with engine.connect() as conn:
        if destination in _up_to(_current_revision(conn)):
            return []
    applied: list[str] = []
    with _ONE_RUN_PER_PROCESS:
        command.upgrade(alembic_config(engine, applied), destination)
    return applied


@contextmanager
def migration_transaction(engine: Engine) -> Iterator[Connection]:
    """The one transaction a migration run uses: it holds the migration lock (see the module
    docstring) and has adopted a database of the earlier runner. Commits on success."""
    with write_transaction(engine) as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text(f"SELECT pg_advisory_xact_lock({_PG_LOCK_CLASS}, hashtext(current_schema()))"))
        _adopt_legacy(conn)
        yield conn


def _migration_context(conn: Connection) -> MigrationContext:
    return MigrationContext.configure(conn, opts={"version_table": VERSION_TABLE})


def _current_revision(conn: Connection) -> str | None:
    heads = _migration_context(conn).get_current_heads()
    return heads[0] if heads else None  # one line of history: never more than one head


def _legacy_revision(conn: Connection) -> str | None:
    """The last step the earlier runner recorded, if it ever ran here."""
    if not inspect(conn).has_table(LEGACY_VERSION_TABLE):
        return None
    recorded = set(conn.scalars(text(f"SELECT name FROM {LEGACY_VERSION_TABLE}")))
    known = [name for name in migration_names() if name in recorded]
    return known[-1] if known else None


def _adopt_legacy(conn: Connection) -> None:
    """Stamp a database of the earlier runner with the revision of its last recorded step."""
    if _current_revision(conn) is not None:
        return
    legacy = _legacy_revision(conn)
    if legacy is not None:
        _migration_context(conn).stamp(_script(), legacy)


def _up_to(revision: str | None) -> list[str]:
    """The revisions up to and including ``revision``. One this release does not know was written by
    a newer one: revisions are additive, so everything here counts as applied and an older server
    keeps working."""
    names = list(migration_names())
    if revision is None:
        return []
    if revision not in names:
        return names
    return names[: names.index(revision) + 1]

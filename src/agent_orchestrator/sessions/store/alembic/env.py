"""Alembic's environment for the session store: where a migration run gets its connection.

Every run -- the app's start-up (:func:`~agent_orchestrator.sessions.store.migrations.migrate`) or the
``alembic`` command line -- happens inside :func:`~agent_orchestrator.sessions.store.migrations.
migration_transaction`: one transaction holding the store's migration lock, so that servers starting
together migrate exactly once, and in which a database of the earlier, hand-written runner is adopted
(stamped) before anything else runs. The app passes its engine in ``config.attributes``; the command
line gets the database the app would use (``DATABASE_URL``, else SQLite in ``AGENT_ORCHESTRATOR_HOME``).
"""

from collections.abc import Collection, Mapping
from typing import Any

from alembic import context
from alembic.runtime.migration import MigrationContext, MigrationInfo
from sqlalchemy import Column, Engine, String

from agent_orchestrator.sessions.store.engine import make_engine
from agent_orchestrator.sessions.store.migrations import VERSION_TABLE, migration_transaction
from agent_orchestrator.sessions.store.schema import NATIVE_SEARCH_NAMES, metadata
from agent_orchestrator.settings import load_settings


def _engine_from_environment() -> Engine:
    return make_engine(load_settings().database_url)


def _not_native_search(name: str | None, type_: Any, parent_names: Any) -> bool:
    """Leave the backends' own full-text objects (FTS5 tables, the tsvector column) out of the
    comparison with ``schema.metadata``, which cannot describe them."""
    return name not in NATIVE_SEARCH_NAMES


def _compare_type(
    ctx: MigrationContext, inspected: Column[Any], metadata: Column[Any], found: Any, declared: Any
) -> bool | None:
    """SQLite stores text alike whatever length or text type a column declares, and cannot change a
    declared type in place (a table rebuild would cascade deletes): only PostgreSQL, which enforces
    them, compares them. Alembic's own comparison otherwise (``None``)."""
    if ctx.dialect.name == "sqlite" and isinstance(found, String) and isinstance(declared, String):
        return False
    return None


def _run(engine: Engine) -> None:
    applied: list[str] | None = context.config.attributes.get("applied")

    def record(
        ctx: MigrationContext, step: MigrationInfo, heads: Collection[Any], run_args: Mapping[str, Any]
    ) -> None:
        """Alembic's per-step hook (it passes these four by keyword): note each revision applied."""
        revision = step.up_revision_id  # None only for a step down to the base
        if applied is not None and step.is_upgrade and not step.is_stamp and revision is not None:
            applied.append(revision)

    with migration_transaction(engine) as conn:
        context.configure(
            connection=conn,
            target_metadata=metadata,
            version_table=VERSION_TABLE,
            on_version_apply=record,
            include_name=_not_native_search,
            compare_type=_compare_type,
        )
        with context.begin_transaction():  # ours is already open: Alembic joins it
            context.run_migrations()


if context.is_offline_mode():
    raise SystemExit("The session store's migrations run against a database; --sql is not supported.")
given: Engine | None = context.config.attributes.get("engine")
if given is not None:
    _run(given)
else:
    own = _engine_from_environment()
    try:
        _run(own)
    finally:
        own.dispose()

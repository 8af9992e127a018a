"""Shared helpers for the session store tests: fresh databases on each backend, schema snapshots.

PostgreSQL is the machine's server at 127.0.0.1:5432 (trust auth, database ``test``, user ``postgres``;
``TEST_POSTGRES_URL`` overrides). Every database handed out is a fresh schema, selected through the
connection's ``search_path`` and named in ``application_name`` so a test can find (and kill) exactly its
own backends; it is dropped afterwards, so parallel runs never collide.
"""

from __future__ import annotations

import functools
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy import Engine, inspect
from sqlalchemy.engine import make_url

from agent_orchestrator.sessions.store import make_engine

POSTGRES_URL = os.environ.get("TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@dataclass
class StoreDb:
    backend: str
    url: str
    schema: str | None = None  # PostgreSQL only

    def engine(self) -> Engine:
        return make_engine(self.url)


def _libpq_conninfo() -> str:
    return make_url(POSTGRES_URL).set(drivername="postgresql").render_as_string(hide_password=False)


@functools.cache
def _postgres_problem() -> str | None:
    try:
        psycopg.connect(_libpq_conninfo(), connect_timeout=3).close()
    except psycopg.Error as error:
        return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return None


def postgres_required() -> bool:
    return os.environ.get("CI") == "true" or os.environ.get("REQUIRE_POSTGRES") == "1"


def unreachable_message() -> str | None:
    """The one-line notice, if the server was tried and is unreachable."""
    if _postgres_problem.cache_info().currsize == 0 or (problem := _postgres_problem()) is None:
        return None
    return f"PostgreSQL at {make_url(POSTGRES_URL).render_as_string()} unreachable ({problem})"


def require_postgres() -> None:
    """Skip (or fail, when ``CI=true`` or ``REQUIRE_POSTGRES=1``) if the server is unreachable."""
    if _postgres_problem() is None:
        return
    if postgres_required():
        pytest.fail(f"{unreachable_message()}; CI/REQUIRE_POSTGRES needs it", pytrace=False)
    pytest.skip("PostgreSQL unreachable")


def pg_admin(sql: str, params: Any = None) -> list[tuple[Any, ...]]:
    with psycopg.connect(_libpq_conninfo(), autocommit=True) as conn:
        cursor = conn.execute(sql, params)
        return cursor.fetchall() if cursor.description else []


def terminate_backends(db: StoreDb) -> int:
    """Kill every server connection of ``db``'s schema (like a PostgreSQL restart would)."""
    rows = pg_admin(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s", (db.schema,)
    )
    return len(rows)


@contextmanager
def fresh_db(backend: str, tmp_path: Path) -> Iterator[StoreDb]:
    """A blank (unmigrated) database on ``backend``."""
    if backend == "sqlite":
        yield StoreDb("sqlite", f"sqlite:///{tmp_path / 'store' / 'catalog.sqlite'}")
        return
    require_postgres()
    schema = f"t_{secrets.token_hex(6)}"
    pg_admin(f'CREATE SCHEMA "{schema}"')
    url = make_url(POSTGRES_URL).update_query_dict(
        {"options": f"-csearch_path={schema}", "application_name": schema}
    )
    try:
        yield StoreDb("postgres", url.render_as_string(hide_password=False), schema)
    finally:
        terminate_backends(StoreDb("postgres", "", schema))
        pg_admin(f'DROP SCHEMA "{schema}" CASCADE')


def describe_schema(engine: Engine) -> dict[str, Any]:
    """Tables with their columns (name, nullable), primary key, foreign keys and indexes (name, unique)."""
    inspector = inspect(engine)
    described: dict[str, Any] = {}
    for table in sorted(inspector.get_table_names()):
        described[table] = {
            "columns": [(c["name"], c["nullable"]) for c in inspector.get_columns(table)],
            "primary_key": inspector.get_pk_constraint(table)["constrained_columns"],
            "foreign_keys": sorted(
                (tuple(fk["constrained_columns"]), fk["referred_table"], fk["options"].get("ondelete"))
                for fk in inspector.get_foreign_keys(table)
            ),
            "indexes": indexes(engine, table),
        }
    return described


def indexes(engine: Engine, table: str) -> list[tuple[str, bool]]:
    """(name, unique) of the indexes created for ``table``, besides its primary key.

    On SQLite, asked of SQLite itself: SQLAlchemy's reflection skips expression indexes there.
    """
    if engine.dialect.name == "sqlite":
        with engine.connect() as conn:
            rows = conn.exec_driver_sql(f'PRAGMA index_list("{table}")').all()
        return sorted((row.name, bool(row.unique)) for row in rows if row.origin == "c")
    return sorted((ix["name"], bool(ix["unique"])) for ix in inspect(engine).get_indexes(table))

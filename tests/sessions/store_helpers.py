"""Helpers for the tests on the session store: fresh databases on each backend, schema snapshots.

PostgreSQL databases are fresh schemas from the suite's ``postgres_schema`` fixture
(:mod:`agent_orchestrator.testing.postgres`): selected through the connection's ``search_path``,
named in ``application_name`` so a test can find (and kill) exactly its own backends, and dropped
afterwards, so parallel runs never collide.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, inspect

from agent_orchestrator.sessions.store import make_engine
from agent_orchestrator.sessions.store.schema import NATIVE_SEARCH_NAMES
from agent_orchestrator.testing.postgres import FreshSchema, terminate_connections

BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@dataclass
class StoreDb:
    backend: str
    url: str
    schema: str | None = None  # PostgreSQL only

    def engine(self) -> Engine:
        return make_engine(self.url)


def terminate_backends(db: StoreDb) -> int:
    """Kill every server connection of ``db``'s schema (like a PostgreSQL restart would)."""
    assert db.schema is not None, "only a PostgreSQL database has backends to kill"
    return terminate_connections(db.schema)


def sqlite_db(tmp_path: Path) -> StoreDb:
    return StoreDb("sqlite", f"sqlite:///{tmp_path / 'store' / 'catalog.sqlite'}")


def postgres_db(schema: FreshSchema) -> StoreDb:
    return StoreDb("postgres", schema.sqlalchemy_url, schema.name)


def fresh_db(request: pytest.FixtureRequest, tmp_path: Path) -> StoreDb:
    """A blank (unmigrated) database on the backend ``request.param`` names; a PostgreSQL one is the
    test's ``postgres_schema`` (skipped, or failed under CI, when the server is unreachable)."""
    if request.param == "sqlite":
        return sqlite_db(tmp_path)
    return postgres_db(request.getfixturevalue("postgres_schema"))


def describe_schema(engine: Engine) -> dict[str, Any]:
    """Tables with their columns (name, nullable), primary key, foreign keys and indexes (name, unique),
    without the backends' own full-text objects (``NATIVE_SEARCH_NAMES``)."""
    inspector = inspect(engine)
    described: dict[str, Any] = {}
    for table in sorted(set(inspector.get_table_names()) - NATIVE_SEARCH_NAMES):
        described[table] = {
            "columns": columns(engine, table),
            "primary_key": inspector.get_pk_constraint(table)["constrained_columns"],
            "foreign_keys": sorted(
                (tuple(fk["constrained_columns"]), fk["referred_table"], fk["options"].get("ondelete"))
                for fk in inspector.get_foreign_keys(table)
            ),
            "indexes": indexes(engine, table),
        }
    return described


def columns(engine: Engine, table: str) -> list[tuple[str, bool]]:
    """(name, nullable) of the table's columns, without the native full-text column (``tsv``)."""
    reflected = inspect(engine).get_columns(table)
    return [(c["name"], c["nullable"]) for c in reflected if c["name"] not in NATIVE_SEARCH_NAMES]


def indexes(engine: Engine, table: str) -> list[tuple[str, bool]]:
    """(name, unique) of the indexes created for ``table``, besides its primary key.

    On SQLite, asked of SQLite itself: SQLAlchemy's reflection skips expression indexes there.
    """
    if engine.dialect.name == "sqlite":
        with engine.connect() as conn:
            rows = conn.exec_driver_sql(f'PRAGMA index_list("{table}")').all()
        return sorted((row.name, bool(row.unique)) for row in rows if row.origin == "c")
    found = inspect(engine).get_indexes(table)
    return sorted((ix["name"], bool(ix["unique"])) for ix in found if ix["name"] not in NATIVE_SEARCH_NAMES)

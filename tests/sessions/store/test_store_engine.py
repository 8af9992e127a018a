"""Engines: the URL from the environment, SQLite settings, and surviving a PostgreSQL connection drop."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy import Engine, event, text
from store_helpers import postgres_db, terminate_backends

from agent_orchestrator.sessions.store import SessionCatalog, make_engine, migrate
from agent_orchestrator.sessions.store.engine import PG_POOL_SIZE, read_connection
from agent_orchestrator.settings import load_settings
from agent_orchestrator.testing.postgres import FreshSchema


def test_database_url_defaults_to_sqlite_in_the_data_dir(tmp_path: Path) -> None:
    settings = load_settings({"AGENT_ORCHESTRATOR_HOME": str(tmp_path)})
    assert settings.database_url == f"sqlite:///{tmp_path}/catalog.sqlite"


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("postgresql://u:p@db:5432/app", "postgresql+psycopg://u:p@db:5432/app"),
        ("postgres://u@db/app", "postgresql+psycopg://u@db/app"),
        ("postgresql+psycopg://u@db/app", "postgresql+psycopg://u@db/app"),
        ("sqlite:////srv/catalog.sqlite", "sqlite:////srv/catalog.sqlite"),
    ],
)
def test_database_url_from_the_environment_points_postgres_at_psycopg(given: str, expected: str) -> None:
    assert load_settings({"DATABASE_URL": given}).database_url == expected


def test_sqlite_engine_creates_its_directory_and_sets_wal_busy_timeout_and_foreign_keys(
    tmp_path: Path,
) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'deep' / 'er' / 'catalog.sqlite'}")
    try:
        with engine.connect() as conn:
            assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
            assert conn.execute(text("PRAGMA foreign_keys")).scalar() == 1
            assert conn.execute(text("PRAGMA busy_timeout")).scalar() >= 5000
        assert (tmp_path / "deep" / "er" / "catalog.sqlite").exists()
    finally:
        engine.dispose()


@pytest.mark.parametrize(
    "url", ["sqlite://", "sqlite:///:memory:", "mysql://u@h/db", "postgresql+psycopg2://u@h/db"]
)
def test_unsupported_urls_are_refused(url: str) -> None:
    with pytest.raises(ValueError):
        make_engine(url)


def test_postgres_engine_is_pooled() -> None:
    engine = make_engine("postgresql+psycopg://u@localhost/db")  # no connection made
    assert engine.pool.size() == PG_POOL_SIZE  # type: ignore[attr-defined]


@pytest.mark.postgres
async def test_a_busy_server_keeps_its_postgres_connections(postgres_schema: FreshSchema) -> None:
    """The app runs every store call on asyncio's default executor: with a pooled connection per
    thread of it, calls as many at once as it runs never open a connection beyond the first few."""
    engine = make_engine(postgres_schema.sqlalchemy_url)
    opened: list[object] = []
    event.listen(engine, "connect", lambda *_: opened.append(None))

    def read() -> None:
        with read_connection(engine) as conn:
            conn.execute(text("SELECT pg_sleep(0.005)"))

    try:
        for _ in range(5):
            await asyncio.gather(*(asyncio.to_thread(read) for _ in range(40)))
        assert len(opened) <= PG_POOL_SIZE
    finally:
        engine.dispose()


@pytest.mark.postgres
def test_a_dropped_postgres_connection_is_survived(postgres_schema: FreshSchema) -> None:
    """A PostgreSQL restart kills every backend; the pool's checkout check swaps the dead connections."""
    db = postgres_db(postgres_schema)
    engine: Engine = db.engine()
    try:
        migrate(engine)
        catalog = SessionCatalog(engine)
        assert catalog.get("sess-1") is None  # a pooled connection now exists
        assert terminate_backends(db) >= 1
        assert catalog.get("sess-1") is None
        assert catalog.list_for_owner(1).items == ()
    finally:
        engine.dispose()

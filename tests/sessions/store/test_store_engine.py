"""Engines: the URL from the environment, SQLite settings, and surviving a PostgreSQL connection drop."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine, text
from store_helpers import fresh_db, terminate_backends

from agent_orchestrator.sessions.store import SessionCatalog, database_url_from_env, make_engine, migrate


def test_database_url_defaults_to_sqlite_in_the_data_dir(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    assert database_url_from_env(tmp_path) == f"sqlite:///{tmp_path}/catalog.sqlite"


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("postgresql://u:p@db:5432/app", "postgresql+psycopg://u:p@db:5432/app"),
        ("postgres://u@db/app", "postgresql+psycopg://u@db/app"),
        ("postgresql+psycopg://u@db/app", "postgresql+psycopg://u@db/app"),
        ("sqlite:////srv/catalog.sqlite", "sqlite:////srv/catalog.sqlite"),
    ],
)
def test_database_url_from_env_points_postgres_at_psycopg(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, given: str, expected: str
) -> None:
    monkeypatch.setenv("DATABASE_URL", given)
    assert database_url_from_env(tmp_path) == expected


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


def test_postgres_engine_is_pooled_with_pre_ping() -> None:
    engine = make_engine("postgresql+psycopg://u@localhost/db")  # no connection made
    assert engine.pool._pre_ping  # type: ignore[attr-defined]
    assert engine.pool.size() == 5  # type: ignore[attr-defined]


@pytest.mark.postgres
def test_a_dropped_postgres_connection_is_survived(tmp_path: Path) -> None:
    """A PostgreSQL restart kills every backend; the pool's pre-ping swaps the dead connections."""
    with fresh_db("postgres", tmp_path) as db:
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

"""Fixtures for the tests of what stands on the session store (the store itself, search, the live
feed), each such test on SQLite and on PostgreSQL; and a key store for those of encryption at rest
(crypto, the sealed session files)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from argon2 import PasswordHasher
from sqlalchemy import Engine
from store_helpers import BACKENDS, StoreDb, fresh_db

from agent_orchestrator.sessions.crypto import MasterKeys, SessionKeys
from agent_orchestrator.sessions.store import UserStore, make_engine, migrate


@pytest.fixture(params=BACKENDS)
def blank_db(request: pytest.FixtureRequest, tmp_path: Path) -> StoreDb:
    """A fresh, unmigrated database (SQLite file or PostgreSQL schema)."""
    return fresh_db(request, tmp_path)


@pytest.fixture(params=BACKENDS)
def store_db(request: pytest.FixtureRequest, tmp_path: Path) -> StoreDb:
    """A fresh, migrated database; open more engines on it with ``store_db.engine()``."""
    db = fresh_db(request, tmp_path)
    engine = db.engine()
    migrate(engine)
    engine.dispose()
    return db


@pytest.fixture
def store_engine(store_db: StoreDb) -> Iterator[Engine]:
    """An engine on a fresh, migrated database; the suite's one backend-parametrized entry point."""
    engine = store_db.engine()
    yield engine
    engine.dispose()


@pytest.fixture(scope="session")
def fast_hasher() -> PasswordHasher:
    """argon2id with tiny costs: the same code path, a fraction of the time on two shared cores."""
    return PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)


@pytest.fixture
def user_store(store_engine: Engine, fast_hasher: PasswordHasher) -> UserStore:
    return UserStore(store_engine, hasher=fast_hasher)


@pytest.fixture
def keys(tmp_path: Path) -> Iterator[SessionKeys]:
    """A key store (SQLite, a fresh master key)."""
    keys = SessionKeys(
        make_engine(f"sqlite:///{tmp_path / 'keys.sqlite'}"), MasterKeys.from_text(MasterKeys.generate())
    )
    keys.ensure_table()
    yield keys
    keys.close()

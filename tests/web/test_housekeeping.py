"""Expired logins go from the store on their own: when a server starts, and periodically while it runs."""

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from argon2 import PasswordHasher
from sqlalchemy import Engine, select

from agent_orchestrator.background_server import BackgroundServer
from agent_orchestrator.runtime import RuntimeSettings
from agent_orchestrator.sessions.store import User, UserStore, make_engine, migrate
from agent_orchestrator.sessions.store.schema import logins
from agent_orchestrator.sessions.store.users import hash_token
from agent_orchestrator.settings import WebSettings
from agent_orchestrator.testing.eventually import eventually_async
from agent_orchestrator.testing.scripted_model import ScriptedModel
from agent_orchestrator.web.app import create_app
from agent_orchestrator.web.housekeeping import purge_expired_logins_every


@pytest.fixture
def web(tmp_path: Path) -> WebSettings:
    return WebSettings(
        data_dir=tmp_path, database_url=f"sqlite:///{tmp_path / 'catalog.sqlite'}", retail_dataset=False
    )


@pytest.fixture
def engine(web: WebSettings) -> Iterator[Engine]:
    engine = make_engine(web.database_url)
    migrate(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def users(engine: Engine) -> UserStore:
    return UserStore(engine, hasher=PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))


@pytest.fixture
def alice(users: UserStore) -> User:
    return users.create("alice", "correct horse battery")


def _stored_logins(engine: Engine) -> set[str]:
    with engine.connect() as conn:
        return set(conn.scalars(select(logins.c.token_hash)))


def test_a_starting_server_purges_expired_logins(
    web: WebSettings, engine: Engine, users: UserStore, alice: User, scripted_model: ScriptedModel
) -> None:
    expired = users.open_login(alice.id, ttl_seconds=0.01)
    kept = users.open_login(alice.id, ttl_seconds=3600)
    time.sleep(0.05)  # kept: the clock moves past the first login's expiry
    assert _stored_logins(engine) == {hash_token(expired.token), hash_token(kept.token)}
    runtime = RuntimeSettings(data_dir=web.data_dir, provider_base_url=scripted_model.base_url, model="m")
    server = BackgroundServer(create_app(web, runtime), health_path="/api/health")
    server.start(timeout=60)
    try:
        assert _stored_logins(engine) == {hash_token(kept.token)}
    finally:
        server.stop()


async def test_a_running_server_purges_expired_logins_periodically(
    engine: Engine, users: UserStore, alice: User
) -> None:
    purger = asyncio.create_task(purge_expired_logins_every(users, interval=0.05))
    try:
        users.open_login(alice.id, ttl_seconds=0.01)
        await eventually_async(lambda: _stored_logins(engine) == set())
    finally:
        purger.cancel()

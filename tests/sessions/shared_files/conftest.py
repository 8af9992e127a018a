"""Fixtures for the shared session files: the machine's real PostgreSQL, one fresh schema per module.

PostgreSQL at 127.0.0.1:5432 (trust auth, database ``test``; override with ``TEST_POSTGRES_URL``).
When it is unreachable the tests skip with one line -- unless ``CI=true`` or ``REQUIRE_POSTGRES=1``,
where a missing database is a failure, not a reason to go green.
"""

import secrets
from collections.abc import AsyncIterator, Iterator

import psycopg
import pytest
from psycopg import sql

from agent_orchestrator.sessions.shared_files import PostgresSessionFiles
from agent_orchestrator.testing.postgres import POSTGRES_URL, require_postgres


@pytest.fixture(scope="module")
def pg_url() -> str:
    require_postgres()
    return POSTGRES_URL


@pytest.fixture(scope="module")
def pg_schema(pg_url: str) -> Iterator[str]:
    """A schema of its own for this test module (random name), dropped with everything in it after."""
    name = f"shared_files_test_{secrets.token_hex(6)}"
    yield name
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(name)))


@pytest.fixture
async def store(pg_url: str, pg_schema: str) -> AsyncIterator[PostgresSessionFiles]:
    """An open store on the module's schema (a pool per test: a pool belongs to one event loop)."""
    files = PostgresSessionFiles.from_url(pg_url, schema=pg_schema, max_size=2)
    async with files:
        yield files

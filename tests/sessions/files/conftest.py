"""Fixtures for the PostgreSQL session files: the machine's real PostgreSQL, one fresh schema per module.

The store is told its schema by name (``schema=``), as a deployment that keeps the files out of
``public`` would; it creates its tables there itself.
"""

from collections.abc import AsyncIterator, Iterator

import pytest

from agent_orchestrator.sessions.files.postgres import PostgresSessionFiles
from agent_orchestrator.testing.postgres import FreshSchema, fresh_schema


@pytest.fixture(scope="module")
def module_schema(postgres_url: str) -> Iterator[FreshSchema]:
    """A schema of its own for this test module (random name), dropped with everything in it after."""
    with fresh_schema("shared_files_test", url=postgres_url) as schema:
        yield schema


@pytest.fixture(scope="module")
def pg_url(module_schema: FreshSchema) -> str:
    """The server (no ``search_path``): the store reaches its tables through ``schema=``."""
    return module_schema.server_url


@pytest.fixture(scope="module")
def pg_schema(module_schema: FreshSchema) -> str:
    return module_schema.name


@pytest.fixture
async def store(pg_url: str, pg_schema: str) -> AsyncIterator[PostgresSessionFiles]:
    """An open store on the module's schema (a pool per test: a pool belongs to one event loop)."""
    files = PostgresSessionFiles.from_url(pg_url, schema=pg_schema, max_size=2)
    async with files:
        yield files

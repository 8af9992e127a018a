"""The machine's PostgreSQL for tests and benchmarks: reachability, and a fresh schema per use.

The server is at 127.0.0.1:5432 (trust auth, database ``test``, user ``postgres``); ``TEST_POSTGRES_URL``
overrides it. Each fresh schema is selected through the connection's ``search_path`` (in the URL's
``options``), so the app's catalog and its session files land in it, and it is dropped afterwards.
When the server is unreachable, tests skip with one line — but with ``CI=true`` or
``REQUIRE_POSTGRES=1`` they fail: on CI a missing database must not look green.
"""

import functools
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import quote

import psycopg
import pytest
from psycopg import sql

from agent_orchestrator.settings import load_settings

_SETTINGS = load_settings().testing
POSTGRES_URL = _SETTINGS.postgres_url


@functools.cache
def postgres_problem() -> str | None:
    """Why the server cannot be reached (one line), or ``None`` when it can."""
    try:
        psycopg.connect(POSTGRES_URL, connect_timeout=3).close()
    except psycopg.Error as error:
        return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return None


def postgres_required() -> bool:
    return _SETTINGS.postgres_required


def require_postgres() -> None:
    """Skip the calling test (or fail it where PostgreSQL is required) if the server is unreachable."""
    problem = postgres_problem()
    if problem is None:
        return
    message = f"PostgreSQL unreachable at {POSTGRES_URL} ({problem})"
    if postgres_required():
        pytest.fail(f"{message}; CI/REQUIRE_POSTGRES needs it", pytrace=False)
    pytest.skip(message)


def admin(statement: sql.Composable | str) -> None:
    with psycopg.connect(POSTGRES_URL, autocommit=True) as conn:
        conn.execute(statement)


@contextmanager
def fresh_schema(prefix: str = "test") -> Iterator[str]:
    """A new schema; yields a ``postgresql://`` URL whose connections use it. Dropped on exit."""
    name = f"{prefix}_{secrets.token_hex(6)}"
    admin(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(name)))
    separator = "&" if "?" in POSTGRES_URL else "?"
    try:
        yield f"{POSTGRES_URL}{separator}options={quote(f'-csearch_path={name}')}"
    finally:
        admin(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(name)))

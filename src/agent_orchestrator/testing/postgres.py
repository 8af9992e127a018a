"""The machine's PostgreSQL for tests and benchmarks: reachability, and a fresh schema per use.

The server is at 127.0.0.1:5432 (trust auth, database ``test``, user ``postgres``); ``TEST_POSTGRES_URL``
overrides it, in any of the forms people write: libpq's ``postgresql://`` (or ``postgres://``) or
SQLAlchemy's ``postgresql+psycopg://``. One form would do for us, but libpq and SQLAlchemy each refuse
the other's, so the helper normalises what it is given and hands every consumer the form it takes.

:func:`fresh_schema` creates a uniquely named schema, yields :class:`FreshSchema` (its name and URLs
whose connections use it through ``search_path``) and drops it afterwards, so parallel runs and reruns
never collide. Connections through those URLs carry the schema's name as ``application_name``: the
drop first ends whatever a test left connected (a pool, a killed server's backends), and a test can
find exactly its own backends (to simulate a server restart, say).

This module decides nothing about skipping: the pytest fixtures in ``tests/conftest.py`` turn
:func:`postgres_problem` into a skip (or, under CI, a failure). The package ships no pytest import.
"""

from __future__ import annotations

import functools
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

import psycopg
from psycopg import sql
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from agent_orchestrator.settings import load_settings

_SCHEMES = ("postgresql", "postgres")


def server_url() -> str:
    """The test server, as configured (``TEST_POSTGRES_URL``) or the machine's default."""
    return load_settings().testing.postgres_url


def _parse(url: str) -> URL:
    """``url`` with the driver dropped; one clear ``ValueError`` if it is no PostgreSQL URL."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise ValueError(f"Not a PostgreSQL URL: {url!r} (expected postgresql://user@host:port/db)") from None
    if parsed.drivername.split("+", 1)[0] not in _SCHEMES:
        raise ValueError(f"Not a PostgreSQL URL: {parsed.drivername}:// (expected postgresql://...)")
    return parsed.set(drivername="postgresql")


def _render(parsed: URL, drivername: str = "postgresql") -> str:
    """``parsed`` as a string both libpq and SQLAlchemy read alike: SQLAlchemy writes a space in the
    query as ``+``, which libpq keeps as a plus (so two ``options`` would merge into one bad value)."""
    base = parsed.set(drivername=drivername, query={}).render_as_string(hide_password=False)
    query = urlencode(parsed.query, doseq=True, quote_via=quote)
    return f"{base}?{query}" if query else base


def libpq_url(url: str) -> str:
    """``url`` as libpq and psycopg take it: ``postgresql://...``."""
    return _render(_parse(url))


def sqlalchemy_url(url: str) -> str:
    """``url`` as SQLAlchemy takes it with psycopg 3: ``postgresql+psycopg://...``."""
    return _render(_parse(url), "postgresql+psycopg")


def display_url(url: str) -> str:
    """``url`` fit for a log line: any password masked."""
    return _parse(url).render_as_string(hide_password=True)


@functools.cache
def postgres_problem(url: str | None = None, *, patience: float = 0.0) -> str | None:
    """Why the server at ``url`` (default: :func:`server_url`) cannot be reached, in one line, or
    ``None`` when it can. Asked once per URL and process: every test asks, the answer does not change.

    ``patience`` is how long to keep trying: a server that is starting, or restarting (other test
    runs on the machine restart it), answers "the database system is starting up" for a moment.
    """
    deadline = time.monotonic() + patience
    while True:
        try:
            libpq = libpq_url(url or server_url())
            psycopg.connect(libpq, connect_timeout=3).close()
        except ValueError as error:
            return str(error)
        except psycopg.Error as error:
            if time.monotonic() < deadline:
                time.sleep(0.5)
                continue
            return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        return None


@dataclass(frozen=True)
class FreshSchema:
    """A schema of its own on the test server, and the URLs that reach it.

    ``url`` and ``sqlalchemy_url`` select the schema through ``search_path`` (for code that puts its
    tables wherever the connection points: the session store, the web app's ``DATABASE_URL``);
    ``server_url`` does not (for code told the schema by name, like the shared session files).
    All three tag their connections with ``application_name`` = ``name``.
    """

    name: str
    url: str
    sqlalchemy_url: str
    server_url: str


def _with_query(parsed: URL, **params: str) -> URL:
    """``parsed`` with ``params`` added; an ``options`` already in the URL is kept, ours appended."""
    query: dict[str, Any] = dict(parsed.query)
    if "options" in params and query.get("options"):
        params["options"] = f"{query['options']} {params['options']}"
    return parsed.update_query_dict(params)


def _admin(url: str, statement: sql.Composed) -> list[tuple[Any, ...]]:
    with psycopg.connect(libpq_url(url), autocommit=True, connect_timeout=5) as conn:
        cursor = conn.execute(statement)
        return cursor.fetchall() if cursor.description else []


def terminate_connections(name: str, url: str | None = None) -> int:
    """End every backend tagged with schema ``name`` (as a server restart would: each is gone when
    this returns); how many there were.

    :func:`fresh_schema` does it before the drop, which a lingering connection would otherwise hold up.
    """
    query = sql.SQL(
        "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE application_name = {}"
    )
    return len(_admin(url or server_url(), query.format(sql.Literal(name))))


@contextmanager
def fresh_schema(
    prefix: str = "test", *, url: str | None = None, create: bool = True
) -> Iterator[FreshSchema]:
    """A uniquely named schema (``<prefix>_<random>``) on the server at ``url`` (default:
    :func:`server_url`), dropped with everything in it on exit.

    ``create=False`` only reserves the name, for a test of code that creates the schema itself (its
    race to do so is the point); whatever it created is dropped all the same.
    """
    base = _parse(url or server_url())
    name = f"{prefix}_{secrets.token_hex(6)}"
    server = _with_query(base, application_name=name)
    in_schema = _with_query(server, options=f"-csearch_path={name}")
    admin_url = _render(base)
    if create:
        _admin(admin_url, sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(name)))
    try:
        yield FreshSchema(
            name=name,
            url=_render(in_schema),
            sqlalchemy_url=_render(in_schema, "postgresql+psycopg"),
            server_url=_render(server),
        )
    finally:
        terminate_connections(name, admin_url)
        _admin(admin_url, sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(name)))

"""FastAPI dependencies: where the retail database is, and a read-only connection per request.

The app decides the path and keeps it in its state: a fixed file, or (the web app) a provider of the
active dataset version's file, asked on every request (docs/architecture.md#dataset-versions)::

    app.state.retail_db = settings.data_dir / "retail.sqlite"
    app.state.retail_db = library.current_path

Not ``app.dependency_overrides``, which FastAPI meant for tests: while any override is set, it
analyses every dependency of every request again, a cost every chat message paid
(docs/architecture.md#performance-budgets).

Nothing is opened at import time; without the state the path comes from ``RETAIL_DB`` (the
settings' ``retail_db``, handy for ``uvicorn`` experiments). Without a usable database the dependencies
raise :class:`~agent_orchestrator.errors.RetailDatabaseError`, which the app answers with a 503 (whose
detail names no server path: see ``agent_orchestrator.web.errors``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated

from fastapi import Depends, Request

from agent_orchestrator.errors import RetailDatabaseError
from agent_orchestrator.retail.db import open_readonly
from agent_orchestrator.settings import load_settings


def get_retail_db_path(request: Request) -> Path:
    """The app's ``state.retail_db`` (called, if it is a provider), or else ``$RETAIL_DB``.

    A plain function, so FastAPI runs it in a worker thread: a provider may read the shared
    dataset pointer (at most once a second) or materialise a new version."""
    configured: Path | Callable[[], Path] | None = getattr(request.app.state, "retail_db", None)
    path = configured() if callable(configured) else configured
    path = path or load_settings().retail_db
    if path is None:
        raise RetailDatabaseError(
            "retail API used without a database path: set the app's state.retail_db or RETAIL_DB"
        )
    return path


def get_retail_db(path: Annotated[Path, Depends(get_retail_db_path)]) -> Iterator[sqlite3.Connection]:
    """A read-only connection for one request, closed afterwards.

    ``check_same_thread=False`` because FastAPI may run this dependency and the endpoint on
    different worker threads; the connection is still used by one request at a time.
    """
    conn = open_readonly(path, check_same_thread=False)
    try:
        yield conn
    finally:
        conn.close()


RetailDb = Annotated[sqlite3.Connection, Depends(get_retail_db)]

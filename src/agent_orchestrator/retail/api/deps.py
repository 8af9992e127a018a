"""FastAPI dependencies: where the retail database is, and a read-only connection per request.

The app decides the path (``<data dir>/retail.sqlite``) and keeps it in its state::

    app.state.retail_db = settings.data_dir / "retail.sqlite"

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
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

from fastapi import Depends, Request

from agent_orchestrator.errors import RetailDatabaseError
from agent_orchestrator.retail.db import open_readonly
from agent_orchestrator.settings import load_settings


def get_retail_db_path(request: Request) -> Path:
    """The app's ``state.retail_db``, or else ``$RETAIL_DB``."""
    path: Path | None = getattr(request.app.state, "retail_db", None) or load_settings().retail_db
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

"""FastAPI dependencies: where the retail database is, and a read-only connection per request.

The app decides the path (``<data dir>/retail.sqlite``) and overrides ``get_retail_db_path``::

    app.dependency_overrides[get_retail_db_path] = lambda: settings.data_dir / "retail.sqlite"

Nothing is opened at import time; without an override the path comes from ``RETAIL_DB`` (the
settings' ``retail_db``, handy for ``uvicorn`` experiments). Without a usable database the dependencies
raise :class:`~agent_orchestrator.errors.RetailDatabaseError`, which the app answers with a 503 (whose
detail names no server path: see ``agent_orchestrator.web.errors``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

from fastapi import Depends

from agent_orchestrator.errors import RetailDatabaseError
from agent_orchestrator.retail.db import open_readonly
from agent_orchestrator.settings import load_settings


def get_retail_db_path() -> Path:
    """Default: ``$RETAIL_DB``. Override this dependency in the app."""
    path = load_settings().retail_db
    if path is None:
        raise RetailDatabaseError(
            "retail API used without a database path: override get_retail_db_path or set RETAIL_DB"
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

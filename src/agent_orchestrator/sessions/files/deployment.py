"""Which backend holds the deployment's session files: one choice for the web app and every command.

PostgreSQL (shared mode) when there is a shared store, else this server's disk: sealed below
``<data_dir>/sealed-sessions/`` when a master key is set, the runtime's own folders otherwise. Catalog
and files then always answer about the same sessions, and a command writes them exactly as the web app
would (docs/architecture.md#encryption-at-rest).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy.engine import make_url

from agent_orchestrator.runtime.session_files import SessionFiles
from agent_orchestrator.sessions.crypto import SessionCipher
from agent_orchestrator.sessions.files.local import LocalSessionFiles
from agent_orchestrator.sessions.files.sealed import SealedLocalSessionFiles, sealed_root
from agent_orchestrator.settings import RuntimeSettings

if TYPE_CHECKING:
    from agent_orchestrator.sessions.files.postgres import PostgresSessionFiles


def deployment_files(
    data_dir: Path, cipher: SessionCipher | None, shared: PostgresSessionFiles | None = None
) -> SessionFiles:
    """The deployment's session files, as the web app and every command use them: the shared
    PostgreSQL store when there is one, else this server's disk. ``cipher`` (encryption at rest,
    docs/architecture.md#encryption-at-rest) seals the shared store's contents, and on a single server
    moves the files below ``<data_dir>/sealed-sessions/``, written through the ``session_fs`` hook;
    without it they are the runtime's own ``COPILOT_HOME`` folders. Give the runtime
    :func:`~agent_orchestrator.runtime.session_files.hook_store` of the result."""
    if shared is not None:
        shared.cipher = cipher
        return shared
    if cipher is not None:
        return SealedLocalSessionFiles(sealed_root(data_dir), cipher)
    return LocalSessionFiles(RuntimeSettings(data_dir=data_dir).copilot_home)


def shared_store(database_url: str) -> PostgresSessionFiles | None:
    """Shared mode's store for a catalog at ``database_url`` (``Settings.database_url``), not open yet:
    a PostgreSQL catalog keeps the files in the same database (tables found through its
    ``search_path``); any other keeps them on this server's disk (``None``)."""
    if make_url(database_url).get_backend_name() != "postgresql":
        return None
    # Imported here: psycopg's pool is only needed in shared mode.
    from agent_orchestrator.sessions.files.postgres import PostgresSessionFiles

    return PostgresSessionFiles.from_url(database_url)

"""Shared session files: the Copilot runtime's per-session files in PostgreSQL.

See docs/architecture.md#the-session_fs-hook.

Plug :class:`PostgresSessionFiles` into ``CopilotRuntime(..., session_files=store)`` and every server
on the same database can resume every session. See :mod:`.store` for what the runtime does (and does
not) route through it.
"""

from agent_orchestrator.sessions.files.postgres.provider import PostgresSessionFsProvider
from agent_orchestrator.sessions.files.postgres.store import PostgresSessionFiles

__all__ = ["PostgresSessionFiles", "PostgresSessionFsProvider"]

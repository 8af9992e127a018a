"""Where the runtime keeps session files: its own ``COPILOT_HOME`` (default) or a shared store.

A shared store (PostgreSQL, for several servers) plugs in through the SDK's ``session_fs`` hook: the
client announces the virtual layout once, and each session gets a provider bound to its id — the
runtime's paths (``/session-state/events.jsonl``) do not contain the id, so the provider must.
"""

from typing import Protocol

from copilot import CopilotSession
from copilot.session import SessionFsConfig
from copilot.session_fs_provider import SessionFsProvider


class SessionFileStore(Protocol):
    """A backend for the runtime's session files, shared by every server that resumes sessions."""

    def client_config(self) -> SessionFsConfig:
        """The client-level ``session_fs`` option (virtual working dir and session-state path)."""
        ...

    def provider_for(self, session: CopilotSession) -> SessionFsProvider:
        """The provider serving one session's files; called by the SDK on create and resume."""
        ...

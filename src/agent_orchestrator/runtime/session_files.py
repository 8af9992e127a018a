"""Where the runtime keeps session files: its own ``COPILOT_HOME`` (default) or a store of ours.

A store (PostgreSQL, for several servers; sealed files on local disk) plugs in through the SDK's
``session_fs`` hook: the client announces the virtual layout once, and each session gets a provider
bound to its id — the runtime's paths (``/session-state/events.jsonl``) do not contain the id, so the
provider must.

The runtime's own ``list_sessions``, ``get_session_metadata`` and ``delete_session`` never consult the
provider (docs/architecture.md#the-session_fs-hook), so the store also answers those questions itself,
and the runtime's own folders get a backend that answers them too. This module is only the protocol
the runtime takes: the backends live in ``agent_orchestrator.sessions.files``, above the runtime in the
import order (they need the session store and its encryption).
"""

from typing import Protocol, runtime_checkable

from copilot import CopilotSession
from copilot.session import SessionFsConfig
from copilot.session_fs_provider import SessionFsProvider

EVENTS_FILE = "events.jsonl"


class SessionFiles(Protocol):
    """Read-side and lifecycle questions about sessions' files, whatever the backend."""

    async def has_session(self, session_id: str) -> bool:
        """Whether a resume would find the session (its event log is stored)."""
        ...

    async def read_events(self, session_id: str) -> bytes | None:
        """The session's raw ``events.jsonl``, or ``None`` if it has none."""
        ...

    async def write_events(self, session_id: str, events: bytes) -> None:
        """Replace the session's ``events.jsonl`` at once (a fork, an import): readers and a later
        resume see the old log or the new one, never a mix."""
        ...

    async def delete_session(self, session_id: str) -> int:
        """Remove every file of the session; returns how many entries went."""
        ...


@runtime_checkable
class SessionFileStore(SessionFiles, Protocol):
    """A backend for the runtime's session files, used through the SDK's ``session_fs`` (shared, or
    sealed on local disk): give it to the runtime. Files without it are the runtime's own folders."""

    def client_config(self) -> SessionFsConfig:
        """The client-level ``session_fs`` option (virtual working dir and session-state path)."""
        ...

    def provider_for(self, session: CopilotSession) -> SessionFsProvider:
        """The provider serving one session's files; called by the SDK on create and resume."""
        ...


def hook_store(files: SessionFiles) -> SessionFileStore | None:
    """What to give the runtime for ``files``: the store itself when the runtime's files go through the
    ``session_fs`` hook, ``None`` when they are the runtime's own folders (it writes those itself)."""
    return files if isinstance(files, SessionFileStore) else None

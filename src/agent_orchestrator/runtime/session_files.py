"""Where the runtime keeps session files: its own ``COPILOT_HOME`` (default) or a shared store.

A shared store (PostgreSQL, for several servers) plugs in through the SDK's ``session_fs`` hook: the
client announces the virtual layout once, and each session gets a provider bound to its id — the
runtime's paths (``/session-state/events.jsonl``) do not contain the id, so the provider must.

The runtime's own ``list_sessions``, ``get_session_metadata`` and ``delete_session`` never consult the
provider (docs/architecture.md#the-session_fs-hook), so the store also answers those questions itself;
:class:`LocalSessionFiles` gives the single-server default the same interface.
"""

import asyncio
import os
import shutil
from pathlib import Path
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


class LocalSessionFiles:
    """The runtime's own ``COPILOT_HOME/session-state/<id>/`` folders (one server)."""

    def __init__(self, copilot_home: Path) -> None:
        self._root = copilot_home / "session-state"

    def folder(self, session_id: str) -> Path:
        return self._root / session_id

    async def session_ids(self) -> list[str]:
        """Every session with a folder here, sorted (the runtime's own dot-folders are not sessions)."""

        def names() -> list[str]:
            if not self._root.is_dir():
                return []
            return sorted(p.name for p in self._root.iterdir() if p.is_dir() and not p.name.startswith("."))

        return await asyncio.to_thread(names)

    async def has_session(self, session_id: str) -> bool:
        return await asyncio.to_thread((self._root / session_id / EVENTS_FILE).is_file)

    async def read_events(self, session_id: str) -> bytes | None:
        try:
            return await asyncio.to_thread((self._root / session_id / EVENTS_FILE).read_bytes)
        except FileNotFoundError:
            return None

    async def write_events(self, session_id: str, events: bytes) -> None:
        await asyncio.to_thread(_replace_file, self._root / session_id / EVENTS_FILE, events)

    async def delete_session(self, session_id: str) -> int:
        folder = self._root / session_id
        if not folder.is_dir():
            return 0
        count = sum(1 for _ in folder.rglob("*")) + 1
        await asyncio.to_thread(shutil.rmtree, folder, ignore_errors=True)
        return count


def _replace_file(target: Path, content: bytes) -> None:
    """Write beside ``target`` and rename over it (atomic on POSIX), owner-only like the runtime's."""
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(content)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, target)

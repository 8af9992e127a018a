"""The runtime's own session folders on this server's disk: single-server mode without a master key.

Left alone, the runtime writes ``COPILOT_HOME/session-state/<id>/`` itself; nothing goes through the
``session_fs`` hook, so this backend is never given to the runtime (``hook_store`` answers ``None`` for
it). It answers what the runtime's own calls cannot (docs/architecture.md#the-session_fs-hook) from
those folders, so that the catalog's operations and the commands see the same sessions.
"""

import asyncio
import os
import shutil
from pathlib import Path

from agent_orchestrator.runtime.session_files import EVENTS_FILE


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

"""Sealed session files on this server's disk: single-server mode with encryption at rest
(docs/architecture.md#encryption-at-rest).

Left alone, the runtime writes ``COPILOT_HOME/session-state/<id>/`` itself, in clear. With a master key,
single-server mode routes the runtime's files through the SDK's ``session_fs`` hook as shared mode does
(docs/architecture.md#the-session_fs-hook), to this store: each session's virtual paths map below
``<root>/<id>/``, and every write or append is stored as sealed frames, like the PostgreSQL store's
content. POSIX semantics come from the local file system itself (``os`` errors carry their ``errno``,
which the SDK maps for the runtime); sizes are the plaintext's, read from the frame headers.
"""

from __future__ import annotations

import asyncio
import errno
import os
import shutil
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from copilot import CopilotSession
from copilot.generated.rpc import DebugCollectLogsEntryKind, SessionFSReaddirWithTypesEntry
from copilot.session import SessionFsConfig
from copilot.session_fs_provider import SessionFsFileInfo, SessionFsProvider

from agent_orchestrator.runtime.session_files import EVENTS_FILE
from agent_orchestrator.sessions.crypto import frames
from agent_orchestrator.sessions.crypto.cipher import SessionCipher
from agent_orchestrator.sessions.files.paths import (
    ROOT,
    SESSION_STATE_PATH,
    WORKING_DIRECTORY,
    check_session_id,
    fs_error,
    normalize,
)

EVENTS = f"{SESSION_STATE_PATH}/{EVENTS_FILE}"
# What ``adopt_plain`` did: sealed it, found no clear folder, or found a different sealed copy.
Adoption = Literal["sealed", "absent", "conflict"]


def sealed_root(data_dir: Path) -> Path:
    """Where single-server mode keeps sealed session files (instead of ``COPILOT_HOME/session-state``)."""
    return data_dir / "sealed-sessions"


class SealedLocalSessionFiles:
    """A :class:`~agent_orchestrator.runtime.session_files.SessionFileStore` on local disk, sealed."""

    def __init__(self, root: Path, cipher: SessionCipher) -> None:
        self.root = root
        self.cipher = cipher

    def client_config(self) -> SessionFsConfig:
        return {
            "initial_working_directory": WORKING_DIRECTORY,
            "session_state_path": SESSION_STATE_PATH,
            "conventions": "posix",
            "capabilities": {"binary": True},
        }

    def provider_for(self, session: CopilotSession) -> SealedLocalFsProvider:
        """Synchronous and I/O-free, as the SDK calls it on the event loop."""
        return SealedLocalFsProvider(self, check_session_id(session.session_id))

    def folder(self, session_id: str) -> Path:
        return self.root / check_session_id(session_id)

    async def has_session(self, session_id: str) -> bool:
        return await asyncio.to_thread(SealedLocalFsProvider(self, session_id).host(EVENTS).is_file)

    async def read_events(self, session_id: str) -> bytes | None:
        try:
            return await SealedLocalFsProvider(self, session_id).read_file_bytes(EVENTS)
        except FileNotFoundError:
            return None

    async def write_events(self, session_id: str, events: bytes) -> None:
        """Replace the session's log at once (a fork, an import), sealed like every write."""
        provider = SealedLocalFsProvider(self, check_session_id(session_id))
        await asyncio.to_thread(provider.host(EVENTS).parent.mkdir, parents=True, exist_ok=True)
        await provider.write_file_bytes(EVENTS, events)

    async def delete_session(self, session_id: str) -> int:
        """Remove the session's folder, then its key (crypto-erasure of any copy of the files)."""
        folder = self.folder(session_id)
        count = await asyncio.to_thread(
            lambda: sum(1 for _ in folder.rglob("*")) + 1 if folder.is_dir() else 0
        )
        await asyncio.to_thread(shutil.rmtree, folder, ignore_errors=True)
        await self.cipher.destroy(session_id)
        return count

    async def adopt_plain(self, session_id: str, plain: Path) -> Adoption:
        """Seal into this store a session the runtime wrote itself, in clear, before the master key was
        set (``plain``: its ``COPILOT_HOME/session-state/<id>/`` folder), then remove the clear folder
        (docs/architecture.md#sealing-existing-sessions). Run it under the session's lease.

        The sealed tree (``<root>/<id>/session-state/...``, where the runtime looks through the hook) is
        built beside the store's folder, synced, and renamed into place in one step; only then does the
        clear folder go. A crash leaves the clear session, or the sealed one with a clear leftover that
        the next run recognises (same event log) and removes. A sealed copy whose log differs from the
        clear one is a ``"conflict"``: both are left for the operator."""
        target = self.folder(session_id)
        if not await asyncio.to_thread(plain.is_dir):
            return "absent"
        if await asyncio.to_thread(target.exists):
            clear_log = await asyncio.to_thread(_read_or_none, plain / EVENTS_FILE)
            if clear_log != await self.read_events(session_id):
                return "conflict"
        else:
            staging = target.with_name(f".adopting-{target.name}")
            await asyncio.to_thread(shutil.rmtree, staging, ignore_errors=True)  # a crashed run's
            state = staging / SESSION_STATE_PATH.lstrip("/")
            await asyncio.to_thread(state.mkdir, parents=True)
            for source, is_dir in await asyncio.to_thread(_tree, plain):
                dest = state / source.relative_to(plain)
                if is_dir:
                    await asyncio.to_thread(dest.mkdir, parents=True, exist_ok=True)
                    continue
                content = await asyncio.to_thread(source.read_bytes)
                sealed = await self.cipher.seal(session_id, content) if content else b""
                await asyncio.to_thread(_write_synced, dest, sealed)
            await asyncio.to_thread(_commit_dir, staging, target)
        await asyncio.to_thread(shutil.rmtree, plain)
        return "sealed"


class SealedLocalFsProvider(SessionFsProvider):
    """One session's files below ``<root>/<id>/``; contents sealed with the session's data key."""

    def __init__(self, store: SealedLocalSessionFiles, session_id: str) -> None:
        self._store = store
        self.session_id = session_id

    def host(self, path: str) -> Path:
        """The file on disk for a virtual path (normalised, so it cannot leave the session's folder)."""
        return self._store.folder(self.session_id) / normalize(path).lstrip("/")

    def _implicit_dir(self, path: str) -> bool:
        return normalize(path) in (ROOT, WORKING_DIRECTORY)

    async def read_file_bytes(self, path: str) -> bytes:
        stored = await asyncio.to_thread(self.host(path).read_bytes)
        return await self._store.cipher.unseal(self.session_id, stored)

    async def read_file(self, path: str) -> str:
        return (await self.read_file_bytes(path)).decode("utf-8", errors="replace")

    async def write_file_bytes(self, path: str, content: bytes, mode: int | None = None) -> None:
        sealed = await self._store.cipher.seal(self.session_id, content)
        await asyncio.to_thread(_replace, self.host(path), sealed)

    async def write_file(self, path: str, content: str, mode: int | None = None) -> None:
        await self.write_file_bytes(path, content.encode("utf-8"), mode)

    async def append_file(self, path: str, content: str, mode: int | None = None) -> None:
        sealed = await self._store.cipher.seal(self.session_id, content.encode("utf-8"))
        await asyncio.to_thread(_append, self.host(path), sealed)

    async def exists(self, path: str) -> bool:
        return self._implicit_dir(path) or await asyncio.to_thread(self.host(path).exists)

    async def stat(self, path: str) -> SessionFsFileInfo:
        if self._implicit_dir(path) and not await asyncio.to_thread(self.host(path).exists):
            epoch = datetime.fromtimestamp(0, UTC)
            return SessionFsFileInfo(False, True, 0, epoch, epoch)
        return await asyncio.to_thread(_stat, self.host(path))

    async def mkdir(self, path: str, recursive: bool, mode: int | None = None) -> None:
        target = self.host(path)
        await asyncio.to_thread(lambda: target.mkdir(parents=recursive, exist_ok=recursive))

    async def readdir(self, path: str) -> list[str]:
        return [name for name, _ in await self._entries(path)]

    async def readdir_with_types(self, path: str) -> Sequence[SessionFSReaddirWithTypesEntry]:
        kinds = {True: DebugCollectLogsEntryKind.DIRECTORY, False: DebugCollectLogsEntryKind.FILE}
        return [
            SessionFSReaddirWithTypesEntry(name, kinds[is_dir]) for name, is_dir in await self._entries(path)
        ]

    async def _entries(self, path: str) -> list[tuple[str, bool]]:
        folder = self.host(path)
        if self._implicit_dir(path) and not await asyncio.to_thread(folder.exists):
            return []
        return await asyncio.to_thread(lambda: sorted((p.name, p.is_dir()) for p in folder.iterdir()))

    async def rm(self, path: str, recursive: bool, force: bool) -> None:
        await asyncio.to_thread(_remove, self.host(path), recursive=recursive, force=force)

    async def rename(self, src: str, dest: str) -> None:
        source, target = self.host(src), self.host(dest)
        if source == self._store.folder(self.session_id):
            raise fs_error(errno.EBUSY, src, "cannot move a session's root")
        await asyncio.to_thread(_move, source, target)


def _replace(target: Path, data: bytes) -> None:
    """Write ``data`` as ``target`` atomically (a temporary file renamed over it), owner-only."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=".sealed-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _read_or_none(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _tree(root: Path) -> list[tuple[Path, bool]]:
    """Every directory and regular file below ``root`` (symbolic links are not followed), parents first."""
    return [
        (path, path.is_dir())
        for path in sorted(root.rglob("*"))
        if not path.is_symlink() and (path.is_dir() or path.is_file())
    ]


def _write_synced(target: Path, data: bytes) -> None:
    """Write a new owner-only file and flush it to disk (it is about to be committed by a rename)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def _commit_dir(staging: Path, target: Path) -> None:
    """Rename the finished ``staging`` tree to ``target`` (atomic), and make the rename durable."""
    os.rename(staging, target)
    fd = os.open(target.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _move(source: Path, target: Path) -> None:
    """``rename(2)``: an existing target file (or empty directory) is replaced."""
    target.parent.mkdir(parents=True, exist_ok=True)
    os.replace(source, target)


def _append(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, data)  # one write of one frame: O_APPEND keeps frames whole
    finally:
        os.close(fd)


def _stat(target: Path) -> SessionFsFileInfo:
    info = target.stat()  # FileNotFoundError (ENOENT) for a missing path, as the runtime expects
    is_dir = target.is_dir()
    size = 0 if is_dir else frames.plaintext_size(target.read_bytes())
    changed = datetime.fromtimestamp(info.st_mtime, UTC)
    return SessionFsFileInfo(not is_dir, is_dir, size, changed, datetime.fromtimestamp(info.st_ctime, UTC))


def _remove(target: Path, *, recursive: bool, force: bool) -> None:
    try:
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target) if recursive else target.rmdir()
        else:
            target.unlink()
    except FileNotFoundError:
        if not force:
            raise

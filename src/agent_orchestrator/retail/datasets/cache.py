"""This server's copies of the version files: ``<data>/datasets/<id>.sqlite`` (and ``.skipped.csv``).

On one server these are the versions themselves. With a shared store every server keeps its own
copies, materialised from the store's chunks on first use and checked against the recorded SHA-256
before they are renamed into place, so a reader never opens a partial or damaged copy
(docs/architecture.md#dataset-versions).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from agent_orchestrator.errors import RetailDatabaseError

CHUNK_BYTES = 8 * 1024 * 1024
"""A stored file's chunk: big enough for few round trips, small enough to hold one in memory."""

SUFFIXES = {"db": ".sqlite", "skipped": ".skipped.csv", "rows": ".rows.parquet"}
"""A version's files: its data, its skipped rows, and its rows as the semantic engine reads them
(written from the data on first use: ``semantic.py``)."""
VERSION_ID = re.compile(r"\d{8}T\d{6}-[0-9a-f]{8}")
"""A version's id (``library._new_id``): when it was made, and a random part."""


class VersionFiles:
    """Paths, materialisation and removal of the local version files in one folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self._sweep()

    def _sweep(self) -> None:
        """Delete the half-built and half-downloaded files of processes that died (their pid is in
        the name), so a crash during an import does not leave a file of its size behind for good."""
        for partial in self.folder.glob(".*.*.*"):
            pid = partial.name.split(".")[2]
            if pid.isdigit() and not _alive(int(pid)):
                partial.unlink(missing_ok=True)

    def path(self, version_id: str, kind: str = "db") -> Path:
        return self.folder / f"{version_id}{SUFFIXES[kind]}"

    def building(self, version_id: str, kind: str = "db") -> Path:
        """Where a version is built: a hidden name no reader opens, renamed when complete."""
        return self.folder / f".{version_id}.{os.getpid()}.building{SUFFIXES[kind]}"

    def materialise(self, version_id: str, kind: str, chunks: Iterable[bytes], sha256: str | None) -> Path:
        """Write ``chunks`` to the version's file (verified against ``sha256`` when given)."""
        target = self.path(version_id, kind)
        partial = self.folder / f".{version_id}.{os.getpid()}.download{SUFFIXES[kind]}"
        digest = hashlib.sha256()
        try:
            with partial.open("wb") as handle:
                for chunk in chunks:
                    digest.update(chunk)
                    handle.write(chunk)
            if sha256 is not None and digest.hexdigest() != sha256:
                raise RetailDatabaseError(
                    f"the stored copy of dataset version {version_id} is damaged (SHA-256 mismatch)"
                )
            os.replace(partial, target)
        finally:
            partial.unlink(missing_ok=True)
        return target

    def remove(self, version_id: str) -> None:
        """Delete a version's local files. A reader that has one open keeps reading it (POSIX)."""
        for kind in SUFFIXES:
            self.path(version_id, kind).unlink(missing_ok=True)

    def local_ids(self) -> set[str]:
        """The versions with a file here: names of a version's shape only, never the SQLite version
        store that shares the folder (``versions.sqlite``), which a sweep of the unlisted ones would
        otherwise delete under the open store."""
        names = (p.name.removesuffix(".sqlite") for p in self.folder.glob("*.sqlite"))
        return {name for name in names if VERSION_ID.fullmatch(name)}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


def file_chunks(path: Path) -> Iterator[bytes]:
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK_BYTES):
            yield chunk


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    for chunk in file_chunks(path):
        digest.update(chunk)
    return digest.hexdigest()

"""CSV files admins have uploaded and not imported yet: written to disk as they arrive, never held
whole in memory (docs/architecture.md#the-data-page).

A file is streamed from the request body into ``<data>/uploads/`` in batches of about a megabyte
(each written from a worker thread, so the event loop never waits for the disk), then inspected
(``retail.datasets.inspect_upload``: a date written in parts becomes a column of its own first). A
file the inspection refuses is deleted at once, so a bad upload leaves nothing behind. The others
wait for their import under an id that only their uploader can use; one not imported within
:data:`KEEP_SECONDS` is deleted with the next upload, and whatever a crashed server left is deleted
at start. The request body's size is limited by the guard as it arrives (``web/guard.py``), so a
file here is never larger than :data:`UPLOAD_MAX_BYTES`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
import shutil
import tempfile
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import BinaryIO

from agent_orchestrator.errors import InvalidInputError, NotFoundError
from agent_orchestrator.retail.datasets import CsvFormat, CsvPreview, inspect_csv, inspect_upload

UPLOAD_MAX_BYTES = 128 * 2**20
"""The largest upload: the one-million-line Online Retail II export is about 95 MB; a 200 MB file is
refused with one clear 413 before any of it is imported."""
KEEP_SECONDS = 3600.0
_BATCH = 2**20
_NAME_MAX = 200


@dataclass(frozen=True)
class Upload:
    """One uploaded file: where it is on disk, what its uploader called it, and how it looks."""

    id: str
    owner_id: int
    name: str
    path: Path
    size: int
    preview: CsvPreview
    uploaded_at: float = field(default_factory=time.monotonic)


class Uploads:
    """The uploads waiting for their import, on disk under ``folder`` (emptied at start)."""

    def __init__(self, folder: Path) -> None:
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True, exist_ok=True)
        self._folder = folder
        self._lock = threading.Lock()
        self._uploads: dict[str, Upload] = {}

    async def receive(self, chunks: AsyncIterator[bytes], *, owner_id: int, name: str) -> Upload:
        """Write ``chunks`` (a request body) to a new file and inspect it; ``InvalidInputError`` (and
        nothing kept) if it is empty or not a CSV file we can read."""
        await asyncio.to_thread(self._purge_stale)
        # A folder of its own per upload, so the file keeps the name its uploader knows it by: the
        # inspection's messages name it.
        path = Path(tempfile.mkdtemp(dir=self._folder)) / clean_name(name)
        try:
            with path.open("xb") as handle:
                size = await _copy(chunks, handle)
            if size == 0:
                raise InvalidInputError(f"{path.name} is empty: expected a CSV file with a header")
            preview = await asyncio.to_thread(inspect_upload, path)
        except BaseException:  # a refused file, a body cut off at the limit, a client gone
            shutil.rmtree(path.parent, ignore_errors=True)
            raise
        upload = Upload(secrets.token_urlsafe(12), owner_id, path.name, path, size, preview)
        with self._lock:
            self._uploads[upload.id] = upload
        return upload

    def reread(self, upload: Upload, fmt: CsvFormat, date_column: str | None = None) -> Upload:
        """The upload read again with the admin's ``fmt`` (detection got the delimiter, the numbers or
        the dates wrong), kept as its preview from now on; ``InvalidInputError`` and the upload as it
        was when the file cannot be read that way. The source key stays the one of the file as first
        read: that is the key the next file of the same source is looked up by."""
        preview = inspect_csv(upload.path, given=fmt, date_column=date_column)
        preview = dataclasses.replace(preview, source_key=upload.preview.source_key)
        reread = dataclasses.replace(upload, preview=preview)
        with self._lock:
            if upload.id in self._uploads:
                self._uploads[upload.id] = reread
        return reread

    def get(self, upload_id: str, owner_id: int) -> Upload:
        """The owner's upload; ``NotFoundError`` for an unknown id, another admin's, or one gone."""
        with self._lock:
            upload = self._uploads.get(upload_id)
        if upload is None or upload.owner_id != owner_id:
            raise NotFoundError("No such upload: upload the file again.")
        return upload

    def discard(self, upload: Upload) -> None:
        """Forget an upload and delete its file (after its import, or when the admin gives up)."""
        with self._lock:
            self._uploads.pop(upload.id, None)
        shutil.rmtree(upload.path.parent, ignore_errors=True)

    def _purge_stale(self) -> None:
        cutoff = time.monotonic() - KEEP_SECONDS
        with self._lock:
            stale = [upload for upload in self._uploads.values() if upload.uploaded_at < cutoff]
        for upload in stale:
            self.discard(upload)


async def _copy(chunks: AsyncIterator[bytes], handle: BinaryIO) -> int:
    """Write the chunks to ``handle`` a batch at a time from a worker thread; the bytes written."""
    size = 0
    batch = bytearray()
    write = handle.write
    async for chunk in chunks:
        batch += chunk
        if len(batch) >= _BATCH:
            size += len(batch)
            await asyncio.to_thread(write, bytes(batch))
            batch.clear()
    if batch:
        size += len(batch)
        await asyncio.to_thread(write, bytes(batch))
    return size


def clean_name(name: str) -> str:
    """What a file is called in the versions list and on disk: the last part of the name the browser
    sent, without control characters, at most 200 characters (``upload.csv`` for none, or for a name
    the file system would read as a folder)."""
    base = PurePath(name.replace("\\", "/")).name
    printable = "".join(ch for ch in base if ch.isprintable()).strip()[:_NAME_MAX]
    return printable if printable not in ("", ".", "..") else "upload.csv"

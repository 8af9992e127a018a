"""Appends to many sessions' logs, committed together: one statement for every append that waits.

A busy server's runtime appends to ``events.jsonl`` three or four times per turn of each session, each
append a JSON-RPC request answered by one statement (docs/architecture.md#performance-budgets). One
statement each costs a pooled connection, a round trip and a commit apiece; while one is on its way,
the other sessions' appends queue up behind it. So they are written together: while a batch's
statement runs, the appends that arrive wait, and the next statement takes all of them (group
commit). Each caller gets its own answer after the commit that holds its chunk, exactly as if it had
written alone.

What stays per file: a batch takes one append per file (the later ones wait for the next batch, so a
file's appends keep their order), and an append that the one-statement path cannot take (the file is
missing, a directory, or full) is told so and takes the provider's careful path on its own. A batch
that loses a deadlock to another server's writes committed nothing: each of its appends is then
written alone, as before batching.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field

from psycopg import errors

from agent_orchestrator.errors import SessionFileStoreError
from agent_orchestrator.sessions.files.postgres.backend import Connections

# Failures that mean the statement committed nothing and only lost to a concurrent writer.
_WRITTEN_ALONE_AFTER = (errors.DeadlockDetected, errors.SerializationFailure)


def _future() -> asyncio.Future[int | None]:
    return asyncio.get_running_loop().create_future()


@dataclass(slots=True)
class _Append:
    session_id: str
    path: str
    size: int  # of the plaintext: the file's ``size`` counts plaintext
    data: bytes  # what is stored (sealed or not)
    done: asyncio.Future[int | None] = field(default_factory=_future)


class GroupedAppends:
    """The store's appends, in batches of at most one per file; one batch in flight at a time."""

    def __init__(self, store: Connections) -> None:
        self._store = store
        self._waiting: list[_Append] = []
        self._writer: asyncio.Task[None] | None = None

    async def append(self, session_id: str, path: str, size: int, data: bytes) -> int | None:
        """Append ``data`` with the others waiting; the file's chunk count after it, or ``None`` if the
        file is missing, a directory or would outgrow the limit (nothing was written then)."""
        append = _Append(session_id, path, size, data)
        self._waiting.append(append)
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write_all())
        return await append.done

    async def wait_idle(self) -> None:
        """Until the appends under way are written (before the pool closes)."""
        if self._writer is not None:
            await asyncio.gather(self._writer, return_exceptions=True)

    async def _write_all(self) -> None:
        while self._waiting:
            batch: list[_Append] = []
            later: list[_Append] = []
            files: set[tuple[str, str]] = set()
            for append in self._waiting:
                key = (append.session_id, append.path)
                (later if key in files else batch).append(append)
                files.add(key)
            self._waiting = later
            results: Sequence[int | BaseException | None]
            try:
                results = await self._write(batch)
            except SessionFileStoreError as error:
                if not isinstance(error.__cause__, _WRITTEN_ALONE_AFTER) or len(batch) == 1:
                    results = [error] * len(batch)
                else:
                    alone = (self._write_alone(append) for append in batch)
                    results = await asyncio.gather(*alone, return_exceptions=True)
            except BaseException as error:  # no caller may wait forever
                for append in [*batch, *self._waiting]:
                    _settle(append, error)
                raise
            for append, result in zip(batch, results, strict=True):
                _settle(append, result)

    async def _write(self, batch: list[_Append]) -> list[int | None]:
        params = {
            "sids": [a.session_id for a in batch],
            "paths": [a.path for a in batch],
            "sizes": [a.size for a in batch],
            "datas": [a.data for a in batch],
            "limit": self._store.max_file_bytes,
        }
        path = batch[0].path if len(batch) == 1 else f"({len(batch)} files)"
        async with self._store.connection("append", path) as conn:
            cur = await conn.execute(self._store.statements["APPEND_MANY"], params)
            written: dict[int, int] = dict(await cur.fetchall())
        return [written.get(number) for number in range(1, len(batch) + 1)]

    async def _write_alone(self, append: _Append) -> int | None:
        return (await self._write([append]))[0]


def _settle(append: _Append, result: int | BaseException | None) -> None:
    if append.done.done():  # its caller gave up waiting
        return
    if isinstance(result, BaseException):
        append.done.set_exception(result)
    else:
        append.done.set_result(result)

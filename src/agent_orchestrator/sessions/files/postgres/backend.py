"""What a session's provider and the grouped appends ask of the PostgreSQL store, as protocols.

:class:`~.store.PostgresSessionFiles` builds both (a provider per session, one ``GroupedAppends`` per
store) and hands itself in; they need only its pooled connections, its rendered statements, its limits,
its fencing check and its sealing. Naming those here, rather than the store's class, keeps the import
order one way: ``store`` imports ``provider`` and ``appends``, and they import only this module.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Protocol

from psycopg import AsyncConnection

if TYPE_CHECKING:
    from agent_orchestrator.sessions.crypto import SessionCipher


class Connections(Protocol):
    """The store's pooled connections and statements, and its file size limit: what an append needs."""

    @property
    def statements(self) -> dict[str, str]:
        """Every statement, with the store's table names rendered in."""
        ...

    @property
    def max_file_bytes(self) -> int: ...

    def connection(self, operation: str, path: str) -> AbstractAsyncContextManager[AsyncConnection]:
        """A pooled autocommit connection; database failures come out as one ``OSError`` (EIO)."""
        ...


class Appends(Protocol):
    """Appends written together with the others that wait meanwhile (``appends.GroupedAppends``)."""

    async def append(self, session_id: str, path: str, size: int, data: bytes) -> int | None:
        """The file's chunk count after the append, or ``None`` if the one-statement path could not
        take it (the file is missing, a directory or full: nothing was written)."""
        ...


class FileBackend(Connections, Protocol):
    """Everything a session's provider needs of the store."""

    @property
    def max_path_bytes(self) -> int: ...

    @property
    def working_directory(self) -> str: ...

    @property
    def appends(self) -> Appends: ...

    @property
    def compact_threshold(self) -> int:
        """Appended chunks after which a file is folded into its base content."""
        ...

    @property
    def cipher(self) -> SessionCipher | None:
        """The sealing of the contents (``None``: stored in clear)."""
        ...

    async def check_writer(self, session_id: str, path: str) -> bool:
        """Whether to make a write (``False``: drop it); refuses (``EACCES``) a write from a server
        that no longer holds the session's lease."""
        ...

    async def seal(self, session_id: str, plaintext: bytes) -> bytes: ...

    async def unseal(self, session_id: str, stored: bytes) -> bytes: ...

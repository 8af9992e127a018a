"""Crypto-erasure in single-server mode (docs/architecture.md#encryption-at-rest).

The runtime writes the local session files itself, in clear, so they are not sealed; but the session's
data key still seals the catalog's crash-recovery messages and sealed exports. Deleting the session
(by a user or by retention) must destroy that key too: this wrapper does it after the files go, as the
PostgreSQL store does for its own files.
"""

from __future__ import annotations

from agent_orchestrator.runtime.session_files import SessionFiles
from agent_orchestrator.sessions.crypto.cipher import SessionCipher


class KeyErasingFiles:
    """``files`` (a :class:`SessionFiles`) whose ``delete_session`` also destroys the session's key."""

    def __init__(self, files: SessionFiles, cipher: SessionCipher) -> None:
        self._files = files
        self._cipher = cipher

    async def has_session(self, session_id: str) -> bool:
        return await self._files.has_session(session_id)

    async def read_events(self, session_id: str) -> bytes | None:
        return await self._files.read_events(session_id)

    async def delete_session(self, session_id: str) -> int:
        removed = await self._files.delete_session(session_id)
        await self._cipher.destroy(session_id)
        return removed

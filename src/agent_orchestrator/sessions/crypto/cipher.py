"""Sealing a session's stored bytes with its data key, for the async file stores
(docs/architecture.md#encryption-at-rest)."""

from __future__ import annotations

import asyncio

from agent_orchestrator.sessions.crypto import frames
from agent_orchestrator.sessions.crypto.keys import MasterKeys
from agent_orchestrator.sessions.crypto.keystore import SessionKeys
from agent_orchestrator.sessions.store import make_engine
from agent_orchestrator.settings import WebSettings


class SessionCipher:
    """``seal``/``unseal`` bytes of one session; the key lookups run in a thread (the key store is
    synchronous), and are cached there."""

    def __init__(self, keys: SessionKeys) -> None:
        self.keys = keys

    async def seal(self, session_id: str, plaintext: bytes) -> bytes:
        key = await asyncio.to_thread(self.keys.key_for, session_id)
        return frames.seal(key, plaintext, session_id.encode())

    async def unseal(self, session_id: str, stored: bytes) -> bytes:
        """The plaintext of ``stored``. Bytes that are not sealed (written before encryption was on,
        or empty) are returned as they are."""
        if not frames.is_sealed(stored):
            return stored
        key = await asyncio.to_thread(self.keys.key_for, session_id)
        return frames.unseal(key, stored, session_id.encode())

    async def destroy(self, session_id: str) -> None:
        await asyncio.to_thread(self.keys.destroy, session_id)

    def close(self) -> None:
        self.keys.close()


def open_cipher(web: WebSettings) -> SessionCipher | None:
    """The deployment's cipher, with its key table ensured, or ``None`` when no master key is set.
    Blocking (run it in a thread); ``close()`` it at shutdown."""
    if web.master_key is None and web.master_key_file is None:
        return None
    provider = (
        MasterKeys.from_file(web.master_key_file)
        if web.master_key_file
        else MasterKeys.from_text(web.master_key or "")
    )
    keystore_url = web.keystore_url or web.database_url
    if keystore_url.startswith(("postgresql://", "postgres://")):
        keystore_url = "postgresql+psycopg://" + keystore_url.split("://", 1)[1]
    keys = SessionKeys(make_engine(keystore_url), provider)
    try:
        keys.ensure_table()
    except BaseException:
        keys.close()
        raise
    return SessionCipher(keys)

"""Sealing a session's stored bytes with its data key, for the async file stores
(docs/architecture.md#encryption-at-rest)."""

from __future__ import annotations

import asyncio
import base64
import binascii

from agent_orchestrator.errors import DecryptionError
from agent_orchestrator.sessions.crypto import frames
from agent_orchestrator.sessions.crypto.keys import MasterKeys
from agent_orchestrator.sessions.crypto.keystore import SessionKeys
from agent_orchestrator.sessions.store import make_engine
from agent_orchestrator.settings import WebSettings

# Marks a sealed text column value: base64 of one frame follows.
SEALED_TEXT = "sealed:v1:"


class SessionCipher:
    """``seal``/``unseal`` bytes of one session; the key lookups run in a thread (the key store is
    synchronous), and are cached there."""

    def __init__(self, keys: SessionKeys) -> None:
        self.keys = keys

    async def seal(self, session_id: str, plaintext: bytes) -> bytes:
        return frames.seal(await self._key(session_id), plaintext, session_id.encode())

    async def unseal(self, session_id: str, stored: bytes) -> bytes:
        """The plaintext of ``stored``. Bytes that are not sealed (written before encryption was on,
        or empty) are returned as they are."""
        if not frames.is_sealed(stored):
            return stored
        return frames.unseal(await self._key(session_id), stored, session_id.encode())

    async def _key(self, session_id: str) -> bytes:
        """From the cache without leaving the event loop (a turn's appends), else from the key store in
        a thread."""
        key = self.keys.cached(session_id)
        return key if key is not None else await asyncio.to_thread(self.keys.key_for, session_id)

    # The catalog's text columns (``TextSealer``): sync, since the catalog runs in a thread already.

    def seal_text(self, session_id: str, text: str) -> str:
        frame = frames.seal(self.keys.key_for(session_id), text.encode(), session_id.encode())
        return SEALED_TEXT + base64.b64encode(frame).decode()

    def open_text(self, session_id: str, stored: str) -> str:
        """The text of ``stored``; text written before encryption was on is returned as it is."""
        if not stored.startswith(SEALED_TEXT):
            return stored
        try:
            frame = base64.b64decode(stored.removeprefix(SEALED_TEXT), validate=True)
        except binascii.Error:
            raise DecryptionError("A sealed catalog text is damaged.") from None
        return frames.unseal(self.keys.key_for(session_id), frame, session_id.encode()).decode()

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

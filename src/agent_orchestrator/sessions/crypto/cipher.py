"""Sealing a session's stored bytes with its data key, for the async file stores, and its texts in the
catalog and the search index, with their blind terms (docs/architecture.md#encryption-at-rest)."""

from __future__ import annotations

import asyncio
import base64
import binascii
from collections.abc import Iterable

from agent_orchestrator.errors import DecryptionError
from agent_orchestrator.sessions.crypto import frames
from agent_orchestrator.sessions.crypto.blind_index import MESSAGE_SCOPE, TITLE_SCOPE, BlindIndex
from agent_orchestrator.sessions.crypto.keys import MasterKeys
from agent_orchestrator.sessions.crypto.keystore import SessionKeys
from agent_orchestrator.sessions.search import words
from agent_orchestrator.sessions.store import make_engine
from agent_orchestrator.settings import WebSettings

# Marks a sealed text column value: base64 of one frame follows.
SEALED_TEXT = "sealed:v1:"
# What a sealed text reads as once its session's key is gone.
ERASED = "(erased)"


class SessionCipher:
    """``seal``/``unseal`` bytes of one session; the key lookups run in a thread (the key store is
    synchronous), and are cached there."""

    def __init__(self, keys: SessionKeys) -> None:
        self.keys = keys
        self._blind: BlindIndex | None = None

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

    # The catalog's and the search index's texts (``TextSealer``): sync, as both run in a thread already.

    def new_session(self, session_id: str) -> None:
        """A session is created with this id: its own key, whatever a deleted one of the id left."""
        self.keys.new_session(session_id)

    def seal_text(self, session_id: str, text: str) -> str:
        frame = frames.seal(self.keys.key_for(session_id), text.encode(), session_id.encode())
        return SEALED_TEXT + base64.b64encode(frame).decode()

    def open_text(self, session_id: str, stored: str) -> str:
        """The text of ``stored``; text written before encryption was on is returned as it is, and the
        text of a session whose key is gone (being deleted, or left by a crash midway) as ``ERASED``."""
        if not stored.startswith(SEALED_TEXT):
            return stored
        try:
            frame = base64.b64decode(stored.removeprefix(SEALED_TEXT), validate=True)
        except binascii.Error:
            raise DecryptionError("A sealed catalog text is damaged.") from None
        key = self.keys.known_key(session_id)
        return ERASED if key is None else frames.unseal(key, frame, session_id.encode()).decode()

    def prefetch(self, session_ids: Iterable[str]) -> None:
        """Fetch the keys of many sessions in one query, before opening their texts."""
        self.keys.load(session_ids)

    def title_terms(self, owner_id: int, title: str) -> str:
        """The blind terms of every word prefix of a title, space-separated with a space at each
        end, so a ``LIKE '% term %'`` finds one (docs/architecture.md#encryption-at-rest)."""
        terms = self.blind_index().terms(TITLE_SCOPE, owner_id, words.prefixes(title))
        return f" {' '.join(terms)} " if terms else ""

    def title_query(self, owner_id: int, query: str) -> list[str]:
        """The blind terms a title must all hold to match ``query``: one per word of at least two
        characters, as a word prefix."""
        typed = [word for word in words.words(query) if len(word) >= words.SHORTEST_PREFIX]
        return self.blind_index().terms(TITLE_SCOPE, owner_id, typed)

    def message_terms(self, owner_id: int, text: str) -> list[str]:
        """The blind terms of a message's stemmed words."""
        return self.blind_index().terms(MESSAGE_SCOPE, owner_id, words.stems(text))

    def query_terms(self, owner_id: int, stems: Iterable[str]) -> list[str]:
        return self.blind_index().terms(MESSAGE_SCOPE, owner_id, stems)

    def blind_index(self) -> BlindIndex:
        """The index key, from the key store once per process (it never changes: rotation re-wraps it)."""
        if self._blind is None:
            self._blind = BlindIndex(self.keys.index_key())
        return self._blind

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

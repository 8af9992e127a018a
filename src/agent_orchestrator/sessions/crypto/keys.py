"""Master keys that wrap the per-session data keys (docs/architecture.md#encryption-at-rest).

:class:`KeyProvider` is all the rest of the code asks of a master key: wrap a data key, unwrap one
(by the id of the master key that wrapped it), and say which key is current. :class:`MasterKeys` is
the built-in one, from a setting or a key file; a KMS fits the same protocol (``wrap`` and ``unwrap``
become its encrypt and decrypt calls), and the rest does not change.

Rotation: a key file lists several keys, ``ID BASE64KEY`` per line, the last one current. Add a new
line, restart, run ``python -m agent_orchestrator.sessions rotate-keys`` (every data key is re-wrapped
under the current key; the data itself is not touched), then drop the old line.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from agent_orchestrator.errors import DecryptionError, InvalidInputError
from agent_orchestrator.sessions.crypto.frames import KEY_BYTES, NONCE_BYTES


@dataclass(frozen=True, slots=True)
class WrappedKey:
    """A data key encrypted under the master key ``key_id``."""

    key_id: str
    blob: bytes


class KeyProvider(Protocol):
    """Wraps and unwraps data keys; ``context`` (the session id) is bound to the wrapping."""

    @property
    def current_id(self) -> str: ...

    def wrap(self, data_key: bytes, context: str) -> WrappedKey: ...

    def unwrap(self, wrapped: WrappedKey, context: str) -> bytes: ...


class MasterKeys:
    """AES-256-GCM key wrapping under local master keys: ``{id: key}``, the last one current."""

    def __init__(self, keys: dict[str, bytes]) -> None:
        if not keys:
            raise InvalidInputError("Encryption at rest needs at least one master key.")
        for key_id, key in keys.items():
            if len(key) != KEY_BYTES:
                raise InvalidInputError(
                    f"Master key {key_id!r} must be {KEY_BYTES} bytes (base64 of 32 bytes)."
                )
        self._keys = dict(keys)
        self._current = list(keys)[-1]

    @classmethod
    def from_text(cls, text: str) -> MasterKeys:
        """One base64 key (``AGENT_MASTER_KEY``), or key-file lines ``ID BASE64KEY`` (last current)."""
        keys: dict[str, bytes] = {}
        for line in text.splitlines():
            fields = line.split("#", 1)[0].split()
            if not fields:
                continue
            encoded = fields[-1]
            key = _decode(encoded)
            keys[fields[0] if len(fields) == 2 else hashlib.sha256(key).hexdigest()[:8]] = key
        return cls(keys)

    @classmethod
    def from_file(cls, path: Path) -> MasterKeys:
        try:
            return cls.from_text(path.read_text())
        except OSError as error:
            raise InvalidInputError(f"Cannot read the master key file {path}: {error.strerror}.") from None

    @staticmethod
    def generate() -> str:
        """A new random key, base64-encoded, for a setting or a key-file line."""
        return base64.b64encode(os.urandom(KEY_BYTES)).decode()

    @property
    def current_id(self) -> str:
        return self._current

    def wrap(self, data_key: bytes, context: str) -> WrappedKey:
        nonce = os.urandom(NONCE_BYTES)
        blob = nonce + AESGCM(self._keys[self._current]).encrypt(nonce, data_key, _aad(context))
        return WrappedKey(self._current, blob)

    def unwrap(self, wrapped: WrappedKey, context: str) -> bytes:
        key = self._keys.get(wrapped.key_id)
        if key is None:
            raise DecryptionError(
                f"Master key {wrapped.key_id!r} is not configured; it wrapped a session's key."
            )
        nonce, sealed = wrapped.blob[:NONCE_BYTES], wrapped.blob[NONCE_BYTES:]
        try:
            return AESGCM(key).decrypt(nonce, sealed, _aad(context))
        except InvalidTag:
            raise DecryptionError("A session's data key does not unwrap with its master key.") from None


def _aad(context: str) -> bytes:
    return b"agent-orchestrator data key\x00" + context.encode()


def _decode(encoded: str) -> bytes:
    try:
        return base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise InvalidInputError("A master key must be base64 (of 32 random bytes).") from None

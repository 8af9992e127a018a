"""Sealed frames: AES-256-GCM records that stay valid when concatenated
(docs/architecture.md#encryption-at-rest).

The shared session files store a file as base content plus appended chunks, and the database joins
them with ``||``. So what we store is a sequence of self-delimiting frames, one per write or append:
``MAGIC | length (4 bytes) | nonce (12) | ciphertext + tag``, and concatenating stored values
concatenates the plaintexts. Each frame is bound to its session (the associated data), so a frame
copied into another session's file does not decrypt. A fresh random nonce per frame: with 96-bit
nonces, far more frames than any session writes are safe under one key.
"""

from __future__ import annotations

import os
import struct

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from agent_orchestrator.errors import DecryptionError

MAGIC = b"\xaeE1"
_HEADER = struct.Struct(">3sI12s")
NONCE_BYTES = 12
KEY_BYTES = 32
TAG_BYTES = 16


def seal(key: bytes, plaintext: bytes, associated: bytes) -> bytes:
    """One frame holding ``plaintext``."""
    nonce = os.urandom(NONCE_BYTES)
    sealed = AESGCM(key).encrypt(nonce, plaintext, associated)
    return _HEADER.pack(MAGIC, len(sealed), nonce) + sealed


def is_sealed(data: bytes) -> bool:
    return data.startswith(MAGIC)


def unseal(key: bytes, data: bytes, associated: bytes) -> bytes:
    """The plaintexts of every frame in ``data``, joined; :class:`DecryptionError` if any frame is
    cut short, tampered with, or sealed under another key or session."""
    aead = AESGCM(key)
    parts = []
    offset = 0
    view = memoryview(data)
    while offset < len(data):
        if len(data) - offset < _HEADER.size:
            raise DecryptionError("A sealed file ends in the middle of a frame.")
        magic, length, nonce = _HEADER.unpack_from(view, offset)
        start = offset + _HEADER.size
        if magic != MAGIC or start + length > len(data):
            raise DecryptionError("A sealed file has a damaged frame.")
        try:
            parts.append(aead.decrypt(nonce, bytes(view[start : start + length]), associated))
        except InvalidTag:
            raise DecryptionError("A sealed file does not decrypt with its session's key.") from None
        offset = start + length
    return b"".join(parts)


def plaintext_size(data: bytes) -> int:
    """How many plaintext bytes ``data`` holds, from its frame headers alone (unsealed bytes: all)."""
    if not is_sealed(data):
        return len(data)
    size, offset = 0, 0
    while offset + _HEADER.size <= len(data):
        _, length, _ = _HEADER.unpack_from(data, offset)
        size += max(0, length - TAG_BYTES)
        offset += _HEADER.size + length
    return size

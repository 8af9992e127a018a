"""Encryption at rest of conversation text: envelope encryption with a data key per session, wrapped by
a master key (docs/architecture.md#encryption-at-rest)."""

from agent_orchestrator.sessions.crypto.cipher import SessionCipher, open_cipher
from agent_orchestrator.sessions.crypto.keys import KeyProvider, MasterKeys, WrappedKey
from agent_orchestrator.sessions.crypto.keystore import SessionKeys

__all__ = ["KeyProvider", "MasterKeys", "SessionCipher", "SessionKeys", "WrappedKey", "open_cipher"]

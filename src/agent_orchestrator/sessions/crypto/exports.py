"""Sealed exports: an export written to disk is sealed with its session's data key, so it is readable
only while the session exists (docs/architecture.md#encryption-at-rest).

Layout: one header line naming the session by its runtime id (what its key is stored under; the
document inside names its public id, docs/architecture.md#session-ids), then one frame (``frames.py``)
bound to the session and to its use as an export.
"""

from __future__ import annotations

from agent_orchestrator.errors import DecryptionError
from agent_orchestrator.sessions.crypto import frames
from agent_orchestrator.sessions.crypto.keystore import SessionKeys

HEADER = b"agent-orchestrator sealed export v1 "


def _associated(session_id: str) -> bytes:
    return b"export\x00" + session_id.encode()


def seal_export(keys: SessionKeys, session_id: str, text: str) -> bytes:
    return (
        HEADER
        + session_id.encode()
        + b"\n"
        + frames.seal(keys.key_for(session_id), text.encode(), _associated(session_id))
    )


def open_export(keys: SessionKeys, sealed: bytes) -> str:
    """The export's text; :class:`DecryptionError` once its session (and so its key) is gone."""
    head, newline, body = sealed.partition(b"\n")
    if not head.startswith(HEADER) or not newline:
        raise DecryptionError("This file is not a sealed export.")
    session_id = head.removeprefix(HEADER).decode(errors="replace")
    key = keys.existing_key(session_id)
    if key is None:
        raise DecryptionError(
            f"Session {session_id} was deleted: its key is gone, and its export is unreadable."
        )
    return frames.unseal(key, body, _associated(session_id)).decode()

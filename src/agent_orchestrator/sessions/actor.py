"""Who acts on a session, and the audit record of what they did (docs/architecture.md#ownership).

Shared by the session service (the catalog side) and its turn runner (a turn's start is audited too).
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_orchestrator.sessions.store import AuditAction, AuditEvent, SessionRecord, User


@dataclass(frozen=True)
class Actor:
    """Who is acting, for ownership checks and the audit trail."""

    user: User
    client_addr: str
    device: str = ""
    """The client's own name for itself (its User-Agent), for the session's activity."""
    token: str | None = None
    """The name of the API token the request came with (``None``: a browser's login), audited with
    every step so a chat's activity says "via token 'nightly-report'"."""


def audit_event(
    action: AuditAction,
    actor: Actor,
    session: SessionRecord | None,
    details: dict[str, str] | None = None,
) -> AuditEvent:
    """An audit record of ``actor`` acting on ``session``: keyed by its runtime id, which no other
    session ever had, with the public id its owner knew it by in the details, which stay once the
    catalog row is gone (docs/architecture.md#ownership)."""
    named = {"public_id": session.public_id} if session is not None else {}
    named |= {"token": actor.token} if actor.token else {}
    return AuditEvent(
        action=action,
        user_id=actor.user.id,
        username=actor.user.username,
        session_id=session.id if session is not None else None,
        client_addr=actor.client_addr,
        details=named | (details or {}),
    )

"""A session's activity, for its owner: what happened to it, from the audit log
(docs/architecture.md#session-activity).

Every step is already audited under the session's runtime id, which no other session ever had: its
creation, each turn (with the device, address and server that answered it), branches and the chat
they came from, rewinds, changed readings, stopped answers, exports and imports, renames, and its
share links created, refreshed, viewed, copied, revoked and refused. The owner sees them newest
first. Someone else's steps (a link's viewers) are shown with their time only, never a name or an
address: "someone signed in" or "someone without an account"; refused ones are counted.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime

from agent_orchestrator.sessions.actor import Actor
from agent_orchestrator.sessions.service import SessionService
from agent_orchestrator.sessions.store import AuditEvent

MAX_ACTIVITY = 500
"""The newest steps shown: a chat's whole life fits, a link viewed ten thousand times does not."""

LABELS = {
    "create": "Chat created",
    "resume": "Message answered",
    "rename": "Renamed",
    "fork": "Branched from another chat",
    "rewind": "Last answer rewound",
    "reading": "Reading changed",
    "stop": "Answer stopped",
    "export": "Exported",
    "import": "Imported",
    "share": "Share link created",
    "share_refresh": "Share link refreshed",
    "share_revoke": "Share link revoked",
    "share_view": "Share link opened",
    "share_fork": "Share link copied into an account",
    "share_refused": "Share link refused (not signed in)",
    "organise": "Organised",
    "feedback": "Answer rated",
}
"""The steps shown, in the owner's words; any other audited action of the session is left out."""
_KEPT_DETAILS = (
    *("parent", "event_id", "link", "days", "signed_in_only", "as", "source", "server", "device"),
    *("pinned", "archived", "folder", "tags", "rating"),
)


@dataclass(frozen=True)
class Step:
    at: datetime
    action: str
    label: str
    by: str
    """"you", "someone signed in" or "someone without an account": never another user's name."""
    address: str | None
    details: dict[str, str]


@dataclass(frozen=True)
class Activity:
    steps: list[Step]
    refused: int
    """How many attempts by anybody else were refused (a signed-in-only link opened without signing in)."""


class SessionActivity:
    """The activity of a caller's own session."""

    def __init__(self, service: SessionService) -> None:
        self.service = service

    async def of(self, actor: Actor, public_id: str) -> Activity:
        record = await self.service.get(actor, public_id)
        events = await asyncio.to_thread(self.service.audit.recent, session_id=record.id, limit=MAX_ACTIVITY)
        steps = [_step(event, actor) for event in events if event.action in LABELS]
        refused = sum(1 for event in events if event.action == "share_refused")
        return Activity(steps, refused)


def _step(event: AuditEvent, owner: Actor) -> Step:
    mine = event.user_id == owner.user.id
    by = "you" if mine else "someone signed in" if event.user_id is not None else "someone without an account"
    details = {k: str(v) for k, v in event.details.items() if k in _KEPT_DETAILS and (mine or k == "link")}
    return Step(
        event.at, event.action, LABELS[event.action], by, event.client_addr if mine else None, details
    )

"""A session's activity, for its owner: what happened to it, from the audit log
(docs/architecture.md#session-activity).

Every step is already audited under the session's runtime id, which no other session ever had: its
creation, each turn (with the device, address and server that answered it), branches made from it and
the chat it came from, rewinds, changed readings, stopped answers, exports and imports, renames, and
its share links created, refreshed, viewed, copied, revoked and refused. The owner sees them newest
first. Someone else's steps (a link's viewers) are shown with their time only, never a name or an
address: "someone signed in" or "someone without an account".

Refused attempts by anybody else are counted, each kind with its times: a signed-in-only link opened
without signing in, a revoked or expired link opened (its token is still stored, so it is this
session's; a token never issued is nobody's), and other users asking for the session's public id,
who were told there is no such session. Those are not keyed by the session (nothing was looked up
for them): they are the ``unknown_id`` rows asking for its public id, by anybody but its owner, since
it was created.
"""

from __future__ import annotations

import asyncio
import functools
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, get_args

import ua_parser

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
    "branched": "Branch made from this chat",
    "rewind": "Last answer rewound",
    "version": "Question asked again (a new version)",
    "version_switch": "Another version shown",
    "reading": "Reading changed",
    "stop": "Answer stopped",
    "export": "Exported",
    "import": "Imported",
    "share": "Share link created",
    "share_refresh": "Share link refreshed",
    "share_revoke": "Share link revoked",
    "share_view": "Share link opened",
    "share_fork": "Copied by a viewer of a share link",
    "share_refused": "Share link refused",
    "organise": "Organised",
    "feedback": "Answer rated",
}
"""The steps shown, in the owner's words; any other audited action of the session is left out."""

RefusalKind = Literal["session_id", "sign_in", "revoked", "expired"]
REFUSALS: dict[RefusalKind, str] = {
    "session_id": "Another user asked for a chat with this id (told there is none)",
    "sign_in": "Signed-in-only link opened without signing in",
    "revoked": "Revoked link opened",
    "expired": "Expired link opened",
}
"""The kinds of refused attempts, in the owner's words; a ``share_refused`` without a reason is from
before there were others (``sign_in``)."""

_KEPT_DETAILS = (
    *("parent", "child", "copy", "event_id", "number", "link", "days", "signed_in_only", "as", "source"),
    *("server", "device", "pinned", "archived", "folder", "tags", "rating", "reason", "views", "token"),
)
_ANYONES_DETAILS = ("link", "reason", "views")
"""What an owner is shown of someone else's step: which of their links, why it was refused, and how
many views a link's view stands for (docs/architecture.md#share-links)."""


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
class Refusals:
    """Refused attempts of one kind (a key of :data:`REFUSALS`) by anybody but the owner."""

    kind: RefusalKind
    label: str
    times: list[datetime]
    """Newest first; nothing else of whoever tried."""


@dataclass(frozen=True)
class Activity:
    steps: list[Step]
    refusals: list[Refusals]

    @property
    def refused(self) -> int:
        """How many attempts by anybody else were refused, all kinds together."""
        return sum(len(kind.times) for kind in self.refusals)


class SessionActivity:
    """The activity of a caller's own session."""

    def __init__(self, service: SessionService) -> None:
        self.service = service

    async def of(self, actor: Actor, public_id: str) -> Activity:
        record = await self.service.get(actor, public_id)
        audit = self.service.audit
        events = await asyncio.to_thread(audit.recent, session_id=record.id, limit=MAX_ACTIVITY)
        asked = await asyncio.to_thread(
            audit.asked_for,
            record.public_id,
            since=record.created_at,
            other_than=actor.user.id,
            limit=MAX_ACTIVITY,
        )
        steps = [_step(event, actor) for event in events if event.action in LABELS]
        times: dict[RefusalKind, list[datetime]] = {kind: [] for kind in REFUSALS}
        times["session_id"] = asked
        for event in events:
            if event.action == "share_refused" and event.user_id != actor.user.id:
                times[_refusal(event)].append(event.at)
        refusals = [Refusals(kind, REFUSALS[kind], at) for kind, at in times.items() if at]
        return Activity(steps, refusals)


def _step(event: AuditEvent, owner: Actor) -> Step:
    mine = event.user_id == owner.user.id
    by = "you" if mine else "someone signed in" if event.user_id is not None else "someone without an account"
    details = {
        k: str(v) for k, v in event.details.items() if k in _KEPT_DETAILS and (mine or k in _ANYONES_DETAILS)
    }
    if "device" in details:
        details["device"] = device_name(details["device"])
    label = _organised(details) if event.action == "organise" else LABELS[event.action]
    return Step(event.at, event.action, label, by, event.client_addr if mine else None, details)


def _refusal(event: AuditEvent) -> RefusalKind:
    """The kind of a ``share_refused``: its reason (none before revoked and expired links were)."""
    reason = event.details.get("reason")
    for kind in get_args(RefusalKind):
        if kind == reason:
            return kind
    return "sign_in"


def _organised(details: dict[str, str]) -> str:
    """What organising did, in the owner's words ("Pinned; moved to “Cases”"), not a bare "Organised"."""
    said = []
    if "pinned" in details:
        said.append("Pinned" if details["pinned"] == "true" else "Unpinned")
    if "archived" in details:
        said.append("Archived" if details["archived"] == "true" else "Restored from the archive")
    if "folder" in details:
        said.append(f"Moved to “{details['folder']}”" if details["folder"] else "Taken out of its folder")
    if "tags" in details:
        said.append(f"Tagged {details['tags']}" if details["tags"] else "Tags removed")
    return "; ".join(said) or LABELS["organise"]


@functools.lru_cache(maxsize=256)
def device_name(agent: str) -> str:
    """A User-Agent as its owner recognises it: "Chrome on Linux", "Mobile Safari on iPhone", or a
    client's own name for itself ("ao (terminal client)", "python-httpx") without its version."""
    found = ua_parser.parse(agent)
    browser = found.user_agent.family if found.user_agent else None
    if browser is None:
        return agent.split("/", 1)[0].strip() or "an unnamed client"
    device = found.device.family if found.device and found.device.family != "Other" else None
    system = found.os.family if found.os else None
    where = device if device and device not in ("Mac", "Generic Smartphone") else system
    return f"{browser} on {where}" if where else browser

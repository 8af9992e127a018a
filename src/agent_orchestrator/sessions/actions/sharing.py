"""Read-only share links for an :class:`Actor` (docs/architecture.md#share-links).

An owner shares a snapshot of a conversation as a link whose token is a capability, not the session
id: random, revocable, expiring, optionally for signed-in users of this server only. A viewer sees
the snapshot (never the owner's other chats, never a way to send); a signed-in viewer may continue it
as their own copy, which is an import of the snapshot into their account. Everything is audited:
links created, refreshed, revoked, viewed, refused (a signed-in-only link opened anonymously, a
revoked or expired one opened at all) and copied.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import datetime, timedelta

from agent_orchestrator.errors import NotFoundError, SignInRequiredError
from agent_orchestrator.sessions.actions.exchange import Exchange
from agent_orchestrator.sessions.actor import Actor
from agent_orchestrator.sessions.service import SessionService
from agent_orchestrator.sessions.store import AuditAction, AuditEvent, SessionRecord
from agent_orchestrator.sessions.store.schema import utcnow
from agent_orchestrator.sessions.store.share_links import ShareLink, ShareLinks
from agent_orchestrator.sessions.store.throttle import client_network

DEFAULT_DAYS = 7
MAX_DAYS = 90
UNKNOWN_LINK = "No such link: it may have expired or been revoked."
ANONYMOUS = "(anonymous)"
SIGN_IN = {"reason": "sign_in"}
REFUSALS_EVERY = timedelta(minutes=1)
"""A dead or signed-in-only link refused anonymously is written once a minute per link and reason on
each server: anybody holding a leaked link could otherwise grow the audit log at will."""
"""Why a live link was refused: a signed-in-only link opened without signing in (``share_refused``'s
other reasons are ``revoked`` and ``expired``)."""
VIEWS_EVERY = timedelta(minutes=10)
"""A live link's views are written at most once in this window per link and viewer (a signed-in
user, or an address's network for a viewer without an account) on each server, the row counting the
views it stands for (``views``: this one and those folded into it since the viewer's last row):
otherwise 300 anonymous views of a leaked link are 300 rows (docs/architecture.md#share-links). The
link's own ``views`` count each one."""


class ViewFolding:
    """Which views are written (on this server): the first of a key, then the first after ``every``
    has passed since the key's last written one, each with the number of views it stands for."""

    def __init__(self, every: timedelta) -> None:
        self.every = every
        self._last: dict[tuple[str, ...], tuple[datetime, int]] = {}

    def admit(self, key: tuple[str, ...], at: datetime) -> int | None:
        """The views the row written now stands for, or ``None`` when this view is folded (counted
        towards the key's next row)."""
        last = self._last.get(key)
        if last is not None and at - last[0] < self.every:
            self._last[key] = (last[0], last[1] + 1)
            return None
        if len(self._last) > 10_000:  # forget keys whose window is over (their folded views with them)
            self._last = {k: v for k, v in self._last.items() if at - v[0] < self.every}
        self._last[key] = (at, 0)
        return 1 + (last[1] if last is not None else 0)


class Sharing:
    """Create, list, refresh and revoke an owner's links; open and copy a link's snapshot."""

    def __init__(self, service: SessionService, links: ShareLinks, exchange: Exchange) -> None:
        self.service = service
        self.links = links
        self.exchange = exchange
        self._last_refused: dict[tuple[str, str], datetime] = {}
        self._views = ViewFolding(VIEWS_EVERY)

    async def create(
        self, actor: Actor, public_id: str, *, days: int = DEFAULT_DAYS, signed_in_only: bool = False
    ) -> tuple[ShareLink, str]:
        """A link to a snapshot of the caller's session now, and its token (shown once)."""
        record = await self.service.get(actor, public_id)
        raw = await self.service.files.read_events(record.id) or b""
        link, token = await asyncio.to_thread(
            self.links.create,
            record.id,
            actor.user.id,
            title=record.title,
            snapshot=raw,
            expires_at=utcnow() + timedelta(days=days),
            signed_in_only=signed_in_only,
        )
        details = {"link": link.id, "days": str(days), "signed_in_only": str(signed_in_only).lower()}
        await self._audit(self.service.event("share", actor, record, details=details))
        return link, token

    async def owned(self, actor: Actor) -> list[ShareLink]:
        return await asyncio.to_thread(self.links.of_owner, actor.user.id)

    async def revoke(self, actor: Actor, link_id: str) -> None:
        link = await self._owned(actor, link_id)
        if await asyncio.to_thread(self.links.revoke, actor.user.id, link_id):
            await self._audit(self._event("share_revoke", actor, link))

    async def refresh(self, actor: Actor, link_id: str) -> ShareLink:
        """The link shows the conversation as it is now (its title too)."""
        link = await self._owned(actor, link_id)
        record = await asyncio.to_thread(self.service.catalog.get, link.session_id)
        if record is None:
            raise NotFoundError(UNKNOWN_LINK)
        raw = await self.service.files.read_events(record.id) or b""
        await asyncio.to_thread(self.links.refresh, actor.user.id, link_id, title=record.title, snapshot=raw)
        await self._audit(self._event("share_refresh", actor, link))
        return await self._owned(actor, link_id)

    async def view(
        self, token: str, viewer: Actor | None, client_addr: str, *, copying: bool = False
    ) -> ShareLink:
        """The link's snapshot for ``viewer`` (``None``: not signed in); audited (a view folded into
        the viewer's last row within :data:`VIEWS_EVERY`, unless ``copying``). An unknown, revoked
        or expired token is :class:`NotFoundError`, all alike to the viewer; a revoked or expired one
        is still the owner's link, so its refusal is audited for the owner's activity (a token never
        issued belongs to no session). A signed-in-only link asks an anonymous viewer to sign in."""
        now = utcnow()
        link = await asyncio.to_thread(self.links.find, token, now)
        if link is None:
            raise NotFoundError(UNKNOWN_LINK)
        if not link.live(now):
            reason = {"reason": "revoked" if link.revoked_at else "expired"}
            await self._refused(
                self._event("share_refused", viewer, link, client_addr=client_addr, details=reason)
            )
            raise NotFoundError(UNKNOWN_LINK)
        if link.signed_in_only and viewer is None:
            await self._refused(
                self._event("share_refused", viewer, link, client_addr=client_addr, details=SIGN_IN)
            )
            raise SignInRequiredError("Sign in to this server to see this conversation.")
        await asyncio.to_thread(self.links.viewed, link.id)
        await self._viewed(self._event("share_view", viewer, link, client_addr=client_addr), always=copying)
        return link

    async def copy(self, token: str, actor: Actor) -> SessionRecord:
        """The snapshot as a new session of the signed-in viewer's own (an import: nothing of the
        owner's session is touched)."""
        link = await self.view(token, actor, actor.client_addr, copying=True)
        record = await self.exchange.import_log(actor, link.title, link.snapshot, source="share")
        await self._audit(self._event("share_fork", actor, link, details={"copy": record.public_id}))
        return record

    async def _owned(self, actor: Actor, link_id: str) -> ShareLink:
        link = await asyncio.to_thread(self.links.owned, actor.user.id, link_id)
        if link is None:
            raise NotFoundError(UNKNOWN_LINK)
        return link

    async def _refused(self, event: AuditEvent) -> None:
        """A refusal, audited at most once in ``REFUSALS_EVERY`` per link and reason (on this server)."""
        key = (str(event.session_id), str(event.details.get("reason")))
        last = self._last_refused.get(key)
        if last is not None and event.at - last < REFUSALS_EVERY:
            return
        if len(self._last_refused) > 10_000:  # forget what no longer holds a refusal back
            self._last_refused = {
                k: at for k, at in self._last_refused.items() if event.at - at < REFUSALS_EVERY
            }
        self._last_refused[key] = event.at
        await self._audit(event)

    async def _viewed(self, event: AuditEvent, *, always: bool) -> None:
        """A view, audited unless folded into its viewer's last row (see :data:`VIEWS_EVERY`); one
        ``always`` audited is a row of its own (a copy's)."""
        views: int | None = 1
        if not always:
            address = client_network(event.client_addr or "")
            who = f"user:{event.user_id}" if event.user_id is not None else address
            views = self._views.admit((str(event.details.get("link")), who), event.at)
        if views is not None:
            await self._audit(replace(event, details={**event.details, "views": str(views)}))

    async def _audit(self, event: AuditEvent) -> None:
        await asyncio.to_thread(self.service.audit.record, event)

    @staticmethod
    def _event(
        action: AuditAction,
        actor: Actor | None,
        link: ShareLink,
        *,
        client_addr: str | None = None,
        details: dict[str, str] | None = None,
    ) -> AuditEvent:
        """Keyed by the shared session, so that its owner's activity view lists it; a viewer is named
        only in the record, never shown to the owner (docs/architecture.md#share-links)."""
        return AuditEvent(
            action=action,
            username=actor.user.username if actor else ANONYMOUS,
            user_id=actor.user.id if actor else None,
            session_id=link.session_id,
            client_addr=client_addr or (actor.client_addr if actor else None),
            details={"link": link.id, **(details or {})},
        )

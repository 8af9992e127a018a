"""Organising an owner's chats: pin, archive, folders, tags, one chat or many at once
(docs/architecture.md#organising-chats).

A change is made in the catalog (``SessionCatalog.organise``: one transaction with its audit record)
and announced on the owner's list feed (``organised``), so every tab and device lists again; the
chat's own feed hears it too, for a device that has it open. None of it is activity: the list keeps
its order. A bulk change resolves every id in the caller's namespace first: an unknown id and another
user's are both "missing", and the others are changed; a bulk delete deletes each chat as a single
delete does (its turn stopped, its files, key and feed gone).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace

from agent_orchestrator.errors import InvalidInputError, SessionNotFoundError
from agent_orchestrator.sessions.actor import Actor
from agent_orchestrator.sessions.ids import validate_session_id
from agent_orchestrator.sessions.live.feed import session_stream, user_stream
from agent_orchestrator.sessions.service import SessionService
from agent_orchestrator.sessions.store import Batch, SessionRecord
from agent_orchestrator.sessions.store.catalog import Labels

MAX_BULK = 200
"""Chats in one bulk change: a page of the list at its largest."""


@dataclass(frozen=True)
class Change:
    """What to change; ``None`` leaves a part as it is. ``move`` files the chat in ``folder`` (``None``:
    in no folder)."""

    pinned: bool | None = None
    archived: bool | None = None
    move: bool = False
    folder: str | None = None
    tags: tuple[str, ...] | None = None

    def details(self) -> dict[str, str]:
        """For the audit record: which parts changed to what (folder and tag names are the owner's)."""
        said: dict[str, str] = {}
        if self.pinned is not None:
            said["pinned"] = str(self.pinned).lower()
        if self.archived is not None:
            said["archived"] = str(self.archived).lower()
        if self.move:
            said["folder"] = self.folder or ""
        if self.tags is not None:
            said["tags"] = ", ".join(self.tags)
        return said


@dataclass(frozen=True)
class BulkOutcome:
    done: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


class Organising:
    """Organise a caller's chats (ownership checked, audited ``organise``, announced live)."""

    def __init__(self, service: SessionService) -> None:
        self.service = service

    async def change(self, actor: Actor, public_id: str, change: Change) -> SessionRecord:
        record = await self.service.get(actor, public_id)
        if not await self._apply(actor, record, change):
            raise SessionNotFoundError("No such session.")  # deleted meanwhile
        await self._announce(actor, [record])
        again = await self.service._reread(actor, record)
        tags = await asyncio.to_thread(self.service.catalog.tags_of, [again.id])
        return replace(again, tags=tags.get(again.id, ()))

    async def change_many(self, actor: Actor, public_ids: list[str], change: Change | None) -> BulkOutcome:
        """Apply ``change`` to each of the caller's chats named (``None``: delete them)."""
        ids = _unique(public_ids)
        outcome = BulkOutcome()
        changed: list[SessionRecord] = []
        for public_id in ids:
            try:
                if change is None:
                    await self.service.delete(actor, public_id)  # resolves the id itself
                else:
                    record = await self.service.get(actor, public_id)
                    if not await self._apply(actor, record, change):
                        raise SessionNotFoundError("No such session.")
                    changed.append(record)
            except SessionNotFoundError:
                outcome.missing.append(public_id)
                continue
            outcome.done.append(public_id)
        if changed:
            await self._announce(actor, changed)
        return outcome

    async def labels(self, actor: Actor) -> Labels:
        return await asyncio.to_thread(self.service.catalog.labels, actor.user.id)

    async def _apply(self, actor: Actor, record: SessionRecord, change: Change) -> bool:
        move = {"folder": change.folder} if change.move else {}
        return await asyncio.to_thread(
            self.service.catalog.organise,
            record.id,
            actor.user.id,
            pinned=change.pinned,
            archived=change.archived,
            tags=change.tags,
            audit=self.service.event("organise", actor, record, details=change.details()),
            **move,
        )

    async def _announce(self, actor: Actor, records: list[SessionRecord]) -> None:
        batches = [Batch(session_stream(record.id), [("organised", {})]) for record in records]
        listed = [("organised", {"id": record.public_id}) for record in records]
        await self.service._announce(*batches, Batch(user_stream(actor.user.id), listed))


def _unique(public_ids: list[str]) -> list[str]:
    """The ids in order, once each, each a valid id (checked before anything changes)."""
    if not 1 <= len(public_ids) <= MAX_BULK:
        raise InvalidInputError(f"Name 1 to {MAX_BULK} chats.")
    return list(dict.fromkeys(validate_session_id(public_id) for public_id in public_ids))

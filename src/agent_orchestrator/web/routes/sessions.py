"""The user's sessions: list, create, read, rename, delete. A ``{session_id}`` in a path is the
caller's public id, resolved in the caller's namespace by the session service, so another user's id
answers 404 exactly like an unknown one, and every session shown carries its public id only
(docs/architecture.md#session-ids).
"""

import asyncio
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Query, Response, status
from pydantic import BaseModel, ConfigDict, Field, model_validator

from agent_orchestrator.sessions.actions.organising import Change
from agent_orchestrator.sessions.store import SessionRecord
from agent_orchestrator.web.deps import CurrentActor, ServicesDep
from agent_orchestrator.web.fields import NulFree
from agent_orchestrator.web.routes.usage import TokensOut

router = APIRouter(prefix="/api/sessions", tags=["sessions"])


class SessionOut(BaseModel):
    id: str
    title: str
    case_key: str | None
    model: str | None
    created_at: datetime
    updated_at: datetime
    preview: str
    status: str
    turn_count: int
    parent_id: str | None = None
    parent_event_id: str | None = None
    pinned: bool = False
    archived: bool = False
    folder: str | None = Field(default=None, description="The chat's folder: its case key.")
    tags: list[str] = []
    title_source: str = Field(
        default="user", description="default (untitled), auto (named by the app) or user (the owner's own)."
    )

    @classmethod
    def of(cls, record: SessionRecord) -> "SessionOut":
        """The session as its owner sees it: ``id`` is the public id, never the runtime's."""
        shown = {
            "id": record.public_id,
            "pinned": record.pinned_at is not None,
            "archived": record.archived_at is not None,
            "folder": record.case_key,
            "tags": list(record.tags),
        }
        return cls.model_validate(record, from_attributes=True).model_copy(update=shown)


class SessionDetailOut(SessionOut):
    """One session with the model tokens its turns used."""

    usage: TokensOut


class SessionPageOut(BaseModel):
    items: list[SessionOut]
    next_cursor: str | None


class CreateSession(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: str | None = Field(default=None, min_length=1, max_length=120)
    case_key: str | None = Field(default=None, min_length=1, max_length=80, pattern=r"^[A-Za-z0-9._:-]+$")
    id: str | None = Field(
        default=None,
        description="A stable semantic id (optional), unique among your own sessions (not anyone else's).",
    )


class UpdateSession(BaseModel):
    """Any of: a new title (the owner's: never replaced by the app), pinned, archived, a folder
    (``null``: none) and the whole list of tags. Parts left out stay as they are."""

    model_config = ConfigDict(extra="forbid")
    title: str | None = Field(default=None, min_length=1, max_length=120)
    pinned: bool | None = None
    archived: bool | None = None
    folder: str | None = Field(default=None, min_length=1, max_length=80)
    tags: list[str] | None = Field(default=None, max_length=10)

    @model_validator(mode="after")
    def _says_something(self) -> "UpdateSession":
        if not self.model_fields_set:
            raise ValueError("Say what to change: title, pinned, archived, folder or tags.")
        if self.title is None and "title" in self.model_fields_set:
            raise ValueError("A title cannot be null.")
        return self

    def change(self) -> Change | None:
        """The organising part, if any."""
        moved = "folder" in self.model_fields_set
        tags = None if self.tags is None else tuple(self.tags)
        if self.pinned is None and self.archived is None and not moved and tags is None:
            return None
        return Change(pinned=self.pinned, archived=self.archived, move=moved, folder=self.folder, tags=tags)


@router.get("", summary="The user's sessions, newest first")
async def list_sessions(
    actor: CurrentActor,
    services: ServicesDep,
    limit: int = Query(50, ge=1, le=200),
    cursor: Annotated[NulFree | None, Query(max_length=200)] = None,
    q: Annotated[NulFree | None, Query(max_length=120, description="search in titles")] = None,
    case: Annotated[NulFree | None, Query(max_length=80, description="only this folder (case key)")] = None,
    tag: Annotated[NulFree | None, Query(max_length=40, description="only chats with this tag")] = None,
    pinned: Annotated[bool | None, Query(description="only pinned (true) or unpinned (false) chats")] = None,
    archived: Annotated[
        bool | None,
        Query(
            description="only archived (true) or active (false) chats; by default active ones, and all "
            "of them when searching"
        ),
    ] = None,
) -> SessionPageOut:
    if archived is None and not q:
        archived = False  # archived chats leave the list, but a search still finds them
    page = await services.sessions.list_sessions(
        actor,
        limit=limit,
        cursor=cursor,
        case_key=case,
        search=q or None,
        pinned=pinned,
        archived=archived,
        tag=tag,
    )
    return SessionPageOut(items=[SessionOut.of(r) for r in page.items], next_cursor=page.next_cursor)


@router.post("", status_code=status.HTTP_201_CREATED, summary="Start a new session")
async def create_session(body: CreateSession, actor: CurrentActor, services: ServicesDep) -> SessionOut:
    record = await services.sessions.create(
        actor, title=body.title, case_key=body.case_key, session_id=body.id
    )
    return SessionOut.of(record)


@router.get("/{session_id}", summary="One session's details")
async def get_session(session_id: str, actor: CurrentActor, services: ServicesDep) -> SessionDetailOut:
    record = await services.sessions.get(actor, session_id)  # ownership first: 404 for another's id
    tokens = await asyncio.to_thread(services.usage.ledger.for_session, record.id)
    tags = await asyncio.to_thread(services.sessions.catalog.tags_of, [record.id])
    shown = SessionOut.of(record).model_copy(update={"tags": list(tags.get(record.id, ()))})
    return SessionDetailOut(**shown.model_dump(), usage=TokensOut.of(tokens))


@router.patch("/{session_id}", summary="Rename, pin, archive, file in a folder or tag a session")
async def update_session(
    session_id: str, body: UpdateSession, actor: CurrentActor, services: ServicesDep
) -> SessionOut:
    change = body.change()
    if body.title is not None:
        await services.sessions.rename(actor, session_id, body.title)
    if change is not None:
        return SessionOut.of(await services.organising.change(actor, session_id, change))
    return await get_session(session_id, actor, services)


@router.delete("/{session_id}", status_code=status.HTTP_204_NO_CONTENT, summary="Delete a session everywhere")
async def delete_session(session_id: str, actor: CurrentActor, services: ServicesDep) -> Response:
    await services.sessions.delete(actor, session_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post(
    "/{session_id}/stop",
    status_code=status.HTTP_202_ACCEPTED,
    summary="Stop the answer being written, on whichever server writes it",
    responses={409: {"description": "The chat is not answering anything"}},
)
async def stop_answer(session_id: str, actor: CurrentActor, services: ServicesDep) -> Response:
    """The answer's stream ends with ``done`` marked ``stopped``, holding what was said by then."""
    await services.sessions.stop(actor, session_id)
    return Response(status_code=status.HTTP_202_ACCEPTED)


@router.post(
    "/{session_id}/composing",
    status_code=status.HTTP_204_NO_CONTENT,
    summary="Say the user is writing a message: the server gets the session ready for it",
)
async def composing(session_id: str, actor: CurrentActor, services: ServicesDep) -> Response:
    await services.sessions.composing(actor, session_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)

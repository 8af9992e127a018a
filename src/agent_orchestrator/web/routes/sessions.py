"""The user's sessions: list, create, read, rename, delete. A ``{session_id}`` in a path is the
caller's public id, resolved in the caller's namespace by the session service, so another user's id
answers 404 exactly like an unknown one, and every session shown carries its public id only
(docs/architecture.md#session-ids).
"""

import asyncio
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Query, Response, status
from pydantic import BaseModel, ConfigDict, Field

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

    @classmethod
    def of(cls, record: SessionRecord) -> "SessionOut":
        """The session as its owner sees it: ``id`` is the public id, never the runtime's."""
        return cls.model_validate(record, from_attributes=True).model_copy(update={"id": record.public_id})


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


class RenameSession(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: str = Field(min_length=1, max_length=120)


@router.get("", summary="The user's sessions, newest first")
async def list_sessions(
    actor: CurrentActor,
    services: ServicesDep,
    limit: int = Query(50, ge=1, le=200),
    cursor: Annotated[NulFree | None, Query(max_length=200)] = None,
    q: Annotated[NulFree | None, Query(max_length=120, description="search in titles")] = None,
    case: Annotated[NulFree | None, Query(max_length=80, description="only this case/workflow key")] = None,
) -> SessionPageOut:
    page = await services.sessions.list_sessions(
        actor, limit=limit, cursor=cursor, case_key=case, search=q or None
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
    return SessionDetailOut(**SessionOut.of(record).model_dump(), usage=TokensOut.of(tokens))


@router.patch("/{session_id}", summary="Rename a session")
async def rename_session(
    session_id: str, body: RenameSession, actor: CurrentActor, services: ServicesDep
) -> SessionOut:
    return SessionOut.of(await services.sessions.rename(actor, session_id, body.title))


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

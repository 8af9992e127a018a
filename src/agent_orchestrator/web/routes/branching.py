"""Branching a conversation: fork at a message, edit or regenerate (versions of a turn) and switch
between versions, rewind. Each goes through
:class:`~agent_orchestrator.sessions.actions.branching.Branching` (ownership, audit, lease); another user's id
answers 404 like an unknown one. Turns stream as the message route's SSE."""

from fastapi import APIRouter, status
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from agent_orchestrator.sessions import MAX_REWIND
from agent_orchestrator.sessions.store.turn_versions import MAX_VERSIONS
from agent_orchestrator.web.deps import CurrentActor, ServicesDep
from agent_orchestrator.web.fields import NulFree
from agent_orchestrator.web.routes.messages import SendMessage, check_message, turn_stream
from agent_orchestrator.web.routes.sessions import SessionOut

router = APIRouter(prefix="/api/sessions/{session_id}", tags=["branching"])


class ForkSession(BaseModel):
    model_config = ConfigDict(extra="forbid")
    event_id: NulFree = Field(min_length=1, max_length=64, description="the message to fork at")
    before: bool = Field(default=False, description="keep only what came before the message")
    title: str | None = Field(default=None, min_length=1, max_length=120)


class ShowVersion(BaseModel):
    model_config = ConfigDict(extra="forbid")
    number: int = Field(ge=1, le=MAX_VERSIONS, description="the version of the question to show")


class RewindSession(BaseModel):
    model_config = ConfigDict(extra="forbid")
    turns: int = Field(default=1, ge=1, le=MAX_REWIND)


@router.post("/fork", status_code=status.HTTP_201_CREATED, summary="Fork: the history up to a message")
async def fork_session(
    session_id: str, body: ForkSession, actor: CurrentActor, services: ServicesDep
) -> SessionOut:
    record = await services.branching.fork(
        actor, session_id, body.event_id, before=body.before, title=body.title
    )
    return SessionOut.of(record)


@router.post(
    "/messages/{event_id}/edit",
    summary="Ask an edited question instead of one you sent, as a new version of its turn (SSE)",
    response_class=StreamingResponse,
)
async def edit(
    session_id: str, event_id: str, body: SendMessage, actor: CurrentActor, services: ServicesDep
) -> StreamingResponse:
    check_message(body.content, services)
    return turn_stream(await services.branching.edit(actor, session_id, event_id, body.content))


@router.post(
    "/regenerate",
    summary="Answer the last question again, as a new version of the last turn (SSE)",
    response_class=StreamingResponse,
)
async def regenerate(session_id: str, actor: CurrentActor, services: ServicesDep) -> StreamingResponse:
    return turn_stream(await services.branching.regenerate(actor, session_id))


@router.put("/messages/{event_id}/version", summary="Show another version of a question you asked")
async def show_version(
    session_id: str, event_id: str, body: ShowVersion, actor: CurrentActor, services: ServicesDep
) -> SessionOut:
    return SessionOut.of(await services.branching.switch_version(actor, session_id, event_id, body.number))


@router.post("/rewind", summary="Remove the last turns of the session, in place")
async def rewind(
    session_id: str, body: RewindSession, actor: CurrentActor, services: ServicesDep
) -> SessionOut:
    return SessionOut.of(await services.branching.rewind(actor, session_id, body.turns))

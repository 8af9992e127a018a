"""Feedback on answers, and its export as eval cases for admins (docs/architecture.md#feedback)."""

from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query, Response, status
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from agent_orchestrator.sessions.store.feedback import NOTE_MAX
from agent_orchestrator.web.deps import AdminFirstRoute, CurrentActor, CurrentAdmin, ServicesDep

router = APIRouter(tags=["feedback"], route_class=AdminFirstRoute)
ANSWER = "/api/sessions/{session_id}/messages/{event_id}/feedback"
EventId = Annotated[str, Path(min_length=1, max_length=64, description="The answer's event id.")]


class Rate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    rating: Literal["up", "down"]
    note: str = Field(default="", max_length=NOTE_MAX)


@router.put(ANSWER, status_code=status.HTTP_204_NO_CONTENT, summary="Rate an answer, with an optional note")
async def rate_answer(
    session_id: str, event_id: EventId, body: Rate, actor: CurrentActor, services: ServicesDep
) -> Response:
    await services.feedback.rate(actor, session_id, event_id, body.rating, body.note)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.delete(ANSWER, status_code=status.HTTP_204_NO_CONTENT, summary="Take back an answer's rating")
async def clear_rating(
    session_id: str, event_id: str, actor: CurrentActor, services: ServicesDep
) -> Response:
    await services.feedback.clear(actor, session_id, event_id[:64])
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get(
    "/api/admin/feedback",
    summary="Every rated answer as eval cases (JSON lines), for bench/eval_assistant.py --replay",
    response_class=StreamingResponse,
)
async def export_feedback(
    admin: CurrentAdmin,
    services: ServicesDep,
    rating: Literal["up", "down"] | None = Query(None, description="only this rating"),
) -> StreamingResponse:
    lines = await services.feedback.export(admin, rating=rating)
    disposition = {"Content-Disposition": 'attachment; filename="feedback-cases.jsonl"'}
    return StreamingResponse(lines, media_type="application/x-ndjson", headers=disposition)

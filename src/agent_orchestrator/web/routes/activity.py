"""A session's activity for its owner (docs/architecture.md#session-activity)."""

from datetime import datetime

from fastapi import APIRouter
from pydantic import BaseModel, Field

from agent_orchestrator.sessions.actions.activity import RefusalKind
from agent_orchestrator.web.deps import CurrentActor, ServicesDep

router = APIRouter(prefix="/api/sessions/{session_id}/activity", tags=["sessions"])


class StepOut(BaseModel):
    at: datetime
    action: str
    label: str
    by: str = Field(description="'you', 'someone signed in' or 'someone without an account': never a name.")
    address: str | None = Field(description="Where your own steps came from; none for anybody else's.")
    details: dict[str, str]


class RefusalsOut(BaseModel):
    kind: RefusalKind = Field(
        description="Another user asked for the chat's id, or a link was opened without signing in, "
        "after it was revoked, or after it expired."
    )
    label: str
    count: int
    last_at: datetime
    times: list[datetime] = Field(description="Newest first: when, and nothing else of whoever tried.")


class ActivityOut(BaseModel):
    steps: list[StepOut] = Field(description="Newest first.")
    refused: int = Field(description="Attempts by anybody else that were refused.")
    refusals: list[RefusalsOut] = Field(description="The refused attempts, by kind.")


@router.get("", summary="What happened to the session, from the audit log")
async def session_activity(session_id: str, actor: CurrentActor, services: ServicesDep) -> ActivityOut:
    activity = await services.activity.of(actor, session_id)
    return ActivityOut(
        steps=[
            StepOut(at=s.at, action=s.action, label=s.label, by=s.by, address=s.address, details=s.details)
            for s in activity.steps
        ],
        refused=activity.refused,
        refusals=[
            RefusalsOut(kind=r.kind, label=r.label, count=len(r.times), last_at=r.times[0], times=r.times)
            for r in activity.refusals
        ],
    )

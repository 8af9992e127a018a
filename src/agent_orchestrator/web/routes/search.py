"""Search across the user's conversations: titles and message text, the user's own only."""

from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel

from agent_orchestrator.sessions.search.index import MAX_LIMIT
from agent_orchestrator.web.deps import CurrentActor, ServicesDep
from agent_orchestrator.web.fields import NulFree
from agent_orchestrator.web.routes.sessions import SessionOut

router = APIRouter(prefix="/api/search", tags=["search"])


class SnippetPart(BaseModel):
    text: str
    hit: bool


class MessageHit(BaseModel):
    session_id: str
    title: str
    event_id: str
    role: str
    timestamp: str
    snippet: list[SnippetPart]


class SearchOut(BaseModel):
    sessions: list[SessionOut]
    messages: list[MessageHit]


@router.get("", summary="Sessions whose title matches and messages that contain the words")
async def search(
    actor: CurrentActor,
    services: ServicesDep,
    q: Annotated[
        NulFree, Query(max_length=200, description="words to find (the last may be the start of a word)")
    ],
    limit: int = Query(20, ge=1, le=MAX_LIMIT),
) -> SearchOut:
    results = await services.branching.search(actor, q, limit=limit)
    return SearchOut(
        sessions=[SessionOut.of(record) for record in results.sessions],
        messages=[
            MessageHit(
                session_id=hit.session_id,
                title=hit.title,
                event_id=hit.event_id,
                role=hit.role,
                timestamp=hit.timestamp,
                snippet=[SnippetPart(text=text, hit=is_hit) for text, is_hit in hit.snippet],
            )
            for hit in results.messages
        ],
    )

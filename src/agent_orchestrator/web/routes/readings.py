"""Changing the reading of an answer: the edited sales query, computed again without the model and
recorded as a turn of the conversation (docs/architecture.md#editing-a-reading).

Like a send, it needs the login and the CSRF header, answers another user's session as an unknown
one (404) and a session with a turn in flight with 409. A query that is not valid, or that the data
cannot answer, is a 422 with one message, and nothing is recorded. The new turn reaches every tab on
the live feed, as a turn does; the response carries it too.
"""

import functools
from typing import Any

from fastapi import APIRouter, status
from pydantic import BaseModel, ConfigDict, Field

from agent_orchestrator.web.deps import CurrentActor, ServicesDep
from agent_orchestrator.web.readings import Tool, compute, compute_data_query, parse_query
from agent_orchestrator.web.routes.messages import MessageOut

router = APIRouter(prefix="/api/sessions/{session_id}/readings", tags=["readings"])


class ChangeReading(BaseModel):
    model_config = ConfigDict(extra="forbid")
    query: dict[str, Any] = Field(
        description="The reading's query with the part changed (the query tool's arguments)."
    )
    tool: Tool = Field("analyze_sales", description="The query tool the reading is of")


class ChangedReading(BaseModel):
    """The turn the change added: its line and the answer computed for it."""

    messages: list[MessageOut]


@router.post(
    "",
    status_code=status.HTTP_201_CREATED,
    summary="Change an answer's reading; the answer is computed again and added to the conversation",
    responses={
        404: {"description": "No such session"},
        409: {"description": "A message of the session is being answered"},
        422: {"description": "The query is not valid, or the data cannot answer it"},
    },
)
async def change_reading(
    session_id: str, body: ChangeReading, actor: CurrentActor, services: ServicesDep
) -> ChangedReading:
    current_path = services.datasets.current_path
    if body.tool == "query_data":
        compute_it = functools.partial(compute_data_query, current_path, body.query)
    else:
        compute_it = functools.partial(compute, current_path, parse_query(body.query))
    added = await services.readings.change(actor, session_id, compute_it)
    return ChangedReading(messages=[MessageOut.of(message) for message in added])

"""A session's messages: the transcript, and sending a message with the answer streamed as SSE.

Events: ``delta`` {text}, ``tool`` {call_id, name, status, success?}, ``done`` {content, html, charts,
readings, stopped?}, ``error`` {message, code}. Busy (another turn in flight anywhere) is a 409 before the
stream starts; so is a send whose ``last_event_id`` shows the sender missed messages (the body lists
them).
``charts`` and ``readings`` (here, in the live feed and in the transcript) are drawn from what the
turn's tools returned (``web/charts.py``, ``web/readings.py``); an imported chat's tool results are
only ``imported_tools``, text the file brought, never drawn (docs/architecture.md#export-and-import).

The transcript says where the session's live feed goes on from (``last_event_id``) and, mid-turn,
what the turn has said so far (``live_turn``): docs/architecture.md#live-sessions.
"""

import json
from collections.abc import AsyncIterator, Mapping
from typing import Any, Self

from fastapi import APIRouter, HTTPException, status
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from agent_orchestrator.sessions import ToolResult, TranscriptMessage, TurnEvent, describe
from agent_orchestrator.sessions.store import MAX_SEQ
from agent_orchestrator.sessions.store.turn_versions import Versions
from agent_orchestrator.sse import event_stream, frame
from agent_orchestrator.web.charts import Chart, charts_for
from agent_orchestrator.web.customer_links import customer_ids
from agent_orchestrator.web.deps import CurrentActor, Services, ServicesDep
from agent_orchestrator.web.fields import NulFree
from agent_orchestrator.web.markdown import render_markdown
from agent_orchestrator.web.readings import Reading, readings_for
from agent_orchestrator.web.routes.sessions import SessionOut

router = APIRouter(prefix="/api/sessions/{session_id}/messages", tags=["messages"])


# An imported tool result is shown as text, for reading along: its head is enough, and a forged one
# may be megabytes long.
IMPORTED_TOOL_CHARS = 4_000


class ImportedToolOut(BaseModel):
    """What an imported chat's file says one of its tools returned: text to show as imported."""

    tool: str
    content: str = Field(
        description=f"The result as the file has it, cut at {IMPORTED_TOOL_CHARS:,} characters."
    )


class FeedbackOut(BaseModel):
    rating: str = Field(description="up or down")
    note: str


class VersionOut(BaseModel):
    number: int = Field(description="The version shown (1 is the first asked).")
    count: int = Field(description="How many versions the question has.")


class MessageOut(BaseModel):
    event_id: str
    role: str
    content: str
    html: str | None
    timestamp: str
    interrupted: bool
    stopped: bool = Field(
        default=False, description="An answer stopped while it was written: its words so far."
    )
    charts: list[Chart] = []
    readings: list[Reading] = []
    imported_tools: list[ImportedToolOut] = Field(
        default=[], description="Tool results that came with an imported chat: not this server's data."
    )
    feedback: FeedbackOut | None = Field(default=None, description="The owner's rating of this answer.")
    version: VersionOut | None = Field(
        default=None, description="A question edited or answered again: which of its versions this is."
    )

    @classmethod
    def of(
        cls,
        message: TranscriptMessage,
        rated: Mapping[str, tuple[str, str]] | None = None,
        versions: Mapping[str, Versions] | None = None,
    ) -> Self:
        assistant = message.role == "assistant"
        return cls(
            event_id=message.event_id,
            role=message.role,
            content=message.content,
            html=_html(message.content, message.tool_results) if assistant else None,
            timestamp=message.timestamp,
            interrupted=message.interrupted,
            stopped=message.stopped,
            charts=charts_for(message.tool_results),
            readings=readings_for(message.tool_results, message.content),
            imported_tools=[
                ImportedToolOut(tool=result.tool, content=_cut(result.content))
                for result in message.imported_tool_results
            ],
            feedback=_feedback(message, rated or {}),
            version=_version(message, versions or {}),
        )


class LiveTurnOut(BaseModel):
    prompt: str
    text: str
    tools: list[dict[str, Any]]


class TranscriptOut(BaseModel):
    session: SessionOut
    messages: list[MessageOut]
    busy: bool
    last_event_id: int = Field(description="The live feed's position this transcript is consistent with.")
    live_turn: LiveTurnOut | None = Field(description="The turn in flight, as far as it got.")


class SendMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")
    content: NulFree = Field(min_length=1)
    last_event_id: int | None = Field(
        default=None,
        ge=0,
        le=MAX_SEQ,
        description="The last live event the sender saw; a send that missed messages is refused (409).",
    )


@router.get("", summary="The conversation so far")
async def get_messages(session_id: str, actor: CurrentActor, services: ServicesDep) -> TranscriptOut:
    transcript, joined = await services.sessions.join(actor, session_id)
    rated = await services.feedback.of_session(transcript.session.id)
    versions = await services.branching.versions_of(transcript.session.id, joined.messages)
    live = joined.live_turn
    return TranscriptOut(
        session=SessionOut.of(transcript.session),
        messages=[MessageOut.of(m, rated, versions) for m in joined.messages],
        busy=transcript.busy,
        last_event_id=joined.last_event_id,
        live_turn=LiveTurnOut(prompt=live.prompt, text=live.text, tools=live.tools) if live else None,
    )


@router.post(
    "",
    summary="Send a message; the answer streams back as server-sent events",
    response_class=StreamingResponse,
    responses={409: {"description": "Another message is being answered, or the sender missed messages"}},
)
async def send_message(
    session_id: str, body: SendMessage, actor: CurrentActor, services: ServicesDep
) -> StreamingResponse:
    check_message(body.content, services)
    events = await services.sessions.send(actor, session_id, body.content, seen=body.last_event_id)
    return turn_stream(events)


def check_message(content: str, services: Services) -> None:
    """A message the model may be sent: not empty, within ``AGENT_WEB_MAX_PROMPT_CHARS``."""
    limit = services.settings.max_prompt_chars
    if len(content) > limit:
        detail = f"Messages are limited to {limit:,} characters."
        raise HTTPException(status.HTTP_413_CONTENT_TOO_LARGE, detail)
    if not content.strip():
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, "The message is empty.")


def turn_stream(events: AsyncIterator[TurnEvent], headers: dict[str, str] | None = None) -> StreamingResponse:
    """A turn's events as the SSE response every turn route answers with."""
    return event_stream(
        _sse(events), headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no", **(headers or {})}
    )


def _feedback(message: TranscriptMessage, rated: Mapping[str, tuple[str, str]]) -> FeedbackOut | None:
    found = rated.get(message.event_id) if message.event_id else None
    return FeedbackOut(rating=found[0], note=found[1]) if found else None


def _version(message: TranscriptMessage, versions: Mapping[str, Versions]) -> VersionOut | None:
    found = versions.get(message.event_id) if message.role == "user" else None
    return VersionOut(number=found.number, count=found.count) if found else None


def _cut(text: str) -> str:
    return text if len(text) <= IMPORTED_TOOL_CHARS else text[:IMPORTED_TOOL_CHARS] + "…"


def _html(text: str, tool_results: tuple[ToolResult, ...]) -> str:
    return render_markdown(text, customer_ids(tool_results))


def feed_data(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """An event's data as the browser gets it: an answer also as safe HTML (web/markdown.py) with the
    charts and readings of what its tools returned (the feed stores the tool results, not the
    drawings)."""
    if kind == "done":
        results = tuple(ToolResult(**result) for result in data.get("tool_results", ()))
        text = str(data.get("content", ""))
        charts = [chart.model_dump() for chart in charts_for(results)]
        readings = [reading.model_dump() for reading in readings_for(results, text)]
        drawn = {"content": text, "html": _html(text, results), "charts": charts, "readings": readings}
        return drawn | ({"stopped": True} if data.get("stopped") else {})
    return data


async def _sse(events: AsyncIterator[TurnEvent]) -> AsyncIterator[str]:
    async for event in events:
        kind, data = describe(event)
        yield frame(json.dumps(feed_data(kind, data), ensure_ascii=False), event=kind)

"""A session's messages: the transcript, and sending a message with the answer streamed as SSE.

Events: ``delta`` {text}, ``tool`` {call_id, name, status, success?}, ``done`` {content, html, charts},
``error`` {message, code}. Busy (another turn in flight anywhere) is a 409 before the stream starts.
``charts`` (here and in the transcript) are drawn from what the turn's tools returned (``web/charts.py``).
"""

import json
from collections.abc import AsyncIterator

from fastapi import APIRouter, HTTPException, status
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from agent_orchestrator.sessions.tool_results import ToolResult
from agent_orchestrator.sessions.turns import Delta, Done, Failed, ToolFinished, ToolStarted, TurnEvent
from agent_orchestrator.sse import event_stream, frame
from agent_orchestrator.web.charts import Chart, charts_for
from agent_orchestrator.web.customer_links import customer_ids
from agent_orchestrator.web.deps import CurrentActor, Services, ServicesDep
from agent_orchestrator.web.markdown import render_markdown
from agent_orchestrator.web.routes.sessions import SessionOut

router = APIRouter(prefix="/api/sessions/{session_id}/messages", tags=["messages"])


class MessageOut(BaseModel):
    event_id: str
    role: str
    content: str
    html: str | None
    timestamp: str
    interrupted: bool
    charts: list[Chart] = []


class TranscriptOut(BaseModel):
    session: SessionOut
    messages: list[MessageOut]
    busy: bool


class SendMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")
    content: str = Field(min_length=1)


@router.get("", summary="The conversation so far")
async def get_messages(session_id: str, actor: CurrentActor, services: ServicesDep) -> TranscriptOut:
    transcript = await services.sessions.transcript(actor, session_id)
    return TranscriptOut(
        session=SessionOut.of(transcript.session),
        messages=[
            MessageOut(
                event_id=m.event_id,
                role=m.role,
                content=m.content,
                html=_html(m.content, m.tool_results) if m.role == "assistant" else None,
                timestamp=m.timestamp,
                interrupted=m.interrupted,
                charts=charts_for(m.tool_results),
            )
            for m in transcript.messages
        ],
        busy=transcript.busy,
    )


@router.post(
    "",
    summary="Send a message; the answer streams back as server-sent events",
    response_class=StreamingResponse,
    responses={409: {"description": "Another message of this session is being answered"}},
)
async def send_message(
    session_id: str, body: SendMessage, actor: CurrentActor, services: ServicesDep
) -> StreamingResponse:
    check_message(body.content, services)
    return turn_stream(await services.sessions.send(actor, session_id, body.content))


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


def _html(text: str, tool_results: tuple[ToolResult, ...]) -> str:
    return render_markdown(text, customer_ids(tool_results))


def _frame(name: str, data: dict) -> str:
    return frame(json.dumps(data, ensure_ascii=False), event=name)


async def _sse(events: AsyncIterator[TurnEvent]) -> AsyncIterator[str]:
    async for event in events:
        match event:
            case Delta(text=text):
                yield _frame("delta", {"text": text})
            case ToolStarted(call_id=call_id, name=name):
                yield _frame("tool", {"call_id": call_id, "name": name, "status": "started"})
            case ToolFinished(call_id=call_id, success=success):
                yield _frame("tool", {"call_id": call_id, "status": "finished", "success": success})
            case Done(text=text, tool_results=results):
                charts = [chart.model_dump() for chart in charts_for(results)]
                yield _frame("done", {"content": text, "html": _html(text, results), "charts": charts})
            case Failed(message=message):
                yield _frame("error", {"message": message, "code": "turn_failed"})

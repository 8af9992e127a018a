"""The assistant as an OpenAI-compatible chat API: ``POST /v1/chat/completions`` and ``GET /v1/models``
(docs/architecture.md#openai-compatible-api).

Any tool that speaks that API (the official ``openai`` package, curl, an IDE plug-in) continues a
durable session with an API token as its key. The session is the one named by the ``X-Session-Id``
header, or a new one whose id comes back in that header (and as ``session_id`` in the body). The
session keeps the conversation, so only the request's last user message is sent: the history the
client repeats is already the session's. A turn runs exactly as the browser's does (same service,
same tools, same usage count, same live feed: a browser with the chat open sees it arrive), and the
answer's readings and charts come with it as ``readings`` and ``charts`` beside the message.
"""

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header, HTTPException, status
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from agent_orchestrator.sessions import TurnEvent, describe
from agent_orchestrator.sse import DONE, event_stream, frame
from agent_orchestrator.web.deps import CurrentActor, Services, ServicesDep
from agent_orchestrator.web.routes.messages import check_message, feed_data

router = APIRouter(prefix="/v1", tags=["OpenAI-compatible API"])
MODEL_ID = "agent-orchestrator"
SESSION_HEADER = "X-Session-Id"


class ContentPart(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: str
    text: str | None = None


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: str
    content: str | list[ContentPart] | None = None

    def text(self) -> str:
        if isinstance(self.content, list):
            return "\n".join(part.text or "" for part in self.content if part.type == "text")
        return self.content or ""


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="allow")
    include_usage: bool = False


class ChatCompletionRequest(BaseModel):
    """The fields that matter here; the others OpenAI's API has (temperature, …) are accepted and
    ignored: the assistant's own settings answer."""

    model_config = ConfigDict(extra="allow")
    model: str = MODEL_ID
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    stream_options: StreamOptions | None = None


class ModelOut(BaseModel):
    id: str
    object: Literal["model"] = "model"
    created: int
    owned_by: str


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelOut]


@router.get("/models", summary="The one model: the assistant")
async def list_models(actor: CurrentActor) -> ModelList:
    return ModelList(data=[ModelOut(id=MODEL_ID, created=0, owned_by="agent-orchestrator")])


SessionHeader = Annotated[str | None, Header(alias=SESSION_HEADER, max_length=64)]


@router.post(
    "/chat/completions",
    summary="Continue (X-Session-Id) or start a durable session; the answer whole or streamed",
    responses={409: {"description": "The session is answering another message"}},
)
async def chat_completions(
    body: ChatCompletionRequest, actor: CurrentActor, services: ServicesDep, session_id: SessionHeader = None
) -> Any:
    prompt = next((m.text() for m in reversed(body.messages) if m.role == "user"), "")
    if not prompt.strip():
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, "No user message to answer.")
    check_message(prompt, services)
    if session_id is None:
        session_id = (await services.sessions.create(actor, title=None, case_key=None)).public_id
    record = await services.sessions.get(actor, session_id)
    before = await _used(services, record.id)
    events = await services.sessions.send(actor, session_id, prompt)
    headers = {SESSION_HEADER: session_id}
    completion = _Completion(session_id, body.model, services, record.id, before)
    if body.stream:
        usage = bool(body.stream_options and body.stream_options.include_usage)
        return event_stream(
            completion.chunks(events, usage), headers={"Cache-Control": "no-store", **headers}
        )
    return JSONResponse(await completion.whole(events), headers=headers)


async def _used(services: Services, session_key: str) -> tuple[int, int]:
    totals = await asyncio.to_thread(services.usage.ledger.for_session, session_key)
    return totals.input_tokens, totals.output_tokens


class _Completion:
    """One answer in OpenAI's shapes: a ``chat.completion``, or ``chat.completion.chunk`` events."""

    def __init__(
        self, session_id: str, model: str, services: Services, session_key: str, before: tuple[int, int]
    ) -> None:
        self.session_id = session_id
        self.model = model
        self.services = services
        self.session_key = session_key
        self.before = before
        self.id = f"chatcmpl-{session_id}-{time.time_ns()}"
        self.created = int(time.time())

    async def usage(self) -> dict[str, int]:
        after = await _used(self.services, self.session_key)
        prompt, completion = after[0] - self.before[0], after[1] - self.before[1]
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}

    async def whole(self, events: AsyncIterator[TurnEvent]) -> dict[str, Any]:
        done: dict[str, Any] | None = None
        async for event in events:
            kind, data = describe(event)
            if kind == "error":
                raise HTTPException(status.HTTP_502_BAD_GATEWAY, str(data["message"]))
            if kind == "done":
                done = feed_data(kind, data)
        assert done is not None  # a turn's stream ends with done or error
        message = {"role": "assistant", "content": done["content"]}
        return {
            "id": self.id,
            "object": "chat.completion",
            "created": self.created,
            "model": self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": _finish(done)}],
            "usage": await self.usage(),
            "session_id": self.session_id,
            "readings": done["readings"],
            "charts": done["charts"],
        }

    async def chunks(self, events: AsyncIterator[TurnEvent], with_usage: bool) -> AsyncIterator[str]:
        yield self._chunk({"role": "assistant", "content": ""})
        async for event in events:
            kind, data = describe(event)
            if kind == "delta":
                yield self._chunk({"content": data["text"]})
            elif kind == "error":
                yield _data({"error": {"message": data["message"], "type": "turn_failed"}})
            elif kind == "done":
                done = feed_data(kind, data)
                extra = {"readings": done["readings"], "charts": done["charts"]}
                yield self._chunk({}, finish=_finish(done), **extra)
        if with_usage:
            yield self._chunk(None, usage=await self.usage())
        yield frame(DONE)

    def _chunk(self, delta: dict[str, Any] | None, *, finish: str | None = None, **extra: Any) -> str:
        choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
        return _data(
            {
                "id": self.id,
                "object": "chat.completion.chunk",
                "created": self.created,
                "model": self.model,
                "choices": choices,
                "session_id": self.session_id,
                **extra,
            }
        )


def _finish(done: dict[str, Any]) -> str:
    return "length" if done.get("stopped") else "stop"


def _data(payload: dict[str, Any]) -> str:
    """One server-sent event as OpenAI's streams write them: unnamed, one line of JSON."""
    return frame(json.dumps(payload, ensure_ascii=False))

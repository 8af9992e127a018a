"""A scripted, OpenAI-compatible model server: the test suite's stand-in for the model.

The model is the project's only external boundary, so this is the only test double the project
allows. Everything else -- the Copilot SDK, the Copilot CLI runtime and our own code -- runs for
real and talks HTTP to this server exactly as it would to a real OpenAI-compatible endpoint
(``provider={"type": "openai", "base_url": model.base_url}``). Nothing else is ever mocked.

Usage::

    with ScriptedModel(replies=[Text("Hello"), ToolCall("query", {"sql": "select 1"})]) as model:
        ...  # point the runtime at model.base_url
        assert model.requests[0]["messages"][-1]["role"] == "user"

Replies are taken in order from a queue (``model.script(...)`` appends); when the queue is empty
``default`` answers (by default a rule that says "OK"). A queued item is a :class:`Text`, a
:class:`ToolCall`, a :class:`ToolCalls`, a :class:`Failure`, a plain ``str`` (shorthand for
``Text``) or a :data:`Rule` -- a callable that receives the request body and returns one of those.

The server runs uvicorn on 127.0.0.1 (a free port) in a background thread, so it serves sync and
async tests alike; ``start()``/``stop()`` are synchronous and quick.
"""

from __future__ import annotations

import asyncio
import collections
import http.client
import json
import socket
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Self

import uvicorn
from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse

from agent_orchestrator.sse import DONE, event_stream, frame

__all__ = [
    "Failure",
    "Reply",
    "Rule",
    "ScriptItem",
    "ScriptedModel",
    "Text",
    "ToolCall",
    "ToolCalls",
    "ok_rule",
    "recall_rule",
]

DEFAULT_MODEL_ID = "scripted-model"


@dataclass(frozen=True)
class Text:
    """An assistant message with text content. ``delay`` overrides the server's per-request delay;
    ``pace`` (seconds) is waited between the ``pieces`` it is streamed in, so a turn can be watched
    (and stopped) mid-answer however slow the machine is."""

    content: str
    delay: float | None = None
    pace: float = 0.0
    pieces: int = 4


@dataclass(frozen=True)
class ToolCall:
    """A reply asking for one tool call (OpenAI function calling). ``id`` is generated if omitted."""

    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    id: str | None = None
    delay: float | None = None


@dataclass(frozen=True)
class ToolCalls:
    """A reply asking for several tool calls at once (parallel tool calls), optionally with text."""

    calls: tuple[ToolCall, ...]
    content: str = ""
    delay: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "calls", tuple(self.calls))


@dataclass(frozen=True)
class Failure:
    """An HTTP error with an OpenAI-style body ``{"error": {"message", "type", "code"}}``."""

    status: int = 500
    message: str = "scripted failure"
    type: str = "server_error"
    code: str | None = None
    delay: float | None = None


Reply = Text | ToolCall | ToolCalls | Failure
Rule = Callable[[dict[str, Any]], Reply | str]
ScriptItem = Reply | str | Rule


# --------------------------------------------------------------------------------------------- rules


def message_text(message: Mapping[str, Any]) -> str:
    """The text of a chat message whose ``content`` is a string or a list of content parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("text", "")) for part in content if isinstance(part, Mapping) and "text" in part
        )
    return ""


def user_messages(body: Mapping[str, Any]) -> list[str]:
    """Texts of the request's user messages, oldest first."""
    return [message_text(m) for m in body.get("messages", []) if m.get("role") == "user"]


def ok_rule(body: dict[str, Any]) -> Reply:
    """Always answer "OK" (the default ``default``)."""
    return Text("OK")


RECALL_TRIGGERS = ("which segment", "what segment", "what was said", "what did i say", "what did i ask")


def recall_rule(body: dict[str, Any]) -> Reply:
    """Answer memory questions by quoting the earliest user message in the request.

    If the latest user message contains one of :data:`RECALL_TRIGGERS` (case-insensitive), reply
    ``You said earlier: "<earliest user message>"`` -- earlier turns must have reached the model
    for that quote to exist -- or ``I have no earlier message to recall.`` when the question is the
    only user message. Any other request gets "OK".
    """
    users = user_messages(body)
    if not users or not any(t in users[-1].lower() for t in RECALL_TRIGGERS):
        return Text("OK")
    if len(users) < 2:
        return Text("I have no earlier message to recall.")
    return Text(f'You said earlier: "{users[0]}"')


# ------------------------------------------------------------------------------------ wire format


def _tokens(text: str) -> int:
    """Rough token count: one token per four characters, at least one."""
    return max(1, len(text) // 4)


def _split(text: str, parts: int = 4) -> list[str]:
    """Split ``text`` into up to ``parts`` non-empty pieces that concatenate back to it."""
    if not text:
        return []
    size = max(1, -(-len(text) // parts))
    return [text[i : i + size] for i in range(0, len(text), size)]


def _tool_calls(reply: ToolCall | ToolCalls) -> tuple[list[dict[str, Any]], str]:
    """OpenAI ``tool_calls`` entries (ids filled in) and the text content for a tool-call reply."""
    calls, content = (reply.calls, reply.content) if isinstance(reply, ToolCalls) else ((reply,), "")
    entries = [
        {
            "id": call.id or f"call_{uuid.uuid4().hex[:24]}",
            "type": "function",
            "function": {"name": call.name, "arguments": json.dumps(dict(call.arguments))},
        }
        for call in calls
    ]
    return entries, content


def _usage(body: Mapping[str, Any], completion: str) -> dict[str, int]:
    prompt = _tokens(json.dumps(body.get("messages", [])))
    done = _tokens(completion)
    return {"prompt_tokens": prompt, "completion_tokens": done, "total_tokens": prompt + done}


def _completion(reply: Text | ToolCall | ToolCalls, body: Mapping[str, Any], model: str) -> dict[str, Any]:
    """A non-streamed ``chat.completion`` object."""
    message: dict[str, Any] = {"role": "assistant"}
    if isinstance(reply, Text):
        message["content"], finish, generated = reply.content, "stop", reply.content
    else:
        calls, content = _tool_calls(reply)
        message["content"] = content or None
        message["tool_calls"] = calls
        finish, generated = "tool_calls", content + json.dumps(calls)
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
        "usage": _usage(body, generated),
    }


def _chunks(reply: Text | ToolCall | ToolCalls, body: Mapping[str, Any], model: str) -> list[dict[str, Any]]:
    """The ``chat.completion.chunk`` objects of a streamed reply, in order."""
    include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
    base: dict[str, Any] = {"id": f"chatcmpl-{uuid.uuid4().hex}", "object": "chat.completion.chunk"}
    base |= {"created": int(time.time()), "model": model}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return base | {"choices": [choice]} | ({"usage": None} if include_usage else {})

    chunks = [chunk({"role": "assistant", "content": ""})]
    if isinstance(reply, Text):
        content, finish, generated = reply.content, "stop", reply.content
        calls: list[dict[str, Any]] = []
    else:
        calls, content = _tool_calls(reply)
        finish, generated = "tool_calls", content + json.dumps(calls)
    pieces = reply.pieces if isinstance(reply, Text) else 4
    chunks += [chunk({"content": piece}) for piece in _split(content, pieces)]
    for index, call in enumerate(calls):
        fn = call["function"]
        head = {"index": index, "id": call["id"], "type": "function"}
        chunks.append(chunk({"tool_calls": [head | {"function": {"name": fn["name"], "arguments": ""}}]}))
        chunks += [
            chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
            for piece in _split(fn["arguments"], 2)
        ]
    chunks.append(chunk({}, finish))
    if include_usage:
        chunks.append(base | {"choices": [], "usage": _usage(body, generated)})
    return chunks


def _error(failure: Failure) -> JSONResponse:
    error = {"message": failure.message, "type": failure.type, "code": failure.code}
    return JSONResponse({"error": error}, status_code=failure.status)


# ----------------------------------------------------------------------------------------- server


class ScriptedModel:
    """An OpenAI-compatible chat-completions server answering from a script.

    ``replies`` seed the queue; ``default`` answers once it is empty; ``delay`` (seconds) is waited
    before each answer unless the reply sets its own. ``requests`` logs every received
    ``/chat/completions`` body, in arrival order, before it is answered.
    """

    def __init__(
        self,
        replies: Iterable[ScriptItem] = (),
        *,
        default: ScriptItem = ok_rule,
        delay: float = 0.0,
        model_id: str = DEFAULT_MODEL_ID,
    ) -> None:
        self.default = default
        self.delay = delay
        self.model_id = model_id
        self._queue: collections.deque[ScriptItem] = collections.deque(replies)
        self._requests: list[dict[str, Any]] = []
        self._lock = threading.Condition()
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._port: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping = asyncio.Event()
        self.app = self._build_app()

    # ---- script & log

    def script(self, *replies: ScriptItem) -> None:
        """Append replies to the queue."""
        with self._lock:
            self._queue.extend(replies)

    @property
    def pending(self) -> int:
        """How many scripted replies are still queued."""
        with self._lock:
            return len(self._queue)

    @property
    def requests(self) -> list[dict[str, Any]]:
        """A copy of the request bodies received at ``/chat/completions``, oldest first."""
        with self._lock:
            return list(self._requests)

    def wait_for_requests(self, count: int, timeout: float = 5.0) -> list[dict[str, Any]]:
        """Block until at least ``count`` requests have arrived; raise ``TimeoutError`` otherwise."""
        with self._lock:
            if not self._lock.wait_for(lambda: len(self._requests) >= count, timeout):
                raise TimeoutError(f"{len(self._requests)} of {count} requests arrived within {timeout}s")
            return list(self._requests)

    def reset(self) -> None:
        """Clear the request log and the reply queue."""
        with self._lock:
            self._queue.clear()
            self._requests.clear()

    def _log(self, body: dict[str, Any]) -> None:
        with self._lock:
            self._requests.append(body)
            self._lock.notify_all()

    def _take(self, body: dict[str, Any]) -> Reply:
        """Log ``body`` and resolve the next reply for it (queue first, then ``default``)."""
        with self._lock:
            self._log(body)
            item = self._queue.popleft() if self._queue else self.default
        reply = item(body) if callable(item) else item
        return Text(reply) if isinstance(reply, str) else reply

    async def _stopped_during(self, delay: float) -> bool:
        """Sleep ``delay`` seconds without blocking the loop; True if ``stop()`` cut it short."""
        self._loop = asyncio.get_running_loop()
        try:
            await asyncio.wait_for(self._stopping.wait(), delay)
        except TimeoutError:
            return False
        return True

    # ---- HTTP app

    def _build_app(self) -> FastAPI:
        router = APIRouter()

        def model_object(model_id: str) -> dict[str, Any]:
            return {"id": model_id, "object": "model", "created": 0, "owned_by": "scripted"}

        @router.get("/models")
        async def list_models() -> dict[str, Any]:
            return {"object": "list", "data": [model_object(self.model_id)]}

        @router.get("/models/{model_id:path}")
        async def get_model(model_id: str) -> dict[str, Any]:
            return model_object(model_id)

        @router.post("/chat/completions", response_model=None)
        async def chat_completions(request: Request) -> JSONResponse | StreamingResponse:
            raw = await request.body()
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
            if not isinstance(body, dict):
                self._log({"invalid_body": raw.decode(errors="replace")})
                return _error(Failure(400, "request body must be a JSON object", "invalid_request_error"))
            reply = self._take(body)
            delay = self.delay if reply.delay is None else reply.delay
            if delay > 0 and await self._stopped_during(delay):
                return _error(Failure(503, "scripted model stopped", "server_error", "stopped"))
            if isinstance(reply, Failure):
                return _error(reply)
            model = str(body.get("model") or self.model_id)
            if not body.get("stream"):
                return JSONResponse(_completion(reply, body, model))

            pace = reply.pace if isinstance(reply, Text) else 0.0

            async def events() -> AsyncIterator[str]:
                for chunk in _chunks(reply, body, model):
                    yield frame(json.dumps(chunk))
                    if pace and chunk["choices"] and chunk["choices"][0]["delta"].get("content"):
                        await asyncio.sleep(pace)
                yield frame(DONE)

            return event_stream(events())

        app = FastAPI(title="scripted-model")
        app.include_router(router, prefix="/v1")
        app.include_router(router)
        return app

    # ---- lifecycle

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("ScriptedModel is not running")
        return self._port

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1`` -- the OpenAI ``base_url`` to give the runtime."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, timeout: float = 10.0) -> Self:
        """Serve on a free port in a background thread; return once ``GET /v1/models`` answers."""
        if self._thread is not None:
            raise RuntimeError("ScriptedModel is already running")
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        config = uvicorn.Config(
            self.app, log_level="warning", lifespan="off", timeout_graceful_shutdown=1, access_log=False
        )
        self._server = uvicorn.Server(config)
        self._port = sock.getsockname()[1]
        self._stopping = asyncio.Event()
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, name="scripted-model", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + timeout
        while True:
            if not self._thread.is_alive():
                sock.close()
                self._cleanup()
                raise RuntimeError("ScriptedModel server thread died during startup")
            if self._answers():
                return self
            if time.monotonic() > deadline:
                self.stop()
                raise TimeoutError(f"ScriptedModel did not answer within {timeout}s")
            time.sleep(0.01)

    def _answers(self) -> bool:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=1.0)
        try:
            connection.request("GET", "/v1/models")
            return connection.getresponse().status == 200
        except OSError:
            return False
        finally:
            connection.close()

    def stop(self, timeout: float = 10.0) -> None:
        """Shut the server down and join its thread; delayed in-flight requests get a 503."""
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._stopping.set)
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive() and self._server is not None:
                self._server.force_exit = True
                self._thread.join(timeout)
        self._cleanup()

    def _cleanup(self) -> None:
        self._server = self._thread = self._port = self._loop = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

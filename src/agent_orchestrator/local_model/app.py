"""The OpenAI-compatible FastAPI app around a loaded engine (``server.LocalModelServer`` runs it).

    app = create_app(LocalEngine(path), model_id="qwen2.5-coder-0.5b-instruct")

Endpoints: ``GET /v1/models`` (and ``/models``), ``POST /v1/chat/completions`` (and without ``/v1``),
streaming (SSE ``chat.completion.chunk`` … ``[DONE]``) or not, tool calls in the OpenAI format, and
``GET /health``. Errors use OpenAI's body ``{"error": {"message", "type", "param", "code"}}``; request
validation failures are 400 (not FastAPI's 422), like OpenAI.

Scheduling: one model, one generation at a time, on a dedicated worker thread so the event loop keeps
answering (health checks, 429s, disconnects) while the model computes. At most ``max_waiting``
requests wait behind the running one; more are refused at once with 429 rather than piling up
minutes of latency on two cores. A client that disconnects cancels its generation at the next token.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import threading
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from .chat_format import (
    ChatFormatError,
    ChatTemplate,
    TextDelta,
    ToolCallStreamParser,
    answer_after_tool_results,
    normalize_messages,
    validate_tools,
)
from .engine import ContextLengthExceeded, EngineError, GenerationParams, GenerationStats
from .protocol import ChatCompletionRequest, ChunkFactory, completion, error_body, model_card, usage

DEFAULT_MODEL_ID = "qwen2.5-coder-0.5b-instruct"


class Engine(Protocol):
    """What the app needs from an engine (LocalEngine, or a fake in tests)."""

    n_ctx: int
    load_seconds: float

    @property
    def chat_template(self) -> str: ...

    @property
    def special_tokens(self) -> tuple[str, str]: ...

    def tokenize(self, text: str) -> list[int]: ...

    def generate(
        self, prompt: str | list[int], params: GenerationParams, cancel: threading.Event | None = None
    ) -> Iterator[str | GenerationStats]: ...


class ApiError(Exception):
    def __init__(
        self, status: int, message: str, type_: str, param: str | None = None, code: str | None = None
    ):
        super().__init__(message)
        self.status, self.body = status, error_body(message, type_, param, code)


def default_output_limit(n_ctx: int) -> int:
    """Completion budget when the client sets none (and the limit we advertise to the runtime)."""
    return min(2048, n_ctx // 4)


_DONE = object()


class InferenceQueue:
    """Runs generations one at a time on a worker thread; admits at most 1 + ``max_waiting``."""

    def __init__(self, engine: Engine, max_waiting: int) -> None:
        self.engine = engine
        self.max_waiting = max_waiting
        self.admitted = 0  # running + waiting; touched only on the event loop
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="local-model")

    def admit(self) -> None:
        if self.admitted >= 1 + self.max_waiting:
            raise ApiError(
                429,
                f"The local model is busy: one request is running and {self.max_waiting} are waiting. "
                "It serves one request at a time; retry shortly.",
                "rate_limit_error",
                code="rate_limit_exceeded",
            )
        self.admitted += 1

    def release(self) -> None:
        self.admitted -= 1

    def submit(
        self, tokens: list[int], params: GenerationParams, cancel: threading.Event
    ) -> AsyncIterator[str | GenerationStats]:
        """Queue a generation on the worker thread now; return the iterator of its output.

        The caller must have been admitted. The slot is released when the worker is done with the
        request, whether or not anyone iterates the output (a client that left before its stream
        started still frees its slot: the disconnect watcher sets ``cancel``, the worker skips it).
        """
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Any] = asyncio.Queue()

        def put(item: Any) -> None:
            with contextlib.suppress(RuntimeError):  # the loop is closing (server shutdown)
                loop.call_soon_threadsafe(queue.put_nowait, item)

        def work() -> None:
            try:
                generation = self.engine.generate(tokens, params, cancel)
                try:
                    for item in generation:
                        put(item)
                finally:
                    generation.close()  # type: ignore[attr-defined]  # releases the engine lock
            except BaseException as exc:  # handed to the request's task, which re-raises it
                put(exc)
            finally:
                put(_DONE)

        try:
            future = loop.run_in_executor(self._executor, work)
        except BaseException:
            self.release()
            raise
        future.add_done_callback(lambda _f: self.release())
        return _drain(queue, cancel)

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)


async def _drain(queue: asyncio.Queue[Any], cancel: threading.Event) -> AsyncIterator[Any]:
    try:
        while (item := await queue.get()) is not _DONE:
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        cancel.set()  # no-op when finished; stops the worker when the consumer went away


def create_app(
    engine: Engine,
    *,
    model_id: str = DEFAULT_MODEL_ID,
    max_waiting: int = 4,
    max_output_tokens: int | None = None,
    default_temperature: float = 0.0,
    single_step_tools: bool = True,
) -> FastAPI:
    """Build the app around an already loaded engine (no globals: each call is independent).

    ``default_temperature`` applies when the client sends none. It is 0 (greedy) because the small
    model answers markedly better greedy, and the Copilot runtime does not choose a temperature.
    ``single_step_tools`` applies :func:`chat_format.answer_after_tool_results` (see there why).
    """
    queue = InferenceQueue(engine, max_waiting)
    output_limit = max_output_tokens or default_output_limit(engine.n_ctx)
    bos, eos = engine.special_tokens
    template = ChatTemplate(engine.chat_template, bos_token=bos, eos_token=eos)
    created = int(time.time())

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        queue.shutdown()

    app = FastAPI(title="local model (OpenAI-compatible)", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.queue = queue

    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError) -> JSONResponse:
        headers = {"Retry-After": "2"} if exc.status == 429 else None
        return JSONResponse(exc.body, status_code=exc.status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        loc = [str(p) for p in first.get("loc", ()) if p != "body"]
        param = ".".join(loc) or None
        if first.get("type") == "extra_forbidden":
            message = f"Unrecognized request argument supplied: {param}"
        elif first.get("type") == "json_invalid":
            message = "We could not parse the JSON body of your request."
        else:
            message = f"Invalid value for {param or 'request'}: {first.get('msg', 'invalid request')}"
        return JSONResponse(error_body(message, "invalid_request_error", param), status_code=400)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse(error_body(str(exc.detail), "invalid_request_error"), status_code=exc.status_code)

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return {
            "status": "ok",
            "model": model_id,
            "n_ctx": engine.n_ctx,
            "load_seconds": round(engine.load_seconds, 3),
            "in_flight": queue.admitted,
        }

    @app.get("/v1/models")
    @app.get("/models")
    async def models() -> dict[str, Any]:
        return {"object": "list", "data": [model_card(model_id, created)]}

    @app.get("/v1/models/{name:path}")
    @app.get("/models/{name:path}")
    async def model(name: str) -> dict[str, Any]:
        return model_card(model_id, created)  # any name resolves to the one model we serve

    @app.post("/v1/chat/completions", response_model=None)
    @app.post("/chat/completions", response_model=None)
    async def chat_completions(
        body: ChatCompletionRequest, request: Request
    ) -> JSONResponse | StreamingResponse:
        tokens, params, tools = await _prepare(body)
        queue.admit()
        cancel = threading.Event()
        watcher = asyncio.create_task(_watch_disconnect(request, cancel))
        completion_id = f"chatcmpl-{secrets.token_hex(12)}"
        events = queue.submit(tokens, params, cancel)
        if body.stream:
            include_usage = bool(body.stream_options and body.stream_options.include_usage)
            chunks = ChunkFactory(completion_id, model_id, include_usage)
            sse = _stream(events, chunks, tools, watcher, cancel)
            return StreamingResponse(
                sse, media_type="text/event-stream", headers={"Cache-Control": "no-cache"}
            )
        try:
            return JSONResponse(await _collect(events, completion_id, model_id, tools))
        except (EngineError, ValueError, RuntimeError) as exc:
            raise ApiError(500, f"generation failed: {exc}", "server_error") from exc
        finally:
            cancel.set()  # no-op when finished; stops the worker if this request was cancelled
            watcher.cancel()

    async def _prepare(
        body: ChatCompletionRequest,
    ) -> tuple[list[int], GenerationParams, list[dict[str, Any]]]:
        problem = body.unsupported()
        if problem:
            raise ApiError(400, problem[1], "invalid_request_error", problem[0])
        try:
            tools = validate_tools(body.tools) if body.tool_choice != "none" else None
            messages = normalize_messages(body.messages)
            if single_step_tools:
                messages, tools = answer_after_tool_results(messages, tools)
            prompt = template.render(messages, tools)
        except ChatFormatError as exc:
            raise ApiError(400, str(exc), "invalid_request_error", exc.param) from exc
        tokens = await asyncio.to_thread(engine.tokenize, prompt)
        requested = body.max_completion_tokens or body.max_tokens
        max_tokens = requested or min(output_limit, engine.n_ctx - len(tokens))
        if max_tokens < 1 or len(tokens) + max_tokens > engine.n_ctx:
            exc = ContextLengthExceeded(len(tokens), max(max_tokens, 1), engine.n_ctx)
            raise ApiError(400, str(exc), "invalid_request_error", "messages", "context_length_exceeded")
        params = GenerationParams(
            max_tokens=max_tokens,
            temperature=default_temperature if body.temperature is None else body.temperature,
            top_p=1.0 if body.top_p is None else body.top_p,
            stop=tuple(body.stop_list()),
            seed=body.seed,
        )
        return tokens, params, tools or []

    return app


async def _watch_disconnect(request: Request, cancel: threading.Event) -> None:
    """Poll for a client disconnect (covers time spent queued or in prefill, when nothing is sent)."""
    while not cancel.is_set():
        if await request.is_disconnected():
            cancel.set()
            return
        await asyncio.sleep(0.25)


def _finish_reason(stats: GenerationStats, tool_calls: Sequence[Any]) -> str:
    if tool_calls:
        return "tool_calls"
    return "length" if stats.finish_reason == "length" else "stop"


async def _collect(
    events: AsyncIterator[str | GenerationStats],
    completion_id: str,
    model_id: str,
    tools: list[dict[str, Any]],
) -> dict[str, Any]:
    parser = ToolCallStreamParser(tools, passthrough=not tools)
    stats: GenerationStats | None = None
    try:
        async for item in events:
            if isinstance(item, GenerationStats):
                stats = item
            else:
                parser.feed(item)
    finally:
        await events.aclose()  # type: ignore[attr-defined]  # a cancelled request stops its worker
    parser.finish()
    assert stats is not None
    calls = [c.to_openai() for c in parser.tool_calls]
    content: str | None = parser.text
    if calls:
        content = (content or "").strip() or None
    return completion(
        completion_id,
        model_id,
        content,
        calls,
        _finish_reason(stats, calls),
        usage(stats.prompt_tokens, stats.completion_tokens, stats.cached_tokens),
    )


async def _stream(
    events: AsyncIterator[str | GenerationStats],
    chunks: ChunkFactory,
    tools: list[dict[str, Any]],
    watcher: asyncio.Task[None],
    cancel: threading.Event,
) -> AsyncIterator[str]:
    parser = ToolCallStreamParser(tools, passthrough=not tools)
    n_calls = 0

    def sse(obj: dict[str, Any]) -> str:
        return f"data: {json.dumps(obj, ensure_ascii=False)}\n\n"

    def deltas(evts: list[TextDelta | Any]) -> Iterator[str]:
        nonlocal n_calls
        for ev in evts:
            if isinstance(ev, TextDelta):
                yield sse(chunks.chunk({"content": ev.text}))
            else:
                yield sse(chunks.chunk({"tool_calls": [ev.to_openai(index=n_calls)]}))
                n_calls += 1

    try:
        yield sse(chunks.chunk({"role": "assistant", "content": ""}))
        stats: GenerationStats | None = None
        try:
            async for item in events:
                if isinstance(item, GenerationStats):
                    stats = item
                else:
                    for out in deltas(parser.feed(item)):
                        yield out
        except (EngineError, ValueError, RuntimeError) as exc:
            # Headers are gone already; report in-band the way OpenAI's streams do.
            yield sse(error_body(f"generation failed: {exc}", "server_error"))
            yield "data: [DONE]\n\n"
            return
        for out in deltas(parser.finish()):
            yield out
        assert stats is not None
        yield sse(chunks.chunk({}, _finish_reason(stats, parser.tool_calls)))
        if chunks.include_usage:
            yield sse(
                chunks.usage_chunk(usage(stats.prompt_tokens, stats.completion_tokens, stats.cached_tokens))
            )
        yield "data: [DONE]\n\n"
    finally:
        cancel.set()  # no-op when finished; frees the model when the client went away mid-stream
        watcher.cancel()
        await events.aclose()  # type: ignore[attr-defined]

"""The OpenAI-compatible FastAPI app around a loaded engine (``server.LocalModelServer`` runs it).

    app = create_app(LocalEngine(path), token=token, model_id="qwen2.5-coder-0.5b-instruct")

Endpoints: ``GET /v1/models`` (and ``/models``), ``POST /v1/chat/completions`` (and without ``/v1``),
streaming (SSE ``chat.completion.chunk`` … ``[DONE]``) or not, tool calls in the OpenAI format, and
``GET /health``; all but ``/health`` want the server's token as the API key (``access``). Errors use
OpenAI's body ``{"error": {"message", "type", "param", "code"}}``; request validation failures are 400
(not FastAPI's 422), like OpenAI.

Scheduling: one model, one generation at a time, on a dedicated worker thread so the event loop keeps
answering (health checks, 429s, disconnects) while the model computes. At most ``max_waiting``
requests wait behind the running one; more are refused at once with 429 rather than piling up
minutes of latency on two cores. A client that disconnects cancels its generation at the next token.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import threading
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from agent_orchestrator.sse import DONE, event_stream, frame

from .access import RequireAccess
from .chat_format import (
    ChatFormatError,
    ChatTemplate,
    ToolCall,
    normalize_messages,
    validate_tools,
)
from .conversation import ChatReply
from .engine import ContextLengthExceeded, Engine, EngineError, GenerationParams, GenerationStats
from .guide import Guide, GuidedAnswer, GuidedCall
from .lexicon import NEUTRAL, Lexicon
from .protocol import ChatCompletionRequest, ChunkFactory, completion, error_body, model_card, usage
from .tool_policy import CALL_PREFIX, Plan, ToolPolicy
from .tool_turns import TurnResult, run_plan

DEFAULT_MODEL_ID = "qwen2.5-coder-0.5b-instruct"
T = TypeVar("T")
logger = logging.getLogger(__name__)


class ApiError(Exception):
    def __init__(
        self, status: int, message: str, type_: str, param: str | None = None, code: str | None = None
    ):
        super().__init__(message)
        self.status, self.body = status, error_body(message, type_, param, code)


def default_output_limit(n_ctx: int) -> int:
    """Completion budget when the client sets none (and the limit we advertise to the runtime)."""
    return min(2048, n_ctx // 4)


def history_budget(n_ctx: int) -> int:
    """Tokens of conversation history the model reads (``history_window``): the context less the
    answer's budget and room for the tool block. Smaller than it could be on purpose: every token of
    history is prefill time on two cores when the window moves."""
    return min(3072, n_ctx - default_output_limit(n_ctx) - 1024)


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
                    generation.close()  # releases the engine lock
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
        return _drain(queue, cancel, future)

    async def run(self, work: Callable[[], T]) -> T:
        """Run ``work`` (which may generate several times) on the worker; the caller was admitted."""
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor, work)
        finally:
            self.release()

    async def warm_up(self) -> None:
        """The engine's first decode, on the worker thread that runs every generation after it
        (``LocalEngine.warm_up`` says why the thread matters)."""
        await asyncio.get_running_loop().run_in_executor(self._executor, self.engine.warm_up)

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)


async def _drain(
    queue: asyncio.Queue[Any], cancel: threading.Event, worker: asyncio.Future[None]
) -> AsyncIterator[Any]:
    try:
        while (item := await queue.get()) is not _DONE:
            if isinstance(item, BaseException):
                raise item
            yield item
        # The worker is done with the engine only when its function returns (just after ``_DONE``):
        # waiting for it means the slot is released before this response ends (``/health`` agrees).
        await worker
    finally:
        cancel.set()  # no-op when finished; stops the worker when the consumer went away


def create_app(
    engine: Engine,
    *,
    token: str,
    bind_host: str = "127.0.0.1",
    model_id: str = DEFAULT_MODEL_ID,
    max_waiting: int = 4,
    max_output_tokens: int | None = None,
    default_temperature: float = 0.0,
    guide: Guide | None = None,
    lexicon: Lexicon = NEUTRAL,
) -> FastAPI:
    """Build the app around an already loaded engine (no globals: each call is independent).

    Only clients sending ``token`` as their API key, and naming a loopback host or ``bind_host`` (the
    address the server listens on), are answered (``access``: why both).

    ``default_temperature`` applies when the client sends none. It is 0 (greedy) because the small
    model answers markedly better greedy, and the Copilot runtime does not choose a temperature.
    A request that offers tools goes through ``tool_policy`` and ``tool_turns``: the server decides
    whether the turn calls a tool, constrains the call, and checks the answer against the data.
    A question about the conversation itself is answered from its messages first (``conversation``);
    then ``guide`` (``local_model.guide``) is asked and may take the step without the model.
    ``lexicon`` (``local_model.lexicon``) gives the pipeline the domain's words; the default knows
    none, so any client's tools work as they describe themselves.
    """
    policy = ToolPolicy(
        count_tokens=lambda message: len(engine.tokenize(str(message.get("content") or ""))) + 4,
        history_budget=history_budget(engine.n_ctx),
        lexicon=lexicon,
    )
    queue = InferenceQueue(engine, max_waiting)
    output_limit = max_output_tokens or default_output_limit(engine.n_ctx)
    bos, eos = engine.special_tokens
    template = ChatTemplate(engine.chat_template, bos_token=bos, eos_token=eos)
    created = int(time.time())

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await queue.warm_up()  # before the first request: the server is ready when it answers
        yield
        queue.shutdown()

    app = FastAPI(title="local model (OpenAI-compatible)", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.queue = queue
    app.add_middleware(RequireAccess, token=token, bind_host=bind_host)

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
        messages, tools = _read(body)
        about = _about_the_chat(body, messages, tools)
        if about is not None and about.text is not None:
            return _respond(TurnResult(about.text), body, f"chatcmpl-{secrets.token_hex(12)}")
        guided = None if about is not None else _guided(body, messages, tools)
        if guided is not None:
            return _respond(guided, body, f"chatcmpl-{secrets.token_hex(12)}")
        tokens, params, plan = await _prepare(body, messages, tools)
        queue.admit()
        cancel = threading.Event()
        watcher = asyncio.create_task(_watch_disconnect(request, cancel))
        completion_id = f"chatcmpl-{secrets.token_hex(12)}"
        if plan is not None:
            return await _planned(plan, tokens, params, body, completion_id, cancel, watcher)
        events = queue.submit(tokens, params, cancel)
        if body.stream:
            include_usage = bool(body.stream_options and body.stream_options.include_usage)
            chunks = ChunkFactory(completion_id, model_id, include_usage)
            sse = _stream(events, chunks, watcher, cancel)
            return event_stream(sse, headers={"Cache-Control": "no-cache"})
        try:
            return JSONResponse(await _collect(events, completion_id, model_id))
        except (EngineError, ValueError, RuntimeError) as exc:
            raise ApiError(500, f"generation failed: {exc}", "server_error") from exc
        finally:
            cancel.set()  # no-op when finished; stops the worker if this request was cancelled
            watcher.cancel()

    async def _planned(
        plan: Plan,
        tokens: list[int],
        params: GenerationParams,
        body: ChatCompletionRequest,
        completion_id: str,
        cancel: threading.Event,
        watcher: asyncio.Task[None],
    ) -> JSONResponse | StreamingResponse:
        """A request with tools: planned, generated and checked (``tool_turns``); a streamed answer
        goes out sentence by sentence as it is checked, anything else whole."""
        if body.stream and plan.mode == "answer":
            # Started now, not when the response is first read: the worker frees its slot either way.
            loop = asyncio.get_running_loop()
            pieces: asyncio.Queue[str] = asyncio.Queue()

            def emit(text: str) -> None:
                loop.call_soon_threadsafe(pieces.put_nowait, text)

            work = asyncio.ensure_future(
                queue.run(lambda: run_plan(engine, template, plan, tokens, params, cancel, emit))
            )
            work.add_done_callback(lambda done: done.cancelled() or done.exception())  # read in the stream
            include_usage = bool(body.stream_options and body.stream_options.include_usage)
            chunks = ChunkFactory(completion_id, model_id, include_usage)
            sse = _checked_stream(work, pieces, chunks, watcher, cancel)
            return event_stream(sse, headers={"Cache-Control": "no-cache"})
        try:
            result = await queue.run(lambda: run_plan(engine, template, plan, tokens, params, cancel))
        except (EngineError, ValueError, RuntimeError) as exc:
            raise ApiError(500, f"generation failed: {exc}", "server_error") from exc
        finally:
            cancel.set()
            watcher.cancel()
        if not result.grounded:
            logger.warning("Answer not grounded in the tool results (%s mode); fell back", plan.mode)
        return _respond(result, body, completion_id)

    def _read(body: ChatCompletionRequest) -> tuple[list[dict[str, Any]], list[dict[str, Any]] | None]:
        """The request's messages and tools, checked once for the guide and the pipeline."""
        problem = body.unsupported()
        if problem:
            raise ApiError(400, problem[1], "invalid_request_error", problem[0])
        try:
            tools = validate_tools(body.tools) if body.tool_choice != "none" else None
            return normalize_messages(body.messages), tools
        except ChatFormatError as exc:
            raise ApiError(400, str(exc), "invalid_request_error", exc.param) from exc

    def _about_the_chat(
        body: ChatCompletionRequest, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
    ) -> ChatReply | None:
        """A question about the conversation itself (``conversation``), before the guide: its data
        planner would read "which customer did I ask about first?" as a question for the data. The
        reply is quoted from the messages, without the model; one without text (a reason asked) is
        left to the pipeline's chat mode, never to the guide. With tools offered or not: Lab 05's
        session has none, and a small model may answer "which segment did I say?" with its last "OK."."""
        if body.tool_choice not in (None, "auto", "none"):
            return None
        return policy.about_the_chat(messages, tools or [])

    def _guided(
        body: ChatCompletionRequest, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
    ) -> TurnResult | None:
        """The guide's step, when it takes one: a call it read from the question, or the answer the
        tool rendered (no model, so no tokens)."""
        if guide is None or not tools or body.tool_choice not in (None, "auto"):
            return None
        try:
            step = guide.step(messages, tools)
        except Exception:  # a reader's defect must cost the fast path, never the answer
            logger.exception("the guide failed on a question; the model answers it instead")
            return None
        if isinstance(step, GuidedCall):
            arguments = json.dumps(step.arguments, ensure_ascii=False)
            return TurnResult(
                None,
                [ToolCall(f"call_{secrets.token_hex(12)}", step.name, arguments)],
                finish_reason="tool_calls",
            )
        if isinstance(step, GuidedAnswer):
            return TurnResult(step.text)
        return None

    def _respond(
        result: TurnResult, body: ChatCompletionRequest, completion_id: str
    ) -> JSONResponse | StreamingResponse:
        calls = [c.to_openai() for c in result.tool_calls]
        stats = usage(result.prompt_tokens, result.completion_tokens, result.cached_tokens)
        finish = "tool_calls" if calls else ("length" if result.finish_reason == "length" else "stop")
        if not body.stream:
            return JSONResponse(completion(completion_id, model_id, result.text, calls, finish, stats))
        include_usage = bool(body.stream_options and body.stream_options.include_usage)
        chunks = ChunkFactory(completion_id, model_id, include_usage)
        return event_stream(_replay(result, chunks, finish, stats), headers={"Cache-Control": "no-cache"})

    async def _prepare(
        body: ChatCompletionRequest, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
    ) -> tuple[list[int], GenerationParams, Plan | None]:
        if tools and guide is not None and body.tool_choice in (None, "auto"):
            tools = [t for t in tools if not guide.owns(t)] or None
        planned = policy.plan(messages, tools, body.tool_choice)
        try:
            prompt = template.render(planned.messages) + (CALL_PREFIX if planned.mode == "call" else "")
        except ChatFormatError as exc:
            raise ApiError(400, str(exc), "invalid_request_error", exc.param) from exc
        # Plain chat (the labs) has no plan: streamed as generated, nothing to check against.
        plan = None if planned.mode == "chat" and not tools and planned.reply is None else planned
        tokens = await asyncio.to_thread(engine.tokenize, prompt)
        requested = body.max_completion_tokens or body.max_tokens
        max_tokens = requested or min(output_limit, engine.n_ctx - len(tokens))
        if max_tokens < 1 or len(tokens) + max_tokens > engine.n_ctx:
            too_long = ContextLengthExceeded(len(tokens), max(max_tokens, 1), engine.n_ctx)
            raise ApiError(400, str(too_long), "invalid_request_error", "messages", "context_length_exceeded")
        params = GenerationParams(
            max_tokens=max_tokens,
            temperature=default_temperature if body.temperature is None else body.temperature,
            top_p=1.0 if body.top_p is None else body.top_p,
            stop=tuple(body.stop_list()),
            seed=body.seed,
        )
        return tokens, params, plan

    return app


async def _watch_disconnect(request: Request, cancel: threading.Event) -> None:
    """Poll for a client disconnect (covers time spent queued or in prefill, when nothing is sent)."""
    while not cancel.is_set():
        if await request.is_disconnected():
            cancel.set()
            return
        await asyncio.sleep(0.25)


def _finish_reason(stats: GenerationStats) -> str:
    return "length" if stats.finish_reason == "length" else "stop"


async def _collect(
    events: AsyncIterator[str | GenerationStats], completion_id: str, model_id: str
) -> dict[str, Any]:
    """A request without tools: the model's text, as generated."""
    pieces: list[str] = []
    stats: GenerationStats | None = None
    try:
        async for item in events:
            if isinstance(item, GenerationStats):
                stats = item
            else:
                pieces.append(item)
    finally:
        await events.aclose()  # type: ignore[attr-defined]  # a cancelled request stops its worker
    assert stats is not None
    return completion(
        completion_id,
        model_id,
        "".join(pieces),
        [],
        _finish_reason(stats),
        usage(stats.prompt_tokens, stats.completion_tokens, stats.cached_tokens),
    )


def _sse(obj: dict[str, Any]) -> str:
    return frame(json.dumps(obj, ensure_ascii=False))


async def _replay(
    result: TurnResult, chunks: ChunkFactory, finish: str, stats: dict[str, Any]
) -> AsyncIterator[str]:
    """A checked result as a stream: it is complete before anything is sent (see ``tool_turns``)."""
    yield _sse(chunks.chunk({"role": "assistant", "content": ""}))
    if result.text:
        yield _sse(chunks.chunk({"content": result.text}))
    for index, call in enumerate(result.tool_calls):
        yield _sse(chunks.chunk({"tool_calls": [call.to_openai(index=index)]}))
    yield _sse(chunks.chunk({}, finish))
    if chunks.include_usage:
        yield _sse(chunks.usage_chunk(stats))
    yield frame(DONE)


async def _checked_stream(
    work: asyncio.Future[TurnResult],
    pieces: asyncio.Queue[str],
    chunks: ChunkFactory,
    watcher: asyncio.Task[None],
    cancel: threading.Event,
) -> AsyncIterator[str]:
    """An answer's checked sentences as they come (``tool_turns``), then whatever the checks added."""
    sent = ""
    try:
        yield _sse(chunks.chunk({"role": "assistant", "content": ""}))
        while not work.done() or not pieces.empty():
            piece = asyncio.ensure_future(pieces.get())
            waiting: list[asyncio.Future[Any]] = [piece, work]
            await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
            if not piece.done():
                piece.cancel()
                continue
            sent += piece.result()
            yield _sse(chunks.chunk({"content": piece.result()}))
        try:
            result = work.result()
        except (EngineError, ValueError, RuntimeError) as exc:
            yield _sse(error_body(f"generation failed: {exc}", "server_error"))
            yield frame(DONE)
            return
        if not result.grounded:
            logger.warning("Answer not grounded in the tool results (answer mode); fell back")
        text = result.text or ""
        if not text.startswith(sent):  # the gate releases prefixes of the answer only
            logger.error("A streamed answer's end does not continue what was sent; its end is dropped")
        elif text[len(sent) :]:
            yield _sse(chunks.chunk({"content": text[len(sent) :]}))
        yield _sse(chunks.chunk({}, "length" if result.finish_reason == "length" else "stop"))
        if chunks.include_usage:
            yield _sse(
                chunks.usage_chunk(
                    usage(result.prompt_tokens, result.completion_tokens, result.cached_tokens)
                )
            )
        yield frame(DONE)
    finally:
        cancel.set()  # no-op when finished; frees the model when the client went away mid-stream
        watcher.cancel()


async def _stream(
    events: AsyncIterator[str | GenerationStats],
    chunks: ChunkFactory,
    watcher: asyncio.Task[None],
    cancel: threading.Event,
) -> AsyncIterator[str]:
    """A request without tools: text deltas as the model produces them."""
    try:
        yield _sse(chunks.chunk({"role": "assistant", "content": ""}))
        stats: GenerationStats | None = None
        try:
            async for item in events:
                if isinstance(item, GenerationStats):
                    stats = item
                else:
                    yield _sse(chunks.chunk({"content": item}))
        except (EngineError, ValueError, RuntimeError) as exc:
            # Headers are gone already; report in-band the way OpenAI's streams do.
            yield _sse(error_body(f"generation failed: {exc}", "server_error"))
            yield frame(DONE)
            return
        assert stats is not None
        yield _sse(chunks.chunk({}, _finish_reason(stats)))
        if chunks.include_usage:
            yield _sse(
                chunks.usage_chunk(usage(stats.prompt_tokens, stats.completion_tokens, stats.cached_tokens))
            )
        yield frame(DONE)
    finally:
        cancel.set()  # no-op when finished; frees the model when the client went away mid-stream
        watcher.cancel()
        await events.aclose()  # type: ignore[attr-defined]

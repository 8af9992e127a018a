"""One streamed turn: send a prompt and translate the runtime's events into what a UI shows.

The SDK delivers events on callbacks; they are bridged into an ``asyncio.Queue`` so the caller can
consume a turn as an async iterator (an SSE response, a test). Events of sub-agents (``agent_id`` set)
are ignored, as ``send_and_wait`` does.

The turn's messages are also kept as the event log will hold them (:class:`TurnMessages`): search
upkeep indexes them at the end of the turn without reading the log back
(docs/architecture.md#branching-and-search).
"""

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from copilot import CopilotSession
from copilot.session_events import (
    AssistantMessageData,
    AssistantMessageDeltaData,
    SessionErrorData,
    SessionEvent,
    SessionIdleData,
    ToolExecutionCompleteData,
    ToolExecutionStartData,
    UserMessageData,
)

from agent_orchestrator.runtime.tool_names import tool_name
from agent_orchestrator.sessions.history.tool_results import ToolCalls, ToolResult
from agent_orchestrator.sessions.history.transcript import Role, TranscriptMessage, log_timestamp

LIVENESS_SECONDS = 2.0
"""How long a turn waits in silence before it asks whether the runtime is still there."""
RUNTIME_GONE = "The assistant runtime stopped while answering; ask again in a moment."


@dataclass(frozen=True)
class Delta:
    text: str


@dataclass(frozen=True)
class ToolStarted:
    call_id: str
    name: str


@dataclass(frozen=True)
class ToolFinished:
    call_id: str
    success: bool


@dataclass(frozen=True)
class Done:
    """The answer, with what the turn's tools returned (the same records the transcript gives it)."""

    text: str
    tool_results: tuple[ToolResult, ...] = ()


@dataclass(frozen=True)
class Failed:
    message: str


@dataclass(frozen=True)
class Stopped:
    """A turn stopped on request (the runtime's abort): what it had said by then, and what its
    finished tools returned."""

    text: str
    tool_results: tuple[ToolResult, ...] = ()


TurnEvent = Delta | ToolStarted | ToolFinished | Done | Failed | Stopped


class TurnMessages(list[TranscriptMessage]):
    """The user and assistant messages a turn added to the log, as ``parse_events`` reads them back
    (same event ids, texts and timestamps; answers that only call tools are left out): what search
    indexes. Sub-agents' messages count, as they do in the log."""

    def heard(self, event: SessionEvent) -> None:
        role: Role
        match event.data:
            case UserMessageData(content=text):
                role = "user"
            case AssistantMessageData(content=text) if text:
                role = "assistant"
            case _:
                return
        self.append(TranscriptMessage(role, text, log_timestamp(event.timestamp), event_id=str(event.id)))


async def stream_turn(
    session: CopilotSession,
    prompt: str,
    *,
    time_limit: float,
    said: TurnMessages | None = None,
    alive: Callable[[], bool] = lambda: True,
) -> AsyncIterator[TurnEvent]:
    """Yield the turn's events, ending with exactly one :class:`Done`, :class:`Failed` or, once
    ``session.abort()`` was called, :class:`Stopped`; ``said`` collects the turn's messages as they
    are logged. ``alive`` says whether the runtime is still there: asked every
    :data:`LIVENESS_SECONDS` of quiet, so a runtime that died mid-answer fails the turn at once, not
    at its time limit."""
    queue: asyncio.Queue[TurnEvent | None] = asyncio.Queue()
    final_text: list[str] = []
    partial: list[str] = []  # the answer being written, until its message is whole
    aborted = False
    tools = ToolCalls()

    def on_event(event: SessionEvent) -> None:  # runs on the SDK's dispatch; must not block
        nonlocal aborted
        if said is not None:
            said.heard(event)
        if event.agent_id:
            return
        if event.type.value == "abort":  # the SDK has no data class for it; the log has its reason
            aborted = True
        match event.data:
            case AssistantMessageDeltaData(delta_content=text) if text:
                partial.append(text)
                queue.put_nowait(Delta(text))
            case AssistantMessageData(content=text) if text:
                final_text.append(text)
                partial.clear()
            case ToolExecutionStartData() as data:
                name = tool_name(data.tool_name, data.mcp_tool_name)
                tools.started(data.tool_call_id, name, data.mcp_server_name, data.arguments)
                queue.put_nowait(ToolStarted(data.tool_call_id, name))
            case ToolExecutionCompleteData() as data:
                tools.finished(data.tool_call_id, data.success, data.result.content if data.result else None)
                queue.put_nowait(ToolFinished(data.tool_call_id, data.success))
            case SessionErrorData() as data:
                queue.put_nowait(Failed(" ".join((data.message or "The model failed.").split())))
                queue.put_nowait(None)
            case SessionIdleData():
                queue.put_nowait(None)

    unsubscribe = session.on(on_event)
    deadline = time.monotonic() + time_limit
    try:
        await session.send(prompt)
        while True:
            remaining = deadline - time.monotonic()
            try:
                item = await asyncio.wait_for(
                    queue.get(), timeout=min(max(remaining, 0.001), LIVENESS_SECONDS)
                )
            except TimeoutError:
                if not alive():
                    yield Failed(RUNTIME_GONE)
                    return
                if deadline - time.monotonic() > 0:
                    continue
                await session.abort()
                yield Failed(f"No answer within {time_limit:.0f} s; the turn was stopped.")
                return
            if item is None:
                break
            yield item
            if isinstance(item, Failed):
                return
        if aborted:
            said_so_far = "".join(partial) if partial else (final_text[-1] if final_text else "")
            yield Stopped(said_so_far.strip(), tools.take())
        else:
            yield Done(final_text[-1].strip() if final_text else "", tools.take())
    finally:
        unsubscribe()

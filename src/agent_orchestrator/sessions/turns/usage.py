"""What a turn costs and how it is watched: model tokens into the usage ledger and the daily budget,
and the turn's metrics and trace spans (docs/architecture.md#usage-ledger, #observability).

The runtime reports each model call as an ``assistant.usage`` event (input and output tokens, the
model) and each MCP tool call as ``tool.execution_start`` / ``tool.execution_complete``. A
:class:`TurnMeter` subscribed to the turn's session sums the first and turns the second into spans
under the turn's span. :class:`UsageKeeper` refuses a turn once the user's tokens of the day (UTC),
with what the turns running now are estimated to spend, reach the budget; a turn that starts holds its
estimate until its end writes what it spent.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from datetime import datetime, timedelta
from typing import Any

from copilot import CopilotSession
from copilot.session_events import AssistantUsageData, ToolExecutionCompleteData, ToolExecutionStartData
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Span, Status, StatusCode

from agent_orchestrator.errors import TokenBudgetExceededError
from agent_orchestrator.runtime.tool_names import tool_name
from agent_orchestrator.sessions.store import TokenTotals, UsageLedger
from agent_orchestrator.sessions.store.schema import utcnow
from agent_orchestrator.telemetry import MODEL_TOKENS, TRACER, TURN_SECONDS, TURNS_IN_FLIGHT

# What a user's first turn is held to cost before anything of theirs was measured: about a turn of the
# app's own sessions (system prompt, the retail tools' schemas, a question and a short answer).
FIRST_TURN_ESTIMATE = 2_000


class TurnMeter:
    """One turn's model tokens (summed over its model calls) and its tool-call spans."""

    def __init__(self) -> None:
        self.input_tokens = 0
        self.output_tokens = 0
        self.model: str | None = None
        self._context = otel_context.get_current()  # the turn's span: parent of the tool spans
        self._tools: dict[str, Span] = {}
        self._unsubscribe: Callable[[], None] | None = None

    def attach(self, session: CopilotSession) -> None:
        self._unsubscribe = session.on(self._on_event)

    def detach(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        for span in self._tools.values():  # calls the turn never finished (aborted, timed out)
            span.set_status(Status(StatusCode.ERROR, "no completion reported"))
            span.end()
        self._tools.clear()

    @property
    def used_tokens(self) -> bool:
        return bool(self.input_tokens or self.output_tokens)

    def _on_event(self, event: Any) -> None:  # on the SDK's dispatch: must not block
        match event.data:
            case AssistantUsageData() as usage:  # sub-agents' calls cost tokens too: counted
                self.input_tokens += usage.input_tokens or 0
                self.output_tokens += usage.output_tokens or 0
                self.model = usage.model or self.model
                MODEL_TOKENS.labels("input").inc(usage.input_tokens or 0)
                MODEL_TOKENS.labels("output").inc(usage.output_tokens or 0)
            case ToolExecutionStartData() as start:
                name = tool_name(start.tool_name, start.mcp_tool_name)
                span = TRACER.start_span(
                    f"tool {name}",
                    context=self._context,
                    kind=trace.SpanKind.CLIENT,
                    attributes={"tool.name": name, "tool.call_id": start.tool_call_id},
                )
                self._tools[start.tool_call_id] = span
            case ToolExecutionCompleteData() as done:
                if done.tool_call_id in self._tools:
                    span = self._tools.pop(done.tool_call_id)
                    span.set_attribute("tool.success", bool(done.success))
                    if not done.success:
                        span.set_status(Status(StatusCode.ERROR))
                    span.end()


async def observed_turn(
    turn: Coroutine[Any, Any, None], session_id: str, public_id: str | None = None
) -> None:
    """Run ``turn`` inside its span, counted in flight and timed (wraps the service's turn task). The
    span names the session by its runtime id, which the logs, files and leases share, and by the public
    id its owner knows it by (docs/architecture.md#session-ids)."""
    attributes = {"session.id": session_id, "session.public_id": public_id or session_id}
    with TRACER.start_as_current_span("turn", attributes=attributes):
        TURNS_IN_FLIGHT.inc()
        started = time.monotonic()
        try:
            await turn
        finally:
            TURN_SECONDS.observe(time.monotonic() - started)
            TURNS_IN_FLIGHT.dec()


class UsageKeeper:
    """The ledger plus the optional per-user daily budget (input + output tokens, UTC day)."""

    def __init__(self, ledger: UsageLedger, *, daily_budget: int | None = None) -> None:
        self.ledger = ledger
        self.daily_budget = daily_budget

    async def today(self, user_id: int) -> TokenTotals:
        return await asyncio.to_thread(self.ledger.for_user, user_id, since=_start_of_day(utcnow()))

    async def reserve(self, user_id: int, session_id: str) -> int | None:
        """Before a turn: :class:`TokenBudgetExceededError` if the user's tokens of the day, with those
        held by the turns running now, reach the budget; else the reservation that holds this turn's
        estimate until its end settles it (``TurnEnd.reservation``). ``None`` without a budget."""
        if self.daily_budget is None:
            return None
        now = utcnow()
        reservation, used = await asyncio.to_thread(
            self.ledger.reserve,
            user_id,
            session_id,
            budget=self.daily_budget,
            since=_start_of_day(now),
            default=FIRST_TURN_ESTIMATE,
        )
        if reservation is None:
            renews = _start_of_day(now) + timedelta(days=1)
            raise TokenBudgetExceededError(
                f"Your daily budget of {self.daily_budget:,} model tokens is used up ({used:,} today, "
                "with the answers in progress); it renews at midnight UTC.",
                retry_after=int((renews - now).total_seconds()) + 1,
            )
        return reservation

    async def release(self, reservation: int | None) -> None:
        """Give a reservation up whose turn will not settle it (refused after all, or its end failed)."""
        if reservation is not None:
            await asyncio.to_thread(self.ledger.release, reservation)

    def row(self, session_id: str, user_id: int, meter: TurnMeter) -> dict[str, object] | None:
        """The ledger row of a turn's tokens, for the write that ends the turn (``None``: the turn
        spent none)."""
        if not meter.used_tokens:
            return None
        return self.ledger.row(
            session_id,
            user_id,
            input_tokens=meter.input_tokens,
            output_tokens=meter.output_tokens,
            model=meter.model,
        )


def _start_of_day(moment: datetime) -> datetime:
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)

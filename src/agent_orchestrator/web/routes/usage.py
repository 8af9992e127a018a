"""The caller's model-token usage: today (UTC) against the optional daily budget, and all time
(docs/architecture.md#usage-ledger). A session's own usage is part of its details."""

import asyncio

from fastapi import APIRouter
from pydantic import BaseModel

from agent_orchestrator.sessions.store import TokenTotals
from agent_orchestrator.web.deps import CurrentActor, ServicesDep

router = APIRouter(prefix="/api/usage", tags=["usage"])


class TokensOut(BaseModel):
    input_tokens: int
    output_tokens: int
    total_tokens: int
    turns: int

    @classmethod
    def of(cls, totals: TokenTotals) -> "TokensOut":
        return cls(
            input_tokens=totals.input_tokens,
            output_tokens=totals.output_tokens,
            total_tokens=totals.total_tokens,
            turns=totals.turns,
        )


class UsageOut(BaseModel):
    today: TokensOut
    all_time: TokensOut
    daily_budget: int | None
    remaining_today: int | None


@router.get("", summary="The user's model tokens today and in all, and the daily budget")
async def my_usage(actor: CurrentActor, services: ServicesDep) -> UsageOut:
    keeper = services.usage
    today = await keeper.today(actor.user.id)
    all_time = await asyncio.to_thread(keeper.ledger.for_user, actor.user.id)
    budget = keeper.daily_budget
    return UsageOut(
        today=TokensOut.of(today),
        all_time=TokensOut.of(all_time),
        daily_budget=budget,
        remaining_today=None if budget is None else max(0, budget - today.total_tokens),
    )

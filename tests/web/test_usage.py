"""The usage ledger end to end: the runtime's token counts per turn, per session and per user, and the
daily budget's refusal."""

import json
from collections.abc import Callable

import httpx

from agent_orchestrator.testing.scripted_model import ScriptedModel, Text


def _send(client: httpx.Client, session_id: str, content: str) -> httpx.Response:
    return client.post(f"/api/sessions/{session_id}/messages", json={"content": content})


def _reported_tokens(model: ScriptedModel) -> tuple[int, int]:
    """What the scripted model reported as usage for its requests (one token per four characters)."""
    prompts = sum(max(1, len(json.dumps(body["messages"])) // 4) for body in model.requests)
    return prompts, len(model.requests) * max(1, len("A fine answer.") // 4)


def test_tokens_are_recorded_per_turn_session_and_user(
    start_app: Callable, scripted_model: ScriptedModel
) -> None:
    app = start_app()
    alice, bob = app.client("alice"), app.client("bob")
    scripted_model.default = lambda body: Text("A fine answer.")
    first = alice.post("/api/sessions", json={}).json()["id"]
    second = alice.post("/api/sessions", json={}).json()["id"]
    assert "event: done" in _send(alice, first, "One").text
    assert "event: done" in _send(alice, first, "Two").text
    one_session = _reported_tokens(scripted_model)
    assert "event: done" in _send(alice, second, "Three").text
    everything = _reported_tokens(scripted_model)

    usage = alice.get(f"/api/sessions/{first}").json()["usage"]
    assert (usage["input_tokens"], usage["output_tokens"], usage["turns"]) == (*one_session, 2)
    mine = alice.get("/api/usage").json()
    assert (mine["today"]["input_tokens"], mine["today"]["output_tokens"]) == everything
    assert mine["all_time"] == mine["today"] and mine["today"]["turns"] == 3
    assert mine["daily_budget"] is None and mine["remaining_today"] is None
    assert bob.get("/api/usage").json()["today"]["total_tokens"] == 0
    assert bob.get(f"/api/sessions/{first}").status_code == 404  # another's session: no usage either


def test_a_user_past_the_daily_budget_is_refused_until_midnight(start_app: Callable) -> None:
    app = start_app(daily_token_budget=50)
    alice, bob = app.client("alice"), app.client("bob")
    session_id = alice.post("/api/sessions", json={}).json()["id"]
    assert "event: done" in _send(alice, session_id, "Hello").text  # under budget: runs, and uses it up
    refused = _send(alice, session_id, "Hello again")
    assert refused.status_code == 429
    assert "daily budget of 50 model tokens is used up" in refused.json()["detail"]
    assert 0 < int(refused.headers["Retry-After"]) <= 86_401
    assert alice.get("/api/usage").json()["remaining_today"] == 0
    other = bob.post("/api/sessions", json={}).json()["id"]
    assert "event: done" in _send(bob, other, "Hello").text  # a budget is per user

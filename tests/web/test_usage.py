"""The usage ledger end to end: the runtime's token counts per turn, per session and per user, and the
daily budget's refusal."""

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import httpx
from sqlalchemy import func, select

from agent_orchestrator.sessions.store import make_engine
from agent_orchestrator.sessions.store.schema import turn_usage
from agent_orchestrator.testing.scripted_model import Failure, ScriptedModel, Text


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


def test_turns_started_at_once_in_many_chats_cannot_overshoot_the_budget(
    start_app: Callable, scripted_model: ScriptedModel
) -> None:
    """The ledger is written at a turn's end, so every turn started before the first one ended used to
    pass the check: N chats at once spent N turns past the budget. A turn now holds an estimate of its
    cost against the budget from its start until its end settles it."""
    app = start_app(daily_token_budget=500)
    alice = app.client("alice")
    scripted_model.default = lambda body: Text("A fine answer.")
    warm_up = alice.post("/api/sessions", json={}).json()["id"]
    assert "event: done" in _send(alice, warm_up, "One").text  # what a turn costs, roughly
    cost = alice.get("/api/usage").json()["today"]["total_tokens"]
    assert 0 < cost < 500 // 4
    chats = [(app.client("alice"), alice.post("/api/sessions", json={}).json()["id"]) for _ in range(12)]
    scripted_model.default = lambda body: Text("A slow answer.", delay=2)
    with ThreadPoolExecutor(len(chats)) as pool:  # a tab per chat, all sending at once
        answers = list(pool.map(lambda tab: _send(tab[0], tab[1], "Two"), chats))
    started = [a for a in answers if a.status_code == 200]
    assert {a.status_code for a in answers} == {200, 429} and all("event: done" in a.text for a in started)
    today = alice.get("/api/usage").json()
    assert today["today"]["turns"] == 1 + len(started)
    assert today["today"]["total_tokens"] <= 500 + 2 * cost  # at most about one turn's worth over
    assert today["remaining_today"] == max(0, 500 - today["today"]["total_tokens"])


def test_a_turn_that_spent_nothing_holds_nothing_against_the_budget(
    start_app: Callable, scripted_model: ScriptedModel
) -> None:
    app = start_app(daily_token_budget=5_000)
    alice = app.client("alice")
    session_id = alice.post("/api/sessions", json={}).json()["id"]
    scripted_model.default = lambda body: Failure(400, "bad things", type="invalid_request_error")
    assert "event: error" in _send(alice, session_id, "Hello").text
    assert alice.get("/api/usage").json()["today"] == {
        "input_tokens": 0,
        "output_tokens": 0,
        "total_tokens": 0,
        "turns": 0,
    }
    engine = make_engine(app.web.database_url)
    try:
        with engine.connect() as conn:
            assert conn.scalar(select(func.count()).select_from(turn_usage)) == 0  # no reservation left
    finally:
        engine.dispose()

"""Changing the reading of an answer (docs/architecture.md#editing-a-reading), end to end: the real
runtime, the real retail tools and the scripted model. The chips come from the tool's result; a
changed reading is computed without the model, becomes a turn of the stored conversation (reload,
another device, every session-file store) and is in what the model is sent next turn."""

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from chat_helpers import audit_actions, computed, events, messages, runtime_id, send
from live_feed import Feed

from agent_orchestrator.retail import GeneratorConfig, generate_dataset
from agent_orchestrator.retail.analysis import Query
from agent_orchestrator.sessions.crypto import MasterKeys
from agent_orchestrator.sessions.files.postgres import PostgresSessionFiles
from agent_orchestrator.sessions.store import LeaseManager, make_engine
from agent_orchestrator.testing.scripted_model import Text, ToolCall, message_text

SMALL_RETAIL = GeneratorConfig(seed=7, customers=300, transactions=6_000, products=200)
TOOL = "retail-analytics-analyze_sales"
ASKED = {"measure": "revenue", "countries": ["Germany"], "period": "2025"}
CHANGED = {"measure": "orders", "countries": ["France"], "period": "2024-06"}
MODEL_WORDS = "Here are the figures you asked for."


@pytest.fixture
def retail_app(start_app: Callable, tmp_path: Path) -> Any:
    """The app (SQLite, the runtime's own folders) with the retail dataset and its tools."""
    generate_dataset(tmp_path / "retail.sqlite", SMALL_RETAIL)  # start_app's data directory
    return start_app(retail_dataset=True)


@pytest.fixture(params=["sqlite", "sealed", pytest.param("postgres", marks=pytest.mark.postgres)])
def any_store_app(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """The same on each session-file store: the runtime's own folders, sealed local files (a master
    key) and the shared PostgreSQL files."""
    generate_dataset(tmp_path / "retail.sqlite", SMALL_RETAIL)
    start_app = request.getfixturevalue("start_app")
    if request.param == "postgres":
        schema = request.getfixturevalue("postgres_schema")
        files = PostgresSessionFiles.from_url(schema.url)
        return start_app(schema.sqlalchemy_url, files, retail_dataset=True)
    if request.param == "sealed":
        return start_app(retail_dataset=True, master_key=MasterKeys.generate())
    return start_app(retail_dataset=True)


def asked_chat(app: Any, client: httpx.Client, query: dict[str, Any] = ASKED) -> tuple[str, list]:
    """A chat whose one turn the model answered with analyze_sales; its id and the turn's events."""
    session_id = client.post("/api/sessions", json={"title": "Sales"}).json()["id"]
    app.model.script(ToolCall(TOOL, query), Text(MODEL_WORDS))
    return session_id, events(send(client, session_id, "How much did Germany sell in 2025?"))


def change(client: httpx.Client, session_id: str, query: dict[str, Any]) -> httpx.Response:
    return client.post(f"/api/sessions/{session_id}/readings", json={"query": query})


def test_a_changed_reading_is_a_stored_turn_every_device_shows_and_the_model_sees_next(
    any_store_app: Any,
) -> None:
    retail_app = any_store_app
    phone, laptop = retail_app.client("alice"), retail_app.client("alice")
    session_id, turn = asked_chat(retail_app, phone)
    asked = computed(retail_app, ASKED)
    (reading,) = turn[-1][1]["readings"]  # the chips come with the answer, live
    assert reading["answer"] == asked["answer"] and reading["query"] == asked["query"]
    assert [(c["field"], c["label"]) for c in reading["chips"]] == [
        ("measure", "Revenue"),
        ("countries", "Germany"),
        ("period", "2025"),
    ]
    assert messages(laptop, session_id)[-1]["readings"] == [reading]  # and from the stored conversation

    position = laptop.get(f"/api/sessions/{session_id}/messages").json()["last_event_id"]
    feed = Feed(laptop, f"/api/sessions/{session_id}/events?after={position}")
    try:
        changed = change(phone, session_id, CHANGED)
        heard = feed.take_until("idle")
    finally:
        feed.close()
    assert changed.status_code == 201, changed.text
    expected = computed(retail_app, CHANGED)
    question, answer = changed.json()["messages"]
    assert question["content"] == "Reading changed: Orders · France · June 2024"
    assert answer["content"] == expected["answer"]  # computed by code, no model call
    (new_reading,) = answer["readings"]
    assert new_reading["answer"] is None  # the message is the tool's own text already
    assert [c["label"] for c in new_reading["chips"]] == ["Orders", "France", "June 2024"]

    assert [e.kind for e in heard] == ["user", "tool", "tool", "done", "idle"]  # another device, live
    assert heard[0].data["content"] == question["content"]
    assert heard[3].data["content"] == expected["answer"] and heard[3].data["readings"] == [new_reading]

    stored = messages(laptop, session_id)  # a reload, on another device
    assert [m["content"] for m in stored] == [
        "How much did Germany sell in 2025?",
        MODEL_WORDS,
        question["content"],
        expected["answer"],
    ]
    assert stored[-1]["readings"] == [new_reading] and stored[-1]["event_id"] == answer["event_id"]
    session = laptop.get(f"/api/sessions/{session_id}").json()
    assert session["turn_count"] == 2 and session["status"] == "idle"
    assert "reading" in audit_actions(retail_app, session_id)

    retail_app.model.script(Text("Noted."))
    assert events(send(phone, session_id, "And what did that come to?"))[-1][0] == "done"
    sent = retail_app.model.requests[-1]["messages"]  # the model's next request: the history resumed
    calls = [call for m in sent if m["role"] == "assistant" for call in m.get("tool_calls") or []]
    assert [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in calls] == [
        (TOOL, ASKED),
        (TOOL, Query(**CHANGED).model_dump(mode="json", exclude_defaults=True)),
    ]
    results = [json.loads(message_text(m)) for m in sent if m["role"] == "tool"]
    assert [r["answer"] for r in results] == [asked["answer"], expected["answer"]]
    assert [message_text(m) for m in sent if m["role"] == "assistant" and not m.get("tool_calls")] == [
        MODEL_WORDS,
        expected["answer"],
    ]
    assert question["content"] in [message_text(m) for m in sent if m["role"] == "user"]


def test_a_changed_grouped_reading_is_charted_found_and_exported_as_imported_text(retail_app: Any) -> None:
    client = retail_app.client("alice")
    session_id, _ = asked_chat(retail_app, client)
    ranking = {"measure": "revenue", "group_by": "country", "order": "lowest", "limit": 3}
    response = change(client, session_id, ranking)
    assert response.status_code == 201, response.text
    rows = computed(retail_app, ranking)["rows"]
    (chart,) = response.json()["messages"][1]["charts"]
    assert (chart["kind"], chart["tool"], chart["category"]) == ("bar", "analyze_sales", "Country")
    assert chart["labels"] == [row["label"] for row in rows] and len(rows) == 3
    assert chart["series"][0]["values"] == [row["revenue"] for row in rows]

    hits = client.get("/api/search", params={"q": "reading changed"}).json()["messages"]
    assert [(h["session_id"], h["role"]) for h in hits] == [(session_id, "user")]
    markdown = client.get(f"/api/sessions/{session_id}/export", params={"format": "markdown"}).text
    assert "Reading changed: Revenue · all time · bottom 3 countries" in markdown
    exported = client.get(f"/api/sessions/{session_id}/export", params={"format": "json"}).json()
    imported = client.post("/api/sessions/import", content=json.dumps(exported)).json()["items"][0]
    copied = messages(client, imported["id"])[-1]  # a file's tool results are its word, not our tools'
    assert (copied["content"], copied["charts"], copied["readings"]) == (
        response.json()["messages"][1]["content"],
        [],
        [],
    )
    assert [tool["tool"] for tool in copied["imported_tools"]] == ["analyze_sales"]


def test_a_relative_period_is_pinned_in_the_reading_a_chip_edits(retail_app: Any) -> None:
    """An old answer's "latest month" stays that month when another chip of it is changed after the
    data moved on: the reading the UI edits holds the month it was."""
    client = retail_app.client("alice")
    session_id, _ = asked_chat(retail_app, client)
    response = change(client, session_id, {"measure": "revenue", "period": "latest month"})
    assert response.status_code == 201, response.text
    (reading,) = response.json()["messages"][1]["readings"]
    month = reading["query"]["period"]
    assert re.fullmatch(r"\d{4}-\d{2}", month), month
    assert "(the latest month in the data)" in response.json()["messages"][1]["content"]


@pytest.mark.parametrize(
    ("query", "says"),
    [
        ({"measure": "profit"}, "The reading is not valid: measure: Input should be 'revenue'"),
        ({"limit": 99}, "The reading is not valid: limit: Input should be less than or equal to 50."),
        ({"colour": "red"}, "The reading is not valid: colour: Extra inputs are not permitted."),
        ({"period": "1990"}, "I can't answer that from this data: there are no sales in 1990"),
        ({"countries": ["Atlantis"]}, "I can't answer that from this data: there is no country named"),
    ],
)
def test_a_reading_that_is_not_valid_or_not_in_the_data_is_one_message_and_records_nothing(
    retail_app: Any, query: dict[str, Any], says: str
) -> None:
    client = retail_app.client("alice")
    session_id, _ = asked_chat(retail_app, client)
    before = messages(client, session_id)
    response = change(client, session_id, query)
    assert response.status_code == 422
    detail = response.json()["detail"]
    assert isinstance(detail, str) and detail.startswith(says), detail
    assert messages(client, session_id) == before


def test_another_users_session_is_an_unknown_one_a_busy_one_is_409_and_csrf_is_required(
    retail_app: Any,
) -> None:
    app = retail_app
    alice, bob = app.client("alice"), app.client("bob")
    session_id, _ = asked_chat(app, alice)

    foreign, unknown = change(bob, session_id, CHANGED), change(bob, "chat-0000000000000000", CHANGED)
    assert (foreign.status_code, foreign.json()) == (unknown.status_code, unknown.json())
    assert foreign.status_code == 404 and foreign.json() == {"detail": "No such session."}
    assert audit_actions(app, session_id, "bob") == []  # an unknown id to bob: nothing written

    without_token = httpx.post(
        f"{app.url}/api/sessions/{session_id}/readings", json={"query": CHANGED}, cookies=alice.cookies
    )
    assert without_token.status_code == 403

    leases = LeaseManager(make_engine(app.web.database_url))  # a turn on another server holds the session
    lease = leases.acquire(runtime_id(app, session_id), "other-server/0123456789ab", ttl=30.0)
    assert lease is not None
    busy = change(alice, session_id, CHANGED)
    assert busy.status_code == 409 and "answering another message" in busy.json()["detail"]
    leases.release(lease)
    assert change(alice, session_id, CHANGED).status_code == 201
    assert len(messages(alice, session_id)) == 4

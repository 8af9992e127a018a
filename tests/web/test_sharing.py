"""Read-only share links (docs/architecture.md#share-links), on SQLite and on PostgreSQL: a link is a
capability that is not the session id; it shows a snapshot with its charts and nothing else, a
revoked, expired or guessed one answers exactly like an unknown one, a signed-in viewer can continue
it as their own copy, and every step is audited under the shared session."""

import json
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from chat_helpers import events, expire_share_links, messages, send

from agent_orchestrator.retail import GeneratorConfig, generate_dataset
from agent_orchestrator.sessions.files.postgres import PostgresSessionFiles
from agent_orchestrator.sessions.store import AuditLog, make_engine
from agent_orchestrator.testing.scripted_model import Text, ToolCall, message_text


def _share(client: httpx.Client, session_id: str, **body: object) -> dict:
    response = client.post(f"/api/sessions/{session_id}/shares", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def _token(link: dict) -> str:
    return link["url"].removeprefix("/share/")


def _chat(live_app, client: httpx.Client, title: str, *answers: str) -> str:
    session_id = client.post("/api/sessions", json={"title": title}).json()["id"]
    for number, answer in enumerate(answers):
        live_app.model.script(Text(answer))
        assert events(send(client, session_id, f"Question {number}"))[-1][0] == "done"
    return session_id


def test_a_link_shows_its_snapshot_to_anyone_until_revoked(live_app) -> None:
    alice = live_app.client("alice")
    session_id = _chat(live_app, alice, "Q3 review", "Revenue rose 12 %.")
    link = _share(alice, session_id)
    token = _token(link)
    assert token != session_id and len(token) >= 40 and link["state"] == "active"
    assert (
        timedelta(days=6)
        < (
            __import__("datetime").datetime.fromisoformat(link["expires_at"])
            - __import__("datetime").datetime.fromisoformat(link["created_at"])
        )
        <= timedelta(days=7)
    )

    stranger = live_app.client()  # not signed in: a fresh browser
    shared = stranger.get(f"/api/shared/{token}")
    assert shared.status_code == 200
    body = shared.json()
    assert body["title"] == "Q3 review"
    assert [(m["role"], m["content"]) for m in body["messages"]] == [
        ("user", "Question 0"),
        ("assistant", "Revenue rose 12 %."),
    ]
    page = stranger.get(f"/share/{token}")
    assert page.status_code == 200 and "share-view.js" in page.text

    # A snapshot: what is said later is not shown until the owner refreshes the link.
    live_app.model.script(Text("And costs fell."))
    assert events(send(alice, session_id, "More?"))[-1][0] == "done"
    assert len(stranger.get(f"/api/shared/{token}").json()["messages"]) == 2
    assert alice.post(f"/api/shares/{link['id']}/refresh").status_code == 200
    assert len(stranger.get(f"/api/shared/{token}").json()["messages"]) == 4

    listed = alice.get("/api/shares").json()
    assert [(item["id"], item["views"], item["state"]) for item in listed] == [(link["id"], 3, "active")]
    assert "url" not in listed[0]  # the token is shown once, at creation

    assert alice.delete(f"/api/shares/{link['id']}").status_code == 204
    assert alice.get("/api/shares").json()[0]["state"] == "revoked"
    revoked = stranger.get(f"/api/shared/{token}")
    guessed = stranger.get(f"/api/shared/{token[:-4]}AAAA")
    malformed = stranger.get("/api/shared/not a token")
    assert revoked.status_code == guessed.status_code == malformed.status_code == 404
    assert revoked.json() == guessed.json() == malformed.json()


def test_views_of_a_link_are_audited_once_a_window_per_viewer_and_never_cached(live_app) -> None:
    """300 anonymous views from one address are one audit row (the link still counts 300), a signed-in
    viewer has a row of their own, and neither the snapshot nor who is signed in may be cached."""
    alice, bob = live_app.client("alice"), live_app.client("bob")
    session_id = _chat(live_app, alice, "Popular", "Everyone reads this.")
    link = _share(alice, session_id)
    stranger = live_app.client()
    for _ in range(300):
        shared = stranger.get(f"/api/shared/{_token(link)}")
        assert shared.status_code == 200
    assert shared.headers["cache-control"] == "no-store"
    assert bob.get(f"/api/shared/{_token(link)}").status_code == 200
    assert bob.get(f"/api/shared/{_token(link)}").status_code == 200
    assert alice.get("/api/auth/me").headers["cache-control"] == "no-store"
    assert alice.get("/api/shares").headers["cache-control"] == "no-store"

    assert alice.get("/api/shares").json()[0]["views"] == 302
    audit = AuditLog(make_engine(live_app.web.database_url))
    viewed = [e for e in audit.recent() if e.action == "share_view"]
    assert sorted((e.username, e.details["views"]) for e in viewed) == [("(anonymous)", "1"), ("bob", "1")]
    activity = alice.get(f"/api/sessions/{session_id}/activity").json()
    assert [s["details"]["views"] for s in activity["steps"] if s["action"] == "share_view"] == ["1", "1"]


def test_an_expired_link_answers_like_an_unknown_one(live_app) -> None:
    alice = live_app.client("alice")
    session_id = _chat(live_app, alice, "Old news", "It was fine.")
    link = _share(alice, session_id, days=1)
    expire_share_links(live_app.web.database_url)
    expired = live_app.client().get(f"/api/shared/{_token(link)}")
    unknown = live_app.client().get(f"/api/shared/{'x' * 43}")
    assert (expired.status_code, expired.json()) == (unknown.status_code, unknown.json())
    assert alice.get("/api/shares").json()[0]["state"] == "expired"


def test_a_signed_in_only_link_asks_to_sign_in_and_a_viewer_can_continue_it_as_their_own(live_app) -> None:
    alice, bob = live_app.client("alice"), live_app.client("bob")
    session_id = _chat(live_app, alice, "For the team", "Germany leads.")
    token = _token(_share(alice, session_id, signed_in_only=True))
    anonymous = live_app.client().get(f"/api/shared/{token}")
    assert anonymous.status_code == 401
    assert bob.get(f"/api/shared/{token}").status_code == 200

    copied = bob.post(f"/api/shared/{token}/copy")
    assert copied.status_code == 201, copied.text
    copy_id = copied.json()["id"]
    messages = bob.get(f"/api/sessions/{copy_id}/messages").json()["messages"]
    assert [m["content"] for m in messages] == ["Question 0", "Germany leads."]
    live_app.model.script(Text("Then France."))
    assert events(send(bob, copy_id, "And then?"))[-1][0] == "done"  # bob's own chat goes on
    assert (
        len(alice.get(f"/api/sessions/{session_id}/messages").json()["messages"]) == 2
    )  # alice's is untouched
    assert live_app.client().post(f"/api/shared/{token}/copy").status_code in (401, 403)

    audit = AuditLog(make_engine(live_app.web.database_url))
    actions = [e.action for e in audit.recent() if e.action.startswith("share")]
    assert sorted(actions) == sorted(["share", "share_refused", "share_view", "share_view", "share_fork"])


def test_links_are_their_owners_to_manage(live_app) -> None:
    alice, bob = live_app.client("alice"), live_app.client("bob")
    session_id = _chat(live_app, alice, "Mine", "Yes.")
    link = _share(alice, session_id)
    assert bob.get("/api/shares").json() == []
    assert bob.delete(f"/api/shares/{link['id']}").status_code == 404
    assert bob.post(f"/api/shares/{link['id']}/refresh").status_code == 404
    assert bob.post(f"/api/sessions/{session_id}/shares", json={}).status_code == 404  # another's chat
    assert alice.post(f"/api/sessions/{session_id}/shares", json={"days": 0}).status_code == 422
    assert alice.post(f"/api/sessions/{session_id}/shares", json={"days": 91}).status_code == 422
    assert alice.get(f"/api/shared/{_token(link)}").status_code == 200  # still live

    assert alice.delete(f"/api/sessions/{session_id}").status_code == 204  # deleted with the chat
    assert live_app.client().get(f"/api/shared/{_token(link)}").status_code == 404
    assert alice.get("/api/shares").json() == []


def test_a_shared_answer_keeps_the_chart_of_what_its_tool_returned(
    start_app: Callable, tmp_path: Path
) -> None:
    generate_dataset(tmp_path / "retail.sqlite", GeneratorConfig(seed=7, customers=300, transactions=6_000))
    app = start_app(retail_dataset=True)
    alice = app.client("alice")
    session_id = alice.post("/api/sessions", json={"title": "Trend"}).json()["id"]
    app.model.script(ToolCall("retail-analytics-monthly_trend", {"months": 6}), Text("Revenue grew."))
    assert events(send(alice, session_id, "How did revenue develop?"))[-1][0] == "done"
    tool_message = [m for m in app.model.requests[-1]["messages"] if m["role"] == "tool"][-1]
    months = json.loads(message_text(tool_message))["months"]
    owners = messages(alice, session_id)[-1]

    shared = app.client().get(f"/api/shared/{_token(_share(alice, session_id))}")  # not signed in
    assert shared.status_code == 200, shared.text
    answer = shared.json()["messages"][-1]
    assert answer["content"] == "Revenue grew." and answer["readings"] == []
    assert answer["charts"] == owners["charts"]
    (chart,) = answer["charts"]
    assert (chart["tool"], chart["kind"]) == ("monthly_trend", "line")
    assert chart["labels"] == [m["month"] for m in months]
    assert chart["series"][0]["values"] == [m["revenue"] for m in months]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def retail_live_app(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """The app with the retail dataset and its tools, on each store."""
    generate_dataset(tmp_path / "retail.sqlite", GeneratorConfig(seed=7, customers=300, transactions=6_000))
    start_app = request.getfixturevalue("start_app")
    if request.param == "postgres":
        schema = request.getfixturevalue("postgres_schema")
        return start_app(
            schema.sqlalchemy_url, PostgresSessionFiles.from_url(schema.url), retail_dataset=True
        )
    return start_app(retail_dataset=True)


def test_a_copy_of_a_shared_chat_keeps_its_charts_and_readings(retail_live_app) -> None:
    """The snapshot a copy is made from is this server's own log, not a user's file: the copy's answer
    charts what the original's tool returned, as the original does, where an upload of the same
    conversation shows the results as imported text only (docs/architecture.md#export-and-import)."""
    alice, bob = retail_live_app.client("alice"), retail_live_app.client("bob")
    session_id = alice.post("/api/sessions", json={"title": "By country"}).json()["id"]
    asked = {"measure": "revenue", "group_by": "country", "limit": 3}
    retail_live_app.model.script(ToolCall("retail-analytics-analyze_sales", asked), Text("Three countries."))
    assert events(send(alice, session_id, "Revenue by country?"))[-1][0] == "done"
    original = alice.get(f"/api/sessions/{session_id}/messages").json()["messages"][-1]
    (chart,) = original["charts"]
    assert (chart["tool"], len(chart["labels"])) == ("analyze_sales", 3) and original["readings"]

    copied = bob.post(f"/api/shared/{_token(_share(alice, session_id))}/copy")
    assert copied.status_code == 201, copied.text
    copy = bob.get(f"/api/sessions/{copied.json()['id']}/messages").json()["messages"][-1]
    assert (copy["content"], copy["charts"], copy["readings"]) == (
        original["content"],
        original["charts"],
        original["readings"],
    )
    assert copy["imported_tools"] == []

    exported = alice.get(f"/api/sessions/{session_id}/export").json()  # a file: its word, not our tools'
    uploaded = bob.post("/api/sessions/import", content=json.dumps(exported)).json()["items"][0]
    upload = bob.get(f"/api/sessions/{uploaded['id']}/messages").json()["messages"][-1]
    assert (upload["charts"], upload["readings"]) == ([], [])
    assert [tool["tool"] for tool in upload["imported_tools"]] == ["analyze_sales"]

"""Fork, edit and resend, regenerate, rewind and search, through the real runtime (scripted model), on
the embedded default (SQLite, local files) and the shared store (PostgreSQL catalog and files)."""

import json
from typing import Any

import httpx
import pytest

from agent_orchestrator.sessions.store import AuditLog, make_engine
from agent_orchestrator.testing.scripted_model import Reply, Text, user_messages

FACTS = ["fact one: apple", "fact two: banana", "fact three: cherry"]


def memory_rule(body: dict[str, Any]) -> Reply:
    """A model with perfect memory: asked what was said, it lists the earlier facts it was sent."""
    said = [text.strip().splitlines()[-1] for text in user_messages(body)]
    if "what did i say" in said[-1].lower():
        facts = [text for text in said[:-1] if text.startswith("fact")]
        return Text("You said: " + "; ".join(facts) if facts else "You said nothing.")
    return Text(f"Noted {said[-1].split(':')[-1].strip()}.")


@pytest.fixture
def chat(live_app):
    """Alice's session with three turns, each telling the model one fact."""
    live_app.model.default = memory_rule
    alice = live_app.client("alice")
    session_id = alice.post("/api/sessions", json={"title": "Fruit facts"}).json()["id"]
    for fact in FACTS:
        assert _events(_send(alice, session_id, fact))[-1][0] == "done"
    return alice, session_id


def _events(response: httpx.Response) -> list[tuple[str, dict]]:
    assert response.status_code == 200, response.text
    frames = []
    for block in response.text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        frames.append((lines["event"], json.loads(lines["data"])))
    return frames


def _send(client: httpx.Client, session_id: str, content: str) -> httpx.Response:
    return client.post(f"/api/sessions/{session_id}/messages", json={"content": content})


def _messages(client: httpx.Client, session_id: str) -> list[dict]:
    return client.get(f"/api/sessions/{session_id}/messages").json()["messages"]


def _contents(client: httpx.Client, session_id: str) -> list[str]:
    return [m["content"] for m in _messages(client, session_id)]


def _answer(client: httpx.Client, session_id: str, content: str) -> str:
    return _events(_send(client, session_id, content))[-1][1]["content"]


def _audit(live_app, session_id: str) -> list[str]:
    engine = make_engine(live_app.web.database_url)
    try:
        return [e.action for e in AuditLog(engine).recent(session_id=session_id)]
    finally:
        engine.dispose()


def test_a_fork_remembers_what_was_said_before_the_fork_point_and_not_after(live_app, chat):
    alice, session_id = chat
    second_answer = _messages(alice, session_id)[3]
    assert second_answer["role"] == "assistant" and second_answer["event_id"]
    response = alice.post(f"/api/sessions/{session_id}/fork", json={"event_id": second_answer["event_id"]})
    assert response.status_code == 201
    fork = response.json()
    assert fork["id"] != session_id and fork["title"] == "Fruit facts (branch)"
    assert (fork["parent_id"], fork["parent_event_id"]) == (session_id, second_answer["event_id"])
    assert fork["turn_count"] == 2
    assert _contents(alice, fork["id"]) == _contents(alice, session_id)[:4]

    assert _answer(alice, fork["id"], "What did I say?") == "You said: fact one: apple; fact two: banana"
    assert _answer(alice, session_id, "What did I say?") == "You said: " + "; ".join(FACTS)
    assert len(_messages(alice, session_id)) == 8  # the parent went on by itself
    assert [s["id"] for s in alice.get("/api/sessions").json()["items"]][:2] == [session_id, fork["id"]]
    assert "fork" in _audit(live_app, fork["id"])


def test_edit_and_resend_forks_before_the_message_and_leaves_the_original_intact(live_app, chat):
    alice, session_id = chat
    before = _contents(alice, session_id)
    second_question = _messages(alice, session_id)[2]
    edited = alice.post(
        f"/api/sessions/{session_id}/messages/{second_question['event_id']}/edit",
        json={"content": "fact two: blueberry"},
    )
    fork_id = edited.headers["X-Session-Id"]
    assert _events(edited)[-1][1]["content"] == "Noted blueberry."
    assert _contents(alice, fork_id) == [*before[:2], "fact two: blueberry", "Noted blueberry."]
    assert _contents(alice, session_id) == before
    assert _answer(alice, fork_id, "What did I say?") == "You said: fact one: apple; fact two: blueberry"
    first_answer = _messages(alice, session_id)[1]["event_id"]
    refused = alice.post(f"/api/sessions/{session_id}/messages/{first_answer}/edit", json={"content": "x"})
    assert refused.status_code == 422


def test_rewind_removes_the_last_turn_from_the_transcript_the_model_and_search(live_app, chat):
    alice, session_id = chat
    assert [hit["event_id"] for hit in alice.get("/api/search", params={"q": "cherry"}).json()["messages"]]
    rewound = alice.post(f"/api/sessions/{session_id}/rewind", json={"turns": 1})
    assert rewound.status_code == 200 and rewound.json()["turn_count"] == 2
    assert _contents(alice, session_id) == [FACTS[0], "Noted apple.", FACTS[1], "Noted banana."]
    assert alice.get("/api/search", params={"q": "cherry"}).json()["messages"] == []
    assert alice.get("/api/search", params={"q": "banana"}).json()["messages"]
    assert _answer(alice, session_id, "What did I say?") == "You said: fact one: apple; fact two: banana"
    assert "rewind" in _audit(live_app, session_id)
    too_far = alice.post(f"/api/sessions/{session_id}/rewind", json={"turns": 9})
    assert too_far.status_code == 422 and "3 turn(s)" in too_far.json()["detail"]


def test_regenerate_asks_the_last_question_again_in_place(live_app, chat):
    alice, session_id = chat
    live_app.model.script(Text("A fresh answer."))
    events = _events(alice.post(f"/api/sessions/{session_id}/regenerate"))
    assert events[-1][1]["content"] == "A fresh answer."
    contents = _contents(alice, session_id)
    assert contents[-2:] == ["fact three: cherry", "A fresh answer."] and len(contents) == 6
    assert user_messages(live_app.model.requests[-1])[-1].strip().endswith("fact three: cherry")


def test_search_finds_titles_and_message_text_with_highlights_for_the_owner_only(live_app, chat):
    alice, session_id = chat
    bob = live_app.client("bob")
    bob_session = bob.post("/api/sessions", json={"title": "Bob's banana plans"}).json()["id"]
    _answer(bob, bob_session, "fact bob: banana bread")

    found = alice.get("/api/search", params={"q": "BANANA"}).json()
    assert {hit["session_id"] for hit in found["messages"]} == {session_id}
    question = next(hit for hit in found["messages"] if hit["role"] == "user")
    assert question["title"] == "Fruit facts"
    assert question["event_id"] == _messages(alice, session_id)[2]["event_id"]
    assert {"text": "banana", "hit": True} in question["snippet"]
    assert "".join(part["text"] for part in question["snippet"]) == "fact two: banana"
    titles = alice.get("/api/search", params={"q": "fruit"}).json()["sessions"]
    assert [s["id"] for s in titles] == [session_id]
    assert alice.get("/api/search", params={"q": "bread"}).json() == {"sessions": [], "messages": []}
    assert alice.get("/api/search", params={"q": "plans"}).json()["sessions"] == []
    prefix = alice.get("/api/search", params={"q": "cher"}).json()["messages"]
    assert {hit["event_id"] for hit in prefix} == {m["event_id"] for m in _messages(alice, session_id)[4:6]}
    assert bob.get("/api/search", params={"q": "apple"}).json() == {"sessions": [], "messages": []}
    assert alice.get("/api/search", params={"q": '"); DROP TABLE sessions; --'}).status_code == 200


def test_another_users_session_cannot_be_forked_rewound_or_regenerated(live_app, chat):
    alice, session_id = chat
    bob = live_app.client("bob")
    event_id = _messages(alice, session_id)[1]["event_id"]
    unknown = bob.post("/api/sessions/chat-00000000000000000/rewind", json={})
    for attempt in (
        bob.post(f"/api/sessions/{session_id}/fork", json={"event_id": event_id}),
        bob.post(f"/api/sessions/{session_id}/messages/{event_id}/edit", json={"content": "mine"}),
        bob.post(f"/api/sessions/{session_id}/rewind", json={}),
        bob.post(f"/api/sessions/{session_id}/regenerate"),
    ):
        assert (attempt.status_code, attempt.json()) == (unknown.status_code, unknown.json())
        assert attempt.status_code == 404
    assert _audit(live_app, session_id).count("denied") == 4
    assert len(_messages(alice, session_id)) == 6
    assert bob.get("/api/sessions").json()["items"] == []

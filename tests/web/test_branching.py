"""Fork, edit and regenerate (versions of a turn), rewind and search, through the real runtime (scripted
model), on the embedded default (SQLite, local files) and the shared store (PostgreSQL catalog and
files)."""

import json

from chat_helpers import FACTS, answer, audit_actions, contents, events, memory_rule, messages, runtime_id
from sqlalchemy import select

from agent_orchestrator.sessions.store import make_engine
from agent_orchestrator.sessions.store.schema import search_messages
from agent_orchestrator.testing.scripted_model import Text, ToolCall, user_messages


def test_a_fork_remembers_what_was_said_before_the_fork_point_and_not_after(live_app, chat):
    alice, session_id = chat
    second_answer = messages(alice, session_id)[3]
    assert second_answer["role"] == "assistant" and second_answer["event_id"]
    response = alice.post(f"/api/sessions/{session_id}/fork", json={"event_id": second_answer["event_id"]})
    assert response.status_code == 201
    fork = response.json()
    assert fork["id"] != session_id and fork["title"] == "Fruit facts (branch)"
    assert (fork["parent_id"], fork["parent_event_id"]) == (session_id, second_answer["event_id"])
    assert fork["turn_count"] == 2
    assert contents(alice, fork["id"]) == contents(alice, session_id)[:4]

    assert answer(alice, fork["id"], "What did I say?") == "You said: fact one: apple; fact two: banana"
    assert answer(alice, session_id, "What did I say?") == "You said: " + "; ".join(FACTS)
    assert len(messages(alice, session_id)) == 8  # the parent went on by itself
    assert [s["id"] for s in alice.get("/api/sessions").json()["items"]][:2] == [session_id, fork["id"]]
    assert "fork" in audit_actions(live_app, fork["id"])


def test_an_edit_is_a_new_version_of_its_turn_and_the_old_one_can_be_shown_again(live_app, chat):
    alice, session_id = chat
    before = contents(alice, session_id)
    second_question = messages(alice, session_id)[2]["event_id"]
    edited = alice.post(
        f"/api/sessions/{session_id}/messages/{second_question}/edit", json={"content": "fact two: blueberry"}
    )
    assert events(edited)[-1][1]["content"] == "Noted blueberry."
    # In place: the edited turn replaces the second one and what followed it (kept as version 1).
    assert contents(alice, session_id) == [*before[:2], "fact two: blueberry", "Noted blueberry."]
    shown = messages(alice, session_id)
    assert shown[2]["version"] == {"number": 2, "count": 2}
    assert shown[0]["version"] is None and shown[3]["version"] is None
    assert answer(alice, session_id, "What did I say?") == "You said: fact one: apple; fact two: blueberry"
    assert alice.get("/api/search", params={"q": "cherry"}).json()["messages"] == []

    # Version 1 again: the turn as it was, with the turn after it; the model sees that history too.
    shown_question = messages(alice, session_id)[2]["event_id"]
    path = f"/api/sessions/{session_id}/messages/{shown_question}/version"
    switched = alice.put(path, json={"number": 1})
    assert switched.status_code == 200 and switched.json()["turn_count"] == 3
    assert contents(alice, session_id) == before
    assert messages(alice, session_id)[2]["version"] == {"number": 1, "count": 2}
    assert alice.get("/api/search", params={"q": "cherry"}).json()["messages"]
    assert answer(alice, session_id, "What did I say?") == "You said: " + "; ".join(FACTS)

    # And back to version 2, with the turn asked in it since.
    question_now = messages(alice, session_id)[2]["event_id"]
    assert alice.put(
        f"/api/sessions/{session_id}/messages/{question_now}/version", json={"number": 2}
    ).is_success
    assert contents(alice, session_id)[2:] == [
        "fact two: blueberry",
        "Noted blueberry.",
        "What did I say?",
        "You said: fact one: apple; fact two: blueberry",
    ]
    assert {"version", "version_switch"} <= set(audit_actions(live_app, session_id))

    first_answer = messages(alice, session_id)[1]["event_id"]
    not_a_question = alice.post(
        f"/api/sessions/{session_id}/messages/{first_answer}/edit", json={"content": "x"}
    )
    assert not_a_question.status_code == 422
    no_such = alice.put(f"/api/sessions/{session_id}/messages/{question_now}/version", json={"number": 7})
    assert no_such.status_code == 404
    unknown = alice.put(f"/api/sessions/{session_id}/messages/nope/version", json={"number": 1})
    assert unknown.status_code == 404
    assert contents(alice, session_id)[2] == "fact two: blueberry"  # refusals change nothing


def test_rewind_removes_the_last_turn_from_the_transcript_the_model_and_search(live_app, chat):
    alice, session_id = chat
    assert [hit["event_id"] for hit in alice.get("/api/search", params={"q": "cherry"}).json()["messages"]]
    rewound = alice.post(f"/api/sessions/{session_id}/rewind", json={"turns": 1})
    assert rewound.status_code == 200 and rewound.json()["turn_count"] == 2
    assert contents(alice, session_id) == [FACTS[0], "Noted apple.", FACTS[1], "Noted banana."]
    assert alice.get("/api/search", params={"q": "cherry"}).json()["messages"] == []
    assert alice.get("/api/search", params={"q": "banana"}).json()["messages"]
    assert answer(alice, session_id, "What did I say?") == "You said: fact one: apple; fact two: banana"
    assert "rewind" in audit_actions(live_app, session_id)
    too_far = alice.post(f"/api/sessions/{session_id}/rewind", json={"turns": 9})
    assert too_far.status_code == 422 and "3 turn(s)" in too_far.json()["detail"]


def test_regenerate_asks_the_last_question_again_as_a_new_version(live_app, chat):
    alice, session_id = chat
    live_app.model.script(Text("A fresh answer."))
    regenerated = events(alice.post(f"/api/sessions/{session_id}/regenerate"))
    assert regenerated[-1][1]["content"] == "A fresh answer."
    now = contents(alice, session_id)
    assert now[-2:] == ["fact three: cherry", "A fresh answer."] and len(now) == 6
    assert user_messages(live_app.model.requests[-1])[-1].strip().endswith("fact three: cherry")
    last_question = messages(alice, session_id)[4]
    assert last_question["version"] == {"number": 2, "count": 2}
    path = f"/api/sessions/{session_id}/messages/{last_question['event_id']}/version"
    assert alice.put(path, json={"number": 1}).is_success
    assert contents(alice, session_id)[-1] == "Noted cherry."

    # Rewound, the turn goes with its versions: the next question there is a turn of its own.
    assert alice.post(f"/api/sessions/{session_id}/rewind", json={"turns": 1}).is_success
    assert answer(alice, session_id, "fact three: date") == "Noted date."
    assert messages(alice, session_id)[4]["version"] is None


def test_a_regenerate_that_may_not_send_leaves_the_last_turn_as_it_was(start_app):
    """The daily budget is checked, and the lease taken, before the rewind: a refused regenerate
    changes nothing (it used to rewind first and lose the last answer to the refused send)."""
    app = start_app(daily_token_budget=50)
    app.model.default = memory_rule
    alice = app.client("alice")
    session_id = alice.post("/api/sessions", json={"title": "Budget"}).json()["id"]
    answer(alice, session_id, FACTS[0])  # under budget: runs, and uses it up
    before = messages(alice, session_id)
    refused = alice.post(f"/api/sessions/{session_id}/regenerate")
    assert refused.status_code == 429 and "daily budget" in refused.json()["detail"]
    assert messages(alice, session_id) == before
    assert "version" not in audit_actions(app, session_id)
    assert alice.get(f"/api/sessions/{session_id}").json()["turn_count"] == 1


def test_search_finds_titles_and_message_text_with_highlights_for_the_owner_only(live_app, chat):
    alice, session_id = chat
    bob = live_app.client("bob")
    bob_session = bob.post("/api/sessions", json={"title": "Bob's banana plans"}).json()["id"]
    answer(bob, bob_session, "fact bob: banana bread")

    found = alice.get("/api/search", params={"q": "BANANA"}).json()
    assert {hit["session_id"] for hit in found["messages"]} == {session_id}
    question = next(hit for hit in found["messages"] if hit["role"] == "user")
    assert question["title"] == "Fruit facts"
    assert question["event_id"] == messages(alice, session_id)[2]["event_id"]
    assert {"text": "banana", "hit": True} in question["snippet"]
    assert "".join(part["text"] for part in question["snippet"]) == "fact two: banana"
    titles = alice.get("/api/search", params={"q": "fruit"}).json()["sessions"]
    assert [s["id"] for s in titles] == [session_id]
    assert alice.get("/api/search", params={"q": "bread"}).json() == {"sessions": [], "messages": []}
    assert alice.get("/api/search", params={"q": "plans"}).json()["sessions"] == []
    stemmed = alice.get("/api/search", params={"q": "cherries"}).json()["messages"]
    newest_first = [m["event_id"] for m in messages(alice, session_id)[5:3:-1]]
    assert [hit["event_id"] for hit in stemmed] == newest_first
    assert bob.get("/api/search", params={"q": "apple"}).json() == {"sessions": [], "messages": []}
    assert alice.get("/api/search", params={"q": '"); DROP TABLE sessions; --'}).status_code == 200


def test_each_turn_indexes_its_messages_exactly_as_the_log_holds_them(live_app, chat):
    """The end of a turn indexes what the runtime reported as it logged it; it must be what a reindex
    would read from the log: the same event ids, roles, times and texts (a tool call's empty message
    left out), on both stores."""
    alice, session_id = chat
    live_app.model.script(ToolCall("retail-analytics-list_segments", {}), Text("Four segments."))
    assert answer(alice, session_id, "Which segments are there?") == "Four segments."
    logged = [(m["event_id"], m["role"], m["timestamp"], m["content"]) for m in messages(alice, session_id)]
    assert len(logged) == 8
    engine = make_engine(live_app.web.database_url)
    try:
        with engine.connect() as conn:
            t = search_messages
            stored = runtime_id(live_app, session_id)  # the index is keyed by the runtime id
            query = select(t.c.event_id, t.c.role, t.c.at, t.c.body).where(t.c.session_id == stored)
            indexed = sorted(tuple(row) for row in conn.execute(query))
    finally:
        engine.dispose()
    assert indexed == sorted(logged)


def test_another_users_session_cannot_be_forked_rewound_or_regenerated(live_app, chat):
    alice, session_id = chat
    bob = live_app.client("bob")
    event_id = messages(alice, session_id)[1]["event_id"]
    unknown = bob.post("/api/sessions/chat-00000000000000000/rewind", json={})
    for attempt in (
        bob.post(f"/api/sessions/{session_id}/fork", json={"event_id": event_id}),
        bob.post(f"/api/sessions/{session_id}/messages/{event_id}/edit", json={"content": "mine"}),
        bob.post(f"/api/sessions/{session_id}/rewind", json={}),
        bob.post(f"/api/sessions/{session_id}/regenerate"),
    ):
        assert (attempt.status_code, attempt.json()) == (unknown.status_code, unknown.json())
        assert attempt.status_code == 404
    assert audit_actions(live_app, session_id, "bob") == []  # an unknown id to bob: no session named
    assert len(messages(alice, session_id)) == 6
    assert bob.get("/api/sessions").json()["items"] == []


def test_an_export_carries_the_kept_versions_and_an_import_makes_the_chat_as_shown(live_app, chat):
    alice, session_id = chat
    second_question = messages(alice, session_id)[2]["event_id"]
    edit = f"/api/sessions/{session_id}/messages/{second_question}/edit"
    assert events(alice.post(edit, json={"content": "fact two: blueberry"}))[-1][0] == "done"

    document = alice.get(f"/api/sessions/{session_id}/export", params={"format": "json"}).json()
    [turn] = document["versions"]
    assert turn["anchor"] == messages(alice, session_id)[1]["event_id"] and turn["shown"] == 2
    [kept] = turn["kept"]
    assert kept["number"] == 1
    assert [m["content"] for m in kept["transcript"]] == [
        *FACTS[1:2],
        "Noted banana.",
        FACTS[2],
        "Noted cherry.",
    ]
    assert '"fact three: cherry"' in kept["events"]

    markdown = alice.get(f"/api/sessions/{session_id}/export", params={"format": "markdown"}).text
    assert "— _version 2 of 2_" in markdown
    assert markdown.index("## Version 1 of “fact two: blueberry”") > markdown.index("Noted blueberry.")
    assert markdown.rstrip().endswith("Noted cherry.")

    copy = alice.post("/api/sessions/import", content=json.dumps(document)).json()["items"][0]["id"]
    assert contents(alice, copy) == contents(alice, session_id)
    assert all(m["version"] is None for m in messages(alice, copy))

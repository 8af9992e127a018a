"""Session ids are per owner (docs/architecture.md#session-ids), through the real app on SQLite and on
PostgreSQL: Bob's ``acme-merger`` is his own session beside Alice's, with its own conversation, search
rows, export and live feed; deleting one leaves the other; another user's id is an unknown id on every
route; and no response ever shows the runtime id underneath."""

import json

import httpx
import pytest
from chat_helpers import answer, audit_actions, contents, events, memory_rule, runtime_id, send
from live_feed import Feed

from agent_orchestrator.sessions.store import AuditLog, make_engine

ID = "acme-merger"


@pytest.fixture
def two_mergers(live_app) -> tuple[httpx.Client, httpx.Client]:
    """Alice and Bob, each with an ``acme-merger`` told one fact: Alice's first, then Bob's."""
    live_app.model.default = memory_rule
    alice, bob = live_app.client("alice"), live_app.client("bob")
    created = alice.post("/api/sessions", json={"id": ID, "title": "Alice's merger"})
    assert created.status_code == 201, created.text
    assert answer(alice, ID, "fact one: apple") == "Noted apple."
    created = bob.post("/api/sessions", json={"id": ID, "title": "Bob's merger"})
    assert created.status_code == 201, created.text
    assert created.json()["id"] == ID and created.json()["title"] == "Bob's merger"
    assert created.json()["turn_count"] == 0
    assert answer(bob, ID, "fact one: kiwi") == "Noted kiwi."
    return alice, bob


def test_two_owners_each_have_their_own_session_of_one_id(live_app, two_mergers) -> None:
    alice, bob = two_mergers
    assert contents(alice, ID) == ["fact one: apple", "Noted apple."]
    assert contents(bob, ID) == ["fact one: kiwi", "Noted kiwi."]
    # The model of each conversation was sent that conversation only.
    assert answer(alice, ID, "What did I say?") == "You said: fact one: apple"
    assert answer(bob, ID, "What did I say?") == "You said: fact one: kiwi"
    assert alice.get(f"/api/sessions/{ID}").json()["title"] == "Alice's merger"
    assert bob.get(f"/api/sessions/{ID}").json()["title"] == "Bob's merger"
    assert [s["id"] for s in alice.get("/api/sessions").json()["items"]] == [ID]
    assert [s["id"] for s in bob.get("/api/sessions").json()["items"]] == [ID]
    # Underneath, two runtime sessions, neither of them named like the public id.
    alices, bobs = runtime_id(live_app, ID, "alice"), runtime_id(live_app, ID, "bob")
    assert len({alices, bobs, ID}) == 3
    # Renaming one is renaming that one.
    assert bob.patch(f"/api/sessions/{ID}", json={"title": "Bob's deal"}).status_code == 200
    assert alice.get(f"/api/sessions/{ID}").json()["title"] == "Alice's merger"
    # An owner's id is still taken for that owner.
    again = alice.post("/api/sessions", json={"id": ID})
    assert (again.status_code, again.json()) == (409, {"detail": "A session with this id already exists."})


def test_deleting_one_owners_session_leaves_the_others(live_app, two_mergers) -> None:
    alice, bob = two_mergers
    bobs = runtime_id(live_app, ID, "bob")
    assert alice.delete(f"/api/sessions/{ID}").status_code == 204
    assert alice.get(f"/api/sessions/{ID}").status_code == 404
    assert contents(bob, ID) == ["fact one: kiwi", "Noted kiwi."]
    assert runtime_id(live_app, ID, "bob") == bobs
    assert answer(bob, ID, "What did I say?") == "You said: fact one: kiwi"
    # Alice's id is hers to use again: a new, empty session, with a runtime id of its own.
    assert alice.post("/api/sessions", json={"id": ID}).status_code == 201
    assert contents(alice, ID) == []
    assert runtime_id(live_app, ID, "alice") not in (bobs, ID)
    assert "delete" in audit_actions(live_app, ID, "alice")
    assert "delete" not in audit_actions(live_app, ID, "bob")


def test_search_and_export_name_only_the_callers_session(live_app, two_mergers) -> None:
    alice, bob = two_mergers
    for client, fruit, other in ((alice, "apple", "kiwi"), (bob, "kiwi", "apple")):
        hits = client.get("/api/search", params={"q": fruit}).json()["messages"]
        assert {hit["session_id"] for hit in hits} == {ID} and len(hits) == 2  # the fact and its answer
        assert client.get("/api/search", params={"q": other}).json()["messages"] == []
        titles = client.get("/api/search", params={"q": "merger"}).json()["sessions"]
        assert [s["id"] for s in titles] == [ID]

        exported = client.get(f"/api/sessions/{ID}/export")
        assert exported.status_code == 200
        assert exported.headers["content-disposition"].endswith("s%20merger.json")  # each their own title
        document = exported.json()
        assert document["session"]["id"] == ID and "public_id" not in document["session"]
        assert [m["content"] for m in document["transcript"]] == [f"fact one: {fruit}", f"Noted {fruit}."]
        assert other not in document["events"]
        markdown = client.get(f"/api/sessions/{ID}/export", params={"format": "markdown"}).text
        assert f"session `{ID}`" in markdown and other not in markdown
    # A re-import is a new session of the importer's, under a new id.
    imported = bob.post(
        "/api/sessions/import", content=json.dumps(bob.get(f"/api/sessions/{ID}/export").json())
    )
    assert imported.status_code == 201, imported.text
    [copy] = imported.json()["items"]
    assert copy["id"] != ID and contents(bob, copy["id"]) == contents(bob, ID)
    assert contents(alice, ID) == ["fact one: apple", "Noted apple."]


def test_each_owners_live_feeds_carry_their_own_session_only(live_app, two_mergers) -> None:
    alice, bob = two_mergers
    start = bob.get(f"/api/sessions/{ID}/messages").json()["last_event_id"]
    bobs_chat = Feed(bob, f"/api/sessions/{ID}/events?after={start}")
    bobs_list = Feed(bob, "/api/events")
    alices_list = Feed(alice, "/api/events")
    try:
        assert answer(alice, ID, "fact two: pear") == "Noted pear."
        assert alices_list.take_until("idle")[-1].data == {"id": ID}
        assert answer(bob, ID, "fact two: plum") == "Noted plum."
        turn = bobs_chat.take_until("idle")
        listed = bobs_list.take_until("idle")
    finally:
        for feed in (bobs_chat, bobs_list, alices_list):
            feed.close()
    assert turn[0].data == {"content": "fact two: plum"}  # Alice's turn never reached Bob's feed
    assert "pear" not in json.dumps([e.data for e in turn])
    assert [(e.kind, e.data) for e in listed] == [("busy", {"id": ID}), ("idle", {"id": ID})]


def test_another_users_id_is_an_unknown_id_on_every_route(live_app) -> None:
    """Bob has no ``acme-merger``; Alice's is exactly as unknown to him as one nobody has (status, body,
    headers), and asking for either writes the same: one ``unknown_id`` row with the id as asked,
    keyed by no session (docs/architecture.md#ownership)."""
    live_app.model.default = memory_rule
    alice, bob = live_app.client("alice"), live_app.client("bob")
    assert alice.post("/api/sessions", json={"id": ID}).status_code == 201
    assert answer(alice, ID, "fact one: apple") == "Noted apple."
    event_id = alice.get(f"/api/sessions/{ID}/messages").json()["messages"][0]["event_id"]
    engine = make_engine(live_app.web.database_url)
    try:
        trail_before = [e.id for e in AuditLog(engine).recent(limit=1000)]
    finally:
        engine.dispose()

    def attempts(session_id: str) -> list[httpx.Response]:
        path = f"/api/sessions/{session_id}"
        return [
            bob.get(path),
            bob.patch(path, json={"title": "mine"}),
            bob.post(f"{path}/composing"),
            bob.get(f"{path}/messages"),
            send(bob, session_id, "hello"),
            bob.get(f"{path}/events"),
            bob.get(f"{path}/export"),
            bob.post(f"{path}/fork", json={"event_id": event_id}),
            bob.post(f"{path}/messages/{event_id}/edit", json={"content": "mine"}),
            bob.post(f"{path}/regenerate"),
            bob.post(f"{path}/rewind", json={}),
            bob.post(f"{path}/readings", json={"query": {"measure": "orders", "period": "2024-06"}}),
            bob.delete(path),
        ]

    def seen(response: httpx.Response) -> tuple[int, object, dict[str, str]]:
        varying = ("date", "x-request-id")
        return (
            response.status_code,
            response.json(),
            {k: v for k, v in response.headers.items() if k not in varying},
        )

    nobodys = "chat-0000000000000000"
    unknown = [seen(r) for r in attempts(nobodys)]
    foreign = [seen(r) for r in attempts(ID)]
    assert foreign == unknown
    assert [(status, body) for status, body, _ in foreign] == [(404, {"detail": "No such session."})] * len(
        foreign
    )
    engine = make_engine(live_app.web.database_url)
    try:
        new_rows = [e for e in AuditLog(engine).recent(limit=1000) if e.id not in trail_before]
    finally:
        engine.dispose()
    alices = runtime_id(live_app, ID, "alice")
    assert [e for e in new_rows if e.session_id == alices or e.details.get("public_id") == ID] == []

    def written(asked: str) -> list[tuple[str, str | None, dict[str, object], str]]:
        return [
            (e.action, e.session_id, dict(e.details), e.username) for e in new_rows if e.asked_id == asked
        ]

    # Once a minute per asker and id, however many routes asked (docs/architecture.md#ownership).
    assert written(ID) == written(nobodys) == [("unknown_id", None, {}, "bob")]
    assert contents(alice, ID) == ["fact one: apple", "Noted apple."]
    assert bob.get("/api/sessions").json()["items"] == []


def test_no_response_shows_a_runtime_id(live_app, two_mergers) -> None:
    alice, _ = two_mergers
    hidden = runtime_id(live_app, ID, "alice")
    event_id = alice.get(f"/api/sessions/{ID}/messages").json()["messages"][0]["event_id"]
    fork = alice.post(f"/api/sessions/{ID}/fork", json={"event_id": event_id})
    assert fork.status_code == 201 and fork.json()["parent_id"] == ID
    edited = alice.post(f"/api/sessions/{ID}/messages/{event_id}/edit", json={"content": "fact one: fig"})
    assert events(edited)[-1][0] == "done"
    question = alice.get(f"/api/sessions/{ID}/messages").json()["messages"][0]["event_id"]
    switched = alice.put(f"/api/sessions/{ID}/messages/{question}/version", json={"number": 1})
    assert switched.status_code == 200
    shown = [
        alice.get("/api/sessions").text,
        alice.get(f"/api/sessions/{ID}").text,
        alice.get(f"/api/sessions/{ID}/messages").text,
        alice.get("/api/search", params={"q": "apple"}).text,
        alice.get(f"/api/sessions/{ID}/export", params={"format": "markdown"}).text,
        json.dumps(dict(edited.headers)),
        fork.text,
        switched.text,
    ]
    assert all(hidden not in text for text in shown)
    # The edit is a version of the same chat, named by the id its owner opens it by.
    assert contents(alice, ID) == ["fact one: apple", "Noted apple."]
    assert alice.get(f"/api/sessions/{ID}/messages").json()["messages"][0]["version"] == {
        "number": 1,
        "count": 2,
    }

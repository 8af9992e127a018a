"""The live feeds over HTTP (docs/architecture.md#live-sessions), on SQLite and on PostgreSQL: every
device sees a conversation as it happens, a reconnect resumes where it stopped, a device that is
behind cannot send over messages it has not seen, and the sessions list follows along."""

import contextlib
import threading
from collections.abc import Iterator

import httpx
import pytest
from chat_helpers import runtime_id
from live_feed import Feed
from sqlalchemy import select

from agent_orchestrator.sessions.crypto import MasterKeys, SessionCipher, SessionKeys
from agent_orchestrator.sessions.crypto.cipher import ERASED, SEALED_TEXT
from agent_orchestrator.sessions.files.postgres import PostgresSessionFiles
from agent_orchestrator.sessions.store import make_engine
from agent_orchestrator.sessions.store.schema import live_events
from agent_orchestrator.testing.eventually import eventually
from agent_orchestrator.testing.scripted_model import Text


def _send(client: httpx.Client, session_id: str, content: str, seen: int | None = None) -> httpx.Response:
    body: dict[str, object] = {"content": content}
    if seen is not None:
        body["last_event_id"] = seen
    return client.post(f"/api/sessions/{session_id}/messages", json=body)


def _messages(client: httpx.Client, session_id: str) -> dict:
    response = client.get(f"/api/sessions/{session_id}/messages")
    assert response.status_code == 200
    return response.json()


@contextlib.contextmanager
def _two_devices_on_a_new_chat(
    live_app, title: str
) -> Iterator[tuple[httpx.Client, httpx.Client, str, int, Feed]]:
    """Alice's phone and laptop, a new chat, and the laptop's feed of it from its first event on."""
    phone, laptop = live_app.client("alice"), live_app.client("alice")
    session_id = phone.post("/api/sessions", json={"title": title}).json()["id"]
    start = _messages(laptop, session_id)["last_event_id"]
    feed = Feed(laptop, f"/api/sessions/{session_id}/events?after={start}")
    try:
        yield phone, laptop, session_id, start, feed
    finally:
        feed.close()


def _reconnect(client: httpx.Client, session_id: str, last_event_id: int, *, until: str) -> list:
    """What a reconnect with ``Last-Event-ID`` gets, up to the first ``until`` event."""
    again = Feed(client, f"/api/sessions/{session_id}/events", last_event_id=last_event_id)
    try:
        return again.take_until(until)
    finally:
        again.close()


def test_a_second_device_follows_a_turn_and_resumes_after_a_reconnect(live_app):
    with _two_devices_on_a_new_chat(live_app, "Live") as (phone, laptop, session_id, start, feed):
        live_app.model.script(Text("Revenue is up 12 % this quarter.", pace=0.05))
        assert "event: done" in _send(phone, session_id, "How is revenue?", seen=start).text
        turn = feed.take_until("idle")
    kinds = [e.kind for e in turn]
    assert kinds[0] == "user" and turn[0].data == {"content": "How is revenue?"}
    assert kinds[-2:] == ["done", "idle"] and "delta" in kinds
    assert "".join(e.data["text"] for e in turn if e.kind == "delta") == "Revenue is up 12 % this quarter."
    assert turn[-2].data["content"] == "Revenue is up 12 % this quarter."
    assert "<p>Revenue is up 12 % this quarter.</p>" in turn[-2].data["html"]
    ids = [e.id for e in turn]
    assert ids == sorted(ids) and len(set(ids)) == len(ids) and ids[0] == start + 1

    # A reconnect with Last-Event-ID gets what came after it, nothing before: the deltas only if
    # they are still at hand (the log drops a finished turn's deltas; its "done" has the answer).
    replay = _reconnect(laptop, session_id, turn[0].id, until="idle")
    assert [e for e in replay if e.kind != "delta"] == turn[-2:]
    assert [e for e in turn[1:] if e in replay] == replay


def test_the_feed_is_the_owners_only(live_app):
    alice, bob = live_app.client("alice"), live_app.client("bob")
    session_id = alice.post("/api/sessions", json={}).json()["id"]
    for path in (f"/api/sessions/{session_id}/events", "/api/sessions/no-such-chat/events"):
        response = bob.get(path)
        assert (response.status_code, response.json()) == (404, {"detail": "No such session."})
    assert live_app.client().get(f"/api/sessions/{session_id}/events").status_code == 401


@pytest.mark.parametrize(
    "position", [b"x", b"\xb2", b"\xb9\xb3", "١٢".encode(), b"-1", b"%d" % 2**63, b"9" * 5000]
)
def test_a_feed_position_that_is_no_event_number_is_one_400(live_app, position):
    """Digits that are not ASCII (headers are read as Latin-1: ``\xb2`` is ``²``) and numbers past the
    log's 64-bit event numbers included."""
    alice = live_app.client("alice")
    session_id = alice.post("/api/sessions", json={}).json()["id"]
    for path in (f"/api/sessions/{session_id}/events", "/api/events"):
        bad = alice.get(path, headers={"Last-Event-ID": position})
        assert (bad.status_code, bad.json()) == (400, {"detail": "Last-Event-ID must be an event number."})


def test_event_numbers_past_64_bits_are_refused_as_invalid(live_app):
    alice = live_app.client("alice")
    session_id = alice.post("/api/sessions", json={}).json()["id"]
    for path in (f"/api/sessions/{session_id}/events", "/api/events"):
        bad = alice.get(path, params={"after": 2**63})
        assert bad.status_code == 422 and bad.json()["detail"][0]["loc"] == ["query", "after"]
    bad = _send(alice, session_id, "hello", seen=2**63)
    assert bad.status_code == 422 and bad.json()["detail"][0]["loc"] == ["body", "last_event_id"]


def test_a_stale_sender_is_refused_with_what_it_missed_then_sends_once_caught_up(live_app):
    phone, laptop = live_app.client("alice"), live_app.client("alice")
    session_id = phone.post("/api/sessions", json={}).json()["id"]
    seen_by_laptop = _messages(laptop, session_id)["last_event_id"]
    live_app.model.script(Text("**Germany** leads."))
    assert "event: done" in _send(phone, session_id, "Which country leads?", seen=seen_by_laptop).text

    stale = _send(laptop, session_id, "And France?", seen=seen_by_laptop)
    assert stale.status_code == 409
    body = stale.json()
    assert body["missed"] == [
        {"role": "user", "content": "Which country leads?"},
        {
            "role": "assistant",
            "content": "**Germany** leads.",
            "html": "<p><strong>Germany</strong> leads.</p>\n",
        },
    ]
    caught_up = _messages(laptop, session_id)
    assert caught_up["last_event_id"] >= body["last_event_id"]  # the turn's "idle" may follow
    assert [m["content"] for m in caught_up["messages"]] == ["Which country leads?", "**Germany** leads."]
    assert "event: done" in _send(laptop, session_id, "And France?", seen=body["last_event_id"]).text
    # Nothing was overwritten or lost: both devices' turns are there, in order.
    assert [m["content"] for m in _messages(phone, session_id)["messages"]] == [
        "Which country leads?",
        "**Germany** leads.",
        "And France?",
        "OK",
    ]


def test_a_device_opening_the_chat_mid_turn_joins_it_where_it_is(live_app):
    phone, laptop = live_app.client("alice"), live_app.client("alice")
    session_id = phone.post("/api/sessions", json={}).json()["id"]
    answer = "One two three four five six seven eight."
    live_app.model.script(Text(answer, pace=0.6))
    sending = threading.Thread(target=_send, args=(phone, session_id, "Count to eight"))
    sending.start()
    try:
        live_app.model.wait_for_requests(1, timeout=30)

        def joined_mid_answer() -> dict | None:
            """The transcript once the turn has streamed some text (the model paces its answer)."""
            joined = _messages(laptop, session_id)
            return joined if joined["live_turn"] is not None and joined["live_turn"]["text"] else None

        joined = eventually(joined_mid_answer, timeout=30, interval=0.01)
        assert joined["busy"] is True
        assert [(m["role"], m["content"]) for m in joined["messages"]] == [("user", "Count to eight")]
        assert joined["live_turn"]["prompt"] == "Count to eight"
        so_far = joined["live_turn"]["text"]
        assert answer.startswith(so_far) and so_far != answer
        feed = Feed(laptop, f"/api/sessions/{session_id}/events?after={joined['last_event_id']}")
        try:
            rest = feed.take_until("idle")
        finally:
            feed.close()
    finally:
        sending.join()
    # What was said before joining plus the deltas after it is the answer, once, with no gap or repeat.
    assert so_far + "".join(e.data["text"] for e in rest if e.kind == "delta") == answer
    assert [e.kind for e in rest][-2:] == ["done", "idle"] and "user" not in [e.kind for e in rest]


def test_the_sessions_list_follows_creates_renames_and_deletes(live_app):
    phone, laptop = live_app.client("alice"), live_app.client("alice")
    bob = live_app.client("bob")
    feed = Feed(laptop, "/api/events")
    try:
        bob.post("/api/sessions", json={})  # another user's list is not alice's
        session_id = phone.post("/api/sessions", json={"title": "Plans"}).json()["id"]
        assert [(e.kind, e.data) for e in feed.take_until("created")] == [("created", {"id": session_id})]
        phone.patch(f"/api/sessions/{session_id}", json={"title": "Plans 2027"})
        assert [e.kind for e in feed.take_until("renamed")] == ["renamed"]
        _send(phone, session_id, "Hi")
        assert [e.kind for e in feed.take_until("idle")] == ["busy", "idle"]
        phone.delete(f"/api/sessions/{session_id}")
        deleted = feed.take_until("deleted")
    finally:
        feed.close()
    assert [(e.kind, e.data) for e in deleted] == [("deleted", {"id": session_id})]


def test_a_deleted_session_ends_its_feed_and_a_renamed_one_says_so(live_app):
    phone, laptop = live_app.client("alice"), live_app.client("alice")
    session_id = phone.post("/api/sessions", json={}).json()["id"]
    feed = Feed(laptop, f"/api/sessions/{session_id}/events")
    try:
        phone.patch(f"/api/sessions/{session_id}", json={"title": "Q3 review"})
        assert [(e.kind, e.data) for e in feed.take_until("renamed")] == [("renamed", {"title": "Q3 review"})]
        phone.delete(f"/api/sessions/{session_id}")
        assert [e.kind for e in feed.take_until("deleted")] == ["deleted"]
    finally:
        feed.close()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def sealed_live_app(request: pytest.FixtureRequest):
    """The app with a master key (its key store in the catalog's database, the default), on both backends."""
    master_key = MasterKeys.generate()
    start_app = request.getfixturevalue("start_app")
    if request.param == "postgres":
        schema = request.getfixturevalue("postgres_schema")
        files = PostgresSessionFiles.from_url(schema.url)
        return start_app(schema.sqlalchemy_url, files, master_key=master_key), master_key
    return start_app(master_key=master_key), master_key


def test_with_a_master_key_the_feed_is_stored_sealed_and_delivered_in_clear(sealed_live_app):
    """docs/architecture.md#encryption-at-rest: the live_events rows hold none of the chat's words, a
    follower (and a reconnect) gets them in clear, and a copy of the rows taken before the delete stays
    unreadable once the session's key is gone."""
    live_app, master_key = sealed_live_app
    with _two_devices_on_a_new_chat(live_app, "Quokka plans") as (phone, laptop, session_id, start, feed):
        live_app.model.script(Text("Zanzibar joins Wombat in the plan.", pace=0.05))
        assert "event: done" in _send(phone, session_id, "Is Pelican-7 ready?", seen=start).text
        turn = feed.take_until("idle")
        phone.patch(f"/api/sessions/{session_id}", json={"title": "Koala route"})
        assert feed.take_until("renamed")[-1].data == {"title": "Koala route"}
    assert turn[0].data == {"content": "Is Pelican-7 ready?"}
    assert turn[-2].data["content"] == "Zanzibar joins Wombat in the plan."
    assert "".join(e.data["text"] for e in turn if e.kind == "delta") == "Zanzibar joins Wombat in the plan."
    replay = _reconnect(laptop, session_id, turn[0].id, until="renamed")
    assert [e for e in replay if e.kind != "delta"][:2] == turn[-2:]

    stored = runtime_id(live_app, session_id)  # the feed's stream and the key are the runtime id's
    engine = make_engine(live_app.web.database_url)
    try:
        with engine.connect() as conn:
            copied = [
                row.data
                for row in conn.execute(
                    select(live_events.c.data).where(live_events.c.stream == f"s:{stored}")
                )
            ]
        sealed = [body for body in copied if body.startswith(SEALED_TEXT)]
        assert len(sealed) >= 4  # created, user, done, renamed (and any delta still kept)
        for word in ("quokka", "koala", "pelican", "zanzibar", "wombat"):
            assert not any(word in body.lower() for body in copied), word

        assert phone.delete(f"/api/sessions/{session_id}").status_code == 204
        keys = SessionKeys(engine, MasterKeys.from_text(master_key))
        assert keys.existing_key(stored) is None
        assert {SessionCipher(keys).open_text(stored, body) for body in sealed} == {ERASED}
    finally:
        engine.dispose()

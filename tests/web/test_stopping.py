"""Stopping an answer (docs/architecture.md#stopping-an-answer): the runtime's abort, asked for by
any of the owner's devices; the words said so far are kept as the answer, marked stopped, for the
transcript, the other devices and the model in later turns. On SQLite and on PostgreSQL."""

import threading

import httpx
from chat_helpers import events, send
from live_feed import Feed

from agent_orchestrator.sessions.store import AuditLog, make_engine
from agent_orchestrator.testing.eventually import eventually
from agent_orchestrator.testing.scripted_model import Text, message_text

LONG = Text(" ".join(f"word{i}" for i in range(60)), pace=0.25)


def _messages(client: httpx.Client, session_id: str) -> dict:
    return client.get(f"/api/sessions/{session_id}/messages").json()


def test_a_stopped_answer_keeps_its_words_everywhere_and_the_chat_goes_on(live_app) -> None:
    phone, laptop = live_app.client("alice"), live_app.client("alice")
    session_id = phone.post("/api/sessions", json={"title": "Stop me"}).json()["id"]
    start = _messages(laptop, session_id)["last_event_id"]
    feed = Feed(laptop, f"/api/sessions/{session_id}/events?after={start}")
    try:
        live_app.model.script(LONG)
        answered: dict[str, httpx.Response] = {}
        turn = threading.Thread(
            target=lambda: answered.setdefault("r", send(phone, session_id, "Tell me a lot"))
        )
        turn.start()
        assert eventually(
            lambda: "word3" in (_messages(laptop, session_id).get("live_turn") or {}).get("text", "")
        )
        stopped = laptop.post(f"/api/sessions/{session_id}/stop")  # the other device stops it
        assert stopped.status_code == 202, stopped.text
        turn.join(30)
        said = events(answered["r"])
        kind, done = said[-1]
        assert kind == "done" and done["stopped"] is True
        assert done["content"].startswith("word0 word1 word2 word3") and "word59" not in done["content"]
        followed = feed.take_until("idle")
    finally:
        feed.close()
    kinds = [e.kind for e in followed]
    assert "stop" in kinds and kinds[-2:] == ["done", "idle"] and followed[-2].data["stopped"] is True

    transcript = _messages(laptop, session_id)  # after a reload, on either device
    assert not transcript["busy"]
    last = transcript["messages"][-1]
    assert (last["role"], last["content"], last["stopped"]) == ("assistant", done["content"], True)

    live_app.model.script(Text("Fine."))
    assert events(send(phone, session_id, "Go on"))[-1][0] == "done"
    sent = live_app.model.requests[-1]["messages"]
    assert [message_text(m) for m in sent if m["role"] == "assistant"] == [done["content"]]
    assert _messages(laptop, session_id)["messages"][-1]["stopped"] is False

    audit = AuditLog(make_engine(live_app.web.database_url))
    assert [e.username for e in audit.recent() if e.action == "stop"] == ["alice"]


def test_an_answer_stopped_before_its_first_word_stays_as_a_stopped_turn(live_app) -> None:
    """Nothing said yet: the turn is still kept, as an empty answer marked stopped, on every device
    and after a reload, so the chat shows "Stopped" with a way to run it again; the model's later
    turns see the question without an invented answer."""
    alice = live_app.client("alice")
    session_id = alice.post("/api/sessions", json={"title": "Quick stop"}).json()["id"]
    live_app.model.script(Text("Too late", delay=60))
    answered: dict[str, httpx.Response] = {}
    turn = threading.Thread(target=lambda: answered.setdefault("r", send(alice, session_id, "Think hard")))
    turn.start()
    asked = len(live_app.model.requests)
    assert eventually(lambda: len(live_app.model.requests) > asked)  # the model is thinking
    assert alice.post(f"/api/sessions/{session_id}/stop").status_code == 202
    turn.join(30)
    kind, done = events(answered["r"])[-1]
    assert (kind, done["stopped"], done["content"]) == ("done", True, "")

    transcript = _messages(live_app.client("alice"), session_id)  # another device, after a reload
    assert [(m["role"], m["content"], m["stopped"]) for m in transcript["messages"]] == [
        ("user", "Think hard", False),
        ("assistant", "", True),
    ]
    assert not transcript["messages"][0]["interrupted"] and not transcript["busy"]

    live_app.model.script(Text("Fine."))
    assert events(send(alice, session_id, "Think hard"))[-1][0] == "done"  # Retry: the same question
    sent = live_app.model.requests[-1]["messages"]
    asked_twice = [message_text(m) for m in sent if m["role"] == "user"][-2:]
    assert len(asked_twice) == 2 and all(text.endswith("Think hard") for text in asked_twice)
    assert not any(m["role"] == "assistant" and not message_text(m) and not m.get("tool_calls") for m in sent)
    after = _messages(alice, session_id)["messages"]
    assert [(m["role"], m["stopped"]) for m in after] == [
        ("user", False),
        ("assistant", True),
        ("user", False),
        ("assistant", False),
    ]


def test_only_a_running_answer_of_ones_own_chat_can_be_stopped(live_app) -> None:
    alice, bob = live_app.client("alice"), live_app.client("bob")
    session_id = alice.post("/api/sessions", json={"title": "Quiet"}).json()["id"]
    idle = alice.post(f"/api/sessions/{session_id}/stop")
    assert (idle.status_code, idle.json()) == (409, {"detail": "This chat is not answering anything."})
    assert bob.post(f"/api/sessions/{session_id}/stop").status_code == 404  # another's: as unknown
    assert alice.post("/api/sessions/no-such-chat/stop").status_code == 404
    assert httpx.post(f"{live_app.url}/api/sessions/{session_id}/stop").status_code in (401, 403)

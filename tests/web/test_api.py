"""The HTTP API end to end: real uvicorn, the real Copilot CLI, the scripted model behind it."""

import threading

import httpx
from chat_helpers import events, runtime_id, send
from sqlalchemy.exc import OperationalError

from agent_orchestrator.runtime import RuntimeSettings
from agent_orchestrator.sessions import service as service_module
from agent_orchestrator.sessions.store import AuditLog, SessionCatalog, make_engine
from agent_orchestrator.testing.scripted_model import Text, user_messages


def test_login_sets_a_protected_cookie_and_wrong_passwords_are_refused(live_app):
    anonymous = live_app.client()
    assert anonymous.get("/api/sessions").status_code == 401
    bad = anonymous.post("/api/auth/login", json={"username": "alice", "password": "nope-nope"})
    assert bad.status_code == 401 and bad.json() == {"detail": "Wrong username or password."}
    good = anonymous.post("/api/auth/login", json={"username": "alice", "password": "correct horse battery"})
    cookie = good.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=lax" in cookie
    assert anonymous.get("/api/auth/me").json()["user"]["username"] == "alice"


def test_state_changing_requests_need_the_csrf_token(live_app):
    alice = live_app.client("alice")
    token = alice.headers.pop("X-CSRF-Token")
    assert alice.post("/api/sessions", json={}).status_code == 403
    assert alice.post("/api/sessions", json={}, headers={"X-CSRF-Token": token}).status_code == 201


def test_create_list_rename_delete(live_app):
    alice = live_app.client("alice")
    first = alice.post("/api/sessions", json={"title": "Q4 churn", "case_key": "case-7"}).json()
    second = alice.post("/api/sessions", json={"title": "Segments"}).json()
    assert first["id"].startswith("chat-") and first["status"] == "idle"
    listed = alice.get("/api/sessions").json()["items"]
    assert [s["id"] for s in listed] == [second["id"], first["id"]]
    assert [s["id"] for s in alice.get("/api/sessions", params={"case": "case-7"}).json()["items"]] == [
        first["id"]
    ]
    assert alice.get("/api/sessions", params={"q": "churn"}).json()["items"][0]["id"] == first["id"]
    renamed = alice.patch(f"/api/sessions/{first['id']}", json={"title": "Q4 churn review"})
    assert renamed.json()["title"] == "Q4 churn review"
    assert alice.delete(f"/api/sessions/{first['id']}").status_code == 204
    assert alice.get(f"/api/sessions/{first['id']}").status_code == 404
    assert alice.post("/api/sessions", json={"id": second["id"]}).status_code == 409


def test_chat_streams_and_the_conversation_continues_on_another_device(live_app):
    laptop = live_app.client("alice")
    session_id = laptop.post("/api/sessions", json={"title": "Favourites"}).json()["id"]
    streamed = send(laptop, session_id, "Remember this: my favourite retail segment is 'At Risk'. Reply OK.")
    assert streamed.headers["content-type"].startswith("text/event-stream")
    frames = events(streamed)
    assert frames[-1] == ("done", {"content": "OK", "html": "<p>OK</p>\n", "charts": [], "readings": []})
    assert "".join(e[1]["text"] for e in frames if e[0] == "delta") == "OK"

    phone = live_app.client("alice")  # a second device: its own login, same account
    transcript = phone.get(f"/api/sessions/{session_id}/messages").json()
    assert [(m["role"], m["content"]) for m in transcript["messages"]][1] == ("assistant", "OK")
    answer = events(send(phone, session_id, "Which retail segment did I say was my favourite?"))[-1]
    assert answer == (
        "done",
        {
            "content": "Your favourite retail segment is 'At Risk'.",
            "html": "<p>Your favourite retail segment is 'At Risk'.</p>\n",
            "charts": [],
            "readings": [],
        },
    )
    assert len(user_messages(live_app.model.requests[-1])) == 2
    session = phone.get(f"/api/sessions/{session_id}").json()
    assert session["turn_count"] == 2 and session["status"] == "idle"
    assert session["preview"].startswith("Your favourite")


def test_another_users_id_is_exactly_like_an_unknown_id_and_audited_alike(live_app):
    alice, bob = live_app.client("alice"), live_app.client("bob")
    session_id = alice.post("/api/sessions", json={"title": "Private"}).json()["id"]
    unknown = bob.get("/api/sessions/chat-00000000000000000")
    for attempt in (
        bob.get(f"/api/sessions/{session_id}"),
        bob.get(f"/api/sessions/{session_id}/messages"),
        bob.patch(f"/api/sessions/{session_id}", json={"title": "mine"}),
        bob.delete(f"/api/sessions/{session_id}"),
        send(bob, session_id, "hello"),
    ):
        assert (
            (attempt.status_code, attempt.json())
            == (unknown.status_code, unknown.json())
            == (404, {"detail": "No such session."})
        )
    assert bob.get("/api/sessions").json()["items"] == []
    engine = make_engine(live_app.web.database_url)
    bobs = [e for e in AuditLog(engine).recent(limit=1000) if e.username == "bob" and e.action != "login"]
    engine.dispose()
    # an unknown id to bob, whoever has it: one row the same for both ids (at most one a minute),
    # naming the id as asked and no session
    assert {e.asked_id for e in bobs} == {"chat-00000000000000000", session_id} and len(bobs) == 2
    assert {(e.action, e.session_id, tuple(sorted(e.details.items()))) for e in bobs} == {
        ("unknown_id", None, tuple(sorted(bobs[0].details.items())))
    }


def test_a_second_sender_is_told_busy_and_the_log_stays_linear(live_app):
    alice = live_app.client("alice")
    session_id = alice.post("/api/sessions", json={}).json()["id"]
    live_app.model.script(Text("first answer", delay=3))
    results: dict[str, httpx.Response] = {}
    first = threading.Thread(target=lambda: results.setdefault("a", send(alice, session_id, "one")))
    first.start()
    live_app.model.wait_for_requests(1, timeout=30)
    other_tab = live_app.client("alice")
    busy = send(other_tab, session_id, "two")
    first.join()
    assert busy.status_code == 409 and "answering another message" in busy.json()["detail"]
    assert events(results["a"])[-1][0] == "done"
    messages = alice.get(f"/api/sessions/{session_id}/messages").json()["messages"]
    assert [(m["role"], m["content"]) for m in messages] == [("user", "one"), ("assistant", "first answer")]
    assert events(send(other_tab, session_id, "two"))[-1][0] == "done"  # free again afterwards


def test_model_output_cannot_inject_script(live_app):
    alice = live_app.client("alice")
    session_id = alice.post("/api/sessions", json={}).json()["id"]
    payload = '<script>alert("x")</script> <img src=x onerror=alert(1)> [link](javascript:alert(1))'
    live_app.model.script(Text(payload))
    _, done = events(send(alice, session_id, "hi"))[-1]
    assert "<script" not in done["html"] and "<img" not in done["html"]
    assert "href=" not in done["html"]  # the javascript: link is left as text, never a link
    assert "&lt;script&gt;" in done["html"]
    page = alice.get("/")
    assert "script-src 'self'" in page.headers["content-security-policy"]


def test_bad_input_gets_one_clear_error(live_app):
    alice = live_app.client("alice")
    session_id = alice.post("/api/sessions", json={}).json()["id"]
    huge = send(alice, session_id, "x" * 9000)
    assert huge.status_code == 413 and "limited to 8,000 characters" in huge.json()["detail"]
    assert send(alice, session_id, "   ").status_code == 422
    assert alice.post(f"/api/sessions/{session_id}/messages", json={"message": "hi"}).status_code == 422
    secret = alice.get("/api/sessions/ghp_16C7e42F292c6912E7710c838347Ae178B4a")
    assert secret.status_code == 422 and "ghp_" not in secret.text
    assert alice.post("/api/sessions", json={"id": "ann@example.com"}).status_code == 422
    assert alice.get("/api/sessions", params={"cursor": "not-a-cursor"}).status_code == 422
    assert alice.patch(f"/api/sessions/{session_id}", json={"title": "bad\x00title"}).status_code == 422
    assert (
        alice.post(
            "/api/sessions", content=b"x" * 300_000, headers={"content-type": "application/json"}
        ).status_code
        == 413
    )


def test_text_with_a_nul_character_is_refused_alike_on_every_store(live_app):
    """PostgreSQL cannot store U+0000 in text, SQLite can: the API refuses it either way (422)."""
    alice = live_app.client("alice")
    session_id = alice.post("/api/sessions", json={}).json()["id"]
    assert events(send(alice, session_id, "hello"))[-1][0] == "done"
    event_id = alice.get(f"/api/sessions/{session_id}/messages").json()["messages"][0]["event_id"]
    chatgpt = [
        {
            "title": "t",
            "mapping": {
                "a": {
                    "message": {
                        "author": {"role": "user"},
                        "content": {"content_type": "text", "parts": ["a\x00b"]},
                    },
                    "parent": None,
                    "children": [],
                }
            },
        }
    ]
    for response in (
        alice.post("/api/auth/login", json={"username": "ali\x00ce", "password": "wrong password"}),
        alice.get("/api/sessions", params={"q": "a\x00b"}),
        alice.get("/api/sessions", params={"case": "a\x00b"}),
        alice.get("/api/search", params={"q": "a\x00b"}),
        send(alice, session_id, "hello\x00there"),
        alice.post(f"/api/sessions/{session_id}/messages/{event_id}/edit", json={"content": "a\x00b"}),
        alice.post(f"/api/sessions/{session_id}/fork", json={"event_id": "a\x00b"}),
        alice.post("/api/sessions/import", json=chatgpt),
    ):
        assert response.status_code == 422, (response.request.url, response.text)
        assert "NUL" in str(response.json()["detail"]), response.text


def test_a_first_message_with_control_characters_is_answered_and_names_the_chat(live_app):
    alice = live_app.client("alice")
    session_id = alice.post("/api/sessions", json={}).json()["id"]
    first = send(alice, session_id, "\x1b[31mhello\x1b[0m\tthere")
    assert first.status_code == 200 and events(first)[-1][0] == "done"
    assert alice.get(f"/api/sessions/{session_id}").json()["title"] == "[31mhello [0m there"
    again = send(alice, session_id, "again")
    assert again.status_code == 200 and events(again)[-1][0] == "done"  # not locked: no 409


def test_a_step_failing_after_the_lease_is_taken_releases_it(live_app, monkeypatch):
    alice = live_app.client("alice")
    session_id = alice.post("/api/sessions", json={}).json()["id"]

    def broken_title(*args: object, **kwargs: object) -> bool:
        raise OperationalError("UPDATE sessions", {}, Exception("database is locked"))

    with monkeypatch.context() as patch:  # the automatic title, the step between lease and turn
        patch.setattr(SessionCatalog, "auto_title", broken_title)
        failed = send(alice, session_id, "hello")
    assert (failed.status_code, failed.json()) == (500, {"detail": "Internal Server Error"})
    assert failed.headers["connection"] == "close"  # the server closes it: the retry needs another
    retry = send(alice, session_id, "hello")
    assert retry.status_code == 200 and events(retry)[-1][0] == "done"  # not 409 until the lease expires


def test_delete_leaves_nothing_of_the_session_in_the_runtime_state(live_app):
    alice = live_app.client("alice")
    session_id = alice.post("/api/sessions", json={}).json()["id"]
    assert events(send(alice, session_id, "hello"))[-1][0] == "done"
    state = RuntimeSettings(data_dir=live_app.web.data_dir).copilot_home
    stored = runtime_id(live_app, session_id)  # the runtime's files are named after the runtime id
    if not live_app.web.is_postgres:  # shared mode keeps the session's files in PostgreSQL
        assert any(stored in str(path) for path in state.rglob("*"))
    assert alice.delete(f"/api/sessions/{session_id}").status_code == 204
    assert [path for path in state.rglob("*") if stored in str(path.relative_to(state))] == []


def test_a_failed_create_is_audited_with_its_outcome(live_app, monkeypatch):
    alice = live_app.client("alice")
    session_id = alice.post("/api/sessions", json={"id": "case-42"}).json()["id"]
    taken = runtime_id(live_app, session_id)
    engine = make_engine(live_app.web.database_url)
    catalog = SessionCatalog(engine)
    owner = catalog.get(taken).owner_id
    catalog.delete(taken, owner)  # the runtime still stores the session: a create on its id will fail
    # A fresh runtime id never collides; this one is made to, so that the runtime step fails.
    monkeypatch.setattr(service_module, "new_runtime_id", lambda: taken)
    again = alice.post("/api/sessions", json={"id": session_id})
    assert (again.status_code, again.json()) == (409, {"detail": "A session with this id already exists."})
    trail = AuditLog(engine).recent(session_id=taken)
    gone = catalog.get(taken) is None
    engine.dispose()
    assert [(e.action, e.username) for e in trail] == [
        ("create_failed", "alice"),
        ("create", "alice"),
        ("create", "alice"),
    ]
    assert trail[0].details == {"public_id": "case-42", "error": "SessionExistsError"} and gone

"""Personal API tokens on the real server (docs/architecture.md#api-tokens): each scope allowed and
refused where it should be, a malformed, unknown, expired and revoked token refused alike, no CSRF
token for a bearer call, a token's use shown in the chat's activity and its list, its own rate, and
what a token can never do (make tokens, approve a device, log a browser out)."""

from datetime import timedelta

import httpx
from chat_helpers import events
from sqlalchemy import update

from agent_orchestrator.sessions.store import AuditLog, make_engine
from agent_orchestrator.sessions.store.api_tokens import new_token
from agent_orchestrator.sessions.store.schema import api_tokens, utcnow
from agent_orchestrator.testing.scripted_model import Text


def make_token(browser: httpx.Client, name: str, *scopes: str, days: int = 90) -> str:
    response = browser.post(
        "/api/tokens", json={"name": name, "scopes": list(scopes), "expires_in_days": days}
    )
    assert response.status_code == 201, response.text
    return response.json()["secret"]


def bearer(app, secret: str) -> httpx.Client:
    """A script's client: no cookie jar, no CSRF header, only the token."""
    return httpx.Client(base_url=app.url, timeout=60, headers={"Authorization": f"Bearer {secret}"})


def test_each_scope_is_allowed_what_it_names_and_refused_the_rest(live_app) -> None:
    live_app.model.script(Text("Hello from the model."))
    alice = live_app.client("alice")  # the first account: an admin
    chat_id = alice.post("/api/sessions", json={"title": "Started in the browser"}).json()["id"]
    reader = bearer(live_app, make_token(alice, "reader", "read"))
    writer = bearer(live_app, make_token(alice, "writer", "chat"))
    data = bearer(live_app, make_token(alice, "data job", "data"))

    assert [s["id"] for s in reader.get("/api/sessions").json()["items"]] == [chat_id]
    assert reader.get(f"/api/sessions/{chat_id}/messages").status_code == 200
    assert reader.get(f"/api/sessions/{chat_id}/export").status_code == 200
    assert reader.get("/api/search", params={"q": "browser"}).status_code == 200
    refused = reader.post("/api/sessions", json={"title": "no"})
    assert refused.status_code == 403
    assert refused.json()["detail"] == "The token 'reader' has the scopes read; this needs chat."
    assert reader.delete(f"/api/sessions/{chat_id}").status_code == 403
    assert reader.get("/api/datasets/imports/current").status_code == 403

    # chat: create, send (no CSRF header needed), fork and delete.
    created = writer.post("/api/sessions", json={"title": "From a script"})
    assert created.status_code == 201
    new_id = created.json()["id"]
    said = events(writer.post(f"/api/sessions/{new_id}/messages", json={"content": "hi"}))
    assert said[-1] == ("done", said[-1][1]) and said[-1][1]["content"] == "Hello from the model."
    last = writer.get(f"/api/sessions/{new_id}/messages").json()["messages"][-1]["event_id"]
    fork = writer.post(f"/api/sessions/{new_id}/fork", json={"event_id": last})
    assert fork.status_code == 201, fork.text
    assert writer.delete(f"/api/sessions/{fork.json()['id']}").status_code == 204
    assert writer.get("/api/datasets/imports/current").status_code == 403

    # data: the admin's data routes, and nothing of the chats.
    assert data.get("/api/datasets/imports/current").status_code == 200
    assert data.get("/api/sessions").status_code == 403

    # An analyst's token cannot have the data scope.
    bob = live_app.client("bob")
    refused = bob.post("/api/tokens", json={"name": "mine", "scopes": ["data"]})
    assert refused.status_code == 422
    assert "admin" in refused.json()["detail"]


def test_a_malformed_unknown_expired_or_revoked_token_is_refused_alike(live_app) -> None:
    alice = live_app.client("alice")
    expired = make_token(alice, "expired", "read")
    revoked = make_token(alice, "revoked", "read")
    live = make_token(alice, "live", "read")
    engine = make_engine(live_app.web.database_url)
    with engine.begin() as conn:
        conn.execute(
            update(api_tokens)
            .where(api_tokens.c.name == "expired")
            .values(expires_at=utcnow() - timedelta(1))
        )
    engine.dispose()
    token_id = next(t["id"] for t in alice.get("/api/tokens").json() if t["name"] == "revoked")
    assert alice.delete(f"/api/tokens/{token_id}").status_code == 204
    assert alice.delete(f"/api/tokens/{token_id}").status_code == 404

    mistyped = live[:-1] + ("a" if live[-1] != "a" else "b")
    answers = [
        bearer(live_app, secret).get("/api/sessions")
        for secret in (expired, revoked, mistyped, new_token(), "ghp_notours", live[:20])
    ]
    assert {(r.status_code, r.json()["detail"]) for r in answers} == {
        (401, "Invalid, expired or revoked API token.")
    }
    assert all(r.headers["www-authenticate"].startswith("Bearer") for r in answers)
    assert bearer(live_app, live).get("/api/sessions").status_code == 200
    # Not a bearer scheme at all: the same answer.
    basic = httpx.get(f"{live_app.url}/api/sessions", headers={"Authorization": "Basic YWxpY2U6eA=="})
    assert (basic.status_code, basic.json()["detail"]) == (401, "Invalid, expired or revoked API token.")


def test_a_token_cannot_make_tokens_approve_devices_or_log_out(live_app) -> None:
    alice = live_app.client("alice")
    script = bearer(live_app, make_token(alice, "everything", "chat", "data"))
    for method, path, body in [
        ("POST", "/api/tokens", {"name": "child", "scopes": ["chat"]}),
        ("GET", "/api/tokens", None),
        ("POST", "/api/auth/device/approve", {"user_code": "BCDF-GHJK"}),
        ("POST", "/api/auth/logout", None),
    ]:
        response = script.request(method, path, json=body)
        assert response.status_code == 403, (path, response.text)
        assert response.json()["detail"] == "An API token cannot do this; sign in in a browser."
    assert [t["name"] for t in alice.get("/api/tokens").json()] == ["everything"]


def test_a_tokens_use_is_in_the_chats_activity_its_list_and_the_audit_log(live_app) -> None:
    live_app.model.script(Text("Noted."))
    alice = live_app.client("alice")
    script = bearer(live_app, make_token(alice, "nightly-report", "chat"))
    chat_id = script.post("/api/sessions", json={"title": "Nightly"}).json()["id"]
    assert events(script.post(f"/api/sessions/{chat_id}/messages", json={"content": "hi"}))[-1][0] == "done"

    steps = alice.get(f"/api/sessions/{chat_id}/activity").json()["steps"]
    assert {s["action"]: s["details"].get("token") for s in steps} == {
        "create": "nightly-report",
        "resume": "nightly-report",
    }
    (listed,) = alice.get("/api/tokens").json()
    assert listed["name"] == "nightly-report" and listed["scopes"] == ["read", "chat"]
    assert listed["last_used_addr"] == "127.0.0.1" and listed["last_used_at"] is not None
    assert listed["hint"].startswith("aopat_") and len(listed["hint"]) == 10
    assert "secret" not in listed

    engine = make_engine(live_app.web.database_url)
    uses = [e for e in AuditLog(engine).recent(limit=100) if e.action == "token_use"]
    engine.dispose()
    assert len(uses) == 1, "three calls in a minute are one audited use"
    assert uses[0].details["name"] == "nightly-report" and uses[0].details["calls"] == "1"


def test_each_token_has_its_own_rate(start_app) -> None:
    app = start_app(token_burst=5, token_per_second=0.1)  # a refill every 10 s: none within the test
    alice = app.client("alice")
    busy = bearer(app, make_token(alice, "busy", "read"))
    calm = bearer(app, make_token(alice, "calm", "read"))
    assert [busy.get("/api/auth/me").status_code for _ in range(6)] == [200] * 5 + [429]
    throttled = busy.get("/api/auth/me")
    assert throttled.status_code == 429 and int(throttled.headers["retry-after"]) >= 1
    assert "busy" in throttled.json()["detail"]
    assert calm.get("/api/auth/me").status_code == 200


def test_a_device_login_becomes_a_token_once_the_browser_approves_it(live_app) -> None:
    terminal = httpx.Client(base_url=live_app.url, timeout=60)
    started = terminal.post("/api/auth/device", json={"client_name": "ao on laptop"}).json()
    assert started["verification_uri"] == f"{live_app.url}/device"
    assert started["verification_uri_complete"].endswith(f"?code={started['user_code']}")
    poll = {"device_code": started["device_code"]}
    assert terminal.post("/api/auth/device/token", json=poll).status_code == 202

    alice = live_app.client("alice")
    typed = started["user_code"].replace("-", " ").lower()  # typed loosely
    assert alice.get(f"/api/auth/device/{typed}").json() == {"client_name": "ao on laptop"}
    approved = alice.post("/api/auth/device/approve", json={"user_code": typed, "scopes": ["read"]})
    assert approved.status_code == 200, approved.text
    assert alice.post("/api/auth/device/approve", json={"user_code": typed}).status_code == 404

    redeemed = terminal.post("/api/auth/device/token", json=poll)
    assert redeemed.status_code == 200
    token = redeemed.json()
    assert token["token"]["name"] == "ao on laptop" and token["token"]["scopes"] == ["read"]
    assert bearer(live_app, token["secret"]).get("/api/auth/me").json()["user"]["username"] == "alice"
    again = terminal.post("/api/auth/device/token", json=poll)
    assert again.status_code == 404, "a device code is good once"
    unknown = terminal.post("/api/auth/device/token", json={"device_code": "made-up"})
    assert unknown.status_code == 404
    assert [t["name"] for t in alice.get("/api/tokens").json()] == ["ao on laptop"]


def test_another_users_chat_id_answers_a_token_exactly_like_an_unknown_one(live_app) -> None:
    alice = live_app.client("alice")
    chat_id = alice.post("/api/sessions", json={"title": "Mine"}).json()["id"]
    bob = bearer(live_app, make_token(live_app.client("bob"), "bob's script", "chat"))
    theirs = bob.get(f"/api/sessions/{chat_id}/messages")
    unknown = bob.get("/api/sessions/chat-0000000000000000/messages")
    assert (
        (theirs.status_code, theirs.json())
        == (unknown.status_code, unknown.json())
        == (
            404,
            {"detail": "No such session."},
        )
    )
    sent = bob.post(f"/api/sessions/{chat_id}/messages", json={"content": "x"})
    assert (sent.status_code, sent.json()) == (404, {"detail": "No such session."})

"""What the audit trail keeps of refused requests, and the login cookie behind HTTPS: a failed login
names only a real account (people type passwords into the name field), another user's session asked
for again and again is an unknown id to the asker, audited as any is, within a bound, and a Secure cookie is a
``__Host-`` one with HSTS."""

import httpx

from agent_orchestrator.sessions.store import AuditLog, make_engine

PASSWORD = "correct horse battery"  # the conftest's users'


def _audit(app) -> list:
    engine = make_engine(app.web.database_url)
    try:
        return AuditLog(engine).recent(limit=1000)
    finally:
        engine.dispose()


def test_a_failed_login_names_the_account_only_if_there_is_one(start_app) -> None:
    app = start_app(login_max_failures=2)
    anonymous = app.client()
    for username in ("hunter2-my-Password", "hunter2-my-Password", "ALICE"):
        anonymous.post("/api/auth/login", json={"username": username, "password": "wrong password"})
    failed = [(e.action, e.username, e.user_id) for e in _audit(app) if e.action.startswith("login_")]
    alice = next(e.user_id for e in _audit(app) if e.action == "login_failed" and e.user_id is not None)
    assert failed == [
        ("login_failed", "alice", alice),
        ("login_locked", "(no such account)", None),
        ("login_failed", "(no such account)", None),
        ("login_failed", "(no such account)", None),
    ]
    assert all("hunter2" not in str(event) for event in _audit(app))


def test_unknown_ids_asked_for_again_and_again_leave_a_bounded_trail(start_app) -> None:
    """Ids are per owner (docs/architecture.md#ownership): Bob asking for Alice's id asks for one of his
    own, which he does not have. It is audited like any unknown id (``unknown_id``, the id as asked,
    no session named), once a minute per asker and id, and at most 30 ids a minute per asker, so a
    flood of 404s cannot grow the trail without bound."""
    app = start_app()
    alice, bob = app.client("alice"), app.client("bob")
    session_id = alice.post("/api/sessions", json={}).json()["id"]
    before = {e.id for e in _audit(app)}
    for _ in range(5):
        assert bob.get(f"/api/sessions/{session_id}").status_code == 404
    assert bob.get(f"/api/sessions/{session_id}/messages").status_code == 404
    for number in range(40):
        assert bob.get(f"/api/sessions/made-up-{number}").status_code == 404
    new = [e for e in _audit(app) if e.id not in before]
    assert {(e.action, e.username, e.session_id) for e in new} == {("unknown_id", "bob", None)}
    assert [e.asked_id for e in new].count(session_id) == 1
    assert len(new) == 30


def test_a_secure_login_cookie_is_a_host_cookie_and_comes_with_hsts(start_app) -> None:
    app = start_app(secure_cookies=True)
    with httpx.Client(base_url=app.url, timeout=60) as client:
        login = client.post("/api/auth/login", json={"username": "alice", "password": PASSWORD})
        assert login.status_code == 200
        cookie = login.headers["set-cookie"]
        assert cookie.startswith("__Host-ao_session=") and "Secure" in cookie and "Path=/" in cookie
        assert "Domain" not in cookie
        assert login.headers["strict-transport-security"] == "max-age=31536000"
        token = cookie.split(";")[0].split("=", 1)[1]
        # The client is on plain HTTP (the proxy's side), so it sends the Secure cookie only by hand.
        me = client.get("/api/auth/me", headers={"Cookie": f"__Host-ao_session={token}"})
        assert me.status_code == 200 and me.json()["user"]["username"] == "alice"
        assert client.get("/api/auth/me", headers={"Cookie": f"ao_session={token}"}).status_code == 401
        csrf = {"X-CSRF-Token": login.json()["csrf_token"], "Cookie": f"__Host-ao_session={token}"}
        out = client.post("/api/auth/logout", headers=csrf)
        assert out.status_code == 204 and out.headers["set-cookie"].startswith('__Host-ao_session="";')


def test_a_plain_http_login_cookie_keeps_its_name_and_there_is_no_hsts(start_app) -> None:
    client = start_app().client()
    login = client.post("/api/auth/login", json={"username": "alice", "password": PASSWORD})
    assert (
        login.headers["set-cookie"].startswith("ao_session=") and "Secure" not in login.headers["set-cookie"]
    )
    assert "strict-transport-security" not in login.headers

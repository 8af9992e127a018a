"""A session's activity for its owner (docs/architecture.md#session-activity): from the audit log,
newest first; the owner's steps with device, address and server, anybody else's without a name or
an address, refused attempts counted; another user's session is an unknown one."""

from chat_helpers import events, send

from agent_orchestrator.testing.scripted_model import Text

PHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)"


def test_the_owner_sees_what_happened_to_the_chat_and_nobody_elses_name(live_app) -> None:
    alice, bob, stranger = live_app.client("alice"), live_app.client("bob"), live_app.client()
    alice.headers["User-Agent"] = PHONE
    session_id = alice.post("/api/sessions", json={"title": "Traced"}).json()["id"]
    live_app.model.script(Text("Fine."))
    assert events(send(alice, session_id, "How are we doing?"))[-1][0] == "done"
    assert alice.get(f"/api/sessions/{session_id}/export?format=json").status_code == 200
    link = alice.post(f"/api/sessions/{session_id}/shares", json={"signed_in_only": True}).json()
    token = link["url"].removeprefix("/share/")
    assert stranger.get(f"/api/shared/{token}").status_code == 401  # refused: not signed in
    assert bob.get(f"/api/shared/{token}").status_code == 200
    assert alice.delete(f"/api/shares/{link['id']}").status_code == 204

    activity = alice.get(f"/api/sessions/{session_id}/activity").json()
    steps = [(s["action"], s["by"]) for s in activity["steps"]]
    assert steps == [
        ("share_revoke", "you"),
        ("share_view", "someone signed in"),
        ("share_refused", "someone without an account"),
        ("share", "you"),
        ("export", "you"),
        ("resume", "you"),
        ("create", "you"),
    ]
    assert activity["refused"] == 1
    answered = next(s for s in activity["steps"] if s["action"] == "resume")
    assert answered["details"]["device"] == PHONE and answered["details"]["server"]
    assert answered["address"] == "127.0.0.1"
    viewed = next(s for s in activity["steps"] if s["action"] == "share_view")
    assert viewed["address"] is None and "bob" not in str(viewed)

    assert bob.get(f"/api/sessions/{session_id}/activity").status_code == 404  # as unknown
    assert stranger.get(f"/api/sessions/{session_id}/activity").status_code == 401

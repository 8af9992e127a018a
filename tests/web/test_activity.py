"""A session's activity for its owner (docs/architecture.md#session-activity): from the audit log,
newest first; the owner's steps with device, address and server, anybody else's without a name or
an address, refused attempts counted; another user's session is an unknown one."""

import json

from chat_helpers import create_users, events, expire_share_links, send

from agent_orchestrator.testing.scripted_model import Text

PHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.0 Mobile/15E148 Safari/604.1"
)


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
    (refusals,) = activity["refusals"]
    assert (refusals["kind"], refusals["count"]) == ("sign_in", 1)
    assert refusals["times"] == [refusals["last_at"]]
    answered = next(s for s in activity["steps"] if s["action"] == "resume")
    assert answered["details"]["device"] == "Mobile Safari on iPhone" and answered["details"]["server"]
    assert answered["address"] == "127.0.0.1"
    viewed = next(s for s in activity["steps"] if s["action"] == "share_view")
    assert viewed["address"] is None and "bob" not in str(viewed)

    assert bob.get(f"/api/sessions/{session_id}/activity").status_code == 404  # as unknown
    assert stranger.get(f"/api/sessions/{session_id}/activity").status_code == 401


def test_refused_attempts_by_others_are_counted_with_their_times_and_no_name(live_app) -> None:
    """Other users asking for the chat's id (told, as for any unknown id, that there is none) and
    revoked or expired links of the chat opened are counted with their times (once a minute each),
    never who tried; the owner's own misses, asks before the chat existed and a token never issued
    are not."""
    create_users(live_app.web.database_url, "carol", "dave")
    alice, bob, carol, dave, stranger = (live_app.client(n) for n in ("alice", "bob", "carol", "dave", None))
    assert dave.get("/api/sessions/acme-plan").status_code == 404  # before Alice's chat exists
    assert alice.get("/api/sessions/acme-plan").status_code == 404  # her own miss
    assert alice.post("/api/sessions", json={"id": "acme-plan", "title": "Plan"}).status_code == 201
    for client in (bob, bob, carol):  # bob's second ask within the minute is the same attempt
        missing = client.get("/api/sessions/acme-plan/messages")
        assert (missing.status_code, missing.json()) == (404, {"detail": "No such session."})

    live_app.model.script(Text("Planned."))
    assert events(send(alice, "acme-plan", "Plan it"))[-1][0] == "done"
    revoked = alice.post("/api/sessions/acme-plan/shares", json={}).json()
    assert alice.delete(f"/api/shares/{revoked['id']}").status_code == 204
    for _ in range(3):  # a leaked dead link opened again and again: one refusal a minute
        assert stranger.get(revoked["url"].replace("/share/", "/api/shared/")).status_code == 404
    expired = alice.post("/api/sessions/acme-plan/shares", json={}).json()
    expire_share_links(live_app.web.database_url)
    assert bob.post(expired["url"].replace("/share/", "/api/shared/") + "/copy").status_code == 404
    assert stranger.get(f"/api/shared/{'x' * 43}").status_code == 404  # never issued: nobody's

    activity = alice.get("/api/sessions/acme-plan/activity").json()
    by_kind = {r["kind"]: r for r in activity["refusals"]}
    assert {kind: r["count"] for kind, r in by_kind.items()} == {"session_id": 2, "revoked": 1, "expired": 1}
    assert activity["refused"] == 4
    asked = by_kind["session_id"]
    assert asked["times"] == sorted(asked["times"], reverse=True) and asked["last_at"] == asked["times"][0]
    refused_steps = [
        (s["by"], s["details"].get("reason")) for s in activity["steps"] if s["action"] == "share_refused"
    ]
    assert refused_steps == [("someone signed in", "expired"), ("someone without an account", "revoked")]
    shown = json.dumps(activity["refusals"]) + json.dumps([s for s in activity["steps"] if s["by"] != "you"])
    assert not any(word in shown for word in ("bob", "carol", "dave", "127.0.0.1"))


def test_branches_rewinds_imports_and_copies_show_in_the_activity(live_app) -> None:
    """A branch shows on both chats (the parent names the branch, its owner's); a copy into another
    account shows on the shared chat without naming the account or its chat; rewinds and imports
    are steps too."""
    alice, bob = live_app.client("alice"), live_app.client("bob")
    session_id = alice.post("/api/sessions", json={"title": "Trunk"}).json()["id"]
    for answer in ("One.", "Two."):
        live_app.model.script(Text(answer))
        assert events(send(alice, session_id, "Next?"))[-1][0] == "done"
    first = alice.get(f"/api/sessions/{session_id}/messages").json()["messages"][1]["event_id"]
    branch = alice.post(f"/api/sessions/{session_id}/fork", json={"event_id": first}).json()["id"]
    assert alice.post(f"/api/sessions/{session_id}/rewind", json={}).status_code == 200
    token = alice.post(f"/api/sessions/{session_id}/shares", json={}).json()["url"].removeprefix("/share/")
    copy = bob.post(f"/api/shared/{token}/copy").json()["id"]
    exported = alice.get(f"/api/sessions/{session_id}/export").json()
    imported = alice.post("/api/sessions/import", content=json.dumps(exported)).json()["items"][0]["id"]

    def steps(client, chat: str) -> list[tuple[str, str, dict[str, str]]]:
        activity = client.get(f"/api/sessions/{chat}/activity").json()
        return [(s["action"], s["by"], s["details"]) for s in activity["steps"]]

    trunk = steps(alice, session_id)
    assert [(action, by) for action, by, _ in trunk[:5]] == [
        ("export", "you"),
        ("share_fork", "someone signed in"),
        ("share_view", "someone signed in"),
        ("share", "you"),
        ("rewind", "you"),
    ]
    copied = next(details for action, _, details in trunk if action == "share_fork")
    assert copy not in json.dumps(trunk) and "copy" not in copied
    label = next(
        s["label"]
        for s in alice.get(f"/api/sessions/{session_id}/activity").json()["steps"]
        if s["action"] == "share_fork"
    )
    assert label == "Copied by a viewer of a share link"
    branched = next(details for action, _, details in trunk if action == "branched")
    assert (branched["child"], branched["event_id"]) == (branch, first)
    assert ("fork", "you") in [(a, b) for a, b, _ in steps(alice, branch)]
    assert next(d for a, _, d in steps(alice, branch) if a == "fork")["parent"] == session_id
    assert [(a, d.get("source")) for a, _, d in steps(alice, imported)][:2] == [
        ("import", "agent-orchestrator"),
        ("create", None),
    ]
    assert [(a, d.get("source")) for a, _, d in steps(bob, copy)][:2] == [
        ("import", "share"),
        ("create", None),
    ]


def test_organising_steps_say_what_changed(live_app) -> None:
    alice = live_app.client("alice")
    session_id = alice.post("/api/sessions", json={"title": "Tidy"}).json()["id"]
    changes = [
        {"pinned": True},
        {"folder": "Cases", "tags": ["q3", "board"]},
        {"archived": True},
        {"folder": None},
    ]
    for change in changes:
        assert alice.patch(f"/api/sessions/{session_id}", json=change).status_code == 200
    steps = alice.get(f"/api/sessions/{session_id}/activity").json()["steps"]
    assert [s["label"] for s in steps if s["action"] == "organise"] == [
        "Taken out of its folder",
        "Archived",
        "Moved to “Cases”; Tagged q3, board",
        "Pinned",
    ]

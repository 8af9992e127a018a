"""Organising chats through the API (docs/architecture.md#organising-chats), on SQLite and on
PostgreSQL: pin, archive, folders and tags on one chat or many, the list's filters, archived chats
left out of the list but found by search, another user's ids exactly like unknown ones, every change
audited and announced on the owner's list feed, and none of it reordering the list."""

import httpx
from chat_helpers import audit_actions, events, send
from live_feed import Feed

from agent_orchestrator.testing.scripted_model import Text


def _titles(client: httpx.Client, **params: object) -> list[str]:
    response = client.get("/api/sessions", params=params)
    assert response.status_code == 200, response.text
    return [item["title"] for item in response.json()["items"]]


def _chats(client: httpx.Client, *titles: str) -> dict[str, str]:
    return {title: client.post("/api/sessions", json={"title": title}).json()["id"] for title in titles}


def test_pin_archive_file_and_tag_a_chat_then_filter_the_list(live_app) -> None:
    alice = live_app.client("alice")
    ids = _chats(alice, "Q1 review", "Q2 review", "Churn", "Campaign")
    assert _titles(alice) == ["Campaign", "Churn", "Q2 review", "Q1 review"]

    pinned = alice.patch(f"/api/sessions/{ids['Q1 review']}", json={"pinned": True})
    assert pinned.status_code == 200 and pinned.json()["pinned"] is True
    filed = alice.patch(
        f"/api/sessions/{ids['Q2 review']}",
        json={"folder": "Quarterly", "tags": ["finance", "Board", "board "]},
    ).json()
    assert (filed["folder"], filed["tags"]) == ("Quarterly", ["Board", "finance"])  # by name; once, any case
    alice.patch(f"/api/sessions/{ids['Q1 review']}", json={"folder": "Quarterly", "tags": ["finance"]})
    archived = alice.patch(f"/api/sessions/{ids['Churn']}", json={"archived": True}).json()
    assert archived["archived"] is True

    # Organising is not activity: the order stays; archived chats leave the list but not the search.
    assert _titles(alice) == ["Campaign", "Q2 review", "Q1 review"]
    assert _titles(alice, pinned="true") == ["Q1 review"]
    assert _titles(alice, pinned="false") == ["Campaign", "Q2 review"]
    assert _titles(alice, archived="true") == ["Churn"]
    assert _titles(alice, q="churn") == ["Churn"]
    assert _titles(alice, case="Quarterly") == ["Q2 review", "Q1 review"]
    assert _titles(alice, tag="finance") == ["Q2 review", "Q1 review"]
    assert _titles(alice, tag="Board") == ["Q2 review"]
    labels = alice.get("/api/labels").json()
    assert labels == {
        "folders": [{"name": "Quarterly", "count": 2}],
        "tags": [{"name": "Board", "count": 1}, {"name": "finance", "count": 2}],
    }
    detail = alice.get(f"/api/sessions/{ids['Q2 review']}").json()
    assert (detail["folder"], detail["tags"], detail["pinned"]) == ("Quarterly", ["Board", "finance"], False)

    # Taken out of its folder, untagged, unpinned, restored: everything as it was.
    alice.patch(f"/api/sessions/{ids['Q2 review']}", json={"folder": None, "tags": []})
    alice.patch(f"/api/sessions/{ids['Q1 review']}", json={"pinned": False})
    alice.patch(f"/api/sessions/{ids['Churn']}", json={"archived": False})
    assert _titles(alice) == ["Campaign", "Churn", "Q2 review", "Q1 review"]
    assert alice.get("/api/labels").json() == {
        "folders": [{"name": "Quarterly", "count": 1}],
        "tags": [{"name": "finance", "count": 1}],
    }
    assert audit_actions(live_app, ids["Q2 review"]).count("organise") == 2


def test_bad_changes_get_one_clear_error_and_change_nothing(live_app) -> None:
    alice, bob = live_app.client("alice"), live_app.client("bob")
    ids = _chats(alice, "Plans")
    chat = f"/api/sessions/{ids['Plans']}"
    for body in (
        {},
        {"pinned": "maybe"},
        {"folder": ""},
        {"folder": "x" * 81},
        {"tags": ["x" * 41]},
        {"tags": [f"t{n}" for n in range(11)]},
        {"tags": ["ok", "\u0000"]},
        {"colour": "red"},
        {"title": None},
    ):
        response = alice.patch(chat, json=body)
        assert response.status_code in (400, 422), (body, response.text)
        assert "Traceback" not in response.text and "detail" in response.json()
    after = alice.get(chat).json()
    assert (after["pinned"], after["archived"], after["folder"], after["tags"]) == (False, False, None, [])

    # Another user's chat is an unknown one, byte for byte.
    theirs = bob.patch(chat, json={"pinned": True})
    unknown = bob.patch("/api/sessions/no-such-chat", json={"pinned": True})
    assert theirs.status_code == unknown.status_code == 404 and theirs.json() == unknown.json()
    assert alice.get(chat).json()["pinned"] is False


def test_a_bulk_change_names_many_chats_once_and_reports_the_missing(live_app) -> None:
    alice, bob = live_app.client("alice"), live_app.client("bob")
    ids = _chats(alice, "One", "Two", "Three", "Four")
    bobs = bob.post("/api/sessions", json={"title": "Bob's"}).json()["id"]
    some = [ids["One"], ids["Two"], ids["Two"], "no-such-chat", bobs]

    moved = alice.post("/api/sessions/bulk", json={"ids": some, "action": "move", "folder": "Cases"})
    assert moved.status_code == 200, moved.text
    assert moved.json() == {"done": [ids["One"], ids["Two"]], "missing": ["no-such-chat", bobs]}
    assert _titles(alice, case="Cases") == ["Two", "One"]
    assert bob.get(f"/api/sessions/{bobs}").json()["folder"] is None  # bob's own chat is untouched

    archive = alice.post("/api/sessions/bulk", json={"ids": [ids["One"], ids["Three"]], "action": "archive"})
    assert archive.json()["done"] == [ids["One"], ids["Three"]]
    assert _titles(alice) == ["Four", "Two"]
    alice.post("/api/sessions/bulk", json={"ids": [ids["Three"]], "action": "restore"})
    assert _titles(alice) == ["Four", "Three", "Two"]

    deleted = alice.post("/api/sessions/bulk", json={"ids": [ids["Four"], ids["One"]], "action": "delete"})
    assert deleted.json() == {"done": [ids["Four"], ids["One"]], "missing": []}
    assert alice.get(f"/api/sessions/{ids['Four']}").status_code == 404
    assert _titles(alice, q="") == ["Three", "Two"]

    for body in (
        {"ids": [], "action": "pin"},
        {"ids": [ids["Two"]] * 201, "action": "pin"},
        {"ids": [ids["Two"]], "action": "explode"},
        {"ids": [ids["Two"]], "action": "pin", "folder": "X"},
        {"ids": ["../etc/passwd"], "action": "archive"},
    ):
        response = alice.post("/api/sessions/bulk", json=body)
        assert response.status_code in (400, 422), (body, response.text)
    assert _titles(alice) == ["Three", "Two"]


def test_every_device_hears_a_change_and_lists_again(live_app) -> None:
    phone, laptop = live_app.client("alice"), live_app.client("alice")
    session_id = phone.post("/api/sessions", json={"title": "Plans"}).json()["id"]
    feed = Feed(laptop, "/api/events")
    chat_feed = Feed(laptop, f"/api/sessions/{session_id}/events")
    try:
        phone.patch(f"/api/sessions/{session_id}", json={"pinned": True})
        assert [(e.kind, e.data) for e in feed.take_until("organised")] == [("organised", {"id": session_id})]
        assert "organised" in [e.kind for e in chat_feed.take_until("organised")]
        phone.post("/api/sessions/bulk", json={"ids": [session_id], "action": "archive"})
        assert [(e.kind, e.data) for e in feed.take_until("organised")] == [("organised", {"id": session_id})]
    finally:
        feed.close()
        chat_feed.close()
    assert laptop.get("/api/sessions", params={"archived": "true"}).json()["items"][0]["pinned"] is True


def test_titles_come_from_the_first_message_and_never_replace_the_owners(live_app) -> None:
    alice = live_app.client("alice")
    untitled = alice.post("/api/sessions", json={}).json()
    assert (untitled["title"], untitled["title_source"]) == ("New chat", "default")
    live_app.model.script(Text("Sure."))
    assert events(send(alice, untitled["id"], "Hi, can you tell me which products sell best in spring?"))
    titled = alice.get(f"/api/sessions/{untitled['id']}").json()
    assert (titled["title"], titled["title_source"]) == ("Which products sell best in spring", "auto")

    mine = alice.post("/api/sessions", json={"title": "My own"}).json()
    live_app.model.script(Text("Sure."))
    assert events(send(alice, mine["id"], "What sold best?"))
    assert alice.get(f"/api/sessions/{mine['id']}").json()["title"] == "My own"
    renamed = alice.patch(f"/api/sessions/{untitled['id']}", json={"title": "Spring"}).json()
    assert (renamed["title"], renamed["title_source"]) == ("Spring", "user")

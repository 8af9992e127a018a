"""Export and import through the real runtime (scripted model), on both stores: our JSON re-imports
into a session the model remembers, ChatGPT's conversations.json too, and a bad file changes nothing."""

import json

from chat_helpers import FACTS, answer, audit_actions, contents, memory_rule


def _chatgpt_conversation(title: str, turns: list[tuple[str, str]]) -> dict:
    """A conversation as ChatGPT exports it: a message tree (with a hidden root and a system node)."""
    mapping = {"root": {"id": "root", "message": None, "parent": None, "children": ["sys"]}}
    mapping["sys"] = {
        "id": "sys",
        "message": {"author": {"role": "system"}, "content": {"content_type": "text", "parts": [""]}},
        "parent": "root",
        "children": [],
    }
    parent, stamp = "sys", 1_700_000_000.0
    for index, (question, reply) in enumerate(turns):
        for role, text in (("user", question), ("assistant", reply)):
            node = f"{role}-{index}"
            stamp += 1
            mapping[node] = {
                "id": node,
                "message": {
                    "author": {"role": role},
                    "create_time": stamp,
                    "content": {"content_type": "text", "parts": [text]},
                },
                "parent": parent,
                "children": [],
            }
            mapping[parent]["children"].append(node)
            parent = node
    return {"title": title, "create_time": 1_700_000_000.0, "mapping": mapping, "current_node": parent}


def _import(client, payload) -> object:
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return client.post("/api/sessions/import", content=data, headers={"Content-Type": "application/json"})


def test_our_json_export_reimports_into_a_session_the_model_remembers(live_app, chat):
    alice, session_id = chat
    exported = alice.get(f"/api/sessions/{session_id}/export")
    assert exported.status_code == 200
    assert exported.headers["content-disposition"] == f'attachment; filename="{session_id}.json"'
    document = exported.json()
    assert document["format"] == 1 and [m["content"] for m in document["transcript"]] == contents(
        alice, session_id
    )

    imported = _import(alice, document)
    assert imported.status_code == 201, imported.text
    [copy] = imported.json()["items"]
    assert copy["id"] != session_id and copy["title"] == "Fruit facts" and copy["turn_count"] == 3
    assert contents(alice, copy["id"]) == contents(alice, session_id)
    assert answer(alice, copy["id"], "What did I say?") == "You said: " + "; ".join(FACTS)
    hits = alice.get("/api/search", params={"q": "cherry"}).json()["messages"]
    assert {hit["session_id"] for hit in hits} == {session_id, copy["id"]}
    assert "import" in audit_actions(live_app, copy["id"]) and "export" in audit_actions(live_app, session_id)

    markdown = alice.get(f"/api/sessions/{session_id}/export", params={"format": "markdown"})
    assert markdown.headers["content-type"].startswith("text/markdown")
    assert markdown.text.startswith("# Fruit facts\n") and "### You" in markdown.text
    assert "fact two: banana" in markdown.text

    bob = live_app.client("bob")
    assert bob.get(f"/api/sessions/{session_id}/export").status_code == 404
    assert audit_actions(live_app, session_id, "bob") == []  # an unknown id to bob: nothing written


def test_a_chatgpt_export_becomes_sessions_the_model_remembers(live_app):
    live_app.model.default = memory_rule
    alice = live_app.client("alice")
    export = [
        _chatgpt_conversation(
            "Fruit from ChatGPT", [("fact one: lemon", "Noted lemon."), ("fact two: lime", "Ok.")]
        ),
        {"title": "Empty", "mapping": {"a": {"id": "a", "message": None, "parent": None, "children": []}}},
        _chatgpt_conversation("Second", [("fact: plum", "Noted plum.")]),
    ]
    response = _import(alice, export)
    assert response.status_code == 201, response.text
    first, second = response.json()["items"]
    assert (first["title"], first["turn_count"], second["title"]) == ("Fruit from ChatGPT", 2, "Second")
    assert contents(alice, first["id"]) == ["fact one: lemon", "Noted lemon.", "fact two: lime", "Ok."]
    assert answer(alice, first["id"], "What did I say?") == "You said: fact one: lemon; fact two: lime"
    assert [h["session_id"] for h in alice.get("/api/search", params={"q": "plum"}).json()["messages"]] == [
        second["id"]
    ] * 2


def test_a_malformed_file_is_one_clear_error_and_imports_nothing(live_app, chat):
    alice, session_id = chat
    document = alice.get(f"/api/sessions/{session_id}/export").json()
    lines = document["events"].splitlines()
    lines[5] = lines[5][:20]
    torn = {**document, "events": "\n".join(lines) + "\n"}
    good = _chatgpt_conversation("Good one", [("fact: fig", "Noted fig.")])
    bad = _chatgpt_conversation("Broken one", [("fact: date", "Noted date.")])
    bad["mapping"]["user-0"]["parent"] = "missing-node"
    before = alice.get("/api/sessions").json()["items"]
    for payload, detail in (
        (torn, "Event log line 6 is not valid JSON"),
        ([good, bad], "Conversation 2 ('Broken one') is malformed"),
        (b"{not json", "The file is not valid JSON (line 1"),
        (b"[" * 100_000, "The file nests too deeply"),
        ({"hello": "world"}, "Expected an AgentOrchestrator export"),
    ):
        response = _import(alice, payload)
        assert response.status_code == 422 and response.json()["detail"].startswith(detail), response.text
    assert alice.get("/api/sessions").json()["items"] == before
    assert alice.get("/api/search", params={"q": "fig"}).json()["messages"] == []

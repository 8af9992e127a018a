"""Feedback on answers and titles that follow the conversation, end to end on the real runtime with
the scripted model (docs/architecture.md#feedback, docs/architecture.md#titles): a rating and its
note are stored with the answer, shown on every device, audited, and exported by an admin as eval
cases that ``bench/eval_assistant.py --replay`` reads; a chat nobody titled is named after what its
first answer computed."""

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from chat_helpers import audit_actions, computed, events, messages, send
from live_feed import Feed

from agent_orchestrator.retail import GeneratorConfig, generate_dataset
from agent_orchestrator.testing.scripted_model import Text, ToolCall

TOOL = "retail-analytics-analyze_sales"
ASKED = {"measure": "revenue", "countries": ["Germany"], "period": "2025"}


def _answered(live_app, client, question: str, answer: str) -> tuple[str, dict]:
    session_id = client.post("/api/sessions", json={"title": "Review"}).json()["id"]
    live_app.model.script(Text(answer))
    assert events(send(client, session_id, question))[-1][0] == "done"
    return session_id, messages(client, session_id)[-1]


def _feedback(session_id: str, event_id: str) -> str:
    return f"/api/sessions/{session_id}/messages/{event_id}/feedback"


def test_a_rating_and_its_note_are_kept_with_the_answer_and_shown_on_every_device(live_app) -> None:
    phone, laptop, bob = live_app.client("alice"), live_app.client("alice"), live_app.client("bob")
    session_id, answer = _answered(live_app, phone, "How much did we sell in May?", "We sold 1,234 units.")
    assert answer["role"] == "assistant" and answer["feedback"] is None
    feed = Feed(laptop, f"/api/sessions/{session_id}/events")
    try:
        rated = phone.put(
            _feedback(session_id, answer["event_id"]), json={"rating": "down", "note": "That was April."}
        )
        assert rated.status_code == 204, rated.text
        heard = feed.take_until("feedback")[-1]
    finally:
        feed.close()
    assert heard.data == {"event_id": answer["event_id"], "rating": "down", "note": "That was April."}
    assert messages(laptop, session_id)[-1]["feedback"] == {"rating": "down", "note": "That was April."}

    phone.put(_feedback(session_id, answer["event_id"]), json={"rating": "up"})  # changed their mind
    assert messages(laptop, session_id)[-1]["feedback"] == {"rating": "up", "note": ""}
    assert audit_actions(live_app, session_id).count("feedback") == 2
    assert phone.delete(_feedback(session_id, answer["event_id"])).status_code == 204
    assert messages(laptop, session_id)[-1]["feedback"] is None
    assert phone.delete(_feedback(session_id, answer["event_id"])).status_code == 404

    question = messages(phone, session_id)[0]
    for path, body in (
        (_feedback(session_id, question["event_id"]), {"rating": "up"}),  # a question is not an answer
        (_feedback(session_id, "no-such-event"), {"rating": "up"}),
        (_feedback("no-such-chat", answer["event_id"]), {"rating": "up"}),
    ):
        response = phone.put(path, json=body)
        assert response.status_code == 404, (path, response.text)
    theirs = bob.put(_feedback(session_id, answer["event_id"]), json={"rating": "up"})
    unknown = bob.put(_feedback("no-such-chat", answer["event_id"]), json={"rating": "up"})
    assert theirs.status_code == unknown.status_code == 404 and theirs.json() == unknown.json()
    for body in ({"rating": "meh"}, {"rating": "up", "note": "x" * 2001}, {"rating": "up", "extra": 1}, {}):
        response = phone.put(_feedback(session_id, answer["event_id"]), json=body)
        assert response.status_code == 422, (body, response.text)
    assert messages(phone, session_id)[-1]["feedback"] is None


def test_an_admin_exports_the_rated_answers_as_eval_cases_and_an_analyst_cannot(live_app) -> None:
    alice, bob = live_app.client("alice"), live_app.client("bob")  # alice is the first account: admin
    ids = []
    for who, question, answer, rating, note in (
        (alice, "Revenue in May?", "Revenue in May was 1,234.50.", "up", ""),
        (bob, "Best product?", "The best product is Red Mug.", "down", "It was the Blue Mug"),
    ):
        session_id, message = _answered(live_app, who, question, answer)
        who.put(_feedback(session_id, message["event_id"]), json={"rating": rating, "note": note})
        ids.append(session_id)

    refused = bob.get("/api/admin/feedback")
    assert refused.status_code == 403 and refused.json() == {"detail": "Only an admin can do this."}
    exported = alice.get("/api/admin/feedback")
    assert exported.status_code == 200 and exported.headers["content-type"].startswith("application/x-ndjson")
    cases = [json.loads(line) for line in exported.text.splitlines()]
    assert [(c["question"], c["answer"], c["rating"], c["note"]) for c in cases] == [
        ("Revenue in May?", "Revenue in May was 1,234.50.", "up", ""),
        ("Best product?", "The best product is Red Mug.", "down", "It was the Blue Mug"),
    ]
    assert "bob" not in exported.text and ids[1] not in exported.text  # about answers, not people
    only_down = alice.get("/api/admin/feedback", params={"rating": "down"}).text.splitlines()
    assert [json.loads(line)["question"] for line in only_down] == ["Best product?"]

    # What the eval's replay reads back.
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    import eval_replay

    path = live_app.web.data_dir / "cases.jsonl"
    path.write_text(exported.text + "not json\n")
    read = eval_replay.read_cases(path)
    assert [(c.question, c.rating, c.note) for c in read] == [
        ("Revenue in May?", "up", ""),
        ("Best product?", "down", "It was the Blue Mug"),
    ]
    assert eval_replay.missing_figures(read[0].answer, "It was 1,234.5 in May.") == []
    assert eval_replay.missing_figures(read[0].answer, "It was 1,300 in May.") == ["1234.5"]


@pytest.fixture
def retail_app(start_app: Callable, tmp_path: Path) -> Any:
    generate_dataset(tmp_path / "retail.sqlite", GeneratorConfig(seed=7, customers=300, transactions=6_000))
    return start_app(retail_dataset=True)


def test_a_chat_nobody_titled_is_named_after_what_its_first_answer_computed(retail_app) -> None:
    alice = retail_app.client("alice")
    session_id = alice.post("/api/sessions", json={}).json()["id"]
    list_feed = Feed(alice, "/api/events")
    try:
        retail_app.model.script(ToolCall(TOOL, ASKED), Text("Here are the figures."))
        assert events(send(alice, session_id, "hey, how much did germany sell in 2025?"))[-1][0] == "done"
        renamed = list_feed.take_until("renamed")[-1]
    finally:
        list_feed.close()
    assert renamed.data == {"id": session_id}
    reading = computed(retail_app, ASKED)["reading"]
    titled = alice.get(f"/api/sessions/{session_id}").json()
    assert (titled["title"], titled["title_source"]) == (reading, "auto") and "Germany" in reading

    # The next answers do not rename it, and neither does any answer once its owner titled it.
    retail_app.model.script(ToolCall(TOOL, {**ASKED, "countries": ["France"]}), Text("And France."))
    assert events(send(alice, session_id, "and france?"))[-1][0] == "done"
    assert alice.get(f"/api/sessions/{session_id}").json()["title"] == reading
    mine = alice.post("/api/sessions", json={"title": "Germany check"}).json()["id"]
    retail_app.model.script(ToolCall(TOOL, ASKED), Text("Here are the figures."))
    assert events(send(alice, mine, "how much did germany sell in 2025?"))[-1][0] == "done"
    assert alice.get(f"/api/sessions/{mine}").json()["title"] == "Germany check"


def test_a_chat_renamed_while_its_first_answer_runs_keeps_its_owners_title(retail_app) -> None:
    """The first answer's title is written only if the owner has not titled the chat meanwhile: a
    rename that lands while the answer is still being written wins (docs/architecture.md#titles)."""
    alice = retail_app.client("alice")
    session_id = alice.post("/api/sessions", json={}).json()["id"]
    asked = len(retail_app.model.requests)
    # The model waits before it calls the tool: the turn is running (titled after its first message).
    retail_app.model.script(ToolCall(TOOL, ASKED, delay=2.0), Text("Here are the figures."))
    with ThreadPoolExecutor(1) as pool:
        turn = pool.submit(send, alice, session_id, "hey, how much did germany sell in 2025?")
        retail_app.model.wait_for_requests(asked + 1, timeout=30)
        during = alice.get(f"/api/sessions/{session_id}").json()
        assert (during["status"], during["title_source"]) == ("busy", "auto")  # from the first message
        renamed = alice.patch(f"/api/sessions/{session_id}", json={"title": "Germany check"})
        assert renamed.status_code == 200, renamed.text
        assert events(turn.result(timeout=60))[-1][0] == "done"
    assert "Germany" in computed(retail_app, ASKED)["reading"]  # the title the answer would have given
    titled = alice.get(f"/api/sessions/{session_id}").json()
    assert (titled["title"], titled["title_source"]) == ("Germany check", "user")

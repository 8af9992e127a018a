"""Warm sessions through the real runtime (docs/architecture.md#warm-sessions): a server keeps a
session open between turns instead of resuming it per message, and lets go of it when the pool is full,
on rename and on delete. The runtime's own event log shows which happened: every resume appends a
``session.resume`` record and every close a ``session.shutdown``."""

import json
import re
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from chat_helpers import runtime_id

from agent_orchestrator.retail.generator import GeneratorConfig, generate_dataset
from agent_orchestrator.sessions.store import LeaseManager, make_engine
from agent_orchestrator.testing.eventually import eventually
from agent_orchestrator.testing.scripted_model import Text, ToolCall, user_messages

TELL = "Remember this: my favourite retail segment is 'At Risk'. Reply with just OK."
ASK = "Which retail segment did I say was my favourite?"
METRICS_TOKEN = "scraper-token-0123456789"
SCRAPER = {"Authorization": f"Bearer {METRICS_TOKEN}"}


class WarmApp:
    def __init__(self, app: Any) -> None:  # conftest's LiveApp
        self.app = app
        self.data_dir = app.web.data_dir
        self.client = app.client("alice")

    def new_session(self) -> str:
        return self.client.post("/api/sessions", json={}).json()["id"]

    def send(self, session_id: str, content: str) -> str:
        response = self.client.post(f"/api/sessions/{session_id}/messages", json={"content": content})
        assert "event: done" in response.text, response.text
        return response.text

    def lifecycle(self, session_id: str) -> list[str]:
        """The log's resume/shutdown records and user messages, in order (``user`` for a message)."""
        folder = runtime_id(self.app, session_id)  # the runtime's folder is named after its own id
        log = self.data_dir / "copilot" / "session-state" / folder / "events.jsonl"
        kinds = [json.loads(line)["type"] for line in log.read_text().splitlines()]
        keep = {"session.resume": "resume", "session.shutdown": "shutdown", "user.message": "user"}
        return [keep[kind] for kind in kinds if kind in keep]

    def turn_sessions(self) -> Counter[str]:
        """How this process's turns found their session so far (the ``agent_turn_sessions`` metric)."""
        found = re.findall(
            r'^agent_turn_sessions_total\{source="(\w+)"\} (\S+)$',
            self.client.get("/metrics", headers=SCRAPER).text,
            re.M,
        )
        return Counter({source: int(float(count)) for source, count in found})

    def wait_for_lifecycle(self, session_id: str, expected: list[str], timeout: float = 10.0) -> None:
        """Until the log shows ``expected`` (the pool closes a session in the background)."""

        def shows_it() -> bool:
            assert self.lifecycle(session_id) == expected
            return True

        eventually(shows_it, timeout=timeout)


@pytest.fixture
def warm_app(start_app: Callable[..., Any]) -> Callable[[int], WarmApp]:
    return lambda capacity: WarmApp(start_app(warm_sessions=capacity, metrics_token=METRICS_TOKEN))


def test_turns_reuse_the_open_session_instead_of_resuming_it(warm_app, scripted_model):
    app = warm_app(10)
    session_id = app.new_session()
    for content in (TELL, "and another thing", ASK):
        app.send(session_id, content)
    assert "Your favourite retail segment is 'At Risk'." in app.send(session_id, ASK)
    # Created, saved and kept open: no resume and no shutdown between its turns.
    assert app.lifecycle(session_id) == ["user", "user", "user", "user"]
    assert len(user_messages(scripted_model.requests[-1])) == 4


def test_a_full_pool_closes_the_least_recently_used_session_which_resumes_with_its_history(warm_app):
    app = warm_app(1)
    first, second = app.new_session(), app.new_session()
    app.send(first, TELL)
    app.send(second, "hello")  # the pool holds one: the first session is closed (in the background)
    app.wait_for_lifecycle(first, ["shutdown", "resume", "user", "shutdown"])
    assert "Your favourite retail segment is 'At Risk'." in app.send(first, ASK)
    assert app.lifecycle(first) == ["shutdown", "resume", "user", "shutdown", "resume", "user"]


def test_rename_closes_the_open_session(warm_app):
    app = warm_app(10)
    session_id = app.new_session()
    app.send(session_id, TELL)
    assert app.client.patch(f"/api/sessions/{session_id}", json={"title": "Renamed"}).status_code == 200
    assert app.lifecycle(session_id)[-1] == "shutdown"
    assert "Your favourite retail segment is 'At Risk'." in app.send(session_id, ASK)


def test_reading_a_session_opens_it_ahead_and_the_next_turn_reuses_that_copy(warm_app):
    app = warm_app(1)
    first, second = app.new_session(), app.new_session()
    app.send(first, TELL)
    app.send(second, "hello")  # the pool holds one: the first session is closed
    app.wait_for_lifecycle(first, ["shutdown", "resume", "user", "shutdown"])
    before = app.turn_sessions()
    # Its owner opens it again: the replay of its log starts now, not when they send.
    assert app.client.get(f"/api/sessions/{first}/messages").json()["busy"] is False
    assert "Your favourite retail segment is 'At Risk'." in app.send(first, ASK)
    # The runtime writes the copy's resume record with the turn: one resume, no second one.
    assert app.lifecycle(first) == ["shutdown", "resume", "user", "shutdown", "resume", "user"]
    assert app.turn_sessions() - before == Counter(ahead=1)


def test_writing_in_a_chat_whose_copy_was_closed_opens_it_ahead_again(warm_app):
    app = warm_app(1)
    first, second = app.new_session(), app.new_session()
    app.send(first, TELL)
    app.client.get(f"/api/sessions/{first}/messages")  # the chat is open in a tab...
    app.send(second, "hello")  # ...when its copy leaves the pool (it holds one)
    app.wait_for_lifecycle(first, ["shutdown", "resume", "user", "shutdown"])
    before = app.turn_sessions()
    # The user types in the open chat: the tab says so, and the replay starts before the send.
    assert app.client.post(f"/api/sessions/{first}/composing").status_code == 204
    assert "Your favourite retail segment is 'At Risk'." in app.send(first, ASK)
    assert app.lifecycle(first) == ["shutdown", "resume", "user", "shutdown", "resume", "user"]
    assert app.turn_sessions() - before == Counter(ahead=1)
    # Said again of a copy that is open: nothing to do. Of an unknown id: as everywhere, 404.
    assert app.client.post(f"/api/sessions/{first}/composing").status_code == 204
    assert app.client.post("/api/sessions/chat-0000000000000000/composing").status_code == 404
    app.send(first, "and now?")
    assert app.turn_sessions() - before == Counter(ahead=1, warm=1)


def test_a_new_session_is_stored_at_once_and_one_with_no_turns_is_not_opened_ahead(warm_app):
    app = warm_app(1)
    session_id = app.new_session()
    assert app.lifecycle(session_id) == []  # stored (the log exists) and still open
    app.new_session()  # the pool holds one: the first is closed
    app.wait_for_lifecycle(session_id, ["shutdown"])
    before = app.turn_sessions()
    app.client.get(f"/api/sessions/{session_id}/messages")
    app.send(session_id, "hello")
    assert app.lifecycle(session_id) == ["shutdown", "resume", "user"]
    assert app.turn_sessions() - before == Counter(resumed=1)


def test_a_send_waits_for_a_copy_being_opened_ahead_elsewhere_instead_of_answering_busy(start_app):
    live = start_app(warm_sessions=10)
    app = WarmApp(live)
    session_id = app.new_session()
    app.send(session_id, TELL)
    # Another server holds the lease to open the session ahead (its holder name says so), for 1 s.
    leases = LeaseManager(make_engine(live.web.database_url))
    stored = runtime_id(live, session_id)  # leases are the runtime id's
    assert leases.acquire(stored, "other-server/0123456789ab/ahead", ttl=1.0) is not None
    started = time.monotonic()
    assert "Your favourite retail segment is 'At Risk'." in app.send(session_id, ASK)
    assert time.monotonic() - started >= 0.9
    # A turn's lease is different: that one is busy at once.
    assert leases.acquire(stored, "other-server/0123456789ab", ttl=5.0) is not None
    response = app.client.post(f"/api/sessions/{session_id}/messages", json={"content": ASK})
    assert response.status_code == 409


def test_sessions_share_the_servers_one_mcp_connection_for_their_tools(start_app, scripted_model, tmp_path):
    # start_app's data directory is this test's tmp_path: the app finds a (small) dataset there.
    generate_dataset(tmp_path / "retail.sqlite", GeneratorConfig(seed=3, customers=200, transactions=3_000))
    app = WarmApp(start_app(retail_dataset=True))
    for session_id in (app.new_session(), app.new_session()):
        scripted_model.script(ToolCall("retail-analytics-list_segments", {}), Text("Four segments."))
        answer = app.send(session_id, "Which segments are there?")
        assert '"name": "list_segments", "status": "started"' in answer
        assert '"status": "finished", "success": true' in answer
        tool_message = scripted_model.requests[-1]["messages"][-1]
        assert tool_message["role"] == "tool" and '"At Risk"' in tool_message["content"]

"""A send is acknowledged (2xx) only once its turn can run, and then never lost (issue 42).

The story: a server acknowledged a message, published it on the live feed, and only then found that
it could not open the chat in the runtime; the turn ended in ``error`` and the message was in no
transcript. Now the chat is opened before the answer starts: a send that cannot run is refused with a
retryable status and nothing of it is written anywhere; a turn that fails after acknowledgement keeps
its message, shown as interrupted, on every device.
"""

import os
import signal
from pathlib import Path

from chat_helpers import events, send
from live_feed import Feed

from agent_orchestrator.testing.eventually import eventually
from agent_orchestrator.testing.scripted_model import Failure


def _copilot_processes(data_dir: Path) -> list[int]:
    """The Copilot CLI processes whose home is under ``data_dir`` (this app's runtime)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if f"COPILOT_HOME={data_dir}".encode() in [v[: len(f"COPILOT_HOME={data_dir}")] for v in environ]:
            found.append(int(entry.name))
    return found


def test_a_send_the_runtime_cannot_take_is_refused_before_it_is_acknowledged(start_app, tmp_path):
    app = start_app(warm_sessions=0)  # every turn opens its chat in the runtime
    alice = app.client("alice")
    session_id = alice.post("/api/sessions", json={}).json()["id"]
    assert events(send(alice, session_id, "hello"))[-1][0] == "done"
    transcript = alice.get(f"/api/sessions/{session_id}/messages").json()
    feed = Feed(alice, f"/api/sessions/{session_id}/events", last_event_id=transcript["last_event_id"])

    processes = _copilot_processes(tmp_path)
    assert processes
    for pid in processes:  # the runtime dies between two turns
        os.kill(pid, signal.SIGKILL)
    eventually(lambda: not _copilot_processes(tmp_path))

    refused = send(alice, session_id, "are you there?")
    assert refused.status_code == 503, refused.text
    assert int(refused.headers["Retry-After"]) > 0
    assert "try again" in refused.json()["detail"]
    after = alice.get(f"/api/sessions/{session_id}/messages").json()
    assert [m["content"] for m in after["messages"]] == ["hello", "OK"]
    assert not after["busy"] and after["last_event_id"] == transcript["last_event_id"]
    assert feed.events.empty()  # nothing was said to have been received
    feed.close()


def test_a_turn_that_fails_after_acknowledgement_keeps_its_message_on_every_device(start_app):
    app = start_app()
    alice, phone = app.client("alice"), app.client("alice")
    session_id = alice.post("/api/sessions", json={}).json()["id"]
    assert events(send(alice, session_id, "hello"))[-1][0] == "done"
    app.model.script(*[Failure(500, "model down")] * 8)  # the runtime's retries too

    failed = send(alice, session_id, "what were sales in May?")
    assert events(failed)[-1][0] == "error"
    shown = phone.get(f"/api/sessions/{session_id}/messages").json()["messages"]
    assert [(m["role"], m["content"], m["interrupted"]) for m in shown] == [
        ("user", "hello", False),
        ("assistant", "OK", False),
        ("user", "what were sales in May?", True),
    ]

    app.model.script()
    assert events(send(alice, session_id, "what were sales in May?"))[-1][0] == "done"  # a retry
    shown = phone.get(f"/api/sessions/{session_id}/messages").json()["messages"]
    assert [(m["content"], m["interrupted"]) for m in shown][2:] == [
        ("what were sales in May?", True),
        ("what were sales in May?", False),
        ("OK", False),
    ]

"""A Copilot runtime that dies in the middle of an answer (docs/architecture.md#a-chat-turn-step-by-step):
the turn ends at once with one clear error, not at its time limit minutes later, and the message asked
stays in the transcript, marked, so nothing acknowledged disappears."""

import os
import signal
import threading
import time
from pathlib import Path

from chat_helpers import events, send

from agent_orchestrator.sessions.turns.stream import RUNTIME_GONE
from agent_orchestrator.testing.scripted_model import Text


def _runtime_children(home: Path) -> list[int]:
    """This process's Copilot CLI children whose home is under ``home`` (the app this test started:
    a worker may run others, the browser tests' app say)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes()
            environment = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        ours = any(line.startswith(b"COPILOT_HOME=" + bytes(home)) for line in environment)
        if parent == os.getpid() and b"copilot" in command and ours:
            found.append(int(entry.name))
    return found


def test_a_runtime_that_dies_mid_answer_fails_the_turn_at_once(start_app, tmp_path: Path) -> None:
    app = start_app()
    app.model.script(Text("one two three four five six seven eight nine ten", pace=0.5))
    alice = app.client("alice")
    chat = alice.post("/api/sessions", json={"title": "Doomed"}).json()["id"]
    (cli,) = _runtime_children(tmp_path)
    threading.Timer(1.5, os.kill, (cli, signal.SIGKILL)).start()

    started = time.monotonic()
    said = events(send(alice, chat, "Count to ten slowly"))
    took = time.monotonic() - started
    assert said[-1] == ("error", {"message": RUNTIME_GONE, "code": "turn_failed"})
    assert took < 10, f"the turn waited {took:.0f} s for a runtime that was gone"
    asked = [m for m in alice.get(f"/api/sessions/{chat}/messages").json()["messages"] if m["role"] == "user"]
    assert [m["content"] for m in asked] == ["Count to ten slowly"]

"""With a master key on a single server: the runtime's session files are sealed on disk, and an export
written to disk is sealed with its session's key, readable with open-export while the session exists,
and unreadable once it is deleted."""

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from chat_helpers import runtime_id

from agent_orchestrator.sessions.crypto import MasterKeys
from agent_orchestrator.testing.environment import clean_environment
from agent_orchestrator.testing.scripted_model import user_messages


def _sessions_cli(data_dir: Path, master_key: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = clean_environment(AGENT_ORCHESTRATOR_HOME=str(data_dir), AGENT_MASTER_KEY=master_key)
    env.pop("DATABASE_URL", None)
    command = [sys.executable, "-m", "agent_orchestrator.sessions", *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)


def test_an_export_on_disk_is_sealed_and_dies_with_its_session(start_app: Callable, tmp_path: Path) -> None:
    master_key = MasterKeys.generate()
    app = start_app(master_key=master_key)
    client = app.client("alice")
    session_id = client.post("/api/sessions", json={}).json()["id"]
    assert (
        "event: done"
        in client.post(f"/api/sessions/{session_id}/messages", json={"content": "Quokka-42?"}).text
    )
    assert "event: done" in client.post(f"/api/sessions/{session_id}/messages", json={"content": "And?"}).text
    first, second = user_messages(app.model.requests[-1])  # resumed from the sealed files, whole
    assert first.endswith("Quokka-42?") and second.endswith("And?")
    # Every file but the catalog (whose title and preview are in clear, see the architecture notes):
    on_disk = [p for p in app.web.data_dir.rglob("*") if p.is_file() and "catalog.sqlite" not in p.name]
    assert any(p.name == "events.jsonl" and "sealed-sessions" in p.parts for p in on_disk)
    assert not [p for p in on_disk if b"Quokka" in p.read_bytes()]
    out = tmp_path / "export.sealed"

    exported = _sessions_cli(app.web.data_dir, master_key, "export", session_id, "--out", str(out))
    assert exported.returncode == 0, exported.stderr
    assert "sealed with the session's key" in exported.stderr
    assert b"Quokka" not in out.read_bytes() and out.stat().st_mode & 0o777 == 0o600
    opened = _sessions_cli(app.web.data_dir, master_key, "open-export", str(out))
    assert opened.returncode == 0, opened.stderr
    assert json.loads(opened.stdout)["transcript"][0]["content"].endswith("Quokka-42?")

    stored = runtime_id(app, session_id)  # the key, and so the sealed file's header, is the runtime id's
    assert client.delete(f"/api/sessions/{session_id}").status_code == 204
    gone = _sessions_cli(app.web.data_dir, master_key, "open-export", str(out))
    assert (gone.returncode, gone.stdout) == (1, "")
    assert (
        gone.stderr
        == f"error: Session {stored} was deleted: its key is gone, and its export is unreadable.\n"
    )

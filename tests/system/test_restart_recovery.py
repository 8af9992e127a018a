"""Kill the server and its runtime mid-turn, start again: nothing earlier is lost, the interrupted
turn's message is visible and can be retried. Kill it mid-import: the import is reported failed."""

import contextlib
import threading
from pathlib import Path

import httpx
import pytest
from sales_csv import sales_csv

from agent_orchestrator.sessions.store import AuditLog, make_engine
from agent_orchestrator.testing.app_process import AppProcess
from agent_orchestrator.testing.environment import clean_environment
from agent_orchestrator.testing.eventually import eventually
from agent_orchestrator.testing.scripted_model import ScriptedModel, Text


def _login(app: AppProcess, data_dir: Path) -> httpx.Client:
    client = httpx.Client(base_url=app.url, timeout=60)
    password = (data_dir / "demo-login.txt").read_text().strip()
    response = client.post("/api/auth/login", json={"username": "demo", "password": password})
    client.headers["X-CSRF-Token"] = response.json()["csrf_token"]
    return client


def _send(client: httpx.Client, session_id: str, content: str) -> str:
    return client.post(f"/api/sessions/{session_id}/messages", json={"content": content}).text


@pytest.fixture
def app_process(tmp_path: Path, scripted_model: ScriptedModel):
    env = clean_environment(
        AGENT_ORCHESTRATOR_HOME=str(tmp_path / "data"),
        AGENT_PROVIDER_BASE_URL=scripted_model.base_url,
        AGENT_MODEL="scripted-model",
        AGENT_WEB_LEASE_TTL="3",
    )
    app = AppProcess(env)
    yield app
    app.kill()


def test_a_turn_cut_off_by_a_crash_is_recoverable(app_process, tmp_path, scripted_model):
    data_dir = tmp_path / "data"
    app_process.start()
    client = _login(app_process, data_dir)
    session_id = client.post("/api/sessions", json={"title": "Crash test"}).json()["id"]
    assert "event: done" in _send(client, session_id, "one")

    scripted_model.script(Text("never delivered", delay=60))

    def send_and_lose_the_connection() -> None:
        with contextlib.suppress(httpx.TransportError):  # the server dies under this request
            _send(client, session_id, "two")

    threading.Thread(target=send_and_lose_the_connection, daemon=True).start()
    scripted_model.wait_for_requests(2, timeout=30)
    app_process.kill()

    app_process.start()
    client = _login(app_process, data_dir)

    def recovered() -> dict:
        """The transcript, once the dead server's lease (3 s) has expired and the turn is over."""
        transcript = client.get(f"/api/sessions/{session_id}/messages").json()
        assert transcript["session"]["status"] == "interrupted" and not transcript["busy"], transcript
        return transcript

    transcript = eventually(recovered, timeout=30, interval=0.2)
    assert [(m["role"], m["content"], m["interrupted"]) for m in transcript["messages"]] == [
        ("user", "one", False),
        ("assistant", "OK", False),
        ("user", "two", True),
    ]
    assert transcript["session"]["status"] == "interrupted" and not transcript["busy"]

    assert "event: done" in _send(client, session_id, "two")  # retry
    messages = client.get(f"/api/sessions/{session_id}/messages").json()["messages"]
    assert [(m["content"], m["interrupted"]) for m in messages] == [
        ("one", False),
        ("OK", False),
        ("two", True),  # the attempt the crash cut off stays visible
        ("two", False),
        ("OK", False),
    ]
    assert client.get(f"/api/sessions/{session_id}").json()["status"] == "idle"


def test_an_import_cut_off_by_a_crash_is_reported_failed_after_the_restart(app_process, tmp_path):
    """kill -9 while an import reads its file: the next start records the job as failed, "interrupted
    by a server restart", in the audit log and as the last job the Data page shows; the data is as
    it was (docs/architecture.md#crash-safety-and-restart-recovery)."""
    data_dir = tmp_path / "data"
    app_process.start()
    client = _login(app_process, data_dir)  # demo, the first account: an admin
    lines = 150_000  # seconds to read on a fast machine: a third of it is seen before it ends
    csv_file = sales_csv(tmp_path / "big.csv", lines)
    preview = client.post(
        "/api/datasets/uploads",
        params={"name": "big.csv"},
        content=csv_file.read_bytes(),
        headers={"Content-Type": "text/csv"},
    ).json()
    started = client.post(
        "/api/datasets/imports",
        json={"upload_id": preview["upload_id"], "mapping": preview["mapping"], "format": preview["format"]},
    )
    assert started.status_code == 202, started.text
    job_id = started.json()["id"]

    def a_third_read() -> bool:
        job = client.get("/api/datasets/imports/current").json()["job"]
        if job["state"] != "running":  # ended before the kill: the file would have to be larger
            pytest.fail(f"the import ended before a third of it was read: {job}")
        assert job["progress"] and job["progress"]["rows_read"] >= lines // 3, job
        return True

    eventually(a_third_read, timeout=120, interval=0.05)
    app_process.kill()

    app_process.start()
    client = _login(app_process, data_dir)
    job = client.get("/api/datasets/imports/current").json()["job"]
    assert (job["id"], job["state"], job["source_name"]) == (job_id, "failed", "big.csv")
    assert job["error"] == "The import was interrupted by a server restart; the active data is unchanged."
    assert client.get("/api/datasets").json()["version_id"] == "default"
    engine = make_engine(f"sqlite:///{data_dir / 'catalog.sqlite'}")
    try:
        audited = [
            (event.action, event.details.get("reason"))
            for event in reversed(AuditLog(engine).recent(limit=100))
            if event.details.get("job") == job_id
        ]
    finally:
        engine.dispose()
    assert audited == [("data_import_start", None), ("data_import_failed", "interrupted by a server restart")]
    assert not (data_dir / "import-job.json").exists()  # reported once, not at every start

"""Two app servers (separate processes and runtime homes, different ports) on one PostgreSQL.

Any server resumes any session; one writer per session across servers; a dead server blocks a session
only until its lease expires; a PostgreSQL restart is survived without restarting the servers.
"""

import contextlib
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path

import httpx
import psycopg
import pytest
from live_feed import Feed

from agent_orchestrator.testing.app_process import AppProcess
from agent_orchestrator.testing.environment import clean_environment
from agent_orchestrator.testing.eventually import eventually
from agent_orchestrator.testing.postgres import FreshSchema, fresh_schema
from agent_orchestrator.testing.scripted_model import ScriptedModel, Text, ToolCall, user_messages

pytestmark = pytest.mark.postgres
LEASE_TTL = 3.0
ADDRESS_LIMIT = 8  # failed logins per client address (an account's from one address stays the default 5)
TELL = "Remember this: my favourite retail segment is 'At Risk'. Reply with just OK."
ASK = "Which retail segment did I say was my favourite?"


class Servers:
    def __init__(self, root: Path, database_url: str, model: ScriptedModel) -> None:
        self.root = root
        self.database_url = database_url
        self.apps = {
            name: AppProcess(
                clean_environment(
                    AGENT_ORCHESTRATOR_HOME=str(root / name),
                    DATABASE_URL=database_url,
                    AGENT_PROVIDER_BASE_URL=model.base_url,
                    AGENT_MODEL="scripted-model",
                    AGENT_WEB_LEASE_TTL=str(LEASE_TTL),
                    AGENT_SERVER_ID=f"server-{name}",
                    AGENT_LOGIN_MAX_ADDRESS_FAILURES=str(ADDRESS_LIMIT),
                )
            )
            for name in ("a", "b")
        }

    def client(self, name: str) -> httpx.Client:
        """The demo user logged in on server ``name`` (server A created the account)."""
        client = httpx.Client(base_url=self.apps[name].url, timeout=120)
        password = (self.root / "a" / "demo-login.txt").read_text().strip()
        response = client.post("/api/auth/login", json={"username": "demo", "password": password})
        response.raise_for_status()
        client.headers["X-CSRF-Token"] = response.json()["csrf_token"]
        return client


@contextlib.contextmanager
def _started(pair: Servers) -> Iterator[Servers]:
    try:
        pair.apps["a"].start()  # first, so that it alone creates the demo account
        pair.apps["b"].start()
        yield pair
    finally:
        for app in pair.apps.values():
            app.kill()


@pytest.fixture
def servers(tmp_path: Path, scripted_model: ScriptedModel, postgres_schema: FreshSchema) -> Iterator[Servers]:
    """A pair of its own, for a test that stops a server, restarts the database or locks logins."""
    with _started(Servers(tmp_path, postgres_schema.url, scripted_model)) as pair:
        yield pair


@pytest.fixture(scope="module")
def shared_servers(
    tmp_path_factory: pytest.TempPathFactory, scripted_server: ScriptedModel, postgres_url: str
) -> Iterator[Servers]:
    """One pair for the tests that leave both servers up and logins open, each in chats of its own
    (a pair takes half a minute to a minute and a half to start on a busy CI machine)."""
    with (
        fresh_schema("two_servers", url=postgres_url) as schema,
        _started(Servers(tmp_path_factory.mktemp("two_servers"), schema.url, scripted_server)) as pair,
    ):
        yield pair


def _send(client: httpx.Client, session_id: str, content: str) -> httpx.Response:
    return client.post(f"/api/sessions/{session_id}/messages", json={"content": content})


def _send_in_background(client: httpx.Client, session_id: str, content: str) -> threading.Thread:
    def run() -> None:
        with contextlib.suppress(httpx.TransportError):  # some of these servers die mid-request
            _send(client, session_id, content)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def _conversation(client: httpx.Client, session_id: str) -> list[tuple[str, str, bool]]:
    messages = client.get(f"/api/sessions/{session_id}/messages").json()["messages"]
    return [(m["role"], m["content"], m["interrupted"]) for m in messages]


@pytest.mark.xdist_group("two_servers")
def test_any_server_continues_any_session_with_one_writer_at_a_time(shared_servers, scripted_model):
    a, b = shared_servers.client("a"), shared_servers.client("b")
    session_id = a.post("/api/sessions", json={"title": "Shared"}).json()["id"]
    assert "event: done" in _send(a, session_id, TELL).text

    # Continue on B with the full history: the model sees the turn that A ran.
    assert [m[:2] for m in _conversation(b, session_id)] == [("user", TELL), ("assistant", "OK")]
    assert "Your favourite retail segment is 'At Risk'." in _send(b, session_id, ASK).text
    assert len(user_messages(scripted_model.requests[-1])) == 2

    # Simultaneous sends on A and B: one answers, the other is told busy, the log stays linear.
    scripted_model.script(Text("slow answer", delay=3))
    on_a = _send_in_background(a, session_id, "one")
    scripted_model.wait_for_requests(3, timeout=30)
    busy = _send(b, session_id, "two")
    on_a.join()
    assert busy.status_code == 409
    assert [m[:2] for m in _conversation(b, session_id)][-2:] == [
        ("user", "one"),
        ("assistant", "slow answer"),
    ]
    assert [m[0] for m in _conversation(a, session_id)] == ["user", "assistant"] * 3


def test_a_server_killed_mid_turn_blocks_the_session_only_until_its_lease_expires(servers, scripted_model):
    a, b = servers.client("a"), servers.client("b")
    session_id = a.post("/api/sessions", json={}).json()["id"]
    assert "event: done" in _send(a, session_id, TELL).text
    scripted_model.script(Text("never delivered", delay=60))
    _send_in_background(a, session_id, "cut off")
    scripted_model.wait_for_requests(2, timeout=30)
    servers.apps["a"].kill()

    assert _send(b, session_id, ASK).status_code == 409  # A's lease is still live
    time.sleep(LEASE_TTL + 0.5)  # kept: the test is that the lease runs out, and then B goes on
    # A follower on B that joined the cut-off turn hears it is over once B notices the lease expired.
    feed = Feed(b, f"/api/sessions/{session_id}/events?after=0")
    try:
        feed.take_until("idle")  # the first turn, answered
        ended = [e.kind for e in feed.take_until("idle", timeout=30)]
    finally:
        feed.close()
    assert ended == ["user", "error", "idle"]
    assert "Your favourite retail segment is 'At Risk'." in _send(b, session_id, ASK).text
    assert _conversation(b, session_id) == [
        ("user", TELL, False),
        ("assistant", "OK", False),
        ("user", "cut off", True),  # what A was answering when it died is still there
        ("user", ASK, False),
        ("assistant", "Your favourite retail segment is 'At Risk'.", False),
    ]


def test_a_server_paused_past_its_lease_writes_nothing_after_it_wakes(servers, scripted_model):
    """Fencing across servers: A stalls mid-turn (SIGSTOP, as a long GC pause or a frozen VM would)
    until its lease runs out, B takes the session over, and then A wakes up with its model's answer.
    A counts on its lease without asking only for half its ttl after each renewal; past that, each
    write asks the database, so nothing A flushes late lands in the log B has written since (a fence
    trusting the lease for longer lets A's late flush through: its message again, or its answer)."""
    a, b = servers.client("a"), servers.client("b")
    session_id = a.post("/api/sessions", json={}).json()["id"]
    assert "event: done" in _send(a, session_id, TELL).text
    scripted_model.script(Text("late answer", delay=1.0))
    late = _send_in_background(a, session_id, "a slow question")
    scripted_model.wait_for_requests(2, timeout=30)
    server_a = servers.apps["a"].proc
    assert server_a is not None
    os.kill(server_a.pid, signal.SIGSTOP)  # the Python process only: its runtime keeps running
    try:
        time.sleep(LEASE_TTL + 0.5)  # kept: A stays stopped until its lease has run out
        assert "Your favourite retail segment is 'At Risk'." in _send(b, session_id, ASK).text
    finally:
        os.kill(server_a.pid, signal.SIGCONT)
    late.join(timeout=60)
    # Nothing of A's after it stalled: no answer, and its message once, as the turn that was cut off
    # (a late flush of A's would add it again, after B's turn).
    assert _conversation(b, session_id) == [
        ("user", TELL, False),
        ("assistant", "OK", False),
        ("user", "a slow question", True),
        ("user", ASK, False),
        ("assistant", "Your favourite retail segment is 'At Risk'.", False),
    ]
    assert "event: done" in _send(a, session_id, "and now?").text  # A resumes B's log and goes on
    assert _conversation(a, session_id)[-2][:2] == ("user", "and now?")


@pytest.mark.exclusive
def test_both_servers_recover_from_a_postgresql_restart_without_restarting(servers):
    a, b = servers.client("a"), servers.client("b")
    session_id = a.post("/api/sessions", json={}).json()["id"]
    assert "event: done" in _send(a, session_id, TELL).text
    version = next(Path("/etc/postgresql").iterdir()).name
    subprocess.run(
        ["pg_ctlcluster", "--skip-systemctl-redirect", version, "main", "restart"], check=True, timeout=120
    )

    def lists_sessions(client: httpx.Client) -> httpx.Response:
        response = client.get("/api/sessions")
        assert response.status_code == 200, response.text
        return response

    for client in (a, b):
        listed = eventually(partial(lists_sessions, client), timeout=30, interval=0.5)
        assert listed.json()["items"][0]["id"] == session_id
    assert "Your favourite retail segment is 'At Risk'." in _send(b, session_id, ASK).text
    assert "event: done" in _send(a, session_id, "and again").text


@pytest.fixture
def throttled(shared_servers: Servers) -> Iterator[tuple[Servers, int]]:
    """The shared pair for a test that locks this address out, with the audit log's last id before
    it; the lockout is lifted afterwards (the throttle's rows go), so the other tests log in again."""
    with psycopg.connect(shared_servers.database_url) as conn:
        (before,) = conn.execute("SELECT coalesce(max(id), 0) FROM audit_log").fetchone()  # type: ignore[misc]
    try:
        yield shared_servers, before
    finally:
        with psycopg.connect(shared_servers.database_url) as conn:
            conn.execute("DELETE FROM login_throttle")


def _locks(servers: Servers, after: int) -> list[str]:
    with psycopg.connect(servers.database_url) as conn:
        rows = conn.execute(
            "SELECT details FROM audit_log WHERE action = 'login_locked' AND id > %s ORDER BY id", [after]
        ).fetchall()
    return [json.loads(details)["scope"] for (details,) in rows]


@pytest.mark.xdist_group("two_servers")
def test_login_throttling_holds_across_servers(throttled):
    """Guesses spread over both servers, at once: at most the limit (5) get a password checked."""
    servers, before = throttled
    password = (servers.root / "a" / "demo-login.txt").read_text().strip()
    clients = [httpx.Client(base_url=app.url, timeout=60) for app in servers.apps.values()]

    def guess(index: int) -> httpx.Response:
        return clients[index % 2].post(
            "/api/auth/login", json={"username": "demo", "password": f"guess-{index}"}
        )

    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(guess, range(14)))
    assert sorted(r.status_code for r in answers) == [401] * 5 + [429] * 9
    refused = next(r for r in answers if r.status_code == 429)
    assert 0 < int(refused.headers["Retry-After"]) <= 900
    assert refused.json()["detail"].startswith("Too many failed logins")
    for client in clients:  # the right password too, on either server, until the lockout ends
        assert (
            client.post("/api/auth/login", json={"username": "demo", "password": password}).status_code == 429
        )
    # Locked for guesses from this address; the account's ceiling (50) and the address (5 of 8) are not.
    assert _locks(servers, before) == ["account_from_address"]


@pytest.mark.xdist_group("two_servers")
def test_an_address_is_locked_after_its_limit_of_failures_over_many_accounts(throttled):
    """One guess at each of many accounts, spread over both servers at once: at most the address's
    limit get a password checked, then the address is locked for every account, the right one too."""
    servers, before = throttled
    password = (servers.root / "a" / "demo-login.txt").read_text().strip()
    clients = [httpx.Client(base_url=app.url, timeout=60) for app in servers.apps.values()]

    def guess(index: int) -> httpx.Response:
        return clients[index % 2].post(
            "/api/auth/login", json={"username": f"someone{index}", "password": "guess"}
        )

    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(guess, range(ADDRESS_LIMIT + 6)))
    assert sorted(r.status_code for r in answers) == [401] * ADDRESS_LIMIT + [429] * 6
    for client in clients:
        assert (
            client.post("/api/auth/login", json={"username": "demo", "password": password}).status_code == 429
        )
    assert _locks(servers, before) == ["address"]


@pytest.mark.xdist_group("two_servers")
def test_a_warm_copy_is_reread_when_another_server_wrote_since(shared_servers, scripted_model):
    a, b = shared_servers.client("a"), shared_servers.client("b")
    session_id = a.post("/api/sessions", json={}).json()["id"]
    assert "event: done" in _send(a, session_id, "hello").text  # A keeps the session open
    assert "event: done" in _send(b, session_id, TELL).text  # meanwhile B writes it

    # A's open copy predates B's turn: A must resume from the store, not answer from its copy.
    assert "Your favourite retail segment is 'At Risk'." in _send(a, session_id, ASK).text
    asked = user_messages(scripted_model.requests[-1])
    assert [text.endswith(sent) for text, sent in zip(asked, ["hello", TELL, ASK], strict=True)] == [True] * 3
    assert [m[0] for m in _conversation(b, session_id)] == ["user", "assistant"] * 3


@pytest.mark.xdist_group("two_servers")
def test_a_chat_deleted_on_one_server_while_another_answers_it_is_gone_for_good(
    shared_servers, scripted_model
):
    """The delete takes the lease from A's running turn: A's next renewal fails and it stops the turn,
    and B waits out what A could still have written without asking before removing everything."""
    a, b = shared_servers.client("a"), shared_servers.client("b")
    session_id = a.post("/api/sessions", json={"id": "doomed-chat"}).json()["id"]
    with psycopg.connect(shared_servers.database_url) as conn:  # what the files and the feed are keyed by
        [(stored,)] = conn.execute("SELECT id FROM sessions WHERE public_id = %s", (session_id,)).fetchall()
    assert "event: done" in _send(a, session_id, TELL).text
    scripted_model.script(Text("An answer nobody should keep.", delay=LEASE_TTL * 2, pace=0.5))
    answered: dict[str, httpx.Response] = {}
    turn = threading.Thread(target=lambda: answered.setdefault("a", _send(a, session_id, "go on")))
    turn.start()
    scripted_model.wait_for_requests(2, timeout=30)
    assert b.delete(f"/api/sessions/{session_id}").status_code == 204
    turn.join(60)
    assert 'data: {"message": "This chat was deleted.", "code": "turn_failed"}' in answered["a"].text
    time.sleep(LEASE_TTL * 2)  # kept: until A's model would have answered (nothing may arrive)
    with psycopg.connect(shared_servers.database_url) as conn:
        files = conn.execute("SELECT path FROM session_fs_files WHERE session_id = %s", (stored,))
        assert files.fetchall() == []
        feed = conn.execute("SELECT kind FROM live_events WHERE stream = %s", (f"s:{stored}",))
        assert feed.fetchall() == [("deleted",)]
    assert a.post("/api/sessions", json={"id": session_id}).status_code == 201
    assert _conversation(b, session_id) == []


SWITCH_BOUND = 10.0
"""Seconds within which server B follows a switch made on A: it reads the active-version pointer at
most once a second (``DatasetLibrary.current_path``) and downloads the new file; generous for CI."""
NARNIA = "".join(
    f"\n70000{i},A{i},CANDLE {i},2,2011-03-0{i + 1} 10:00:00,3.50,9000{i},Narnia" for i in range(3)
)


def _answer_readings(response: httpx.Response) -> list[dict[str, object]]:
    """The readings (the tools' answers in words) of the turn's ``done`` event."""
    assert response.status_code == 200, response.text
    blocks = response.text.strip().split("\n\n")
    frames = [dict(line.split(": ", 1) for line in block.splitlines()) for block in blocks]
    (done,) = [json.loads(frame["data"]) for frame in frames if frame.get("event") == "done"]
    return done["readings"]


@pytest.mark.xdist_group("two_servers")
def test_an_import_and_a_restore_on_one_server_are_the_other_servers_data_within_seconds(
    shared_servers, scripted_model
):
    """docs/architecture.md#dataset-versions: B reads the version A switched to, its facts and its
    assistant's tools alike, within ``SWITCH_BOUND``, without a restart or a request to A."""
    a, b = shared_servers.client("a"), shared_servers.client("b")  # demo, the first account: an admin
    assert b.get("/api/datasets").json()["version_id"] == "default"
    header = "InvoiceNo,StockCode,Description,Quantity,InvoiceDate,UnitPrice,CustomerID,Country"
    uploaded = a.post(
        "/api/datasets/uploads",
        params={"name": "narnia.csv"},
        content=(header + NARNIA + "\n").encode(),
        headers={"Content-Type": "text/csv"},
    )
    assert uploaded.status_code == 201, uploaded.text
    preview = uploaded.json()
    body = {"upload_id": preview["upload_id"], "mapping": preview["mapping"], "format": preview["format"]}
    started = a.post("/api/datasets/imports", json={**body, "mode": "replace"})
    assert started.status_code == 202, started.text

    def finished() -> str:
        job = a.get("/api/datasets/imports/current").json()["job"]
        assert job["state"] == "finished", job
        return a.get("/api/datasets").json()["version_id"]

    version = eventually(finished, timeout=60)

    def on_b(expected: str) -> dict[str, object]:
        facts = b.get("/api/datasets").json()
        assert facts["version_id"] == expected, facts["version_id"]
        return facts

    facts = eventually(partial(on_b, version), timeout=SWITCH_BOUND)
    assert (facts["customers"], facts["countries"], facts["rows"]) == (3, 1, 3)

    # B's assistant: its tools read the new version (a country only the import has).
    session_id = b.post("/api/sessions", json={}).json()["id"]
    scripted_model.script(
        ToolCall("retail-analytics-analyze_sales", {"measure": "customers", "countries": ["Narnia"]}),
        Text("Counted."),
    )
    (reading,) = _answer_readings(_send(b, session_id, "How many customers in Narnia?"))
    assert reading["answer"] == "Customers, Narnia, all time: 3 customers."

    # A restore on A: B is back on the generated data as quickly.
    assert a.post("/api/datasets/versions/default/activate").status_code == 200
    facts = eventually(partial(on_b, "default"), timeout=SWITCH_BOUND)
    assert facts["customers"] > 3


@pytest.mark.xdist_group("two_servers")
def test_a_token_revoked_on_one_server_is_refused_by_the_other_at_once(shared_servers):
    a = shared_servers.client("a")
    secret = a.post("/api/tokens", json={"name": "script", "scopes": ["read"]}).json()["secret"]
    on_b = httpx.Client(base_url=shared_servers.apps["b"].url, headers={"Authorization": f"Bearer {secret}"})
    assert on_b.get("/api/sessions").status_code == 200
    (token,) = a.get("/api/tokens").json()
    assert a.delete(f"/api/tokens/{token['id']}").status_code == 204
    refused = on_b.get("/api/sessions")
    assert (refused.status_code, refused.json()["detail"]) == (401, "Invalid, expired or revoked API token.")

"""``python -m agent_orchestrator.web`` as an administrator runs it: one line per outcome, no traceback;
a demo account only where nobody else can reach the server."""

import subprocess
import sys
from pathlib import Path

import pytest

from agent_orchestrator.sessions.store import UserStore, make_engine
from agent_orchestrator.testing.app_process import AppProcess
from agent_orchestrator.testing.environment import clean_environment
from agent_orchestrator.testing.scripted_model import ScriptedModel

pytestmark = pytest.mark.slow  # every test runs the CLI in a process of its own


def _create_user(
    data_dir: Path, username: str, password: str, *flags: str
) -> subprocess.CompletedProcess[str]:
    env = clean_environment(AGENT_ORCHESTRATOR_HOME=str(data_dir))
    env.pop("DATABASE_URL", None)
    return subprocess.run(
        [sys.executable, "-m", "agent_orchestrator.web", "create-user", username, *flags],
        input=password + "\n",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_create_user_refuses_a_taken_name_with_one_line(tmp_path: Path) -> None:
    created = _create_user(tmp_path, "alice", "correct horse battery")
    assert (created.returncode, created.stdout, created.stderr) == (0, "Created user alice (admin).\n", "")
    taken = _create_user(tmp_path, "ALICE", "another password")
    assert taken.returncode == 1 and taken.stdout == ""
    assert taken.stderr == "error: The username ALICE is taken (usernames ignore letter case).\n"


def test_create_user_makes_an_admin_only_when_asked_after_the_first_account(tmp_path: Path) -> None:
    """The first account is the admin; a later one is an analyst unless ``--admin`` is given."""
    outputs = [
        _create_user(tmp_path, name, "correct horse battery", *flags).stdout
        for name, flags in [("alice", ()), ("bob", ()), ("carol", ("--admin",))]
    ]
    assert outputs == [
        "Created user alice (admin).\n",
        "Created user bob (analyst).\n",
        "Created user carol (admin).\n",
    ]
    engine = make_engine(f"sqlite:///{tmp_path / 'catalog.sqlite'}")
    try:
        users = UserStore(engine)
        found = [users.get_by_username(name) for name in ("alice", "bob", "carol")]
    finally:
        engine.dispose()
    assert [(user.username, user.role) for user in found if user] == [
        ("alice", "admin"),
        ("bob", "analyst"),
        ("carol", "admin"),
    ]


def test_create_user_refuses_a_weak_password_with_one_line(tmp_path: Path) -> None:
    weak = _create_user(tmp_path, "alice", "short")
    assert (weak.returncode, weak.stderr) == (1, "error: Passwords have 8 to 1024 characters.\n")


def _serve(tmp_path: Path, scripted_model: ScriptedModel, *args: str) -> tuple[str, bool]:
    """Start ``serve`` with ``args``; its stderr once ready, and whether a demo account exists."""
    env = clean_environment(
        AGENT_ORCHESTRATOR_HOME=str(tmp_path),
        AGENT_PROVIDER_BASE_URL=scripted_model.base_url,
        AGENT_MODEL="scripted-model",
        AGENT_WEB_RETAIL="0",
    )
    env.pop("DATABASE_URL", None)
    tmp_path.mkdir(exist_ok=True)
    app = AppProcess(env, args=args, log=tmp_path / "serve.log")
    try:
        app.start()
    finally:
        app.stop()
    engine = make_engine(f"sqlite:///{tmp_path / 'catalog.sqlite'}")
    try:
        demo = UserStore(engine).get_by_username("demo") is not None
    finally:
        engine.dispose()
    return (tmp_path / "serve.log").read_text(), demo


def test_a_server_others_can_reach_creates_no_demo_account(
    tmp_path: Path, scripted_model: ScriptedModel
) -> None:
    log, demo = _serve(tmp_path, scripted_model, "--host", "0.0.0.0")
    assert not demo and not (tmp_path / "demo-login.txt").exists()
    assert "Demo login" not in log and "create-user" in log
    # docs/architecture.md#host-names: a public name is answered only once it is configured.
    assert "AGENT_WEB_ALLOWED_HOSTS" in log


def test_loopback_or_the_flag_creates_and_prints_the_demo_account(
    tmp_path: Path, scripted_model: ScriptedModel
) -> None:
    log, demo = _serve(tmp_path / "loopback", scripted_model, "--host", "127.0.0.1")
    password = (tmp_path / "loopback" / "demo-login.txt").read_text().strip()
    assert demo and f"Demo login: demo / {password}" in log
    log, demo = _serve(tmp_path / "flagged", scripted_model, "--host", "0.0.0.0", "--demo-user")
    assert demo and "Demo login: demo / " in log


def _demo_can_log_in(data_dir: Path, password: str) -> bool:
    engine = make_engine(f"sqlite:///{data_dir / 'catalog.sqlite'}")
    try:
        return UserStore(engine).authenticate("demo", password) is not None
    finally:
        engine.dispose()


def test_the_demo_password_is_printed_once_and_the_account_disabled_off_loopback(
    tmp_path: Path, scripted_model: ScriptedModel
) -> None:
    first, _ = _serve(tmp_path, scripted_model, "--host", "127.0.0.1")
    password = (tmp_path / "demo-login.txt").read_text().strip()
    assert f"Demo login: demo / {password}" in first
    again, _ = _serve(tmp_path, scripted_model, "--host", "127.0.0.1")
    assert password not in again and f"Demo login: demo (password in {tmp_path / 'demo-login.txt'})" in again
    # Moved to an address others can reach: the known password stops working, and is not kept.
    public, _ = _serve(tmp_path, scripted_model, "--host", "0.0.0.0")
    assert password not in public and "demo account is disabled" in public
    assert not _demo_can_log_in(tmp_path, password) and not (tmp_path / "demo-login.txt").exists()
    # Back on loopback: a new password, printed once.
    back, _ = _serve(tmp_path, scripted_model, "--host", "127.0.0.1")
    renewed = (tmp_path / "demo-login.txt").read_text().strip()
    assert renewed != password and f"Demo login: demo / {renewed}" in back
    assert _demo_can_log_in(tmp_path, renewed)

"""``python -m agent_orchestrator.web`` as an administrator runs it: one line per outcome, no traceback."""

import subprocess
import sys
from pathlib import Path

from agent_orchestrator.testing.environment import clean_environment


def _create_user(data_dir: Path, username: str, password: str) -> subprocess.CompletedProcess[str]:
    env = clean_environment(AGENT_ORCHESTRATOR_HOME=str(data_dir))
    env.pop("DATABASE_URL", None)
    return subprocess.run(
        [sys.executable, "-m", "agent_orchestrator.web", "create-user", username],
        input=password + "\n",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_create_user_refuses_a_taken_name_with_one_line(tmp_path: Path) -> None:
    created = _create_user(tmp_path, "alice", "correct horse battery")
    assert (created.returncode, created.stdout, created.stderr) == (0, "Created user alice.\n", "")
    taken = _create_user(tmp_path, "ALICE", "another password")
    assert taken.returncode == 1 and taken.stdout == ""
    assert taken.stderr == "error: The username ALICE is taken (usernames ignore letter case).\n"


def test_create_user_refuses_a_weak_password_with_one_line(tmp_path: Path) -> None:
    weak = _create_user(tmp_path, "alice", "short")
    assert (weak.returncode, weak.stderr) == (1, "error: Passwords have 8 to 1024 characters.\n")

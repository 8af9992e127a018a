"""``ao`` without a server: its kept login is owner-only, its failures are one line with the documented
exit code, and a chart is written as an aligned table (docs/terminal.md)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_orchestrator.terminal import config, render
from agent_orchestrator.testing.app_process import free_port

AO = Path(sys.executable).with_name("ao")


def run_ao(tmp_path: Path, *args: str, token: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {"AO_CONFIG": str(tmp_path / "ao" / "config.json"), "PATH": "/usr/bin:/bin"}
    env |= {"AO_TOKEN": token} if token else {}
    env["AO_SERVER"] = f"http://127.0.0.1:{free_port()}"  # nobody listens there
    return subprocess.run([str(AO), *args], env=env, capture_output=True, text=True, timeout=60)


def test_the_kept_login_is_owner_only_whatever_the_umask(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("AO_CONFIG", str(tmp_path / "ao" / "config.json"))
    monkeypatch.delenv("AO_TOKEN", raising=False)
    monkeypatch.delenv("AO_SERVER", raising=False)
    previous = os.umask(0)
    try:
        path = config.save(config.Login("http://example.test", "aopat_x", "alice"))
    finally:
        os.umask(previous)
    assert path.stat().st_mode & 0o777 == 0o600 and path.parent.stat().st_mode & 0o777 == 0o700
    assert config.load() == config.Login("http://example.test", "aopat_x", "alice", "")
    monkeypatch.setenv("AO_TOKEN", "aopat_from_env")
    assert config.load().token == "aopat_from_env"
    assert config.forget() and config.load() is not None  # the environment's token still counts
    monkeypatch.delenv("AO_TOKEN")
    assert config.load() is None


@pytest.mark.parametrize(
    ("args", "token", "code", "said"),
    [
        (("chats",), None, 3, "ao: Not logged in: run 'ao login' (or set AO_TOKEN).\n"),
        (("ask", "hi"), "aopat_whatever", 6, "ao: Cannot reach http://127.0.0.1:"),
        (("login", "--token", "aopat_x"), None, 6, "ao: Cannot reach http://127.0.0.1:"),
    ],
)
def test_a_failure_is_one_line_and_its_exit_code(tmp_path, args, token, code, said) -> None:
    done = run_ao(tmp_path, *args, token=token)
    assert done.returncode == code
    assert done.stderr.startswith(said) and done.stderr.count("\n") == 1, done.stderr
    assert done.stdout == ""


def test_a_chart_is_an_aligned_table_with_its_readings_above() -> None:
    done = {
        "readings": [{"reading": "Revenue · by month · 2025", "answer": None}],
        "charts": [
            {
                "title": "Revenue by month",
                "category": "Month",
                "labels": ["2025-01", "2025-02"],
                "series": [
                    {"label": "Revenue", "values": [1234.5, 99.0]},
                    {"label": "Orders", "values": [12, 3]},
                ],
            }
        ],
    }
    assert render.extras(done) == [
        "Read as: Revenue · by month · 2025",
        "",
        "Revenue by month",
        "Month     Revenue  Orders",
        "-------  --------  ------",
        "2025-01  1,234.50      12",
        "2025-02        99       3",
    ]

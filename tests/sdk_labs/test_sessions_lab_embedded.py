"""Lab 05 on the default route: the real Copilot CLI in offline mode and the embedded local model."""

import re

import pytest

pytestmark = pytest.mark.real_model


def test_embedded_model_remembers_at_risk_across_processes(run_embedded_lab):
    first = run_embedded_lab("sessions", timeout=600)
    assert first.returncode == 0, first.stderr
    assert "Route: embedded local model at http://127.0.0.1:" in first.stderr
    assert "Model: qwen2.5-coder-0.5b-instruct" in first.stdout
    turn_2 = first.stdout.split("--- Turn 2 (resumed session) ---")[1]
    assert "at risk" in turn_2.lower(), first.stdout
    session_id = re.search(r"Session id: (\S+)", first.stdout).group(1)

    second = run_embedded_lab("sessions", "--resume", session_id, timeout=600)
    assert second.returncode == 0, second.stderr
    assert "--- Turn 1" not in second.stdout
    assert "at risk" in second.stdout.split("You: Which retail segment")[1].lower(), second.stdout

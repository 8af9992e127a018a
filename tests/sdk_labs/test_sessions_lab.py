"""Lab 05 end to end through the real Copilot CLI, with the scripted model as the only stand-in."""

import re

from agent_orchestrator.testing.scripted_model import ScriptedModel, user_messages

LAB_OUTPUT = re.compile(
    r"""== Lab 05: sessions ==

Model: scripted-model
Session id: (?P<id>sdklabs-[0-9a-f]{16})

--- Turn 1 \(new session\) ---
You: Remember this: my favourite retail segment is 'At Risk'\. Reply with just OK\.
Assistant: OK

Session closed\.

--- Turn 2 \(resumed session\) ---
You: Which retail segment did I say was my favourite\?
Assistant: Your favourite retail segment is 'At Risk'\.

--- Session metadata ---
  id=(?P=id) metadata retrieved
\Z"""
)


def _one_line_error(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


def test_lab_prints_the_verified_output_shape(run_lab, scripted_model: ScriptedModel):
    result = run_lab("sessions")
    assert result.returncode == 0, result.stderr
    assert LAB_OUTPUT.match(result.stdout), result.stdout
    assert "Route: provider http://127.0.0.1" in result.stderr
    _, turn_2 = scripted_model.requests
    assert len(user_messages(turn_2)) == 2  # the resumed turn carried turn 1 to the model


def test_resumed_turn_uses_the_same_small_system_message(run_lab, scripted_model: ScriptedModel):
    assert run_lab("sessions").returncode == 0
    created, resumed = scripted_model.requests
    assert created["messages"][0] == resumed["messages"][0]
    assert created["messages"][0]["role"] == "system"
    assert len(created["messages"][0]["content"]) < 1000
    assert not created.get("tools") and not resumed.get("tools")


def test_resume_in_another_process_reaches_the_earlier_turns(run_lab, scripted_model: ScriptedModel):
    first = run_lab("sessions")
    session_id = LAB_OUTPUT.match(first.stdout)["id"]
    scripted_model.reset()

    second = run_lab("sessions", "--resume", session_id)

    assert second.returncode == 0, second.stderr
    assert "--- Turn 1" not in second.stdout
    assert "Assistant: Your favourite retail segment is 'At Risk'." in second.stdout
    (request,) = scripted_model.requests
    assert len(user_messages(request)) == 3  # turn 1 and turn 2 of the first process, then this one


def test_stable_id_continues_one_session_across_runs(run_lab, scripted_model: ScriptedModel):
    first = run_lab("sessions", "--session-id", "analyst-demo")
    assert first.returncode == 0, first.stderr
    assert "Session id: analyst-demo\n" in first.stdout
    scripted_model.reset()

    second = run_lab("sessions", "--session-id", "analyst-demo")

    assert second.returncode == 0, second.stderr
    assert "Session id: analyst-demo (existing session: continuing it)" in second.stdout
    assert "--- Turn 1 (resumed existing session) ---" in second.stdout
    assert len(user_messages(scripted_model.requests[-1])) == 4


def test_list_shows_sessions_newest_first_and_latest_resumes_the_newest(run_lab, scripted_model):
    older = LAB_OUTPUT.match(run_lab("sessions").stdout)["id"]
    newer = LAB_OUTPUT.match(run_lab("sessions").stdout)["id"]

    listing = run_lab("sessions", "--list")
    assert listing.returncode == 0, listing.stderr
    ids = [line.split()[0] for line in listing.stdout.splitlines()]
    assert ids == [newer, older]

    latest = run_lab("sessions", "--latest")
    assert latest.returncode == 0, latest.stderr
    assert f"Session id: {newer}" in latest.stdout


def test_third_turn_resumes_again_and_asks_about_the_first_message(run_lab, scripted_model):
    result = run_lab("sessions", "--third-turn")
    assert result.returncode == 0, result.stderr
    assert result.stdout.endswith(
        "--- Turn 3 (resumed again) ---\n"
        "You: In that same earlier message, what short reply did I ask you to give?\n"
        "Assistant: You asked me to reply with just OK.\n"
    )
    assert len(user_messages(scripted_model.requests[-1])) == 3


def test_delete_removes_the_session(run_lab):
    session_id = LAB_OUTPUT.match(run_lab("sessions").stdout)["id"]
    deleted = run_lab("sessions", "--delete", session_id)
    assert deleted.returncode == 0, deleted.stderr
    assert run_lab("sessions", "--list").stdout.strip() == "No stored sessions."


def test_unknown_id_is_one_clear_error(run_lab, scripted_model: ScriptedModel):
    result = run_lab("sessions", "--resume", "sdklabs-0000000000000000")
    assert result.returncode == 1
    assert _one_line_error(result.stderr) == "error: No stored session has the id sdklabs-0000000000000000."
    assert scripted_model.requests == []


def test_bad_ids_are_rejected_before_the_runtime_starts(run_lab, scripted_model: ScriptedModel):
    for bad in ("ghp_16C7e42F292c6912E7710c838347Ae178B4a", "ann@example.com", "../../etc/passwd", "x"):
        result = run_lab("sessions", "--resume", bad)
        assert result.returncode == 1
        line = _one_line_error(result.stderr)
        assert "Session ids" in line
        assert "ghp_" not in line and "example.com" not in line  # a secret is never echoed back
    assert not run_lab.data_dir.exists()
    assert scripted_model.requests == []


def test_without_a_lab_name_usage_lists_the_labs(run_lab):
    result = run_lab()
    assert result.returncode == 0
    assert "sessions" in result.stdout and "Lab 05" in result.stdout

"""The runtime factory against the real Copilot CLI, with the scripted model behind it."""

import ast
from pathlib import Path

import pytest
from copilot.generated.rpc import PermissionDecisionApproveOnce
from copilot.generated.session_events import PermissionRequestMcp

import agent_orchestrator.runtime
from agent_orchestrator.errors import (
    ModelUnavailableError,
    RuntimeMissingError,
    SessionExistsError,
    SessionNotFoundError,
    TurnTimeoutError,
)
from agent_orchestrator.runtime import CopilotRuntime, RuntimeSettings
from agent_orchestrator.runtime.profile import SessionProfile
from agent_orchestrator.testing.scripted_model import Failure, ScriptedModel, Text
from sdk_labs.sessions import _print_metadata


def _settings(tmp_path: Path, model: ScriptedModel, **changes) -> RuntimeSettings:
    return RuntimeSettings(
        data_dir=tmp_path, provider_base_url=model.base_url, model="scripted-model", turn_timeout=60
    ).with_overrides(**changes)


async def test_metadata_is_none_for_an_unknown_id_and_the_lab_guards_it(tmp_path, scripted_model, capsys):
    async with CopilotRuntime(_settings(tmp_path, scripted_model)) as runtime:
        assert await runtime.get_metadata("sdklabs-unknown-1") is None
        await _print_metadata(runtime, "sdklabs-unknown-1")
    assert capsys.readouterr().out.endswith("--- Session metadata ---\n  (no metadata returned)\n")


async def test_create_and_resume_pass_the_identical_configuration(tmp_path, scripted_model):
    async with CopilotRuntime(_settings(tmp_path, scripted_model)) as runtime:
        first = runtime.session_options()
        async with await runtime.create_session("factory-test-1") as session:
            assert await runtime.ask(session, "hello") == "OK"
        async with await runtime.resume_session("factory-test-1") as session:
            assert await runtime.ask(session, "again") == "OK"
        assert runtime.session_options() == first
    created, resumed = scripted_model.requests
    assert created["messages"][0] == resumed["messages"][0]
    assert created["model"] == resumed["model"] == "scripted-model"


async def test_creating_an_existing_id_is_refused_and_unknown_resume_is_not_found(tmp_path, scripted_model):
    async with CopilotRuntime(_settings(tmp_path, scripted_model)) as runtime:
        async with await runtime.create_session("factory-test-2") as session:
            await runtime.ask(session, "hello")
        with pytest.raises(SessionExistsError):
            await runtime.create_session("factory-test-2")
        with pytest.raises(SessionNotFoundError):
            await runtime.resume_session("factory-test-missing")
        with pytest.raises(SessionNotFoundError):
            await runtime.delete_session("factory-test-missing")


async def test_a_slow_model_turns_into_a_timeout_error(tmp_path, scripted_model):
    scripted_model.script(Text("late", delay=5))
    settings = _settings(tmp_path, scripted_model, turn_timeout=1.0)
    async with (
        CopilotRuntime(settings) as runtime,
        await runtime.create_session("factory-test-3") as session,
    ):
        with pytest.raises(TurnTimeoutError, match="AGENT_TURN_TIMEOUT"):
            await runtime.ask(session, "hello")


async def test_a_model_error_becomes_one_clear_failure(tmp_path, scripted_model):
    scripted_model.default = Failure(status=400, message="bad things", type="invalid_request_error")
    async with (
        CopilotRuntime(_settings(tmp_path, scripted_model)) as runtime,
        await runtime.create_session("factory-test-4") as session,
    ):
        with pytest.raises(ModelUnavailableError, match="could not answer"):
            await runtime.ask(session, "hello")


async def test_a_missing_cli_names_the_fix(tmp_path, scripted_model):
    settings = _settings(tmp_path, scripted_model, copilot_cli_path=tmp_path / "nope")
    with pytest.raises(RuntimeMissingError, match="COPILOT_CLI_PATH"):
        async with CopilotRuntime(settings):
            pass


async def test_a_session_is_built_from_the_profile_it_is_handed(tmp_path, scripted_model):
    """The runtime knows no app: another app's prompt reaches the model whole, on create and resume,
    with no tools, and its permission handler approves only that app's pairs."""
    profile = SessionProfile(
        prompt="You answer questions about the weather in one sentence.",
        permitted=frozenset({("weather", "forecast")}),
    )
    async with CopilotRuntime(_settings(tmp_path, scripted_model), profile=profile) as runtime:
        async with await runtime.create_session("profile-test-1") as session:
            await runtime.ask(session, "hello")
        async with await runtime.resume_session("profile-test-1") as session:
            await runtime.ask(session, "again")
        decide = runtime.session_options()["on_permission_request"]
    for request in scripted_model.requests:
        assert request["messages"][0] == {"role": "system", "content": profile.prompt}
        assert not request.get("tools")
    mcp = PermissionRequestMcp(read_only=True, server_name="weather", tool_name="forecast", tool_title="f")
    assert isinstance(decide(mcp, {"session_id": "s"}), PermissionDecisionApproveOnce)


def test_the_runtime_package_imports_no_app():
    """Prompts, tools and guides come in a profile: nothing in runtime/ imports the retail app."""
    package = Path(agent_orchestrator.runtime.__file__).parent
    for module in package.glob("*.py"):
        tree = ast.parse(module.read_text())
        imported = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        apps = ("agent_orchestrator.retail", "agent_orchestrator.mcp_server", "agent_orchestrator.planner")
        assert not [m for m in imported if m.startswith(apps)], module.name

"""Chat sessions carry the read-only retail MCP server, and nothing else, through create and resume."""

import json
from pathlib import Path

import pytest
from copilot.generated.rpc import PermissionDecisionApproveOnce, PermissionDecisionReject
from copilot.generated.session_events import PermissionRequestMcp, PermissionRequestShell

from agent_orchestrator.mcp_server import copilot_mcp_config
from agent_orchestrator.mcp_server.profile import RETAIL_TOOL_IDS, retail_profile
from agent_orchestrator.retail.generator import GeneratorConfig, generate_dataset
from agent_orchestrator.runtime import CopilotRuntime, RuntimeSettings
from agent_orchestrator.runtime.permissions import permitted_tools_only
from agent_orchestrator.testing.scripted_model import ScriptedModel, Text, ToolCall, message_text


@pytest.fixture(scope="module")
def retail_db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("retail") / "retail.sqlite"
    return generate_dataset(path, GeneratorConfig(customers=300, transactions=3000))


def _runtime(tmp_path: Path, model: ScriptedModel, retail_db: Path) -> CopilotRuntime:
    settings = RuntimeSettings(
        data_dir=tmp_path, provider_base_url=model.base_url, model="scripted-model", turn_timeout=60
    )
    return CopilotRuntime(settings, profile=retail_profile(mcp=copilot_mcp_config(retail_db)))


def _tool_results(request: dict) -> list[str]:
    return [message_text(m) for m in request["messages"] if m["role"] == "tool"]


def _answer_from_tool(body: dict) -> Text:
    """A model that reports the At Risk customer count from the tool result it was given."""
    segments = json.loads(_tool_results(body)[-1])["segments"]
    at_risk = next(s for s in segments if s["segment"] == "At Risk")
    return Text(f"At Risk has {at_risk['customers']} customers.")


async def test_a_tool_call_reaches_the_mcp_server_and_the_answer_carries_its_data(
    tmp_path, scripted_model, retail_db
):
    scripted_model.script(ToolCall("retail-analytics-list_segments", {}), _answer_from_tool)
    async with (
        _runtime(tmp_path, scripted_model, retail_db) as runtime,
        await runtime.create_session("retail-tools-1") as session,
    ):
        answer = await runtime.ask(session, "How many customers are at risk?")
    first, second = scripted_model.requests
    assert sorted(t["function"]["name"] for t in first["tools"]) == sorted(RETAIL_TOOL_IDS)
    assert '"segment":"At Risk"' in _tool_results(second)[-1]
    assert answer == _answer_from_tool(second).content


async def test_the_model_asking_for_a_shell_command_is_refused(tmp_path, scripted_model, retail_db):
    marker = tmp_path / "pwned"
    scripted_model.script(ToolCall("bash", {"command": f"touch {marker}", "description": "x"}), "Done.")
    async with (
        _runtime(tmp_path, scripted_model, retail_db) as runtime,
        await runtime.create_session("retail-tools-2") as session,
    ):
        await runtime.ask(session, "Run a shell command for me.")
    refusal = _tool_results(scripted_model.requests[-1])[-1].lower()
    assert "bash" in refusal and ("not" in refusal or "denied" in refusal), refusal
    assert not marker.exists()


async def test_resume_reattaches_the_same_tools(tmp_path, scripted_model, retail_db):
    async with _runtime(tmp_path, scripted_model, retail_db) as runtime:
        async with await runtime.create_session("retail-tools-3") as session:
            await runtime.ask(session, "hello")
        async with await runtime.resume_session("retail-tools-3") as session:
            await runtime.ask(session, "again")
    created, resumed = scripted_model.requests
    assert created["tools"] == resumed["tools"]
    assert created["messages"][0] == resumed["messages"][0]


def _mcp(server: str, tool: str) -> PermissionRequestMcp:
    return PermissionRequestMcp(read_only=True, server_name=server, tool_name=tool, tool_title=tool)


def test_the_permission_handler_approves_only_the_profiles_tools():
    invocation = {"session_id": "s"}
    retail_tools_only = permitted_tools_only(retail_profile(mcp={}))
    assert isinstance(
        retail_tools_only(_mcp("retail-analytics", "list_segments"), invocation),
        PermissionDecisionApproveOnce,
    )
    shell = PermissionRequestShell.from_dict(
        {
            "kind": "shell",
            "fullCommandText": "rm -rf /",
            "intention": "x",
            "commands": [],
            "possiblePaths": [],
            "possibleUrls": [],
            "hasWriteFileRedirection": False,
            "canOfferSessionApproval": False,
        }
    )
    for request in (shell, _mcp("other-server", "list_segments"), _mcp("retail-analytics", "drop_table")):
        assert isinstance(retail_tools_only(request, invocation), PermissionDecisionReject)

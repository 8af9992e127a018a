"""The Copilot CLI, and the stdio MCP server it starts, get only the environment they need: this
process's secrets stay out of ``/proc/<pid>/environ`` (docs/architecture.md#runtime)."""

import os
import time
from pathlib import Path

import pytest

from agent_orchestrator.mcp_server import copilot_mcp_config
from agent_orchestrator.mcp_server.profile import retail_profile
from agent_orchestrator.retail.generator import GeneratorConfig, generate_dataset
from agent_orchestrator.runtime import CopilotRuntime, RuntimeSettings
from agent_orchestrator.testing.scripted_model import ScriptedModel, ToolCall

SECRETS = {
    "AGENT_MASTER_KEY": "master-key-that-must-not-leak",
    "DATABASE_URL": "postgresql://app:db-password-that-must-not-leak@db/agent",
    "AGENT_KEYSTORE_URL": "postgresql://keys:keystore-password-that-must-not-leak@db/keys",
    "AGENT_PROVIDER_API_KEY": "provider-key-that-must-not-leak",
    "SOME_UNRELATED_SECRET": "anything-the-parent-happens-to-hold",
}


def _environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().decode(errors="replace")
    return dict(entry.split("=", 1) for entry in raw.split("\0") if "=" in entry)


def _children(pid: int) -> list[int]:
    tasks = Path(f"/proc/{pid}/task").iterdir()
    return [int(child) for task in tasks for child in (task / "children").read_text().split()]


def _cmdline(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")


def _cli_and_its_mcp_server(wait: float = 10.0) -> tuple[int, int]:
    """The CLI is the headless child that started the MCP server (a browser of another test in this
    process may be a headless child too). Looked for during a few seconds: a CI run on a machine twice as
    slow as usual once found none right after the answer."""
    deadline = time.monotonic() + wait
    while True:
        found = [
            (pid, server)
            for pid in _children(os.getpid())
            if "--headless" in _cmdline(pid)
            for server in _children(pid)
            if "agent_orchestrator.mcp_server" in _cmdline(server)
        ]
        if len(found) == 1 or time.monotonic() > deadline:
            ((cli, mcp),) = found
            return cli, mcp
        time.sleep(0.2)


def _leaks(environ: dict[str, str]) -> list[str]:
    return [name for name, value in SECRETS.items() if name in environ or value in environ.values()]


async def test_secrets_of_this_process_reach_neither_the_cli_nor_its_mcp_server(
    tmp_path: Path, scripted_model: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    db = generate_dataset(tmp_path / "retail.sqlite", GeneratorConfig(customers=50, transactions=300))
    settings = RuntimeSettings(
        data_dir=tmp_path, provider_base_url=scripted_model.base_url, model="scripted-model", turn_timeout=60
    )
    scripted_model.script(ToolCall("retail-analytics-list_segments", {}), "Four segments.")
    async with (
        CopilotRuntime(settings, profile=retail_profile(mcp=copilot_mcp_config(db))) as runtime,
        await runtime.create_session("cli-environment-1") as session,
    ):
        assert await runtime.ask(session, "Which segments are there?") == "Four segments."
        cli, mcp = _cli_and_its_mcp_server()
        cli_env, mcp_env = _environ(cli), _environ(mcp)

    assert _leaks(cli_env) == [] and _leaks(mcp_env) == []
    assert cli_env["HOME"] == os.environ["HOME"] and cli_env["PATH"] == os.environ["PATH"]
    assert cli_env["COPILOT_HOME"] == str(settings.copilot_home)
    assert cli_env["COPILOT_OFFLINE"] == "true"
    assert '"segment":"At Risk"' in str(scripted_model.requests[-1]["messages"])  # the MCP server answered

"""The embedded route: the model server answers only the runtime's CLI, which gets the server's token as
the provider key, and the token stays out of the session's files (docs/architecture.md#offline-route)."""

from pathlib import Path

import httpx
import pytest

from agent_orchestrator.runtime import CopilotRuntime, RuntimeSettings

pytestmark = pytest.mark.real_model


async def test_the_cli_answers_through_a_model_server_that_wants_its_token(
    tmp_path: Path, model_weights: Path
) -> None:
    settings = RuntimeSettings(data_dir=tmp_path, local_model_path=model_weights, turn_timeout=600)
    async with CopilotRuntime(settings) as runtime, httpx.AsyncClient() as http:
        provider = runtime.session_options()["provider"]
        models = f"{provider['base_url']}/models"
        assert (await http.get(models)).status_code == 401
        token = provider["api_key"]
        assert len(token) >= 32
        assert (await http.get(models, headers={"Authorization": f"Bearer {token}"})).status_code == 200
        async with await runtime.create_session("embedded-token-1") as session:
            assert await runtime.ask(session, "Reply with just OK.")
        async with await runtime.resume_session("embedded-token-1") as session:
            assert await runtime.ask(session, "Reply with just OK again.")

    stored = [path for path in settings.copilot_home.rglob("*") if path.is_file()]
    assert stored and not [path for path in stored if token.encode() in path.read_bytes()]


async def test_a_configured_token_is_the_one_the_server_wants(tmp_path: Path, model_weights: Path) -> None:
    settings = RuntimeSettings(
        data_dir=tmp_path, local_model_path=model_weights, local_model_token="configured-model-token"
    )
    async with CopilotRuntime(settings) as runtime, httpx.AsyncClient() as http:
        provider = runtime.session_options()["provider"]
        assert provider["api_key"] == "configured-model-token"
        sent = {"Authorization": "Bearer configured-model-token"}
        assert (await http.get(f"{provider['base_url']}/models", headers=sent)).status_code == 200

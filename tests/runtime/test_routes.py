"""Route selection order and settings parsing (no runtime needed)."""

from pathlib import Path

import pytest

from agent_orchestrator.runtime.routes import DEFAULT_COPILOT_MODEL, byok_route, copilot_route, plan_route
from agent_orchestrator.settings import RuntimeSettings, load_settings


def test_provider_url_wins_over_token_and_token_over_embedded():
    env = {"AGENT_PROVIDER_BASE_URL": "http://127.0.0.1:1/v1", "AGENT_MODEL": "m", "GH_TOKEN": "t"}
    assert plan_route(load_settings(env).runtime) == "byok"
    assert plan_route(load_settings({"GITHUB_TOKEN": "t"}).runtime) == "copilot"
    assert plan_route(load_settings({}).runtime) == "embedded"


def test_copilot_route_defaults_to_the_labs_model():
    route = copilot_route(load_settings({"COPILOT_GITHUB_TOKEN": "t"}).runtime)
    assert route.model == DEFAULT_COPILOT_MODEL == "claude-haiku-4.5"
    assert route.github_token == "t" and not route.offline


def test_byok_route_carries_type_key_and_model():
    settings = load_settings(
        {
            "AGENT_PROVIDER_BASE_URL": "https://example.invalid/v1",
            "AGENT_PROVIDER_TYPE": "azure",
            "AGENT_PROVIDER_API_KEY": "k",
            "AGENT_MODEL": "gpt-x",
        }
    ).runtime
    route = byok_route(settings)
    assert route.provider == {"type": "azure", "base_url": "https://example.invalid/v1", "api_key": "k"}
    assert route.offline and route.model == "gpt-x"
    assert route.describe() == "Route: provider https://example.invalid/v1 (runtime offline), model gpt-x"


def test_byok_without_a_model_is_a_clear_error():
    settings = RuntimeSettings(data_dir=Path("."), provider_base_url="http://127.0.0.1:1/v1")
    with pytest.raises(ValueError, match="needs a model id"):
        byok_route(settings)


def test_unknown_provider_type_is_refused():
    with pytest.raises(ValueError, match="AGENT_PROVIDER_TYPE"):
        load_settings({"AGENT_PROVIDER_TYPE": "llama"})


def test_state_lives_in_the_project_data_dir_not_the_users_home(tmp_path: Path):
    settings = load_settings({"AGENT_ORCHESTRATOR_HOME": str(tmp_path)}).runtime
    assert settings.copilot_home == tmp_path / "copilot"
    assert ".copilot" not in str(settings.copilot_home)

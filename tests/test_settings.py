"""Settings: one place reads the environment, a given mapping is honoured for every field, and
constructing a section by keyword reads nothing."""

import re
import socket
from pathlib import Path

import pytest

from agent_orchestrator.settings import (
    SettingsError,
    WebSettings,
    allowed_environment,
    child_environment,
    load_settings,
)

EVERY_VARIABLE = {
    "AGENT_ORCHESTRATOR_HOME": "/srv/agent",
    "DATABASE_URL": "postgresql://app@db/agent",
    "RETAIL_DB": "/srv/retail.sqlite",
    "AGENT_PROVIDER_BASE_URL": "http://llm.internal/v1",
    "AGENT_PROVIDER_TYPE": "azure",
    "AGENT_PROVIDER_API_KEY": "key",
    "AGENT_PROVIDER_MAX_PROMPT_TOKENS": "4000",
    "AGENT_PROVIDER_MAX_OUTPUT_TOKENS": "500",
    "AGENT_MODEL": "gpt-x",
    "GH_TOKEN": "token",
    "AGENT_LOCAL_MODEL": "1.5b",
    "AGENT_MODEL_PATH": "/models/mine.gguf",
    "AGENT_LOCAL_MODEL_CTX": "4096",
    "AGENT_LOCAL_MODEL_TOKEN": "model-token",
    "AGENT_TURN_TIMEOUT": "90",
    "COPILOT_CLI_PATH": "/opt/copilot",
    "HF_HUB_OFFLINE": "1",
    "HF_ENDPOINT": "http://hub.internal",
    "AGENT_WEB_HOST": "0.0.0.0",
    "AGENT_WEB_PORT": "9000",
    "AGENT_WEB_SECURE_COOKIES": "1",
    "AGENT_WEB_LEASE_TTL": "12.5",
    "AGENT_WEB_RETAIL": "0",
    "AGENT_SERVER_ID": "web-1",
    "TEST_POSTGRES_URL": "postgresql://other@db/test",
    "CI": "true",
}


def test_a_given_mapping_is_honoured_for_every_field(monkeypatch: pytest.MonkeyPatch) -> None:
    """The process's own environment says something else for every variable; only the mapping counts."""
    for name in EVERY_VARIABLE:
        monkeypatch.setenv(name, "from-the-process")

    settings = load_settings(EVERY_VARIABLE)

    assert settings.data_dir == Path("/srv/agent")
    assert settings.database_url == "postgresql+psycopg://app@db/agent"
    assert settings.retail_db == Path("/srv/retail.sqlite")
    runtime = settings.runtime
    assert runtime.data_dir == Path("/srv/agent")
    assert (runtime.provider_base_url, runtime.provider_type, runtime.provider_api_key, runtime.model) == (
        "http://llm.internal/v1",
        "azure",
        "key",
        "gpt-x",
    )
    assert (runtime.provider_max_prompt_tokens, runtime.provider_max_output_tokens) == (4000, 500)
    assert runtime.github_token == "token"
    assert runtime.local_model == "1.5b" and runtime.local_model_path == Path("/models/mine.gguf")
    assert runtime.local_model_ctx == 4096 and runtime.turn_timeout == 90.0
    assert runtime.local_model_token == "model-token"
    assert runtime.copilot_cli_path == Path("/opt/copilot")
    assert runtime.hub.offline and runtime.hub.endpoint == "http://hub.internal"
    web = settings.web
    assert web.data_dir == Path("/srv/agent")
    assert web.database_url == "postgresql+psycopg://app@db/agent"
    assert (web.host, web.port, web.lease_ttl, web.server_id) == ("0.0.0.0", 9000, 12.5, "web-1")
    assert web.secure_cookies and not web.retail_dataset
    assert settings.testing.postgres_url == "postgresql://other@db/test"
    assert settings.testing.postgres_required


def test_database_url_comes_from_the_given_mapping(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Used to come from the process's environment whatever mapping the web settings were given."""
    monkeypatch.delenv("DATABASE_URL", raising=False)

    settings = load_settings(
        {"AGENT_ORCHESTRATOR_HOME": str(tmp_path), "DATABASE_URL": "postgresql://u@db/app"}
    )

    assert settings.web.database_url == settings.database_url == "postgresql+psycopg://u@db/app"


def test_defaults_when_nothing_is_set(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)

    settings = load_settings({"AGENT_WEB_HOST": "", "AGENT_MODEL": ""})  # empty means not set

    assert settings.data_dir == tmp_path / ".data"
    assert settings.database_url == f"sqlite:///{tmp_path / '.data' / 'catalog.sqlite'}"
    assert settings.retail_db is None
    runtime = settings.runtime
    assert runtime.provider_base_url is None and runtime.provider_type == "openai" and runtime.model is None
    assert runtime.github_token is None and runtime.copilot_cli_path is None
    assert (runtime.local_model, runtime.local_model_path, runtime.local_model_ctx) == ("0.5b", None, 8192)
    assert runtime.turn_timeout == 600.0
    assert not runtime.hub.offline and runtime.hub.endpoint == "https://huggingface.co"
    web = settings.web
    assert (web.host, web.port, web.lease_ttl, web.secure_cookies, web.retail_dataset) == (
        "127.0.0.1",
        8000,
        30.0,
        False,
        True,
    )
    assert web.server_id.startswith(f"{socket.gethostname()}:")
    assert settings.testing.postgres_url == "postgresql://postgres@127.0.0.1:5432/test"
    assert not settings.testing.postgres_required


def test_the_first_token_variable_that_is_set_wins() -> None:
    tokens = {"COPILOT_GITHUB_TOKEN": "", "GH_TOKEN": "gh", "GITHUB_TOKEN": "github"}
    assert load_settings(tokens).runtime.github_token == "gh"
    assert load_settings(tokens | {"COPILOT_GITHUB_TOKEN": "copilot"}).runtime.github_token == "copilot"


@pytest.mark.parametrize(
    ("variable", "value", "field", "expected"),
    [
        ("AGENT_WEB_SECURE_COOKIES", "yes", "secure_cookies", True),
        ("AGENT_WEB_SECURE_COOKIES", "on", "secure_cookies", False),
        ("AGENT_WEB_RETAIL", "false", "retail_dataset", False),
        ("AGENT_WEB_RETAIL", "off", "retail_dataset", True),
    ],
)
def test_switches_read_as_they_always_have(variable: str, value: str, field: str, expected: bool) -> None:
    assert getattr(load_settings({variable: value}).web, field) is expected


def test_a_bad_value_is_one_line_naming_the_variable() -> None:
    with pytest.raises(SettingsError) as info:
        load_settings({"AGENT_WEB_PORT": "eighty"})

    assert "\n" not in str(info.value)
    assert "AGENT_WEB_PORT='eighty'" in str(info.value)


def test_trusted_proxies_are_addresses_or_networks_and_none_by_default() -> None:
    assert load_settings({}).web.trusted_proxies == ""
    given = load_settings({"AGENT_WEB_TRUSTED_PROXIES": " 10.0.0.0/8, 2001:db8::1 "}).web.trusted_proxies
    assert given == "10.0.0.0/8,2001:db8::1"
    with pytest.raises(SettingsError) as info:
        load_settings({"AGENT_WEB_TRUSTED_PROXIES": "10.0.0.0/8, balancer.internal"})
    assert "AGENT_WEB_TRUSTED_PROXIES" in str(info.value) and "balancer.internal" in str(info.value)


def test_sections_built_by_keyword_read_no_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("AGENT_WEB_PORT", "1")

    web = WebSettings(data_dir=tmp_path, database_url="sqlite://")

    assert web.port == 8000


def test_secrets_stay_out_of_the_settings_repr() -> None:
    settings = load_settings(
        {"AGENT_PROVIDER_API_KEY": "sk-secret", "GH_TOKEN": "ghp-secret", "AGENT_LOCAL_MODEL_TOKEN": "secret"}
    )
    assert "secret" not in repr(settings)


def test_child_environment_drops_what_it_is_told(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GH_TOKEN", "t")
    monkeypatch.setenv("AGENT_MODEL", "m")
    monkeypatch.setenv("KEEP_ME", "k")

    env = child_environment(drop=("GH_TOKEN",), drop_prefixes=("AGENT_",), EXTRA="e")

    assert "GH_TOKEN" not in env and "AGENT_MODEL" not in env
    assert env["KEEP_ME"] == "k" and env["EXTRA"] == "e"


def test_allowed_environment_keeps_only_what_it_is_told(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KEEP_ME", "k")
    monkeypatch.setenv("KEPT_BY_PREFIX", "p")
    monkeypatch.setenv("AGENT_MASTER_KEY", "secret")

    env = allowed_environment(("KEEP_ME", "NOT_SET"), ("KEPT_BY_",), EXTRA="e")

    assert env == {"KEEP_ME": "k", "KEPT_BY_PREFIX": "p", "EXTRA": "e"}


def test_only_the_settings_module_reads_the_environment() -> None:
    src = Path(__file__).parents[1] / "src"
    readers = [
        str(path.relative_to(src))
        for path in sorted(src.rglob("*.py"))
        if path != src / "agent_orchestrator" / "settings.py"
        if re.search(r"os\.environ|getenv|from os import", path.read_text())
    ]
    assert readers == []


def test_allowed_hosts_are_names_and_none_by_default() -> None:
    assert load_settings({}).web.host_names == ()
    given = load_settings({"AGENT_WEB_ALLOWED_HOSTS": " App.Example.com., agent.internal:8443 "}).web
    assert given.host_names == ("app.example.com", "agent.internal:8443")
    with pytest.raises(SettingsError) as info:
        load_settings({"AGENT_WEB_ALLOWED_HOSTS": "https://app.example.com/"})
    assert "AGENT_WEB_ALLOWED_HOSTS" in str(info.value)

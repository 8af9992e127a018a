"""The process's settings, and the only module that reads the environment.

Every entry point (web app, labs, CLIs) calls :func:`load_settings` once at start and passes the parts
down (``settings.runtime`` to the Copilot runtime, ``settings.web`` to the web app, ...). Nothing else
reads ``os.environ``: a test hands :func:`load_settings` a mapping and every field comes from that
mapping, or it constructs a section by keyword (``RuntimeSettings(data_dir=tmp_path)``), which reads
nothing at all. Child processes get their environment from :func:`child_environment` (all but some
variables) or :func:`allowed_environment` (only some), also here.

Each section is a pydantic-settings class whose fields name their variable (``validation_alias``), with
the default that applies when it is unset or empty; fields without a variable are filled by
:func:`load_settings` (the shared data dir and catalog URL) or keep their default. The variables are the
ones the README lists; an invalid value is one :class:`SettingsError` line naming the variable.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    AfterValidator,
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
)
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

ProviderType = Literal["openai", "azure", "anthropic"]
# Where the Copilot route's token may come from, first set wins; also kept out of child processes.
TOKEN_VARIABLES = ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN")
# Two cores decode the 0.5B model at ~40 tok/s and prefill a few hundred tok/s: a turn that compacts a
# long conversation can take minutes, so the SDK's 60 s default would abort healthy turns.
DEFAULT_TURN_TIMEOUT = 600.0


class SettingsError(ValueError):
    """An environment variable has a value the app cannot use. The message is one line."""


def _on_when(*values: str, fold_case: bool = False) -> BeforeValidator:
    """An on/off variable that is on exactly when its value is one of ``values`` (anything else is off)."""

    def parse(value: Any) -> Any:
        if isinstance(value, str):
            return (value.lower() if fold_case else value) in values
        return value

    return BeforeValidator(parse)


def _off_when(*values: str) -> BeforeValidator:
    """An on/off variable that is off exactly when its value is one of ``values`` (anything else is on)."""
    return BeforeValidator(lambda value: value not in values if isinstance(value, str) else value)


class _Section(BaseSettings):
    """A group of settings. Constructing one by keyword reads no environment variable: only
    :func:`load_settings` does, through :class:`_EnvironmentSource`."""

    model_config = SettingsConfigDict(
        frozen=True,
        validate_by_name=True,  # keyword construction uses the field names, the environment the aliases
        case_sensitive=True,
        env_ignore_empty=True,  # ``VAR=`` counts as unset: the default applies
        extra="forbid",
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings,)


class _EnvironmentSource(EnvSettingsSource):
    """pydantic-settings' environment source over a given mapping instead of ``os.environ``, for the
    fields that name a variable only (the others are not environment settings)."""

    def __init__(self, settings_cls: type[BaseSettings], environ: Mapping[str, str]) -> None:
        self._environ = environ
        super().__init__(settings_cls)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        return {
            name: value
            for name, value in self._environ.items()
            if not (self.env_ignore_empty and value == "")
        }

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        if field.validation_alias is None:
            return None, field_name, False
        return super().get_field_value(field, field_name)


class HubSettings(_Section):
    """The model hub: Hugging Face's own variables, so that one setting steers both our reachability
    check and ``huggingface_hub``."""

    offline: Annotated[bool, _on_when("1", "true", "yes", fold_case=True)] = Field(
        False, validation_alias="HF_HUB_OFFLINE"
    )
    endpoint: str = Field("https://huggingface.co", validation_alias="HF_ENDPOINT")


class RuntimeSettings(_Section):
    """Where state lives and which model route to take (see ``runtime.routes``)."""

    data_dir: Path
    provider_base_url: str | None = Field(None, validation_alias="AGENT_PROVIDER_BASE_URL")
    provider_type: ProviderType = Field("openai", validation_alias="AGENT_PROVIDER_TYPE")
    provider_api_key: str | None = Field(None, validation_alias="AGENT_PROVIDER_API_KEY", repr=False)
    # A BYOK model's real limits, so the runtime compacts long conversations instead of overflowing.
    provider_max_prompt_tokens: int | None = Field(None, validation_alias="AGENT_PROVIDER_MAX_PROMPT_TOKENS")
    provider_max_output_tokens: int | None = Field(None, validation_alias="AGENT_PROVIDER_MAX_OUTPUT_TOKENS")
    model: str | None = Field(None, validation_alias="AGENT_MODEL")
    github_token: str | None = Field(None, validation_alias=AliasChoices(*TOKEN_VARIABLES), repr=False)
    local_model: str = Field("0.5b", validation_alias="AGENT_LOCAL_MODEL")
    local_model_path: Path | None = Field(None, validation_alias="AGENT_MODEL_PATH")
    local_model_ctx: int = Field(8192, validation_alias="AGENT_LOCAL_MODEL_CTX")
    # The API key the embedded model server wants (docs/architecture.md#offline-route); unset: a new
    # random one each time it starts.
    local_model_token: str | None = Field(None, validation_alias="AGENT_LOCAL_MODEL_TOKEN", repr=False)
    turn_timeout: float = Field(DEFAULT_TURN_TIMEOUT, validation_alias="AGENT_TURN_TIMEOUT")
    copilot_cli_path: Path | None = Field(None, validation_alias="COPILOT_CLI_PATH")
    hub: HubSettings = HubSettings()

    def with_overrides(self, **changes: object) -> RuntimeSettings:
        """A copy with the CLI flags that were given (``None`` means "not given")."""
        return self.model_copy(update={key: value for key, value in changes.items() if value is not None})

    @property
    def copilot_home(self) -> Path:
        """The runtime's own state (``COPILOT_HOME``): session-state/<id>/events.jsonl lives here."""
        return self.data_dir / "copilot"

    @property
    def models_dir(self) -> Path:
        """Cache of assembled model weights."""
        return self.data_dir / "models"


def _proxy_list(value: str) -> str:
    """``AGENT_WEB_TRUSTED_PROXIES``: comma-separated addresses and networks (``*``: any peer), as
    uvicorn's forwarded-allow list takes them; a host name is refused, since uvicorn compares the
    peer's address with each entry."""
    entries = [entry.strip() for entry in value.split(",") if entry.strip()]
    for entry in entries:
        if entry != "*":
            try:
                ipaddress.ip_network(entry, strict=False)
            except ValueError:
                raise ValueError(f"{entry!r} is not an IP address or network") from None
    return ",".join(entries)


def _host_list(value: str) -> str:
    """``AGENT_WEB_ALLOWED_HOSTS``: comma-separated host names (``*``: any), as a ``Host`` header names
    them without a port; a URL, a path or a space is refused, since it never matches a Host."""
    entries = [entry.strip().lower().rstrip(".") for entry in value.split(",") if entry.strip()]
    for entry in entries:
        if entry != "*" and (any(c in entry for c in "/@ ?#") or not entry.strip("[]:.")):
            raise ValueError(f"{entry!r} is not a host name")
    return ",".join(entries)


def _default_server_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


class WebSettings(_Section):
    """The web app's settings (``AGENT_WEB_*``); ``host`` and ``port`` also come from CLI flags."""

    data_dir: Path
    database_url: str
    host: str = Field("127.0.0.1", validation_alias="AGENT_WEB_HOST")
    port: int = Field(8000, validation_alias="AGENT_WEB_PORT")
    # Secure cookies need HTTPS; behind a TLS-terminating proxy set AGENT_WEB_SECURE_COOKIES=1.
    secure_cookies: Annotated[bool, _on_when("1", "true", "yes")] = Field(
        False, validation_alias="AGENT_WEB_SECURE_COOKIES"
    )
    # The proxies (load balancers) whose X-Forwarded-For and X-Forwarded-Proto are believed; without
    # any, the client is the TCP peer (docs/architecture.md#login-throttling).
    trusted_proxies: Annotated[str, AfterValidator(_proxy_list)] = Field(
        "", validation_alias="AGENT_WEB_TRUSTED_PROXIES"
    )
    # The Host names answered besides this machine's own (docs/architecture.md#host-names): a public
    # name behind a proxy; any other Host is refused with 421, against DNS rebinding.
    allowed_hosts: Annotated[str, AfterValidator(_host_list)] = Field(
        "", validation_alias="AGENT_WEB_ALLOWED_HOSTS"
    )
    login_ttl: float = 12 * 3600
    lease_ttl: float = Field(30.0, validation_alias="AGENT_WEB_LEASE_TTL")
    # Runtime sessions kept open between turns (docs/architecture.md#warm-sessions): how many at most,
    # and for how long an idle one stays open.
    warm_sessions: int = Field(200, ge=0, validation_alias="AGENT_WARM_SESSIONS")
    warm_idle: float = Field(600.0, gt=0, validation_alias="AGENT_WARM_IDLE")
    # A live feed's response ends after this and the browser reconnects where it stopped
    # (docs/architecture.md#live-sessions): graceful shutdowns stay short, proxies see no endless response.
    live_feed_seconds: float = Field(25.0, gt=0, validation_alias="AGENT_WEB_LIVE_FEED_SECONDS")
    # Behind a balancer: on SIGTERM, answer the health check 503 and go on serving for this long before
    # closing the listener, so the balancer stops sending requests first (docs/deploy.md).
    drain_seconds: float = Field(0.0, ge=0, validation_alias="AGENT_WEB_DRAIN_SECONDS")
    # How servers on one PostgreSQL tell each other of live events (docs/architecture.md#live-sessions):
    # PostgreSQL's NOTIFY (no other service) or Redis pub/sub at AGENT_REDIS_URL.
    live_fanout: Literal["postgres", "redis"] = Field("postgres", validation_alias="AGENT_LIVE_FANOUT")
    redis_url: str = Field("redis://127.0.0.1:6379/0", validation_alias="AGENT_REDIS_URL")
    max_prompt_chars: int = 8_000
    server_id: str = Field(default_factory=_default_server_id, validation_alias="AGENT_SERVER_ID")
    retail_dataset: Annotated[bool, _off_when("0", "false", "no")] = Field(
        True, validation_alias="AGENT_WEB_RETAIL"
    )
    # Login throttling (docs/architecture.md#login-throttling): this many failed logins at an account
    # from one address, at an account from all addresses together, or from one client address (shared
    # by everyone behind one NAT or proxy, and counting logins in flight), lock it for the lockout, on
    # every server sharing the database.
    login_max_failures: int = Field(5, ge=1, validation_alias="AGENT_LOGIN_MAX_FAILURES")
    login_max_account_failures: int = Field(50, ge=1, validation_alias="AGENT_LOGIN_MAX_ACCOUNT_FAILURES")
    login_max_address_failures: int = Field(100, ge=1, validation_alias="AGENT_LOGIN_MAX_ADDRESS_FAILURES")
    login_lockout: float = Field(900.0, gt=0, validation_alias="AGENT_LOGIN_LOCKOUT")
    # Each API token's own rate on each server (docs/architecture.md#api-tokens): a burst, then calls
    # per second.
    token_burst: int = Field(60, ge=1, validation_alias="AGENT_TOKEN_BURST")
    token_per_second: float = Field(5.0, gt=0, validation_alias="AGENT_TOKEN_PER_SECOND")
    # Sessions not updated for this many days are purged, by one server at a time (off when unset).
    retention_days: int | None = Field(None, ge=1, validation_alias="AGENT_RETENTION_DAYS")
    retention_interval: float = 3600.0
    # Model tokens (in + out) a user may spend per UTC day; unset: no limit.
    daily_token_budget: int | None = Field(None, ge=1, validation_alias="AGENT_DAILY_TOKEN_BUDGET")
    # Observability (docs/architecture.md#observability): traces go out over OTLP/HTTP only when the
    # standard OpenTelemetry endpoint variable is set; logs are JSON lines unless asked for text.
    otlp_endpoint: str | None = Field(None, validation_alias="OTEL_EXPORTER_OTLP_ENDPOINT")
    log_format: Literal["json", "text"] = Field("json", validation_alias="AGENT_LOG_FORMAT")
    # ``GET /metrics`` is served only with this bearer token set, and only to requests bearing it.
    metrics_token: str | None = Field(None, min_length=16, validation_alias="AGENT_METRICS_TOKEN", repr=False)
    # Encryption at rest (docs/architecture.md#encryption-at-rest): on when a master key is given, as
    # base64 or as a key file (``ID BASE64`` lines, the last current); data keys live in the key store
    # (default: the catalog's database).
    master_key: str | None = Field(None, validation_alias="AGENT_MASTER_KEY", repr=False)
    master_key_file: Path | None = Field(None, validation_alias="AGENT_MASTER_KEY_FILE")
    keystore_url: str | None = Field(None, validation_alias="AGENT_KEYSTORE_URL")

    @property
    def is_postgres(self) -> bool:
        return self.database_url.startswith(("postgresql", "postgres:"))

    @property
    def retail_db(self) -> Path:
        return self.data_dir / "retail.sqlite"

    @property
    def host_names(self) -> tuple[str, ...]:
        """``AGENT_WEB_ALLOWED_HOSTS`` as a tuple (empty when unset)."""
        return tuple(name for name in self.allowed_hosts.split(",") if name)


class TestingSettings(_Section):
    """The test suite's and benchmarks' PostgreSQL, and whether its absence is a failure."""

    postgres_url: str = Field(
        "postgresql://postgres@127.0.0.1:5432/test", validation_alias="TEST_POSTGRES_URL"
    )
    ci: Annotated[bool, _on_when("true")] = Field(False, validation_alias="CI")
    require_postgres: Annotated[bool, _on_when("1")] = Field(False, validation_alias="REQUIRE_POSTGRES")

    @property
    def postgres_required(self) -> bool:
        """On CI a missing database must not look green."""
        return self.ci or self.require_postgres


class ClientSettings(_Section):
    """What ``ao``, the terminal client, reads (docs/terminal.md): where its login is kept, and a
    server and token that win over the kept ones (for scripts)."""

    config_file: Path | None = Field(None, validation_alias="AO_CONFIG")
    config_home: Path | None = Field(None, validation_alias="XDG_CONFIG_HOME")
    server: str | None = Field(None, validation_alias="AO_SERVER")
    token: str | None = Field(None, validation_alias="AO_TOKEN")


def load_client_settings(environ: Mapping[str, str] | None = None) -> ClientSettings:
    """The terminal client's settings, or one :class:`SettingsError`."""
    try:
        return _read(ClientSettings, os.environ if environ is None else environ)
    except ValidationError as error:
        raise SettingsError(_describe(error)) from None


class _SharedSettings(_Section):
    """The variables several sections depend on; read first so that they are read once."""

    data_dir: Annotated[Path, AfterValidator(Path.resolve)] = Field(
        Path(".data"), validation_alias="AGENT_ORCHESTRATOR_HOME"
    )
    database_url: str | None = Field(None, validation_alias="DATABASE_URL")
    retail_db: Path | None = Field(None, validation_alias="RETAIL_DB")


class Settings(BaseModel):
    """One process's settings, from :func:`load_settings`.

    ``data_dir`` holds the app's state; ``database_url`` is the session catalog's (SQLite in the data
    dir unless ``DATABASE_URL`` says otherwise); ``retail_db`` is ``RETAIL_DB``, the retail database of
    the stand-alone MCP server and of the retail API when the app did not choose one.
    """

    model_config = ConfigDict(frozen=True)

    data_dir: Path
    database_url: str
    retail_db: Path | None
    runtime: RuntimeSettings
    web: WebSettings
    testing: TestingSettings


def _catalog_url(configured: str | None, data_dir: Path) -> str:
    """The catalog's SQLAlchemy URL: ``configured`` with a plain ``postgresql://`` pointed at psycopg 3,
    else SQLite in ``data_dir``."""
    url = (configured or "").strip()
    if not url:
        return f"sqlite:///{data_dir / 'catalog.sqlite'}"
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url.removeprefix(prefix)
    return url


SectionT = TypeVar("SectionT", bound=_Section)


def _read(section: type[SectionT], environ: Mapping[str, str], **given: Any) -> SectionT:
    return section(**given, **_EnvironmentSource(section, environ)())


def load_settings(environ: Mapping[str, str] | None = None) -> Settings:
    """The settings from ``environ`` (default: this process's environment), or one :class:`SettingsError`."""
    env = os.environ if environ is None else environ
    try:
        shared = _read(_SharedSettings, env)
        database_url = _catalog_url(shared.database_url, shared.data_dir)
        return Settings(
            data_dir=shared.data_dir,
            database_url=database_url,
            retail_db=shared.retail_db,
            runtime=_read(RuntimeSettings, env, data_dir=shared.data_dir, hub=_read(HubSettings, env)),
            web=_read(WebSettings, env, data_dir=shared.data_dir, database_url=database_url),
            testing=_read(TestingSettings, env),
        )
    except ValidationError as error:
        raise SettingsError(_describe(error)) from None


def _describe(error: ValidationError) -> str:
    """``NAME='value': what is wrong`` for each bad variable, on one line."""
    problems = []
    for item in error.errors(include_url=False):
        name = ".".join(str(part) for part in item["loc"])
        problems.append(f"{name}={item['input']!r}: {item['msg']}")
    return "invalid setting " + "; ".join(problems)


def child_environment(
    drop: Collection[str] = (), drop_prefixes: tuple[str, ...] = (), **extra: str
) -> dict[str, str]:
    """This process's environment for a child process, without the ``drop`` variables and those starting
    with one of ``drop_prefixes``, plus ``extra``."""
    inherited = {
        name: value
        for name, value in os.environ.items()
        if name not in drop and not name.startswith(drop_prefixes)
    }
    return inherited | extra


def allowed_environment(
    keep: Collection[str], keep_prefixes: tuple[str, ...] = (), **extra: str
) -> dict[str, str]:
    """Only the ``keep`` variables of this process's environment, and those starting with one of
    ``keep_prefixes``, plus ``extra``: for a child that must not see the rest, since whatever it is
    given is readable from its ``/proc/<pid>/environ`` and passed on to its own children."""
    inherited = {
        name: value for name, value in os.environ.items() if name in keep or name.startswith(keep_prefixes)
    }
    return inherited | extra

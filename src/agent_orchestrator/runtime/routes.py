"""Choose the model route: BYOK provider, Copilot's models, or the embedded local model.

Order (first match wins): a configured provider URL, then a GitHub token, then the embedded model. The
choice is reported in one line at start so a learner always knows which model answered.
"""

from dataclasses import dataclass
from typing import Literal

from copilot import ProviderConfig

from agent_orchestrator.settings import RuntimeSettings

RouteKind = Literal["byok", "copilot", "embedded"]

# The runtime requires some key for OpenAI-style providers: what a BYOK endpoint without keys (a
# local Ollama or vLLM) is sent. The embedded model has a key of its own, its server's token.
LOOPBACK_API_KEY = "local-no-key"
DEFAULT_COPILOT_MODEL = "claude-haiku-4.5"


@dataclass(frozen=True)
class ModelRoute:
    """A resolved route: the model id and, for BYOK and embedded, the provider the runtime calls."""

    kind: RouteKind
    model: str
    provider: ProviderConfig | None = None
    github_token: str | None = None

    @property
    def offline(self) -> bool:
        """Copilot's own services are needed only for the Copilot route."""
        return self.kind != "copilot"

    def describe(self) -> str:
        """The one line printed at start."""
        if self.kind == "copilot":
            return f"Route: GitHub Copilot models (token from environment), model {self.model}"
        url = self.provider["base_url"] if self.provider else "?"
        label = "embedded local model at" if self.kind == "embedded" else "provider"
        return f"Route: {label} {url} (runtime offline), model {self.model}"


def plan_route(settings: RuntimeSettings) -> RouteKind:
    """Which route the settings select, before anything is started."""
    if settings.provider_base_url:
        return "byok"
    if settings.github_token:
        return "copilot"
    return "embedded"


def provider_config(
    base_url: str,
    *,
    kind: str = "openai",
    api_key: str | None = None,
    max_prompt_tokens: int | None = None,
    max_output_tokens: int | None = None,
) -> ProviderConfig:
    """The per-session provider block; limits let the runtime compact instead of overflowing."""
    config: ProviderConfig = {"type": kind, "base_url": base_url, "api_key": api_key or LOOPBACK_API_KEY}  # type: ignore[typeddict-item]
    if max_prompt_tokens:
        config["max_prompt_tokens"] = max_prompt_tokens
    if max_output_tokens:
        config["max_output_tokens"] = max_output_tokens
    return config


def byok_route(settings: RuntimeSettings) -> ModelRoute:
    """Any OpenAI-compatible (or Azure / Anthropic) endpoint the user configured."""
    assert settings.provider_base_url
    if not settings.model:
        raise ValueError("A provider URL needs a model id too (AGENT_MODEL or --model).")
    provider = provider_config(
        settings.provider_base_url,
        kind=settings.provider_type,
        api_key=settings.provider_api_key,
        max_prompt_tokens=settings.provider_max_prompt_tokens,
        max_output_tokens=settings.provider_max_output_tokens,
    )
    return ModelRoute("byok", settings.model, provider)


def copilot_route(settings: RuntimeSettings) -> ModelRoute:
    """Copilot's hosted models through the user's GitHub token."""
    return ModelRoute("copilot", settings.model or DEFAULT_COPILOT_MODEL, github_token=settings.github_token)

"""Everything the runtime factory needs to know, read once from the environment and CLI flags.

Built by :func:`RuntimeSettings.from_env` at the edge (CLI, web app start-up), never at import, so tests
construct settings directly instead of patching globals.
"""

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

ProviderType = Literal["openai", "azure", "anthropic"]
PROVIDER_TYPES: tuple[ProviderType, ...] = ("openai", "azure", "anthropic")
TOKEN_VARIABLES = ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN")

DEFAULT_COPILOT_MODEL = "claude-haiku-4.5"
# Two cores decode the 0.5B model at ~40 tok/s and prefill a few hundred tok/s: a turn that compacts a
# long conversation can take minutes, so the SDK's 60 s default would abort healthy turns.
DEFAULT_TURN_TIMEOUT = 600.0


@dataclass(frozen=True)
class RuntimeSettings:
    """Where state lives and which model route to take."""

    data_dir: Path
    provider_base_url: str | None = None
    provider_type: ProviderType = "openai"
    provider_api_key: str | None = None
    # A BYOK model's real limits, so the runtime compacts long conversations instead of overflowing.
    provider_max_prompt_tokens: int | None = None
    provider_max_output_tokens: int | None = None
    model: str | None = None
    github_token: str | None = None
    local_model: str = "0.5b"
    local_model_path: Path | None = None
    local_model_ctx: int = 8192
    turn_timeout: float = DEFAULT_TURN_TIMEOUT

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> "RuntimeSettings":
        """Read ``AGENT_*`` variables, and the usual GitHub token variables, from ``environ``."""
        env = os.environ if environ is None else environ
        provider_type = env.get("AGENT_PROVIDER_TYPE", "openai")
        if provider_type not in PROVIDER_TYPES:
            raise ValueError(f"AGENT_PROVIDER_TYPE must be one of {', '.join(PROVIDER_TYPES)}")
        token = next((env[name] for name in TOKEN_VARIABLES if env.get(name)), None)
        model_path = env.get("AGENT_MODEL_PATH")
        return cls(
            data_dir=Path(env.get("AGENT_ORCHESTRATOR_HOME", ".data")).resolve(),
            provider_base_url=env.get("AGENT_PROVIDER_BASE_URL") or None,
            provider_type=provider_type,  # type: ignore[arg-type]
            provider_api_key=env.get("AGENT_PROVIDER_API_KEY") or None,
            provider_max_prompt_tokens=_optional_int(env.get("AGENT_PROVIDER_MAX_PROMPT_TOKENS")),
            provider_max_output_tokens=_optional_int(env.get("AGENT_PROVIDER_MAX_OUTPUT_TOKENS")),
            model=env.get("AGENT_MODEL") or None,
            github_token=token,
            local_model=env.get("AGENT_LOCAL_MODEL", "0.5b"),
            local_model_path=Path(model_path) if model_path else None,
            local_model_ctx=int(env.get("AGENT_LOCAL_MODEL_CTX", "8192")),
            turn_timeout=float(env.get("AGENT_TURN_TIMEOUT", DEFAULT_TURN_TIMEOUT)),
        )

    def with_overrides(self, **changes: object) -> "RuntimeSettings":
        """A copy with the CLI flags that were given (``None`` means "not given")."""
        return replace(self, **{key: value for key, value in changes.items() if value is not None})

    @property
    def copilot_home(self) -> Path:
        """The runtime's own state (``COPILOT_HOME``): session-state/<id>/events.jsonl lives here."""
        return self.data_dir / "copilot"

    @property
    def models_dir(self) -> Path:
        """Cache of assembled model weights."""
        return self.data_dir / "models"


def _optional_int(value: str | None) -> int | None:
    return int(value) if value else None

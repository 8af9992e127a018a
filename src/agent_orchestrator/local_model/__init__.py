"""The embedded default model, served offline over an OpenAI-compatible HTTP API.

    from agent_orchestrator.local_model import LocalModelServer, resolve_weights

    path = resolve_weights("0.5b", cache_dir=data_dir / "models")
    with LocalModelServer(path) as server:
        ...  # point an "openai" provider at server.base_url

Modules: ``weights`` (obtain + verify the GGUF), ``engine`` (llama.cpp via cyllama, prefix reuse),
``chat_format`` (template rendering, tool-call parsing), ``protocol`` (wire format), ``server`` (FastAPI
app + in-process server), ``__main__`` (CLI). Names are imported lazily: ``weights`` does not load the
llama.cpp binding.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .server import LocalModelServer, LocalModelServerError
    from .weights import MODELS, ModelChoice, WeightsError, resolve_weights

__all__ = [
    "MODELS",
    "LocalModelServer",
    "LocalModelServerError",
    "ModelChoice",
    "WeightsError",
    "resolve_weights",
]

_LAZY = {
    "LocalModelServer": "server",
    "LocalModelServerError": "server",
    "MODELS": "weights",
    "ModelChoice": "weights",
    "WeightsError": "weights",
    "resolve_weights": "weights",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(name)

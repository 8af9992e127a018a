"""The Copilot runtime: model routes, the CLI binary, and the one factory for clients and sessions."""

from agent_orchestrator.runtime.factory import CopilotRuntime
from agent_orchestrator.settings import RuntimeSettings

__all__ = ["CopilotRuntime", "RuntimeSettings"]

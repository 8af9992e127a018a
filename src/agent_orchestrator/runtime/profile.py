"""What a session is for, handed in by the entry point (docs/architecture.md#session-profiles).

The runtime builds sessions for any app: the system prompt, the tools the model may see, the MCP
servers or in-process tools that serve them, the (server, tool) pairs a permission request may be
approved for, and what the embedded model server needs to be guided (a planner, a domain's words).
The retail app's profile lives with its tools (``mcp_server.profile``); :data:`PLAIN` has no tools.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from copilot.tools import Tool

    from agent_orchestrator.local_model.guide import Guide
    from agent_orchestrator.local_model.lexicon import Lexicon


@dataclass(frozen=True)
class SessionProfile:
    """One app's session configuration; the runtime passes it identically on every create and resume
    (the runtime keeps none of it with a session)."""

    prompt: str
    """The whole system message (replace mode)."""
    tool_ids: tuple[str, ...] = ()
    """The only tools the model sees (``available_tools``): the runtime's own stay hidden."""
    mcp_servers: Mapping[str, dict[str, Any]] = field(default_factory=dict)
    """SDK MCP server configs, by server name, attached to every session."""
    tools: tuple[Tool, ...] = ()
    """Tools served by this process (one MCP connection for all sessions)."""
    permitted: frozenset[tuple[str, str]] = frozenset()
    """(MCP server, tool) pairs a permission request is approved for; everything else is refused."""
    guide: Callable[[], Guide] | None = None
    """Builds the embedded model server's guide (the planner for a query tool)."""
    lexicon: Lexicon | None = None
    """The domain's words for the embedded model server's own pipeline; none: it knows no domain."""


PLAIN = SessionProfile(
    prompt=(
        "You are a concise assistant. Answer in one or two short sentences. Use only facts from this "
        "conversation and from tool results; if you do not know something, say so instead of inventing it."
    )
)
"""No tools and no domain: a runtime check, a benchmark of the runtime itself."""

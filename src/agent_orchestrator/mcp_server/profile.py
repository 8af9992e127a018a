"""The retail app's session profile (docs/architecture.md#session-profiles): the analyst's prompt, the
read-only retail tools and nothing else, the query guide and the retail words for the embedded model."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_orchestrator.mcp_server.config import SERVER_NAME, TOOL_NAMES
from agent_orchestrator.runtime.profile import SessionProfile

if TYPE_CHECKING:
    from copilot.tools import Tool

    from agent_orchestrator.local_model.guide import Guide

ANALYST_PROMPT = (
    "You are AgentOrchestrator, a concise assistant for retail analysts. "
    "Answer in one or two short sentences. Use only facts from this conversation and from tool results; "
    "if you do not know something, say so instead of inventing it."
)
TOOLS_PROMPT = (
    " For questions about customers, segments or transactions, call the retail-analytics tools and "
    "answer from their results."
)
RETAIL_TOOL_IDS = tuple(f"{SERVER_NAME}-{name}" for name in TOOL_NAMES)
"""The names the runtime gives the retail server's tools (``<server>-<tool>``)."""


def analyst_profile() -> SessionProfile:
    """The analyst's assistant without data tools (the sessions lab, a web app without a dataset)."""
    return SessionProfile(prompt=ANALYST_PROMPT)


def _query_guide(data: Callable[[], Path] | None) -> Callable[[], Guide]:
    def guide() -> Guide:
        from agent_orchestrator.planner.data_guide import DataGuide

        return DataGuide(data)

    return guide


def retail_profile(
    *,
    mcp: dict[str, Any] | None = None,
    tools: list[Tool] | None = None,
    data: Callable[[], Path] | None = None,
) -> SessionProfile:
    """The retail tools over an SDK MCP server config (``mcp``) or this process's own connection
    (``tools``, the web app); the model may call them and nothing else. ``data`` names the active
    dataset's file, for the guide's reading of its own columns (docs/architecture.md#the-semantic-model)."""
    from agent_orchestrator.mcp_server.lexicon import RETAIL

    return SessionProfile(
        prompt=ANALYST_PROMPT + TOOLS_PROMPT,
        tool_ids=RETAIL_TOOL_IDS,
        mcp_servers={SERVER_NAME: mcp} if mcp is not None else {},
        tools=tuple(tools or ()),
        permitted=frozenset((SERVER_NAME, name) for name in TOOL_NAMES),
        guide=_query_guide(data),
        lexicon=RETAIL,
    )

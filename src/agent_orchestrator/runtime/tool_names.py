"""How a tool's id in the runtime relates to the tool's own name.

A tool this process forwards from an MCP server (``mcp_tools.McpTools``) is registered with the
runtime as ``<server>-<tool>``: server names are kebab-case, the tools' own names snake_case, so the
own name is what follows the last ``-``. A tool of an MCP server the runtime attaches itself comes
with its MCP name in the event. Transcripts, usage and the live stream name tools this way, knowing
nothing of which server serves them (docs/architecture.md#charts).
"""

from __future__ import annotations

SEPARATOR = "-"


def forwarded_id(server: str, tool: str) -> str:
    """The runtime's id for ``tool`` of the MCP server ``server``, forwarded by this process."""
    if SEPARATOR in tool:
        raise ValueError(f"a forwarded tool's own name has no {SEPARATOR!r}: {tool!r}")
    return f"{server}{SEPARATOR}{tool}"


def tool_name(runtime_name: str, mcp_name: str | None) -> str:
    """The tool's own name: the MCP name when the runtime gives one, else the id's last part."""
    return mcp_name or runtime_name.rsplit(SEPARATOR, 1)[-1]

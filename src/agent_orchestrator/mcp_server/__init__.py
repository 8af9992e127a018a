"""The read-only ``retail-analytics`` MCP server.

Run it with ``python -m agent_orchestrator.mcp_server --db PATH`` (stdio transport), or build it
in-process with ``agent_orchestrator.mcp_server.server.build_server``. This package's top level
only holds names and the launch config, so importing it does not load the ``mcp`` SDK.
"""

from agent_orchestrator.mcp_server.config import (
    MAX_COUNTRY_ROWS,
    MAX_LIMIT,
    MAX_MONTHS,
    SERVER_NAME,
    TOOL_NAMES,
    copilot_mcp_config,
    stdio_command,
)

__all__ = [
    "MAX_COUNTRY_ROWS",
    "MAX_LIMIT",
    "MAX_MONTHS",
    "SERVER_NAME",
    "TOOL_NAMES",
    "copilot_mcp_config",
    "stdio_command",
]

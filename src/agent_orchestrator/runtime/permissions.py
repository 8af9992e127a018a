"""Permission policy: the model may call the read-only retail tools and nothing else.

The tool allow-list already hides the runtime's shell, file and agent tools from the model; this handler
is the second wall, for requests that reach the runtime anyway (a model naming a hidden tool, another
MCP server, a URL fetch). It is re-registered on every resume, like the rest of the session options,
because the runtime does not persist handlers.
"""

import logging
from typing import Any

from copilot.generated.rpc import PermissionDecisionApproveOnce, PermissionDecisionReject
from copilot.generated.session_events import PermissionRequestMcp

from agent_orchestrator.mcp_server import SERVER_NAME, TOOL_NAMES

logger = logging.getLogger(__name__)

RETAIL_TOOL_IDS = tuple(f"{SERVER_NAME}-{name}" for name in TOOL_NAMES)
"""The names the runtime gives the retail server's tools (``<server>-<tool>``)."""


def retail_tools_only(
    request: Any, invocation: Any
) -> PermissionDecisionApproveOnce | PermissionDecisionReject:
    """Approve a call to one of the retail server's tools; refuse and log everything else."""
    if (
        isinstance(request, PermissionRequestMcp)
        and request.server_name == SERVER_NAME
        and request.tool_name in TOOL_NAMES
    ):
        return PermissionDecisionApproveOnce()
    kind = getattr(request, "kind", type(request).__name__)
    logger.warning("Refused a %s permission request in session %s", kind, invocation.get("session_id"))
    return PermissionDecisionReject(feedback="Only the read-only retail-analytics tools are permitted.")

"""Permission policy: the model may call the tools its session's profile permits and nothing else.

The tool allow-list already hides the runtime's shell, file and agent tools from the model; this handler
is the second wall, for requests that reach the runtime anyway (a model naming a hidden tool, another
MCP server, a URL fetch). It is re-registered on every resume, like the rest of the session options,
because the runtime does not persist handlers.
"""

import logging
from collections.abc import Callable
from typing import Any

from copilot.generated.rpc import PermissionDecisionApproveOnce, PermissionDecisionReject
from copilot.generated.session_events import PermissionRequestMcp

from agent_orchestrator.runtime.profile import SessionProfile

logger = logging.getLogger(__name__)

Decision = PermissionDecisionApproveOnce | PermissionDecisionReject


def permitted_tools_only(profile: SessionProfile) -> Callable[[Any, Any], Decision]:
    """A handler that approves a call to one of the profile's (server, tool) pairs and refuses and
    logs everything else."""

    def decide(request: Any, invocation: Any) -> Decision:
        if (
            isinstance(request, PermissionRequestMcp)
            and (request.server_name, request.tool_name) in profile.permitted
        ):
            return PermissionDecisionApproveOnce()
        kind = getattr(request, "kind", type(request).__name__)
        logger.warning("Refused a %s permission request in session %s", kind, invocation.get("session_id"))
        return PermissionDecisionReject(feedback="Only this assistant's own read-only tools are permitted.")

    return decide

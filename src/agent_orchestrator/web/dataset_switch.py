"""Sessions follow the active dataset version (docs/architecture.md#dataset-versions).

Every tool call reads the file ``DatasetLibrary.current_path`` names at the time of the call, so
the figures follow a switch at once. The tools' input schemas carry the data's countries, though,
and the runtime is given them when a session is created or resumed. So when the active version
changes (an import or a restore here, or on another server sharing the store), this server lists
its tools again (``McpTools.refresh``: the profile's tool objects are updated in place) and retires
its warm sessions (``WarmSessions.retire_all``): each chat's next turn resumes with the new schemas,
and the planner, which reads its vocabulary from them, knows the new countries.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from agent_orchestrator.errors import AgentOrchestratorError
from agent_orchestrator.retail.datasets import DatasetLibrary
from agent_orchestrator.runtime.mcp_tools import McpTools

log = logging.getLogger(__name__)

POLL_SECONDS = 1.0
"""How often a server looks for a switch made elsewhere (the library reads the pointer as often)."""


class DatasetSwitch:
    """Notices a switch of the active version and brings the tools and warm sessions along."""

    def __init__(self, library: DatasetLibrary, tools: McpTools, retire_warm: Callable[[], None]) -> None:
        """``retire_warm`` is the session service's ``turns.warm.retire_all``."""
        self._library = library
        self._tools = tools
        self._retire_warm = retire_warm
        self._seen: str | None = None
        self._checking = asyncio.Lock()

    async def check(self) -> bool:
        """Follow a switch if there was one (``True``). Call it after an import, a restore or a
        settings change on this server, so the very next turn is on the new schemas."""
        async with self._checking:
            current = await asyncio.to_thread(self._library.current_version_id)
            if self._seen is None or current == self._seen:
                self._seen = current
                return False
            await self._tools.refresh()
            self._retire_warm()
            log.info("dataset version %s is active: tools listed again, warm sessions retired", current)
            self._seen = current
            return True

    async def follow(self, interval: float = POLL_SECONDS) -> None:
        """Check every ``interval`` seconds (a task, cancelled at shutdown)."""
        while True:
            try:
                await self.check()
            except AgentOrchestratorError as error:
                log.warning("dataset switch not followed yet: %s", error)
            await asyncio.sleep(interval)

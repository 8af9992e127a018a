"""Starting the real server over stdio and reading its answers (not in conftest: names clash across dirs)."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import CallToolResult

REPO = Path(__file__).resolve().parents[2]


@asynccontextmanager
async def mcp_session(args: list[str], env: dict[str, str] | None = None) -> AsyncIterator[ClientSession]:
    """``python -m agent_orchestrator.mcp_server ARGS`` as a subprocess, initialised, with a time limit."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "agent_orchestrator.mcp_server", *args], env=env, cwd=REPO
    )
    with anyio.fail_after(60):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session


def text_of(result: CallToolResult) -> str:
    assert len(result.content) == 1
    return result.content[0].text  # type: ignore[union-attr]


async def call_json(session: ClientSession, tool: str, arguments: dict[str, Any] | None = None) -> Any:
    result = await session.call_tool(tool, arguments or {})
    assert not result.is_error, text_of(result)
    return json.loads(text_of(result))

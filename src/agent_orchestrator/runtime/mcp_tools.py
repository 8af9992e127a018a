"""An MCP server's tools for every session of a server, over one MCP connection
(docs/architecture.md#one-mcp-connection).

Attached to sessions as an MCP server, the runtime runs an MCP client per session it opens: a new
connection and a discovery handshake each time, which a busy server paid on every cold turn. Here the
server's tools are registered with each session as the session's own (SDK) tools instead: the runtime
calls back into this process, which forwards the call over the one MCP client session it opened at
start. The model sees the same names (``<server>-<tool>``, as the runtime would name them), descriptions
and input schemas, and the same result text.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from copilot.tools import Tool, ToolInvocation, ToolResult
from mcp.client.session import ClientSession
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client
from mcp.types import CallToolResult, TextContent

from agent_orchestrator.errors import RuntimeFailure
from agent_orchestrator.runtime.tool_names import forwarded_id, tool_name

logger = logging.getLogger(__name__)


class McpTools:
    """One MCP client session to an HTTP MCP server, and its tools as Copilot SDK tools.

    Use as ``async with``; :attr:`tools` is then the list to pass as a session's ``tools``. The client
    lives in a task of its own: its streams belong to the task that opened them, and a broken
    connection then ends that task only (the next call opens a new connection), never the caller.
    """

    def __init__(self, server_name: str, url: str, headers: dict[str, str]) -> None:
        self.server_name = server_name
        self._url = url
        self._headers = headers
        self._session: ClientSession | None = None
        self._holder: asyncio.Task[None] | None = None
        self._connecting = asyncio.Lock()
        self.tools: list[Tool] = []

    async def __aenter__(self) -> McpTools:
        session = await self._connect()
        listed = await session.list_tools()
        self.tools = [
            Tool(
                name=forwarded_id(self.server_name, tool.name),
                description=tool.description or "",
                parameters=tool.input_schema,
                handler=self._forward_to(tool.name),
                # Read-only tools of our own server; everything else stays behind the permission handler.
                skip_permission=True,
            )
            for tool in listed.tools
        ]
        return self

    async def refresh(self) -> None:
        """List the server's tools again and update each tool's description and input schema in
        place. The session profile holds these very objects, so every session created or resumed
        from now on is given the new schemas (a dataset switch changes the country enums,
        docs/architecture.md#dataset-versions); sessions already open keep theirs until closed."""
        session = await self._connect()
        listed = {tool.name: tool for tool in (await session.list_tools()).tools}
        for tool in self.tools:
            fresh = listed.get(tool_name(tool.name, None))
            if fresh is not None:
                tool.description = fresh.description or ""
                tool.parameters = fresh.input_schema

    async def __aexit__(self, *exc_info: object) -> None:
        self._session = None
        if self._holder is not None:
            self._holder.cancel()
            await asyncio.gather(self._holder, return_exceptions=True)

    async def _connect(self) -> ClientSession:
        """The live client session, opening a connection first if there is none (or it broke)."""
        async with self._connecting:
            if self._session is not None and self._holder is not None and not self._holder.done():
                return self._session
            if self._holder is not None:  # a connection that failed a call: replace it
                self._holder.cancel()
            opened: asyncio.Future[ClientSession] = asyncio.get_running_loop().create_future()
            self._holder = asyncio.create_task(self._hold(opened), name=f"mcp-{self.server_name}")
            try:
                self._session = await opened
            except Exception as error:
                raise RuntimeFailure(f"The {self.server_name} MCP server did not answer: {error}") from error
            return self._session

    async def _hold(self, opened: asyncio.Future[ClientSession]) -> None:
        try:
            async with (
                create_mcp_http_client(headers=self._headers) as http,
                streamable_http_client(self._url, http_client=http) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                opened.set_result(session)
                await asyncio.Event().wait()  # until cancelled, or the connection breaks
        except BaseException as error:
            if not opened.done():
                opened.set_exception(error if isinstance(error, Exception) else RuntimeError(str(error)))
            if not isinstance(error, asyncio.CancelledError):
                logger.warning("The %s MCP connection ended: %s", self.server_name, error)

    def _forward_to(self, name: str) -> Any:
        async def forward(invocation: ToolInvocation) -> ToolResult:
            arguments = invocation.arguments if isinstance(invocation.arguments, dict) else {}
            try:
                session = await self._connect()
                result = await session.call_tool(name, arguments)
            except Exception as error:  # a broken connection is the model's tool error, not a crash
                logger.warning("MCP call %s failed: %s", name, error)
                self._session = None
                return _failure(f"The tool failed: {error}")
            if result.is_error:
                return _failure(_text(result))
            return ToolResult(text_result_for_llm=_text(result))

        return forward


def _text(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


def _failure(text: str) -> ToolResult:
    return ToolResult(text_result_for_llm=text, result_type="failure")

"""The retail MCP server over streamable HTTP (one per web app), through a real MCP client."""

import httpx
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client
from mcp_helpers import text_of

from agent_orchestrator.mcp_server import TOOL_NAMES
from agent_orchestrator.mcp_server.http import RetailMcpHttpServer


@pytest.fixture
def http_server(retail_db):
    server = RetailMcpHttpServer(retail_db)
    server.start()
    yield server
    server.stop()


async def test_tools_answer_with_the_token(http_server):
    config = http_server.copilot_config()
    assert config["type"] == "http" and config["url"].startswith("http://127.0.0.1:")
    client = create_mcp_http_client(headers=config["headers"])
    async with (
        streamable_http_client(config["url"], http_client=client) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        tools = await session.list_tools()
        assert sorted(t.name for t in tools.tools) == sorted(TOOL_NAMES)
        result = await session.call_tool("list_segments", {})
        assert not result.is_error and '"At Risk"' in text_of(result)


def test_requests_without_the_token_are_refused(http_server):
    url = http_server.copilot_config()["url"]
    response = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert response.status_code == 401
    wrong = httpx.post(url, json={}, headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401

"""The retail tools over one MCP connection per server (docs/architecture.md#one-mcp-connection):
the tools the runtime would name and describe, forwarding calls to the real HTTP MCP server, and a
tool error (never a crash) when that server is gone."""

from pathlib import Path

import pytest
from copilot.tools import ToolInvocation

from agent_orchestrator.mcp_server import SERVER_NAME, TOOL_NAMES
from agent_orchestrator.mcp_server.http import RetailMcpHttpServer
from agent_orchestrator.mcp_server.profile import RETAIL_TOOL_IDS
from agent_orchestrator.retail.generator import GeneratorConfig, generate_dataset
from agent_orchestrator.runtime.mcp_tools import McpTools


@pytest.fixture(scope="module")
def retail_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    config = GeneratorConfig(seed=5, customers=200, transactions=3_000, products=100)
    return generate_dataset(tmp_path_factory.mktemp("mcp-tools") / "retail.sqlite", config)


async def test_every_retail_tool_is_offered_under_the_runtimes_name_and_answers(retail_db):
    server = RetailMcpHttpServer(retail_db)
    server.start()
    config = server.copilot_config()
    try:
        async with McpTools(SERVER_NAME, config["url"], config["headers"]) as tools:
            by_name = {tool.name: tool for tool in tools.tools}
            assert sorted(by_name) == sorted(RETAIL_TOOL_IDS) and len(by_name) == len(TOOL_NAMES)
            segments = by_name[f"{SERVER_NAME}-list_segments"]
            assert segments.description and segments.parameters is not None and segments.handler is not None
            answer = await segments.handler(ToolInvocation(tool_name=segments.name, arguments={}))
            assert answer.result_type == "success" and '"At Risk"' in answer.text_result_for_llm

            bad = by_name[f"{SERVER_NAME}-get_customer_summary"]
            assert bad.handler is not None
            refused = await bad.handler(ToolInvocation(tool_name=bad.name, arguments={"customer_id": "x"}))
            assert refused.result_type == "failure" and refused.text_result_for_llm

            server.stop()  # the tool server dies: the model gets a tool error, the server goes on
            gone = await segments.handler(ToolInvocation(tool_name=segments.name, arguments={}))
            assert gone.result_type == "failure" and gone.text_result_for_llm.startswith("The tool failed")
    finally:
        server.stop()

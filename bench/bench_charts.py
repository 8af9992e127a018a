"""Transcript of a 1,000-turn session in which every turn called a tool: what reading the tool results
back from the event log and turning them into charts costs, against the 100 ms transcript budget.

The log is the real runtime's (Copilot CLI, the retail MCP server, the scripted model calling
``monthly_trend`` for 12 months), its turn repeated 1,000 times. Measured in process: parsing the log
(``parse_events``, tool results included) and the route's work per message (charts, readings,
customer links, markdown), uncached as on the first read of each turn and cached as on a reload.

    uv run python bench/bench_charts.py
"""

import asyncio
import tempfile
from pathlib import Path

from timing import median_seconds

from agent_orchestrator.mcp_server import copilot_mcp_config
from agent_orchestrator.mcp_server.profile import retail_profile
from agent_orchestrator.retail import GeneratorConfig, generate_dataset
from agent_orchestrator.runtime import CopilotRuntime, RuntimeSettings
from agent_orchestrator.sessions.history.transcript import TranscriptMessage, parse_events
from agent_orchestrator.testing.scripted_model import ScriptedModel, ToolCall
from agent_orchestrator.web.charts import _chart, charts_for
from agent_orchestrator.web.customer_links import _ids, customer_ids
from agent_orchestrator.web.markdown import render_markdown
from agent_orchestrator.web.readings import readings_for

TURNS = 1_000
BUDGET = 0.1


async def one_tool_turn(data: Path, model: ScriptedModel) -> bytes:
    db = generate_dataset(data / "retail.sqlite", GeneratorConfig(customers=300, transactions=6_000))
    model.script(ToolCall("retail-analytics-monthly_trend", {"months": 12}), "Revenue peaked in November.")
    settings = RuntimeSettings(data_dir=data, provider_base_url=model.base_url, model="scripted-model")
    async with (
        CopilotRuntime(settings, profile=retail_profile(mcp=copilot_mcp_config(db))) as runtime,
        await runtime.create_session("bench-charts") as session,
    ):
        await runtime.ask(session, "How did revenue develop over the last 12 months?")
    return (data / "copilot" / "session-state" / "bench-charts" / "events.jsonl").read_bytes()


def repeat_turn(log: bytes, turns: int) -> list[bytes]:
    """The log with its one user turn (the tool round and the answer round) repeated ``turns`` times."""
    lines = log.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(b'{"type":"user.message"'))
    end = max(i for i, line in enumerate(lines) if line.startswith(b'{"type":"assistant.turn_end"'))
    return lines[:start] + lines[start : end + 1] * turns + lines[end + 1 :]


def route_work(messages: list[TranscriptMessage]) -> None:
    for message in messages:
        if message.role == "assistant":
            charts_for(message.tool_results)
            readings_for(message.tool_results, message.content)
            render_markdown(message.content, customer_ids(message.tool_results))


def first_read(messages: list[TranscriptMessage]) -> None:
    """Charts and customer links with nothing cached yet (every turn's result new to the server)."""
    for message in messages:
        for result in message.tool_results:
            _chart.__wrapped__(result.tool, result.content)
            _ids.__wrapped__(result.tool, result.content)


def markdown_uncached(messages: list[TranscriptMessage]) -> None:
    """What the route paid before charts, on a first read: rendering every answer."""
    for message in messages:
        if message.role == "assistant":
            render_markdown.__wrapped__(message.content)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, ScriptedModel() as model:
        log = asyncio.run(one_tool_turn(Path(tmp), model))
    lines = repeat_turn(log, TURNS)
    without_tools = [line for line in lines if not line.startswith(b'{"type":"tool.execution')]
    messages = parse_events(lines)
    charts = sum(len(charts_for(m.tool_results)) for m in messages)
    assert charts == TURNS, charts

    parse = median_seconds(lambda: parse_events(lines), 20)
    parse_plain = median_seconds(lambda: parse_events(without_tools), 20)
    cached = median_seconds(lambda: route_work(messages), 10)
    charts_first = median_seconds(lambda: first_read(messages), 5)
    markdown_first = median_seconds(lambda: markdown_uncached(messages), 5)
    size = sum(len(line) + 1 for line in lines) / 1e6
    ms = 1e3
    print(f"{TURNS} turns with a monthly_trend call each ({size:.1f} MB log), {charts} charts:")
    print(f"  parse: {parse * ms:.1f} ms, without the tool events {parse_plain * ms:.1f} ms")
    first = charts_first * ms
    print(f"  charts + customer links, first read: {first:.1f} ms (markdown: {markdown_first * ms:.1f} ms)")
    print(f"  charts + links + markdown, cached (a reload): {cached * ms:.1f} ms")
    reload = parse + cached
    print(f"  reload: parse + route work {reload * ms:.1f} ms (target 100 ms, ratio {reload / BUDGET:.2f})")
    added = parse - parse_plain + charts_first
    print(f"  added by charts on a first read: {added * ms:.1f} ms ({added / BUDGET:.2f} of the budget)")


if __name__ == "__main__":
    main()

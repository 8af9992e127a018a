"""Observability end to end: one trace from the HTTP request through the turn, the runtime and the MCP
tool call; the Prometheus metrics; JSON log lines carrying the request id."""

import asyncio
import json
import logging
import threading
from collections.abc import Callable, Iterator

import httpx
import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client.parser import text_string_to_metric_families

from agent_orchestrator.retail import GeneratorConfig, generate_dataset
from agent_orchestrator.telemetry import SESSION_LEASES, JsonFormatter, configure_tracing, request_id
from agent_orchestrator.testing.eventually import eventually
from agent_orchestrator.testing.scripted_model import ScriptedModel, Text, ToolCall

SMALL_RETAIL = GeneratorConfig(seed=7, customers=300, transactions=6_000, products=200)


@pytest.fixture(scope="module")
def spans() -> Iterator[InMemorySpanExporter]:
    """This process's tracer provider, exporting to memory (a provider can be installed only once)."""
    exporter = InMemorySpanExporter()
    assert configure_tracing(None, processor=SimpleSpanProcessor(exporter))
    yield exporter


def _send(client: httpx.Client, session_id: str, content: str) -> httpx.Response:
    return client.post(f"/api/sessions/{session_id}/messages", json={"content": content})


def _finished(exporter: InMemorySpanExporter, name: str, timeout: float = 10) -> ReadableSpan:
    def finished() -> ReadableSpan:
        found = [s for s in exporter.get_finished_spans() if s.name == name]
        assert found, f"no finished span {name!r}"
        return found[-1]

    return eventually(finished, timeout=timeout)


def _ancestors(exporter: InMemorySpanExporter, span: ReadableSpan) -> list[int]:
    by_id = {s.context.span_id: s for s in exporter.get_finished_spans()}
    found = []
    while span.parent is not None and span.parent.span_id in by_id:
        found.append(span.parent.span_id)
        span = by_id[span.parent.span_id]
    return found


def test_a_trace_spans_the_request_the_turn_the_runtime_and_the_tool_call(
    start_app: Callable, scripted_model: ScriptedModel, spans: InMemorySpanExporter, tmp_path
) -> None:
    generate_dataset(tmp_path / "retail.sqlite", SMALL_RETAIL)
    # No warm copies: the turn resumes its session, so the runtime's resume is in the trace too.
    client = start_app(retail_dataset=True, warm_sessions=0).client("alice")
    session_id = client.post("/api/sessions", json={}).json()["id"]
    spans.clear()
    scripted_model.script(ToolCall("retail-analytics-list_segments", {}), Text("Four segments."))
    answer = _send(client, session_id, "Which segments are there?")
    assert "event: done" in answer.text and len(answer.headers["X-Request-ID"]) == 32

    request = _finished(spans, "POST /api/sessions/{session_id}/messages")
    turn = _finished(spans, "turn")
    opened = _finished(spans, "turn.open")
    resume = _finished(spans, "runtime.resume_session")
    tool = _finished(spans, "tool list_segments")
    assert {s.context.trace_id for s in (request, turn, resume, tool)} == {request.context.trace_id}
    assert request.context.span_id in _ancestors(spans, turn)  # through FastAPI's endpoint span
    # The chat is opened before the send is acknowledged, in the request; the turn runs after.
    assert request.context.span_id in _ancestors(spans, opened)
    assert resume.parent is not None and resume.parent.span_id == opened.context.span_id
    assert opened.end_time is not None and turn.start_time is not None and opened.end_time <= turn.start_time
    assert tool.parent is not None and tool.parent.span_id == turn.context.span_id
    assert tool.attributes is not None and tool.attributes["tool.success"] is True
    assert turn.attributes is not None and turn.attributes["session.public_id"] == session_id
    assert turn.attributes["session.id"] not in (session_id, None)  # the runtime id, for the logs and files
    assert turn.start_time is not None and tool.start_time is not None and turn.start_time <= tool.start_time


METRICS_TOKEN = "scraper-token-0123456789"
SCRAPER = {"Authorization": f"Bearer {METRICS_TOKEN}"}


def _samples(client: httpx.Client) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    text = client.get("/metrics", headers=SCRAPER).text
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def test_metrics_count_turns_tokens_busy_refusals_and_login_failures(
    start_app: Callable, scripted_model: ScriptedModel
) -> None:
    app = start_app(metrics_token=METRICS_TOKEN)
    client, anonymous = app.client("alice"), app.client()
    session_id = client.post("/api/sessions", json={}).json()["id"]
    before = _samples(anonymous)
    scripted_model.script(Text("slow answer", delay=2))
    running = threading.Thread(target=_send, args=(client, session_id, "one"))
    running.start()
    scripted_model.wait_for_requests(1, timeout=30)
    during = _samples(anonymous)
    assert _send(client, session_id, "two").status_code == 409
    running.join()
    anonymous.post("/api/auth/login", json={"username": "alice", "password": "wrong password"})
    after = _samples(anonymous)

    def grew(name: str, *labels: tuple[str, str]) -> float:
        return after.get((name, labels), 0) - before.get((name, labels), 0)

    assert during[("agent_turns_in_flight", ())] == 1 and during[("agent_session_leases", ())] == 1
    assert after[("agent_turns_in_flight", ())] == 0 and after[("agent_session_leases", ())] == 0
    assert grew("agent_turn_seconds_count") == 1 and grew("agent_turn_seconds_sum") >= 2
    assert grew("agent_busy_refusals_total") == 1
    assert grew("agent_login_failures_total", ("reason", "password")) == 1
    assert grew("agent_model_tokens_total", ("direction", "input")) > 0
    assert grew("agent_model_tokens_total", ("direction", "output")) > 0


def test_metrics_are_not_served_without_a_token_set(start_app: Callable) -> None:
    """Nobody outside should see them: a public port is only the app's."""
    answer = start_app().client().get("/metrics", headers=SCRAPER)
    assert (answer.status_code, answer.json()) == (404, {"detail": "Not Found"})


def test_metrics_need_the_bearer_token_and_are_computed_off_the_event_loop(start_app: Callable) -> None:
    client = start_app(metrics_token=METRICS_TOKEN).client()
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": METRICS_TOKEN}):
        refused = client.get("/metrics", headers=headers)
        assert (refused.status_code, refused.json()) == (401, {"detail": "A metrics token is needed."})
        assert refused.headers["WWW-Authenticate"] == "Bearer"
    on_loop: list[bool] = []

    def count_leases() -> int:  # the scrape's database read, as the app's own gauge does it
        try:
            asyncio.get_running_loop()
            on_loop.append(True)
        except RuntimeError:
            on_loop.append(False)
        return 0

    SESSION_LEASES.set_function(count_leases)
    assert client.get("/metrics", headers=SCRAPER).status_code == 200
    assert on_loop == [False]


def test_log_lines_are_json_with_the_request_id() -> None:
    token = request_id.set("req-12345678")
    try:
        line = JsonFormatter().format(
            logging.makeLogRecord({"name": "x", "levelname": "WARNING", "msg": "a %s", "args": ("b",)})
        )
    finally:
        request_id.reset(token)
    entry = json.loads(line)
    assert (entry["message"], entry["level"], entry["request_id"]) == ("a b", "WARNING", "req-12345678")
    assert entry["time"].endswith("+00:00")

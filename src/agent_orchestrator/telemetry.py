"""What an operator sees of a running process: Prometheus metrics, OpenTelemetry traces, JSON logs with a
request id (docs/architecture.md#observability).

A shared module beneath the rooms, like ``errors.py``: the web app, the session service and the runtime
all report here, and only the web app's entry point decides where it goes (``configure_tracing``,
``configure_logging``). Without that, the tracer is OpenTelemetry's no-op and the metrics only count.

* Metrics are the process's default Prometheus registry (``/metrics`` serves it). They are per
  process; ``agent_session_leases`` is read from the database at scrape time, so it is the same on
  every server.
* Traces: FastAPI opens a span per HTTP request; a turn started by it is a child span (its task
  inherits the context), with the runtime's resume and each MCP tool call, as the runtime reports it,
  beneath. The exporter is OTLP over HTTP, and only when ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set.
* Logs: one JSON object per line with the request id of the request (or turn) that logged it.
"""

from __future__ import annotations

import json
import logging
import sys
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from prometheus_client import Counter, Gauge, Histogram

SERVICE_NAME = "agent-orchestrator"

TURN_SECONDS = Histogram(
    "agent_turn_seconds",
    "Wall time of a chat turn, from its start to its outcome.",
    buckets=(0.25, 0.5, 1, 2, 5, 10, 20, 40, 80, 160, 320, 600),
)
TURNS_IN_FLIGHT = Gauge("agent_turns_in_flight", "Chat turns running in this process.")
SESSION_LEASES = Gauge("agent_session_leases", "Live session leases in the database (all servers).")
BUSY_REFUSALS = Counter("agent_busy_refusals", "Requests refused with 409 because the session was busy.")
LOGIN_FAILURES = Counter("agent_login_failures", "Refused logins.", ["reason"])
TURN_SESSIONS = Counter(
    "agent_turn_sessions",
    "How turns found their runtime session: kept open after a turn (warm), opened ahead while its "
    "owner read it (ahead), or resumed from the store (resumed).",
    ["source"],
)
STALE_WRITES_DROPPED = Counter(
    "agent_stale_writes_dropped",
    "Writes of a session copy kept open between turns after another writer took the session: dropped.",
)
MODEL_TOKENS = Counter("agent_model_tokens", "Model tokens, as the runtime reports them.", ["direction"])

TRACER = trace.get_tracer("agent_orchestrator")

request_id: ContextVar[str | None] = ContextVar("request_id", default=None)


def configure_tracing(otlp_endpoint: str | None, *, processor: SpanProcessor | None = None) -> bool:
    """Install a tracer provider that exports to ``otlp_endpoint`` (OTLP/HTTP) or to ``processor``;
    without either, tracing stays OpenTelemetry's no-op. Whether a provider was installed."""
    if otlp_endpoint is None and processor is None:
        return False
    provider = TracerProvider(resource=Resource.create({"service.name": SERVICE_NAME}))
    if otlp_endpoint is not None:
        # Imported here: the exporter pulls in protobuf and requests, needed only when configured.
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=_traces_url(otlp_endpoint))))
    if processor is not None:
        provider.add_span_processor(processor)
    trace.set_tracer_provider(provider)
    return True


def _traces_url(endpoint: str) -> str:
    """The OTLP/HTTP traces URL for an ``OTEL_EXPORTER_OTLP_ENDPOINT`` base, as the spec appends it."""
    return endpoint if endpoint.rstrip("/").endswith("/v1/traces") else endpoint.rstrip("/") + "/v1/traces"


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time (UTC), level, logger, message, request id, trace id, exception."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if (rid := request_id.get()) is not None:
            entry["request_id"] = rid
        context = trace.get_current_span().get_span_context()
        if context.is_valid:
            entry["trace_id"] = format(context.trace_id, "032x")
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


def configure_logging(log_format: str, *, verbose: bool = False) -> None:
    """Route the root logger to stderr, as JSON lines (``json``) or plain text (``text``)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        JsonFormatter() if log_format == "json" else logging.Formatter("%(levelname)s %(name)s: %(message)s")
    )
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, handlers=[handler], force=True)

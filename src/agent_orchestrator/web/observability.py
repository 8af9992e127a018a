"""The web app's side of observability (docs/architecture.md#observability): a request id per HTTP
request, and the Prometheus ``/metrics`` page, served only with ``AGENT_METRICS_TOKEN`` set and only
to requests bearing it (the app's port is public; the figures are not), and computed in a worker
thread (the leases gauge reads the database). The request's trace span is FastAPI's own (its native
OpenTelemetry support opens one per request once a tracer provider is installed, and continues an
incoming ``traceparent``); the id is put on it.

The request id is the caller's ``X-Request-ID`` when it is a short token (a proxy's), else a new one;
it is answered in the same header and put on every log line of the request, including those of a
turn it starts (the turn's task inherits the context, as it inherits the span). A plain ASGI
middleware, not ``@app.middleware``: see :mod:`agent_orchestrator.web.asgi` for why.
"""

import asyncio
import re
import secrets
import uuid
from typing import Annotated

from fastapi import FastAPI, Header, HTTPException, Response, status
from opentelemetry import trace
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.datastructures import Headers, MutableHeaders
from starlette.types import Receive, Scope, Send

from agent_orchestrator.telemetry import request_id
from agent_orchestrator.web.asgi import HttpMiddleware, editing_headers

REQUEST_ID_HEADER = "X-Request-ID"
_ACCEPTED_ID = re.compile(r"[A-Za-z0-9._-]{8,64}\Z")


def install_observability(app: FastAPI, *, metrics_token: str | None) -> None:
    """Add the request middleware to ``app``, and ``GET /metrics`` if there is a ``metrics_token``
    (without one the path is unknown, 404, like any other)."""
    app.add_middleware(RequestIdMiddleware)
    if metrics_token is None:
        return
    expected = f"Bearer {metrics_token}".encode()

    @app.get("/metrics", include_in_schema=False)
    async def metrics(authorization: Annotated[str, Header()] = "") -> Response:
        if not secrets.compare_digest(authorization.encode(), expected):
            raise HTTPException(
                status.HTTP_401_UNAUTHORIZED,
                "A metrics token is needed.",
                headers={"WWW-Authenticate": "Bearer"},
            )
        return Response(await asyncio.to_thread(generate_latest), media_type=CONTENT_TYPE_LATEST)


class RequestIdMiddleware(HttpMiddleware):
    """Set the request id for the request's context (logs, the turn it starts) and answer it."""

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        sent = Headers(scope=scope).get(REQUEST_ID_HEADER, "")
        rid = sent if _ACCEPTED_ID.match(sent) else uuid.uuid4().hex
        trace.get_current_span().set_attribute("request.id", rid)  # FastAPI's own server span
        token = request_id.set(rid)
        try:
            await self.app(scope, receive, editing_headers(send, lambda headers: _answer_id(headers, rid)))
        finally:
            request_id.reset(token)


def _answer_id(headers: MutableHeaders, rid: str) -> None:
    headers[REQUEST_ID_HEADER] = rid

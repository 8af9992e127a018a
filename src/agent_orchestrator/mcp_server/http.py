"""The retail MCP server over streamable HTTP on loopback, one per app process.

Why not stdio, as for the labs: the runtime starts a stdio MCP server for every session it opens, and
the web app opens a session for every turn — a Python process start per message, which under load
(100 concurrent users) dominated the turn time. One stateless HTTP server per app serves every session.
A random bearer token, passed to the runtime in the server config's headers, keeps other local
processes out.
"""

import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from agent_orchestrator.background_server import BackgroundServer
from agent_orchestrator.mcp_server.config import SERVER_NAME
from agent_orchestrator.mcp_server.server import build_server


def build_http_app(db: Path | Callable[[], Path], token: str) -> Starlette:
    """The MCP endpoint at ``/mcp`` (token required) plus an open ``/health``; ``db`` as for
    ``build_server``."""
    app = build_server(db).streamable_http_app(stateless_http=True, json_response=True)

    async def health(request: Request) -> Response:
        return PlainTextResponse("ok")

    app.router.routes.append(Route("/health", health))

    app.add_middleware(RequireToken, token=token)
    return app


class RequireToken:
    """401 for any request but ``/health`` without the bearer token (plain ASGI: no task and no
    memory stream per tool call, unlike ``BaseHTTPMiddleware``)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] != "/health":
            sent = Headers(scope=scope).get("authorization", "").encode("latin-1")
            if not secrets.compare_digest(sent, self._expected):
                await JSONResponse({"error": "unauthorized"}, status_code=401)(scope, receive, send)
                return
        await self.app(scope, receive, send)


class RetailMcpHttpServer:
    """Start with :meth:`start`; :meth:`copilot_config` is the session option that points at it."""

    def __init__(self, db: Path | Callable[[], Path]) -> None:
        self._token = secrets.token_urlsafe(32)
        self._server = BackgroundServer(build_http_app(db, self._token))
        self._url: str | None = None

    def start(self) -> str:
        self._url = self._server.start() + "/mcp"
        return self._url

    def stop(self) -> None:
        self._server.stop()

    def copilot_config(self) -> dict[str, Any]:
        """``mcp_servers={SERVER_NAME: ...}`` entry for the Copilot SDK."""
        assert self._url, "start() first"
        return {
            "type": "http",
            "url": self._url,
            "headers": {"Authorization": f"Bearer {self._token}"},
            "tools": ["*"],
            "timeout": 30_000,
        }


__all__ = ["SERVER_NAME", "RetailMcpHttpServer", "build_http_app"]

"""Who the model server answers: a client with its token, asking for it by a name of this machine.

A loopback port is open to every local process, and to every web page the user has open: through DNS
rebinding a page's own name is made to resolve to 127.0.0.1, and the browser then lets the page call
this server as if it were the page's own origin. So the server wants a bearer token (the OpenAI
``Authorization: Bearer <api key>``; the runtime hands it to the CLI as the provider's ``api_key``),
which no page can know, and refuses a request whose ``Host`` is not loopback or the bind address, which
is what a rebound request carries. ``/health`` needs no token, so that a start can be health-checked,
but it is behind the Host check like the rest.

Plain ASGI rather than FastAPI middleware or dependencies: every path is covered (404s too), and a
streamed completion is not wrapped in a task and a memory stream.
"""

from __future__ import annotations

import secrets

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from agent_orchestrator.hosts import host_allowed

from .protocol import error_body


def new_token() -> str:
    """A token for a server whose starter did not choose one."""
    return secrets.token_urlsafe(32)


class RequireAccess:
    """421 for a Host that is not this machine's, then 401 without the token (except ``/health``),
    both in OpenAI's error shape."""

    def __init__(self, app: ASGIApp, *, token: str, bind_host: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()
        self._bind_host = bind_host

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = Headers(scope=scope)
            if not host_allowed(headers.get("host", ""), self._bind_host):
                body = error_body(
                    "This server answers only requests for localhost, a loopback address or the address "
                    "it listens on.",
                    "invalid_request_error",
                    code="misdirected_request",
                )
                await JSONResponse(body, status_code=421)(scope, receive, send)
                return
            sent = headers.get("authorization", "").encode("latin-1")
            if scope["path"] != "/health" and not secrets.compare_digest(sent, self._expected):
                body = error_body(
                    "Incorrect API key provided: send the server's token as 'Authorization: Bearer <token>'.",
                    "invalid_request_error",
                    code="invalid_api_key",
                )
                await JSONResponse(body, status_code=401)(scope, receive, send)
                return
        await self.app(scope, receive, send)

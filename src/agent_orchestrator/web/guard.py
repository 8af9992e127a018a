"""Every response's security headers, and the request body limit, as one plain ASGI middleware.

Plain ASGI rather than ``@app.middleware("http")``: Starlette's ``BaseHTTPMiddleware`` runs the rest
of the app in a task of its own and passes every chunk of a streamed answer through a memory stream,
which was a measurable part of a busy server's turn (docs/architecture.md#warm-sessions).
"""

from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_BODY_BYTES = 256 * 1024
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}


class GuardMiddleware:
    """Refuse a body declared larger than :data:`MAX_BODY_BYTES` (413) before any route reads it, and
    add :data:`SECURITY_HEADERS` to every response that does not set its own."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = Headers(scope=scope).get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY_BYTES):
            too_large = JSONResponse({"detail": "Request body too large."}, status_code=413)
            await too_large(scope, receive, _with_security_headers(send))
            return
        await self.app(scope, receive, _with_security_headers(send))


def _with_security_headers(send: Send) -> Send:
    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = MutableHeaders(scope=message)
            for name, value in SECURITY_HEADERS.items():
                headers.setdefault(name, value)
        await send(message)

    return sending

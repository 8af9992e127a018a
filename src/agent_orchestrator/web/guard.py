"""Every response's security headers, and the request body limit, as one plain ASGI middleware
(see :mod:`agent_orchestrator.web.asgi` for why plain)."""

from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import JSONResponse
from starlette.types import Receive, Scope, Send

from agent_orchestrator.web.asgi import HttpMiddleware, editing_headers

MAX_BODY_BYTES = 256 * 1024
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}


class GuardMiddleware(HttpMiddleware):
    """Refuse a body declared larger than :data:`MAX_BODY_BYTES` (413) before any route reads it, and
    add :data:`SECURITY_HEADERS` to every response that does not set its own."""

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        send = editing_headers(send, _add_security_headers)
        length = Headers(scope=scope).get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY_BYTES):
            too_large = JSONResponse({"detail": "Request body too large."}, status_code=413)
            await too_large(scope, receive, send)
            return
        await self.app(scope, receive, send)


def _add_security_headers(headers: MutableHeaders) -> None:
    for name, value in SECURITY_HEADERS.items():
        headers.setdefault(name, value)

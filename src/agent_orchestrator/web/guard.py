"""Every response's security headers, the request's Host, and the request body limit, as one plain
ASGI middleware (see :mod:`agent_orchestrator.web.asgi` for why plain).

A request whose ``Host`` does not name this server is refused first, ``421`` with a short plain
text, on every path (docs/architecture.md#host-names): that is what a DNS-rebinding page's request
carries. Every answer under ``/api/`` and ``/v1/`` is ``Cache-Control: no-store`` unless its route
says otherwise: they are one user's data (or a share link's), which no browser or proxy cache should
keep.

The body limit counts bytes as they arrive: a declared ``Content-Length`` past the limit is refused
before any route runs, and a body without one (``Transfer-Encoding: chunked``) is cut off at the
limit while the route reads it, so nothing larger is ever buffered. Each path may have a limit of its
own (the import's 16 MB); every other body is small.
"""

from collections.abc import Mapping

from fastapi import HTTPException, status
from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agent_orchestrator.hosts import HostPolicy
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
# A year; no includeSubDomains: the other hosts of the domain are not this app's to decide for.
HSTS = "max-age=31536000"
PRIVATE_PREFIXES = ("/api/", "/v1/")  # the app's API and its OpenAI-compatible one
MISDIRECTED = "Misdirected request: this server does not answer for this host name.\n"


class GuardMiddleware(HttpMiddleware):
    """Refuse a Host that ``hosts`` does not allow with 421 (none: any Host), a body larger than its
    path's limit (``body_limits``, else :data:`MAX_BODY_BYTES`) with 413, and add
    :data:`SECURITY_HEADERS` to every response that does not set its own, with HSTS over HTTPS or
    when TLS ends in front of the app (``https_only``: the cookies are Secure then), and
    ``Cache-Control: no-store`` under ``/api/`` and ``/v1/``."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        body_limits: Mapping[str, int] | None = None,
        https_only: bool = False,
        hosts: HostPolicy | None = None,
    ) -> None:
        super().__init__(app)
        self.body_limits = dict(body_limits or {})
        self.https_only = https_only
        self.hosts = hosts

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        hsts = self.https_only or scope["scheme"] == "https"
        private = scope["path"].startswith(PRIVATE_PREFIXES)
        send = editing_headers(send, lambda headers: _add_headers(headers, hsts=hsts, private=private))
        if self.hosts is not None and not self.hosts.allows(Headers(scope=scope).get("host", "")):
            await PlainTextResponse(MISDIRECTED, status_code=421)(scope, receive, send)
            return
        limit = self.body_limits.get(scope["path"], MAX_BODY_BYTES)
        length = Headers(scope=scope).get("content-length")
        if length is not None and not _within(length, limit):
            response = JSONResponse(
                {"detail": too_large(limit)}, status_code=413, headers={"Connection": "close"}
            )
            await response(scope, receive, send)
            return
        await self.app(scope, _counting(receive, limit), send)


def _within(length: str, limit: int) -> bool:
    """Whether a declared ``Content-Length`` is a number of at most ``limit`` (ASCII digits only:
    ``int`` also reads other scripts' digits, and refuses numbers of thousands of digits)."""
    return length.isascii() and length.isdigit() and len(length) <= len(str(limit)) and int(length) <= limit


def _counting(receive: Receive, limit: int) -> Receive:
    """``receive``, raising 413 (answered by the app's error handler) once the body passes ``limit``."""
    received = 0

    async def receiving() -> Message:
        nonlocal received
        message = await receive()
        if message["type"] == "http.request":
            received += len(message.get("body", b""))
            if received > limit:
                # The rest of the body is not read: the connection is closed after the answer.
                raise HTTPException(
                    status.HTTP_413_CONTENT_TOO_LARGE, too_large(limit), headers={"Connection": "close"}
                )
        return message

    return receiving


def too_large(limit: int) -> str:
    """The 413's detail, naming the limit (in the units people use for file sizes)."""
    size = f"{limit // 2**20} MB" if limit >= 2**20 else f"{limit // 2**10} KB"
    return f"Request body too large: at most {size} here."


def _add_headers(headers: MutableHeaders, *, hsts: bool, private: bool) -> None:
    for name, value in SECURITY_HEADERS.items():
        headers.setdefault(name, value)
    if hsts:
        headers.setdefault("Strict-Transport-Security", HSTS)
    if private:
        headers.setdefault("Cache-Control", "no-store")

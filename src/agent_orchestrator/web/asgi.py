"""What the web app's plain ASGI middlewares share (``web/guard.py``, the request id).

Plain ASGI rather than ``@app.middleware("http")``: Starlette's ``BaseHTTPMiddleware`` runs the rest
of the app in a task of its own and passes every chunk of a streamed answer through a memory stream,
which was a measurable part of a busy server's turn (docs/architecture.md#warm-sessions).
"""

from collections.abc import Callable

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class HttpMiddleware:
    """A middleware for HTTP requests (:meth:`handle`); anything else (lifespan, websockets) passes."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.handle(scope, receive, send)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        raise NotImplementedError


def editing_headers(send: Send, edit: Callable[[MutableHeaders], None]) -> Send:
    """``send``, with ``edit`` applied to the response's headers before they go."""

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            edit(MutableHeaders(scope=message))
        await send(message)

    return sending

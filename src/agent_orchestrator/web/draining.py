"""uvicorn's server with a drain before a SIGTERM's shutdown (docs/deploy.md), kept apart so that the
commands that serve nothing do not import uvicorn."""

from __future__ import annotations

import signal
import threading
from types import FrameType

import uvicorn
from fastapi import FastAPI


class DrainingServer(uvicorn.Server):
    """uvicorn's server, with a drain before a SIGTERM's shutdown (``AGENT_WEB_DRAIN_SECONDS``).

    A server that closes its listener at once races the balancer: a request on its way in is cut
    off unanswered. Draining, the health check answers 503 (``app.state.draining``) while every
    other request is served as before; once the balancer has seen that and sends nothing more, the
    usual graceful shutdown runs. A second signal, or Ctrl-C, stops at once as before."""

    def __init__(self, config: uvicorn.Config, *, drain_seconds: float, app: FastAPI) -> None:
        super().__init__(config)
        self.drain_seconds = drain_seconds
        self.app = app

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if sig == signal.SIGTERM and self.drain_seconds > 0 and not self.app.state.draining:
            self.app.state.draining = True
            timer = threading.Timer(self.drain_seconds, super().handle_exit, (sig, frame))
            timer.daemon = True
            timer.start()
            return
        super().handle_exit(sig, frame)

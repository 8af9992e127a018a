"""Run an ASGI app under uvicorn in a daemon thread of this process, on loopback.

Used for the embedded model server, the retail MCP server over HTTP, and test doubles: one way to start
an in-process server and know it is ready.
"""

import socket
import threading
import time

import httpx
import uvicorn
from starlette.types import ASGIApp

from agent_orchestrator.errors import AgentOrchestratorError


class BackgroundServerError(AgentOrchestratorError):
    """The server could not bind or did not become healthy; the message is one line."""


class BackgroundServer:
    """Any ASGI app under uvicorn in a daemon thread, on ``host:port`` (0 = a free port).

    ``start()`` returns the root URL once ``health_path`` answers 200. uvicorn installs signal
    handlers only in the main thread, so running it in a daemon thread leaves the host's alone.
    """

    def __init__(self, app: ASGIApp, *, host: str = "127.0.0.1", port: int = 0, health_path: str = "/health"):
        self._app, self._host, self._port, self._health_path = app, host, port, health_path
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.root_url: str | None = None

    def start(self, timeout: float = 30.0) -> str:
        sock = socket.socket(socket.AF_INET6 if ":" in self._host else socket.AF_INET)
        try:
            sock.bind((self._host, self._port))
        except OSError as exc:
            sock.close()
            raise BackgroundServerError(
                f"cannot listen on {self._host}:{self._port}: {exc.strerror}"
            ) from exc
        port = sock.getsockname()[1]
        # No forwarded headers: a client is its TCP peer, as with ``serve`` unless proxies are trusted.
        config = uvicorn.Config(
            self._app, log_level="warning", access_log=False, lifespan="on", proxy_headers=False
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, name=f"http-{port}", daemon=True
        )
        self._thread.start()
        host = f"[{self._host}]" if ":" in self._host else self._host
        root = f"http://{host}:{port}"
        deadline = time.monotonic() + timeout
        with httpx.Client(timeout=2.0) as http:  # one client: each new one loads the CA bundle again
            while time.monotonic() < deadline:
                if not self._thread.is_alive():
                    sock.close()
                    raise BackgroundServerError("the HTTP server exited during startup")
                try:
                    if http.get(root + self._health_path).status_code == 200:
                        self.root_url = root
                        return root
                except httpx.HTTPError:
                    pass
                time.sleep(0.05)
        self.stop()
        raise BackgroundServerError(f"the server did not answer {self._health_path} within {timeout}s")

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._server = self._thread = None
        self.root_url = None

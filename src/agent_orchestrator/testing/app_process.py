"""The web app as a real server process, for tests and benchmarks that need process boundaries
(a crash mid-turn, two servers on one database, load from another process)."""

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class AppProcess:
    """``python -m agent_orchestrator.web serve`` in its own process group, so that killing it also
    kills the Copilot CLI and MCP servers it started."""

    def __init__(
        self,
        env: dict[str, str],
        *,
        port: int | None = None,
        args: tuple[str, ...] = (),
        log: Path | None = None,
    ) -> None:
        """``args`` go to ``serve`` after the port; the server's stderr goes to ``log`` if given."""
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = env
        self.args = args
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 120) -> "AppProcess":
        command = [sys.executable, "-m", "agent_orchestrator.web", "serve", "--port", str(self.port)]
        with contextlib.ExitStack() as stack:
            stderr = stack.enter_context(self.log.open("wb")) if self.log else subprocess.DEVNULL
            self.proc = subprocess.Popen(
                [*command, *self.args],
                env=self.env,
                start_new_session=True,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
            )
        deadline = time.monotonic() + timeout
        with httpx.Client(timeout=1) as http:  # one client: each new one loads the CA bundle again
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"the web app exited with code {self.proc.returncode}")
                try:
                    if http.get(f"{self.url}/api/health").status_code == 200:
                        return self
                except httpx.TransportError:
                    time.sleep(0.2)
        self.kill()
        raise TimeoutError("the web app did not start")

    def kill(self) -> None:
        """SIGKILL the whole process group: no cleanup runs, as in a crash."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        """A graceful shutdown, falling back to kill: SIGTERM to the server alone, which lets its
        answers in flight finish and then stops the runtime it started, as systemd's
        ``KillMode=mixed`` does (docs/deploy.md); a signal to the whole group would stop the runtime
        under those answers."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()
                return
            with contextlib.suppress(ProcessLookupError):  # whatever it left running, as systemd does
                os.killpg(self.proc.pid, signal.SIGKILL)

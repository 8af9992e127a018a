"""The app's HTTP API as ``ao`` uses it: bearer calls, one error per failure with its exit code, and
a turn's answer read from its server-sent events as they arrive."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx

from agent_orchestrator.terminal.config import Login

# Exit codes (documented in docs/terminal.md): what a script can act on.
FAILED = 1
NOT_LOGGED_IN = 3
NOT_FOUND = 4
BUSY = 5
UNREACHABLE = 6
_BY_STATUS = {401: NOT_LOGGED_IN, 403: NOT_LOGGED_IN, 404: NOT_FOUND, 409: BUSY, 429: BUSY}


class ApiError(Exception):
    """A failure said in one line, with the exit code ``ao`` ends with."""

    def __init__(self, message: str, exit_code: int = FAILED) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass(frozen=True)
class Event:
    kind: str
    data: dict[str, Any]


def _detail(response: httpx.Response) -> str:
    try:
        detail = response.json().get("detail")
    except ValueError:
        detail = None
    if isinstance(detail, list):  # a request the server's validation refused
        detail = "; ".join(str(item.get("msg", item)) for item in detail)
    return str(detail or f"The server answered HTTP {response.status_code}.")


def _refusal(response: httpx.Response) -> ApiError:
    message = _detail(response)
    if response.status_code == 401:
        message += " Run 'ao login' again."
    if response.status_code == 409 and "missed" in response.text:
        message = "This chat moved on elsewhere since you last read it; run 'ao show' and ask again."
    return ApiError(message, _BY_STATUS.get(response.status_code, FAILED))


class Api:
    """Calls to one server with one token."""

    def __init__(self, login: Login, *, timeout: float = 300) -> None:
        self.login = login
        headers = {"User-Agent": "ao (terminal client)"}
        if login.token:  # none yet while a device login waits
            headers["Authorization"] = f"Bearer {login.token}"
        self._client = httpx.Client(
            base_url=login.server, timeout=httpx.Timeout(timeout, connect=10), headers=headers
        )

    def close(self) -> None:
        self._client.close()

    def call(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        try:
            response = self._client.request(method, path, **kwargs)
        except httpx.TransportError as error:
            raise ApiError(f"Cannot reach {self.login.server}: {error}", UNREACHABLE) from error
        if response.status_code >= 400:
            raise _refusal(response)
        return response

    def json(self, method: str, path: str, **kwargs: Any) -> Any:
        return self.call(method, path, **kwargs).json()

    def stream_turn(self, path: str, body: dict[str, Any]) -> Iterator[Event]:
        """POST a turn and yield its events (``delta``, ``tool``, ``done``, ``error``) as they come."""
        try:
            with self._client.stream("POST", path, json=body) as response:
                if response.status_code >= 400:
                    response.read()
                    raise _refusal(response)
                yield from _events(response.iter_lines())
        except httpx.TransportError as error:
            raise ApiError(f"Lost the connection to {self.login.server}: {error}", UNREACHABLE) from error


def _events(lines: Iterator[str]) -> Iterator[Event]:
    kind, data = "message", list[str]()
    for line in lines:
        if line == "":
            if data:
                yield Event(kind, json.loads("\n".join(data)))
            kind, data = "message", []
        elif line.startswith("event:"):
            kind = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
    if data:
        yield Event(kind, json.loads("\n".join(data)))

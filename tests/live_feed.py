"""Reading a live feed (server-sent events) from a test: a thread reads, the test waits for events."""

from __future__ import annotations

import contextlib
import difflib
import json
import queue
import threading
import time
from dataclasses import dataclass
from typing import Any

import httpx

from agent_orchestrator.testing.eventually import eventually


@dataclass(frozen=True)
class FeedEvent:
    id: int | None
    kind: str
    data: dict[str, Any]


class Feed:
    """``GET path`` as an event stream, read in a daemon thread until :meth:`close`.

    Like a browser's ``EventSource``, it reconnects when the server ends the response, sending the
    last event's number as ``Last-Event-ID``, so a test sees one unbroken feed across reconnects.
    """

    def __init__(self, client: httpx.Client, path: str, *, last_event_id: int | None = None) -> None:
        self._client, self._path = client, path
        self.last_event_id = last_event_id
        self.events: queue.Queue[FeedEvent] = queue.Queue()
        self.status: int | None = None
        self.connections = 0
        self._response: httpx.Response | None = None
        self._closed = threading.Event()
        self._connected = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        assert self._connected.wait(30), "the feed did not answer"

    def _run(self) -> None:
        while not self._closed.is_set():
            headers = {"Accept": "text/event-stream"}
            if self.last_event_id is not None:
                headers["Last-Event-ID"] = str(self.last_event_id)
            try:
                with self._client.stream("GET", self._path, headers=headers, timeout=None) as response:
                    self._response = response
                    self.status = response.status_code
                    self.connections += 1
                    self._connected.set()
                    if response.status_code != 200:
                        return
                    self._read(response)
            except Exception:  # closed under the reader by close(), or the connection broke
                if self._closed.is_set():
                    return
                time.sleep(0.2)  # kept: a reconnect's back-off, as EventSource waits before retrying

    def _read(self, response: httpx.Response) -> None:
        kind, data, event_id = "message", [], None
        for line in response.iter_lines():
            if self._closed.is_set():
                return
            if line == "":
                if data:
                    self.last_event_id = event_id if event_id is not None else self.last_event_id
                    self.events.put(FeedEvent(event_id, kind, json.loads("\n".join(data))))
                kind, data, event_id = "message", [], None
            elif line.startswith("event:"):
                kind = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].removeprefix(" "))
            elif line.startswith("id:"):
                event_id = int(line[3:].strip())

    def take_until(self, kind: str, timeout: float = 60) -> list[FeedEvent]:
        """Every event up to and including the next one of ``kind``."""
        taken: list[FeedEvent] = []

        def reached() -> bool:
            try:
                event = self.events.get(timeout=0.1)  # blocks: no interval to wait between tries
            except queue.Empty:
                raise AssertionError(f"no {kind!r} event; got {[e.kind for e in taken]}") from None
            taken.append(event)
            return event.kind == kind

        eventually(reached, timeout=timeout, interval=0)
        return taken

    def close(self) -> None:
        self._closed.set()
        if self._response is not None:
            # The reader thread may be using it; its connection goes either way.
            with contextlib.suppress(Exception):
                self._response.close()


def feed_conversation(feed: Feed) -> tuple[list[tuple[str, str]], list[int]]:
    """What the feed told so far, drained: each user's message, then its answer (``done``) or its
    error; and the numbers of every event, in the order they came."""
    told, ids = [], []
    while not feed.events.empty():
        event = feed.events.get_nowait()
        if event.id is not None:
            ids.append(event.id)
        if event.kind == "user":
            told.append(("user", event.data["content"]))
        elif event.kind in ("done", "error"):
            told.append((event.kind, ""))
    return told, ids


def transcript_conversation(messages: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The same conversation as a transcript tells it (an interrupted message counts as an error)."""
    told: list[tuple[str, str]] = []
    for message in messages:
        if message["role"] == "user":
            told.append(("user", str(message["content"])))
            if message["interrupted"]:
                told.append(("error", ""))
        else:
            told.append(("done", ""))
    return told


def disagreement(name: str, told: list[tuple[str, str]], transcript: list[tuple[str, str]]) -> str | None:
    """Where a feed and a transcript tell a conversation differently, as a diff a failure can print
    whole (a long conversation's repr is cut in the middle, just where they part)."""
    if told == transcript:
        return None
    lines = difflib.unified_diff(
        [f"{kind} {content}" for kind, content in transcript],
        [f"{kind} {content}" for kind, content in told],
        f"{name}: transcript",
        f"{name}: feed",
        lineterm="",
    )
    return "\n".join(lines)

"""Server-sent events, framed exactly the way our clients read them: the web UI and the tests (named
events of JSON) and the Copilot runtime's OpenAI client (``data:`` chunks closed by ``data: [DONE]``).

Why not sse-starlette's ``EventSourceResponse`` (installed anyway, through ``mcp``): to put these same
bytes on the wire it needs two of its defaults overridden (``\\r\\n`` line ends; a ``: ping`` comment
every 15 s), and what it adds beyond that -- multi-line data, ``id``/``retry`` for reconnection -- our
one-shot POST streams of one-line JSON never use. What it would change is shutdown: its drain, hooked
into uvicorn process-wide, cancels every stream in flight on SIGTERM, so an answer stops mid-way and an
OpenAI stream ends without ``[DONE]``; with Starlette's ``StreamingResponse`` uvicorn's graceful
shutdown lets them finish. Keeping that would take a grace period on every response or a process-wide
switch that also governs the MCP server's streams.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterable, Mapping

from starlette.responses import StreamingResponse

DONE = "[DONE]"  # the data of an OpenAI stream's last event
_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # the spec's line ends, and only those (not U+2028 & co.)


def frame(data: str, event: str | None = None, event_id: int | None = None) -> str:
    """One event: an ``event:`` line if named, an ``id:`` line if numbered (the live feeds, which a
    client resumes with ``Last-Event-ID``), a ``data:`` line per line of ``data``, a blank line."""
    name = f"event: {event}\n" if event else ""
    number = f"id: {event_id}\n" if event_id is not None else ""
    lines = "".join(f"data: {line}\n" for line in _LINE_BREAK.split(data))
    return f"{name}{number}{lines}\n"


def event_stream(frames: AsyncIterable[str], headers: Mapping[str, str] | None = None) -> StreamingResponse:
    """A ``text/event-stream`` response sending ``frames`` as they come."""
    return StreamingResponse(frames, media_type="text/event-stream", headers=headers)

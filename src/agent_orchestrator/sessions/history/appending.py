"""Events of our own appended to a session's log, in the runtime's own shapes.

Some turns are written by us rather than by the runtime: a changed reading (a tool turn no model
answered) and the part of an answer said before it was stopped. They go where the conversation lives,
the runtime's event log, so that the transcript, search, exports and the model in later turns all see
them (docs/architecture.md#editing-a-reading). Each appended event is chained by ``parentId`` from the
log's last complete line, as the runtime chains its own.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from typing import Any


def intact(raw: bytes) -> tuple[bytes, str | None]:
    """The log up to its last complete line, and that line's event id (the new events' parent). A
    torn last line (a crash mid-append) is dropped: an event appended after it would be torn too."""
    log = raw[: raw.rfind(b"\n") + 1]
    last = log.rstrip(b"\n").rsplit(b"\n", 1)[-1]
    try:
        parent = json.loads(last).get("id")
    except (ValueError, AttributeError):
        parent = None
    return log, parent if isinstance(parent, str) else None


def event_lines(events: Sequence[tuple[str, Mapping[str, Any]]], parent: str | None, at: str) -> bytes:
    """``(type, data)`` pairs as log lines, each the child of the one before (the first of ``parent``)."""
    lines = []
    for kind, data in events:
        event_id = str(uuid.uuid4())
        event = {"type": kind, "data": data, "id": event_id, "timestamp": at, "parentId": parent}
        parent = event_id
        lines.append(json.dumps(event, separators=(",", ":"), ensure_ascii=False) + "\n")
    return "".join(lines).encode()

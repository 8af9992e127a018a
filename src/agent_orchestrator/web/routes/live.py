"""The live feeds, as server-sent events (docs/architecture.md#live-sessions).

``GET /api/sessions/{id}/events``: one session's conversation as it happens (``user``, ``delta``,
``tool``, ``done``, ``error``, ``idle``, ``renamed``, ``organised``, ``feedback``, ``deleted``), owner
only, like every session route. ``GET /api/events``: the user's sessions list (``created``,
``renamed``, ``organised``, ``deleted``, ``busy``, ``idle``, each with the session's ``id``). Every
event has an ``id:``; a client resumes after ``Last-Event-ID`` (the browser's ``EventSource`` sends
it on reconnect) or ``?after=`` (the first connection, from the transcript's ``last_event_id``). A
``reset`` event means the client is further behind than the feed keeps: reload, then follow on.

A feed ends after ``AGENT_WEB_LIVE_FEED_SECONDS`` (25 s; at its next event or keep-alive, which
comes every ``IDLE_SECONDS`` of quiet) and the browser reconnects where it stopped. That keeps a
server's graceful shutdown, which waits for open responses, short, and stays under the idle limits
of proxies.
"""

import json
import time
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Header, HTTPException, Query, status
from fastapi.responses import StreamingResponse

from agent_orchestrator.sessions import Reset
from agent_orchestrator.sessions.store import MAX_SEQ, LiveEvent
from agent_orchestrator.sse import event_stream, frame
from agent_orchestrator.web.deps import CurrentActor, ServicesDep
from agent_orchestrator.web.routes.messages import feed_data

router = APIRouter(tags=["live"])

RETRY_MS = 1000
_HEADERS = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}

AfterQuery = Annotated[
    int | None, Query(ge=0, le=MAX_SEQ, description="Follow on after this event (first connection).")
]
LastEventId = Annotated[str | None, Header(description="Follow on after this event (reconnection).")]


@router.get(
    "/api/sessions/{session_id}/events",
    summary="The session's live feed (server-sent events)",
    response_class=StreamingResponse,
)
async def session_events(
    session_id: str,
    actor: CurrentActor,
    services: ServicesDep,
    after: AfterQuery = None,
    last_event_id: LastEventId = None,
) -> StreamingResponse:
    events = await services.sessions.follow(actor, session_id, _position(last_event_id, after))
    return event_stream(_frames(events, services.settings.live_feed_seconds), headers=_HEADERS)


@router.get(
    "/api/events", summary="The live feed of the user's sessions list", response_class=StreamingResponse
)
async def list_events(
    actor: CurrentActor, services: ServicesDep, after: AfterQuery = None, last_event_id: LastEventId = None
) -> StreamingResponse:
    position = _position(last_event_id, after)
    if position is None:
        position = await services.sessions.list_position(actor)
    feed = services.sessions.follow_list(actor, position)
    return event_stream(_frames(feed, services.settings.live_feed_seconds), headers=_HEADERS)


def _position(last_event_id: str | None, after: int | None) -> int | None:
    """Where to follow on from: a reconnection's ``Last-Event-ID`` wins over the first URL's ``after``.

    The header is ours to parse (400 when it is not an event number): only ASCII digits, since
    ``int`` also reads other scripts' (a header is Latin-1, so ``²`` arrives), and within ``MAX_SEQ``."""
    if last_event_id is None or not last_event_id.strip():
        return after
    sent = last_event_id.strip()
    if not (sent.isascii() and sent.isdigit() and len(sent) <= len(str(MAX_SEQ)) and int(sent) <= MAX_SEQ):
        raise HTTPException(status.HTTP_400_BAD_REQUEST, "Last-Event-ID must be an event number.")
    return int(sent)


async def _frames(events: AsyncIterator[LiveEvent | Reset | None], lifetime: float) -> AsyncIterator[str]:
    yield f"retry: {RETRY_MS}\n\n"
    deadline = time.monotonic() + lifetime
    try:
        async for item in events:
            match item:
                case None:
                    yield ": ping\n\n"
                case Reset(seq=seq):
                    yield frame("{}", event="reset", event_id=seq)
                case LiveEvent(seq=seq, kind=kind, data=data):
                    data = feed_data(kind, data)
                    yield frame(json.dumps(data, ensure_ascii=False), event=kind, event_id=seq)
                    if kind == "deleted":
                        return
            if time.monotonic() > deadline:
                return  # the browser reconnects with Last-Event-ID
    finally:
        await events.aclose()  # type: ignore[attr-defined]

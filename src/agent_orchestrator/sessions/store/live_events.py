"""The live feed's event log: numbered events per stream, bounded, and announced across servers.

A stream is one session's conversation or one user's list of sessions (docs/architecture.md#live-sessions).
Each event gets the stream's next number, ``max(seq) + 1``, and numbers are consecutive and commit in
order: a reader that saw event N has seen every event before it that still exists.

* SQLite: writers take turns on the write lock of ``BEGIN IMMEDIATE``; one write may add to several
  streams.
* PostgreSQL: an append is one statement in autocommit, whatever it adds to how many streams (the
  busiest write of a turn: its start and its end each add to two streams, and the end drops earlier
  turns' deltas too): it inserts ``max(seq) + 1`` on and sends ``NOTIFY`` with a tiny payload,
  ``"<stream> <seq>"``, per stream (the listening servers read the bodies from here). The primary
  key keeps the order: a second writer that computed the same number waits for the first one's
  commit, fails with a unique violation and tries again with the next. Writes that must check before
  they write (ending a dead server's turn, restarting a stream) take an advisory lock per stream for
  that, and retry the same way against plain appends.

A turn's end (a batch with ``ends_turn_from``) is dropped when its turn has ended already: a server
that stalled past its lease while another one ended the turn for it (``end_open_turn``) must not end
it a second time when it wakes.

A session stream's ``deleted`` is its last event: appends after it are dropped (a turn that was still
running somewhere when its session was deleted must leave nothing for a later reader), and only
:meth:`LiveEventLog.restart` (a session created under that id) starts it again.

Bounded in two ways: when a turn ends the deltas of the turns before it go (each ``done`` holds its
whole answer), and every hundredth event trims the stream to its latest :data:`KEEP`. A client that
is further behind is told to reload (:meth:`LiveEventLog.covers`).

A turn's events come faster than one write each can keep up with on a busy server: those that queued
up meanwhile are written together (:meth:`LiveEventLog.append_all`), with one ``NOTIFY`` for the last
of them (a listener reads everything up to it from the log).

Sealed bodies (docs/architecture.md#encryption-at-rest): with a ``sealer`` (a master key is set), the
body of a session stream's event (prompts, answers, tool results, titles) is stored encrypted with that
session's data key, so deleting the session (its key) leaves any copy of its rows unreadable; such a
row reads as :data:`ERASED_EVENT`. Sealing happens before the stream's lock is taken (the key may have
to be fetched or made). A user's stream carries session ids only, and stays in clear; so do empty
bodies (``idle``, ``deleted``), which need no key lookup.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, TypeVar

from sqlalchemy import Connection, Engine, bindparam, delete, func, insert, select, text
from sqlalchemy.exc import IntegrityError

from agent_orchestrator.sessions.store.engine import read_connection, write_transaction
from agent_orchestrator.sessions.store.schema import live_events, utcnow

KEEP = 500
# The largest event number: ``seq`` is a 64-bit signed integer on both backends, so a position a
# client sends must be refused past it rather than overflow the query.
MAX_SEQ = 2**63 - 1
_TRIM_EVERY = 100
# First half of the two-int advisory lock key ("11FE" for live); the second is the stream's hash.
_PG_LOCK_CLASS = 0x11FE
# Where a turn starts or ends: what a client joining a conversation must not see half of.
BOUNDARY_KINDS = ("created", "user", "done", "error", "idle", "deleted")
_SESSION_STREAM = "s:"
# What an event sealed under a destroyed key reads as.
ERASED_EVENT: dict[str, Any] = {"erased": True}


def session_stream(session_id: str) -> str:
    return f"{_SESSION_STREAM}{session_id}"


def user_stream(user_id: int) -> str:
    return f"u:{user_id}"


class EventSealer(Protocol):
    """Encrypts a text with a session's data key (``SessionCipher``: docs/architecture.md#encryption-at-rest).
    ``open_text`` gives text stored in clear as it is, and a fixed marker that is not a JSON object
    for text whose key is gone."""

    def seal_text(self, session_id: str, text: str) -> str: ...

    def open_text(self, session_id: str, stored: str) -> str: ...


@dataclass(frozen=True, slots=True)
class LiveEvent:
    seq: int
    kind: str
    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Batch:
    """Events (kind, data) to add to one stream together. With ``ends_turn_from`` they end a turn whose
    first event has that number (0: the first of these), and the deltas of the turns before it go."""

    stream: str
    events: Sequence[tuple[str, dict[str, Any]]]
    ends_turn_from: int | None = None

    def numbered(self, first: int) -> list[LiveEvent]:
        return [LiveEvent(first + i, kind, data) for i, (kind, data) in enumerate(self.events)]


class LiveEventLog:
    """Append and read a stream's events; every call is one short transaction."""

    def __init__(
        self, engine: Engine, *, sealer: EventSealer | None = None, publisher: Publisher | None = None
    ) -> None:
        """``publisher``: announce each write's last event through it, after its commit, instead of
        PostgreSQL's ``NOTIFY`` (docs/architecture.md#live-sessions: the fan-out)."""
        self._engine = engine
        self._sealer = sealer
        self.postgres = engine.dialect.name == "postgresql"
        self._publisher = publisher
        self._channel: str | None = None

    @property
    def engine(self) -> Engine:
        return self._engine

    def channel(self) -> str:
        """The ``NOTIFY`` channel: one per schema, so apps on other schemas of a database stay apart."""
        if self._channel is None:
            with read_connection(self._engine) as conn:
                schema = conn.execute(text("SELECT current_schema()")).scalar_one()
            self._channel = "ao_live_" + hashlib.sha256(str(schema).encode()).hexdigest()[:16]
        return self._channel

    def append(self, stream: str, kind: str, data: dict[str, Any]) -> LiveEvent:
        """Add an event as the stream's next one."""
        return self.append_all(stream, [(kind, data)])[0]

    def append_all(
        self, stream: str, events: Sequence[tuple[str, dict[str, Any]]], *, ends_turn_from: int | None = None
    ) -> list[LiveEvent]:
        """Add ``events`` (kind, data) as the stream's next ones, together (see :class:`Batch`)."""
        return self.append_each([Batch(stream, events, ends_turn_from)])[0]

    def append_each(self, batches: Sequence[Batch]) -> list[list[LiveEvent]]:
        """Add each batch's events to its stream, in one write: a turn's start (its message, and its
        owner's list hearing the session is busy) and its end are one each. Returns each batch's events
        as numbered; none for a session stream that ended with ``deleted`` (see the module docstring)."""
        if not any(batch.events for batch in batches):
            return [[] for _ in batches]
        bodies = [[self._body(batch.stream, data) for _, data in batch.events] for batch in batches]
        if self.postgres:
            with read_connection(self._engine) as conn:  # autocommit: the statement commits
                numbered = _unique(lambda: self._pg_append_each(conn, batches, bodies))
            for batch, events in zip(batches, numbered, strict=True):
                if events:
                    self._publish(batch.stream, events[-1].seq)
            return numbered
        with write_transaction(self._engine) as conn:
            return [
                self._sqlite_batch(conn, batch, sealed) for batch, sealed in zip(batches, bodies, strict=True)
            ]

    def _pg_append_each(
        self, conn: Connection, batches: Sequence[Batch], bodies: list[list[str]]
    ) -> list[list[LiveEvent]]:
        """The one-statement append (see the module docstring) of every batch; trimming, when a stream
        passes a hundred, is a second one."""
        flat = [
            (batch.stream, kind, body)
            for batch, sealed in zip(batches, bodies, strict=True)
            for (kind, _), body in zip(batch.events, sealed, strict=True)
        ]
        ends = [(batch.stream, batch.ends_turn_from) for batch in batches if batch.ends_turn_from is not None]
        params = {
            "streams": [stream for stream, _, _ in flat],
            "kinds": [kind for _, kind, _ in flat],
            "bodies": [body for _, _, body in flat],
            "end_streams": [stream for stream, _ in ends],
            "end_befores": [before for _, before in ends],
            "at": utcnow(),
            "channel": self.channel(),
        }
        statement = _PG_APPEND_EACH if self._publisher is None else _PG_APPEND_EACH_QUIET
        firsts = {stream: int(first) for stream, first, _, _ in conn.execute(statement, params).all()}
        numbered: list[list[LiveEvent]] = []
        for batch in batches:  # a stream's batches took its numbers in their order
            first = firsts.get(batch.stream)
            if first is None or not batch.events:  # nothing to add, or the stream ended with ``deleted``
                numbered.append([])
                continue
            firsts[batch.stream] = first + len(batch.events)
            self._trim(conn, batch.stream, first, first + len(batch.events) - 1)
            numbered.append(batch.numbered(first))
        return numbered

    def _sqlite_batch(self, conn: Connection, batch: Batch, bodies: list[str]) -> list[LiveEvent]:
        if not bodies:
            return []
        head = conn.execute(_HEAD, {"stream": batch.stream}).first()
        if head is not None and head.kind == "deleted" and _session_of(batch.stream) is not None:
            return []
        if (
            batch.ends_turn_from
            and conn.execute(_ENDED, {"stream": batch.stream, "after": batch.ends_turn_from}).first()
        ):
            return []  # another server ended the turn meanwhile (see the module docstring)
        first = (head.seq if head is not None else 0) + 1
        at = utcnow()
        rows = [
            {"stream": batch.stream, "seq": first + i, "kind": kind, "data": body, "at": at}
            for i, ((kind, _), body) in enumerate(zip(batch.events, bodies, strict=True))
        ]
        conn.execute(insert(live_events), rows)
        self._tidy(conn, batch.stream, first, first + len(rows) - 1, batch.ends_turn_from)
        return batch.numbered(first)

    def _tidy(self, conn: Connection, stream: str, first: int, last: int, ends_turn_from: int | None) -> None:
        """Bound the stream after ``first``..``last`` were added (see the module docstring)."""
        self._trim(conn, stream, first, last)
        if ends_turn_from is not None:
            conn.execute(_DROP_DELTAS, {"stream": stream, "before": ends_turn_from or first})

    def _trim(self, conn: Connection, stream: str, first: int, last: int) -> None:
        """Keep the stream's latest :data:`KEEP` events, once every hundred."""
        if last // _TRIM_EVERY > (first - 1) // _TRIM_EVERY:
            conn.execute(_TRIM, {"stream": stream, "upto": last - KEEP})

    def restart(self, stream: str, kind: str, data: dict[str, Any]) -> LiveEvent:
        """Forget the stream's events and add this one, numbered on from the last (a created or deleted
        session: nothing of an earlier conversation under the same id can be replayed)."""
        body = self._body(stream, data)
        event = _unique(lambda: self._restart(stream, kind, data, body))
        self._publish(stream, event.seq)
        return event

    def end_open_turn(
        self,
        stream: str,
        message: str,
        *,
        answer: str | None = None,
        prompt: str | None = None,
        since: datetime | None = None,
    ) -> list[LiveEvent]:
        """If the stream's last turn never ended (its server died), end it: ``error`` (``message``), or
        ``done`` when the turn's ``answer`` reached the session's log before its server died; then
        ``idle``. A turn whose message (``prompt``, pending in the catalog since the turn began at
        ``since``) the feed never heard of -- its server died between the two -- is told now, with
        its end, so the feed says what the transcript shows; one the feed told, and ended (its server
        lost its lease before its catalog write), is left as it is. Checked and written under the
        stream's lock, so several servers noticing at once end it once."""
        ending: tuple[str, dict[str, Any]] = (
            ("error", {"message": message, "code": "turn_interrupted"})
            if answer is None
            else ("done", {"content": answer, "tool_results": []})
        )
        told: list[tuple[str, dict[str, Any]]] = [] if prompt is None else [("user", {"content": prompt})]
        events = [*told, ending, ("idle", {})]
        bodies = [self._body(stream, data) for _, data in events]
        ended = _unique(lambda: self._end_open_turn(stream, events, bodies, told=bool(told), since=since))
        if ended:
            self._publish(stream, ended[-1].seq)
        return ended

    def _end_open_turn(
        self,
        stream: str,
        events: list[tuple[str, dict[str, Any]]],
        bodies: list[str],
        *,
        told: bool,
        since: datetime | None,
    ) -> list[LiveEvent]:
        """``events``: the message (if ``told``), the ending and ``idle``; the message is left out when
        the feed has it."""
        t = live_events
        with self._locked(stream) as conn:
            boundary = conn.execute(
                select(t.c.kind)
                .where(t.c.stream == stream, t.c.kind.in_(BOUNDARY_KINDS))
                .order_by(t.c.seq.desc())
                .limit(1)
            ).scalar_one_or_none()
            heard = told and (
                since is None
                or conn.execute(
                    select(t.c.seq).where(t.c.stream == stream, t.c.kind == "user", t.c.at >= since).limit(1)
                ).first()
                is not None
            )
            if boundary == "user":
                start = 1 if told else 0
            elif told and not heard and boundary != "deleted":
                start = 0
            else:
                return []
            return [
                self._insert(conn, stream, kind, data, body)
                for (kind, data), body in zip(events[start:], bodies[start:], strict=True)
            ]

    def _restart(self, stream: str, kind: str, data: dict[str, Any], body: str) -> LiveEvent:
        with self._locked(stream) as conn:
            seq = _latest(conn, stream) + 1  # before the delete: the numbering goes on
            conn.execute(delete(live_events).where(live_events.c.stream == stream))
            return self._insert(conn, stream, kind, data, body, seq)

    def _body(self, stream: str, data: dict[str, Any]) -> str:
        """What the ``data`` column stores: the JSON of ``data``, sealed if it may hold text."""
        body = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        session_id = _session_of(stream)
        if self._sealer is None or session_id is None or not data:
            return body
        return self._sealer.seal_text(session_id, body)

    def _event(self, stream: str, seq: int, kind: str, body: str) -> LiveEvent:
        session_id = _session_of(stream)
        if self._sealer is not None and session_id is not None:
            body = self._sealer.open_text(session_id, body)
            if not body.startswith("{"):  # its key is gone
                return LiveEvent(seq, kind, dict(ERASED_EVENT))
        return LiveEvent(seq, kind, json.loads(body))

    @contextmanager
    def _locked(self, stream: str) -> Iterator[Connection]:
        """A write transaction that the stream's other writers wait for (see the module docstring)."""
        with write_transaction(self._engine) as conn:
            if self.postgres:
                conn.execute(select(func.pg_advisory_xact_lock(_PG_LOCK_CLASS, func.hashtext(stream))))
            yield conn

    def _insert(
        self,
        conn: Connection,
        stream: str,
        kind: str,
        data: dict[str, Any],
        body: str,
        seq: int | None = None,
    ) -> LiveEvent:
        t = live_events
        seq = seq or _latest(conn, stream) + 1
        conn.execute(insert(t).values(stream=stream, seq=seq, kind=kind, data=body, at=utcnow()))
        self._tidy(conn, stream, seq, seq, None)
        self._announce(conn, stream, seq)
        return LiveEvent(seq, kind, data)

    def _announce(self, conn: Connection, stream: str, seq: int) -> None:
        if self.postgres and self._publisher is None:  # delivered on commit, in commit order
            conn.execute(select(func.pg_notify(self.channel(), f"{stream} {seq}")))

    def _publish(self, stream: str, seq: int) -> None:
        """Announce ``seq`` of ``stream`` through the publisher, once it is committed."""
        if self._publisher is not None:
            self._publisher.publish(self.channel(), f"{stream} {seq}")

    def after(self, stream: str, seq: int, *, limit: int = KEEP) -> list[LiveEvent]:
        """The stream's events numbered above ``seq``, oldest first (at most ``limit``)."""
        t = live_events
        query = (
            select(t.c.seq, t.c.kind, t.c.data)
            .where(t.c.stream == stream, t.c.seq > seq)
            .order_by(t.c.seq)
            .limit(limit)
        )
        with read_connection(self._engine) as conn:
            rows = conn.execute(query).all()
        return [self._event(stream, int(r.seq), r.kind, r.data) for r in rows]

    def latest(self, stream: str) -> int:
        """The number of the stream's last event (0: none yet)."""
        with read_connection(self._engine) as conn:
            return _latest(conn, stream)

    def covers(self, stream: str, seq: int) -> bool:
        """Whether a client that has seen up to ``seq`` can be caught up from what is kept: the events
        after it are all here, bar deltas of finished turns (their ``done`` replaces them)."""
        t = live_events
        with read_connection(self._engine) as conn:
            oldest, last = conn.execute(
                select(func.min(t.c.seq), func.max(t.c.seq)).where(t.c.stream == stream)
            ).one()
        if oldest is None:
            return seq == 0
        return oldest <= seq + 1 and seq <= last

    def current_turn(self, stream: str) -> list[LiveEvent]:
        """The stream's events from its last turn boundary (see :data:`BOUNDARY_KINDS`) on."""
        t = live_events
        start = (
            select(func.coalesce(func.max(t.c.seq), 0))
            .where(t.c.stream == stream, t.c.kind.in_(BOUNDARY_KINDS))
            .scalar_subquery()
        )
        query = (
            select(t.c.seq, t.c.kind, t.c.data)
            .where(t.c.stream == stream, t.c.seq >= start)
            .order_by(t.c.seq)
        )
        with read_connection(self._engine) as conn:
            rows = conn.execute(query).all()
        return [self._event(stream, int(r.seq), r.kind, r.data) for r in rows]


def _session_of(stream: str) -> str | None:
    """The session a stream is the conversation of (``None``: a user's stream)."""
    return stream.removeprefix(_SESSION_STREAM) if stream.startswith(_SESSION_STREAM) else None


def _latest(conn: Connection, stream: str) -> int:
    return int(conn.execute(_LATEST, {"stream": stream}).scalar_one())


_T = TypeVar("_T")
# Built once: a statement built per call costs more Python than the query (its cache key is rebuilt).
_LATEST = select(func.coalesce(func.max(live_events.c.seq), 0)).where(
    live_events.c.stream == bindparam("stream")
)
_HEAD = (
    select(live_events.c.seq, live_events.c.kind)
    .where(live_events.c.stream == bindparam("stream"))
    .order_by(live_events.c.seq.desc())
    .limit(1)
)
_ENDED = (
    select(live_events.c.seq)
    .where(
        live_events.c.stream == bindparam("stream"),
        live_events.c.seq > bindparam("after"),
        live_events.c.kind.in_(("done", "error", "idle")),
    )
    .limit(1)
)
_TRIM = delete(live_events).where(
    live_events.c.stream == bindparam("stream"), live_events.c.seq <= bindparam("upto")
)
_DROP_DELTAS = delete(live_events).where(
    live_events.c.stream == bindparam("stream"),
    live_events.c.kind == "delta",
    live_events.c.seq < bindparam("before"),
)
# Events of several streams in one statement: each stream's next numbers (none for a session stream
# that ended with ``deleted``), the deltas of the turns before the one each ``end_streams`` entry ends
# (from the event ``end_befores`` names; 0: the first of these), and one NOTIFY per stream for its last
# new event. The DELETE sees the table as it was before the INSERT, so it cannot take an event added
# here.
_PG_APPEND_EACH_SQL = """
WITH e AS (
    SELECT * FROM unnest(CAST(:streams AS varchar[]), CAST(:kinds AS varchar[]), CAST(:bodies AS text[]))
        WITH ORDINALITY AS e(stream, kind, data, ord)
),
head AS (
    SELECT s.stream, coalesce(h.seq, 0) AS n, h.kind
    FROM (SELECT DISTINCT stream FROM e) s
    LEFT JOIN LATERAL (
        SELECT l.seq, l.kind FROM live_events l WHERE l.stream = s.stream ORDER BY l.seq DESC LIMIT 1
    ) h ON true
),
base AS (
    SELECT head.stream, head.n FROM head
    WHERE (left(head.stream, 2) <> 's:' OR head.kind IS DISTINCT FROM 'deleted')
      AND NOT EXISTS (
        SELECT 1
        FROM unnest(CAST(:end_streams AS varchar[]), CAST(:end_befores AS bigint[])) AS t(stream, before)
        JOIN live_events b ON b.stream = t.stream AND b.seq > t.before AND b.kind IN ('done', 'error', 'idle')
        WHERE t.stream = head.stream AND t.before > 0
      )
),
added AS (
    INSERT INTO live_events (stream, seq, kind, data, at)
    SELECT e.stream, base.n + row_number() OVER (PARTITION BY e.stream ORDER BY e.ord), e.kind, e.data, :at
    FROM e JOIN base USING (stream)
    RETURNING stream, seq
),
dropped AS (
    DELETE FROM live_events d
    USING base, unnest(CAST(:end_streams AS varchar[]), CAST(:end_befores AS bigint[])) AS t(stream, before)
    WHERE base.stream = t.stream AND d.stream = t.stream AND d.kind = 'delta'
      AND d.seq < CASE WHEN t.before > 0 THEN t.before ELSE base.n + 1 END
)
SELECT stream, min(seq), max(seq), {announce} FROM added GROUP BY stream
"""
_PG_APPEND_EACH = text(_PG_APPEND_EACH_SQL.format(announce="pg_notify(:channel, stream || ' ' || max(seq))"))
_PG_APPEND_EACH_QUIET = text(_PG_APPEND_EACH_SQL.format(announce="NULL"))
"""The same append for a log whose announcements go out another way (a :class:`Publisher`)."""
_UNIQUE_RETRIES = 100


class Publisher(Protocol):
    """Where a log's announcements go when not through ``NOTIFY``: ``"<stream> <seq>"`` on a channel."""

    def publish(self, channel: str, message: str) -> None: ...


_UNIQUE_VIOLATION = "23505"  # PostgreSQL's SQLSTATE


def _unique(write: Callable[[], _T]) -> _T:
    """Run ``write`` again while it loses a race for a number (a unique violation on PostgreSQL:
    another writer committed that number while this one computed it)."""
    for _ in range(_UNIQUE_RETRIES - 1):
        try:
            return write()
        except IntegrityError as error:
            if getattr(error.orig, "sqlstate", None) != _UNIQUE_VIOLATION:
                raise
    return write()

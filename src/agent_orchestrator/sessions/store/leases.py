"""Per-session leases: one writer per session across threads, processes and servers.

A lease is a row per session saying who may write (``holder``) until when (``expires_at``). Expiry is
what lets a crashed server's sessions be picked up again; but expiry alone is not safe: a writer that
paused (GC, a slow disk, a network stall) past its expiry may wake up and write *after* someone else
took over. Hence the **fencing token**: every acquisition by a new holder (or after expiry) increments
the session's ``fencing_token``, which never goes back, not even after release (the row is kept, with
``holder`` NULL). A writer passes its token along with its write, and the write path calls
:meth:`LeaseManager.check` (or compares tokens in its own store), so a stale writer's late write is
rejected instead of interleaving with the new holder's.

Acquisition is a single upsert (``INSERT ... ON CONFLICT DO UPDATE ... WHERE``), atomic on both
backends: the row lock (PostgreSQL) or the write lock (SQLite ``BEGIN IMMEDIATE``) decides races.

Time: expiry is decided by *one* clock per backend. PostgreSQL: the database server's
``clock_timestamp()``, so app servers with skewed clocks still agree. SQLite: Python's UTC clock, since
every process using the file runs on the same machine. Catalog timestamps, by contrast, are app time.

A holder may also know, without asking, that its lease is still live: the expiry counts from a moment
after the statement that took (or renewed) the lease was sent, so until ``sent + ttl`` on any steady
clock nobody else can have it. :attr:`Lease.sure_until` is half of that span, on :func:`lease_clock`
(a clock that keeps counting while the machine sleeps): the other half absorbs clocks running at
different rates. Past it, ask the database (:meth:`LeaseManager.check`).
"""

from __future__ import annotations

import enum
import os
import secrets
import socket
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    Engine,
    Float,
    and_,
    bindparam,
    case,
    func,
    literal,
    literal_column,
    or_,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql.dml import ReturningInsert
from sqlalchemy.sql.elements import BindParameter, ColumnElement

from agent_orchestrator.sessions.store.engine import database_now, read_connection, write_transaction
from agent_orchestrator.sessions.store.schema import UTCDateTime, session_leases, utcnow
from agent_orchestrator.sessions.store.turn_end import (
    POSTGRES_TURN_END,
    TurnEnd,
    postgres_params,
    write_in_transaction,
)

_HOLDER_MAX = 200
# The share of a lease's ttl that its holder counts on without asking (see the module docstring).
_SURE_SHARE = 0.5
_CLOCK = getattr(time, "CLOCK_BOOTTIME", time.CLOCK_MONOTONIC)


def lease_clock() -> float:
    """Seconds on the clock that times :attr:`Lease.sure_until`: steady, and (on Linux) still
    counting while the machine is suspended, so a server that slept never trusts a lapsed lease."""
    return time.clock_gettime(_CLOCK)


def _sure_until(sent: float, ttl: float) -> float:
    """Until when a lease taken or renewed for ``ttl`` seconds by a statement sent at ``sent`` (on
    :func:`lease_clock`) is surely still its holder's."""
    return sent + ttl * _SURE_SHARE


@dataclass(frozen=True, slots=True)
class Lease:
    """A held lease. ``expires_at`` is as of acquisition (``renew`` extends the row, not this object);
    ``sure_until`` (on :func:`lease_clock`; 0 when unknown) is until when it is surely live, as of
    acquisition too."""

    session_id: str
    holder: str
    fencing_token: int
    expires_at: datetime
    sure_until: float = field(default=0.0, compare=False)  # what this process knows, not the lease


@dataclass(frozen=True, slots=True)
class Revoked:
    """A lease taken from whoever held it (:meth:`LeaseManager.revoke`): the new ``lease``, and the
    holder it was taken from (``None``: it was free) with the seconds its lease still had to run, during
    which that holder may still write without asking (docs/architecture.md#leases-and-fencing)."""

    lease: Lease
    previous_holder: str | None
    remaining: float


@dataclass(slots=True)
class Fence:
    """What a holder writing under a lease knows of it: the token its writes pass, and until when
    (on :func:`lease_clock`) the lease is surely live without asking, moved on by each renewal."""

    token: int
    sure_until: float

    @classmethod
    def of(cls, lease: Lease) -> Fence:
        return cls(lease.fencing_token, lease.sure_until)

    def surely_live(self) -> bool:
        return lease_clock() < self.sure_until

    def renewed(self, sent: float, ttl: float, ok: bool) -> None:
        """Account for a renewal for ``ttl`` seconds sent at ``sent``: a failed one means ask from now."""
        self.sure_until = _sure_until(sent, ttl) if ok else 0.0


class Write(enum.Enum):
    """What becomes of a write to a session's shared files, by who makes it
    (docs/architecture.md#leases-and-fencing)."""

    PASS = "pass"
    """The writer holds the session: its lease is live, or it is the newest copy between turns."""
    DROP = "drop"
    """A copy between turns that someone else has leased since: stale, so what it writes (a warning,
    its shutdown record as it is closed) is not the log's any more. Accepted and dropped, not refused:
    a refused write leaves the runtime's copy half-closed, and the runtime then fails the next resume of
    the session on this server ("session close failed")."""
    REFUSE = "refuse"
    """A turn (or an opening) whose lease is no longer live: its writes fail, and so does the turn."""


def make_holder_id() -> str:
    """A holder name unique to this process (host, pid, random suffix), readable in diagnostics."""
    return f"{socket.gethostname()[:100]}:{os.getpid()}:{secrets.token_hex(4)}"


class LeaseManager:
    """Acquire, renew, release and check session leases; each call is one short transaction."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._postgres = engine.dialect.name == "postgresql"
        # Built once: the fencing check runs for every write to a session's shared files.
        self._acquire = _acquire_statement(self._postgres)
        t = session_leases
        live = and_(t.c.holder.is_not(None), t.c.expires_at > _now(self._postgres))
        self._check = select(literal(1)).where(
            t.c.session_id == bindparam("session_id"), t.c.fencing_token == bindparam("fencing_token"), live
        )
        self._current = select(t).where(t.c.session_id == bindparam("session_id"), live)
        # The end of every turn releases its lease: built with the held lease as parameters
        # (:func:`_lease_params`), not its values, which would rebuild the statement per call.
        self._release = update(t).where(_HELD).values(holder=None, expires_at=_now(self._postgres))
        self._release_while_live = self._release.where(t.c.expires_at > _now(self._postgres))

    def acquire(self, session_id: str, holder: str, ttl: float) -> Lease | None:
        """Take the lease for ``ttl`` seconds, or ``None`` if someone else holds an unexpired one.

        Succeeds if there is no lease, it expired or was released, or ``holder`` already holds it (then
        it is renewed; the token stays the same while the lease is live).
        """
        if not 0 < len(holder) <= _HOLDER_MAX:
            raise ValueError(f"Lease holders have 1 to {_HOLDER_MAX} characters.")
        _check_ttl(ttl)
        params: dict[str, Any] = {"session_id": session_id, "holder": holder, "ttl": ttl}
        sent = lease_clock()
        if self._postgres:  # one statement, in autocommit: its own transaction, on the server's clock
            with read_connection(self._engine) as conn:
                row = conn.execute(self._acquire, params).first()
        else:
            with write_transaction(self._engine) as conn:  # the time once the write lock is ours
                now = utcnow()
                params |= {"now": now, "expires_at": now + timedelta(seconds=ttl)}
                row = conn.execute(self._acquire, params).first()
        if row is None:
            return None
        return Lease(session_id, holder, int(row.fencing_token), row.expires_at, _sure_until(sent, ttl))

    def revoke(self, session_id: str, holder: str, ttl: float) -> Revoked:
        """Take the lease for ``ttl`` seconds whoever holds it (a delete, which must not wait for a
        turn to end): the token goes up, so the holder it is taken from fails its next renewal and,
        from the moment it asks, every fencing check."""
        _check_ttl(ttl)
        t = session_leases
        sent = lease_clock()
        upsert = (postgresql.insert if self._postgres else sqlite.insert)(t)
        with write_transaction(self._engine) as conn:
            now = database_now(conn)
            held = conn.execute(
                select(t.c.holder, t.c.expires_at).where(t.c.session_id == session_id).with_for_update()
            ).first()
            expires_at = now + timedelta(seconds=ttl)
            token = conn.execute(
                upsert.values(session_id=session_id, holder=holder, fencing_token=1, expires_at=expires_at)
                .on_conflict_do_update(
                    index_elements=[t.c.session_id],
                    set_={"holder": holder, "expires_at": expires_at, "fencing_token": t.c.fencing_token + 1},
                )
                .returning(t.c.fencing_token)
            ).scalar_one()
        lease = Lease(session_id, holder, int(token), expires_at, _sure_until(sent, ttl))
        if held is None or held.holder is None or held.expires_at <= now:
            return Revoked(lease, None, 0.0)
        return Revoked(lease, held.holder, (held.expires_at - now).total_seconds())

    def renew(self, lease: Lease, ttl: float, *, fence: Fence | None = None) -> bool:
        """Extend a lease we still hold; ``False`` if it expired or was taken (acquire again then).
        ``fence``, the holder's of this lease, learns until when the renewal surely holds."""
        _check_ttl(ttl)
        sent = lease_clock()
        t = session_leases
        with write_transaction(self._engine) as conn:
            now = database_now(conn)
            result = conn.execute(
                update(t).where(_HELD, t.c.expires_at > now).values(expires_at=now + timedelta(seconds=ttl)),
                _lease_params(lease),
            )
        renewed = result.rowcount == 1
        if fence is not None:
            fence.renewed(sent, ttl, renewed)
        return renewed

    def release(self, lease: Lease) -> bool:
        """Give the lease up if it is still ours (a no-op, ``False``, if someone else has it now)."""
        with write_transaction(self._engine) as conn:
            return conn.execute(self._release, _lease_params(lease, now=utcnow())).rowcount == 1

    def finish(self, lease: Lease, end: TurnEnd) -> bool:
        """End a turn: write what it leaves behind and release the lease, as one write
        (:mod:`~agent_orchestrator.sessions.store.turn_end`: a transaction on SQLite, one statement on
        PostgreSQL). The fenced part of ``end`` is written only if the lease is still live (then
        ``True``); its tokens either way; a lease that expired is released all the same if no one took
        it since."""
        if self._postgres:
            with read_connection(self._engine) as conn:  # autocommit: the statement commits
                return bool(
                    conn.execute(POSTGRES_TURN_END, postgres_params(_lease_params(lease), end)).scalar()
                )
        with write_transaction(self._engine) as conn:
            live = conn.execute(self._release_while_live, _lease_params(lease, now=utcnow())).rowcount == 1
            if not live:
                conn.execute(self._release, _lease_params(lease, now=utcnow()))
            write_in_transaction(conn, end, live=live)
        return live

    def check(self, session_id: str, fencing_token: int) -> bool:
        """True only if ``fencing_token`` is the session's current, unexpired lease."""
        params = {"session_id": session_id, "fencing_token": fencing_token, "now": utcnow()}
        with read_connection(self._engine) as conn:
            return conn.execute(self._check, params).first() is not None

    def is_latest(self, session_id: str, fencing_token: int) -> bool:
        """True if no lease was taken since the one with ``fencing_token`` (live or not): its holder's
        copy of the session is still the newest. Token 0 stands for "before any lease" (the copy that
        created the session): true while the session has never been leased."""
        with read_connection(self._engine) as conn:
            latest = conn.execute(_LATEST_TOKEN, {"session_id": session_id}).scalar_one_or_none()
        return latest == fencing_token if fencing_token else latest is None

    def current(self, session_id: str) -> Lease | None:
        """The live lease on ``session_id``, if any (to tell a second sender who is busy, and until when)."""
        with read_connection(self._engine) as conn:
            row = conn.execute(self._current, {"session_id": session_id, "now": utcnow()}).first()
        return Lease(row.session_id, row.holder, int(row.fencing_token), row.expires_at) if row else None

    def count_live(self) -> int:
        """How many sessions are leased right now, by any server (a metric)."""
        t = session_leases
        query = select(func.count()).where(t.c.holder.is_not(None), t.c.expires_at > _now(self._postgres))
        with read_connection(self._engine) as conn:
            return int(conn.execute(query, {"now": utcnow()}).scalar_one())


# Built once (see LeaseManager.__init__).
_LATEST_TOKEN = select(session_leases.c.fencing_token).where(
    session_leases.c.session_id == bindparam("session_id")
)


def _now(postgres: bool) -> ColumnElement[datetime]:
    """The time that decides expiry (see the module docstring): the database server's on PostgreSQL,
    else the ``now`` parameter (Python's UTC clock)."""
    if postgres:
        return func.clock_timestamp(type_=UTCDateTime())
    return bindparam("now", type_=UTCDateTime())


def _acquire_statement(postgres: bool) -> ReturningInsert[Any]:
    """The upsert of :meth:`LeaseManager.acquire`, built once (every turn takes a lease; a statement
    built per call costs more Python than the query): parameters ``session_id``, ``holder`` and ``ttl``
    (seconds), and on SQLite ``now`` and ``expires_at``. On PostgreSQL the time is the statement's on
    the server, so taking a lease is one round trip."""
    t = session_leases
    holder: BindParameter[str] = bindparam("holder")
    now: ColumnElement[datetime]
    if postgres:
        now = func.statement_timestamp(type_=UTCDateTime())
        expires_at = now + literal_column("interval '1 second'") * bindparam("ttl", type_=Float())
    else:
        now, expires_at = bindparam("now", type_=UTCDateTime()), bindparam("expires_at", type_=UTCDateTime())
    insert = (postgresql.insert if postgres else sqlite.insert)(t).values(
        session_id=bindparam("session_id"), holder=holder, fencing_token=1, expires_at=expires_at
    )
    still_ours = and_(t.c.holder == holder, t.c.expires_at > now)
    return insert.on_conflict_do_update(
        index_elements=[t.c.session_id],
        set_={
            "holder": insert.excluded.holder,
            "expires_at": insert.excluded.expires_at,
            "fencing_token": case((still_ours, t.c.fencing_token), else_=t.c.fencing_token + 1),
        },
        where=or_(t.c.holder == holder, t.c.holder.is_(None), t.c.expires_at <= now),
    ).returning(t.c.fencing_token, t.c.expires_at)


# The row of a held lease, still held as it was (:func:`_lease_params` gives the parameters; their
# names differ from the columns', which name the parameters of an UPDATE's new values).
_HELD = and_(
    session_leases.c.session_id == bindparam("held_session_id"),
    session_leases.c.holder == bindparam("held_holder"),
    session_leases.c.fencing_token == bindparam("held_token"),
)


def _lease_params(lease: Lease, **more: Any) -> dict[str, Any]:
    return {
        "held_session_id": lease.session_id,
        "held_holder": lease.holder,
        "held_token": lease.fencing_token,
        **more,
    }


def _check_ttl(ttl: float) -> None:
    if not 0 < ttl <= 86_400:
        raise ValueError("Lease ttl is in seconds, above 0 and at most a day.")

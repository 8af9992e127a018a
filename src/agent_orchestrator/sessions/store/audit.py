"""The audit log: who did what to which session, from where, and when.

Events are typed (:class:`AuditEvent` with a ``Literal`` action checked at construction) so a typo in
an action name fails where it is made, not in a report months later. The catalog writes the event of a
create, rename or delete in the *same transaction* as the change (see ``SessionCatalog``): either both
happen or neither, so the trail can never claim a change that was rolled back, nor miss one that
happened. Refused logins are recorded too: a bad password as ``login_failed`` (naming the account only
if there is one). A create whose runtime step fails is undone, and its row's deletion is recorded as
``create_failed``: no ``create`` in the trail is left without its outcome.

A session's rows are keyed by its runtime id, which no other session ever has, and name the public id
its owner knew it by in ``details`` (docs/architecture.md#ownership). A well-formed session id that
the caller has no session of is ``unknown_id``, with the id as asked in ``asked_id`` (not a session's
key: a public id names a session in one owner's namespace only). It is written for *every* such
request, whether or not some other owner has a session of that id, because nothing else is looked
up: the ``404``, and the work behind it, are the same for an id nobody has and for another user's.
A session's activity then counts the rows asking for its public id, by anybody but its owner, since
it was created (the only way to tie an attempt to a session without looking it up at the time).
``denied`` (another user's id asked for) was written while session ids were global, keyed by the
session; it stays only so that earlier trails still read.

Where an action is limited per user and period (``import_file``: ten an hour), the trail is also
the count (:meth:`AuditLog.record_at_most`), so nothing else has to be kept. ``unknown_id`` is
limited the same way, so that a flood of ``404``s cannot grow the table without bound: one row per
user, asked id and minute, and at most 30 a minute per user (the attempts past that answer the same
``404`` and are not counted).

An admin-only route refused to an analyst is ``forbidden`` (with the method and path), and every
change to the retail data is audited: ``data_upload``, ``data_import_start`` and its outcome
(``data_import_done``, ``_failed``, ``_cancel``), ``data_switch`` (an import's version made active),
``data_restore`` (an older one made active again), ``data_settings`` and ``data_model`` (the columns'
roles or words changed) (docs/architecture.md#roles).
Action names fit the column's 20 characters.

Rows have no foreign keys: the trail must outlive the users and sessions it mentions.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from types import MappingProxyType
from typing import Any, Literal, get_args

from sqlalchemy import Connection, Engine, func, insert, select

from agent_orchestrator.sessions.store.engine import read_connection, write_transaction
from agent_orchestrator.sessions.store.schema import audit_log, utcnow

AuditAction = Literal[
    "create",
    "create_failed",
    "resume",
    "read",
    "rename",
    "delete",
    "denied",
    "unknown_id",
    "login",
    "login_failed",
    "login_locked",
    "logout",
    "fork",
    "branched",
    "rewind",
    "version",
    "version_switch",
    "export",
    "import",
    "import_file",
    "reading",
    "stop",
    "share",
    "share_view",
    "share_refused",
    "share_revoke",
    "share_refresh",
    "share_fork",
    "forbidden",
    "data_upload",
    "data_import_start",
    "data_import_done",
    "data_import_failed",
    "data_import_cancel",
    "data_switch",
    "data_restore",
    "data_settings",
    "data_model",
    "organise",
    "feedback",
    "feedback_export",
    "token_create",
    "token_revoke",
    "token_use",
    "device_approve",
]
AUDIT_ACTIONS: frozenset[str] = frozenset(get_args(AuditAction))
MAX_RECENT = 1_000
_USERNAME_MAX = 200
_CLIENT_ADDR_MAX = 64


@dataclass(frozen=True, slots=True)
class AuditEvent:
    """One audited action. ``username`` is kept as text so the record survives the user's deletion;
    for ``login_failed`` of a name that is no account's, it is a fixed placeholder (what was typed may
    be a password). ``details`` must be JSON-serialisable. ``asked_id`` is the session id an
    ``unknown_id`` asked for.

    ``id`` is ``None`` until the event is read back from the log.
    """

    action: AuditAction
    username: str
    user_id: int | None = None
    session_id: str | None = None
    client_addr: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    at: datetime = field(default_factory=utcnow)
    id: int | None = None
    asked_id: str | None = None

    def __post_init__(self) -> None:
        if self.action not in AUDIT_ACTIONS:
            raise ValueError(
                f"Unknown audit action {self.action!r}; expected one of {sorted(AUDIT_ACTIONS)}."
            )
        if self.at.tzinfo is None:
            raise ValueError("Audit timestamps must be timezone-aware.")
        json.dumps(dict(self.details))  # fail here, not inside the caller's transaction
        object.__setattr__(self, "details", MappingProxyType(dict(self.details)))
        object.__setattr__(self, "username", self.username[:_USERNAME_MAX])
        if self.client_addr is not None:
            object.__setattr__(self, "client_addr", self.client_addr[:_CLIENT_ADDR_MAX])


# Built once (every turn writes one): a statement built per call costs more Python than the insert.
_INSERT = insert(audit_log).returning(audit_log.c.id)


def write_event(conn: Connection, event: AuditEvent) -> int:
    """Insert ``event`` using ``conn``'s transaction (for callers that change data in the same one)."""
    return int(conn.execute(_INSERT, event_row(event)).scalar_one())


def event_row(event: AuditEvent) -> dict[str, Any]:
    """``event`` as the ``audit_log`` row's values, by column name (all but ``id``)."""
    return {
        "at": event.at,
        "user_id": event.user_id,
        "username": event.username,
        "action": event.action,
        "session_id": event.session_id,
        "client_addr": event.client_addr,
        "details": json.dumps(dict(event.details), sort_keys=True, separators=(",", ":")),
        "asked_id": event.asked_id,
    }


class AuditLog:
    """Append-only access to the ``audit_log`` table."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def record(self, event: AuditEvent) -> int:
        """Write ``event`` in its own transaction; return its id."""
        with write_transaction(self._engine) as conn:
            return write_event(conn, event)

    def record_at_most(self, event: AuditEvent, limit: int, period: timedelta) -> timedelta | None:
        """Write ``event`` unless its user already has ``limit`` events of its action within
        ``period`` before it, or, for an event with an ``asked_id``, one asking for the same id:
        ``None`` once written, else how long until the oldest of those leaves the period (when
        trying again can succeed).

        For actions that cost the server and that a client could repeat at will (``import_file``):
        the trail that says who did what, and when, is the count. One user's charges of an action
        take turns (on PostgreSQL under a transaction-scoped advisory lock on the action and user, on
        SQLite under the write lock every write transaction takes), so servers charging at the same
        moment cannot both pass the limit. A user's events are found through
        ``ix_audit_log_user_id``."""
        if event.user_id is None or limit < 1:
            raise ValueError("A limited action needs a user and a limit of at least 1.")
        t = audit_log
        with write_transaction(self._engine) as conn:
            if conn.dialect.name == "postgresql":
                conn.execute(select(func.pg_advisory_xact_lock(_lock_class(event.action), event.user_id)))
            within = conn.execute(
                select(t.c.at, t.c.asked_id)
                .where(t.c.user_id == event.user_id, t.c.action == event.action, t.c.at > event.at - period)
                .order_by(t.c.at)
                .limit(limit)
            ).all()
            # Fewer than ``limit`` rows are all of the period's, so a repeat of the asked id is among them.
            blocking = [
                row.at for row in within if event.asked_id is not None and row.asked_id == event.asked_id
            ]
            if len(within) >= limit or blocking:
                oldest = within[0].at if len(within) >= limit else blocking[0]
                return max(oldest + period - event.at, timedelta(0))
            write_event(conn, event)
        return None

    def asked_for(self, asked_id: str, *, since: datetime, other_than: int, limit: int) -> list[datetime]:
        """When users other than ``other_than`` asked for the session id ``asked_id`` and were told
        there is none (``unknown_id``) since ``since``: newest first, at most ``limit``."""
        t = audit_log
        query = (
            select(t.c.at)
            .where(
                t.c.asked_id == asked_id,
                t.c.action == "unknown_id",
                t.c.user_id != other_than,
                t.c.at >= since,
            )
            .order_by(t.c.id.desc())
            .limit(max(1, min(limit, MAX_RECENT)))
        )
        with read_connection(self._engine) as conn:
            return list(conn.execute(query).scalars())

    def recent(
        self, *, session_id: str | None = None, user_id: int | None = None, limit: int = 100
    ) -> list[AuditEvent]:
        """Newest first (insertion order), optionally for one session and/or one user."""
        limit = max(1, min(limit, MAX_RECENT))
        query = select(audit_log).order_by(audit_log.c.id.desc()).limit(limit)
        if session_id is not None:
            query = query.where(audit_log.c.session_id == session_id)
        if user_id is not None:
            query = query.where(audit_log.c.user_id == user_id)
        with read_connection(self._engine) as conn:
            rows = conn.execute(query).all()
        return [
            AuditEvent(
                action=row.action,
                username=row.username,
                user_id=row.user_id,
                session_id=row.session_id,
                client_addr=row.client_addr,
                details=json.loads(row.details),
                at=row.at,
                id=row.id,
                asked_id=row.asked_id,
            )
            for row in rows
        ]


def _lock_class(action: str) -> int:
    """The first key of an action's advisory locks (a positive 32-bit number; the user id is the
    second), so that two actions' limits never wait for each other."""
    return zlib.crc32(action.encode()) & 0x7FFFFFFF

"""The end of a turn as one write: what the turn leaves behind, and its lease given up
(docs/architecture.md#performance-budgets).

Every turn ends with the same writes: the catalog's record of it (status, preview, time) and the search
rows of its messages, both fenced (written only while the turn's lease is live, the rows only while the
session exists), the tokens it spent (recorded whatever became of the lease, settling the turn's
reservation under a daily budget: docs/architecture.md#usage-ledger), and the release of the lease.
On SQLite they are one transaction. On PostgreSQL they are one statement in autocommit: as a
transaction they were seven round trips (BEGIN, five statements, COMMIT), each paid in a backend's CPU
and in Python's by every turn of a busy server.

The statement keeps the transaction's rules (:meth:`LeaseManager.finish`): the lease row is locked
before it is judged (``FOR UPDATE``, which also waits out a renewal in flight and sees what it wrote),
so a lease another server took in the meantime is neither released nor counted on; the session's row,
updated only while the lease was live, stays locked until the statement commits, so the search rows
that refer to it cannot lose it to a delete in between.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, Insert, TextClause, bindparam, delete, insert, text, update
from sqlalchemy.dialects import postgresql, sqlite

from agent_orchestrator.sessions.store.catalog import turn_update
from agent_orchestrator.sessions.store.schema import UTCDateTime, search_messages, turn_usage

# The search rows' columns, as :meth:`SearchIndex.rows` gives them (``terms`` only when sealed).
_SEARCH_COLUMNS = ("session_id", "owner_id", "event_id", "role", "at", "body", "terms")


@dataclass(frozen=True, slots=True)
class TurnEnd:
    """What the end of a turn writes: the catalog's update (``SessionCatalog.turn_end_params``), the
    search rows of its messages (``SearchIndex.rows``) and the ledger's row of its tokens
    (``UsageLedger.row``; ``None``: it spent none), which settles the turn's ``reservation`` if it
    has one (``UsageLedger.reserve``: the row is then updated, or deleted if it spent none)."""

    session: Mapping[str, object]
    search_rows: Sequence[Mapping[str, object]] = ()
    usage: Mapping[str, object] | None = None
    reservation: int | None = None


@functools.cache
def search_upsert(dialect: str) -> Insert:
    """Search rows added unless indexed already (by event id; an indexed one is left as it is)."""
    upsert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    return upsert(search_messages).on_conflict_do_nothing(index_elements=["session_id", "event_id"])


# Built once, as every statement a turn runs (one built per call costs more Python than the insert).
_USAGE_INSERT = insert(turn_usage)
_USAGE_COLUMNS = ("at", "model", "input_tokens", "output_tokens")
_RESERVED = turn_usage.c.id == bindparam("reservation")
_SETTLE = (
    update(turn_usage)
    .where(_RESERVED)
    .values({**{name: bindparam(f"s_{name}") for name in _USAGE_COLUMNS}, "reserved_tokens": 0})
)
_UNRESERVE = delete(turn_usage).where(_RESERVED)


def write_in_transaction(conn: Connection, end: TurnEnd, *, live: bool) -> None:
    """The SQLite form: the fenced writes (if ``live``) and the tokens, in the caller's transaction,
    which has judged and released the lease (``LeaseManager.finish``)."""
    found = live and conn.execute(turn_update(busy=False, preview=True), dict(end.session)).rowcount == 1
    if found and end.search_rows:
        rows = [{name: row.get(name) for name in _SEARCH_COLUMNS} for row in end.search_rows]
        conn.execute(search_upsert(conn.dialect.name), rows)
    if end.reservation is None:
        if end.usage is not None:
            conn.execute(_USAGE_INSERT, dict(end.usage))
    elif end.usage is not None:
        settled = {f"s_{name}": end.usage[name] for name in _USAGE_COLUMNS}
        conn.execute(_SETTLE, {"reservation": end.reservation, **settled})
    else:
        conn.execute(_UNRESERVE, {"reservation": end.reservation})


def postgres_params(lease_params: Mapping[str, object], end: TurnEnd) -> dict[str, object]:
    """The parameters of :data:`POSTGRES_TURN_END` for ``end``, under the lease ``lease_params`` names."""
    rows = end.search_rows
    usage = end.usage or {}
    params: dict[str, object] = {
        **lease_params,
        **end.session,
        **{f"s_{name}": [row.get(name) for row in rows] for name in _SEARCH_COLUMNS},
        "u_spent": end.usage is not None,
        "u_reservation": end.reservation,
    }
    for name in ("user_id", "at", "model", "input_tokens", "output_tokens"):
        params[f"u_{name}"] = usage.get(name)
    return params


# One statement (see the module docstring). ``released`` judges the lease as it locks it (the old
# expiry, from the locked row); ``turn`` is the catalog's update, only while it was live; ``indexed``
# adds the search rows only if ``turn`` found the session; ``spent`` records the tokens either way, or
# ``settled`` writes them into the turn's reservation (``unreserved`` drops one that spent none).
POSTGRES_TURN_END: TextClause = text("""
WITH released AS (
    UPDATE session_leases AS l SET holder = NULL, expires_at = clock_timestamp()
    FROM (
        SELECT expires_at FROM session_leases
        WHERE session_id = :held_session_id AND holder = :held_holder AND fencing_token = :held_token
        FOR UPDATE
    ) AS held
    WHERE l.session_id = :held_session_id AND l.holder = :held_holder AND l.fencing_token = :held_token
    RETURNING held.expires_at > clock_timestamp() AS live
),
turn AS (
    UPDATE sessions
    SET updated_at = :p_updated_at, status = :p_status, pending_prompt = :p_pending_prompt,
        preview = :p_preview
    WHERE id = :p_id AND coalesce((SELECT live FROM released), false)
    RETURNING id
),
indexed AS (
    INSERT INTO search_messages (session_id, owner_id, event_id, role, at, body, terms)
    SELECT r.session_id, r.owner_id, r.event_id, r.role, r.at, r.body, r.terms
    FROM turn, unnest(
        CAST(:s_session_id AS varchar[]), CAST(:s_owner_id AS integer[]), CAST(:s_event_id AS varchar[]),
        CAST(:s_role AS varchar[]), CAST(:s_at AS varchar[]), CAST(:s_body AS text[]),
        CAST(:s_terms AS text[])
    ) AS r(session_id, owner_id, event_id, role, at, body, terms)
    ON CONFLICT (session_id, event_id) DO NOTHING
),
spent AS (
    INSERT INTO turn_usage (session_id, user_id, at, model, input_tokens, output_tokens)
    SELECT CAST(:held_session_id AS varchar), CAST(:u_user_id AS integer), CAST(:u_at AS timestamptz),
        CAST(:u_model AS varchar), CAST(:u_input_tokens AS bigint), CAST(:u_output_tokens AS bigint)
    WHERE CAST(:u_spent AS boolean) AND CAST(:u_reservation AS bigint) IS NULL
),
settled AS (
    UPDATE turn_usage
    SET at = CAST(:u_at AS timestamptz), model = CAST(:u_model AS varchar),
        input_tokens = CAST(:u_input_tokens AS bigint), output_tokens = CAST(:u_output_tokens AS bigint),
        reserved_tokens = 0
    WHERE id = CAST(:u_reservation AS bigint) AND CAST(:u_spent AS boolean)
),
unreserved AS (
    DELETE FROM turn_usage WHERE id = CAST(:u_reservation AS bigint) AND NOT CAST(:u_spent AS boolean)
)
SELECT coalesce((SELECT live FROM released), false) AS live
""").bindparams(bindparam("p_updated_at", type_=UTCDateTime()), bindparam("u_at", type_=UTCDateTime()))

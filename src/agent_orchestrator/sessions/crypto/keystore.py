"""The per-session data keys, wrapped, in their own table (docs/architecture.md#encryption-at-rest).

Why a store of its own (``AGENT_KEYSTORE_URL``, by default the catalog's database): crypto-erasure.
Deleting a session deletes its key row, and a backup of the session data taken before the delete
holds only ciphertext; that is only true of backups that do not also hold the key table, so a
deployment that wants erasure to reach its backups keeps the key store in a database backed up
separately (and briefly), or puts a KMS behind :class:`~agent_orchestrator.sessions.crypto.keys.KeyProvider`.
The table is created here, idempotently (under an advisory lock on PostgreSQL), not by the catalog's
migrations, because it may live in another database.

Unwrapped keys are cached per process for ``cache_seconds``: a turn appends several times and each
append must not cost a round trip. The cache entry of a deleted session is dropped at once on the
deleting server; another server forgets it within ``cache_seconds``.

A destroyed key leaves a tombstone (its row with no key material), so that nothing written late for a
deleted session (a turn still running on another server, a stray append) gets a new key, which would
outlive the delete and keep what it sealed readable: a first use makes a key only for an id that never
had one, and only the creation of a new session of that id (:meth:`SessionKeys.new_session`) replaces
a tombstone.

The table also keeps the key of the blind search index (``index_key``, see
docs/architecture.md#encryption-at-rest) under a name no session id can take, so ``rotate`` re-wraps it
with the rest; it is never destroyed.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable

from sqlalchemy import Column, Engine, LargeBinary, MetaData, String, Table, select, text, update
from sqlalchemy.dialects import postgresql, sqlite

from agent_orchestrator.errors import DecryptionError
from agent_orchestrator.sessions.crypto.frames import KEY_BYTES
from agent_orchestrator.sessions.crypto.keys import KeyProvider, WrappedKey
from agent_orchestrator.sessions.store.engine import read_connection, write_transaction
from agent_orchestrator.sessions.store.schema import UTCDateTime, utcnow

_metadata = MetaData()
session_keys = Table(
    "session_keys",
    _metadata,
    Column("session_id", String(64), primary_key=True),
    Column("key_id", String(64), nullable=False),  # the master key that wrapped it
    Column("wrapped", LargeBinary, nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
)
_LOCK_KEY = "agent_orchestrator.sessions.crypto.keystore"
# Session ids start with a letter or digit (sessions/ids.py), so no session can own this row.
INDEX_KEY_NAME = "~search-index"
_SESSION_ID = session_keys.c.session_id
# The ``key_id`` of a destroyed key's tombstone (no master key has an id starting with "~").
DESTROYED = "~destroyed"


class SessionKeys:
    """Create, fetch, destroy and re-wrap the data keys of sessions."""

    def __init__(self, engine: Engine, provider: KeyProvider, *, cache_seconds: float = 30.0) -> None:
        self._engine = engine
        self.provider = provider
        self._cache_seconds = cache_seconds
        self._cache: dict[str, tuple[bytes, float]] = {}
        self._lock = threading.Lock()

    def ensure_table(self) -> None:
        """Create the key table if it is missing; safe from several servers at once."""
        with write_transaction(self._engine) as conn:
            if conn.dialect.name == "postgresql":
                conn.execute(
                    text("SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))"), {"key": _LOCK_KEY}
                )
            _metadata.create_all(conn, checkfirst=True)

    def cached(self, session_id: str) -> bytes | None:
        """The session's data key if this process has it fresh in memory (no I/O: fine on an event loop)."""
        with self._lock:
            cached = self._cache.get(session_id)
        return cached[0] if cached is not None and cached[1] > time.monotonic() else None

    def key_for(self, session_id: str) -> bytes:
        """The session's data key, made (and stored wrapped) on first use; :class:`DecryptionError`
        for a session whose key was destroyed: it never gets another."""
        if (key := self.cached(session_id)) is not None:
            return key
        key = self._stored(session_id)
        if key is None:
            with write_transaction(self._engine) as conn:
                conn.execute(self._new_row(session_id).on_conflict_do_nothing(index_elements=[_SESSION_ID]))
            key = self._stored(session_id)  # ours, or the one another server stored first
            if key is None:  # the row is a tombstone
                raise DecryptionError(f"Session {session_id} was deleted: its key is gone for good.")
        self._remember(session_id, key)
        return key

    def new_session(self, session_id: str) -> None:
        """A session is being created with this id: it gets a key, also where an earlier session of
        the id, deleted since, left its key's tombstone."""
        with write_transaction(self._engine) as conn:
            insert = self._new_row(session_id)
            conn.execute(
                insert.on_conflict_do_update(
                    index_elements=[_SESSION_ID],
                    set_={name: insert.excluded[name] for name in ("key_id", "wrapped", "created_at")},
                    where=session_keys.c.key_id == DESTROYED,
                )
            )

    def _new_row(self, session_id: str) -> postgresql.Insert | sqlite.Insert:
        """The insert of a new random data key for ``session_id``, wrapped, on either backend."""
        wrapped = self.provider.wrap(os.urandom(KEY_BYTES), session_id)
        postgres = self._engine.dialect.name == "postgresql"
        return (postgresql.insert if postgres else sqlite.insert)(session_keys).values(
            session_id=session_id, key_id=wrapped.key_id, wrapped=wrapped.blob, created_at=utcnow()
        )

    def existing_key(self, session_id: str) -> bytes | None:
        """The session's data key if it has one (a deleted session's is gone for good)."""
        return self._stored(session_id)

    def known_key(self, session_id: str) -> bytes | None:
        """The session's data key from the cache or the store, never made: reading a deleted
        session's text must not give it a new key."""
        if (key := self.cached(session_id)) is not None:
            return key
        key = self._stored(session_id)
        if key is not None:
            self._remember(session_id, key)
        return key

    def load(self, session_ids: Iterable[str]) -> None:
        """Fetch the keys of the sessions not in the cache in one query (a page of a list opens
        many sessions' titles)."""
        missing = sorted({sid for sid in session_ids if self.cached(sid) is None})
        if not missing:
            return
        query = select(session_keys).where(
            session_keys.c.session_id.in_(missing), session_keys.c.key_id != DESTROYED
        )
        with read_connection(self._engine) as conn:
            rows = conn.execute(query).all()
        for row in rows:
            self._remember(
                row.session_id, self.provider.unwrap(WrappedKey(row.key_id, row.wrapped), row.session_id)
            )

    def index_key(self) -> bytes:
        """The key of the blind search index: made on first use, kept wrapped like a data key."""
        return self.key_for(INDEX_KEY_NAME)

    def destroy(self, session_id: str) -> bool:
        """Crypto-erasure: forget the session's key (its row becomes a tombstone); whatever was sealed
        under it is unreadable. Whether there was a key to destroy."""
        with self._lock:
            self._cache.pop(session_id, None)
        t = session_keys
        tombstone = {"key_id": DESTROYED, "wrapped": b"", "created_at": utcnow()}
        insert = (postgresql.insert if self._engine.dialect.name == "postgresql" else sqlite.insert)(t)
        with write_transaction(self._engine) as conn:
            had_key = conn.execute(
                update(t).where(t.c.session_id == session_id, t.c.key_id != DESTROYED).values(**tombstone)
            ).rowcount
            if not had_key:
                conn.execute(
                    insert.values(session_id=session_id, **tombstone).on_conflict_do_nothing(
                        index_elements=[t.c.session_id]
                    )
                )
        return had_key == 1

    def rotate(self) -> int:
        """Re-wrap every data key not yet under the current master key; how many were."""
        current = self.provider.current_id
        query = select(session_keys).where(
            session_keys.c.key_id != current, session_keys.c.key_id != DESTROYED
        )
        with read_connection(self._engine) as conn:
            rows = conn.execute(query).all()
        for row in rows:
            data_key = self.provider.unwrap(WrappedKey(row.key_id, row.wrapped), row.session_id)
            rewrapped = self.provider.wrap(data_key, row.session_id)
            with write_transaction(self._engine) as conn:
                conn.execute(
                    update(session_keys)
                    .where(session_keys.c.session_id == row.session_id, session_keys.c.key_id == row.key_id)
                    .values(key_id=rewrapped.key_id, wrapped=rewrapped.blob)
                )
        return len(rows)

    def close(self) -> None:
        self._engine.dispose()

    def _stored(self, session_id: str) -> bytes | None:
        query = select(session_keys.c.key_id, session_keys.c.wrapped).where(
            session_keys.c.session_id == session_id
        )
        with read_connection(self._engine) as conn:
            row = conn.execute(query).first()
        if row is None or row.key_id == DESTROYED:
            return None
        return self.provider.unwrap(WrappedKey(row.key_id, row.wrapped), session_id)

    def _remember(self, session_id: str, key: bytes) -> None:
        with self._lock:
            self._cache[session_id] = (key, time.monotonic() + self._cache_seconds)

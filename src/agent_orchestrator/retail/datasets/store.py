"""The dataset versions' records, the active pointer, remembered mappings and (shared mode) the files.

One SQLAlchemy schema on either database (docs/architecture.md#dataset-versions):

- one server (the default): a small SQLite file, ``<data>/datasets/versions.sqlite``; a version's
  bytes are its local file, so ``dataset_blobs`` stays empty;
- several servers (``DATABASE_URL`` is PostgreSQL): the same tables in that database, and each
  version's file (and its skipped rows) in ``dataset_blobs`` in chunks, from which every server
  materialises its own local copy.

A version becomes visible (its record, its blobs and, for a new import, the pointer) in one
transaction, so no server ever sees a version whose bytes are not all there.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    Engine,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    delete,
    func,
    select,
    text,
)
from sqlalchemy.engine import Connection

from agent_orchestrator.errors import DatasetChangedError

_metadata = MetaData()
versions_table = Table(
    "dataset_versions",
    _metadata,
    Column("id", String(64), primary_key=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("created_by", String(200), nullable=False),
    Column("source_name", String(500), nullable=False),
    Column("mode", String(16), nullable=False),
    Column("rows", BigInteger, nullable=False),
    Column("sha256", String(64), nullable=False),
    Column("size", BigInteger, nullable=False),
    Column("report", Text, nullable=False, default="{}"),
)
state_table = Table(
    "dataset_state",
    _metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
    Column("changed_at", DateTime(timezone=True), nullable=False),
    Column("changed_by", String(200), nullable=False),
)
blobs_table = Table(
    "dataset_blobs",
    _metadata,
    Column("version_id", String(64), primary_key=True),
    Column("kind", String(16), primary_key=True),
    Column("n", Integer, primary_key=True),
    Column("data", LargeBinary, nullable=False),
)
mappings_table = Table(
    "dataset_mappings",
    _metadata,
    Column("source_key", String(64), primary_key=True),
    Column("mapping", Text, nullable=False),
    Column("format", Text, nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)
_ACTIVE = "active"
_LOCK_KEY = "agent_orchestrator.datasets"


@dataclass(frozen=True)
class VersionRecord:
    """A stored version: who made it from what, its row count and its file's digest and size."""

    id: str
    created_at: datetime
    created_by: str
    source_name: str
    mode: str
    rows: int
    sha256: str
    size: int
    report: dict[str, Any]


class VersionStore:
    """Records, pointer and blobs over one engine (thread-safe: each call takes a pooled connection)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.shared = engine.dialect.name == "postgresql"

    def ensure_tables(self) -> None:
        """Create the tables if missing; safe from several servers at once (an advisory lock)."""
        with self.engine.begin() as conn:
            if self.shared:
                conn.execute(
                    text("SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))"), {"key": _LOCK_KEY}
                )
            _metadata.create_all(conn, checkfirst=True)

    def active_id(self) -> str | None:
        """The pointer: one primary-key read, which is what ``current_path`` pays once a second."""
        with self.engine.connect() as conn:
            return conn.execute(select(state_table.c.value).where(state_table.c.key == _ACTIVE)).scalar()

    def records(self) -> list[VersionRecord]:
        """Every stored version, newest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(versions_table).order_by(versions_table.c.created_at.desc())).all()
        return [_record(row) for row in rows]

    def record(self, version_id: str) -> VersionRecord | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(versions_table).where(versions_table.c.id == version_id)).first()
        return None if row is None else _record(row)

    def add(
        self,
        record: VersionRecord,
        blobs: dict[str, Iterator[bytes]],
        *,
        activate: bool,
        keep: int,
        protect: frozenset[str] = frozenset(),
        built_on: str | None = None,
    ) -> list[str]:
        """Store ``record`` (and, shared, its ``blobs`` by kind, chunk by chunk), make it the active
        version if ``activate``, and drop the versions beyond the newest ``keep`` (never the active
        one, nor any in ``protect``): all in one transaction. Returns the ids dropped.

        ``built_on`` is the active id (``""`` for version zero) the new version was made from: if
        the pointer has moved since, ``DatasetChangedError`` and nothing is stored, so two servers'
        appends never silently drop each other's rows."""
        with self.engine.begin() as conn:
            if self.shared:  # one writer of the list at a time, so two imports prune consistently
                conn.execute(
                    text("SELECT pg_advisory_xact_lock(hashtextextended(:key, 1))"), {"key": _LOCK_KEY}
                )
            if built_on is not None:
                active = conn.execute(
                    select(state_table.c.value).where(state_table.c.key == _ACTIVE)
                ).scalar()
                if (active or "") != built_on:
                    raise DatasetChangedError(
                        "the active data changed while this version was being built (a restore, a "
                        "settings change or another import); nothing changed: try again"
                    )
            conn.execute(
                versions_table.insert().values(
                    id=record.id,
                    created_at=record.created_at,
                    created_by=record.created_by,
                    source_name=record.source_name,
                    mode=record.mode,
                    rows=record.rows,
                    sha256=record.sha256,
                    size=record.size,
                    report=json.dumps(record.report),
                )
            )
            for kind, chunks in blobs.items():
                for n, data in enumerate(chunks):
                    conn.execute(blobs_table.insert().values(version_id=record.id, kind=kind, n=n, data=data))
            if activate:
                self._point(conn, record.id, record.created_by)
            return self._prune(conn, keep, protect)

    def activate(self, version_id: str, actor: str) -> bool:
        """Point at a stored version; ``False`` if there is no such version."""
        with self.engine.begin() as conn:
            found = conn.execute(select(versions_table.c.id).where(versions_table.c.id == version_id)).first()
            if found is None:
                return False
            self._point(conn, version_id, actor)
            return True

    def point_at_default(self, actor: str) -> None:
        """Point back at the install's own dataset (version zero), which has no record."""
        with self.engine.begin() as conn:
            conn.execute(delete(state_table).where(state_table.c.key == _ACTIVE))
            conn.execute(
                state_table.insert().values(key=_ACTIVE, value="", changed_at=_now(), changed_by=actor)
            )

    def blob_chunks(self, version_id: str, kind: str) -> Iterator[bytes]:
        """A stored file's bytes in order, one chunk in memory at a time."""
        with self.engine.connect() as conn:
            count = conn.execute(
                select(func.count()).where(blobs_table.c.version_id == version_id, blobs_table.c.kind == kind)
            ).scalar_one()
        for n in range(count):
            with self.engine.connect() as conn:
                yield conn.execute(
                    select(blobs_table.c.data).where(
                        blobs_table.c.version_id == version_id,
                        blobs_table.c.kind == kind,
                        blobs_table.c.n == n,
                    )
                ).scalar_one()

    def remember_mapping(self, source_key: str, mapping: dict[str, str], fmt: dict[str, Any]) -> None:
        with self.engine.begin() as conn:
            conn.execute(delete(mappings_table).where(mappings_table.c.source_key == source_key))
            conn.execute(
                mappings_table.insert().values(
                    source_key=source_key,
                    mapping=json.dumps(mapping),
                    format=json.dumps(fmt),
                    updated_at=_now(),
                )
            )

    def mapping_for(self, source_key: str) -> tuple[dict[str, str], dict[str, Any]] | None:
        with self.engine.connect() as conn:
            row = conn.execute(
                select(mappings_table.c.mapping, mappings_table.c.format).where(
                    mappings_table.c.source_key == source_key
                )
            ).first()
        return None if row is None else (json.loads(row[0]), json.loads(row[1]))

    @staticmethod
    def _point(conn: Connection, version_id: str, actor: str) -> None:
        conn.execute(delete(state_table).where(state_table.c.key == _ACTIVE))
        conn.execute(
            state_table.insert().values(key=_ACTIVE, value=version_id, changed_at=_now(), changed_by=actor)
        )

    @staticmethod
    def _prune(conn: Connection, keep: int, protect: frozenset[str]) -> list[str]:
        active = conn.execute(select(state_table.c.value).where(state_table.c.key == _ACTIVE)).scalar()
        ids = (
            conn.execute(select(versions_table.c.id).order_by(versions_table.c.created_at.desc()))
            .scalars()
            .all()
        )
        dropped = [vid for vid in ids[keep:] if vid != active and vid not in protect]
        if dropped:
            conn.execute(delete(blobs_table).where(blobs_table.c.version_id.in_(dropped)))
            conn.execute(delete(versions_table).where(versions_table.c.id.in_(dropped)))
        return dropped


def _now() -> datetime:
    return datetime.now(UTC)


def _aware(value: datetime) -> datetime:
    """SQLite hands back naive datetimes; every stored time is UTC."""
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _record(row: Any) -> VersionRecord:
    return VersionRecord(
        id=row.id,
        created_at=_aware(row.created_at),
        created_by=row.created_by,
        source_name=row.source_name,
        mode=row.mode,
        rows=row.rows,
        sha256=row.sha256,
        size=row.size,
        report=json.loads(row.report or "{}"),
    )

"""Read-only share links: capabilities to read a snapshot of one conversation
(docs/architecture.md#share-links).

A link is found by the sha256 of its token, which only the URL holds: the table never has the
token, so a copy of the database opens no link. The hash stays when a link is revoked or expires, so
:meth:`ShareLinks.find` still finds such a link (without opening its snapshot): the viewer is told
no more than of an unknown token, but the owner's activity can count it as refused. The snapshot is
the session's event log and title when shared (or last refreshed), sealed with the session's key
under a master key, and deleted with the session or its owner.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, insert, select, update
from sqlalchemy.engine import Row

from agent_orchestrator.sessions.store.engine import read_connection
from agent_orchestrator.sessions.store.live_events import EventSealer
from agent_orchestrator.sessions.store.schema import share_links, utcnow

TOKEN_BYTES = 32
"""256 bits: a token cannot be guessed, however many are tried."""


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class ShareLink:
    """One link, as its owner manages it; ``title`` and ``snapshot`` opened."""

    id: str
    session_id: str
    owner_id: int
    created_at: datetime
    expires_at: datetime
    revoked_at: datetime | None
    signed_in_only: bool
    title: str
    snapshot_at: datetime
    views: int
    snapshot: bytes = b""

    def live(self, now: datetime) -> bool:
        return self.revoked_at is None and now < self.expires_at


class ShareLinks:
    """The share links of every session, on the catalog's database."""

    def __init__(self, engine: Engine, *, sealer: EventSealer | None = None) -> None:
        self._engine = engine
        self._sealer = sealer

    def create(
        self,
        session_id: str,
        owner_id: int,
        *,
        title: str,
        snapshot: bytes,
        expires_at: datetime,
        signed_in_only: bool,
    ) -> tuple[ShareLink, str]:
        """A new link and its token (returned once: only its hash is kept)."""
        token = secrets.token_urlsafe(TOKEN_BYTES)
        now = utcnow()
        link = ShareLink(
            secrets.token_hex(8), session_id, owner_id, now, expires_at, None, signed_in_only, title, now, 0
        )
        with self._engine.begin() as conn:
            conn.execute(
                insert(share_links).values(
                    id=link.id,
                    token_hash=token_hash(token),
                    session_id=session_id,
                    owner_id=owner_id,
                    created_at=now,
                    expires_at=expires_at,
                    signed_in_only=signed_in_only,
                    title=self._seal(session_id, title),
                    snapshot=self._seal(session_id, snapshot.decode("utf-8", errors="replace")),
                    snapshot_at=now,
                )
            )
        return link, token

    def find(self, token: str, now: datetime) -> ShareLink | None:
        """The link ``token`` was issued for (``None``: never issued, or its session deleted); its
        snapshot opened only while it is live at ``now`` (a revoked or expired one shows nothing)."""
        t = share_links
        with read_connection(self._engine) as conn:
            row = conn.execute(select(t).where(t.c.token_hash == token_hash(token))).first()
        if row is None:
            return None
        link = self._link(row)
        return self._link(row, with_snapshot=True) if link.live(now) else link

    def viewed(self, link_id: str) -> None:
        t = share_links
        with self._engine.begin() as conn:
            conn.execute(update(t).where(t.c.id == link_id).values(views=t.c.views + 1))

    def owned(self, owner_id: int, link_id: str) -> ShareLink | None:
        t = share_links
        with read_connection(self._engine) as conn:
            row = conn.execute(select(t).where(t.c.id == link_id, t.c.owner_id == owner_id)).first()
        return None if row is None else self._link(row)

    def of_owner(self, owner_id: int) -> list[ShareLink]:
        """The owner's links, newest first (revoked and expired ones too: they say what was shared)."""
        t = share_links
        with read_connection(self._engine) as conn:
            rows = conn.execute(
                select(t).where(t.c.owner_id == owner_id).order_by(t.c.created_at.desc(), t.c.id)
            ).all()
        return [self._link(row) for row in rows]

    def revoke(self, owner_id: int, link_id: str) -> bool:
        t = share_links
        with self._engine.begin() as conn:
            done = conn.execute(
                update(t)
                .where(t.c.id == link_id, t.c.owner_id == owner_id, t.c.revoked_at.is_(None))
                .values(revoked_at=utcnow())
            )
        return done.rowcount > 0

    def refresh(self, owner_id: int, link_id: str, *, title: str, snapshot: bytes) -> bool:
        """The link shows the conversation as it is now."""
        link = self.owned(owner_id, link_id)
        if link is None:
            return False
        t = share_links
        with self._engine.begin() as conn:
            conn.execute(
                update(t)
                .where(t.c.id == link_id)
                .values(
                    title=self._seal(link.session_id, title),
                    snapshot=self._seal(link.session_id, snapshot.decode("utf-8", errors="replace")),
                    snapshot_at=utcnow(),
                )
            )
        return True

    def _seal(self, session_id: str, text: str) -> str:
        return self._sealer.seal_text(session_id, text) if self._sealer else text

    def _open(self, session_id: str, stored: str) -> str:
        return self._sealer.open_text(session_id, stored) if self._sealer else stored

    def _link(self, row: Row[Any], *, with_snapshot: bool = False) -> ShareLink:
        snapshot = self._open(row.session_id, row.snapshot).encode() if with_snapshot else b""
        return ShareLink(
            row.id,
            row.session_id,
            row.owner_id,
            row.created_at,
            row.expires_at,
            row.revoked_at,
            bool(row.signed_in_only),
            self._open(row.session_id, row.title),
            row.snapshot_at,
            row.views,
            snapshot,
        )

"""The session catalog: which Copilot sessions exist, who owns them, and what the list page shows.

Why it looks like this:

* **Two ids** (docs/architecture.md#session-ids): ``public_id``, what the owner sees and names, unique
  per owner, and ``id``, the runtime's, unique across owners, which everything below the catalog is
  keyed by. A user's request is resolved once, :meth:`SessionCatalog.get_owned` (owner and public id,
  one indexed query), and works on the record's runtime id from there on.
* **Ownership in the query.** :meth:`SessionCatalog.get_owned` looks in the owner's namespace only, and
  ``rename`` and ``delete`` filter on the owner in SQL too, so another user's id behaves exactly like an
  unknown one (docs/architecture.md#ownership): it *is* an unknown one, with the same query and the
  same ``None`` / ``False``, nothing to leak by timing or by error text.
* **Keyset pagination** (``WHERE (updated_at, public_id) < cursor ORDER BY updated_at DESC, public_id
  DESC``), not ``OFFSET``: page 200 costs the same as page 1 (an index range scan from the cursor,
  instead of reading and discarding every earlier row), and a session that moves to the top between two
  requests neither repeats nor vanishes on the next page. The public id, unique within the owner,
  breaks ties between equal ``updated_at`` values, so the cursor holds only the owner's own ids. It is
  opaque (base64url JSON) so clients cannot depend on its contents.
* **Search** is a case-insensitive substring of the title with the caller's ``%``/``_`` escaped, so
  "50%" means fifty percent, not a wildcard. It matches ``title_folded`` (``str.casefold`` of the
  title, written with it), which the list index carries: a search that rejects most rows still reads
  the index only, and case folding is Unicode-aware and identical on both backends.
* **Sealed texts.** With a ``sealer`` (a master key is set: docs/architecture.md#encryption-at-rest),
  the title, the preview and the messages kept for crash recovery are stored encrypted with the
  session's data key, and ``title_folded`` holds the blind terms of the title's word prefixes
  instead: search then matches word prefixes ("germ" finds "Germany", "erman" does not), one
  ``LIKE '% term %'`` per word, still on the index alone.
* **Organising** (docs/architecture.md#organising-chats): pinned and archived are times on the row,
  carried by the list index, so the default list (archived chats left out) stays index-only; a
  chat's folder is its ``case_key``; tags live in ``session_tags``. None of it is activity:
  ``updated_at`` stays, so organising never reorders the list.
* **Titles**: ``title_source`` says who titled a chat; :meth:`SessionCatalog.auto_title` changes a
  title only while its owner has not given one, in the same statement that checks it.
* **Audit in the same transaction**: ``create``, ``rename`` and ``delete`` take an optional
  :class:`AuditEvent`, written only if the change is.
"""

from __future__ import annotations

import base64
import binascii
import functools
import json
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal, Protocol, get_args

from sqlalchemy import (
    Engine,
    Integer,
    Select,
    Update,
    bindparam,
    delete,
    exc,
    func,
    insert,
    literal,
    select,
    tuple_,
    update,
)
from sqlalchemy.engine import Row

from agent_orchestrator.errors import InvalidInputError, SessionExistsError
from agent_orchestrator.sessions.ids import validate_session_id
from agent_orchestrator.sessions.store.audit import AuditEvent, event_row, write_event
from agent_orchestrator.sessions.store.engine import read_connection, write_transaction
from agent_orchestrator.sessions.store.schema import (
    UTCDateTime,
    audit_log,
    interrupted_turns,
    session_tags,
    sessions,
    utcnow,
)

SessionStatus = Literal["idle", "busy", "interrupted"]
SESSION_STATUSES: frozenset[str] = frozenset(get_args(SessionStatus))
TitleSource = Literal["default", "auto", "user"]
TAG_MAX = 40
TAGS_PER_SESSION = 10
FOLDER_MAX = 80
TITLE_MAX = 120
CASE_KEY_MAX = 120
PREVIEW_MAX = 200
DEFAULT_PAGE = 50
MAX_PAGE = 200
_LIKE_ESCAPE = "/"
_WHITESPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class SessionRecord:
    id: str  # the runtime's session id, unique across owners; never shown to a user
    owner_id: int
    title: str
    created_at: datetime
    updated_at: datetime
    case_key: str | None = None
    model: str | None = None
    preview: str = ""
    status: SessionStatus = "idle"
    turn_count: int = 0
    pending_prompt: str | None = None
    parent_id: str | None = None  # a fork: the public id of the session it was branched from
    parent_event_id: str | None = None  # ... and the message (the runtime's event id)
    # The id its owner sees and chooses, unique per owner; the runtime id when not given, which is what
    # every session stored before ids were per owner has (migration 0011).
    public_id: str = ""
    pinned_at: datetime | None = None
    archived_at: datetime | None = None
    title_source: TitleSource = "user"  # who titled it; "user" titles are never replaced
    tags: tuple[str, ...] = ()  # filled by the list and by :meth:`SessionCatalog.tags_of`

    def __post_init__(self) -> None:
        if not self.public_id:
            object.__setattr__(self, "public_id", self.id)

    @classmethod
    def new(
        cls,
        session_id: str,
        owner_id: int,
        title: str,
        *,
        case_key: str | None = None,
        model: str | None = None,
        at: datetime | None = None,
        public_id: str | None = None,
        title_source: TitleSource = "user",
    ) -> SessionRecord:
        """A fresh, idle session with no turns yet; ``session_id`` is the runtime's id, ``public_id``
        (by default the same) its owner's."""
        at = at or utcnow()
        return cls(
            session_id,
            owner_id,
            title,
            at,
            at,
            case_key=case_key,
            model=model,
            public_id=public_id or "",
            title_source=title_source,
        )


@dataclass(frozen=True, slots=True)
class SessionPage:
    items: tuple[SessionRecord, ...]
    next_cursor: str | None  # None on the last page


def validate_title(title: str) -> str:
    """The stripped title, or :class:`InvalidInputError` (1-120 characters, no control characters)."""
    title = title.strip()
    if not 1 <= len(title) <= TITLE_MAX:
        raise InvalidInputError(f"Titles have 1 to {TITLE_MAX} characters.")
    if any(unicodedata.category(ch) == "Cc" for ch in title):
        raise InvalidInputError("Titles must not contain control characters.")
    return title


def fold_title(title: str) -> str:
    """What search compares: the title case-folded in Python, identically for every backend."""
    return title.casefold()


def one_line(text: str) -> str:
    """``text`` as one clean line: control characters (terminal escapes, tabs, newlines) become spaces
    and whitespace runs one space, so what a user typed can serve as a title or a preview."""
    return _WHITESPACE.sub(" ", "".join(" " if unicodedata.category(c) == "Cc" else c for c in text)).strip()


def make_preview(text: str) -> str:
    """One line of at most 200 characters: whitespace runs collapsed, an ellipsis if cut."""
    text = one_line(text)
    return text if len(text) <= PREVIEW_MAX else text[: PREVIEW_MAX - 1].rstrip() + "…"


def _validate_status(status: str) -> SessionStatus:
    if status not in SESSION_STATUSES:
        raise ValueError(f"Unknown session status {status!r}; expected one of {sorted(SESSION_STATUSES)}.")
    return status  # type: ignore[return-value]


def validate_tags(tags: Iterable[str]) -> tuple[str, ...]:
    """Each tag as one clean line of 1-40 characters, duplicates (ignoring case) dropped, at most 10;
    :class:`InvalidInputError` otherwise."""
    kept: dict[str, str] = {}
    for tag in tags:
        clean = one_line(tag)
        if not 1 <= len(clean) <= TAG_MAX:
            raise InvalidInputError(f"Tags have 1 to {TAG_MAX} characters.")
        kept.setdefault(clean.casefold(), clean)
    if len(kept) > TAGS_PER_SESSION:
        raise InvalidInputError(f"A chat has at most {TAGS_PER_SESSION} tags.")
    return tuple(kept.values())


def validate_folder(folder: str) -> str:
    """A folder's name (a chat's ``case_key``) as one clean line of 1-80 characters."""
    clean = one_line(folder)
    if not 1 <= len(clean) <= FOLDER_MAX:
        raise InvalidInputError(f"Folder names have 1 to {FOLDER_MAX} characters.")
    return clean


def _validate_case_key(case_key: str | None) -> str | None:
    if case_key is None:
        return None
    if not 1 <= len(case_key) <= CASE_KEY_MAX or any(unicodedata.category(c) == "Cc" for c in case_key):
        raise InvalidInputError(f"Case keys have 1 to {CASE_KEY_MAX} characters and no control characters.")
    return case_key


def _encode_cursor(updated_at: datetime, public_id: str) -> str:
    raw = json.dumps([updated_at.isoformat(), public_id], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_cursor(cursor: str) -> tuple[datetime, str]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        stamp, public_id = json.loads(raw)
        updated_at = datetime.fromisoformat(stamp)
    except (binascii.Error, ValueError, TypeError) as error:
        raise InvalidInputError("Invalid page cursor.") from error
    if updated_at.tzinfo is None or not isinstance(public_id, str):
        raise InvalidInputError("Invalid page cursor.")
    return updated_at, public_id


def _escape_like(text: str) -> str:
    return (
        text.replace(_LIKE_ESCAPE, _LIKE_ESCAPE * 2)
        .replace("%", _LIKE_ESCAPE + "%")
        .replace("_", _LIKE_ESCAPE + "_")
    )


_RECORD_COLUMNS = [column for column in sessions.c if column.name != "title_folded"]
# Built once: every turn and every read of a session runs it (see turn_update).
_GET_OWNED = select(*_RECORD_COLUMNS).where(
    sessions.c.owner_id == bindparam("owner_id"), sessions.c.public_id == bindparam("public_id")
)


def _record(row: Row) -> SessionRecord:
    return SessionRecord(
        id=row.id,
        owner_id=row.owner_id,
        title=row.title,
        created_at=row.created_at,
        updated_at=row.updated_at,
        case_key=row.case_key,
        model=row.model,
        preview=row.preview,
        status=row.status,
        turn_count=row.turn_count,
        pending_prompt=row.pending_prompt,
        parent_id=row.parent_id,
        parent_event_id=row.parent_event_id,
        public_id=row.public_id,
        pinned_at=row.pinned_at,
        archived_at=row.archived_at,
        title_source=row.title_source,
    )


@dataclass(frozen=True, slots=True)
class Labels:
    """The owner's folders and tags, each with how many chats it holds (archived ones included)."""

    folders: tuple[tuple[str, int], ...]
    tags: tuple[tuple[str, int], ...]


_KEEP: object = object()  # an organise() argument left as it is


@functools.cache
def turn_update(*, busy: bool, preview: bool) -> Update:
    """The catalog's record of turn activity (:meth:`SessionCatalog.record_turn`, and the end of a
    turn in ``turn_end``), built once per shape: twice a turn, and a statement built per call costs
    more Python than the query."""
    values: dict[str, object] = {
        "updated_at": bindparam("p_updated_at"),
        "status": bindparam("p_status"),
        "pending_prompt": bindparam("p_pending_prompt"),
    }
    if preview:
        values["preview"] = bindparam("p_preview")
    if busy:
        values["turn_count"] = sessions.c.turn_count + literal(1, Integer)
    return update(sessions).where(sessions.c.id == bindparam("p_id")).values(**values)


@functools.cache
def _audited_turn_update(*, busy: bool, preview: bool) -> Select[int]:
    """:func:`turn_update` and an audit row in one PostgreSQL statement (the audit row's values are
    its columns' names prefixed ``a_``); it answers how many sessions it updated (0 or 1)."""
    turn = turn_update(busy=busy, preview=preview).returning(sessions.c.id).cte("turn")
    columns = [column for column in audit_log.c if column.name != "id"]
    audited = insert(audit_log).values({c: bindparam(f"a_{c.name}", type_=c.type) for c in columns})
    return select(func.count()).select_from(turn).add_cte(audited.cte("audited"))


class TextSealer(Protocol):
    """Encrypts the conversation text the catalog keeps and makes the blind terms its title search
    matches (docs/architecture.md#encryption-at-rest)."""

    def new_session(self, session_id: str) -> None: ...

    def seal_text(self, session_id: str, text: str) -> str: ...

    def open_text(self, session_id: str, stored: str) -> str: ...

    def prefetch(self, session_ids: Iterable[str]) -> None: ...

    def title_terms(self, owner_id: int, title: str) -> str: ...

    def title_query(self, owner_id: int, query: str) -> list[str]: ...


class SessionCatalog:
    """Catalog operations; each call is one short transaction. With a ``sealer``, the title, the
    preview and the messages kept for crash recovery (``pending_prompt``, interrupted turns) are
    stored encrypted."""

    def __init__(self, engine: Engine, *, sealer: TextSealer | None = None) -> None:
        self._engine = engine
        self._sealer = sealer

    def _sealed(self, session_id: str, text: str | None) -> str | None:
        return text if text is None or self._sealer is None else self._sealer.seal_text(session_id, text)

    def _title_values(self, session_id: str, owner_id: int, title: str) -> dict[str, str]:
        """The stored title and what its search matches: clear and folded, or sealed and blind terms."""
        if self._sealer is None:
            return {"title": title, "title_folded": fold_title(title)}
        return {
            "title": self._sealer.seal_text(session_id, title),
            "title_folded": self._sealer.title_terms(owner_id, title),
        }

    def _opened(self, record: SessionRecord) -> SessionRecord:
        if self._sealer is None:
            return record
        open_text = functools.partial(self._sealer.open_text, record.id)
        pending = record.pending_prompt
        return replace(
            record,
            title=open_text(record.title),
            preview=open_text(record.preview),
            pending_prompt=None if pending is None else open_text(pending),
        )

    def _opened_all(self, rows: Sequence[Row]) -> list[SessionRecord]:
        if self._sealer is not None:
            self._sealer.prefetch(row.id for row in rows)
        return [self._opened(_record(row)) for row in rows]

    def create(self, record: SessionRecord, *, audit: AuditEvent | None = None) -> SessionRecord:
        """Catalogue a new session; :class:`SessionExistsError` if its owner already has its public id
        (or, which a fresh runtime id never does, its runtime id is taken).

        Both ids must pass the session id policy, the title and case key their rules
        (:class:`InvalidInputError` otherwise).
        """
        record = replace(
            record,
            id=validate_session_id(record.id),
            public_id=validate_session_id(record.public_id),
            title=validate_title(record.title),
            case_key=_validate_case_key(record.case_key),
            preview=make_preview(record.preview),
            status=_validate_status(record.status),
        )
        # Sealed before the transaction: the new session's data key is written by the key store.
        if self._sealer is not None:
            self._sealer.new_session(record.id)
        values = {
            **self._title_values(record.id, record.owner_id, record.title),
            "preview": self._sealed(record.id, record.preview),
            "pending_prompt": self._sealed(record.id, record.pending_prompt),
        }
        try:
            with write_transaction(self._engine) as conn:
                conn.execute(
                    insert(sessions).values(
                        id=record.id,
                        owner_id=record.owner_id,
                        public_id=record.public_id,
                        case_key=record.case_key,
                        model=record.model,
                        created_at=record.created_at,
                        updated_at=record.updated_at,
                        status=record.status,
                        turn_count=record.turn_count,
                        parent_id=record.parent_id,
                        parent_event_id=record.parent_event_id,
                        title_source=record.title_source,
                        **values,
                    )
                )
                if audit is not None:
                    write_event(conn, audit)
        except exc.IntegrityError as error:
            # The owner's public id or the runtime id is taken; an unknown owner violates a foreign key.
            taken = self.get_owned(record.public_id, record.owner_id) or self.get(record.id)
            if taken is not None:
                raise SessionExistsError(f"Session {record.public_id} already exists.") from error
            raise
        return record

    def get(self, session_id: str) -> SessionRecord | None:
        """Any owner's session: for internal use (runtime, retention), never for a user's request."""
        with read_connection(self._engine) as conn:
            row = conn.execute(select(*_RECORD_COLUMNS).where(sessions.c.id == session_id)).first()
        return self._opened(_record(row)) if row else None

    def get_owned(self, public_id: str, owner_id: int) -> SessionRecord | None:
        """The owner's session of that public id; ``None`` if the owner has none, whoever else has one
        (one query in the owner's namespace: another user's id *is* an unknown one)."""
        with read_connection(self._engine) as conn:
            row = conn.execute(_GET_OWNED, {"public_id": public_id, "owner_id": owner_id}).first()
        return self._opened(_record(row)) if row else None

    def named(self, name: str) -> list[SessionRecord]:
        """Every owner's session whose public id or runtime id is ``name``: for an operator's commands,
        which name a session without being its owner (several owners may have one), never for a
        user's request."""
        query = (
            select(*_RECORD_COLUMNS)
            .where((sessions.c.public_id == name) | (sessions.c.id == name))
            .order_by(sessions.c.owner_id, sessions.c.id)
        )
        with read_connection(self._engine) as conn:
            rows = conn.execute(query).all()
        return self._opened_all(rows)

    def list_for_owner(
        self,
        owner_id: int,
        *,
        limit: int = DEFAULT_PAGE,
        cursor: str | None = None,
        case_key: str | None = None,
        search: str | None = None,
        pinned: bool | None = None,
        archived: bool | None = None,
        tag: str | None = None,
    ) -> SessionPage:
        """One page of the owner's sessions, most recently updated first, each with its tags.

        Pass the previous page's ``next_cursor`` to continue; keep the same filters between pages.
        ``pinned`` / ``archived``: only those that are (``True``) or are not (``False``); ``None``
        both. ``limit`` is clamped to 1-200. :class:`InvalidInputError` for a cursor we did not issue.
        """
        limit = max(1, min(limit, MAX_PAGE))
        newest_first = (sessions.c.updated_at.desc(), sessions.c.public_id.desc())
        # Step 1 picks the page's ids from the index alone (filters included); step 2 reads their rows
        # through the owner's unique index, joined to the page (``public_id IN (page)`` made SQLite
        # walk all the owner's index entries again, in order, to test each: 3x slower for 10,000).
        # One step would read a table row for every index entry a rare search rejects.
        page_ids = select(sessions.c.public_id, sessions.c.updated_at).where(sessions.c.owner_id == owner_id)
        if case_key is not None:
            page_ids = page_ids.where(sessions.c.case_key == case_key)
        if pinned is not None:
            is_pinned = sessions.c.pinned_at.is_not(None)
            page_ids = page_ids.where(is_pinned if pinned else ~is_pinned)
        if archived is not None:
            is_archived = sessions.c.archived_at.is_not(None)
            page_ids = page_ids.where(is_archived if archived else ~is_archived)
        if tag is not None:
            tagged = select(session_tags.c.session_id).where(
                session_tags.c.owner_id == owner_id, session_tags.c.tag == one_line(tag)
            )
            page_ids = page_ids.where(sessions.c.id.in_(tagged))
        if search is not None and search.strip():
            if self._sealer is None:
                pattern = f"%{_escape_like(fold_title(search.strip()))}%"
                page_ids = page_ids.where(sessions.c.title_folded.like(pattern, escape=_LIKE_ESCAPE))
            else:  # every word a prefix of a word of the title; blind terms are letters only
                terms = self._sealer.title_query(owner_id, search)
                if not terms:  # no word of two characters yet
                    return SessionPage((), None)
                page_ids = page_ids.where(*(sessions.c.title_folded.like(f"% {term} %") for term in terms))
        if cursor is not None:
            updated_at, public_id = _decode_cursor(cursor)
            page_ids = page_ids.where(
                tuple_(sessions.c.updated_at, sessions.c.public_id)
                < tuple_(literal(updated_at, UTCDateTime()), literal(public_id))
            )
        page = page_ids.order_by(*newest_first).limit(limit + 1).subquery("page")
        owned = (sessions.c.owner_id == owner_id) & (sessions.c.public_id == page.c.public_id)
        query = (
            select(*_RECORD_COLUMNS)
            .select_from(page.join(sessions, owned))
            .order_by(page.c.updated_at.desc(), page.c.public_id.desc())
        )
        with read_connection(self._engine) as conn:
            rows = conn.execute(query).all()
        items = tuple(self._opened_all(rows[:limit]))
        tags = self.tags_of([item.id for item in items])
        items = tuple(replace(item, tags=tags.get(item.id, ())) for item in items)
        last = items[-1] if len(rows) > limit else None
        next_cursor = _encode_cursor(last.updated_at, last.public_id) if last is not None else None
        return SessionPage(items, next_cursor)

    def rename(self, session_id: str, owner_id: int, title: str, *, audit: AuditEvent | None = None) -> bool:
        """Retitle an owned session with its owner's title, which the app never replaces
        (``updated_at`` is left alone: renaming is not activity)."""
        title = validate_title(title)
        values = {**self._title_values(session_id, owner_id, title), "title_source": "user"}
        with write_transaction(self._engine) as conn:
            result = conn.execute(
                update(sessions)
                .where(sessions.c.id == session_id, sessions.c.owner_id == owner_id)
                .values(**values)
            )
            if result.rowcount != 1:
                return False
            if audit is not None:
                write_event(conn, audit)
        return True

    def auto_title(self, session_id: str, owner_id: int, title: str) -> bool:
        """The app's title for a chat (after its first message, then its first answer), written only
        if its owner has not titled it: the check is the statement's own, so a rename that lands
        meanwhile wins. Whether the title was written."""
        values = {**self._title_values(session_id, owner_id, validate_title(title)), "title_source": "auto"}
        with write_transaction(self._engine) as conn:
            result = conn.execute(
                update(sessions)
                .where(sessions.c.id == session_id, sessions.c.title_source != "user")
                .values(**values)
            )
        return result.rowcount == 1

    def organise(
        self,
        session_id: str,
        owner_id: int,
        *,
        pinned: bool | None = None,
        archived: bool | None = None,
        folder: str | object | None = _KEEP,
        tags: Iterable[str] | None = None,
        audit: AuditEvent | None = None,
    ) -> bool:
        """Pin or unpin, archive or restore, file in a folder (``None``: no folder) and replace the
        tags of an owned session, in one transaction with ``audit``; arguments left out stay as they
        are. Pinning or archiving again keeps the first time. Whether the session is the owner's."""
        since = literal(utcnow(), UTCDateTime())
        values: dict[str, object] = {}
        if pinned is not None:
            values["pinned_at"] = func.coalesce(sessions.c.pinned_at, since) if pinned else None
        if archived is not None:
            values["archived_at"] = func.coalesce(sessions.c.archived_at, since) if archived else None
        if folder is not _KEEP:
            values["case_key"] = None if folder is None else validate_folder(str(folder))
        clean_tags = None if tags is None else validate_tags(tags)
        owned = (sessions.c.id == session_id) & (sessions.c.owner_id == owner_id)
        with write_transaction(self._engine) as conn:
            found = conn.execute(select(sessions.c.id).where(owned)).first() is not None
            if not found:
                return False
            if values:
                conn.execute(update(sessions).where(owned).values(**values))
            if clean_tags is not None:
                conn.execute(delete(session_tags).where(session_tags.c.session_id == session_id))
                if clean_tags:
                    rows = [{"session_id": session_id, "tag": t, "owner_id": owner_id} for t in clean_tags]
                    conn.execute(insert(session_tags), rows)
            if audit is not None:
                write_event(conn, audit)
        return True

    def tags_of(self, session_ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """The tags of each of these sessions (in the order given), by runtime id."""
        if not session_ids:
            return {}
        query = (
            select(session_tags.c.session_id, session_tags.c.tag)
            .where(session_tags.c.session_id.in_(list(session_ids)))
            .order_by(session_tags.c.session_id, func.lower(session_tags.c.tag))
        )
        found: dict[str, list[str]] = {}
        with read_connection(self._engine) as conn:
            for row in conn.execute(query):
                found.setdefault(row.session_id, []).append(row.tag)
        return {session_id: tuple(tags) for session_id, tags in found.items()}

    def labels(self, owner_id: int) -> Labels:
        """The owner's folders and tags with their counts, by name."""
        folders = (
            select(sessions.c.case_key, func.count())
            .where(sessions.c.owner_id == owner_id, sessions.c.case_key.is_not(None))
            .group_by(sessions.c.case_key)
            .order_by(func.lower(sessions.c.case_key))
        )
        tags = (
            select(session_tags.c.tag, func.count())
            .where(session_tags.c.owner_id == owner_id)
            .group_by(session_tags.c.tag)
            .order_by(func.lower(session_tags.c.tag))
        )
        with read_connection(self._engine) as conn:
            return Labels(
                tuple((row[0], int(row[1])) for row in conn.execute(folders)),
                tuple((row[0], int(row[1])) for row in conn.execute(tags)),
            )

    def reseal(self, session_id: str) -> bool:
        """Store the session's title and preview again in this catalog's mode: sealed, with the title's
        blind terms, once a master key is set (``reindex``). A title or preview changed meanwhile is
        left as its writer stored it (then ``False``)."""
        query = select(*_RECORD_COLUMNS).where(sessions.c.id == session_id)
        with read_connection(self._engine) as conn:
            row = conn.execute(query).first()
        if row is None:
            return False
        record = self._opened(_record(row))
        values = {
            **self._title_values(session_id, record.owner_id, record.title),
            "preview": self._sealed(session_id, record.preview),
        }
        unchanged = (sessions.c.title == row.title, sessions.c.preview == row.preview)
        with write_transaction(self._engine) as conn:
            result = conn.execute(
                update(sessions).where(sessions.c.id == session_id, *unchanged).values(**values)
            )
        return result.rowcount == 1

    def record_turn(
        self,
        session_id: str,
        *,
        preview: str | None,
        status: SessionStatus,
        prompt: str | None = None,
        at: datetime | None = None,
        audit: AuditEvent | None = None,
    ) -> bool:
        """Note turn activity, with ``audit`` in the same transaction: bumps ``updated_at``, sets
        ``status`` and (if given) ``preview``; whether the session exists. On PostgreSQL one statement
        in autocommit (every turn's start is one: a transaction around two statements is four round
        trips).

        A turn's start writes ``status="busy"``, the user's message as preview and the whole message
        as ``prompt`` (``turn_count`` + 1: a turn counts once its message is recorded, even if it
        never finishes); its end, written with the lease's release (:meth:`turn_end_params`), the
        answer as preview, the count unchanged and the pending prompt cleared (the event log now holds
        it). The texts are sealed here, before any transaction: a new data key is written by the key
        store.
        """
        busy, params = self._turn_params(session_id, preview=preview, status=status, prompt=prompt, at=at)
        if audit is not None and self._engine.dialect.name == "postgresql":
            audited = {f"a_{name}": value for name, value in event_row(audit).items()}
            statement = _audited_turn_update(busy=busy, preview=preview is not None)
            with read_connection(self._engine) as conn:
                return bool(conn.execute(statement, params | audited).scalar_one())
        with write_transaction(self._engine) as conn:
            found = conn.execute(turn_update(busy=busy, preview=preview is not None), params).rowcount == 1
            if audit is not None:
                write_event(conn, audit)
        return found

    def turn_end_params(
        self, session_id: str, *, preview: str, status: SessionStatus, kept: str | None = None
    ) -> dict[str, object]:
        """The catalog's part of a turn's end (``turn_end.TurnEnd.session``): the parameters of
        ``turn_update(busy=False, preview=True)``, the answer (or, for an interrupted turn, the
        message) sealed as the preview. A failed turn keeps its message (``kept``) as the pending
        prompt: the runtime may never have logged it, and an acknowledged message is never lost
        (docs/architecture.md#crash-safety-and-restart-recovery)."""
        if status == "busy":
            raise ValueError("A turn ends idle or interrupted, not busy.")
        _, params = self._turn_params(session_id, preview=preview, status=status, prompt=kept, at=None)
        return params

    def _turn_params(
        self,
        session_id: str,
        *,
        preview: str | None,
        status: SessionStatus,
        prompt: str | None,
        at: datetime | None,
    ) -> tuple[bool, dict[str, object]]:
        """Whether the turn starts (``busy``), and the parameters of :func:`turn_update`."""
        busy = _validate_status(status) == "busy"
        params: dict[str, object] = {
            "p_id": session_id,
            "p_updated_at": at or utcnow(),
            "p_status": status,
            "p_pending_prompt": None if prompt is None else self._sealed(session_id, prompt),
        }
        if preview is not None:
            params["p_preview"] = self._sealed(session_id, make_preview(preview))
        return busy, params

    def set_history(
        self,
        session_id: str,
        *,
        turn_count: int,
        preview: str,
        parent: tuple[str, str] | None = None,
        dropped_since: datetime | None = None,
    ) -> bool:
        """After the history changed wholesale (a fork, a rewind, an import): the turn count and
        preview of what the log now holds, the session idle. ``parent`` (the parent's public id, event
        id) links a fork to where it was branched, in its owner's terms (a fork's parent is always the
        same owner's); ``dropped_since`` also forgets the kept crash-interrupted
        messages from that time on (they belonged to the rewound turns)."""
        values: dict[str, object] = {
            "turn_count": turn_count,
            "preview": self._sealed(session_id, make_preview(preview)),
            "status": "idle",
            "pending_prompt": None,
            "updated_at": utcnow(),
        }
        if parent is not None:
            values["parent_id"], values["parent_event_id"] = parent
        with write_transaction(self._engine) as conn:
            result = conn.execute(update(sessions).where(sessions.c.id == session_id).values(**values))
            if dropped_since is not None:
                conn.execute(
                    delete(interrupted_turns).where(
                        interrupted_turns.c.session_id == session_id, interrupted_turns.c.at >= dropped_since
                    )
                )
        return result.rowcount == 1

    def save_interrupted(self, session_id: str, prompt: str, at: datetime) -> None:
        """Keep the message of a turn a crash cut off (and the runtime never logged), before the
        session's next turn replaces ``pending_prompt``."""
        with write_transaction(self._engine) as conn:
            sealed = self._sealed(session_id, prompt)
            conn.execute(insert(interrupted_turns).values(session_id=session_id, prompt=sealed, at=at))

    def interrupted(self, session_id: str) -> list[tuple[str, datetime]]:
        """The kept messages of crash-interrupted turns, oldest first."""
        t = interrupted_turns
        query = select(t.c.prompt, t.c.at).where(t.c.session_id == session_id).order_by(t.c.at, t.c.id)
        with read_connection(self._engine) as conn:
            rows = conn.execute(query).all()
        if self._sealer is None:
            return [(row.prompt, row.at) for row in rows]
        return [(self._sealer.open_text(session_id, row.prompt), row.at) for row in rows]

    def set_status(
        self, session_id: str, status: SessionStatus, *, ending: SessionRecord | None = None
    ) -> bool:
        """Change only the status (e.g. ``interrupted`` after a crash); the list order is kept. With
        ``ending``, only while the session is still that record's busy turn (no one ended it since, no
        later turn began): of several servers noticing a dead server's turn at once, one ends it."""
        status = _validate_status(status)
        query = update(sessions).where(sessions.c.id == session_id)
        if ending is not None:
            query = query.where(sessions.c.status == "busy", sessions.c.turn_count == ending.turn_count)
        with write_transaction(self._engine) as conn:
            result = conn.execute(query.values(status=status))
        return result.rowcount == 1

    def delete(self, session_id: str, owner_id: int, *, audit: AuditEvent | None = None) -> bool:
        """Remove an owned session's catalog row (the caller removes runtime files and shared state)."""
        with write_transaction(self._engine) as conn:
            result = conn.execute(
                delete(sessions).where(sessions.c.id == session_id, sessions.c.owner_id == owner_id)
            )
            if result.rowcount != 1:
                return False
            if audit is not None:
                write_event(conn, audit)
        return True

    def list_older_than(self, cutoff: datetime, *, limit: int = 1_000) -> list[str]:
        """Ids of sessions (any owner) last updated before ``cutoff``, oldest first, for retention."""
        query = (
            select(sessions.c.id)
            .where(sessions.c.updated_at < cutoff)
            .order_by(sessions.c.updated_at, sessions.c.id)
            .limit(limit)
        )
        with read_connection(self._engine) as conn:
            return list(conn.scalars(query))

    def owners(self, *, after: str = "", limit: int = 1_000) -> list[tuple[str, int]]:
        """(id, owner id) of every session after ``after`` in id order: a keyset walk over the whole
        catalog for maintenance (the search reindex), never for a user's request."""
        query = (
            select(sessions.c.id, sessions.c.owner_id)
            .where(sessions.c.id > after)
            .order_by(sessions.c.id)
            .limit(limit)
        )
        with read_connection(self._engine) as conn:
            return [(row.id, row.owner_id) for row in conn.execute(query)]

    def count_for_owner(self, owner_id: int) -> int:
        with read_connection(self._engine) as conn:
            return int(conn.scalar(select(func.count()).where(sessions.c.owner_id == owner_id)) or 0)

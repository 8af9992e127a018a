"""Full-text search over what a user said and was told, across all their conversations.

The conversation's text lives in the runtime's event logs (files, or the shared store), which no
database can search. So every visible message is also written to ``search_messages`` (owner, session,
the runtime's event id, role, timestamp, text), and each backend indexes that table its own way
(docs/architecture.md#branching-and-search):

* **SQLite**: an FTS5 table with external content (the rows are stored once) and the porter stemmer,
  kept current by triggers. The owner is an indexed FTS column, so a query is
  ``owner_id: 42 AND (words)``: FTS5 intersects the owner's short doclist with the words' and never
  looks at another user's rows.
* **PostgreSQL**: a stored ``tsvector`` column (English configuration) with a GIN index, filtered by
  owner in the same query; ``ts_headline`` cuts the snippets for the page only.

Results are every message holding all the words (stemmed: "cherries" finds "cherry"), newest first.
Not ranked by relevance: bm25 in FTS5 first counts the rows holding each word in the whole index, all
users' (~300 ms for a common word at 2M messages), and both backends should order alike. Not prefix
matches either: a prefix expands to every indexed word that starts with it, across all users.

Upkeep: each turn indexes its own messages, as the runtime reported them while logging them, in the
write that ends the turn (:meth:`SearchIndex.rows`, ``store/turn_end.py``; nothing is read back, so the
cost does not grow with the conversation); forks, rewinds and imports replace a session's rows in one
transaction; deleting a session deletes its rows (foreign key, cascading, triggers included).

Owner scoping is in every query, twice on SQLite (FTS column and the row's ``owner_id``): another
user's text can never come back. Titles are searched by the catalog (``SessionCatalog.list_for_owner``).

**Sealed** (a master key is set, docs/architecture.md#encryption-at-rest): a row's body is stored sealed
with the session's data key, and its ``terms`` column holds the blind terms of the body's stemmed
words (``crypto/blind_index.py``, stemmed in Python by ``words.py``), which the engines index instead:
an FTS5 table of its own with the plain ``ascii`` tokenizer and no positions, or the same ``tsv``
column in the 'simple' configuration. A query is the same terms, all of them, newest first as in
clear; the terms carry the owner, so a term's doclist is the owner's rows alone. The snippets are cut
here from the page's decrypted bodies, hits marked where a word's stem is one of the query's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from sqlalchemy import Engine, delete, insert, text

from agent_orchestrator.sessions.history.transcript import TranscriptMessage
from agent_orchestrator.sessions.search import words
from agent_orchestrator.sessions.store.engine import read_connection, write_transaction
from agent_orchestrator.sessions.store.schema import search_messages
from agent_orchestrator.sessions.store.turn_end import search_upsert

DEFAULT_LIMIT = 20
MAX_LIMIT = 100
MAX_QUERY_WORDS = 12
# Highlight markers inside snippets: control characters no message keeps (they are dropped on indexing).
HIT_START, HIT_END = "\x02", "\x03"
_WORD = re.compile(r"\w+", re.UNICODE)
_MARKERS = str.maketrans("", "", HIT_START + HIT_END)

# Newest first, straight from FTS5's rowid order: ``ORDER BY rank`` (bm25) would first count every
# row in the whole index holding each word (2M rows: ~300 ms for a common word), whoever owns them.
_SQLITE_SEARCH = text(
    """
WITH hits AS (
    SELECT rowid AS id, snippet(search_messages_fts, 0, char(2), char(3), '…', 16) AS snippet
    FROM search_messages_fts
    WHERE search_messages_fts MATCH :match
    ORDER BY rowid DESC
    LIMIT :limit
)
SELECT m.session_id, s.public_id, s.title, m.event_id, m.role, m.at, hits.snippet
FROM hits JOIN search_messages m ON m.id = hits.id JOIN sessions s ON s.id = m.session_id
WHERE m.owner_id = :owner
ORDER BY hits.id DESC
"""
)
# The owner's matches newest first, then snippets for the page only. The tsquery is written inline
# (not from a CTE) so the planner can estimate each word's frequency from the column's statistics: it
# walks the owner's rows newest first for a common word and intersects the GIN and owner indexes for
# a rare one. That needs a plan made for the actual words, so the query runs with
# ``plan_cache_mode = force_custom_plan``: psycopg prepares a statement after five runs, and the
# generic plan (words unknown) took ~130 ms instead of ~0.4 ms for a common word at 2M rows.
_POSTGRESQL_SEARCH = text(
    """
WITH page AS (
    SELECT m.id FROM search_messages m
    WHERE m.owner_id = :owner AND m.tsv @@ to_tsquery('english', :match)
    ORDER BY m.id DESC
    LIMIT :limit
)
SELECT m.session_id, s.public_id, s.title, m.event_id, m.role, m.at,
       ts_headline('english', m.body, to_tsquery('english', :match), :headline) AS snippet
FROM page JOIN search_messages m ON m.id = page.id JOIN sessions s ON s.id = m.session_id
ORDER BY m.id DESC
"""
)
# Sealed: the same shapes over the blind terms, bodies (sealed) instead of engine-made snippets.
_SQLITE_SEALED_SEARCH = text(
    """
WITH hits AS (
    SELECT rowid AS id FROM search_terms_fts WHERE search_terms_fts MATCH :match
    ORDER BY rowid DESC
    LIMIT :limit
)
SELECT m.session_id, s.public_id, s.title, m.event_id, m.role, m.at, m.body
FROM hits JOIN search_messages m ON m.id = hits.id JOIN sessions s ON s.id = m.session_id
WHERE m.owner_id = :owner
ORDER BY hits.id DESC
"""
)
_POSTGRESQL_SEALED_SEARCH = text(
    """
WITH page AS (
    SELECT m.id FROM search_messages m
    WHERE m.owner_id = :owner AND m.tsv @@ to_tsquery('simple', :match)
    ORDER BY m.id DESC
    LIMIT :limit
)
SELECT m.session_id, s.public_id, s.title, m.event_id, m.role, m.at, m.body
FROM page JOIN search_messages m ON m.id = page.id JOIN sessions s ON s.id = m.session_id
ORDER BY m.id DESC
"""
)
_CUSTOM_PLAN = text("SET LOCAL plan_cache_mode = force_custom_plan")
_HEADLINE = f'StartSel="{HIT_START}", StopSel="{HIT_END}", MaxWords=24, MinWords=8, MaxFragments=1'
# Sealed snippets: this many words, the first hit after at most ``_SNIPPET_LEAD`` others.
_SNIPPET_WORDS = 16
_SNIPPET_LEAD = 3


class MessageSealer(Protocol):
    """Encrypts the rows' bodies and makes the blind terms the sealed index matches
    (docs/architecture.md#encryption-at-rest); the deployment's ``SessionCipher`` is one."""

    def seal_text(self, session_id: str, text: str) -> str: ...

    def open_text(self, session_id: str, stored: str) -> str: ...

    def prefetch(self, session_ids: Iterable[str]) -> None: ...

    def message_terms(self, owner_id: int, text: str) -> list[str]: ...

    def query_terms(self, owner_id: int, stems: Iterable[str]) -> list[str]: ...


@dataclass(frozen=True)
class SearchHit:
    """One message that matches: where it is (the session's public id, the event id) and a snippet with
    the hits marked as ``(text, is_hit)`` parts, so no client ever needs to insert HTML. The rows are
    keyed by the runtime id; a hit names the session as its owner does
    (docs/architecture.md#session-ids)."""

    session_id: str
    title: str
    event_id: str
    role: str
    timestamp: str
    snippet: tuple[tuple[str, bool], ...]


def query_words(query: str) -> list[str]:
    """The words of what the user typed (letters and digits only: no operator reaches the engine)."""
    return _WORD.findall(query.casefold())[:MAX_QUERY_WORDS]


class SearchIndex:
    """Keeps ``search_messages`` and answers owner-scoped searches; each call one short transaction.
    With a ``cipher``, rows are sealed and indexed by blind terms."""

    def __init__(self, engine: Engine, cipher: MessageSealer | None = None) -> None:
        self._engine = engine
        self._dialect = engine.dialect.name
        self._cipher = cipher

    def add(self, session_id: str, owner_id: int, messages: Sequence[TranscriptMessage]) -> None:
        """Index messages not indexed yet (by event id; an indexed one is left as it is). A turn's own
        messages are indexed by the write that ends the turn instead (:meth:`rows`)."""
        if rows := self.rows(session_id, owner_id, messages):
            with write_transaction(self._engine) as conn:
                conn.execute(search_upsert(self._dialect), rows)

    def replace(self, session_id: str, owner_id: int, messages: Sequence[TranscriptMessage]) -> None:
        """Make the session's rows exactly ``messages`` (after a fork, rewind or import)."""
        rows = self.rows(session_id, owner_id, messages)
        with write_transaction(self._engine) as conn:
            conn.execute(delete(search_messages).where(search_messages.c.session_id == session_id))
            if rows:
                conn.execute(insert(search_messages), rows)

    def search(self, owner_id: int, query: str, *, limit: int = DEFAULT_LIMIT) -> list[SearchHit]:
        """The owner's messages that contain every word (stemmed), newest first."""
        limit = max(1, min(limit, MAX_LIMIT))
        if self._cipher is not None:
            return self._sealed_search(self._cipher, owner_id, query, limit)
        found = query_words(query)
        if not found:
            return []
        if self._dialect == "postgresql":
            match = " & ".join(found)
            statement, params = _POSTGRESQL_SEARCH, {"match": match, "headline": _HEADLINE}
        else:
            terms = " ".join(f'"{word}"' for word in found)
            match = f'{{owner_id}}: "{owner_id}" AND {{body}}: ({terms})'
            statement, params = _SQLITE_SEARCH, {"match": match}
        with read_connection(self._engine) as conn:
            if self._dialect == "postgresql":
                conn.execute(_CUSTOM_PLAN)  # for this transaction only
            rows = conn.execute(statement, {**params, "owner": owner_id, "limit": limit}).all()
        return [
            SearchHit(row.public_id, row.title, row.event_id, row.role, row.at, _parts(row.snippet))
            for row in rows
        ]

    def _sealed_search(self, cipher: MessageSealer, owner_id: int, query: str, limit: int) -> list[SearchHit]:
        stems = {words.stem(word) for word in words.words(query)[:MAX_QUERY_WORDS]}
        if not stems:
            return []
        terms = cipher.query_terms(owner_id, stems)
        if self._dialect == "postgresql":
            statement, match = _POSTGRESQL_SEALED_SEARCH, " & ".join(terms)
        else:
            statement, match = _SQLITE_SEALED_SEARCH, " ".join(terms)
        with read_connection(self._engine) as conn:
            if self._dialect == "postgresql":
                conn.execute(_CUSTOM_PLAN)
            rows = conn.execute(statement, {"match": match, "owner": owner_id, "limit": limit}).all()
        cipher.prefetch(row.session_id for row in rows)  # the page's keys, in one query
        return [
            SearchHit(
                row.public_id,
                cipher.open_text(row.session_id, row.title),
                row.event_id,
                row.role,
                row.at,
                snippet(cipher.open_text(row.session_id, row.body), stems),
            )
            for row in rows
        ]

    def rows(
        self, session_id: str, owner_id: int, messages: Sequence[TranscriptMessage]
    ) -> list[dict[str, object]]:
        """The search rows of ``messages`` (sealed, with their blind terms, under a cipher): what the
        end of their turn writes (``store.turn_end.TurnEnd``); built before that write, which a failure
        to build them must not stop."""
        rows: list[dict[str, object]] = []
        for message in messages:
            if not (message.event_id and message.content.strip()):
                continue
            body = message.content.translate(_MARKERS)
            row: dict[str, object] = {
                "session_id": session_id,
                "owner_id": owner_id,
                "event_id": message.event_id,
                "role": message.role,
                "at": message.timestamp,
                "body": body,
            }
            if self._cipher is not None:
                row["body"] = self._cipher.seal_text(session_id, body)
                row["terms"] = " ".join(self._cipher.message_terms(owner_id, body))
            rows.append(row)
        return rows


def snippet(text: str, stems: set[str]) -> tuple[tuple[str, bool], ...]:
    """Up to 16 words of ``text`` around the most hits (words whose stem is one of ``stems``), as
    ``(text, is_hit)`` parts, with an ellipsis where the text goes on: what FTS5's ``snippet`` makes
    of a clear row."""
    found = list(words.spans(text))
    hits = [i for i, (_, _, word) in enumerate(found) if words.stem(word) in stems]
    if not found:
        return ((text, False),) if text else ()
    starts = sorted({max(0, min(i - _SNIPPET_LEAD, len(found) - _SNIPPET_WORDS)) for i in hits}) or [0]
    first = max(starts, key=lambda start: sum(start <= i < start + _SNIPPET_WORDS for i in hits))
    last = min(first + _SNIPPET_WORDS, len(found)) - 1
    parts: list[tuple[str, bool]] = []
    position = 0 if first == 0 else found[first][0]
    for index in (i for i in hits if first <= i <= last):
        start, end, _ = found[index]
        parts.append((text[position:start], False))
        parts.append((text[start:end], True))
        position = end
    parts.append((text[position : len(text) if last == len(found) - 1 else found[last][1]], False))
    if first > 0:
        parts.insert(0, ("…", False))
    if last < len(found) - 1:
        parts.append(("…", False))
    return _merged(parts)


def _merged(parts: list[tuple[str, bool]]) -> tuple[tuple[str, bool], ...]:
    """Adjacent parts of the same kind joined, empty ones dropped."""
    merged: list[tuple[str, bool]] = []
    for piece, is_hit in parts:
        if not piece:
            continue
        if merged and merged[-1][1] == is_hit:
            merged[-1] = (merged[-1][0] + piece, is_hit)
        else:
            merged.append((piece, is_hit))
    return tuple(merged)


def _parts(snippet: str) -> tuple[tuple[str, bool], ...]:
    """``a \\x02hit\\x03 b`` as ``(("a ", False), ("hit", True), (" b", False))``."""
    parts: list[tuple[str, bool]] = []
    for index, piece in enumerate(re.split(f"[{HIT_START}{HIT_END}]", snippet)):
        if piece:
            parts.append((piece, index % 2 == 1))
    return tuple(parts)

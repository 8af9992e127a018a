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

Upkeep: after each turn the service indexes the turn's messages (parsed from the log's tail, so the
cost does not grow with the conversation); forks, rewinds and imports replace a session's rows in one
transaction; deleting a session deletes its rows (foreign key, cascading, triggers included).

Owner scoping is in every query, twice on SQLite (FTS column and the row's ``owner_id``): another
user's text can never come back. Titles are searched by the catalog (``SessionCatalog.list_for_owner``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Engine, delete, insert, text
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from agent_orchestrator.sessions.store import write_transaction
from agent_orchestrator.sessions.store.schema import search_messages
from agent_orchestrator.sessions.transcript import TranscriptMessage, parse_events

DEFAULT_LIMIT = 20
MAX_LIMIT = 100
MAX_QUERY_WORDS = 12
# Highlight markers inside snippets: control characters no message keeps (they are dropped on indexing).
HIT_START, HIT_END = "\x02", "\x03"
_WORD = re.compile(r"\w+", re.UNICODE)
_MARKERS = str.maketrans("", "", HIT_START + HIT_END)
_USER_MESSAGE = b'{"type":"user.message"'

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
SELECT m.session_id, s.title, m.event_id, m.role, m.at, hits.snippet
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
SELECT m.session_id, s.title, m.event_id, m.role, m.at,
       ts_headline('english', m.body, to_tsquery('english', :match), :headline) AS snippet
FROM page JOIN search_messages m ON m.id = page.id JOIN sessions s ON s.id = m.session_id
ORDER BY m.id DESC
"""
)
_CUSTOM_PLAN = text("SET LOCAL plan_cache_mode = force_custom_plan")
_HEADLINE = f'StartSel="{HIT_START}", StopSel="{HIT_END}", MaxWords=24, MinWords=8, MaxFragments=1'


@dataclass(frozen=True)
class SearchHit:
    """One message that matches: where it is (session, event id) and a snippet with the hits marked
    as ``(text, is_hit)`` parts, so no client ever needs to insert HTML."""

    session_id: str
    title: str
    event_id: str
    role: str
    timestamp: str
    snippet: tuple[tuple[str, bool], ...]


def query_words(query: str) -> list[str]:
    """The words of what the user typed (letters and digits only: no operator reaches the engine)."""
    return _WORD.findall(query.casefold())[:MAX_QUERY_WORDS]


def latest_turn(raw: bytes, turns: int = 1) -> list[TranscriptMessage]:
    """The visible messages of the log's last ``turns`` turns, read from its tail only (from that user
    message on), so indexing a turn costs the same in a 1,000-turn conversation as in a new one."""
    start = len(raw)
    for _ in range(turns):
        start = raw.rfind(b"\n" + _USER_MESSAGE, 0, max(start, 0))
    tail = raw[start + 1 :] if start >= 0 else raw
    return parse_events(tail.splitlines())


class SearchIndex:
    """Keeps ``search_messages`` and answers owner-scoped searches; each call one short transaction."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._dialect = engine.dialect.name

    def add(self, session_id: str, owner_id: int, messages: Sequence[TranscriptMessage]) -> None:
        """Index messages not indexed yet (by event id; an indexed one is left as it is)."""
        rows = _rows(session_id, owner_id, messages)
        if not rows:
            return
        upsert = pg_insert if self._dialect == "postgresql" else sqlite_insert
        statement = upsert(search_messages).on_conflict_do_nothing(index_elements=["session_id", "event_id"])
        with write_transaction(self._engine) as conn:
            conn.execute(statement, rows)

    def replace(self, session_id: str, owner_id: int, messages: Sequence[TranscriptMessage]) -> None:
        """Make the session's rows exactly ``messages`` (after a fork, rewind or import)."""
        rows = _rows(session_id, owner_id, messages)
        with write_transaction(self._engine) as conn:
            conn.execute(delete(search_messages).where(search_messages.c.session_id == session_id))
            if rows:
                conn.execute(insert(search_messages), rows)

    def search(self, owner_id: int, query: str, *, limit: int = DEFAULT_LIMIT) -> list[SearchHit]:
        """The owner's messages that contain every word (stemmed), newest first."""
        words = query_words(query)
        if not words:
            return []
        limit = max(1, min(limit, MAX_LIMIT))
        if self._dialect == "postgresql":
            match = " & ".join(words)
            statement, params = _POSTGRESQL_SEARCH, {"match": match, "headline": _HEADLINE}
        else:
            terms = " ".join(f'"{word}"' for word in words)
            match = f'{{owner_id}}: "{owner_id}" AND {{body}}: ({terms})'
            statement, params = _SQLITE_SEARCH, {"match": match}
        with self._engine.connect() as conn:
            if self._dialect == "postgresql":
                conn.execute(_CUSTOM_PLAN)  # for this transaction only
            rows = conn.execute(statement, {**params, "owner": owner_id, "limit": limit}).all()
        return [
            SearchHit(row.session_id, row.title, row.event_id, row.role, row.at, _parts(row.snippet))
            for row in rows
        ]


def _rows(session_id: str, owner_id: int, messages: Sequence[TranscriptMessage]) -> list[dict[str, object]]:
    return [
        {
            "session_id": session_id,
            "owner_id": owner_id,
            "event_id": message.event_id,
            "role": message.role,
            "at": message.timestamp,
            "body": message.content.translate(_MARKERS),
        }
        for message in messages
        if message.event_id and message.content.strip()
    ]


def _parts(snippet: str) -> tuple[tuple[str, bool], ...]:
    """``a \\x02hit\\x03 b`` as ``(("a ", False), ("hit", True), (" b", False))``."""
    parts: list[tuple[str, bool]] = []
    for index, piece in enumerate(re.split(f"[{HIT_START}{HIT_END}]", snippet)):
        if piece:
            parts.append((piece, index % 2 == 1))
    return tuple(parts)

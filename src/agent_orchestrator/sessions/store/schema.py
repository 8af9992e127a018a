"""The current shape of the store's tables, as SQLAlchemy Core objects that the queries use.

Migrations (Alembic revisions in ``alembic/versions``) create and evolve the real tables; they keep
their own frozen copy of each step's DDL so that editing this file never rewrites history. A test
migrates a blank database and checks it matches this metadata exactly (and Alembic's autogenerate
finds nothing to add), so the two cannot drift apart unnoticed.

Timestamps are timezone-aware UTC everywhere (:class:`UTCDateTime`): ``timestamptz`` on PostgreSQL, and
on SQLite a fixed-width ``YYYY-MM-DD HH:MM:SS.ffffff`` UTC string, which sorts like the time it stands
for, so ``ORDER BY`` and range comparisons behave the same on both backends.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    false,
    func,
)
from sqlalchemy.types import TypeDecorator


class UTCDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes in, aware UTC datetimes out; naive datetimes are refused."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("Store timestamps must be timezone-aware (UTC).")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def utcnow() -> datetime:
    return datetime.now(UTC)


metadata = MetaData()

users = Table(
    "users",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("username", String(40), nullable=False),
    Column("password_hash", Text, nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    # "admin" or "analyst" (docs/architecture.md#roles): analysts see the data, admins also manage it.
    Column("role", String(16), nullable=False, server_default="analyst"),
)
Index("ux_users_username_lower", func.lower(users.c.username), unique=True)

logins = Table(
    "logins",
    metadata,
    Column("token_hash", String(64), primary_key=True),  # sha256 hex of the token; never the token
    Column("user_id", Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    Column("csrf_token", String(100), nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("expires_at", UTCDateTime(), nullable=False),
    Index("ix_logins_user_id", "user_id"),
    Index("ix_logins_expires_at", "expires_at"),
)

sessions = Table(
    "sessions",
    metadata,
    # The runtime's session id: unique across owners, and what every other table, the runtime's files,
    # the leases and the live feeds are keyed by. Never shown to a user (docs/architecture.md#session-ids).
    Column("id", String(64), primary_key=True),
    Column("owner_id", Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    # Title and preview are Text: sealed, they are longer than what they hold (migration 0009).
    Column("title", Text, nullable=False),
    Column("case_key", String(120), nullable=True),
    Column("model", String(200), nullable=True),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("updated_at", UTCDateTime(), nullable=False),
    Column("preview", Text, nullable=False),
    Column("status", String(20), nullable=False),
    Column("turn_count", Integer, nullable=False),
    # The message of the turn in flight. The runtime flushes its event log only as a turn progresses,
    # so after a crash mid-turn this is the only record of what the user asked (migration 0002).
    Column("pending_prompt", Text, nullable=True),
    # casefold(title), kept by the catalog: what search matches against (migration 0003); with a
    # master key, the blind terms of the title's word prefixes instead (migration 0009).
    Column("title_folded", Text, nullable=False, server_default=""),
    # A fork names the session (by its public id: a fork's parent is its owner's) and the message (the
    # runtime's event id) it was branched from (migration 0006; no foreign key: a branch outlives its
    # parent).
    Column("parent_id", String(64), nullable=True),
    Column("parent_event_id", String(64), nullable=True),
    # The id its owner sees, chooses and names in URLs: unique per owner, so two users' "acme-merger"
    # are two sessions (migration 0011, which gave every earlier session its runtime id as public id;
    # the default only serves that migration's ADD COLUMN, the catalog always writes it).
    Column("public_id", String(64), nullable=False, server_default=""),
    # Organising (migration 0014): when the owner pinned or archived it (NULL: not), and who titled
    # it: "default" (nobody yet), "auto" (the app, after its first message and answer) or "user" (the
    # owner; the app never replaces it). Sessions stored before 0014 count as titled by their owner.
    Column("pinned_at", UTCDateTime(), nullable=True),
    Column("archived_at", UTCDateTime(), nullable=True),
    Column("title_source", String(8), nullable=False, server_default="user"),
    # A user's request names the session by its public id: one owner's namespace.
    Index("ux_sessions_owner_public_id", "owner_id", "public_id", unique=True),
    # The list page and its keyset cursor walk this index newest first; the title search too, and as
    # the index carries the folded title, it filters without touching the table (index-only). Ties
    # are broken by the public id, unique within the owner (migration 0011). It carries the archived
    # and pinned times too, which the default list and the pinned section filter on (migration 0014).
    Index(
        "ix_sessions_owner_updated_title",
        "owner_id",
        "updated_at",
        "public_id",
        "title_folded",
        "archived_at",
        "pinned_at",
    ),
    # The same for one case/workflow.
    Index("ix_sessions_owner_case_updated", "owner_id", "case_key", "updated_at", "public_id"),
    # Retention purge: everything older than a cutoff, whoever owns it.
    Index("ix_sessions_updated_at", "updated_at"),
)

# A chat's tags (migration 0014), several per chat; the owner's list of tags reads the owner's index.
session_tags = Table(
    "session_tags",
    metadata,
    Column("session_id", String(64), ForeignKey("sessions.id", ondelete="CASCADE"), primary_key=True),
    Column("tag", String(40), primary_key=True),
    Column("owner_id", Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    Index("ix_session_tags_owner_tag", "owner_id", "tag"),
)

# Feedback on an answer (migration 0014): the answer is the runtime's event id of its message; the
# note is sealed with the session's key under a master key. Exported by an admin as eval cases.
message_feedback = Table(
    "message_feedback",
    metadata,
    Column("session_id", String(64), ForeignKey("sessions.id", ondelete="CASCADE"), primary_key=True),
    Column("event_id", String(64), primary_key=True),
    Column("owner_id", Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    Column("rating", String(4), nullable=False),  # "up" or "down"
    Column("note", Text, nullable=False, server_default=""),
    Column("updated_at", UTCDateTime(), nullable=False),
    Index("ix_message_feedback_updated", "updated_at"),
)

# Read-only share links (migration 0013): the token's sha256 finds a link, never the token itself;
# title and snapshot (the event log when shared) are sealed with the session's key under a master key.
share_links = Table(
    "share_links",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("token_hash", String(64), nullable=False),
    Column("session_id", String(64), ForeignKey("sessions.id", ondelete="CASCADE"), nullable=False),
    Column("owner_id", Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("expires_at", UTCDateTime(), nullable=False),
    Column("revoked_at", UTCDateTime(), nullable=True),
    Column("signed_in_only", Boolean(), nullable=False, server_default=false()),
    Column("title", Text, nullable=False),
    Column("snapshot", Text, nullable=False),
    Column("snapshot_at", UTCDateTime(), nullable=False),
    Column("views", Integer, nullable=False, server_default="0"),
    Index("ux_share_links_token_hash", "token_hash", unique=True),
    Index("ix_share_links_owner_created", "owner_id", "created_at"),
    Index("ix_share_links_session", "session_id"),
)

# Personal API tokens (migration 0016, docs/architecture.md#api-tokens): found by the sha256 of the
# token, which only its holder has; ``hint`` is its first characters, to tell tokens apart in a list.
# Revoking one deletes its row, so every server refuses it from the next request on.
api_tokens = Table(
    "api_tokens",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("user_id", Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    Column("name", String(60), nullable=False),
    Column("scopes", String(40), nullable=False),  # space-separated: read, chat, data
    Column("token_hash", String(64), nullable=False),
    Column("hint", String(16), nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("expires_at", UTCDateTime(), nullable=False),
    Column("last_used_at", UTCDateTime(), nullable=True),
    Column("last_used_addr", String(64), nullable=True),
    Index("ux_api_tokens_token_hash", "token_hash", unique=True),
    Index("ux_api_tokens_user_name", "user_id", "name", unique=True),
)

# Device logins in progress (RFC 8628, migration 0016): a terminal holds the device code (stored as its
# sha256), the user types the short user code into a signed-in browser, which approves it with a scope;
# the terminal's next poll turns the approval into a token and deletes the row.
device_grants = Table(
    "device_grants",
    metadata,
    Column("code_hash", String(64), primary_key=True),
    Column("user_code", String(9), nullable=False),
    Column("client_name", String(60), nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("expires_at", UTCDateTime(), nullable=False),
    Column("user_id", Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=True),
    Column("scopes", String(40), nullable=True),
    Index("ux_device_grants_user_code", "user_code", unique=True),
)

# Versions of a turn (migration 0017): an edit or a regenerate keeps the turn it replaces
# (docs/architecture.md#versions-of-a-turn). ``anchor`` is the runtime's event id of the message before
# the turn ("" for the first turn), so the turns inside one version have versions of their own; ``tail``
# is the event log from the turn's question to the end, sealed with the session's key under a master
# key, and NULL for the version the session's log holds now (one per anchor).
turn_versions = Table(
    "turn_versions",
    metadata,
    Column("session_id", String(64), ForeignKey("sessions.id", ondelete="CASCADE"), primary_key=True),
    Column("anchor", String(64), primary_key=True),
    Column("number", Integer, primary_key=True),
    Column("tail", Text, nullable=True),
    Column("created_at", UTCDateTime(), nullable=False),
)

# User messages of turns that a crash cut off before the runtime wrote them to its event log, kept
# once the session has moved on, so the transcript still shows them where they were asked.
interrupted_turns = Table(
    "interrupted_turns",
    metadata,
    Column("id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True),
    Column("session_id", String(64), ForeignKey("sessions.id", ondelete="CASCADE"), nullable=False),
    Column("prompt", Text, nullable=False),
    Column("at", UTCDateTime(), nullable=False),
    Index("ix_interrupted_turns_session", "session_id", "at"),
)

# What full-text search finds: one row per visible message, kept by ``sessions.search``. The text
# index over it is each backend's own (FTS5 on SQLite, a tsvector column and GIN index on PostgreSQL)
# and is created by migration 0006 outside this metadata (``sessions.search.NATIVE_SEARCH_OBJECTS``).
search_messages = Table(
    "search_messages",
    metadata,
    Column("id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True),
    Column("session_id", String(64), ForeignKey("sessions.id", ondelete="CASCADE"), nullable=False),
    Column("owner_id", Integer, nullable=False),
    Column("event_id", String(64), nullable=False),  # the runtime's event id: the link to the message
    Column("role", String(20), nullable=False),
    Column("at", String(40), nullable=False),  # the event's ISO-8601 timestamp, as logged
    Column("body", Text, nullable=False),  # sealed when ``terms`` is set
    # With a master key: the blind terms of the body's stemmed words, which the native index indexes
    # instead of the body (migration 0009); NULL for a row in clear.
    Column("terms", Text, nullable=True),
    Index("ux_search_messages_event", "session_id", "event_id", unique=True),
    Index("ix_search_messages_owner", "owner_id", "id"),
)

# The backends' own text-index objects (migrations 0006 and 0009): the FTS5 tables (clear bodies,
# blind terms) and their shadow tables on SQLite, the stored tsvector column and its GIN index on
# PostgreSQL. Alembic's comparison and the schema tests skip exactly these names.
NATIVE_SEARCH_NAMES = frozenset(
    {
        *(
            f"{table}{shadow}"
            for table in ("search_messages_fts", "search_terms_fts")
            for shadow in ("", "_data", "_idx", "_docsize", "_config")
        ),
        "tsv",
        "ix_search_messages_tsv",
    }
)

audit_log = Table(
    "audit_log",
    metadata,
    Column("id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True),
    Column("at", UTCDateTime(), nullable=False),
    # No foreign keys: the audit trail outlives the users and sessions it mentions.
    Column("user_id", Integer, nullable=True),
    Column("username", String(200), nullable=False),  # a placeholder for a login_failed at no account
    Column("action", String(20), nullable=False),
    Column("session_id", String(64), nullable=True),
    Column("client_addr", String(64), nullable=True),
    Column("details", Text, nullable=False),
    # The public id asked for by a request that found no session (``unknown_id``): not a session's key.
    Column("asked_id", String(64), nullable=True),
    Index("ix_audit_log_session_id", "session_id", "id"),
    Index("ix_audit_log_asked_id", "asked_id", "id"),
    Index("ix_audit_log_user_id", "user_id", "id"),
    Index("ix_audit_log_at", "at"),
)

session_leases = Table(
    "session_leases",
    metadata,
    # No foreign key to sessions: a fencing token must never go backwards, even if the session is
    # deleted and an id re-created, and the runtime may lease a session before it is catalogued.
    Column("session_id", String(64), primary_key=True),
    Column("holder", String(200), nullable=True),  # NULL once released
    Column("fencing_token", BigInteger, nullable=False),
    Column("expires_at", UTCDateTime(), nullable=False),
)

# The live feed's recent events (docs/architecture.md#live-sessions): per stream (a session, or a user's
# list of sessions), numbered 1, 2, 3... so a client says where it stopped and gets the rest. Bounded:
# a finished turn's deltas go (its ``done`` holds the whole answer), and only the latest events stay.
# No foreign key: a deleted session's stream keeps one ``deleted`` marker, so a re-created id
# continues the numbering instead of going back.
live_events = Table(
    "live_events",
    metadata,
    Column("stream", String(80), primary_key=True),
    Column("seq", BigInteger, primary_key=True, autoincrement=False),
    Column("kind", String(20), nullable=False),
    Column("data", Text, nullable=False),
    Column("at", UTCDateTime(), nullable=False),
)

# Failed logins per key ("account:<name>" or "address:<ip>"), shared by every server on the database,
# so a password cannot be guessed faster by spreading attempts over servers (migration 0007).
login_throttle = Table(
    "login_throttle",
    metadata,
    Column("key", String(200), primary_key=True),
    Column("failures", Integer, nullable=False),  # attempts charged in the current window
    Column("window_started_at", UTCDateTime(), nullable=False),
    Column("locked_until", UTCDateTime(), nullable=True),
    Index("ix_login_throttle_window", "window_started_at"),  # the hourly purge of stale rows
)

# Model tokens per turn (migration 0007). No foreign keys, like the audit log: a user's daily budget
# must still count a session they deleted, and accounting outlives the conversation. A running turn's
# row holds its estimated cost in ``reserved_tokens`` until its end settles it (migration 0010).
turn_usage = Table(
    "turn_usage",
    metadata,
    Column("id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True),
    Column("session_id", String(64), nullable=False),
    Column("user_id", Integer, nullable=False),
    Column("at", UTCDateTime(), nullable=False),
    Column("model", String(200), nullable=True),
    Column("input_tokens", BigInteger, nullable=False),
    Column("output_tokens", BigInteger, nullable=False),
    Column("reserved_tokens", BigInteger, nullable=False, server_default="0"),
    Index("ix_turn_usage_user_at", "user_id", "at"),
    Index("ix_turn_usage_session", "session_id", "at"),
)

"""Branches and full-text search over what users said (docs/architecture.md#branching-and-search).

* ``sessions.parent_id`` / ``parent_event_id``: a fork remembers the session and the message it was
  branched from (no foreign key: deleting the parent leaves its branches standing).
* ``search_messages``: one row per visible message (owner, session, the runtime's event id, role,
  timestamp, text), deleted with its session. The full-text index over it is each backend's own and
  lives outside ``schema.py`` (``sessions.search.NATIVE_SEARCH_OBJECTS``): on SQLite an FTS5 table
  with external content kept current by triggers, on PostgreSQL a stored ``tsvector`` column with a
  GIN index.

Existing conversations are not indexed here (their text lives in the runtime's files, not in this
database): ``python -m agent_orchestrator.sessions reindex`` fills the index.

Revision ID: 0006_search
Revises: 0004_interrupted_turns
"""

import sqlalchemy as sa
from alembic import op

_BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

revision = "0006_search"
down_revision = "0004_interrupted_turns"
branch_labels = None
depends_on = None

_SQLITE = [
    """CREATE VIRTUAL TABLE search_messages_fts USING fts5(
        body, owner_id, content='search_messages', content_rowid='id',
        tokenize='porter unicode61 remove_diacritics 2')""",
    """CREATE TRIGGER search_messages_ai AFTER INSERT ON search_messages BEGIN
        INSERT INTO search_messages_fts(rowid, body, owner_id) VALUES (new.id, new.body, new.owner_id);
    END""",
    """CREATE TRIGGER search_messages_ad AFTER DELETE ON search_messages BEGIN
        INSERT INTO search_messages_fts(search_messages_fts, rowid, body, owner_id)
        VALUES ('delete', old.id, old.body, old.owner_id);
    END""",
    """CREATE TRIGGER search_messages_au AFTER UPDATE ON search_messages BEGIN
        INSERT INTO search_messages_fts(search_messages_fts, rowid, body, owner_id)
        VALUES ('delete', old.id, old.body, old.owner_id);
        INSERT INTO search_messages_fts(rowid, body, owner_id) VALUES (new.id, new.body, new.owner_id);
    END""",
]
_POSTGRESQL = [
    "ALTER TABLE search_messages ADD COLUMN tsv tsvector "
    "GENERATED ALWAYS AS (to_tsvector('english', body)) STORED",
    "CREATE INDEX ix_search_messages_tsv ON search_messages USING gin (tsv)",
]


def upgrade() -> None:
    op.add_column("sessions", sa.Column("parent_id", sa.String(64), nullable=True))
    op.add_column("sessions", sa.Column("parent_event_id", sa.String(64), nullable=True))
    op.create_table(
        "search_messages",
        sa.Column("id", _BIG_ID, primary_key=True, autoincrement=True),
        sa.Column(
            "session_id", sa.String(64), sa.ForeignKey("sessions.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("owner_id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.String(64), nullable=False),
        sa.Column("role", sa.String(20), nullable=False),
        sa.Column("at", sa.String(40), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Index("ux_search_messages_event", "session_id", "event_id", unique=True),
        sa.Index("ix_search_messages_owner", "owner_id", "id"),
    )
    dialect = op.get_bind().dialect.name
    for statement in _SQLITE if dialect == "sqlite" else _POSTGRESQL if dialect == "postgresql" else []:
        op.execute(statement)


def downgrade() -> None:
    raise NotImplementedError("The session store only migrates forward.")

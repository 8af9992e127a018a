"""Sealed titles, previews and search rows (docs/architecture.md#encryption-at-rest).

With a master key the catalog stores the title and preview sealed (longer than the text they hold) and
``title_folded`` as blind terms, and a search row stores its body sealed and the blind terms of its
words in the new ``search_messages.terms`` column, which the native index indexes instead of the body:

* **PostgreSQL**: ``title``, ``preview`` and ``title_folded`` become ``text`` (no rewrite: varchar to
  text is binary-coercible). ``tsv`` is generated again from ``terms`` when a row has them ('simple'
  configuration: the terms are not words) and from ``body`` otherwise ('english', as before), with its
  GIN index rebuilt (a rewrite of ``search_messages``, once).
* **SQLite** does not enforce lengths, so the columns keep their declared types. A second FTS5 table,
  ``search_terms_fts``, indexes the terms (plain ``ascii`` tokenizer, no positions: a query is an AND of
  terms), and the triggers route each row to one of the two tables by whether it has terms.

Rows in clear stay as they are; ``python -m agent_orchestrator.sessions reindex`` rewrites every
session's rows in the mode of the deployment.

Revision ID: 0009_sealed_search
Revises: 0008_live_events
"""

import sqlalchemy as sa
from alembic import op

revision = "0009_sealed_search"
down_revision = "0008_live_events"
branch_labels = None
depends_on = None

_INDEX_NEW = """INSERT INTO search_messages_fts(rowid, body, owner_id)
        SELECT new.id, new.body, new.owner_id WHERE new.terms IS NULL;
        INSERT INTO search_terms_fts(rowid, terms) SELECT new.id, new.terms WHERE new.terms IS NOT NULL;"""
_UNINDEX_OLD = """INSERT INTO search_messages_fts(search_messages_fts, rowid, body, owner_id)
        SELECT 'delete', old.id, old.body, old.owner_id WHERE old.terms IS NULL;
        INSERT INTO search_terms_fts(search_terms_fts, rowid, terms)
        SELECT 'delete', old.id, old.terms WHERE old.terms IS NOT NULL;"""
_SQLITE = [
    """CREATE VIRTUAL TABLE search_terms_fts USING fts5(
        terms, content='search_messages', content_rowid='id', tokenize='ascii', detail='none',
        columnsize=0)""",
    "DROP TRIGGER search_messages_ai",
    "DROP TRIGGER search_messages_ad",
    "DROP TRIGGER search_messages_au",
    f"CREATE TRIGGER search_messages_ai AFTER INSERT ON search_messages BEGIN {_INDEX_NEW} END",
    f"CREATE TRIGGER search_messages_ad AFTER DELETE ON search_messages BEGIN {_UNINDEX_OLD} END",
    "CREATE TRIGGER search_messages_au AFTER UPDATE ON search_messages "
    f"BEGIN {_UNINDEX_OLD} {_INDEX_NEW} END",
]
_POSTGRESQL = [
    *(
        f"ALTER TABLE sessions ALTER COLUMN {column} TYPE text"
        for column in ("title", "preview", "title_folded")
    ),
    "DROP INDEX ix_search_messages_tsv",
    "ALTER TABLE search_messages DROP COLUMN tsv",
    "ALTER TABLE search_messages ADD COLUMN tsv tsvector GENERATED ALWAYS AS (CASE WHEN terms IS NULL "
    "THEN to_tsvector('english', body) ELSE to_tsvector('simple', terms) END) STORED",
    "CREATE INDEX ix_search_messages_tsv ON search_messages USING gin (tsv)",
]


def upgrade() -> None:
    op.add_column("search_messages", sa.Column("terms", sa.Text(), nullable=True))
    dialect = op.get_bind().dialect.name
    for statement in _SQLITE if dialect == "sqlite" else _POSTGRESQL if dialect == "postgresql" else []:
        op.execute(statement)


def downgrade() -> None:
    raise NotImplementedError("The session store only migrates forward.")

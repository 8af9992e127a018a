"""Crash-interrupted prompts outlive the next turn (see ``schema.interrupted_turns``).

Revision ID: 0004_interrupted_turns
Revises: 0003_title_search
"""

import sqlalchemy as sa
from alembic import op

# Autoincrementing 64-bit keys; SQLite's rowid alias must be spelled INTEGER.
_BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

revision = "0004_interrupted_turns"
down_revision = "0003_title_search"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "interrupted_turns",
        sa.Column("id", _BIG_ID, primary_key=True, autoincrement=True),
        sa.Column(
            "session_id", sa.String(64), sa.ForeignKey("sessions.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("prompt", sa.Text(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Index("ix_interrupted_turns_session", "session_id", "at"),
    )


def downgrade() -> None:
    raise NotImplementedError("The session store only migrates forward.")

"""Governance: login throttling shared by all servers, and the per-turn usage ledger.

See ``schema.login_throttle`` and ``schema.turn_usage``.

Revision ID: 0007_governance
Revises: 0004_interrupted_turns
"""

import sqlalchemy as sa
from alembic import op

# Autoincrementing 64-bit keys; SQLite's rowid alias must be spelled INTEGER.
_BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

revision = "0007_governance"
down_revision = "0006_search"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "login_throttle",
        sa.Column("key", sa.String(200), primary_key=True),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("window_started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("locked_until", sa.DateTime(timezone=True), nullable=True),
        sa.Index("ix_login_throttle_window", "window_started_at"),
    )
    op.create_table(
        "turn_usage",
        sa.Column("id", _BIG_ID, primary_key=True, autoincrement=True),
        sa.Column("session_id", sa.String(64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("model", sa.String(200), nullable=True),
        sa.Column("input_tokens", sa.BigInteger(), nullable=False),
        sa.Column("output_tokens", sa.BigInteger(), nullable=False),
        sa.Index("ix_turn_usage_user_at", "user_id", "at"),
        sa.Index("ix_turn_usage_session", "session_id", "at"),
    )


def downgrade() -> None:
    raise NotImplementedError("The session store only migrates forward.")

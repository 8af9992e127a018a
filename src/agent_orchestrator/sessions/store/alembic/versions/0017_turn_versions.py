"""Versions of a turn (docs/architecture.md#versions-of-a-turn).

``turn_versions``: the turns an edit or a regenerate replaced, by session, the message before the turn
(``anchor``) and number; the version the session's log holds now has no ``tail``.

Revision ID: 0017_turn_versions
Revises: 0016_api_tokens
"""

import sqlalchemy as sa
from alembic import op

revision = "0017_turn_versions"
down_revision = "0016_api_tokens"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "turn_versions",
        sa.Column(
            "session_id", sa.String(64), sa.ForeignKey("sessions.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("anchor", sa.String(64), primary_key=True),
        sa.Column("number", sa.Integer(), primary_key=True),
        sa.Column("tail", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    raise NotImplementedError("The session store only migrates forward.")

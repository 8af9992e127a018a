"""The live feed's bounded event log (see ``schema.live_events``).

Revision ID: 0008_live_events
Revises: 0004_interrupted_turns
"""

import sqlalchemy as sa
from alembic import op

revision = "0008_live_events"
down_revision = "0007_governance"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "live_events",
        sa.Column("stream", sa.String(80), primary_key=True),
        sa.Column("seq", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    raise NotImplementedError("The session store only migrates forward.")

"""The prompt of the turn in progress, kept on the session row.

After a crash mid-turn it is the only record of what the user asked.

Revision ID: 0002_pending_prompt
Revises: 0001_initial
"""

import sqlalchemy as sa
from alembic import op

revision = "0002_pending_prompt"
down_revision = "0001_initial"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("sessions", sa.Column("pending_prompt", sa.Text(), nullable=True))


def downgrade() -> None:
    raise NotImplementedError("The session store only migrates forward.")

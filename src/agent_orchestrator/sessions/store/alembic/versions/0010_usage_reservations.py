"""A running turn's tokens held against the daily budget (docs/architecture.md#usage-ledger).

``turn_usage.reserved_tokens``: the estimate a turn holds from its start until its end settles the row
with the tokens it spent (0 then, as on every row written before this step).

Revision ID: 0010_usage_reservations
Revises: 0009_sealed_search
"""

import sqlalchemy as sa
from alembic import op

revision = "0010_usage_reservations"
down_revision = "0009_sealed_search"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "turn_usage", sa.Column("reserved_tokens", sa.BigInteger(), nullable=False, server_default="0")
    )


def downgrade() -> None:
    raise NotImplementedError("The session store only migrates forward.")

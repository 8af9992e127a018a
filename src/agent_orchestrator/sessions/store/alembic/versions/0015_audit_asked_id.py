"""The public id a refused request asked for (docs/architecture.md#ownership).

``audit_log.asked_id``: a well-formed session id that the caller has no session of is audited as
``unknown_id`` with the id as asked. It is not the key of any session (``session_id`` is a runtime id,
and a public id is a name in one owner's namespace), so it has a column of its own, indexed with the
row id, so that a session's activity finds the attempts on its public id newest first. Every earlier
row has none.

Revision ID: 0015_audit_asked_id
Revises: 0014_organise
"""

import sqlalchemy as sa
from alembic import op

revision = "0015_audit_asked_id"
down_revision = "0014_organise"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("audit_log", sa.Column("asked_id", sa.String(64), nullable=True))
    op.create_index("ix_audit_log_asked_id", "audit_log", ["asked_id", "id"])


def downgrade() -> None:
    raise NotImplementedError("The session store only migrates forward.")

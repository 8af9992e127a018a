"""Session ids per owner (docs/architecture.md#session-ids).

``sessions.public_id``: the id a session's owner sees and names in URLs, unique per owner
(``ux_sessions_owner_public_id``), so that another user's id is simply not in the caller's namespace.
The primary key ``sessions.id`` stays the runtime's id, unique across owners, which every other table,
the runtime's files, the leases and the live feeds keep using.

Every existing session gets its id as both: nothing already stored moves (no file, lease, feed, key,
search row or usage row is touched), and its owner keeps addressing it as before. Ids were global
until now, so no owner holds one twice and the unique index always builds. The two list indexes break
ties by the public id instead of the runtime id, so that the list's cursor names only the owner's ids.

Revision ID: 0011_owner_session_ids
Revises: 0010_usage_reservations
"""

import sqlalchemy as sa
from alembic import op

revision = "0011_owner_session_ids"
down_revision = "0010_usage_reservations"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # NOT NULL with a default, then filled: SQLite cannot make an added column NOT NULL afterwards
    # without copying the table, whose foreign keys cascade to interrupted turns and search rows.
    op.add_column("sessions", sa.Column("public_id", sa.String(64), server_default="", nullable=False))
    op.execute("UPDATE sessions SET public_id = id")
    op.create_index("ux_sessions_owner_public_id", "sessions", ["owner_id", "public_id"], unique=True)
    op.drop_index("ix_sessions_owner_updated_title", table_name="sessions")
    op.create_index(
        "ix_sessions_owner_updated_title", "sessions", ["owner_id", "updated_at", "public_id", "title_folded"]
    )
    op.drop_index("ix_sessions_owner_case_updated", table_name="sessions")
    op.create_index(
        "ix_sessions_owner_case_updated", "sessions", ["owner_id", "case_key", "updated_at", "public_id"]
    )


def downgrade() -> None:
    raise NotImplementedError("The session store only migrates forward.")

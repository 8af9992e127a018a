"""User roles (docs/architecture.md#roles).

``users.role``: ``admin`` or ``analyst``. Analysts see the data; admins also manage it (upload a
shop's sales, switch and restore versions, change the dataset's settings). Every existing account
becomes an analyst but the first one (the lowest id), which becomes the admin: a deployment that
had accounts before roles existed keeps someone who can manage its data, and it is the same
account a fresh deployment makes admin (the first created; with ``scripts/start`` the demo account).

Revision ID: 0012_user_roles
Revises: 0011_owner_session_ids
"""

import sqlalchemy as sa
from alembic import op

revision = "0012_user_roles"
down_revision = "0011_owner_session_ids"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # NOT NULL with a default: SQLite adds such a column without copying the table.
    op.add_column("users", sa.Column("role", sa.String(16), server_default="analyst", nullable=False))
    op.execute("UPDATE users SET role = 'admin' WHERE id = (SELECT MIN(id) FROM users)")


def downgrade() -> None:
    raise NotImplementedError("The session store only migrates forward.")

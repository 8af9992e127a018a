"""Read-only share links (docs/architecture.md#share-links).

``share_links``: a link's own id (what its owner manages it by), the sha256 of its token (the
capability in the URL, never stored), the session and owner it belongs to (deleted with them), when
it expires or was revoked, whether only signed-in users of this server may open it, and the
conversation as it was when shared (its title and event log, sealed with the session's key when a
master key is set), with the number of views.

Revision ID: 0013_share_links
Revises: 0012_user_roles
"""

import sqlalchemy as sa
from alembic import op

revision = "0013_share_links"
down_revision = "0012_user_roles"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "share_links",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column(
            "session_id", sa.String(64), sa.ForeignKey("sessions.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("owner_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("signed_in_only", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("snapshot", sa.Text(), nullable=False),
        sa.Column("snapshot_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("views", sa.Integer(), nullable=False, server_default="0"),
    )
    op.create_index("ux_share_links_token_hash", "share_links", ["token_hash"], unique=True)
    op.create_index("ix_share_links_owner_created", "share_links", ["owner_id", "created_at"])
    op.create_index("ix_share_links_session", "share_links", ["session_id"])


def downgrade() -> None:
    raise NotImplementedError("The session store only migrates forward.")

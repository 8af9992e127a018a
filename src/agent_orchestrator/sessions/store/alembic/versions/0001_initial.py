"""The first schema: users, logins, sessions, the audit log and session leases.

Revision ID: 0001_initial
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001_initial"
down_revision = None
branch_labels = None
depends_on = None

# Autoincrementing 64-bit keys; SQLite's rowid alias must be spelled INTEGER.
_BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("username", sa.String(40), nullable=False),
        sa.Column("password_hash", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ux_users_username_lower", "users", [sa.text("lower(username)")], unique=True)
    op.create_table(
        "logins",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("csrf_token", sa.String(100), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Index("ix_logins_user_id", "user_id"),
        sa.Index("ix_logins_expires_at", "expires_at"),
    )
    op.create_table(
        "sessions",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("owner_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("title", sa.String(120), nullable=False),
        sa.Column("case_key", sa.String(120), nullable=True),
        sa.Column("model", sa.String(200), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("preview", sa.String(200), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("turn_count", sa.Integer(), nullable=False),
        sa.Index("ix_sessions_owner_updated", "owner_id", "updated_at", "id"),
        sa.Index("ix_sessions_owner_case_updated", "owner_id", "case_key", "updated_at", "id"),
        sa.Index("ix_sessions_updated_at", "updated_at"),
    )
    op.create_table(
        "audit_log",
        sa.Column("id", _BIG_ID, primary_key=True, autoincrement=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("username", sa.String(200), nullable=False),
        sa.Column("action", sa.String(20), nullable=False),
        sa.Column("session_id", sa.String(64), nullable=True),
        sa.Column("client_addr", sa.String(64), nullable=True),
        sa.Column("details", sa.Text(), nullable=False),
        sa.Index("ix_audit_log_session_id", "session_id", "id"),
        sa.Index("ix_audit_log_user_id", "user_id", "id"),
        sa.Index("ix_audit_log_at", "at"),
    )
    op.create_table(
        "session_leases",
        sa.Column("session_id", sa.String(64), primary_key=True),
        sa.Column("holder", sa.String(200), nullable=True),
        sa.Column("fencing_token", sa.BigInteger(), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    raise NotImplementedError("The session store only migrates forward.")

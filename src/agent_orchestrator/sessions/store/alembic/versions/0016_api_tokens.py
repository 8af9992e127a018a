"""Personal API tokens and device logins (docs/architecture.md#api-tokens).

``api_tokens``: a user's named tokens for scripts and the terminal client, found by the sha256 of the
token (never the token), with their scopes, expiry and last use. ``device_grants``: a terminal's login
waiting for a signed-in browser to approve its user code.

Revision ID: 0016_api_tokens
Revises: 0015_audit_asked_id
"""

import sqlalchemy as sa
from alembic import op

revision = "0016_api_tokens"
down_revision = "0015_audit_asked_id"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("name", sa.String(60), nullable=False),
        sa.Column("scopes", sa.String(40), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("hint", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_used_addr", sa.String(64), nullable=True),
    )
    op.create_index("ux_api_tokens_token_hash", "api_tokens", ["token_hash"], unique=True)
    op.create_index("ux_api_tokens_user_name", "api_tokens", ["user_id", "name"], unique=True)
    op.create_table(
        "device_grants",
        sa.Column("code_hash", sa.String(64), primary_key=True),
        sa.Column("user_code", sa.String(9), nullable=False),
        sa.Column("client_name", sa.String(60), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=True),
        sa.Column("scopes", sa.String(40), nullable=True),
    )
    op.create_index("ux_device_grants_user_code", "device_grants", ["user_code"], unique=True)


def downgrade() -> None:
    raise NotImplementedError("The session store only migrates forward.")

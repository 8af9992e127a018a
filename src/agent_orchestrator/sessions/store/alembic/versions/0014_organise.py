"""Organising chats, titles that follow the conversation, and feedback on answers
(docs/architecture.md#organising-chats).

``sessions``: ``pinned_at`` and ``archived_at`` (when a chat was pinned or archived; ``NULL``: it
is not), and ``title_source``: who gave the chat its title, ``default`` (not titled yet), ``auto``
(named by the app after its first message and first answer) or ``user`` (its owner's own title,
which the app never replaces). Every chat stored before this revision counts as titled by its owner:
its title is whatever it was, and nothing will rename it now. The list index carries both times, so
the default list (archived chats left out) and the pinned section still read the index alone.

``session_tags``: a chat's tags (several per chat), with the owner for the list of the owner's tags.
A chat's folder is its ``case_key`` (at most one per chat): no table of its own.

``message_feedback``: a thumbs up or down on an answer, named by the runtime's event id of the
answer, with an optional note (sealed with the session's key under a master key).

Revision ID: 0014_organise
Revises: 0013_share_links
"""

import sqlalchemy as sa
from alembic import op

revision = "0014_organise"
down_revision = "0013_share_links"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("sessions", sa.Column("pinned_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column("sessions", sa.Column("archived_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column("sessions", sa.Column("title_source", sa.String(8), server_default="user", nullable=False))
    op.drop_index("ix_sessions_owner_updated_title", table_name="sessions")
    op.create_index(
        "ix_sessions_owner_updated_title",
        "sessions",
        ["owner_id", "updated_at", "public_id", "title_folded", "archived_at", "pinned_at"],
    )
    op.create_table(
        "session_tags",
        sa.Column(
            "session_id", sa.String(64), sa.ForeignKey("sessions.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("tag", sa.String(40), primary_key=True),
        sa.Column("owner_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    )
    op.create_index("ix_session_tags_owner_tag", "session_tags", ["owner_id", "tag"])
    op.create_table(
        "message_feedback",
        sa.Column(
            "session_id", sa.String(64), sa.ForeignKey("sessions.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("event_id", sa.String(64), primary_key=True),
        sa.Column("owner_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("rating", sa.String(4), nullable=False),
        sa.Column("note", sa.Text(), nullable=False, server_default=""),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_message_feedback_updated", "message_feedback", ["updated_at"])


def downgrade() -> None:
    raise NotImplementedError("The session store only migrates forward.")

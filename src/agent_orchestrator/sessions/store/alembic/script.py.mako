"""${message}

Revision ID: ${up_revision}
Revises: ${down_revision | comma,n}
Create Date: ${create_date}

Frozen DDL: spell out what this step does; do not import the live tables from ``schema.py``.
"""

import sqlalchemy as sa
from alembic import op
${imports if imports else ""}
revision = "${up_revision}"
down_revision = ${'"%s"' % down_revision if down_revision else "None"}
branch_labels = None
depends_on = None


def upgrade() -> None:
    ${upgrades if upgrades else "pass"}


def downgrade() -> None:
    raise NotImplementedError("The session store only migrates forward.")

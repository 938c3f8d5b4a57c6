"""outbox index for the reply cap (replies to one address in the last hour)

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_outbox_to_created", "outbox", ["to_addr", "created_at"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_outbox_to_created", table_name="outbox")

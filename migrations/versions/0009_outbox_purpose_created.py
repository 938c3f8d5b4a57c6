"""outbox index by purpose and time: the global hourly cap on answers to strangers

Answers to senders who are no player of any game are capped for everyone
together per hour (`[mail] stranger_answers_per_hour`, issue 12); counting them
reads this index only, however large the outbox grows.

Revision ID: 0009_outbox_purpose_created
Revises: 0008_threading
Create Date: 2026-12-01
"""

from __future__ import annotations

from alembic import op

revision = "0009_outbox_purpose_created"
down_revision = "0008_threading"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_outbox_purpose_created", "outbox", ["purpose", "created_at"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_outbox_purpose_created", table_name="outbox")

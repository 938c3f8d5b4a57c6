"""press budget: the press mails each sender's messages caused (issue 26, `[mail] press_per_day`)

Append-only rows, one per inbound message that had press relayed: the sender's
address, how many mails it caused, when.  The per-sender budget sums the last
24 hours on the (address, created_at) index.

Revision ID: 0014_bounds
Revises: 0013_dkim_evidence
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0014_bounds"
down_revision = "0013_dkim_evidence"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "press_relays",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("address", sqlmodel.sql.sqltypes.AutoString(length=320), nullable=False),
        sa.Column("mails", sa.Integer(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_press_relays_address_created", "press_relays", ["address", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_press_relays_address_created", table_name="press_relays")
    op.drop_table("press_relays")

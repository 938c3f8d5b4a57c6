"""what `pbem prune` keeps of a sent mail whose bytes it dropped: their SHA-256 and when

`outbox.raw` held the text of every mail sent, whole, for ever: 89% of a home's database after half a year
(`benchmarks/months.py`, 28 MB a month for 8 running games).  `pbem prune` empties `raw` of the mails sent in
games over or abandoned long ago and keeps, beside the Message-ID and the recipient the row already has, the
SHA-256 of the bytes it dropped (`digest`) and when (`pruned_at`).  Both are NULL on every row this migration
finds: nothing is pruned until the moderator asks.

Revision ID: 0021_sent_mail_pruned
Revises: 0020_report_delivery_covered
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0021_sent_mail_pruned"
down_revision = "0020_report_delivery_covered"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("digest", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True))
        batch.add_column(sa.Column("pruned_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("pruned_at")
        batch.drop_column("digest")

"""intake identity: when each inbound message was written, and which first copy a duplicate repeats

Issue 12 ("Intake is exactly-once against the real world"): a re-delivered
copy of a message (same Message-ID and sender, or without a Message-ID the
same content without trace headers) is recorded as a duplicate of its first
copy and changes nothing; within a simultaneous step a message written before
the player's revision on file never replaces it.  `sent_at` keeps the Date a
message carries (never later than its arrival), `duplicate_of` the id of the
first copy.  Both are plain nullable columns: added in place, no table copy.

Revision ID: 0006_intake_identity
Revises: 0005_home_secret
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0006_intake_identity"
down_revision = "0005_home_secret"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("inbound_messages", sa.Column("sent_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
    op.add_column("inbound_messages", sa.Column("duplicate_of", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("inbound_messages") as batch_op:
        batch_op.drop_column("duplicate_of")
        batch_op.drop_column("sent_at")

"""home secrets: the key that outgoing Message-IDs are derived from

Report Message-IDs were a plain hash of counters (game, player, seq), so anyone
could recompute them and learn how far others had got (issue 12).  They are now
an HMAC under a random key made here, once per home, and kept in the record:
unpredictable from outside, yet the same for the same mail after a crash.

Revision ID: 0005_home_secret
Revises: 0004_record_chain
Create Date: 2026-11-30
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0005_home_secret"
down_revision = "0004_record_chain"
branch_labels = None
depends_on = None


def upgrade() -> None:
    table = op.create_table(
        "home_secrets",
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("value", sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )
    now = datetime.now(UTC)
    op.bulk_insert(table, [{"name": "message-id", "value": secrets.token_hex(32), "created_at": now}])


def downgrade() -> None:
    op.drop_table("home_secrets")

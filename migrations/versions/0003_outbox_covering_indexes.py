"""covering outbox indexes for the reply cap and for each player's last report

The reply cap counts acks and notices to one address in the last hour, and
every report asks for the last event each player was told of.  Both read only
indexed columns now, instead of visiting outbox rows (which hold whole mails),
so a poll does not slow down as the outbox grows.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from __future__ import annotations

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_outbox_to_created", table_name="outbox")
    op.create_index("ix_outbox_to_purpose_created", "outbox", ["to_addr", "purpose", "created_at"], unique=False)
    op.create_index(
        "ix_outbox_game_purpose_player_seq", "outbox", ["game_id", "purpose", "player", "upto_seq"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_outbox_game_purpose_player_seq", table_name="outbox")
    op.drop_index("ix_outbox_to_purpose_created", table_name="outbox")
    op.create_index("ix_outbox_to_created", "outbox", ["to_addr", "created_at"], unique=False)

"""indexes that answer when a player last wrote and was last sent a report without reading the mails' bytes

`inbound_messages.received_at` and `outbox.created_at` are stored after each mail's `raw` bytes, so a statement
that reads them for many rows (when each player last wrote: `pbem game waiting` and WAITING; when each DIGEST player
was last sent a report: every mail of their game) read every one of those mails (SQLite follows a row's overflow
pages to reach a column stored after them): 96 MB for the reports of a 951-input game.  These indexes hold the
columns those statements read (costs15).

Revision ID: 0019_mail_bytes_skipped
Revises: 0018_event_readers
Create Date: 2026-12-06
"""

from __future__ import annotations

from alembic import op

revision = "0019_mail_bytes_skipped"
down_revision = "0018_event_readers"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(
        "ix_inbound_game_player_received", "inbound_messages", ["game_id", "player", "outcome", "received_at"]
    )
    op.create_index("ix_outbox_game_purpose_player_created", "outbox", ["game_id", "purpose", "player", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_outbox_game_purpose_player_created", table_name="outbox")
    op.drop_index("ix_inbound_game_player_received", table_name="inbound_messages")

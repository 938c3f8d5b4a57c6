"""the index that answers whether each asked player got the step's report without reading the reports' bytes

`outbox.status` and `outbox.sent_at` are stored after each mail's `raw` bytes, so the undelivered-report check of
each due deadline (`pbem.record.deliveries`) read every report of the step to its asked players whole: about 55 KB
a Sixteen Thirty report.  This index holds the columns it reads (costs17).  It replaces 0019's index on (game_id,
purpose, player, created_at), the prefix of this one, which answers each DIGEST player's last report as before.

Revision ID: 0020_report_delivery_covered
Revises: 0019_mail_bytes_skipped
Create Date: 2026-12-06
"""

from __future__ import annotations

from alembic import op

revision = "0020_report_delivery_covered"
down_revision = "0019_mail_bytes_skipped"
branch_labels = None
depends_on = None

_COLUMNS = ["game_id", "purpose", "player", "created_at", "status", "sent_at"]


def upgrade() -> None:
    op.create_index("ix_outbox_game_purpose_player_created_sent", "outbox", _COLUMNS)
    op.drop_index("ix_outbox_game_purpose_player_created", table_name="outbox")


def downgrade() -> None:
    op.create_index("ix_outbox_game_purpose_player_created", "outbox", ["game_id", "purpose", "player", "created_at"])
    op.drop_index("ix_outbox_game_purpose_player_created_sent", table_name="outbox")

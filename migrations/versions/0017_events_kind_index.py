"""events kind index: a turn's bounds are read by index

HISTORY by mail (`pbem.app.histories`) reads the scoring events that bound a turn (the first, the last, the k-th,
the one before a position) by ``ix_events_game_kind_seq`` instead of reading every event of the game (costs8).

Revision ID: 0017_events_kind_index
Revises: 0016_poll_mark_text
Create Date: 2026-12-05
"""

from __future__ import annotations

from alembic import op

revision = "0017_events_kind_index"
down_revision = "0016_poll_mark_text"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_events_game_kind_seq", "events", ["game_id", "kind", "seq"])


def downgrade() -> None:
    op.drop_index("ix_events_game_kind_seq", table_name="events")

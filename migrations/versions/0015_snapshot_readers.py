"""snapshot readers: each player's receipt position kept with the snapshot (issue 27)

`snapshots.readers_json` (nullable): what every player of the game may see of the record at this snapshot,
{"event_seq": E, "readers": {player: [entries, head]}} (`pbem.record.reader_view`), written when every
player's count is known; a cache like the state beside it, so that a poll in a new process states each
reader's receipt without counting the record.  NULL: not known (older rows), counted as before.

Revision ID: 0015_snapshot_readers
Revises: 0014_bounds
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015_snapshot_readers"
down_revision = "0014_bounds"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("snapshots") as batch:
        batch.add_column(sa.Column("readers_json", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("snapshots") as batch:
        batch.drop_column("readers_json")

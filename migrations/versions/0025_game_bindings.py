"""game bindings: the format mark a game declares, which bindings its entries carry

fairness24 bound a player's resignation to its word and a move to its address, and required them of entries dated
2026-12-08 or later (`asked.BOUND_SINCE`): a moderator could date a game's entries before that day to escape them.
`games.bindings` is the game's own mark instead, set when the game is made (`pbem.trust.asked.BINDINGS`) and signed
in the header of every receipt (`pbem.trust.signing.header`), the invitation's first: a game made before keeps 0 (its
entries carry the bindings they carry), and one the moderator marks 0 afterwards no longer matches the header its
players' mail was signed for.  The downgrade drops it.

Revision ID: 0025_game_bindings
Revises: 0024_outbox_mail_checksum
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0025_game_bindings"
down_revision = "0024_outbox_mail_checksum"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("games", sa.Column("bindings", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("bindings")

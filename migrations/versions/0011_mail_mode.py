"""mail modes: how much mail each player of a game wants (WATCH, NORMAL, DIGEST; issue 23)

Append-only rows: the newest for (game, player) counts; player "" holds the game's default.

Revision ID: 0011
Revises: 0010_hidden_entry_salt
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0011_mail_mode"
down_revision = "0010_hidden_entry_salt"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "mail_modes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("player", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("mode", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_mail_modes_game_player_id", "mail_modes", ["game_id", "player", "id"])


def downgrade() -> None:
    op.drop_index("ix_mail_modes_game_player_id", table_name="mail_modes")
    op.drop_table("mail_modes")

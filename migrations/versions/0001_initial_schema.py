"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:

    op.create_table(
        "games",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("seed", sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
        sa.Column("seed_commitment", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("players_json", sa.Text(), nullable=False),
        sa.Column("options_json", sa.Text(), nullable=False),
        sa.Column("deadline_seconds", sa.Integer(), nullable=False),
        sa.Column("resolve", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_games_name"), ["name"], unique=True)

    op.create_table(
        "control_actions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("action", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("control_actions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_control_actions_game_id"), ["game_id"], unique=False)

    op.create_table(
        "deadlines",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("step", sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
        sa.Column("due_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("reason", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("deadlines", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_deadlines_game_id"), ["game_id"], unique=False)

    op.create_table(
        "events",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("input_seq", sa.Integer(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("visibility_json", sa.Text(), nullable=False),
        sa.Column("data_json", sa.Text(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
        ),
        sa.PrimaryKeyConstraint("game_id", "seq"),
    )
    op.create_table(
        "inbound_messages",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("message_id", sqlmodel.sql.sqltypes.AutoString(length=998), nullable=False),
        sa.Column("body_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("sender", sqlmodel.sql.sqltypes.AutoString(length=320), nullable=False),
        sa.Column("subject", sa.Text(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("player", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("outcome", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("raw", sa.LargeBinary(), nullable=False),
        sa.Column("received_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("message_id", "body_hash"),
    )
    with op.batch_alter_table("inbound_messages", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_inbound_messages_game_id"), ["game_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_inbound_messages_message_id"), ["message_id"], unique=False)

    op.create_table(
        "outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("message_id", sqlmodel.sql.sqltypes.AutoString(length=998), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("player", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("purpose", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("upto_seq", sa.Integer(), nullable=False),
        sa.Column("to_addr", sqlmodel.sql.sqltypes.AutoString(length=320), nullable=False),
        sa.Column("raw", sa.LargeBinary(), nullable=False),
        sa.Column("keep_raw", sa.LargeBinary(), nullable=True),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=False),
        sa.Column("next_attempt_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("sent_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("message_id"),
    )
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_outbox_game_id"), ["game_id"], unique=False)
        batch_op.create_index("ix_outbox_status_next", ["status", "next_attempt_at"], unique=False)

    op.create_table(
        "seats",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("player", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("address", sqlmodel.sql.sqltypes.AutoString(length=320), nullable=False),
        sa.Column("display_name", sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
        sa.Column("code_hash", sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
        sa.Column("since_seq", sa.Integer(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_seats_address"), ["address"], unique=False)
        batch_op.create_index(batch_op.f("ix_seats_game_id"), ["game_id"], unique=False)

    op.create_table(
        "snapshots",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("step", sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
        sa.Column("over", sa.Boolean(), nullable=False),
        sa.Column("state_json", sa.Text(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
        ),
        sa.PrimaryKeyConstraint("game_id", "seq"),
    )
    op.create_table(
        "orders",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("player", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("lines_json", sa.Text(), nullable=False),
        sa.Column("inbound_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
        ),
        sa.ForeignKeyConstraint(
            ["inbound_id"],
            ["inbound_messages.id"],
        ),
        sa.PrimaryKeyConstraint("game_id", "seq"),
    )


def downgrade() -> None:

    op.drop_table("orders")
    op.drop_table("snapshots")
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_seats_game_id"))
        batch_op.drop_index(batch_op.f("ix_seats_address"))

    op.drop_table("seats")
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_index("ix_outbox_status_next")
        batch_op.drop_index(batch_op.f("ix_outbox_game_id"))

    op.drop_table("outbox")
    with op.batch_alter_table("inbound_messages", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_inbound_messages_message_id"))
        batch_op.drop_index(batch_op.f("ix_inbound_messages_game_id"))

    op.drop_table("inbound_messages")
    op.drop_table("events")
    with op.batch_alter_table("deadlines", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_deadlines_game_id"))

    op.drop_table("deadlines")
    with op.batch_alter_table("control_actions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_control_actions_game_id"))

    op.drop_table("control_actions")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_games_name"))

    op.drop_table("games")

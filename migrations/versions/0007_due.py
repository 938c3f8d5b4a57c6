"""due: what is due when, read with one indexed query; indexes for the newest control action and held message

A poll loaded every open game to look for due deadlines and reminders, and read
a game's whole history for its control state and held orders (issue 15).  The
`due` table holds, for each running game's open step, its deadline and the next
time to look at its reminders; it is backfilled here from the newest deadline of
every game that is neither over, paused nor abandoned (the first look at the
reminders at the middle of the step: no reminder is due before it).
`poll_marks` keeps what the last poll saw of an IMAP inbox, for the idle check.

Revision ID: 0007_due
Revises: 0006_intake_identity
Create Date: 2026-12-01
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0007_due"
down_revision = "0006_intake_identity"
branch_labels = None
depends_on = None


def upgrade() -> None:
    due = op.create_table(
        "due",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("due_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("opened_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("deadline_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("done", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("due", schema=None) as batch_op:
        batch_op.create_index("ix_due_open", ["done", "due_at"], unique=False)
        batch_op.create_index("ix_due_game_done", ["game_id", "done"], unique=False)
    op.create_table(
        "poll_marks",
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("value", sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
        sa.Column("updated_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )
    with op.batch_alter_table("control_actions", schema=None) as batch_op:
        batch_op.create_index("ix_control_game_action_id", ["game_id", "action", "id"], unique=False)
    with op.batch_alter_table("inbound_messages", schema=None) as batch_op:
        batch_op.create_index("ix_inbound_game_outcome_id", ["game_id", "outcome", "id"], unique=False)
    rows = _open_deadlines(op.get_bind())
    if rows:
        op.bulk_insert(due, rows)


def _open_deadlines(conn: sa.Connection) -> list[dict[str, object]]:
    """The due rows of every running game's newest deadline (computed here: date arithmetic is not portable SQL)."""
    newest = conn.execute(
        sa.text(
            "SELECT d.game_id, d.due_at, d.created_at FROM deadlines d "
            "JOIN (SELECT game_id, max(id) AS id FROM deadlines GROUP BY game_id) n ON n.id = d.id"
        )
    ).all()
    over = {
        gid
        for gid, flag in conn.execute(
            sa.text(
                "SELECT s.game_id, s.over FROM snapshots s "
                "JOIN (SELECT game_id, max(seq) AS seq FROM snapshots GROUP BY game_id) n "
                "ON n.game_id = s.game_id AND n.seq = s.seq"
            )
        ).all()
        if flag
    }
    control: dict[int, tuple[int, str]] = {}
    for gid, cid, action in conn.execute(
        sa.text("SELECT game_id, id, action FROM control_actions WHERE action IN ('pause', 'resume', 'abandon')")
    ).all():
        if gid not in control or control[gid][0] < cid:
            control[gid] = (cid, action)
    rows: list[dict[str, object]] = []
    for gid, due_at, created_at in newest:
        if gid in over or control.get(gid, (0, "resume"))[1] != "resume":
            continue
        due_at, created_at = _utc(due_at), _utc(created_at)
        half = created_at + (due_at - created_at) / 2 if due_at > created_at else due_at
        common = {"game_id": gid, "opened_at": created_at, "deadline_at": due_at, "done": False}
        rows.append({"kind": "deadline", "due_at": due_at, **common})
        rows.append({"kind": "reminder", "due_at": half, **common})
    return rows


def _utc(value: datetime | str) -> datetime:
    if isinstance(value, str):  # SQLite through a plain text() query
        value = datetime.fromisoformat(value)
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def downgrade() -> None:
    with op.batch_alter_table("inbound_messages", schema=None) as batch_op:
        batch_op.drop_index("ix_inbound_game_outcome_id")
    with op.batch_alter_table("control_actions", schema=None) as batch_op:
        batch_op.drop_index("ix_control_game_action_id")
    op.drop_table("poll_marks")
    with op.batch_alter_table("due", schema=None) as batch_op:
        batch_op.drop_index("ix_due_game_done")
        batch_op.drop_index("ix_due_open")
    op.drop_table("due")

"""address bounces: each bouncing address's run of bounces, so the moderator is told of it spaced out; and a
paused game's weekly reminder planned

A dead address was told to the moderator once a day for as long as pbem mailed it (months3's `address_bounced`,
its Message-ID made from the address and the day): 30 mails a month per dead address.  `address_bounces` keeps,
per address, when its run of bounces began, the newest, how many, the newest's reason and how many times the
moderator was told (`pbem.app.bounced`): told at once, then after 1, 3 and 7 days and weekly after (months4).  The
table starts empty: the next bounce of an address starts its run.

A game paused is reminded to the moderator weekly by a `paused` row of the `due` table that `pbem game pause` plans
(`pbem.app.paused`); a game paused before this revision has none, so each game whose newest pause, resume or abandon
is a pause gets one here, due at the next whole week since its pause (the poll that finds it reminds at once if
that week has passed).  The downgrade drops the table and closes those rows.

Revision ID: 0023_address_bounces
Revises: 0022_outbox_mail
Create Date: 2026-12-07
"""

from __future__ import annotations

from datetime import timedelta

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0023_address_bounces"
down_revision = "0022_outbox_mail"
branch_labels = None
depends_on = None


WEEK = timedelta(days=7)  # `pbem.app.paused.EVERY` (a migration keeps its own copy)
_CONTROL = sa.table(
    "control_actions", sa.column("id", sa.Integer()), sa.column("game_id", sa.Integer()),
    sa.column("action", sa.String()), sa.column("created_at", sa.DateTime()),
)  # fmt: skip
_DUE = sa.table(
    "due", sa.column("game_id", sa.Integer()), sa.column("kind", sa.String()), sa.column("due_at", sa.DateTime()),
    sa.column("opened_at", sa.DateTime()), sa.column("deadline_at", sa.DateTime()), sa.column("done", sa.Boolean()),
)  # fmt: skip


def upgrade() -> None:
    op.create_table(
        "address_bounces",
        sa.Column("address", sqlmodel.sql.sqltypes.AutoString(length=320), nullable=False),
        sa.Column("first_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("last_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("bounces", sa.Integer(), nullable=False),
        sa.Column("told", sa.Integer(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("address"),
    )
    conn = op.get_bind()
    newest = (
        sa.select(_CONTROL.c.game_id, sa.func.max(_CONTROL.c.id))
        .where(_CONTROL.c.action.in_(("pause", "resume", "abandon")))
        .group_by(_CONTROL.c.game_id)
    )
    for gid, last in conn.execute(newest).all():
        action, at = conn.execute(
            sa.select(_CONTROL.c.action, _CONTROL.c.created_at).where(_CONTROL.c.id == last)
        ).one()
        if action == "pause" and at is not None:
            row = {"game_id": gid, "kind": "paused", "due_at": at + WEEK, "opened_at": at, "deadline_at": at}
            conn.execute(sa.insert(_DUE).values(**row, done=False))


def downgrade() -> None:
    op.drop_table("address_bounces")
    op.get_bind().execute(sa.update(_DUE).where(_DUE.c.kind == "paused").values(done=True))

"""event readers: who may see each event, by index

`event_readers` (game_id, reader, seq): a row for each player an event's list visibility names, one with reader ""
for a public event, none for the moderator's; written with each event from now on (`pbem.record.store`).  HISTORY
by mail and `pbem game show --as` read the latest events a reader may see by this key, where they stepped over
every event hidden from the reader (visibility is JSON text, which no index reads; costs11).  Filled here for
every event recorded before, a batch of events at a time.

Revision ID: 0018_event_readers
Revises: 0017_events_kind_index
Create Date: 2026-12-06
"""

from __future__ import annotations

import json

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0018_event_readers"
down_revision = "0017_events_kind_index"
branch_labels = None
depends_on = None

BATCH = 5_000  # events read at a time


def _readers(visibility_json: str) -> list[str]:
    """As `pbem.record.models.readers_of` (a migration keeps its own copy: the code it runs with may change)."""
    try:
        vis = json.loads(visibility_json)
    except ValueError:
        return []
    if vis == "public":
        return [""]
    return [n for n in dict.fromkeys(vis) if isinstance(n, str)] if isinstance(vis, list) else []


def upgrade() -> None:
    table = op.create_table(
        "event_readers",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("reader", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("game_id", "reader", "seq"),
    )
    events = sa.table(
        "events", sa.column("game_id", sa.Integer()), sa.column("seq", sa.Integer()), sa.column("visibility_json")
    )
    conn = op.get_bind()
    for (gid,) in conn.execute(sa.select(events.c.game_id).distinct()).all():
        last = -1
        while True:  # by the events' key (game_id, seq), a batch at a time
            page = conn.execute(
                sa.select(events.c.seq, events.c.visibility_json)
                .where(events.c.game_id == gid, events.c.seq > last)
                .order_by(events.c.seq)
                .limit(BATCH)
            ).all()
            rows = [{"game_id": gid, "reader": r, "seq": q} for q, vis in page for r in _readers(vis)]
            if rows:
                conn.execute(table.insert(), rows)
            if len(page) < BATCH:
                break
            last = page[-1][0]


def downgrade() -> None:
    op.drop_table("event_readers")

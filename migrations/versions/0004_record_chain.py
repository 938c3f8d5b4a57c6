"""the chained record: a hash on every input and event; games flag a seed weaker than 128 bits

Each accepted input (`orders`) and each event (`events`) gets `hash`, its link
in the game's chain (pbem.trust.chain: SHA-256 of the previous hash and the
entry's canonical JSON, starting from the seed commitment).  Games recorded
before this revision are backfilled here, in chain order, so their exports
carry a complete chain too: for them the chain proves the record from the
upgrade on (what was stored before it is taken as it stood), and
`games.legacy_events` keeps the last event recorded before it: those events
came from an earlier engine whose event data held fewer facts, so `pbem
verify` compares them fact by fact (and forgives the Italian Wars `reveal`
lists that an engine bug shortened) instead of exactly.
`games.insecure_seed` marks a game created with `--insecure-seed`.

Revision ID: 0004_record_chain
Revises: 0003
Create Date: 2026-11-30
"""

from __future__ import annotations

import json

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0004_record_chain"
down_revision = "0003"
branch_labels = None
depends_on = None

_games = sa.table(
    "games",
    sa.column("id", sa.Integer),
    sa.column("seed_commitment", sa.String),
    sa.column("legacy_events", sa.Integer),
)
_orders = sa.table(
    "orders",
    sa.column("game_id", sa.Integer),
    sa.column("seq", sa.Integer),
    sa.column("kind", sa.String),
    sa.column("player", sa.String),
    sa.column("lines_json", sa.Text),
    sa.column("inbound_id", sa.Integer),
    sa.column("created_at", sa.DateTime),
    sa.column("hash", sa.String),
)
_events = sa.table(
    "events",
    sa.column("game_id", sa.Integer),
    sa.column("seq", sa.Integer),
    sa.column("input_seq", sa.Integer),
    sa.column("kind", sa.String),
    sa.column("text", sa.Text),
    sa.column("visibility_json", sa.Text),
    sa.column("data_json", sa.Text),
    sa.column("created_at", sa.DateTime),
    sa.column("hash", sa.String),
)
_inbound = sa.table("inbound_messages", sa.column("id", sa.Integer), sa.column("message_id", sa.String))


def upgrade() -> None:
    # Plain ADD COLUMN (no batch copy): `games` is referenced by every table, and SQLite adds a
    # NOT NULL column with a default in place.
    for table in ("orders", "events"):
        op.add_column(
            table, sa.Column("hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False, server_default="")
        )
    op.add_column("games", sa.Column("insecure_seed", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.add_column("games", sa.Column("legacy_events", sa.Integer(), nullable=False, server_default="0"))
    backfill(op.get_bind())


def backfill(conn: sa.Connection) -> None:
    """Chain every existing game's inputs and events, in chain order."""
    from pbem.trust import chain

    message_ids = dict(conn.execute(sa.select(_inbound.c.id, _inbound.c.message_id)).all())
    for game_id, start in conn.execute(sa.select(_games.c.id, _games.c.seed_commitment)).all():
        rows: list[tuple[tuple[int, int, int], str, int, dict]] = []
        for o in conn.execute(sa.select(_orders).where(_orders.c.game_id == game_id)).mappings():
            mid = message_ids.get(o["inbound_id"]) if o["inbound_id"] is not None else None
            entry = chain.input_entry(
                o["seq"], o["kind"], o["player"], json.loads(o["lines_json"]), mid, chain.iso(o["created_at"])
            )
            rows.append((chain.position(entry), "orders", o["seq"], entry))
        for e in conn.execute(sa.select(_events).where(_events.c.game_id == game_id)).mappings():
            entry = chain.event_entry(
                e["seq"],
                e["input_seq"],
                e["kind"],
                e["text"],
                json.loads(e["visibility_json"]),
                json.loads(e["data_json"]),
                chain.iso(e["created_at"]),
            )
            rows.append((chain.position(entry), "events", e["seq"], entry))
        last_event = max((seq for _, table, seq, _ in rows if table == "events"), default=0)
        conn.execute(sa.update(_games).where(_games.c.id == game_id).values(legacy_events=last_event))
        head = start
        for _, table, seq, entry in sorted(rows, key=lambda r: r[0]):
            head = chain.link(head, entry)
            t = _orders if table == "orders" else _events
            conn.execute(sa.update(t).where(t.c.game_id == game_id, t.c.seq == seq).values(hash=head))


def downgrade() -> None:
    op.drop_column("games", "legacy_events")
    op.drop_column("games", "insecure_seed")  # ALTER TABLE DROP COLUMN (SQLite 3.35 and later, PostgreSQL)
    for table in ("events", "orders"):
        op.drop_column(table, "hash")

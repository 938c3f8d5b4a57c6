"""outbox mail checksum: each queued mail's bytes carry their SHA-256, checked by the sender before sending

A mail's bytes past its first page (SQLite's overflow pages) can be overwritten on disk without SQLite noticing:
its `quick_check` reads no overflow page's content.  3 of the 29 overflow pages of a small home were read by a
poll, and a sealed mail whose sealed copy was damaged went out as its redacted copy; an unsealed one would go out
damaged (walk9).  `outbox_mail.checksum` holds the SHA-256 of `raw` and `keep_raw` as queued
(`pbem.record.outbox.mail_checksum`); the sender compares it before handing the mail over and stops the run as for a
damaged page (exit 4) on a mismatch.  The rows that may still be sent (queued, or failed: `pbem outbox retry`)
get theirs here, from the bytes they hold now; the rest keep NULL, which is not checked.  The downgrade drops it.

Revision ID: 0024_outbox_mail_checksum
Revises: 0023_address_bounces
Create Date: 2026-12-07
"""

from __future__ import annotations

import hashlib

import sqlalchemy as sa
from alembic import op

revision = "0024_outbox_mail_checksum"
down_revision = "0023_address_bounces"
branch_labels = None
depends_on = None

_MAIL = sa.table(
    "outbox_mail", sa.column("id", sa.Integer()), sa.column("raw", sa.LargeBinary()),
    sa.column("keep_raw", sa.LargeBinary()), sa.column("checksum", sa.LargeBinary()),
)  # fmt: skip
_OUTBOX = sa.table("outbox", sa.column("id", sa.Integer()), sa.column("status", sa.String()))
BATCH = 200  # rows read at once: a home's queue is small, but a home that could not send for days is not


def checksum(raw: bytes, keep: bytes | None) -> bytes:
    """`pbem.record.outbox.mail_checksum` (a migration keeps its own copy)."""
    h = hashlib.sha256(len(raw).to_bytes(8, "big"))
    h.update(raw)
    h.update(keep if keep is not None else b"")
    return h.digest()


def upgrade() -> None:
    op.add_column("outbox_mail", sa.Column("checksum", sa.LargeBinary(), nullable=True))
    conn = op.get_bind()
    pending = sa.select(_OUTBOX.c.id).where(_OUTBOX.c.status.in_(("queued", "failed"))).order_by(_OUTBOX.c.id)
    ids = [int(i) for (i,) in conn.execute(pending)]
    for start in range(0, len(ids), BATCH):
        chunk = ids[start : start + BATCH]
        rows = conn.execute(sa.select(_MAIL.c.id, _MAIL.c.raw, _MAIL.c.keep_raw).where(_MAIL.c.id.in_(chunk)))
        for oid, raw, keep in rows.all():
            value = checksum(bytes(raw), None if keep is None else bytes(keep))
            conn.execute(sa.update(_MAIL).where(_MAIL.c.id == oid).values(checksum=value))


def downgrade() -> None:
    with op.batch_alter_table("outbox_mail") as batch:
        batch.drop_column("checksum")

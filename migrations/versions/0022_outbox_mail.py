"""an outbox mail's bytes in a table of their own, written once: marking a mail sent no longer rewrites them

`outbox.raw` (and `keep_raw`) sat in the row whose status, attempts and sent time change when the mail is sent.
SQLite rewrites a row whole when an UPDATE changes its size (a NULL `sent_at` becoming a time does), its overflow
pages with it: a reply's reports (about 20 KB each) were written to the log twice, once queued and once marked
sent, 11.5 of a reply's 67 log pages (issue 27, perf29).  `outbox_mail` holds them, one row per outbox row (its
id); the outbox row keeps the columns that change.  Every mail is copied across; the downgrade copies them back.

Revision ID: 0022_outbox_mail
Revises: 0021_sent_mail_pruned
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0022_outbox_mail"
down_revision = "0021_sent_mail_pruned"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "outbox_mail",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("keep_raw", sa.LargeBinary(), nullable=True),  # first: NULL but for a code's mail, read
        sa.Column("raw", sa.LargeBinary(), nullable=False),  # without going through `raw`'s pages
        sa.ForeignKeyConstraint(["id"], ["outbox.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.execute("INSERT INTO outbox_mail (id, keep_raw, raw) SELECT id, keep_raw, raw FROM outbox ORDER BY id")
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("keep_raw")
        batch.drop_column("raw")


def downgrade() -> None:
    raw, keep = (
        sa.Column("raw", sa.LargeBinary(), nullable=True),
        sa.Column("keep_raw", sa.LargeBinary(), nullable=True),
    )
    if op.get_bind().dialect.name == "sqlite":  # where 0021 had them (PostgreSQL adds columns last)
        with op.batch_alter_table("outbox", recreate="always") as batch:
            batch.add_column(raw, insert_after="to_addr")
            batch.add_column(keep, insert_after="raw")
    else:
        op.add_column("outbox", raw)
        op.add_column("outbox", keep)
    op.execute(
        "UPDATE outbox SET raw = (SELECT m.raw FROM outbox_mail m WHERE m.id = outbox.id), "
        "keep_raw = (SELECT m.keep_raw FROM outbox_mail m WHERE m.id = outbox.id)"
    )
    with op.batch_alter_table("outbox") as batch:
        batch.alter_column("raw", existing_type=sa.LargeBinary(), nullable=False)
    op.drop_table("outbox_mail")

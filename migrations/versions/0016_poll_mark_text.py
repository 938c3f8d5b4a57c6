"""poll mark text: a poll mark holds a line of any length

`poll_marks.value` becomes TEXT (it was VARCHAR(128)): the mark `imap-copied` keeps the UIDs of the messages
pbem copied to their folder but could not take out of the IMAP inbox (a server without MOVE that refused STORE
``\\Deleted``), as ranges ("UIDVALIDITY;3:5,9"), so that no later run fetches or copies them again
(`pbem.mail.transports.imap`).  Its length grows with the gaps between them, not with a fixed bound.

Revision ID: 0016_poll_mark_text
Revises: 0015_snapshot_readers
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0016_poll_mark_text"
down_revision = "0015_snapshot_readers"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("poll_marks") as batch:
        batch.alter_column(
            "value", existing_type=sqlmodel.sql.sqltypes.AutoString(length=128), type_=sa.Text(), nullable=False
        )


def downgrade() -> None:
    with op.batch_alter_table("poll_marks") as batch:
        batch.alter_column(
            "value", existing_type=sa.Text(), type_=sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False
        )

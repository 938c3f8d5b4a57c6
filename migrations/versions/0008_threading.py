"""seat threads: every seat names the first report to its player, which their later mail references

Reports carried no References, so mail clients could not thread a game (issue 16).
Each seat row now names the Message-ID key of its player's first report; every later
report and notice to that player references it.  Seats made before this have none
(their mail is threaded by subject only).

Revision ID: 0008_threading
Revises: 0007_due
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_threading"
down_revision = "0007_due"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("thread", sa.Text(), nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("thread")

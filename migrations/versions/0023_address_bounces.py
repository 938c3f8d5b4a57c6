"""address bounces: each bouncing address's run of bounces, so the moderator is told of it spaced out

A dead address was told to the moderator once a day for as long as pbem mailed it (months3's `address_bounced`,
its Message-ID made from the address and the day): 30 mails a month per dead address.  `address_bounces` keeps,
per address, when its run of bounces began, the newest, how many, the newest's reason and how many times the
moderator was told (`pbem.app.bounced`): told at once, then after 1, 3 and 7 days and weekly after (months4).  The
table starts empty: the next bounce of an address starts its run.

Revision ID: 0023_address_bounces
Revises: 0022_outbox_mail
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0023_address_bounces"
down_revision = "0022_outbox_mail"
branch_labels = None
depends_on = None


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


def downgrade() -> None:
    op.drop_table("address_bounces")

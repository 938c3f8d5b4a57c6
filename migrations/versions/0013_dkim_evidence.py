"""DKIM evidence kept with each player's mail (issue 25)

`dkim_evidence`: one row per inbound message of a registered player that carries a
DKIM signature: the signing domain and selector, whether it verified at arrival, the
DKIM-Signature and the header fields it signs as received, the body when no code was
redacted from it, and the key record as fetched (`pbem.trust.dkim`).  Messages read
before have none, and `pbem verify` says "unsigned" for them.

`games.signing_key` becomes Text: a game's key is now stored sealed with a wrapping key
kept in the home directory (`pbem.record.sealing`), longer than the 64 hex digits of a key
in clear.  Keys stored in clear before stay as they are, and are read as they are.

Revision ID: 0013_dkim_evidence
Revises: 0012_evidence (the lead re-chains it at merge)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013_dkim_evidence"
down_revision = "0012_evidence"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "dkim_evidence",
        sa.Column("inbound_id", sa.Integer(), sa.ForeignKey("inbound_messages.id"), primary_key=True),
        sa.Column("domain", sa.String(length=253), nullable=False),
        sa.Column("selector", sa.String(length=253), nullable=False),
        sa.Column("verified", sa.Boolean(), nullable=False),
        sa.Column("headers", sa.LargeBinary(), nullable=False),
        sa.Column("body", sa.LargeBinary(), nullable=True),
        sa.Column("key", sa.Text(), nullable=False),
    )
    with op.batch_alter_table("games") as batch:
        batch.alter_column("signing_key", type_=sa.Text(), existing_type=sa.String(length=64), existing_nullable=True)


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.alter_column("signing_key", type_=sa.String(length=64), existing_type=sa.Text(), existing_nullable=True)
    op.drop_table("dkim_evidence")

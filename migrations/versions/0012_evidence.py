"""evidence against the moderator: salted inputs and a per-game signing key

`orders.salt`: every input recorded from now on is chained with
HMAC-SHA256(seed, "pbem-input-salt:" seq) (`pbem.trust.chain.input_salt`), so
two receipts bracketing another player's input no longer let a player confirm
a guess of it; inputs recorded before stay unsalted (NULL), their hashes unchanged.

`games.signing_key`: the game's Ed25519 private key (hex), made when the game is
created (`pbem.trust.signing`); games created before have none and send
unsigned receipts, which `pbem verify --mail` reports as unsigned.

Revision ID: 0012_evidence
Revises: 0010_hidden_entry_salt (the lead re-chains it after 0011)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_evidence"
down_revision = "0011_mail_mode"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("orders") as batch:
        batch.add_column(sa.Column("salt", sa.String(length=64), nullable=True))
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("signing_key", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("signing_key")
    with op.batch_alter_table("orders") as batch:
        batch.drop_column("salt")

"""salted hidden entries: an event only some may see carries a salt derived from the secret seed

The heads a player receives in mail (X-Pbem-Record, X-Pbem-Input) bracket the
events of their own input, and those events' fields but the hidden ones are known
or nearly so (the time to the microsecond is a million guesses): a player could
hash every candidate card until a head matched.  From now on the chained entry of
an event that is not public holds `salt` = HMAC-SHA256(seed, "pbem-entry-salt:" seq),
unknown until the seed is revealed.  Events recorded before keep their hashes
(no salt: `salt` is NULL).

Revision ID: 0010_hidden_entry_salt
Revises: 0009_outbox_purpose_created
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_hidden_entry_salt"
down_revision = "0009_outbox_purpose_created"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("salt", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.drop_column("salt")

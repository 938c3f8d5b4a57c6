"""what `pbem prune` keeps of a sent mail whose bytes it dropped: their SHA-256 and when

`outbox.raw` held the text of every mail sent, whole, for ever: 89% of a home's database after half a year
(`benchmarks/months.py`, 28 MB a month for 8 running games).  `pbem prune` empties `raw` of the mails sent in
games over or abandoned long ago and keeps, beside the Message-ID and the recipient the row already has, the
SHA-256 of the bytes it dropped (`digest`) and when (`pruned_at`).  Both are NULL on every row this migration
finds: nothing is pruned until the moderator asks.

Taken back (`alembic downgrade 0020_report_delivery_covered`), the two columns would go and with them the only
record of what a pruned mail held: the downgrade refuses while any row is pruned, saying how many and what to do
(keep this pbem, or restore the backup made before the first prune), and changes nothing (months3).  With no
pruned row it drops both columns, and an upgrade adds them again, empty.

Revision ID: 0021_sent_mail_pruned
Revises: 0020_report_delivery_covered
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0021_sent_mail_pruned"
down_revision = "0020_report_delivery_covered"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("digest", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True))
        batch.add_column(sa.Column("pruned_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))


REFUSED = (
    "{n} sent mail(s) were pruned (`pbem prune`): their text is gone and only the SHA-256 in outbox.digest says "
    "what they held. Revision 0020 has no column for it, so this downgrade would lose them: it changed nothing. "
    "Keep the pbem that made revision 0021 (or a newer one), or restore the backup made before the first "
    "`pbem prune` and take that copy back instead."
)


def downgrade() -> None:
    pruned = op.get_bind().execute(sa.text("SELECT count(*) FROM outbox WHERE pruned_at IS NOT NULL")).scalar()
    if pruned:
        raise RuntimeError(REFUSED.format(n=pruned))
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("pruned_at")
        batch.drop_column("digest")

"""Is there anything for `pbem poll` to do?  A cheap, conservative check for idle cron runs.

Uses SQLAlchemy Core only (no ORM models, engines, templates or mail parsing), so an
idle run costs little more than the imports it cannot avoid.  It answers "maybe" (False)
whenever in doubt; the full poll then decides.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..config import Config


def nothing_to_do(cfg: Config, when: datetime) -> bool:
    try:
        return _nothing_to_do(cfg, when)
    except Exception:  # locked, missing or strange database: let the full poll decide and report it
        return False


def _nothing_to_do(cfg: Config, when: datetime) -> bool:
    if cfg.transport != "maildir" or _maildir_has_mail(cfg):
        return False  # IMAP: the poll opens the inbox anyway (TODO: a STATUS check before the models)
    from sqlalchemy import DateTime, bindparam, text

    from ..record.db import engine_for

    lead = max(cfg.reminders, default=timedelta(0))
    naive = when.astimezone(UTC).replace(tzinfo=None)  # the columns hold naive UTC
    stamp = bindparam("now", type_=DateTime())
    soon = bindparam("soon", type_=DateTime())
    with engine_for(cfg.database_url).connect() as c:
        if c.execute(
            text("SELECT 1 FROM outbox WHERE status = 'queued' AND next_attempt_at <= :now LIMIT 1").bindparams(stamp),
            {"now": naive},
        ).first():
            return False
        due = c.execute(
            text(
                "SELECT 1 FROM deadlines d "
                "JOIN (SELECT game_id, max(id) AS id FROM deadlines GROUP BY game_id) n ON n.id = d.id "
                "JOIN (SELECT game_id, max(seq) AS seq FROM snapshots GROUP BY game_id) ls ON ls.game_id = d.game_id "
                "JOIN snapshots s ON s.game_id = ls.game_id AND s.seq = ls.seq "
                "WHERE s.over = :f AND d.due_at <= :soon LIMIT 1"
            ).bindparams(soon),
            {"f": False, "soon": naive + lead},
        ).first()
        c.rollback()
    return due is None


def _maildir_has_mail(cfg: Config) -> bool:
    for sub in ("new", "cur"):
        folder = cfg.maildir_path / "inbox" / sub
        if folder.is_dir() and any(not p.name.startswith(".") for p in folder.iterdir()):
            return True
    return False

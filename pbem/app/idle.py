"""Is there anything for `pbem poll` to do?  A cheap, conservative check for idle cron runs.

Nothing to do means: no new mail, no mail queued to send, and nothing due (one
probe of the `due` table's index: anything due before now?), however many games
run.  New mail is an empty Maildir inbox, or for IMAP the folder's
UIDVALIDITY:UIDNEXT (one STATUS command) equal to what the last complete poll
saw when it selected the folder (`remember`, kept in `poll_marks`).  Uses
SQLAlchemy Core only (no ORM models, engines, templates or mail parsing), so an
idle run costs little more than the imports it cannot avoid.  It answers
"maybe" (False) whenever in doubt; the full poll then decides.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy import Connection

    from pbem.home.config import Config

log = logging.getLogger("pbem.idle")
IMAP_MARK = "imap-inbox"  # the poll_marks row of the IMAP inbox


def nothing_to_do(cfg: Config, when: datetime) -> bool:
    try:
        return _nothing_to_do(cfg, when)
    except Exception as exc:  # locked, missing or strange database, unreachable server: let the full poll decide
        log.debug("idle check undecided: %s", type(exc).__name__)
        return False


def _nothing_to_do(cfg: Config, when: datetime) -> bool:
    if cfg.transport == "maildir":
        if _maildir_has_mail(cfg):
            return False
    elif cfg.transport != "imap":
        return False
    from pbem.record.db import engine_for

    with engine_for(cfg.database_url).connect() as c:
        busy = _queued_or_due(c, when)
        seen = _seen(c) if cfg.transport == "imap" else None
        c.rollback()
    if busy:
        return False
    return cfg.transport == "maildir" or (seen is not None and _imap_mark_now(cfg) == seen)


def _queued_or_due(c: Connection, when: datetime) -> bool:
    from sqlalchemy import DateTime, bindparam, text

    naive = when.astimezone(UTC).replace(tzinfo=None)  # the columns hold naive UTC
    now = bindparam("now", type_=DateTime())
    queued = text("SELECT 1 FROM outbox WHERE status = 'queued' AND next_attempt_at <= :now LIMIT 1")
    due = text("SELECT 1 FROM due WHERE done = :f AND due_at <= :now LIMIT 1")
    return bool(
        c.execute(queued.bindparams(now), {"now": naive}).first()
        or c.execute(due.bindparams(now), {"now": naive, "f": False}).first()
    )


def _seen(c: Connection) -> str | None:
    from sqlalchemy import text

    row = c.execute(text("SELECT value FROM poll_marks WHERE name = :n"), {"n": IMAP_MARK}).first()
    return str(row[0]) if row else None


def _imap_mark_now(cfg: Config) -> str:
    from pbem.mail.transports.connect import inbox
    from pbem.mail.transports.credentials import login_for

    box = inbox(cfg, login_for("imap", cfg.imap, cfg.path), connect=False)
    try:
        return box.status_mark()
    finally:
        box.close()


def remember(cfg: Config, box: object) -> None:
    """After a complete poll: keep what it saw of an IMAP inbox (nothing for other transports)."""
    mark = getattr(box, "mark", None)
    value = mark() if callable(mark) else None
    if not value:
        return
    from sqlalchemy import DateTime, bindparam, text

    from pbem.record.db import transaction

    stamp = datetime.now(UTC).replace(tzinfo=None)
    with transaction(cfg.database_url) as c:
        c.execute(text("DELETE FROM poll_marks WHERE name = :n"), {"n": IMAP_MARK})
        c.execute(
            text("INSERT INTO poll_marks (name, value, updated_at) VALUES (:n, :v, :t)").bindparams(
                bindparam("t", type_=DateTime())
            ),
            {"n": IMAP_MARK, "v": value, "t": stamp},
        )


def _maildir_has_mail(cfg: Config) -> bool:
    for sub in ("new", "cur"):
        folder = cfg.maildir_path / "inbox" / sub
        if folder.is_dir() and any(not p.name.startswith(".") for p in folder.iterdir()):
            return True
    return False

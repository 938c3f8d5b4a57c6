"""Is there anything for `pbem poll` to do?  A cheap, conservative check for idle cron runs.

Nothing to do means: no new mail, no mail queued to send, and nothing due (one
probe of the `due` table's index: anything due before now?), however many games
run.  New mail is an empty Maildir inbox, or for IMAP the folder's
UIDVALIDITY:UIDNEXT (one STATUS command) equal to what the last complete poll
saw when it selected the folder (`remember`, kept in `poll_marks`).  Its
statements are in `pbem.record.marks` (Core text only: no ORM models, engines,
templates or mail parsing), so an idle run costs little more than the imports it cannot avoid.  It answers
"maybe" (False) whenever in doubt; the full poll then decides.  An idle IMAP run that finds the inbox unchanged
moves the reference of the server's clock to its own start (`pbem.app.arrivals.keep`: one short transaction).
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import TYPE_CHECKING

from pbem.record.marks import IMAP_MARK

if TYPE_CHECKING:
    from pbem.home.app import Home
    from pbem.home.config import Config

log = logging.getLogger("pbem.idle")
__all__ = ["IMAP_MARK", "nothing_to_do", "remember"]


def nothing_to_do(home: Home, when: datetime, mark_now: str | None = None) -> bool:
    """`mark_now`: the inbox's UIDVALIDITY:UIDNEXT already read in this run (`pbem.app.witness`), else asked."""
    try:
        return _nothing_to_do(home.cfg, when, mark_now)
    except Exception as exc:  # locked, missing or strange database, unreachable server: let the full poll decide
        log.debug("idle check undecided: %s", type(exc).__name__)
        return False


def _nothing_to_do(cfg: Config, when: datetime, mark_now: str | None) -> bool:
    if cfg.transport == "maildir":
        if _maildir_has_mail(cfg):
            return False
    elif cfg.transport != "imap":
        return False
    from pbem.record.marks import queued_or_due

    busy, seen = queued_or_due(cfg.database_url, when, IMAP_MARK if cfg.transport == "imap" else None)
    if busy:  # mail queued, a deadline or reminder due, or a DIGEST player's daily mail (`pbem.app.digests`)
        return False
    if cfg.transport == "maildir" or seen is None or (mark_now or _imap_mark_now(cfg)) != seen:
        return cfg.transport == "maildir"
    from pbem.app.arrivals import keep

    keep(cfg, seen, when)  # the inbox unchanged since this run began: the reference of the server's clock moves on
    return True


def _imap_mark_now(cfg: Config) -> str:
    from pbem.mail.transports.connect import inbox
    from pbem.mail.transports.credentials import login_for

    box = inbox(cfg, login_for("imap", cfg.imap, cfg.path), connect=False)
    try:
        return box.status_mark()
    finally:
        box.close()


def remember(home: Home, box: object, started: datetime) -> None:
    """After a complete poll that began at `started`: keep what it saw of an IMAP inbox (nothing for other
    transports), for the idle check and the server's clock (`pbem.app.arrivals`)."""
    from pbem.record import marks

    if getattr(box, "more", False) or getattr(box, "mismatched", None):  # mail left unread (the inbox's budget of a
        # run, or a FETCH the server answered with another message: costs25): the next run is not idle
        marks.remember(home.cfg.database_url, IMAP_MARK, "")
        return
    mark = getattr(box, "mark", None)
    value = mark() if callable(mark) else None
    if not value:
        return
    from pbem.app.arrivals import keep

    marks.remember(home.cfg.database_url, IMAP_MARK, value)
    keep(home.cfg, value, started)


def _maildir_has_mail(cfg: Config) -> bool:
    """New mail, or maybe: a folder is missing (the full poll makes it) or not a Maildir (the poll says so)."""
    from pbem.mail.transports.maildir import ready

    if not ready(cfg.maildir_path):
        return True
    for sub in ("new", "cur"):
        folder = cfg.maildir_path / "inbox" / sub
        if folder.is_dir() and any(not p.name.startswith(".") for p in folder.iterdir()):
            return True
    return False

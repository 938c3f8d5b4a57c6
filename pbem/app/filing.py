"""Mail pbem filed that the server keeps in the inbox: remembered in the record, told to the moderator once a day.

Without MOVE, an IMAP inbox files a message with COPY, STORE ``\\Deleted`` and EXPUNGE
(`pbem.mail.transports.imap`).  A server may take the COPY and refuse the rest, so the message stays in
the inbox though it was handled and filed.  A message copied once is never copied (nor fetched) again:
one flagged ``\\Deleted`` is left out by the inbox's search, and one the server would not flag is kept in
the record's poll mark `imap-copied` (`attach` gives the inbox that `Ledger`).  Once a run the inbox tries
again to take them out, with one command for all of them; what stays is told to the moderator by `tell`:
a `note:` line of `pbem poll` and one mail, both once a day (as a mail given up on is).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from pbem.app import alerts
from pbem.engine.words import count
from pbem.home.app import Home
from pbem.mail.transports.seam import Inbox, KeepsFiling, Left
from pbem.record import marks

log = logging.getLogger("pbem.poll")


@dataclass(frozen=True)
class RecordLedger:
    """The inbox's ledger (`pbem.mail.transports.seam.Ledger`) as the record's poll mark `imap-copied`."""

    url: str

    def recall(self) -> str:
        return marks.recall(self.url, marks.IMAP_COPIED) or ""

    def keep(self, value: str) -> None:
        marks.remember(self.url, marks.IMAP_COPIED, value)


def attach(home: Home, inbox: Inbox, dry_run: bool) -> None:
    """Before the inbox is read: give an inbox that files by copying the record's ledger (a dry run reads it,
    and neither writes it nor asks the server to take anything out)."""
    if isinstance(inbox, KeepsFiling):
        inbox.remember_in(RecordLedger(home.cfg.database_url), tidy=not dry_run)


def tell(home: Home, inbox: Inbox, when: datetime, tidy: bool = True) -> str:
    """After the inbox was read and filed: take out what is left (`tidy`: not past the poll's deadline); if filed
    mail is left in the inbox still, the moderator's alert, queued once a day; the note for `pbem poll` when it
    was queued now ("" otherwise)."""
    if not isinstance(inbox, KeepsFiling):
        return ""
    if tidy:
        inbox.tidy()
    left = inbox.left()
    misnumbered = _misnumbered(home, left.misnumbered, when)
    if not (left.unflagged or left.flagged):
        return misnumbered
    imap = home.cfg.imap
    note = describe(left, imap.folder, imap.processed_folder, imap.rejected_folder)
    ctx = {
        "inbox": imap.folder,
        "unflagged": left.unflagged,
        "flagged": left.flagged,
        "store_refusal": left.store_refusal,
        "expunge_refusal": left.expunge_refusal,
        "folders": f"{imap.processed_folder} or {imap.rejected_folder}",
    }
    if alerts.inbox_left(home, ctx, when):
        log.warning("%s", note)
        return "; ".join(n for n in (note, misnumbered) if n)
    log.info("%s (the moderator was told today)", note)
    return misnumbered


def _misnumbered(home: Home, count_: int, when: datetime) -> str:
    """The server answered `count_` FETCHes with other messages than asked (each left in the inbox, unread: the
    log names them): the moderator's alert, once a day; the note when it was queued now."""
    if not count_:
        return ""
    imap = home.cfg.imap
    server = f"IMAP {imap.host}:{imap.port}"
    note = (
        f"{server} answered pbem's FETCH of {count(count_, 'message')} with another message than asked; pbem read "
        f"none of them: they stay in {imap.folder!r} for the next run (if this repeats, see the server's log)"
    )
    if alerts.inbox_misnumbered(home, {"server": server, "count": count_, "inbox": imap.folder}, when):
        return note
    log.info("%s (the moderator was told today)", note)
    return ""


def describe(left: Left, inbox: str, processed: str, rejected: str) -> str:
    """One line: what is left, why, and what the moderator can do."""
    parts = []
    if left.unflagged:
        why = f": {left.store_refusal}" if left.store_refusal else ""
        parts.append(
            f"{count(left.unflagged, 'message')} the server would not flag \\Deleted (it has no MOVE; STORE refused{why})"
        )
    if left.flagged:
        why = f": {left.expunge_refusal}" if left.expunge_refusal else ", though it answered OK"
        parts.append(
            f"{count(left.flagged, 'message')} flagged \\Deleted that the server did not expunge (EXPUNGE{why})"
        )
    return (
        f"mail pbem filed is left in the inbox {inbox!r}: {'; '.join(parts)}. pbem reads and copies none of it "
        f"again (each is in {processed} or {rejected}); to clear them, give pbem's login the right to delete in "
        "that folder, turn expunging on (Gmail: Auto-Expunge), use a server with MOVE, or delete them by hand"
    )

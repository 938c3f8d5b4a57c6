"""A database older than the mail the IMAP server filed: the witness no backup of the moderator's machine restores.

`pbem.app.clock.restored` compares the database with marks kept on this machine (the home's `.pbem-last-run`, and
this machine's mark of the home's folder); a backup that brings them back together (the user's whole home
directory), or the home restored on another machine or into another folder, passes it.  The mail server is not
restored with them: every mail pbem reads is moved into `[imap] processed_folder` or `rejected_folder`, and only
after the transaction that recorded it is committed (`pbem.app.poll`), so every mail pbem filed is in the record
that filed it.

The argument.  At the end of each complete run (`keep`) the record keeps both folders' UIDVALIDITY:UIDNEXT (one
STATUS command each: the `imap-filed` poll mark).  At the start of the next (`check`, before anything is written),
a folder whose UIDNEXT is past the kept one received mail since; of the newest `MOST` such mails, their Message-ID
and arrival date are fetched (read only).  A mail the record holds no message of, which arrived after the record's
newest run began (less a margin for the two clocks), was read by a run this record does not know of: the database
is older than the mail server, and the poll is refused as `restored` refuses it (exit 3, `pbem poll --trust-clock`
to go on with it).  A run that died between its commit and the move is no evidence (the mail it moved is in its
record); a mail moved into the folder by hand that arrived before the record's newest run is told (a log line and
a note) and refused nothing.  One that arrived later (a mail client's rule filing new mail there) reads as
evidence: a false alarm, told with the way to go on.

Not seen: a record that has kept no mark yet (a backup made before its first full run with this check), and
Maildir, whose processed folder is in the home and is restored with it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from pbem.engine.words import count
from pbem.home.config import Config
from pbem.record import marks

log = logging.getLogger("pbem.clock")
SENT_WITNESS = "sent-witness"  # the poll mark of `pbem.app.sent_witness` (its folder's UIDVALIDITY:UIDNEXT)
PRUNED = "sent-witness-pruned"  # the poll mark: the day the witness folder's old messages were last deleted
KEEP = timedelta(days=40)  # the witness folder's messages kept: a backup older than this is not covered (held)
MOST = 20  # mails of each folder whose Message-ID is fetched: the newest, after the kept UIDNEXT


@dataclass
class Found:
    """What `check` found: why the poll must not run, mails moved by hand (told), and the inbox's
    UIDVALIDITY:UIDNEXT read on the same connection (the idle check's)."""

    refusal: str | None = None
    notes: list[str] = field(default_factory=list)
    inbox_mark: str | None = None
    late: dict[str, int] = field(default_factory=dict)  # the mails of each folder the refusal counts
    # the server's witness of mails sent (`pbem.app.sent_witness`) holds what runs this record does not know of sent:
    # "moved" past the mark this record kept, "unmarked" (this record kept none: a backup made before its first run),
    # "missing" (the folder this record wrote to is gone: `_moved`)
    sent_moved: str = ""


def trusted(found: Found, seen: datetime) -> Found:
    """A `pbem poll --trust-clock` run goes on with this database whatever the folders hold: what `check` would
    refuse is told instead, a `note:` line and the log (walk7: a database restored into another folder was gone on
    with, and the order read after its backup was lost without a word)."""
    if found.refusal:
        held = " and its ".join(f"{role} folder holds {count(n, 'mail')}" for role, n in found.late.items() if n)
        note = (
            f"gone on with a database older than the mail server's folders: the mail server's {held} read after "
            f"its last run ({seen:%Y-%m-%d %H:%M} UTC) that it never recorded; the orders in them are not in the "
            "record: move them back into the inbox and run pbem poll to have them read again, or tell the players "
            "the game went back"
        )
        log.warning("%s", note)
        found.notes.append(note)
        found.refusal = None
    return found


def keep(cfg: Config, inbox: object) -> None:
    """After a complete run over IMAP: the processed and rejected folders' UIDVALIDITY:UIDNEXT, for the next run."""
    filed = getattr(inbox, "filed_marks", None)
    if filed is None:
        return
    value = " ".join(f"{role}={mark}" for role, mark in sorted(filed().items()))
    if value:
        marks.remember(cfg.database_url, marks.IMAP_FILED, value)


def _kept(value: str) -> dict[str, tuple[str, int]]:
    held = {}
    for part in value.split():
        role, _, mark = part.partition("=")
        validity, _, uidnext = mark.partition(":")
        if uidnext.isdigit():
            held[role] = (validity, int(uidnext))
    return held


def check(cfg: Config, seen: datetime | None, at: datetime | None = None) -> Found:
    """Before anything is written (see the module docstring): the refusal, if the mail server filed mail that this
    record never read after its newest run (`seen`).  Raises TransportError when the server cannot be asked."""
    held = _kept(marks.recall(cfg.database_url, marks.IMAP_FILED) or "") if cfg.transport == "imap" else {}
    if not held or seen is None:  # (a record that never ran: `pbem.app.sent_witness.first_run`, on the poll's login)
        return Found()
    # until this record's run that keeps a mark of the witness of mails sent (months7)
    unmarked = marks.recall(cfg.database_url, SENT_WITNESS) is None
    from pbem.mail.transports.connect import inbox
    from pbem.mail.transports.credentials import login_for

    box = inbox(cfg, login_for("imap", cfg.imap, cfg.path), connect=False)
    try:
        found = Found(inbox_mark=box.status_mark())
        now = _kept(" ".join(f"{r}={m}" for r, m in box.filed_marks().items()))
        newer = {
            role: box.filed_since(role, uidnext, MOST)
            for role, (validity, uidnext) in held.items()
            if role in now and now[role][0] == validity and now[role][1] > uidnext
        }
        mark, kept = box.witness_mark(), marks.recall(cfg.database_url, SENT_WITNESS)  # (its own appends: months7)
        found.sent_moved = _unmarked(mark) if unmarked else _moved(kept, mark)
        if at is not None:  # once a day, the witness of mails sent kept to its last days (months7)
            prune(cfg, box, at)
    finally:
        box.close()
    _judge(cfg, seen, newer, found)
    return found


def prune(cfg: Config, box: object, now: datetime) -> None:
    """Once a day, on the connection `pbem.app.witness.check` opened at the run's start (read only until here, and
    closed after): the witness folder's messages older than `KEEP` deleted.  A server that refuses: logged, tried
    again the next day."""
    day = f"{now:%Y-%m-%d}"
    forget = getattr(box, "forget_witnessed", None)
    if forget is None or marks.recall(cfg.database_url, PRUNED) == day:
        return
    from pbem.mail.transports.seam import TransportError

    try:
        gone = forget(now - KEEP)
    except TransportError as exc:
        log.warning("the witness folder's old messages were not deleted (tried again tomorrow): %s", exc)
        gone = 0
    if gone:
        log.info("deleted %d message(s) older than %d days from the witness folder", gone, KEEP.days)
    marks.remember(cfg.database_url, PRUNED, day)


def _moved(kept: str | None, mark: str | None) -> str:
    """ "moved" when the witness folder of mails sent moved past the mark this record kept, "missing" when the folder
    this record wrote to is gone (deleted by hand: what it named is lost, months8)."""
    if not kept:
        return ""
    return "missing" if mark is None else "moved" if mark != kept else ""


def _unmarked(mark: str | None) -> str:
    """ "unmarked" when the witness folder of mails sent (`mark`) holds messages this record never wrote there."""
    return "unmarked" if mark is not None and int(mark.partition(":")[2] or 0) > 1 else ""


def _judge(cfg: Config, seen: datetime, newer: dict[str, list[tuple[bytes, Any]]], found: Found) -> None:
    from pbem.app.clock import TOLERANCE
    from pbem.mail.inbound.message import parse

    mails = {
        role: [(_id(parse(h, cfg.moderator_address).message_id), when) for h, when in got]
        for role, got in newer.items()
    }
    known = marks.recorded(cfg.database_url, [m for got in mails.values() for m, _ in got if m])
    since = seen - max(cfg.server_clock_margin, TOLERANCE)
    late: dict[str, int] = {}
    for role, got in mails.items():
        strangers = [_aware(when) for m, when in got if m and m not in known]  # (no date: read as late)
        late[role] = sum(1 for when in strangers if when is None or when >= since)
        if early := len(strangers) - late[role]:
            note = (
                f"the mail server's {role} folder holds {count(early, 'mail')} this record never read, which arrived "
                f"before its last run (moved there by hand?); nothing else changes"
            )
            log.warning("%s", note)
            found.notes.append(note)
    if sum(late.values()):
        found.refusal, found.late = _refusal(late, seen), late


def _refusal(late: dict[str, int], seen: datetime) -> str:
    held = " and its ".join(f"{role} folder holds {count(n, 'mail')}" for role, n in late.items() if n)
    return (
        f"the database is older than the mail server's folders: the mail server's {held} read after this database's last run "
        f"({seen:%Y-%m-%d %H:%M} UTC) that it never recorded (a backup restored, the whole home, on another machine "
        "or into another folder?); nothing was done: the orders read and the reports sent after its time are not in "
        "it. If this is the database to go on with, run once: pbem poll --trust-clock"
    )


def _id(message_id: str) -> str | None:
    return None if message_id.startswith("<missing.") else message_id


def _aware(when: Any) -> datetime | None:
    """An arrival date in UTC; None (read as late) when there is none, or it is none in UTC: an offset of 100 hours
    ("+9999", which imapclient reads) raised ValueError at the comparison and stopped the poll (costs13)."""
    if not isinstance(when, datetime):
        return None
    try:
        return (when if when.tzinfo else when.replace(tzinfo=UTC)).astimezone(UTC)
    except (OverflowError, ValueError):
        return None

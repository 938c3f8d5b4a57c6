"""A witness of the mails sent that survives the machine: a restored home sends nothing it cannot prove unsent.

The home's ledger of mails sent (`pbem.record.sentlog`) is a file of the home.  A machine lost takes it along, and
a database restored from a backup on another machine (or into another folder) held as waiting the mails that were
waiting when it was saved: the `pbem poll --trust-clock` run that goes on with it sent each one again, those the
old home had sent since as well (README "Backups": the players got the same report twice; months7).

The witness is the mail server, which no backup of the machine restores:
- over IMAP, each run that sent mail appends one small message to pbem's folder beside the processed one
  (`pbem/sent-ids`): the digests of the Message-IDs it sent (`pbem.record.sent_witness`; `flush`), its messages
  older than `KEEP` deleted once a day (`pbem.app.witness.prune`, on the connection the run's start opens).  The record keeps the folder's UIDVALIDITY (the poll mark `sent-witness`),
  so a database restored from a backup made after its first such run knows the folder was written before it was
  saved, and every mail the old home sent since is named there;
- over Maildir, the `sent` folder is the mail server's copy of every mail sent (a home restored elsewhere copies
  the old `mail/` as README says); it covers the restored database when it holds the newest mail that database
  marked sent (or, for a database that sent none, any mail).

At the run that goes on with a restored database (`after_restore`, from `pbem poll --trust-clock` once a restore
is evident: `pbem.app.clock.restored`, `pbem.app.whose`, the IMAP folders' `pbem.app.witness`), each mail still
waiting is looked for: named by the witness, it is marked sent; not named by a witness that covers the database,
it is proved unsent and goes out; otherwise it is held (status `held`), and the run's one `note:` line says how
many and the commands that release them (`pbem outbox release --all`) or drop them (`pbem outbox drop --all`: marked
sent, the old home sent them).  A mail accepted by the SMTP server in the old machine's last run whose
digest never reached the witness folder (the machine lost between the two) was sent again, silently, until months8:
now a run that starts with mail waiting from earlier runs names it first as about to be sent (`sending`, one APPEND
before the SMTP server is given any), and a restored home holds what is named so and never as sent.  A witness folder
this record wrote to and finds gone (deleted by hand) is evidence too (`pbem.app.witness`: "missing"): what waits is
held.  Each run that goes on with a restored database starts a restore epoch (`pbem.record.home_secrets.new_epoch`):
the mail it makes anew (the deadlines the old home applied after the backup, applied again) never takes the
Message-ID of the old home's mail of the same step.  A backup made before its pbem kept the witness, restored where
nothing says it is restored (no mail read since, the whole home folder), looks like a first run after an upgrade (no
witness written, mail waiting): no signal tells them apart (months9), so the moderator says it, `pbem poll
--restored` (`SAID_RESTORED`), and what waits is held as above (over Maildir all of it: its `sent` came back too).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

from pbem.app.witness import KEEP, SENT_WITNESS
from pbem.home.config import Config
from pbem.record import marks

log = logging.getLogger("pbem")
MOST = 20_000  # witness messages a restore reads at most (a run's message each: past it, what is waiting is held)
PER_MESSAGE = 50_000  # digests in one witness message (17 bytes each: under every server's literal bound)
WITNESS = SENT_WITNESS  # the poll mark: the IMAP witness folder's UIDVALIDITY:UIDNEXT after this record's append
MARGIN = timedelta(days=1)  # IMAP's SINCE is a day; clocks differ
#: `pbem poll --restored` (months9): the moderator says the database is restored where nothing shows it (the whole home
#: copied back, no mail read since); over Maildir its `sent` folder came back with it, so it proves nothing unsent
SAID_RESTORED = "restored"


def flush(cfg: Config, inbox: object, now: datetime) -> None:
    """At the end of a complete run over IMAP: the digests of the mails sent (this run's, and a killed run's)
    appended to the witness folder, then forgotten.  A server that refuses: logged, the digests kept for the next
    run."""
    append = getattr(inbox, "witness", None)
    if append is None or cfg.transport != "imap":
        return
    from pbem.mail.transports.seam import TransportError
    from pbem.record.sent_witness import body, taken
    from pbem.record.sentlog import journal_dir

    directory = journal_dir(cfg.home)
    known = marks.recall(cfg.database_url, WITNESS)
    files, digests = taken(directory) if directory.is_dir() else ([], [])
    try:
        validity = None
        for start in range(0, len(digests), PER_MESSAGE):
            validity = append(body(digests[start : start + PER_MESSAGE]), now)
        if known is None and validity is None:  # a first run (or one that sent nothing): the folder made, kept
            validity = append(b"", now)
    except TransportError as exc:
        log.warning("the mail server's witness of the mails sent was not written (the next run tries again): %s", exc)
        return
    if validity is not None and validity != known:
        marks.remember(cfg.database_url, WITNESS, validity)
    for f in files:
        f.unlink(missing_ok=True)


def before_sending(cfg: Config, inbox: object, seen: datetime | None, now: datetime, moved: str) -> list[str]:
    """At a run's start over IMAP, before anything is sent: a record's first run looked at (`first_run`, unless
    `moved` said the folder moved already), then the mails waiting from earlier runs named as about to be sent
    (`sending`); the notes to tell."""
    notes = [] if moved else first_run(cfg, inbox, seen, now)
    sending(cfg, inbox, now)
    return notes


def sending(cfg: Config, inbox: object, now: datetime) -> None:
    """The digests of the mails waiting from earlier runs appended to the witness folder as about to be sent
    (`SENDING`, months8): a machine lost after the SMTP server took them and before the run's end (`flush`) leaves
    them named, and a home restored from a backup that held them waiting holds them rather than send them again.
    One APPEND, only when mail waits at a run's start (a run sends what it queues itself: that is named at its
    end).  A server that refuses: logged, and the run goes on (as before months8)."""
    append = getattr(inbox, "witness", None)
    if append is None or cfg.transport != "imap":
        return
    from pbem.mail.transports.seam import TransportError
    from pbem.record.db import reading
    from pbem.record.sent_witness import SENDING, body, digest, waiting

    with reading(cfg.database_url) as conn:
        digests = [digest(m) for _, m in waiting(conn)]
    if not digests:
        return
    known = marks.recall(cfg.database_url, WITNESS)
    try:
        for start in range(0, len(digests), PER_MESSAGE):
            validity = append(body(digests[start : start + PER_MESSAGE], SENDING), now)
    except TransportError as exc:
        log.warning("the mail server's witness of the mails about to be sent was not written: %s", exc)
        return
    if validity != known:  # the next run's start must not take this append for another home's (`witness.check`)
        marks.remember(cfg.database_url, WITNESS, validity)


def first_run(cfg: Config, inbox: object, seen: datetime | None, now: datetime) -> list[str]:
    """Before a record's first run over IMAP sends anything (`pbem.app.witness.check` reads nothing for a record
    that never ran): a witness folder that holds messages this record never wrote means a backup made before the
    home's first poll was restored, and what the old home sent is looked up (`after_restore`).  One STATUS on the
    poll's connection, for a record that keeps no mark of the folder yet."""
    from pbem.app.witness import _unmarked

    mark = getattr(inbox, "witness_mark", None)
    if mark is None or cfg.transport != "imap" or marks.recall(cfg.database_url, WITNESS) is not None:
        return []
    moved = _unmarked(mark())
    return after_restore(cfg, seen, [], now, moved) if moved else []


def after_restore(cfg: Config, before: datetime | None, notes: list[str], now: datetime, moved: str = "") -> list[str]:
    """At a `--trust-clock` run: when the database is a restored one (older than this home's marks, another
    home's, or older than the IMAP server's folders: `notes` say so), each mail still waiting is marked sent when
    the witness names it, left to go when a covering witness does not, else held; the note to tell (none: nothing
    held)."""
    from pbem.record.db import transaction
    from pbem.record.home_secrets import new_epoch
    from pbem.record.sent_witness import digest, hold, newest_sent, waiting
    from pbem.record.sentlog import fold

    if not moved and not _restored(cfg, before, notes):
        return []
    if moved == "missing":  # told once: the next run's end makes the folder anew, and keeps its mark
        marks.remember(cfg.database_url, WITNESS, "")
    with transaction(cfg.database_url) as conn:
        queued, anchor = waiting(conn), newest_sent(conn)
        epoch = new_epoch(conn, now)  # what it makes from now on: under Message-IDs the old home never sent (months8)
    log.warning("a restored database gone on with: the mail made from now on is marked %s in its Message-IDs", epoch)
    said = [f"--restored: gone on with as a restored database, {len(queued)} mail(s) waiting in it, none held"]
    if not queued:
        return said if moved == SAID_RESTORED else []  # (the moderator hears what the command did)
    covers, named, why, maybe = _witness(cfg, before, anchor, now)
    covers = covers or (moved == "unmarked" and not _restored(cfg, before, notes))  # no evidence: nothing held
    if moved == SAID_RESTORED and cfg.transport != "imap":  # the restored home's own copy is no witness
        covers, why = False, f"pbem poll --restored: {why}, restored with the home, proves nothing unsent"
    sent = [i for i, m in queued if digest(m) in named]
    rest = [i for i, m in queued if digest(m) not in named]
    if covers:  # proved unsent, but for what a run of the old home began to send and never said it sent (months8)
        rest = [i for i, m in queued if digest(m) in maybe - named]
        why = f"{why} names them as being sent by a run of the old home that never said it sent them"
    with transaction(cfg.database_url) as conn:
        marked = fold(conn, sent, now) if sent else 0
        kept = hold(conn, rest) if rest else 0
    if marked:
        log.warning(
            "%d mail(s) waiting in the restored database were sent before (named by %s): marked sent", marked, why
        )
    if not kept:
        return said if moved == SAID_RESTORED else []
    note = (
        f"{kept} mail(s) waiting in this database when it was saved may have gone out since ({why}); they are held: "
        "pbem outbox release --all sends them, pbem outbox drop --all marks them sent (the old home sent them)"
    )
    log.warning("%s", note)
    return [note]


def _restored(cfg: Config, before: datetime | None, notes: list[str]) -> bool:
    from pbem.app import clock as clocks
    from pbem.app.whose import whose

    if any(n.startswith("gone on with a database older than the mail server") for n in notes):
        return True
    try:
        held = clocks.marks(cfg.home)
    except clocks.MarkHeld:
        return True
    return bool(clocks.restored(before, held) or whose(cfg.database_url, cfg.home).refusal(cfg.home))


def _witness(
    cfg: Config, before: datetime | None, anchor: tuple[str, datetime] | None, now: datetime
) -> tuple[bool, set[str], str, set[str]]:
    """Whether the witness covers the database, the digests it names as sent, what it is (for the lines), and the
    digests it names as about to be sent (`SENDING`)."""
    from pbem.record.sent_witness import digest

    if cfg.transport == "maildir":
        from pbem.mail.transports.maildir import sent_ids_since

        at = anchor[1] if anchor else before or datetime.min.replace(tzinfo=UTC) + MARGIN  # (none: every mail)
        since = (at if at.tzinfo else at.replace(tzinfo=UTC)) - MARGIN
        ids = sent_ids_since(cfg.maildir_path / "sent", since, MOST * 5)
        if ids is None:
            return False, set(), f"the Maildir's sent folder holds more than {MOST * 5} mails since then", set()
        named = {digest(m) for m in ids}
        covers = digest(anchor[0]) in named if anchor else bool(ids)
        return (
            covers,
            named,
            "the Maildir's sent folder" + ("" if covers else ", which does not reach back to it"),
            set(),
        )
    if cfg.transport != "imap":
        return False, set(), "no witness of the mails sent on this transport", set()
    return _imap(cfg, before or now - KEEP, now)


def _imap(cfg: Config, before: datetime, now: datetime) -> tuple[bool, set[str], str, set[str]]:
    from pbem.mail.transports.connect import inbox
    from pbem.mail.transports.credentials import login_for
    from pbem.record.sent_witness import SENDING, read_body

    known = marks.recall(cfg.database_url, WITNESS)
    box = inbox(cfg, login_for("imap", cfg.imap, cfg.path), connect=False)
    try:
        got = box.witnessed(before - MARGIN, MOST)
        mark = box.witness_mark()
    finally:
        box.close()
    if known is not None and mark is not None:  # read: the next run is not sent here again by the same messages
        marks.remember(cfg.database_url, WITNESS, mark)
    where = f"the mail server's {box.witness_folder()} folder"
    if got is None or got[1] is None:
        missing = f"{where} is missing" if got is None else f"{where} holds more than {MOST} messages since"
        if got is None and known is None:  # a backup made before its pbem kept the witness (months8)
            missing += " and this database never wrote to one (saved before its pbem kept it)"
        return False, set(), missing, set()
    validity, texts = got
    named: set[str] = set()
    maybe: set[str] = set()
    for text in texts or []:
        named |= read_body(text)
        maybe |= read_body(text, SENDING)
    if known is None:
        return False, named, f"{where}, which this database never wrote to", maybe
    if known.split(":")[0] != validity:
        return False, named, f"{where}, made anew since this database was saved", maybe
    if before < now - KEEP + MARGIN:
        return False, named, f"{where}, which keeps {KEEP.days} days", maybe
    return True, named, where, maybe

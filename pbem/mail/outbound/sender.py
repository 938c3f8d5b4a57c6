"""Sending the outbox after commit: the sender threads, retries, and the alert when a mail is given up.

Mail is queued in the record by the use-case layer (`pbem.record.outbox`).
`send_pending` runs after commit (from the poll's `Dispatcher` threads, while
the next message is handled): it sends each queued message with its stable
Message-ID and, right after the server accepted it, appends its id to the
run's journal (`pbem.record.sentlog`), never waiting for the database's write
lock; the poll folds the journal into the outbox between messages, one UPDATE
per batch.  A crash mid-send causes at most one duplicate per connection.
`[smtp] connections = N` sends over N connections at once, each on its own
thread (the SMTP sender pipelines each message's commands where the server
offers it).  Transient failures are retried on later runs with exponential
backoff; after `[smtp] max_attempts` the message is marked failed and the
moderator is told (`pbem outbox list` shows it, `pbem outbox retry` queues it
again).  A server that cannot be reached costs no message an attempt (an
outage of hours gives up nothing); a 4xx for one recipient defers that mail
only, and the run goes on with the rest (issue 26).
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import Any

from sqlalchemy import Connection, bindparam, select

from pbem.home.config import Config
from pbem.mail.outbound.outgoing import Mail, message_id, outbox_row
from pbem.mail.outbound.sealed import opened
from pbem.mail.transports.seam import (
    MessageDeferred,
    PermanentSendError,
    Sender,
    ServerUnreachable,
    TransientSendError,
    TransportError,
)
from pbem.record import marks, outbox, sentlog
from pbem.record.db import DatabaseDamaged, fetch, reading, session, transaction
from pbem.record.home_secrets import message_id_key
from pbem.record.models import OutboxMail, OutboxMessage

log = logging.getLogger("pbem.sender")

FOLD_EVERY = 50  # sent ids the poll folds into the outbox at once (and at the end of the run)


@dataclass
class SendSummary:
    sent: int = 0
    retry: int = 0
    failed: int = 0

    def add(self, other: SendSummary) -> None:
        self.sent += other.sent
        self.retry += other.retry
        self.failed += other.failed


class Claims:
    """Outbox ids sent by another run whose journal was found: not sent again by this one."""

    def __init__(self, ids: Iterable[int] = ()) -> None:
        self._ids = set(ids)
        self._lock = threading.Lock()

    def __contains__(self, oid: object) -> bool:
        with self._lock:
            return oid in self._ids

    def add(self, ids: Iterable[int]) -> None:
        with self._lock:
            self._ids.update(ids)


_C = OutboxMessage.__table__.c  # type: ignore[attr-defined]
_M = OutboxMail.__table__.c  # type: ignore[attr-defined]
_Q_DUE = select(_C.id).where(_C.status == "queued", _C.next_attempt_at <= bindparam("when")).order_by(_C.id)
# the queued mails with ids from lo to hi (a chunk of the due ids, read just before they are sent); no ORDER BY:
# SQLite found the rows by the status index and sorted them, the mails' bytes with them, in a temporary B-tree
# (each mail copied in and out of it, half the statement's instructions: perf31); `_mails` sorts the few rows
_Q_RAWS = (
    select(_C.id, _M.raw, _M.keep_raw, _C.to_addr, _M.checksum)
    .join_from(OutboxMessage.__table__, OutboxMail.__table__, _M.id == _C.id)  # type: ignore[attr-defined]
    .where(_C.id >= bindparam("lo"), _C.id <= bindparam("hi"), _C.status == "queued")
)


def due_ids(cfg: Config, when: datetime) -> list[int]:
    with reading(cfg.database_url) as conn:
        return _due(conn, when)


def _due(conn: Connection, when: datetime) -> list[int]:
    return [int(oid) for (oid,) in fetch(conn, _Q_DUE, {"when": when})]


def _mails(conn: Connection, chunk: list[int]) -> list[tuple[Any, ...]]:
    """The queued mails of `chunk` (ascending ids) in id order."""
    return sorted(fetch(conn, _Q_RAWS, {"lo": chunk[0], "hi": chunk[-1]}), key=lambda row: int(row[0]))


READ_AHEAD = 16  # queued mails read in one query just before they are sent


def _due_mail(
    cfg: Config, when: datetime, journal: sentlog.SentLog, claims: Claims, share: tuple[int, int]
) -> Iterator[tuple[int, bytes, str]]:
    """(id, raw, recipient) of this connection's due mail, read a few at a time just before sending.

    The due ids and the first few mails are read on one connection (the poll nudges the sender after each
    message, which mostly queued two or three: a second checkout of a connection from the pool was a third of
    the reading's instructions).  On SQLite that connection reads everything else of the nudge too, the further
    chunks and each mail's status right before it is handed over: its reads take no lock and open no transaction
    (`reading`: no BEGIN, the driver in autocommit), so each statement sees the last commit as a connection taken
    anew would, without the checkout, the events and the checkin around each one (perf37: two in three of the
    sender thread's pool checkouts were the status reads, half its CPU was reading).  Elsewhere (PostgreSQL, whose
    sessions may not idle in a transaction while a mail is sent) each chunk and each status is read on a connection
    of its own, as before.  No lock: a mail a concurrent run sent meanwhile is skipped if it is marked, else sent
    once more.
    """
    with reading(cfg.database_url) as conn:
        due = _due(conn, when)
        ids = [i for i in due if i % share[1] == share[0] and i not in journal.sent and i not in claims]
        first = _mails(conn, ids[:READ_AHEAD]) if ids else []
        if ids and conn.dialect.name == "sqlite":
            yield from _in_order(cfg, ids, first, journal, lambda: contextlib.nullcontext(conn))
            return
    yield from _in_order(cfg, ids, first, journal, lambda: reading(cfg.database_url))


def _in_order(
    cfg: Config,
    ids: list[int],
    first: list[tuple[Any, ...]],
    journal: sentlog.SentLog,
    reader: Callable[[], contextlib.AbstractContextManager[Connection]],
) -> Iterator[tuple[int, bytes, str]]:
    """`_due_mail`'s mails of `ids` (`first`: the first chunk's rows, read already), each read on `reader()`."""
    for start in range(0, len(ids), READ_AHEAD):
        chunk = ids[start : start + READ_AHEAD]
        wanted = set(chunk)
        if start:
            with reader() as conn:
                rows = _mails(conn, chunk)
        else:
            rows = first
        for oid, raw, keep, to, checksum in rows:
            if oid not in wanted or oid in journal.sent:
                continue
            if not outbox.intact(raw, keep, checksum):  # SQLite does not see an overflow page overwritten (walk10)
                raise DatabaseDamaged(damaged_mail(oid))
            with reader() as conn:
                if not _still_queued(conn, oid):  # withdrawn (`pbem game abandon`) since the chunk was read (walk10)
                    continue
            yield oid, opened(cfg.home, raw, keep), to  # a sealed mail is opened only here


_Q_STATUS = select(_C.status).where(_C.id == bindparam("id"))


def _still_queued(conn: Connection, oid: int) -> bool:
    """Whether the mail is still queued, read right before it is handed over (one read by the primary key)."""
    rows = fetch(conn, _Q_STATUS, {"id": oid})
    return bool(rows) and rows[0][0] == "queued"


def damaged_mail(oid: int) -> str:
    """The line of a run stopped by a queued mail whose bytes are not those queued (`outbox.intact`)."""
    return (
        f"the database is damaged (queued mail {oid}: its bytes are not those queued, a page SQLite does not check "
        "was overwritten): it was not sent, nor any mail after it; stop the cron poll, and restore the newest backup "
        "that `pbem backup --check` finds intact (README: Backups)"
    )


def send_pending(
    cfg: Config,
    sender: Sender,
    when: datetime,
    summary: SendSummary | None = None,
    abort: threading.Event | None = None,
    spent: dict[str, float] | None = None,
    journal: sentlog.SentLog | None = None,
    claims: Claims | None = None,
    share: tuple[int, int] = (0, 1),
) -> SendSummary:
    """Send every due queued message.  Raises TransportError if the server cannot be reached at all.

    Messages are read a few at a time just before they are sent (a concurrent run
    may have taken them), without waiting for the write lock, and each is journaled
    right after the server accepted it, so a crash
    between the two repeats at most that one message.  Without a `journal` (a
    one-off send), the journal is folded into the outbox before returning.
    `share` = (i, n): this connection sends the mails whose id is i modulo n.
    """
    if journal is None:
        own = sentlog.SentLog(sentlog.journal_dir(cfg.home))
        try:
            return send_pending(cfg, sender, when, summary, abort, spent, own, claims, share)
        finally:
            ids = own.take()
            with transaction(cfg.database_url) as conn:
                sentlog.fold(conn, ids, when, _witness(cfg))
            own.folded(ids)
            own.close(remove=True)
    summary = summary or SendSummary()
    spent = spent if spent is not None else {}
    claims = claims or Claims()
    for oid, raw, to in _due_mail(cfg, when, journal, claims, share):
        if abort is not None and abort.is_set():
            break
        t0 = time.perf_counter()
        try:
            sender.send(raw, cfg.moderator_address, [to])
        except PermanentSendError as exc:
            _mark(cfg, oid, when, error=str(exc), permanent=True)
            summary.failed += 1
            continue
        except ServerUnreachable as exc:  # no message was tried: none of them loses an attempt (issue 26)
            summary.retry += 1
            raise TransportError(f"sending mail failed: {exc}") from None
        except MessageDeferred as exc:  # a 4xx for this recipient: this one later, the rest now
            if _mark(cfg, oid, when, error=str(exc), permanent=False):
                summary.failed += 1
            else:
                summary.retry += 1
            continue
        except TransientSendError as exc:
            if _mark(cfg, oid, when, error=str(exc), permanent=False):
                summary.failed += 1
            else:
                summary.retry += 1
            raise TransportError(f"sending mail failed: {exc}") from None
        t1 = time.perf_counter()
        journal.record(oid)  # sent: the next fold marks it (and drops the player's code it carried)
        t2 = time.perf_counter()
        spent["sending"] = spent.get("sending", 0.0) + (t1 - t0)
        spent["marking_sent"] = spent.get("marking_sent", 0.0) + (t2 - t1)
        summary.sent += 1
    return summary


class Dispatcher:
    """Sends queued mail on background threads while the poll goes on with the next message.

    The poll nudges it after each committed message; each thread (one per
    `[smtp] connections`, thread i sending the ids equal to i modulo N) sends
    whatever is due with `send_pending`, so the guarantees are the same as a send after the run.  The
    threads never wait for the poll: what they sent goes to the run's journal,
    which the poll folds into the outbox (`fold`, between messages, and at
    `finish`).  The first TransportError stops sending; `finish` re-raises it once
    every message has been handled, so nothing is lost and the run still exits
    with that reason.
    """

    def __init__(self, cfg: Config, sender: Sender, clock: Callable[[], datetime]) -> None:
        self.cfg, self.sender, self.clock = cfg, sender, clock
        more = getattr(sender, "another", None)
        extra = max(0, cfg.smtp.connections - 1) if more is not None and cfg.transport != "maildir" else 0
        self.senders: list[Sender] = [sender] + [more() for _ in range(extra)] if more else [sender]
        self.summaries = [SendSummary() for _ in self.senders]
        self.spents: list[dict[str, float]] = [{"sending": 0.0, "marking_sent": 0.0} for _ in self.senders]
        self.folding = 0.0
        self.error: BaseException | None = None
        self.failed_at: datetime | None = None  # when this run's sending failed (`marks.send_failed`)
        self.journal = sentlog.SentLog(sentlog.journal_dir(cfg.home))
        self.claims = Claims()
        self._wakes = [threading.Event() for _ in self.senders]
        self._abort = threading.Event()
        self._closing = False
        self._threads = [
            threading.Thread(target=self._run, args=(i,), name=f"pbem-sender-{i}", daemon=True)
            for i in range(len(self.senders))
        ]
        self._interval = sys.getswitchinterval()

    @property
    def summary(self) -> SendSummary:
        total = SendSummary()
        for s in self.summaries:
            total.add(s)
        return total

    @property
    def spent(self) -> dict[str, float]:
        """Seconds: on the mail server and journaling, and the threads' CPU time (summed over the threads);
        folding on the poll's thread."""
        out = {k: sum(s.get(k, 0.0) for s in self.spents) for k in ("sending", "marking_sent", "cpu")}
        out["folding"] = self.folding
        return out

    def __enter__(self) -> Dispatcher:
        self._recover()
        sys.setswitchinterval(min(self._interval, 0.001))  # answer the mail server promptly
        for thread in self._threads:
            thread.start()
        return self

    def _recover(self) -> None:
        """Fold what earlier (killed) or concurrent runs journaled, before sending anything."""
        for path, alive in sentlog.others(self.journal.path.parent, self.journal.path):
            ids = sentlog.read_ids(path)
            if ids:
                with transaction(self.cfg.database_url) as conn:
                    sentlog.fold(conn, ids, self.clock(), _witness(self.cfg))
                self.claims.add(ids)
            if not alive:
                sentlog.retire(path, ids)

    def nudge(self) -> None:
        for wake in self._wakes:
            wake.set()

    def fold(self, force: bool = False) -> None:
        """Mark sent what the threads journaled (the poll calls this between messages, outside any transaction)."""
        if not force and self.journal.pending() < FOLD_EVERY:
            return
        ids = self.journal.take()
        if not ids:
            return
        t0 = time.perf_counter()
        try:
            with transaction(self.cfg.database_url) as conn:
                sentlog.fold(conn, ids, self.clock(), _witness(self.cfg))
        except BaseException:
            self.journal.give_back(ids)
            raise
        finally:
            self.folding += time.perf_counter() - t0
        self.journal.folded(ids)

    def stop_if_damaged(self) -> None:
        """Raise the damage a sender thread met (`DatabaseDamaged`): the poll stops there, not at its end (walk10)."""
        if isinstance(self.error, DatabaseDamaged):
            raise self.error

    def _run(self, i: int) -> None:
        try:
            self._loop(i)
        finally:
            self.spents[i]["cpu"] = time.thread_time()  # this thread's CPU time, for `--timings`

    def _loop(self, i: int) -> None:
        wake = self._wakes[i]
        while True:
            wake.wait()
            wake.clear()
            closing = self._closing
            now = self.clock()
            try:
                send_pending(
                    self.cfg,
                    self.senders[i],
                    now,
                    self.summaries[i],
                    self._abort,
                    self.spents[i],
                    self.journal,
                    self.claims,
                    (i, len(self.senders)),
                )
            except BaseException as exc:  # kept for the poll to raise; sending stops for this run
                if self.error is None:
                    self.error, self.failed_at = exc, now
                self._abort.set()
                return
            if closing:
                return

    def finish(self) -> SendSummary:
        """Send what is still due, wait, fold the journal, and raise the sender's error if it had one."""
        self._stop()
        if self.error is not None:
            if isinstance(self.error, TransportError) and self.failed_at is not None:  # the server: not a bug
                marks.send_failed(self.cfg.database_url, self.failed_at)  # claimed once it sends again (fairness22)
            raise self.error
        return self.summary

    def _stop(self) -> None:
        self._closing = True
        self.nudge()
        for thread in self._threads:
            thread.join()
        sys.setswitchinterval(self._interval)
        for extra in self.senders[1:]:
            extra.close()
        folded = False
        try:
            self.fold(force=True)
            folded = True
        finally:
            self.journal.close(remove=folded)

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            if any(t.is_alive() for t in self._threads):  # the poll failed: let the current mail finish, send no more
                self._abort.set()
                try:
                    self._stop()
                except (
                    Exception
                ) as exc:  # the journal stays for the next run; the poll's own error is the one to report
                    reason = str(getattr(exc, "orig", exc)).splitlines()[0] if str(exc) else type(exc).__name__
                    log.warning("mail sent in this run is marked sent by the next run (%s)", reason)
        finally:
            # Set back however the run ended: a poll stopped on a damaged page, its sender threads already ended, left
            # the whole process at 1 ms (costs27's leftovers check: test_walk9_damage, test_walk10_overflow).
            sys.setswitchinterval(self._interval)


def _witness(cfg: Config) -> Path | None:
    """Where the digests of the mails sent wait for the mail server's witness (`pbem.app.sent_witness`): over
    IMAP; over Maildir the `sent` folder is the witness itself."""
    return sentlog.journal_dir(cfg.home) if cfg.transport == "imap" else None


def _mark(cfg: Config, oid: int, when: datetime, error: str, permanent: bool = False) -> bool:
    """Record a failed attempt; returns True if the message is now marked failed."""
    with session(cfg.database_url) as s:
        row = s.get(OutboxMessage, oid)
        assert row is not None
        row.attempts += 1
        row.last_error = error[:500]
        failed = permanent or row.attempts >= cfg.smtp.max_attempts
        if failed:
            row.status = "failed"
            mail = s.get(OutboxMail, oid)
            if mail is not None and mail.keep_raw is not None:  # given up: the player's code leaves the record as
                mail.raw, mail.keep_raw = mail.keep_raw, None  # when sent (issue 26); a retry sends it without: a
                mail.checksum = outbox.mail_checksum(mail.raw, None)  # reply still identifies
                s.add(mail)
            if row.purpose != "alert":  # one alert a day (a server refusing everything gave one a mail)
                told, secret = alert(cfg, row, when), message_id_key(s)
                if not outbox.queued_ids(s, [message_id(cfg, told, secret)]):
                    outbox.queue(s, outbox_row(cfg, told, when, secret))
        else:
            row.next_attempt_at = when + timedelta(minutes=2 ** min(row.attempts, 10))
        s.add(row)
        s.commit()
        if failed:
            log.warning("gave up on message %s to %s after %d attempts", row.message_id, row.to_addr, row.attempts)
        return failed


def alert(cfg: Config, row: OutboxMessage, when: datetime) -> Mail:
    """The moderator's mail about the first message given up on this day (never itself alerted about): the
    rest are listed by `pbem outbox list`."""
    ctx = dict(
        to=row.to_addr, message_id=row.message_id, purpose=row.purpose, attempts=row.attempts, error=row.last_error
    )
    key = ("send_failed", f"{when:%Y-%m-%d}")
    return Mail(to=cfg.moderator_address, kind="send_failed", context=ctx, purpose="alert", key=key)

"""Sending the outbox after commit: the sender thread, retries, and the alert when a mail is given up.

Mail is queued in the record by the use-case layer (`pbem.record.outbox`).
`send_pending` runs after commit (from
the poll's `Dispatcher` thread, while the next message is handled): it
sends each queued message with its stable Message-ID and marks it sent in its
own small transaction (one UPDATE), so a crash mid-send causes at most one duplicate.
Transient failures are retried on later runs with exponential backoff; after
`[smtp] max_attempts` the message is marked failed and the moderator is told.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from types import TracebackType

from sqlalchemy import func, select

from ..config import Config
from ..record import outbox
from ..record.db import reading, session, transaction
from ..record.home_secrets import message_id_key
from ..record.models import OutboxMessage
from .outgoing import Mail, outbox_row
from .transport import PermanentSendError, Sender, TransientSendError, TransportError

log = logging.getLogger("pbem.sender")


@dataclass
class SendSummary:
    sent: int = 0
    retry: int = 0
    failed: int = 0


def send_pending(
    cfg: Config,
    sender: Sender,
    when: datetime,
    summary: SendSummary | None = None,
    abort: threading.Event | None = None,
    spent: dict[str, float] | None = None,
) -> SendSummary:
    """Send every due queued message.  Raises TransportError if the server cannot be reached at all.

    Each message is read just before it is sent (a concurrent run may have taken
    it), without waiting for the write lock, and marked sent right after in its
    own one-statement transaction, so a crash between the two repeats at most
    that one message.
    """
    summary = summary or SendSummary()
    spent = spent if spent is not None else {}
    c = OutboxMessage.__table__.c  # type: ignore[attr-defined]
    with reading(cfg.database_url) as conn:
        ids = (
            conn.execute(select(c.id).where(c.status == "queued", c.next_attempt_at <= when).order_by(c.id))
            .scalars()
            .all()
        )
    for oid in ids:
        if abort is not None and abort.is_set():
            break
        with reading(cfg.database_url) as conn:  # no lock: at worst a concurrent run sends it too, once
            got = conn.execute(select(c.raw, c.to_addr).where(c.id == oid, c.status == "queued")).first()
        if got is None:
            continue  # a concurrent run took it
        raw, to = got
        t0 = time.perf_counter()
        try:
            sender.send(raw, cfg.moderator_address, [to])
        except PermanentSendError as exc:
            _mark(cfg, oid, when, error=str(exc), permanent=True)
            summary.failed += 1
            continue
        except TransientSendError as exc:
            if _mark(cfg, oid, when, error=str(exc), permanent=False):
                summary.failed += 1
            else:
                summary.retry += 1
            raise TransportError(f"sending mail failed: {exc}") from None
        t1 = time.perf_counter()
        with transaction(cfg.database_url) as conn:  # sent: the player's code (if any) leaves with the mail
            conn.execute(
                OutboxMessage.__table__.update()  # type: ignore[attr-defined]
                .where(c.id == oid)
                .values(
                    status="sent",
                    sent_at=when,
                    last_error="",
                    attempts=c.attempts + 1,
                    raw=func.coalesce(c.keep_raw, c.raw),
                    keep_raw=None,
                )
            )
        t2 = time.perf_counter()
        spent["sending"] = spent.get("sending", 0.0) + (t1 - t0)
        spent["marking_sent"] = spent.get("marking_sent", 0.0) + (t2 - t1)
        summary.sent += 1
    return summary


class Dispatcher:
    """Sends queued mail on a background thread while the poll goes on with the next message.

    The poll nudges it after each committed message; it sends whatever is due
    with `send_pending`, so the guarantees are the same as a send after the
    run.  Mail is out sooner, and the time spent waiting on the mail server
    overlaps with handling orders.  The first TransportError stops it; `finish`
    re-raises it once every message has been handled, so nothing is lost and
    the run still exits with that reason.
    """

    def __init__(self, cfg: Config, sender: Sender, clock: Callable[[], datetime]) -> None:
        self.cfg, self.sender, self.clock = cfg, sender, clock
        self.summary = SendSummary()
        self.spent: dict[str, float] = {"sending": 0.0, "marking_sent": 0.0}  # seconds: server, record lock + UPDATE
        self.error: BaseException | None = None
        self._wake = threading.Event()
        self._abort = threading.Event()
        self._closing = False
        self._thread = threading.Thread(target=self._run, name="pbem-sender", daemon=True)
        self._interval = sys.getswitchinterval()

    def __enter__(self) -> Dispatcher:
        sys.setswitchinterval(min(self._interval, 0.001))  # answer the mail server promptly
        self._thread.start()
        return self

    def nudge(self) -> None:
        self._wake.set()

    def _run(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            closing = self._closing
            try:
                send_pending(self.cfg, self.sender, self.clock(), self.summary, self._abort, self.spent)
            except BaseException as exc:  # kept for the poll to raise; sending stops for this run
                self.error = exc
                return
            if closing:
                return

    def finish(self) -> SendSummary:
        """Send what is still due, wait, and raise the sender's error if it had one."""
        self._stop()
        if self.error is not None:
            raise self.error
        return self.summary

    def _stop(self) -> None:
        self._closing = True
        self._wake.set()
        self._thread.join()
        sys.setswitchinterval(self._interval)

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._thread.is_alive():  # the poll failed: let the current mail finish, send nothing more
            self._abort.set()
            self._stop()


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
            if row.purpose != "alert":
                outbox.queue(s, outbox_row(cfg, alert(cfg, row), when, message_id_key(s)))
        else:
            row.next_attempt_at = when + timedelta(minutes=2 ** min(row.attempts, 10))
        s.add(row)
        s.commit()
        if failed:
            log.warning("gave up on message %s to %s after %d attempts", row.message_id, row.to_addr, row.attempts)
        return failed


def alert(cfg: Config, row: OutboxMessage) -> Mail:
    """The moderator's mail about a message given up on (never itself alerted about)."""
    ctx = dict(
        to=row.to_addr, message_id=row.message_id, purpose=row.purpose, attempts=row.attempts, error=row.last_error
    )
    return Mail(to=cfg.moderator_address, kind="send_failed", context=ctx, purpose="alert", key=(row.message_id,))

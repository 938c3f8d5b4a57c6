"""What the mail sender has sent, kept outside the database until the poll folds it into the outbox.

The sender must never wait for a message's transaction (SQLite has one writer),
so it does not mark a mail sent in the database: right after the server accepted
it, it appends the outbox id to its own journal, a small append-only file
(`SentLog`, one per sending process, in ``HOME/outbox-sent/``).  The poll folds the
journal into the outbox between messages with one UPDATE per batch (`fold`), and
once more when the sender is done; the file is removed after that last fold.

Each journal, once folded, is added to the home's ledger of mails sent (`LEDGER`, in the same folder, the newest
`LEDGER_BYTES` of it kept) before it is removed: a database restored from a backup holds as waiting the mails that
were waiting when it was saved, and sent since; the run that goes on with it (`pbem poll --trust-clock`, which
a restored database needs) marks those the ledger names sent, not sending them twice (`replay`), then starts the
ledger anew (the ids of the abandoned history would name other mails of the restored one).

Crash safety is the one of marking each mail right after sending it: a kill
between the server's acceptance and the journal line re-sends that one mail on
the next run (one duplicate per sending connection), and a journal left by a
killed run is folded by the next one (`recover`) before it sends anything.  The
fold is idempotent (it only touches rows still queued), so folding a line twice
is harmless.  A write to the file survives the process being killed; like the
database's own commits (WAL, ``synchronous = NORMAL``) it is not fsynced.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import os
import socket
import stat
import threading
import time
from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.engine import Connection

from pbem.record.files import running
from pbem.record.models import OutboxMail, OutboxMessage

log = logging.getLogger("pbem")

FOLD_CHUNK = 500  # ids per UPDATE (under every database's parameter limit)
DIRECTORY = "outbox-sent"
SUFFIX = ".sent"
LEDGER = "sent-ids.ledger"  # (not a journal: it does not end in SUFFIX)
LEDGER_BYTES = 1 << 20  # the ledger's newest bytes kept: about 140,000 mails (a month of 4,000 a day)
LOCK = "sent-ids.ledger.lock"  # held while the ledger is appended to and trimmed (`kept`)
LOCK_SECONDS = 10.0


def journal_dir(home: Path) -> Path:
    return home / DIRECTORY


class NotRegular(OSError):
    """A path of the ledger's folder that is no regular file (a FIFO, a device)."""


def _open_regular(path: Path, flags: int, mode: int = 0o600) -> int:
    """`os.open(path, flags)` of a regular file (made if `flags` say so), else OSError: opened without blocking, so
    a FIFO in the ledger's place (or a journal's) is refused before anything waits on it.  The ledger's append
    waited for a reader for ever, so every `pbem poll` that sent a mail ran to its deadline's backstop and exited 3;
    a ledger or a stopped run's journal that was a FIFO waited for a writer in `pbem backup`, the replay and the
    poll's recovery, and a journal linked to /dev/zero was read there without end (costs24: tests/reliability/test_costs24_sweep.py)."""
    fd = os.open(path, flags | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0), mode)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegular(errno.EINVAL, "not a regular file: pbem keeps no ledger or journal in it", str(path))
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _read_regular(path: Path, most: int | None = None) -> tuple[bytes, int]:
    """The newest `most` bytes of the regular file `path` (all of them: None), and its size; OSError as
    `_open_regular`."""
    with os.fdopen(_open_regular(path, os.O_RDONLY), "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if most is not None:
            f.seek(max(0, size - most))
        return (f.read() if most is None else f.read(most)), size


class SentLog:
    """This process's journal of sent outbox ids (thread-safe; the sender threads append to it)."""

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / f"{socket.gethostname()}-{os.getpid()}-{threading.get_ident()}{SUFFIX}"
        self._fd = _open_regular(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        self._lock = threading.Lock()
        self._unfolded: list[int] = []
        self.sent: set[int] = set()  # ids sent and not yet folded (once folded, the outbox says so itself)
        self._written = bytearray()  # the journal's lines, for the ledger when it is removed (7 bytes a mail)

    def record(self, oid: int) -> None:
        """Mail `oid` was accepted by the server: say so before anything else is sent on this connection."""
        line = f"{oid}\n".encode()
        os.write(self._fd, line)
        with self._lock:
            self._written += line
            self._unfolded.append(oid)
            self.sent.add(oid)

    def pending(self) -> int:
        with self._lock:
            return len(self._unfolded)

    def take(self) -> list[int]:
        """The ids recorded since the last `take` (the caller folds them, then `folded`; or `give_back`)."""
        with self._lock:
            ids, self._unfolded = self._unfolded, []
        return ids

    def folded(self, ids: list[int]) -> None:
        """These ids are marked sent in the committed outbox: no need to remember them here (memory stays flat)."""
        with self._lock:
            self.sent.difference_update(ids)

    def give_back(self, ids: list[int]) -> None:
        with self._lock:
            self._unfolded[:0] = ids

    def close(self, remove: bool) -> None:
        """`remove` only once every line is folded and committed."""
        os.close(self._fd)
        if remove:
            if self._written:
                kept(self.path.parent, bytes(self._written))
            self.path.unlink(missing_ok=True)


def kept(directory: Path, lines: bytes) -> None:
    """The ids `lines` (one a line) added to the ledger of mails sent, whose newest `LEDGER_BYTES` are kept.  A
    ledger that cannot be written loses only the protection of a later restore: never the run.

    Appending and trimming hold the ledger's lock (`_locked`): two processes that trimmed at once (a poll's sender
    and a command's) lost lines, the one's appended to the file the other then replaced, and a trim that measured
    the file before another replaced it read past the new one's end and wrote the ledger empty (months4,
    tests/test_sent_ledger_trim.py).  A lock not had within `LOCK_SECONDS` (a holder stuck): the lines are appended
    and the trim left to the next writer."""
    path = directory / LEDGER
    try:
        with _locked(directory / LOCK) as locked:
            fd = _open_regular(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
            try:
                os.write(fd, lines)
            finally:
                os.close(fd)
            if locked:
                _trim(path)
    except NotRegular as exc:
        log.warning("%s: the ledger of mails sent is not kept (remove it; pbem makes a new one)", exc)
    except OSError:
        pass


def _trim(path: Path) -> None:
    """The ledger's newest half kept, from a line's start, the file replaced whole, once it passes `LEDGER_BYTES`
    (its size read where it is read: never past its end)."""
    with os.fdopen(_open_regular(path, os.O_RDONLY), "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size <= LEDGER_BYTES:
            return
        f.seek(size - LEDGER_BYTES // 2)
        tail = f.read()
    from pbem.record.files import write_whole

    write_whole(path, tail[tail.find(b"\n") + 1 :], 0o600)


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[bool]:
    """An exclusive `flock` on `path` (made if missing), waited for at most `LOCK_SECONDS`; whether it was had."""
    fd = _open_regular(path, os.O_RDWR | os.O_CREAT)
    try:
        deadline = time.monotonic() + LOCK_SECONDS
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    yield False
                    return
                time.sleep(0.005)
        yield True
    finally:
        os.close(fd)  # the lock goes with it


def retire(path: Path, ids: Iterable[int]) -> None:
    """A folded journal of a run that ended (killed) into the ledger, and removed."""
    if ids:
        kept(path.parent, "".join(f"{i}\n" for i in sorted(ids)).encode())
    path.unlink(missing_ok=True)


READ_BYTES = 4 * LEDGER_BYTES  # of a ledger `replay` reads, its newest: the home's, the backup's and an old home's


def as_of_now(home: Path) -> bytes:
    """The ids of the mails this home sent as its ledger and the journals not yet folded hold them now (one a
    line, the ledger's newest `LEDGER_BYTES`): what `pbem backup` saves beside the database it copied, whose
    outbox holds as waiting the mails a sender had sent and no poll had folded yet."""
    directory = journal_dir(home)
    out = bytearray(_tail(directory / LEDGER, LEDGER_BYTES))
    for path, _ in others(directory):
        out += "".join(f"{i}\n" for i in sorted(read_ids(path))).encode()
    return bytes(out)


def _tail(path: Path, most: int) -> bytes:
    """The newest `most` bytes of the ledger `path` from a line's start (b"": none, or not one to read)."""
    try:
        got, size = _read_regular(path, most)
    except OSError:
        return b""
    return got if size <= most else got[got.find(b"\n") + 1 :]


def replay(home: Path, url: str, when: datetime) -> int:
    """Mark sent the mails waiting in the database at `url` that the home's ledger says were sent (a database
    restored from a backup holds them as waiting), then start the ledger anew; how many were marked.  A ledger
    the moderator added to (the backup's `sent-ids.ledger`, an old home's) is read as one: its newest
    `READ_BYTES`."""
    from pbem.record.db import transaction

    path = journal_dir(home) / LEDGER
    text = _tail(path, READ_BYTES).decode("ascii", "replace")
    ids = {int(line) for line in text.split() if is_id(line)}
    if not ids:
        return 0
    with transaction(url) as conn:
        marked = fold(conn, ids, when)
    path.unlink(missing_ok=True)
    return marked


UNSENT = ("queued", "withdrawn")  # the statuses a journaled (sent) mail may still have: `outbox.WITHDRAWN` raced it


def fold(conn: Connection, ids: Iterable[int], when: datetime, witness: Path | None = None) -> int:
    """Mark these outbox rows sent (one UPDATE per chunk) in the caller's transaction; returns rows changed.

    Sent: the player's code (if any) left with the mail, so its `outbox_mail.raw` becomes the redacted `keep_raw`
    (a statement that changes only the rows of the few mails that carried a code).  The mails' bytes are not
    written again: they are not in the row whose status changes (migration 0022).

    Sent wins: a row `pbem game abandon` withdrew (`outbox.withdraw`) after the sender had read it went out all the
    same, so it is marked sent too (walk9: it stayed "withdrawn", a record saying the mail never went).
    """
    todo = sorted(set(ids))
    c = OutboxMessage.__table__.c  # type: ignore[attr-defined]
    m = OutboxMail.__table__.c  # type: ignore[attr-defined]
    changed = 0
    for start in range(0, len(todo), FOLD_CHUNK):
        chunk = todo[start : start + FOLD_CHUNK]
        queued = select(c.id).where(c.id.in_(chunk), c.status.in_(UNSENT))
        conn.execute(
            OutboxMail.__table__.update()  # type: ignore[attr-defined]
            .where(m.id.in_(chunk), m.keep_raw.is_not(None), m.id.in_(queued))
            .values(raw=m.keep_raw, keep_raw=None, checksum=None)  # sent: never checked again
        )
        res = conn.execute(
            OutboxMessage.__table__.update()  # type: ignore[attr-defined]
            .where(c.id.in_(chunk), c.status.in_(UNSENT))
            .values(status="sent", sent_at=when, last_error="", attempts=c.attempts + 1)
        )
        changed += res.rowcount or 0
    if witness is not None and todo:  # over IMAP: their digests, for the server's witness (`pbem.app.sent_witness`)
        from pbem.record.sent_witness import note_sent

        note_sent(conn, todo, witness)
    return changed


def _alive(path: Path) -> bool:
    """Is the process that writes this journal still running?  (Another host's: assume it is.)"""
    parts = path.name.removesuffix(SUFFIX).rsplit("-", 2)
    if len(parts) != 3 or not parts[1].isdigit():
        return False  # not written by SentLog: fold it and remove it
    if parts[0] != socket.gethostname():
        return True
    return running(int(parts[1]))


def read_ids(path: Path) -> set[int]:
    try:
        text = _read_regular(path)[0].decode("utf-8", "replace")
    except FileNotFoundError:
        return set()
    except NotRegular:  # a FIFO, a link to a device: no journal of pbem's
        log.warning("%s is not a regular file: it was not read as a journal of mails sent (remove it)", path)
        return set()
    return {int(line) for line in text.split() if is_id(line)}  # a torn last line is not an id


def is_id(word: str) -> bool:
    """Whether a word of a journal or the ledger is an outbox id: ASCII digits, at most 18 (a SQLite INTEGER).
    `str.isdigit` alone took "²" and "٣", which `int` refuses, and any number of digits: a ledger line of 19 digits
    ended the run that folds it in OverflowError, of 5,000 in ValueError (Python's limit), a traceback (costs23)."""
    return word.isascii() and word.isdigit() and len(word) <= 18


def others(directory: Path, mine: Path | None = None) -> list[tuple[Path, bool]]:
    """Journals of other runs, each with whether its writer is still alive."""
    if not directory.is_dir():
        return []
    return [(p, _alive(p)) for p in sorted(directory.glob(f"*{SUFFIX}")) if p != mine]

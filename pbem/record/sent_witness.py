"""The record's side of the witness of mails sent that survives the machine (`pbem.app.sent_witness`).

A home's ledger of mails sent (`pbem.record.sentlog.LEDGER`) is a file of the home: a machine lost takes it along,
and a database restored from a backup on another machine held as waiting the mails that were waiting when it was
saved, and sent them a second time.  Over IMAP each run that sent mail also leaves on the mail server, in a folder
of pbem's own, one small message naming what it sent (`body`): a digest of each mail's Message-ID (`digest`, the
first 16 hex digits of its SHA-256: the Message-IDs themselves name seats, and stay off the server).  Over Maildir
the `sent` folder is that witness itself.

Here: the digests a fold marks sent, kept in the home (`UNWITNESSED`) until a run hands them to the server (a run
killed before that leaves them for the next); the mails waiting in a restored database, the newest one it holds as
sent, and the `held` status a restored home gives the waiting mails it cannot prove unsent, with the commands that
release them or drop them (mark them sent).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.engine import Connection

from pbem.record.models import OutboxMessage

UNWITNESSED = "unwitnessed"  # in `outbox-sent/`: digests sent and not yet on the server's witness folder
MOST_BYTES = 4 << 20  # the file's bound: past it, no digest is added (the log says so; a restore holds those)
HELD = "held"  # an outbox status: waiting when a database was restored, not proved unsent; `pbem outbox release`
CHUNK = 500
HEADER = b"pbem sent-ids 1\n"  # the first line of a witness message's body
#: The first line of a message naming the mails a run is about to send (months8): written before the SMTP server is
#: given any, so a machine lost before the run's end leaves them named as maybe sent (a restore holds them)
SENDING = b"pbem sending-ids 1\n"


def digest(message_id: str) -> str:
    return hashlib.sha256(message_id.strip().encode("utf-8", "replace")).hexdigest()[:16]


def body(digests: Iterable[str], header: bytes = HEADER) -> bytes:
    return header + "".join(f"{d}\n" for d in digests).encode("ascii")


def read_body(raw: bytes, header: bytes = HEADER) -> set[str]:
    """The digests a witness message's text names (none: not one of pbem's); `header=SENDING`: those a message
    written before sending names."""
    start = raw.find(header.strip())  # (a server gives the lines back ending in CRLF)
    if start < 0:
        return set()
    words = raw[start + len(header.strip()) :].split()
    return {w.decode("ascii") for w in words if len(w) == 16 and all(c in b"0123456789abcdef" for c in w)}


def note_sent(conn: Connection, ids: list[int], directory: Path) -> None:
    """The digests of the mails `ids` that are sent now, added to `UNWITNESSED` in `directory` (the caller's
    transaction reads them).  A file that cannot be written loses only the witness of these mails."""
    c = OutboxMessage.__table__.c  # type: ignore[attr-defined]
    found: list[str] = []
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        found += [
            digest(str(m))
            for m in conn.execute(select(c.message_id).where(c.id.in_(chunk), c.status == "sent")).scalars()
        ]
    if not found:
        return
    path = directory / UNWITNESSED
    try:
        if path.exists() and path.stat().st_size > MOST_BYTES:
            import logging

            logging.getLogger("pbem").warning("%s is past %d bytes: these mails are not witnessed", path, MOST_BYTES)
            return
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_CLOEXEC", 0), 0o600)
        try:
            os.write(fd, "".join(f"{d}\n" for d in found).encode("ascii"))
        finally:
            os.close(fd)
    except OSError:
        pass


def taken(directory: Path) -> tuple[list[Path], list[str]]:
    """The unwitnessed digests, their file renamed aside (a run killed later leaves it for the next), and every
    file taken aside before: the files and the digests, each once."""
    import contextlib

    path = directory / UNWITNESSED
    with contextlib.suppress(OSError):
        path.rename(directory / f"{UNWITNESSED}.{os.getpid()}.taking")
    files = sorted(directory.glob(f"{UNWITNESSED}.*.taking"))
    seen: dict[str, None] = {}
    for f in files:
        try:
            with open(f, "rb") as fh:
                text = fh.read(MOST_BYTES + 1)
        except OSError:
            continue
        seen.update(dict.fromkeys(read_body(HEADER + text)))
    return files, list(seen)


def waiting(conn: Connection) -> list[tuple[int, str]]:
    """The mails waiting to be sent (id, Message-ID)."""
    c = OutboxMessage.__table__.c  # type: ignore[attr-defined]
    rows = conn.execute(select(c.id, c.message_id).where(c.status == "queued").order_by(c.id))
    return [(int(i), str(m)) for i, m in rows]


def newest_sent(conn: Connection) -> tuple[str, datetime] | None:
    """The newest mail the record holds as sent (Message-ID, sent time), or None: it sent none."""
    c = OutboxMessage.__table__.c  # type: ignore[attr-defined]
    row = conn.execute(
        select(c.message_id, c.sent_at).where(c.status == "sent", c.sent_at.is_not(None)).order_by(c.sent_at.desc())
    ).first()
    return (str(row[0]), row[1]) if row else None


def hold(conn: Connection, ids: list[int]) -> int:
    c = OutboxMessage.__table__.c  # type: ignore[attr-defined]
    done = 0
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        res = conn.execute(
            OutboxMessage.__table__.update()  # type: ignore[attr-defined]
            .where(c.id.in_(chunk), c.status == "queued")
            .values(status=HELD)
        )
        done += res.rowcount or 0
    return done


def held(conn: Connection, ids: Iterable[int] | None = None) -> list[int]:
    """The held mails' ids (of `ids`, or all)."""
    c = OutboxMessage.__table__.c  # type: ignore[attr-defined]
    q = select(c.id).where(c.status == HELD).order_by(c.id)
    if ids is not None:
        q = q.where(c.id.in_(sorted(set(ids))))
    return [int(i) for i in conn.execute(q).scalars()]


def release(conn: Connection, ids: list[int], when: datetime) -> None:
    """Held mails queued again: the next poll sends them."""
    c = OutboxMessage.__table__.c  # type: ignore[attr-defined]
    for start in range(0, len(ids), CHUNK):
        conn.execute(
            OutboxMessage.__table__.update()  # type: ignore[attr-defined]
            .where(c.id.in_(ids[start : start + CHUNK]), c.status == HELD)
            .values(status="queued", next_attempt_at=when)
        )


def held_count(conn: Connection) -> int:
    """How many mails are held (counted in the status index)."""
    from sqlalchemy import func

    c = OutboxMessage.__table__.c  # type: ignore[attr-defined]
    return int(conn.execute(select(func.count()).where(c.status == HELD)).scalar() or 0)

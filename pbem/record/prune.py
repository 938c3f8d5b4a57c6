"""`pbem prune`'s reading and writing of the record: the games ended long ago, and their sent mails' bytes dropped.

The outbox kept the text of every mail sent, whole: 89% of a home's database after half a year
(`benchmarks/months.py`).  For the games over or abandoned before a time, each mail sent keeps its row (its
Message-ID, recipient, purpose, player, times) with the SHA-256 of its stored bytes (`digest`) and when they were
dropped (`pruned_at`, migration 0021); its bytes (`outbox_mail.raw`, migration 0022) become empty.  Nothing else reads a sent mail's bytes but the poll's
reading of a reply to it (`pbem.record.answered`: the copy of that mail inside the reply is left out): a reply to
a pruned mail is still known by its Message-ID, and answered "the game is over" as before; its quoted copy is
read as chatter.  The chain, the events, the inbound mail and therefore `pbem export` and `pbem verify` do not read
the outbox (docs/performance.md, the months2 section).  Mails queued, or given up on (`failed`), are left whole.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import func, select
from sqlmodel import Session

from pbem.record import models
from pbem.record.store import CONTROL, aware

_O = models.OutboxMessage.__table__  # type: ignore[attr-defined]
_M = models.OutboxMail.__table__  # type: ignore[attr-defined]
_SENT = _O.join(_M, _M.c.id == _O.c.id)  # each mail's row and its bytes (migration 0022)
_G = models.Game.__table__.c  # type: ignore[attr-defined]
_S = models.Snapshot.__table__.c  # type: ignore[attr-defined]
_C = models.ControlAction.__table__.c  # type: ignore[attr-defined]


def _whole(c: Any) -> tuple[Any, ...]:
    """A sent mail still whole (not pruned; a schema downgraded and upgraded again forgot `pruned_at`: its empty
    bytes are not pruned twice)."""
    return (c.status == "sent", c.pruned_at.is_(None), func.length(_M.c.raw) > 0)


CHUNK = 200  # mails read and emptied per statement: a report with its pictures is about 26 KB


@dataclass(frozen=True)
class Ended:
    """A game over or abandoned, and since when."""

    id: int
    name: str
    state: str  # over, abandoned
    since: datetime


def ended_before(s: Session, before: datetime, among: set[int] | None = None) -> list[Ended]:
    """The games over (their newest snapshot, and its time) or abandoned (the newest of pause, resume and abandon
    is an abandon, and its time) at or before `before`, oldest first; with `among`, of those games only (the
    poll's upkeep look, `pbem.record.upkeep.prunable`).  Three index probes a game: a command the moderator runs now
    and then, not the poll."""
    conn = s.connection()
    out: list[Ended] = []
    query = select(_G.id, _G.name).order_by(_G.id)
    if among is not None:
        query = query.where(_G.id.in_(sorted(among)))
    for gid, name in conn.execute(query).all():
        snap = conn.execute(
            select(_S.over, _S.created_at).where(_S.game_id == gid).order_by(_S.seq.desc()).limit(1)
        ).first()
        if snap is not None and snap[0]:
            state, since = "over", aware(snap[1])
        else:
            last = conn.execute(
                select(_C.action, _C.created_at)
                .where(_C.game_id == gid, _C.action.in_(CONTROL))
                .order_by(_C.id.desc())
                .limit(1)
            ).first()
            if last is None or last[0] != "abandon":
                continue
            state, since = "abandoned", aware(last[1])
        if since is not None and since <= before:
            out.append(Ended(int(gid), str(name), state, since))
    return out


def unpruned(s: Session, game_id: int) -> tuple[int, int]:
    """How many sent mails of the game still hold their bytes, and how many bytes (a dry run's count)."""
    c = _O.c
    row = (
        s.connection()
        .execute(
            select(func.count(), func.coalesce(func.sum(func.length(_M.c.raw)), 0))
            .select_from(_SENT)
            .where(*_whole(c), c.game_id == game_id)
        )
        .one()
    )
    return int(row[0]), int(row[1])


def prune_sent(s: Session, game_id: int, when: datetime) -> tuple[int, int]:
    """Empty the bytes of every mail sent in the game not yet pruned, keeping their SHA-256; in the caller's
    transaction.  Returns (mails, bytes dropped)."""
    c = _O.c
    conn = s.connection()
    mails = dropped = 0
    after = 0
    while True:
        rows = conn.execute(
            select(c.id, _M.c.raw)
            .select_from(_SENT)
            .where(*_whole(c), c.game_id == game_id, c.id > after)
            .order_by(c.id)
            .limit(CHUNK)
        ).all()
        if not rows:
            return mails, dropped
        for mid, raw in rows:
            data = bytes(raw or b"")
            conn.execute(_M.update().where(_M.c.id == mid).values(raw=b"", keep_raw=None, checksum=None))
            conn.execute(_O.update().where(c.id == mid).values(digest=hashlib.sha256(data).hexdigest(), pruned_at=when))
            mails, dropped = mails + 1, dropped + len(data)
        after = int(rows[-1][0])


def vacuum(file: Path, seconds: float) -> tuple[int, int]:
    """VACUUM the SQLite database `file` (the caller holds the poll lock): its bytes before and after.  Past
    `seconds` SQLite is interrupted (a progress handler) and the file is left as it was: VACUUM is one transaction.
    Raises TimeoutError then, sqlite3.Error for a database that cannot be vacuumed (busy, or a disk too full for the
    copy VACUUM writes)."""
    import sqlite3
    import time

    before = file.stat().st_size
    end = time.monotonic() + seconds
    conn = sqlite3.connect(file, timeout=min(30.0, max(seconds, 0.1)), isolation_level=None)
    try:
        conn.set_progress_handler(lambda: int(time.monotonic() > end), 10_000)
        try:
            conn.execute("VACUUM")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # a WAL file: the shorter file written back now
        except sqlite3.OperationalError as exc:
            if "interrupt" in str(exc).lower():
                raise TimeoutError(f"VACUUM stopped after {seconds:.0f} s; the file is as it was") from None
            raise
    finally:
        conn.close()
    return before, file.stat().st_size


PG_TABLES = ("outbox_mail", "outbox")  # the tables a prune rewrites (the mails' text, their digests)


def pg_vacuum(url: str, seconds: float) -> tuple[int, int]:
    """Plain VACUUM (ANALYZE) of `PG_TABLES` on PostgreSQL: the space of the rows a prune replaced is reusable by new
    rows at once (autovacuum would get to it later), and each table's empty pages at its end go back to the disk.
    It takes no lock a poll waits on (SHARE UPDATE EXCLUSIVE: reads and writes go on), so no poll lock is taken.
    Stopped after `seconds` (`statement_timeout`: TimeoutError, nothing lost).  The tables' bytes before and after.
    VACUUM FULL, which gives the rest back, rewrites each table under an ACCESS EXCLUSIVE lock that every poll
    would wait on for as long: it is left to the moderator (README, Pruning)."""
    from sqlalchemy import text
    from sqlalchemy.exc import OperationalError

    from pbem.record.db import engine_for

    sizes = " + ".join(f"pg_total_relation_size('{t}')" for t in PG_TABLES)
    with engine_for(url).connect() as conn:
        conn = conn.execution_options(isolation_level="AUTOCOMMIT")  # VACUUM runs outside a transaction
        before = int(conn.execute(text(f"SELECT {sizes}")).scalar() or 0)
        conn.execute(text(f"SET statement_timeout = {max(1, int(seconds * 1000))}"))
        try:
            conn.execute(text(f"VACUUM (ANALYZE) {', '.join(PG_TABLES)}"))
        except OperationalError as exc:
            if "statement timeout" in str(exc):
                raise TimeoutError(f"VACUUM stopped after {seconds:.0f} s; nothing is lost") from None
            raise
        finally:
            conn.execute(text("RESET statement_timeout"))
        after = int(conn.execute(text(f"SELECT {sizes}")).scalar() or 0)
    return before, after

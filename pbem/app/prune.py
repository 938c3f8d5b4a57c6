"""`pbem prune`: the text of the mails sent in games over or abandoned long ago dropped, what identifies them kept.

A home's database kept every mail it sent, whole, for ever (28 MB a month for 8 running games, 89% of the
database: `benchmarks/months.py`).  For each game over or abandoned more than `older_than` ago, each sent mail keeps
its Message-ID, recipient, purpose and times, and the SHA-256 of the bytes dropped (`pbem.record.prune`, migration
0021).  What still works after it, and why (README "Pruning the mail sent", docs/performance.md): `pbem export` and
`pbem verify` of the export (the chain, the events and the inbound mail are untouched), `pbem verify --mail` of a
player's mailbox (it reads the mailbox against the export, never the outbox), a reply to a pruned mail (known by its
Message-ID; answered that the game is over).  One game per transaction: a prune stopped half-way keeps what it did.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from pbem.home.app import Home
from pbem.record import prune as pruning
from pbem.record.schema import sqlite_file


@dataclass(frozen=True)
class Pruned:
    """What one `pbem prune` did (or, dry, would do)."""

    games: tuple[str, ...]  # the games whose sent mails it emptied (or had none left to)
    mails: int
    freed: int  # bytes of mail text dropped
    sqlite: str | None  # the SQLite file (for VACUUM advice), None on PostgreSQL


def prune(home: Home, older_than: timedelta, when: datetime, dry_run: bool = False) -> Pruned:
    """Drop the text of the mails sent in every game over or abandoned at least `older_than` before `when`."""
    with home.units() as s:
        ended = pruning.ended_before(s, when - older_than)
    mails = freed = 0
    for game in ended:
        with home.units() as s:
            if dry_run:
                m, b = pruning.unpruned(s, game.id)
            else:
                m, b = pruning.prune_sent(s, game.id, when)
                s.commit()
        mails, freed = mails + m, freed + b
    file = sqlite_file(home.cfg.database_url)
    if file is not None and mails and not dry_run:  # the text dropped: free pages, told while they last
        from pbem.record.upkeep import keep_free_left

        keep_free_left(home.cfg.database_url)
    return Pruned(tuple(g.name for g in ended), mails, freed, str(file) if file is not None else None)


def said(p: Pruned, older_than: str, dry_run: bool) -> list[str]:
    """What `pbem prune` prints: what it gave back, then how the database file gives it back to the disk."""
    verb = "would drop" if dry_run else "dropped"
    head = (
        f"{len(p.games)} game(s) over or abandoned more than {older_than} ago: {verb} the text of {p.mails} sent "
        f"mail(s), {p.freed / 1e6:.1f} MB; each keeps its Message-ID, recipient and SHA-256"
    )
    if dry_run or not p.mails:
        return [head]
    if p.sqlite is not None:
        advice = (
            "the database file keeps its size: SQLite reuses the freed pages for new mail.  To give them back to the "
            f"disk now ({p.sqlite}; as much free space as the file takes): pbem prune --vacuum, which holds the poll lock"
        )
    else:
        advice = (
            "PostgreSQL reuses the space once the tables are vacuumed (autovacuum, or now: pbem prune --vacuum, "
            "which no poll waits on)"
        )
    return [head, advice]


def vacuumed(home: Home, seconds: float) -> str:
    """`pbem prune --vacuum`: the SQLite file's free pages given back to the disk (VACUUM), with the poll lock held so
    no poll writes meanwhile, within `seconds`; what it did.  Raises `Busy` when a poll holds the lock."""
    from pbem.app.polllock import Lock

    file = sqlite_file(home.cfg.database_url)
    if file is None:  # PostgreSQL: a plain VACUUM, which no poll waits on (no poll lock; `pruning.pg_vacuum`)
        before, after = pruning.pg_vacuum(home.cfg.database_url, seconds)
        return (
            f"VACUUM (ANALYZE) outbox_mail, outbox: {before / 1e6:.1f} MB to {after / 1e6:.1f} MB; the pruned text's "
            "space is reused by new mail from now on (PostgreSQL gives back to the disk only a table's empty end; "
            "VACUUM FULL outbox_mail gives back the rest, but every poll waits on its lock while it rewrites the "
            "table: run it by hand, cron stopped, if the disk needs it)"
        )
    lock = Lock(home.cfg.home, home.cfg.poll_deadline)
    if (refused := lock.take()) is not None:  # (a move-record's holder named: walk12)
        held = refused.why or "a pbem poll is running on this home"
        raise Busy(f"{held}: nothing was vacuumed; run pbem prune --vacuum again later")
    try:
        before, after = pruning.vacuum(file, seconds)
        from pbem.record.upkeep import keep_free_left

        keep_free_left(home.cfg.database_url)  # none left now: the mark emptied
    finally:
        lock.close()
    return f"VACUUM: {file} went from {before / 1e6:.1f} MB to {after / 1e6:.1f} MB (the poll lock was held)"


class Busy(Exception):
    """The poll lock is held by a running poll."""

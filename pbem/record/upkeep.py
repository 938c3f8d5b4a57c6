"""What the home's upkeep look reads of the record (`pbem.app.upkeep`): the games whose open step's deadline was
extended again and again, and the sent mail `pbem prune` could drop.  A look runs at most every few hours
(`pbem.app.upkeep.EVERY`), never on an idle poll; each game costs a few index probes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlmodel import Session

from pbem.record import models
from pbem.record.listing import in_a_row
from pbem.record.prune import ended_before, unpruned

_D = models.Deadline.__table__.c  # type: ignore[attr-defined]
_G = models.Game.__table__.c  # type: ignore[attr-defined]
_DUE = models.Due.__table__.c  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Extended:
    """A game whose open step's deadline was moved `times` times in a row by the moderator (`pbem game extend`,
    EXTEND by mail), first due `first_due`, now `due`."""

    game: str
    step: str
    times: int
    first_due: datetime
    due: datetime


def extended(s: Session, least: int) -> list[Extended]:
    """The games with an open deadline (a `deadline` row of `due` not done) whose newest `least` or more deadline
    rows are extensions of the same step."""
    conn = s.connection()
    stretched = (  # the games with `least` extensions at all: one pass over the deadlines in SQL, not a query a game
        select(_D.game_id).where(_D.reason.like("extended%")).group_by(_D.game_id).having(func.count() >= least)
    )
    games = conn.execute(
        select(_G.id, _G.name)
        .where(
            _G.id.in_(stretched),
            _G.id.in_(select(_DUE.game_id).where(_DUE.kind == "deadline", _DUE.done.is_(False))),
        )
        .order_by(_G.id)
    ).all()
    out: list[Extended] = []
    for gid, name in games:
        row = in_a_row(s, gid)
        if not row:
            continue
        step, times, first, due = row
        if times >= least and step is not None and due is not None and first is not None:
            out.append(Extended(str(name), step, times, first, due))
    return out


def free_pages(s: Session) -> int:
    """Bytes of an SQLite database's free pages (its freelist: what `pbem upgrade` and `pbem prune` left, and what
    a poll's sent mail leaves for the next poll's, reused for new rows but never given back to the disk without
    VACUUM); 0 on PostgreSQL."""
    return _free_bytes(s.connection())


def _free_bytes(conn: Any) -> int:
    if conn.dialect.name != "sqlite":
        return 0
    pages = conn.exec_driver_sql("PRAGMA freelist_count").scalar() or 0
    size = conn.exec_driver_sql("PRAGMA page_size").scalar() or 0
    return int(pages) * int(size)


def keep_free_left(url: str) -> None:
    """After `pbem upgrade` or `pbem prune`: the SQLite file's free pages kept as the mark `FREE_LEFT`, which the
    upkeep look lowers to the least it finds since and tells of while they last (`pbem.app.upkeep_look`).  Only
    these are told: the pages a poll's sent mail frees (its sealed bytes replaced by the redacted copy) are the
    home's working set, taken again by the next poll's mail, and a VACUUM would only see the file grow back."""
    from pbem.record import marks
    from pbem.record.db import engine_for

    with engine_for(url).connect() as c:
        left = _free_bytes(c)
        c.rollback()
    marks.remember(url, marks.FREE_LEFT, str(left) if left else "")


def free_left(url: str, now_free: int) -> int:
    """The free pages an upgrade or a prune left that are still free: the least of the mark and `now_free`, the
    mark lowered to it (0, the mark emptied, when none is left or none was kept)."""
    from pbem.record import marks

    try:
        kept = int(marks.recall(url, marks.FREE_LEFT) or 0)
    except ValueError:
        kept = 0
    least = max(0, min(kept, now_free))
    if least != kept:
        marks.remember(url, marks.FREE_LEFT, str(least) if least else "")
    return least


@dataclass(frozen=True)
class Prunable:
    """The games over or abandoned before a time whose sent mail still holds its text, and how much."""

    games: int
    mails: int
    bytes: int


ENDED_LOOKED_AT = 200  # the newest games with nothing due a look examines: its cost does not grow with the home


def prunable(s: Session, before: datetime) -> Prunable:
    """Of the newest `ENDED_LOOKED_AT` games with nothing due (no open row of `due`: over, abandoned, or never
    started), those over or abandoned before `before` whose sent mail holds its text.  A home that ends more games
    than that in 30 days has some among them whenever pruning is due."""
    idle = (
        select(_G.id)
        .where(_G.id.not_in(select(_DUE.game_id).where(_DUE.done.is_(False))))
        .order_by(_G.id.desc())
        .limit(ENDED_LOOKED_AT)
    )
    ids = {int(r[0]) for r in s.connection().execute(idle).all()}
    games = mails = size = 0
    for game in ended_before(s, before, ids):
        n, b = unpruned(s, game.id)
        if n:
            games, mails, size = games + 1, mails + n, size + b
    return Prunable(games, mails, size)

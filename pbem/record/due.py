"""What is due when: the `due` table, and the few statements that write and read it.

One row per thing to do at a time: the deadline of a running game's open step
(`deadline`), and the next look at that step's reminders (`reminder`; the first
at the middle of the step, since no reminder is due before it; see
`pbem.app.deadlines.reminder_times`).  Opening or moving a deadline replaces the
game's open rows (`plan`); pausing, abandoning or ending a game closes them
(`end`), and pausing plans the moderator's weekly reminder (`paused`, `pbem.app.paused`); handling a row closes
it and may set the next look (`handled`).  A poll
finds everything due with one indexed query (`due_now`), and the idle check asks
the same index whether anything is due at all (`anything_due`).  The caller owns
the transaction.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import Connection, bindparam, false, select, update
from sqlmodel import Session

from pbem.record.db import execute, insert
from pbem.record.models import Due

DUE = Due.__table__  # type: ignore[attr-defined]


@dataclass(frozen=True)
class DueRow:
    """An open row of the `due` table, its times aware (UTC)."""

    id: int
    game_id: int
    kind: str  # deadline, reminder, paused (a paused game's weekly reminder to the moderator, `pbem.app.paused`)
    due_at: datetime
    opened_at: datetime
    deadline_at: datetime


PAUSED_EVERY = timedelta(days=7)  # a paused game's reminder to the moderator, weekly (`pbem.app.paused`)


def first_paused(game_id: int, when: datetime) -> DueRow:
    """The row of a game paused at `when`: its first reminder to the moderator, a week on (written after the pause's
    `end`, which closes the game's other rows)."""
    return DueRow(0, game_id, "paused", when + PAUSED_EVERY, when, when)


def _utc(dt: datetime) -> datetime:
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=UTC)


def middle(opened_at: datetime, deadline_at: datetime) -> datetime:
    """The middle of a step: the first moment a reminder may be due."""
    return opened_at + (deadline_at - opened_at) / 2 if deadline_at > opened_at else deadline_at


def plan(s: Session, game_id: int, opened_at: datetime, deadline_at: datetime) -> None:
    """A deadline opened or moved: the game's open rows are replaced by its deadline and the first look."""
    end(s, game_id)
    common = {"game_id": game_id, "opened_at": opened_at, "deadline_at": deadline_at, "done": False}
    insert(
        s.connection(),
        DUE,
        [
            {"kind": "deadline", "due_at": deadline_at, **common},
            {"kind": "reminder", "due_at": middle(opened_at, deadline_at), **common},
        ],
    )


_END = update(DUE).where(DUE.c.game_id == bindparam("gid"), DUE.c.done == false()).values(done=True)


def end(s: Session, game_id: int) -> None:
    """Nothing more is due for this game (paused, abandoned, over, or about to be planned again)."""
    execute(s.connection(), _END, {"gid": game_id})


def handled(s: Session, ids: Iterable[int], again: DueRow | None = None) -> None:
    """Close the rows `ids`; `again` (its id ignored): the next look at the same step's reminders."""
    ids = list(ids)
    if ids:
        s.connection().execute(update(DUE).where(DUE.c.id.in_(ids)).values(done=True))
    if again is not None:
        row = {"game_id": again.game_id, "kind": again.kind, "due_at": again.due_at}
        insert(
            s.connection(), DUE, {**row, "opened_at": again.opened_at, "deadline_at": again.deadline_at, "done": False}
        )


def due_now(s: Session, when: datetime) -> list[DueRow]:
    """Every open row due at `when`, by game and time (one query on the `ix_due_open` index)."""
    q = (
        select(DUE.c.id, DUE.c.game_id, DUE.c.kind, DUE.c.due_at, DUE.c.opened_at, DUE.c.deadline_at)
        .where(DUE.c.done == false(), DUE.c.due_at <= when)
        .order_by(DUE.c.game_id, DUE.c.due_at, DUE.c.id)
    )
    return [
        DueRow(r.id, r.game_id, r.kind, _utc(r.due_at), _utc(r.opened_at), _utc(r.deadline_at))
        for r in s.connection().execute(q)
    ]


def anything_due(conn: Connection, when: datetime) -> bool:
    """Is any row due at `when`?  (The idle check: one probe of the `ix_due_open` index.)"""
    q = select(DUE.c.id).where(DUE.c.done == false(), DUE.c.due_at <= when).limit(1)
    return conn.execute(q).first() is not None

"""The record's answers to the moderator's questions about games: every game, when one was paused, when each
player last wrote.

Plain data out (`Game` rows built as plain values, names, times); the use cases in `pbem.app.games`,
`pbem.app.exports` and `pbem.app.control` call these and build no query.
"""

from __future__ import annotations

from datetime import datetime
from functools import cache
from typing import Any, NamedTuple

from sqlalchemy import select as core_select
from sqlmodel import Session, col, select

from pbem.record import models, rows
from pbem.record.db import fetch
from pbem.record.models import ControlAction
from pbem.record.rows import Game
from pbem.record.store import aware


def all_games(s: Session) -> list[Game]:
    """Every game, oldest first."""
    table = models.Game.__table__  # type: ignore[attr-defined]
    return [rows.Game(**r._mapping) for r in s.connection().execute(select(table).order_by(table.c.id))]


def game_names(s: Session) -> list[str]:
    """Every game's name, oldest first."""
    return list(s.exec(select(models.Game.name).order_by(col(models.Game.id))).all())


class Received(NamedTuple):
    """A mail the record holds for a game, as an export lists it: never its bytes."""

    id: int
    message_id: str
    player: str
    outcome: str
    reason: str
    received_at: datetime


def received(s: Session, game_id: int) -> list[Received]:
    """The game's inbound mails in the order they were read, without their bytes (`pbem export`, and the public
    page every poll that changed the game writes).  Two statements: `received_at` is stored after each mail's
    `raw`, so it is read from the index that holds it (`ix_inbound_game_player_received`, migration 0019), not from
    the rows: reading it there, or loading the rows whole, read every mail the game ever received (costs15)."""
    c = models.InboundMessage.__table__.c  # type: ignore[attr-defined]
    conn = s.connection()
    when: dict[int, datetime] = dict(conn.execute(core_select(c.id, c.received_at).where(c.game_id == game_id)).all())
    q = core_select(c.id, c.message_id, c.player, c.outcome, c.reason).where(c.game_id == game_id).order_by(c.id)
    return [Received(i, m, p, o, r, aware(when[i]) or when[i]) for i, m, p, o, r in conn.execute(q)]


def paused_at(s: Session, game_id: int) -> datetime | None:
    """When the game was last paused (None: never)."""
    q = select(ControlAction.created_at).where(ControlAction.game_id == game_id, ControlAction.action == "pause")
    return aware(s.exec(q.order_by(col(ControlAction.id).desc())).first())


def last_heard(s: Session, game_id: int) -> dict[str, datetime]:
    """When each player last wrote to the game: their newest mail the record holds, whatever became of it (a copy
    delivered twice counts once: duplicates are left out).  `pbem game waiting`'s "last mail"."""
    from sqlalchemy import func

    c = models.InboundMessage.__table__.c  # type: ignore[attr-defined]
    q = (
        select(c.player, func.max(c.received_at))
        .where(c.game_id == game_id, c.player != "", c.outcome != "duplicate")
        .group_by(c.player)
    )
    out: dict[str, datetime] = {}
    for player, at in s.connection().execute(q):
        if (when := aware(at)) is not None:
            out[str(player)] = when
    return out


def deadlines_missed(s: Session, game_id: int) -> dict[str, int]:
    """How many times a deadline applied each player's default orders in the game (its `default-orders` events;
    an undo later does not take one back).  `pbem game waiting`'s "missed"."""
    import json

    c = models.GameEvent.__table__.c  # type: ignore[attr-defined]
    q = select(c.data_json).where(c.game_id == game_id, c.kind == "default-orders")
    out: dict[str, int] = {}
    for (data,) in s.connection().execute(q):
        try:
            player = json.loads(data).get("player")
        except (ValueError, AttributeError):
            continue
        if isinstance(player, str) and player:
            out[player] = out.get(player, 0) + 1
    return out


def given(s: Session, game_id: int) -> dict[str, datetime]:
    """When each current player of the game was given their seat: the first row of the seat's newest run of rows
    with the same player and thread.  A replacement (or the game's start) makes a new thread
    (`pbem.app.control.decide_replace`); a new code and an address move append rows that keep both, so they do not
    give the seat again (judges6: a new code's row was read as a new seat, and a resignation was forgotten).

    Seat rows from before migration 0008 have no thread (""), so a replacement of then that kept the player's
    name is read as part of the seat's first run, and the seat as given earlier than it was.  Harmless (judges7):
    the only question asked of this time is whether a `resign` control row came after it (`resigned`), and no such
    row can predate 0008 (RESIGN came four days after it, and pbem runs on no older schema: `pbem.record.schema`);
    every row written since is later than any replacement of then, so both times give the same answer, and a
    replacement since makes a thread, which starts a new run."""
    t = models.Seat.__table__.c  # type: ignore[attr-defined]
    q = select(t.position, t.player, t.thread, t.created_at).where(t.game_id == game_id).order_by(t.id)
    runs: dict[int, tuple[str, str, datetime]] = {}
    for pos, player, thread, at in s.connection().execute(q):
        start = runs.get(pos)
        if start is None or start[:2] != (player, thread):
            runs[pos] = (player, thread, at)
    return {player: aware(at) or at for player, _, at in runs.values()}


@cache
def _resigns() -> Any:
    """Built once: every reply's reports ask it (`pbem.record.recent`), and building the statement each time cost
    more than running it (1.5 ms a reply, 2% of the poll's instructions)."""
    from sqlalchemy import bindparam, func

    c = models.ControlAction.__table__.c  # type: ignore[attr-defined]
    where = (c.game_id == bindparam("game"), c.action == "resign")
    return select(c.detail, func.max(c.created_at)).where(*where).group_by(c.detail)


def resigned(s: Session, game_id: int) -> dict[str, datetime]:
    """When each current player of the game resigned by mail since they were given their seat (`given`; the newest
    `resign` control row naming them; `pbem.app.resigning`): one probe of the control rows' index when nobody did.
    `pbem game waiting`'s "RESIGNED"; no turn reports nor the game's notices for them (`pbem.app.finish`)."""
    last = {str(player): aware(at) for player, at in fetch(s.connection(), _resigns(), {"game": game_id})}
    if not last:
        return {}
    out: dict[str, datetime] = {}
    for player, since in given(s, game_id).items():
        if (when := last.get(player)) is not None and when >= since:
            out[player] = when
    return out


_D = models.Deadline.__table__.c  # type: ignore[attr-defined]
LOOKED_BACK = 64  # deadline rows of a game read, newest first: past that many extensions the count says "64"
Row = tuple[()] | tuple[str | None, int, datetime | None, datetime | None]


def in_a_row(s: Session, game_id: int) -> Row:
    """The game's newest deadline row's step, how many of its newest rows in a row are extensions of that step (at
    most `LOOKED_BACK`), when that step was first due before them, and when it is due now."""
    rows = (
        s.connection()
        .execute(
            core_select(_D.step, _D.due_at, _D.reason)
            .where(_D.game_id == game_id)
            .order_by(_D.id.desc())
            .limit(LOOKED_BACK)
        )
        .all()
    )
    if not rows:
        return None, 0, None, None
    step, due = str(rows[0][0]), aware(rows[0][1])
    times, first = 0, due
    for row_step, row_due, reason in rows:
        if str(row_step) != step:
            break
        first = aware(row_due)
        if not str(reason).startswith("extended"):
            break
        times += 1
    return step, times, first, due

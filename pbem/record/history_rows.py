"""The rows a HISTORY answer prints, and no others (`pbem.app.histories`; costs8).

A player's HISTORY holds at most a mail's worth of events, the latest the player may see of the whole game or of
one turn.  These reads cost that answer, not the game's length: `latest_seen` walks the game's events newest first
by their key ``(game_id, seq)`` and stops once it holds one more than the mail prints (so the answer knows that
earlier ones were left out); the turn's bounds come from the scoring events (each engine's public ``"scores"``
event closes a turn, hand or gambit) by the index ``ix_events_game_kind_seq``: the first, the last, the k-th, the
one before a position.  Only a game whose scoring events are not numbered 1, 2, 3... in order is read whole
(`scorings`), to find the one numbered as asked.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from sqlalchemy import and_, bindparam, func, not_, or_, select
from sqlmodel import Session

from pbem.record import models

_EVENTS = models.GameEvent.__table__  # type: ignore[attr-defined]
_GID: Any = bindparam("gid")
SCORES = "scores"  # the kind of the event closing a turn (`pbem.engine.declare`)
PUBLIC = json.dumps("public")  # an event everyone sees, as `visibility_json` holds it

#: A scoring event: its position and its data (JSON text).
Scoring = tuple[int, str]
#: An event as the answer prints it: (seq, input_seq, kind, text, visibility_json, data_json).
Row = tuple[int, int, str, str, str, str]

_COLUMNS = (_EVENTS.c.seq, _EVENTS.c.input_seq, _EVENTS.c.kind, _EVENTS.c.text, _EVENTS.c.visibility_json,
            _EVENTS.c.data_json)  # fmt: skip
_SCORING = select(_EVENTS.c.seq, _EVENTS.c.data_json).where(_EVENTS.c.game_id == _GID, _EVENTS.c.kind == SCORES)


def _like(name: str) -> str:
    """A LIKE pattern matching a visibility list that holds `name` (as `json.dumps` writes it), "!" escaping."""
    quoted = json.dumps(name).replace("!", "!!").replace("%", "!%").replace("_", "!_")
    return f"%{quoted}%"


def latest_seen(
    s: Session, game_id: int, names: tuple[str, ...], most: int, *, after: int = 0, upto: int | None = None,
    setup_below: int | None = None, visible: Callable[[str], bool] | None = None,
) -> list[Row]:  # fmt: skip
    """At most `most` of the events after `after` (up to `upto`) that a reader known by `names` may see, newest
    first; with `setup_below`, not the set-up's (input 0) before that position.  `visible(visibility_json)` says
    exactly whether the reader sees an event (the SQL test only narrows: LIKE may match a longer name too)."""
    seen = or_(
        _EVENTS.c.visibility_json == PUBLIC, *(_EVENTS.c.visibility_json.like(_like(n), escape="!") for n in names)
    )
    where = [_EVENTS.c.game_id == game_id, _EVENTS.c.seq > after, seen]
    if setup_below is not None:
        where.append(not_(and_(_EVENTS.c.input_seq == 0, _EVENTS.c.seq < setup_below)))
    out: list[Row] = []
    conn = s.connection()
    while len(out) < most:
        bounded = [*where, _EVENTS.c.seq <= upto] if upto is not None else where
        page = conn.execute(select(*_COLUMNS).where(*bounded).order_by(_EVENTS.c.seq.desc()).limit(most)).all()
        out += [tuple(r) for r in page if visible is None or visible(r[4])]
        if len(page) < most:
            break
        upto = page[-1][0] - 1
    return out[:most]


def scoring(s: Session, game_id: int, *, last: bool = False) -> Scoring | None:
    """The game's first (or last) scoring event."""
    order = _EVENTS.c.seq.desc() if last else _EVENTS.c.seq
    row = s.connection().execute(_SCORING.order_by(order).limit(1), {"gid": game_id}).first()
    return (row[0], row[1]) if row else None


def nth_scoring(s: Session, game_id: int, k: int) -> Scoring | None:
    """The game's `k`-th scoring event (1: the first)."""
    if k < 1:
        return None
    row = s.connection().execute(_SCORING.order_by(_EVENTS.c.seq).offset(k - 1).limit(1), {"gid": game_id}).first()
    return (row[0], row[1]) if row else None


def scoring_before(s: Session, game_id: int, seq: int) -> int:
    """The position of the last scoring event before `seq`, 0 if none."""
    q = select(func.max(_EVENTS.c.seq)).where(_EVENTS.c.game_id == _GID, _EVENTS.c.kind == SCORES, _EVENTS.c.seq < seq)
    return int(s.connection().execute(q, {"gid": game_id}).scalar() or 0)


def scorings_count(s: Session, game_id: int, *, before: int | None = None) -> int:
    """How many scoring events the game has (before position `before`): counted in the index."""
    q = select(func.count()).where(_EVENTS.c.game_id == _GID, _EVENTS.c.kind == SCORES)
    if before is not None:
        q = q.where(_EVENTS.c.seq < before)
    return int(s.connection().execute(q, {"gid": game_id}).scalar() or 0)


def scorings(s: Session, game_id: int) -> list[Scoring]:
    """Every scoring event of the game, in order (a game whose numbering is not its order)."""
    return [(r[0], r[1]) for r in s.connection().execute(_SCORING.order_by(_EVENTS.c.seq), {"gid": game_id})]

"""The rows a HISTORY answer prints, and no others (`pbem.app.histories`; costs8).

A player's HISTORY holds at most a mail's worth of events, the latest the player may see of the whole game or of
one turn.  These reads cost that answer, not the game's length: `latest_seen` reads the events the reader may see
newest first by the key of `event_readers` ``(game_id, reader, seq)``, never those hidden from them, and stops once
it holds one more than the mail prints (so the answer knows that earlier ones were left out); the turn's bounds come from the scoring events (each engine's public ``"scores"``
event closes a turn, hand or gambit) by the index ``ix_events_game_kind_seq``: the first, the last, the k-th, the
one before a position.  Only a game whose scoring events are not numbered 1, 2, 3... in order is read whole
(`scorings`), to find the one numbered as asked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import bindparam, func, select
from sqlmodel import Session

from pbem.record import models

_EVENTS = models.GameEvent.__table__  # type: ignore[attr-defined]
_READERS = models.EventReader.__table__  # type: ignore[attr-defined]
EVERYONE = models.EVERYONE
_GID: Any = bindparam("gid")
SCORES = "scores"  # the kind of the event closing a turn (`pbem.engine.declare`)

#: A scoring event: its position and its data (JSON text).
Scoring = tuple[int, str]
#: An event as the answer prints it: (seq, input_seq, kind, text, visibility_json, data_json).
Row = tuple[int, int, str, str, str, str]

_COLUMNS = (_EVENTS.c.seq, _EVENTS.c.input_seq, _EVENTS.c.kind, _EVENTS.c.text, _EVENTS.c.visibility_json,
            _EVENTS.c.data_json)  # fmt: skip
_SCORING = select(_EVENTS.c.seq, _EVENTS.c.data_json).where(_EVENTS.c.game_id == _GID, _EVENTS.c.kind == SCORES)


_SEEN = (
    select(_READERS.c.seq)
    .where(_READERS.c.game_id == _GID, _READERS.c.reader == bindparam("reader"), _READERS.c.seq > bindparam("after"),
           _READERS.c.seq <= bindparam("upto"))
    .order_by(_READERS.c.seq.desc())
    .limit(bindparam("most"))
)  # fmt: skip
_BY_SEQ = (
    select(*_COLUMNS)
    .where(_EVENTS.c.game_id == _GID, _EVENTS.c.seq.in_(bindparam("seqs", expanding=True)))
    .order_by(_EVENTS.c.seq.desc())
)


def latest_seen(
    s: Session, game_id: int, names: tuple[str, ...], most: int, *, after: int = 0, upto: int | None = None,
    setup_below: int | None = None, visible: Callable[[str], bool] | None = None,
) -> list[Row]:  # fmt: skip
    """At most `most` of the events after `after` (up to `upto`) that a reader known by `names` may see, newest
    first; with `setup_below`, not the set-up's (input 0) before that position; `visible(visibility_json)`, when
    given, checked on each too.  Read by `event_readers`' key, the latest `most` of everyone's and of each name's,
    then those events: the events hidden from the reader are never read.  They were stepped over in SQL (visibility
    is JSON text, which no index reads): 2.3 and 5.7 ms after 5,000 and 20,000 events only another player sees
    (costs10, costs11)."""
    conn = s.connection()
    readers = (EVERYONE, *dict.fromkeys(names))
    top = upto if upto is not None else 2**31 - 1  # the greatest INTEGER (PostgreSQL)
    out: list[Row] = []
    while len(out) < most:
        seqs: set[int] = set()
        for r in readers:
            seqs.update(q for (q,) in conn.execute(_SEEN, {"gid": game_id, "reader": r, "after": after, "upto": top,
                                                           "most": most}))  # fmt: skip
        page = sorted(seqs, reverse=True)[:most]
        if not page:
            break
        rows = conn.execute(_BY_SEQ, {"gid": game_id, "seqs": page}).all()
        out += [
            (r[0], r[1], r[2], r[3], r[4], r[5])
            for r in rows
            if (setup_below is None or r[1] != 0 or r[0] >= setup_below) and (visible is None or visible(r[4]))
        ]
        if len(page) < most:
            break
        top = page[-1] - 1
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

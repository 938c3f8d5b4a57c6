"""What the public site needs from the record: which games changed since it was last written.

A game's public page can change only when its record grows (an input or an event),
when the moderator acts on it (a control row) or when its deadline moves (a deadline
row).  `positions` reads the newest of each for every game in four grouped statements,
so `pbem publish` rewrites only the pages of games that changed.
"""

from __future__ import annotations

from sqlalchemy import func, select
from sqlmodel import Session

from pbem.record.models import ControlAction, Deadline, Game, GameEvent, OrderInput


def positions(s: Session) -> dict[int, tuple[int, int, int, int]]:
    """game id -> (newest input seq, newest event seq, newest control id, newest deadline id); 0 for none."""
    conn = s.connection()
    games = [int(g) for (g,) in conn.execute(select(Game.__table__.c.id))]  # type: ignore[attr-defined]
    found: dict[int, list[int]] = {g: [0, 0, 0, 0] for g in games}
    columns = (
        (OrderInput.__table__.c, "seq"),  # type: ignore[attr-defined]
        (GameEvent.__table__.c, "seq"),  # type: ignore[attr-defined]
        (ControlAction.__table__.c, "id"),  # type: ignore[attr-defined]
        (Deadline.__table__.c, "id"),  # type: ignore[attr-defined]
    )
    for i, (c, name) in enumerate(columns):
        for gid, newest in conn.execute(select(c.game_id, func.max(c[name])).group_by(c.game_id)):
            if gid in found and newest is not None:
                found[gid][i] = int(newest)
    return {g: (p[0], p[1], p[2], p[3]) for g, p in found.items()}


def game_name(s: Session, game_id: int) -> str | None:
    row = s.connection().execute(select(Game.__table__.c.name).where(Game.__table__.c.id == game_id)).first()  # type: ignore[attr-defined]
    return None if row is None else str(row[0])

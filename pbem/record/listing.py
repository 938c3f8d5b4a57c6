"""The record's answers to the moderator's questions about games: every game, when one was paused.

Plain data out (`Game` rows built as plain values, names, times); the use cases in `pbem.app.games`,
`pbem.app.exports` and `pbem.app.control` call these and build no query.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, col, select

from pbem.record import models, rows
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


def paused_at(s: Session, game_id: int) -> datetime | None:
    """When the game was last paused (None: never)."""
    q = select(ControlAction.created_at).where(ControlAction.game_id == game_id, ControlAction.action == "pause")
    return aware(s.exec(q.order_by(col(ControlAction.id).desc())).first())

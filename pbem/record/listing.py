"""The record's answers to the moderator's questions about games: every game, when one was paused, when each
player last wrote.

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


def resigned(s: Session, game_id: int, since: dict[str, datetime]) -> dict[str, datetime]:
    """When each player of `since` (a player: when their seat was given) resigned by mail since then (the newest
    `resign` control row naming them; `pbem.app.resigning`).  `pbem game waiting`'s "RESIGNED"."""
    from sqlalchemy import func

    c = models.ControlAction.__table__.c  # type: ignore[attr-defined]
    q = select(c.detail, func.max(c.created_at)).where(c.game_id == game_id, c.action == "resign").group_by(c.detail)
    out: dict[str, datetime] = {}
    for player, at in s.connection().execute(q):
        given = aware(since.get(str(player)))
        if str(player) in since and (when := aware(at)) is not None and (given is None or when >= given):
            out[str(player)] = when
    return out

"""Mail modes in the record (issue 23): each player's choice and the game's default, newest row wins."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import bindparam, func, select
from sqlmodel import Session

from pbem.record.models import MailMode, OutboxMessage

_T = MailMode.__table__  # type: ignore[attr-defined]
_Q = select(_T.c.player, _T.c.mode).where(_T.c.game_id == bindparam("gid")).order_by(_T.c.id)
NORMAL = "normal"


@dataclass(frozen=True)
class Mailing:
    """A game's mail modes: its default and each player's own choice."""

    default: str = NORMAL
    players: dict[str, str] = field(default_factory=dict)

    def modes(self) -> dict[str, str]:
        """Each player's mode, and under "" the game's default (as `pbem.app.notify.told` takes them)."""
        return {"": self.default, **self.players}


def mailing(s: Session, game_id: int) -> Mailing:
    """The game's modes (one indexed scan of the game's few rows)."""
    default, players = NORMAL, {}
    for player, mode in s.connection().execute(_Q, {"gid": game_id}).all():
        if player:
            players[player] = mode
        else:
            default = mode
    return Mailing(default, players)


def set_mode(s: Session, game_id: int, player: str, mode: str, when: datetime) -> None:
    """Record `player`'s mode ("" : the game's default) in the caller's transaction."""
    s.connection().execute(_T.insert(), [dict(game_id=game_id, player=player, mode=mode, created_at=when)])


_O = OutboxMessage.__table__.c  # type: ignore[attr-defined]
_Q_LAST = (
    select(_O.player, func.max(_O.created_at))
    .where(_O.game_id == bindparam("gid"), _O.purpose == "report", _O.player.in_(bindparam("players", expanding=True)))
    .group_by(_O.player)
)


def last_reports(s: Session, game_id: int, players: list[str]) -> dict[str, datetime]:
    """When each of `players` was last sent a report in the game (the index on game, purpose, player)."""
    if not players:
        return {}
    rows = s.connection().execute(_Q_LAST, {"gid": game_id, "players": sorted(set(players))}).all()
    return {p: when for p, when in rows if when is not None}

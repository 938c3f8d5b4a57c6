"""Mail modes in the record (issue 23): each player's choice and the game's default, newest row wins."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import bindparam, func, select
from sqlmodel import Session

from pbem.record.db import fetch, insert
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
    for player, mode in fetch(s.connection(), _Q, {"gid": game_id}):
        if player:
            players[player] = mode
        else:
            default = mode
    return Mailing(default, players)


def set_mode(s: Session, game_id: int, player: str, mode: str, when: datetime) -> None:
    """Record `player`'s mode ("" : the game's default) in the caller's transaction."""
    insert(s.connection(), _T, [dict(game_id=game_id, player=player, mode=mode, created_at=when)])


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


def digest_players(s: Session) -> dict[int, list[str]]:
    """For each game with any DIGEST choice (a player's own, or the game's default), its seated players
    whose mode is DIGEST.  One scan of the mode rows (a few per game that chose any), then one of those
    games' seats; a home where nobody chose DIGEST reads no seat and loads no game."""
    from pbem.record.models import Seat

    having = select(_T.c.game_id).where(_T.c.mode == "digest").distinct().scalar_subquery()
    q = select(_T.c.game_id, _T.c.player, _T.c.mode).where(_T.c.game_id.in_(having)).order_by(_T.c.id)
    chosen: dict[int, dict[str, str]] = {}
    for gid, player, mode in s.connection().execute(q).all():
        chosen.setdefault(gid, {})[player] = mode  # the newest row wins
    wanted = [gid for gid, m in chosen.items() if "digest" in m.values()]
    if not wanted:
        return {}
    seats = Seat.__table__  # type: ignore[attr-defined]
    out: dict[int, list[str]] = {}
    sq = select(seats.c.game_id, seats.c.player).where(seats.c.game_id.in_(bindparam("gids", expanding=True)))
    for gid, player in s.connection().execute(sq, {"gids": sorted(wanted)}).all():
        mine = chosen[gid]
        if mine.get(player, mine.get("", NORMAL)) == "digest" and player not in out.get(gid, []):
            out.setdefault(gid, []).append(player)
    return {gid: sorted(ps) for gid, ps in out.items()}

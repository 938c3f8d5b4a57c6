"""How long a game, or one seat, has gone without a mail from its players: what `pbem.app.silence` counts.

Plain data out.  Each statement reads one game's rows by an index that starts with the game (inbound mail by
`ix_inbound_game_player_received`, the control rows by `ix_control_game_action_id`, the deadline inputs by the
orders' key, the `default-orders` events by `ix_events_game_kind_seq`); only a deadline being applied asks them.
"""

from __future__ import annotations

import json
from datetime import datetime

from sqlalchemy import func, select
from sqlmodel import Session

from pbem.record import models
from pbem.record.store import aware

#: The moderator's actions on a game that answer its silence: the count starts again from the newest.
ANSWERED = ("keep", "resume", "extend", "replace", "address")
#: Those that answer every seat's silence too; a seat's own answers are its address moved (the row's detail names
#: the player) and the seat given to someone (a new seat, `listing.given`), which answer no other seat (months3).
EVERY_SEAT = ("keep", "resume", "extend")

_C = models.ControlAction.__table__.c  # type: ignore[attr-defined]
_O = models.OrderInput.__table__.c  # type: ignore[attr-defined]
_E = models.GameEvent.__table__.c  # type: ignore[attr-defined]


def answered(s: Session, game_id: int) -> tuple[datetime | None, datetime | None, dict[str, datetime]]:
    """When the moderator last answered the game (kept, resumed, extended it, gave a seat or moved an address), when
    last for every seat (kept, resumed, extended), and when each player's address was last moved (None: never).
    One statement: the newest row of each action and detail (`ix_control_game_action_id`)."""
    q = (
        select(_C.action, _C.detail, func.max(_C.created_at))
        .where(_C.game_id == game_id, _C.action.in_(ANSWERED))
        .group_by(_C.action, _C.detail)
    )
    game: datetime | None = None
    seats: datetime | None = None
    moved: dict[str, datetime] = {}
    for action, detail, newest in s.connection().execute(q):
        at = aware(newest)
        if at is None:
            continue
        game = max(game or at, at)
        if action in EVERY_SEAT:
            seats = max(seats or at, at)
        elif action == "address":
            moved[str(detail)] = max(moved.get(str(detail), at), at)
    return game, seats, moved


def deadlines_since(s: Session, game_id: int, since: datetime | None) -> int:
    """How many deadlines applied their defaults in the game after `since` (None: since it began)."""
    q = select(func.count()).where(_O.game_id == game_id, _O.kind == "deadline")
    if since is not None:
        q = q.where(_O.created_at > since)
    return int(s.connection().execute(q).scalar() or 0)


def defaulted_since(s: Session, game_id: int, since: dict[str, datetime | None]) -> dict[str, int]:
    """For each player of `since`: how many deadlines applied their default orders after their time there."""
    out = dict.fromkeys(since, 0)
    q = select(_E.data_json, _E.created_at).where(_E.game_id == game_id, _E.kind == "default-orders")
    for data, at in s.connection().execute(q):
        try:
            player = json.loads(data).get("player")
        except (ValueError, AttributeError):
            continue
        if player not in out:
            continue
        after, when = since[player], aware(at)
        if after is None or (when is not None and when > after):
            out[player] += 1
    return out

"""What the record says of players' absences: the `away`, `back` and `wait` control rows of a game.

`away` (detail: {"player", "until"}) is written when a player writes AWAY or the
moderator runs `pbem game away`; `back` (detail: {"player"}) when they are back;
`wait` (detail: {"player": seconds, ...}) each time a deadline waited for absent
players, charging each the time it waited for them (pbem/app/absence.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import bindparam, select
from sqlmodel import Session

from pbem.record.models import ControlAction

_C = ControlAction.__table__.c  # type: ignore[attr-defined]
ACTIONS = ("away", "back", "wait")
_ROWS = (
    select(_C.action, _C.detail, _C.created_at)
    .where(_C.game_id == bindparam("gid"), _C.action.in_(ACTIONS))
    .order_by(_C.id)
)


@dataclass(frozen=True)
class AbsenceRow:
    action: str  # away, back, wait
    detail: dict[str, Any]
    at: datetime


def rows(s: Session, game_id: int) -> list[AbsenceRow]:
    """Every absence row of a game, oldest first (a handful per game: one per AWAY, BACK or wait)."""
    out = []
    for action, detail, at in s.connection().execute(_ROWS, {"gid": game_id}):
        try:
            data = json.loads(detail) if detail else {}
        except ValueError:
            data = {}
        out.append(AbsenceRow(str(action), data if isinstance(data, dict) else {}, at.replace(tzinfo=UTC)))
    return out

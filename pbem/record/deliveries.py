"""Whether the players asked by a step got its report (issue 26: a deadline is held for an undelivered report).

Two statements, each on an index: the time the current step opened (the newest
"step opened" or undo deadline row of the game), and the game's reports to the
asked players queued since then, read from the index that holds their status and
sent time (`ix_outbox_game_purpose_player_created_sent`, migration 0020), not from
the reports' rows, which store them after the mail's bytes.  The caller owns the
transaction.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import bindparam, or_, select
from sqlmodel import Session

from pbem.record.models import Deadline, OutboxMessage

_D = Deadline.__table__.c  # type: ignore[attr-defined]
_C = OutboxMessage.__table__.c  # type: ignore[attr-defined]
REPORT = "report"

_Q_OPENED = (
    select(_D.created_at)
    .where(
        _D.game_id == bindparam("gid"),
        _D.step == bindparam("step"),
        or_(_D.reason == "step opened", _D.reason.like("undo to %")),
    )
    .order_by(_D.id.desc())
    .limit(1)
)

_Q_REPORTS = select(_C.id, _C.player, _C.status, _C.sent_at).where(
    _C.game_id == bindparam("gid"),
    _C.purpose == REPORT,
    _C.player.in_(bindparam("players", expanding=True)),
    _C.created_at >= bindparam("since"),
)


def _utc(dt: datetime) -> datetime:
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=UTC)


@dataclass(frozen=True)
class Delivery:
    """One asked player's reports of the step: when the first of them was delivered (None: none yet), and
    the outbox numbers and statuses of those not delivered (queued: still being tried; failed: given up)."""

    player: str
    delivered_at: datetime | None
    pending: tuple[tuple[int, str], ...]


def step_opened(s: Session, game_id: int, step: str) -> datetime | None:
    row = s.connection().execute(_Q_OPENED, {"gid": game_id, "step": step}).first()
    return _utc(row[0]) if row is not None else None


def deliveries(s: Session, game_id: int, players: Iterable[str], since: datetime) -> dict[str, Delivery]:
    """For each of `players` the step opened at `since` sent a report to: whether it was delivered."""
    wanted = sorted(set(players))
    if not wanted:
        return {}
    sent: dict[str, datetime] = {}
    pending: dict[str, list[tuple[int, str]]] = {}
    params = {"gid": game_id, "players": wanted, "since": since}
    for oid, player, status, sent_at in s.connection().execute(_Q_REPORTS, params):
        if status == "sent" and sent_at is not None:
            at = _utc(sent_at)
            sent[player] = min(at, sent.get(player, at))
        else:
            pending.setdefault(player, []).append((oid, status))
    return {p: Delivery(p, sent.get(p), tuple(sorted(pending.get(p, ())))) for p in wanted if p in sent or p in pending}

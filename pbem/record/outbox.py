"""The outbox queue in the record (transactional outbox, DESIGN.md principle 8).

Queuing is a plain INSERT in the caller's transaction; the sender
(`pbem.mail.sender`) reads queued rows after commit, and what it sent is
folded back in by `pbem.record.sentlog`.  These are the queue's only queries;
those on the poll's hot path are Core statements built once.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, func
from sqlmodel import Session, col, select

from .models import OutboxMessage, Seat

COUNTED = ("ack", "notice")  # the purposes the hourly reply cap counts
_C = OutboxMessage.__table__.c  # type: ignore[attr-defined]
Q_REPLIES = (
    select(_C.to_addr, func.count())
    .where(
        _C.to_addr.in_(bindparam("addresses", expanding=True)),
        _C.created_at > bindparam("since"),
        _C.purpose.in_(COUNTED),
    )
    .group_by(_C.to_addr)
)
Q_QUEUED_IDS = select(_C.message_id).where(_C.message_id.in_(bindparam("ids", expanding=True)))


def queue(s: Session, rows: dict[str, Any] | list[dict[str, Any]]) -> None:
    """Add rows built by `pbem.mail.outgoing.outbox_row` (no ORM object: the INSERT is what costs)."""
    if rows:
        s.connection().execute(OutboxMessage.__table__.insert(), rows)  # type: ignore[attr-defined]


def last_report_seqs(s: Session, game_id: int, players: Iterable[str] | None = None) -> dict[str, int]:
    """For each player of the game (or each of `players`), the last event seq their reports covered.

    One statement of one index probe per player (`ix_outbox_game_purpose_player_seq`): the newest
    report of each, however many reports the game has sent.
    """
    if players is None:
        players = s.exec(select(Seat.player).where(Seat.game_id == game_id).distinct()).all()
    wanted = sorted(set(players))
    if not wanted:
        return {}
    newest = [
        select(OutboxMessage.upto_seq)
        .where(OutboxMessage.game_id == game_id, OutboxMessage.purpose == "report", OutboxMessage.player == p)
        .order_by(col(OutboxMessage.upto_seq).desc())
        .limit(1)
        .scalar_subquery()
        for p in wanted
    ]
    rows = zip(wanted, s.connection().execute(select(*newest)).one())
    return {player: seq for player, seq in rows if seq is not None}


def replies_in_last_hour(s: Session, addresses: Iterable[str], when: datetime) -> dict[str, int]:
    """Answers (acks and notices) queued to each address in the hour before `when` (the reply cap)."""
    wanted = sorted({a for a in addresses if a})
    if not wanted:
        return {}
    rows = s.connection().execute(Q_REPLIES, {"addresses": wanted, "since": when - timedelta(hours=1)})
    return {addr: n for addr, n in rows}


def queued_ids(s: Session, message_ids: Iterable[str]) -> set[str]:
    """Which of these Message-IDs are already in the outbox (a reminder is queued once)."""
    ids = list(message_ids)
    if not ids:
        return set()
    return set(s.connection().execute(Q_QUEUED_IDS, {"ids": ids}).scalars())

"""The outbox queue in the record (transactional outbox, DESIGN.md principle 8).

Queuing is a plain INSERT in the caller's transaction; the sender
(`pbem.mail.sender`) reads queued rows after commit and marks them sent or
failed.  These are the queue's only queries.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from .models import OutboxMessage

COUNTED = ("ack", "notice")  # the purposes the hourly reply cap counts


def queue(s: Session, rows: dict[str, Any] | list[dict[str, Any]]) -> None:
    """Add rows built by `pbem.mail.outgoing.outbox_row` (no ORM object: the INSERT is what costs)."""
    if rows:
        s.connection().execute(OutboxMessage.__table__.insert(), rows)  # type: ignore[attr-defined]


def last_report_seqs(s: Session, game_id: int) -> dict[str, int]:
    """For each player of the game, the last event seq their reports covered (one query)."""
    q = (
        select(OutboxMessage.player, func.max(OutboxMessage.upto_seq))
        .where(OutboxMessage.game_id == game_id, OutboxMessage.purpose == "report")
        .group_by(col(OutboxMessage.player))
    )
    return {player: seq or 0 for player, seq in s.exec(q).all()}


def replies_in_last_hour(s: Session, addresses: Iterable[str], when: datetime) -> dict[str, int]:
    """Answers (acks and notices) queued to each address in the hour before `when` (the reply cap)."""
    wanted = sorted({a for a in addresses if a})
    if not wanted:
        return {}
    q = (
        select(OutboxMessage.to_addr, func.count())
        .where(
            col(OutboxMessage.to_addr).in_(wanted),
            OutboxMessage.created_at > when - timedelta(hours=1),
            col(OutboxMessage.purpose).in_(COUNTED),
        )
        .group_by(col(OutboxMessage.to_addr))
    )
    return {addr: n for addr, n in s.exec(q).all()}


def queued_ids(s: Session, message_ids: Iterable[str]) -> set[str]:
    """Which of these Message-IDs are already in the outbox (a reminder is queued once)."""
    ids = list(message_ids)
    if not ids:
        return set()
    return set(s.exec(select(OutboxMessage.message_id).where(col(OutboxMessage.message_id).in_(ids))).all())

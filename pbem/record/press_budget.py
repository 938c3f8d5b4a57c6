"""The press mails a sender's messages caused in the last day (issue 26: `[mail] press_per_day`).

One statement on the (address, created_at) index of `press_relays` for the
count and the oldest counted row, and one on the outbox's (to_addr, purpose,
created_at) index for whether the "too much press" notice already went out.
The caller owns the transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import bindparam, func, select
from sqlmodel import Session

from pbem.record.models import OutboxMessage, PressRelay

WINDOW = timedelta(days=1)
NOTICE = "press-limit"  # the outbox purpose of the one notice per window

_P = PressRelay.__table__  # type: ignore[attr-defined]
_C = OutboxMessage.__table__.c  # type: ignore[attr-defined]
_Q = select(
    select(func.coalesce(func.sum(_P.c.mails), 0))
    .where(_P.c.address == bindparam("a"), _P.c.created_at > bindparam("since"))
    .scalar_subquery(),
    select(func.min(_P.c.created_at))
    .where(_P.c.address == bindparam("a"), _P.c.created_at > bindparam("since"))
    .scalar_subquery(),
    select(func.count())
    .select_from(OutboxMessage.__table__)  # type: ignore[attr-defined]
    .where(_C.to_addr == bindparam("a"), _C.purpose == NOTICE, _C.created_at > bindparam("since"))
    .scalar_subquery(),
)


@dataclass(frozen=True)
class PressWindow:
    """A sender's press in the day before now: mails caused, the oldest counted, whether they were told."""

    mails: int = 0
    oldest: datetime | None = None
    told: bool = False


def window(s: Session, address: str, when: datetime) -> PressWindow:
    if not address:
        return PressWindow()
    mails, oldest, told = s.connection().execute(_Q, {"a": address, "since": when - WINDOW}).one()
    if oldest is not None and oldest.tzinfo is None:
        oldest = oldest.replace(tzinfo=UTC)
    return PressWindow(int(mails or 0), oldest, bool(told))


def record(s: Session, address: str, mails: int, when: datetime) -> None:
    if address and mails > 0:
        s.connection().execute(_P.insert(), {"address": address, "mails": mails, "created_at": when})

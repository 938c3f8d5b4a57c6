"""How many mails without orders one address sent lately (for `pbem.app.loops`): a bounded look-up.

Only the newest `look_back` inbound rows are read (by primary key), so the cost does not grow with the history.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select
from sqlmodel import Session

from pbem.record.models import InboundMessage


def recent_count(s: Session, sender: str, reason: str, since: datetime, look_back: int) -> int:
    """Inbound mails from `sender` (any case) recorded with `reason` after `since`, among the newest `look_back`."""
    c = InboundMessage.__table__.c  # type: ignore[attr-defined]
    recent = select(c.sender, c.reason, c.received_at).order_by(c.id.desc()).limit(look_back).subquery()
    q = select(func.count()).where(
        func.lower(recent.c.sender) == sender.lower(), recent.c.reason == reason, recent.c.received_at > since
    )
    return int(s.connection().execute(q).scalar() or 0)

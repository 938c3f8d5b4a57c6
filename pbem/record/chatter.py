"""How many mails without orders one address sent lately (for `pbem.app.loops`): a bounded look-up.

Only the newest `look_back` inbound rows are read (by primary key), and only the sender's own past their
sender and reason, so the cost grows neither with the history nor with other senders' mails.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select
from sqlmodel import Session

from pbem.record.models import InboundMessage


def recent_count(s: Session, sender: str, reason: str, since: datetime, look_back: int) -> int:
    """Inbound mails from `sender` (any case) recorded with `reason` after `since`, among the newest `look_back`.

    The newest rows are read for their sender and reason only, and when they arrived only for the sender's own:
    `received_at` is stored after each mail's bytes, so reading it for all `look_back` rows read every one of
    those mails, up to 500 of 256 KiB each for one mail of chatter (costs15)."""
    c = InboundMessage.__table__.c  # type: ignore[attr-defined]
    recent = select(c.id, c.sender, c.reason).order_by(c.id.desc()).limit(look_back).subquery()
    theirs = select(recent.c.id).where(func.lower(recent.c.sender) == sender.lower(), recent.c.reason == reason)
    q = select(func.count()).where(c.id.in_(theirs), c.received_at > since)
    return int(s.connection().execute(q).scalar() or 0)

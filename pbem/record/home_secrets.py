"""The home's secrets, kept in the record (table `home_secrets`, made by migration 0005).

`message_id_key` is the HMAC key of outgoing Message-IDs: random per home,
so nobody outside can recompute an ID from counters, and read from the
record, so a mail re-sent after a crash keeps its ID.  It is cached only for
the session that read it (a record restored under the same URL is never
keyed with a stale secret).  A record that lacks
the row (restored from an old dump) gets one in the caller's transaction.
"""

from __future__ import annotations

import secrets

from sqlmodel import Session, select

from pbem.record.db import fetch
from pbem.record.models import HomeSecret
from pbem.record.store import now_utc

MESSAGE_ID = "message-id"
_SESSION_KEY = "pbem.message_id_key"
_Q_KEY = select(HomeSecret.__table__.c.value).where(HomeSecret.__table__.c.name == MESSAGE_ID)  # type: ignore[attr-defined]


def message_id_key(s: Session) -> bytes:
    """The Message-ID key of the home `s` belongs to (read once per session: one indexed row)."""
    key: bytes | None = s.info.get(_SESSION_KEY)
    if key is not None:
        return key
    found = fetch(s.connection(), _Q_KEY, {})
    row = found[0][0] if found else None
    if row is None:
        row = secrets.token_hex(32)
        s.add(HomeSecret(name=MESSAGE_ID, value=row, created_at=now_utc()))
        s.flush()
    key = bytes.fromhex(row)
    s.info[_SESSION_KEY] = key
    return key

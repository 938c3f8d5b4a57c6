"""The home's secrets, kept in the record (table `home_secrets`, made by migration 0005).

`message_id_key` is the HMAC key of outgoing Message-IDs: random per home,
so nobody outside can recompute an ID from counters, and read from the
record, so a mail re-sent after a crash keeps its ID.  A record that lacks
the row (restored from an old dump) gets one in the caller's transaction.
"""

from __future__ import annotations

import secrets
import threading

from sqlmodel import Session, select

from .models import HomeSecret
from .store import now_utc

MESSAGE_ID = "message-id"
_cache: dict[str, bytes] = {}
_lock = threading.Lock()


def message_id_key(s: Session) -> bytes:
    """The Message-ID key of the home `s` belongs to (read once per database and process)."""
    url = s.get_bind().url.render_as_string(hide_password=False)
    with _lock:
        key = _cache.get(url)
    if key is not None:
        return key
    row = s.exec(select(HomeSecret.value).where(HomeSecret.name == MESSAGE_ID)).first()
    if row is None:
        row = secrets.token_hex(32)
        s.add(HomeSecret(name=MESSAGE_ID, value=row, created_at=now_utc()))
        s.flush()
        return bytes.fromhex(row)  # not cached until that transaction is known to commit
    key = bytes.fromhex(row)
    with _lock:
        _cache[url] = key
    return key

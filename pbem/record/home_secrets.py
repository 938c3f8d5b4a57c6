"""The home's secrets, kept in the record (table `home_secrets`, made by migration 0005).

`message_id_key` is the HMAC key of outgoing Message-IDs: random per home,
so nobody outside can recompute an ID from counters, and read from the
record, so a mail re-sent after a crash keeps its ID.  It is cached only for
the session that read it (a record restored under the same URL is never
keyed with a stale secret).  A record that lacks
the row (restored from an old dump) gets one in the caller's transaction.

The restore epochs (months8): a database restored from a backup and gone on with makes anew the mails the old home
made after the backup (the same deadlines, the same steps), under the same keys.  Each run that goes on with a
restored database adds a row `EPOCH` + token (`new_epoch`, created at the restore's time); the key read then carries
the newest token (`IdKey.epoch`), which `pbem.mail.outbound.compose.stable_message_id` appends to every Message-ID
composed after it, so none equals one the old home sent.  A home never restored has no such row: its ids are as
they always were.  `IdKey.epochs` names them all, for the look-ups that must find a mail under any of its forms
(`variants`: `pbem.record.outbox.queued_ids`, `pbem.record.answered.sent_mails`).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from datetime import datetime

from sqlalchemy import or_
from sqlalchemy.engine import Connection
from sqlmodel import Session, select

from pbem.record.db import fetch
from pbem.record.models import HomeSecret
from pbem.record.store import now_utc

MESSAGE_ID = "message-id"
EPOCH = "message-id-epoch:"  # a row per restore gone on with: EPOCH + its token (the value), created at the restore
MOST_EPOCHS = 100  # rows kept (the oldest dropped): a look-up tries each form of an id
_SESSION_KEY = "pbem.message_id_key"
_SESSION_EPOCHS = "pbem.message_id_rows"
_T = HomeSecret.__table__.c  # type: ignore[attr-defined]
_Q_KEY = select(_T.name, _T.value, _T.created_at).where(or_(_T.name == MESSAGE_ID, _T.name.startswith(EPOCH)))
_FORM = re.compile(r"^<pbem\.([0-9a-f]{32})(?:\.([0-9a-f]{8}))?@([^<>\s@]{1,200})>$")


class IdKey(bytes):
    """The Message-ID key, with the home's restore epochs: `epoch` the newest token ("" never restored),
    `epochs` every token, oldest first."""

    epoch: str = ""
    epochs: tuple[str, ...] = ()

    @classmethod
    def of(cls, key: bytes, epochs: tuple[str, ...]) -> IdKey:
        out = cls(key)
        out.epochs = epochs
        out.epoch = epochs[-1] if epochs else ""
        return out


def message_id_key(s: Session) -> IdKey:
    """The Message-ID key of the home `s` belongs to (read once per session: one indexed look-up)."""
    key: IdKey | None = s.info.get(_SESSION_KEY)
    if key is not None:
        return key
    found = _rows(s)
    row = next((str(v) for n, v, _ in found if n == MESSAGE_ID), None)
    if row is None:
        row = secrets.token_hex(32)
        s.add(HomeSecret(name=MESSAGE_ID, value=row, created_at=now_utc()))
        s.flush()
    key = IdKey.of(bytes.fromhex(row), _epochs(found))
    s.info[_SESSION_KEY] = key
    return key


def epochs_of(s: Session) -> tuple[str, ...]:
    """The home's restore epochs, oldest first (read once per session; never writes)."""
    key: IdKey | None = s.info.get(_SESSION_KEY)
    return key.epochs if key is not None else _epochs(_rows(s))


def _rows(s: Session) -> list[tuple[object, ...]]:
    """The key's and the epochs' rows, read once per session (a reply's look-ups, then its mail's ids)."""
    rows: list[tuple[object, ...]] | None = s.info.get(_SESSION_EPOCHS)
    if rows is None:
        rows = s.info[_SESSION_EPOCHS] = fetch(s.connection(), _Q_KEY, {})
    return rows


def _epochs(found: list[tuple[object, ...]]) -> tuple[str, ...]:
    rows = sorted((r for r in found if r[0] != MESSAGE_ID), key=lambda r: (str(r[2]), str(r[0])))
    return tuple(str(r[1]) for r in rows)


def variants(message_id: str, epochs: tuple[str, ...]) -> list[str]:
    """Every form `message_id` may have in this home: without an epoch and with each (itself first); one that is
    not pbem's, or a home never restored: itself alone."""
    m = _FORM.match(message_id)
    if m is None or not epochs:
        return [message_id]
    stem, domain = m.group(1), m.group(3)
    forms = [f"<pbem.{stem}@{domain}>", *(f"<pbem.{stem}.{e}@{domain}>" for e in epochs)]
    return [message_id, *(f for f in forms if f != message_id)]


def new_epoch(conn: Connection, when: datetime) -> str:
    """A new restore epoch from now on (in the caller's transaction): its token, drawn from the key and the time
    (a database restored twice from one backup, at two times, draws two)."""
    value = conn.execute(select(_T.value).where(_T.name == MESSAGE_ID)).scalar()
    key = bytes.fromhex(str(value)) if value else secrets.token_bytes(32)
    rows = conn.execute(select(_T.name, _T.created_at).where(_T.name.startswith(EPOCH))).all()
    taken = {str(n)[len(EPOCH) :] for n, _ in rows}
    token = ""
    for i in range(1000):
        token = hmac.new(key, f"epoch\x1f{when.isoformat()}\x1f{i}".encode(), hashlib.sha256).hexdigest()[:8]
        if token not in taken:
            break
    conn.execute(HomeSecret.__table__.insert().values(name=EPOCH + token, value=token, created_at=when))  # type: ignore[attr-defined]
    if len(rows) + 1 > MOST_EPOCHS:
        old = sorted(rows, key=lambda r: (r[1], r[0]))[: len(rows) + 1 - MOST_EPOCHS]
        conn.execute(HomeSecret.__table__.delete().where(_T.name.in_([n for n, _ in old])))  # type: ignore[attr-defined]
    return token


def restored_at(conn: Connection) -> datetime | None:
    """When this database was last restored and gone on with (its newest epoch), or None: never."""
    from sqlalchemy import func

    return conn.execute(select(func.max(_T.created_at)).where(_T.name.startswith(EPOCH))).scalar()

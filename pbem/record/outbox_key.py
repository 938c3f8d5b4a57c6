"""Which `outbox.key` a record belongs to: a check value of the key, kept among the home's secrets.

`outbox.key` (`pbem.mail.outbound.sealed`) seals the queued mails that carry a player's code; it lives in the
home, never in the record.  A database restored beside another home's key file (or a key file copied from
another home) could only be told by a sealed mail waiting to be sent that the key did not open: with none
waiting, any valid key passed, and the next code sealed under it was sealed for the wrong home.  So the record
keeps a check value of its key, one row of `home_secrets` (migration 0005's table: no schema change) named
`outbox-key-check`:

    HMAC-SHA256(the key's 32 bytes, "pbem outbox.key check value v1"), in hex

a MAC of a fixed label under the whole key: it tells whether a key is the one, and nothing else of it (finding
the key from it is a search of 2^256 keys, as it is from any mail sealed under it).  The row is written the
first time a run finds the home holding a key and the record holding no value (the home's first sealed mail,
or a home made before this), and read at the start of every `pbem poll` and of every command that changes the
home (`pbem.app.outbox_key`), and by `pbem backup --check` (`pbem.record.backup`).
"""

from __future__ import annotations

import base64
import binascii
import hmac
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection
    from sqlalchemy.sql.elements import TextClause

NAME = "outbox-key-check"
LABEL = b"pbem outbox.key check value v1"
MARK = b"pbem-sealed-1\n"  # `pbem.mail.outbound.sealed.MARK`: what a sealed outbox row starts with


def check_value(key: bytes) -> str | None:
    """The check value of the key file's text `key` (a Fernet key: 32 bytes in URL-safe base64); None when it
    holds no key."""
    try:
        raw = base64.urlsafe_b64decode(key.strip())
    except (binascii.Error, ValueError):
        return None
    return hmac.digest(raw, LABEL, "sha256").hex() if len(raw) == 32 else None


@dataclass(frozen=True)
class Found:
    """What the record says of the home's key: `state` is "same" (its value is the key's), "kept" (it had none: the
    key's written now), "other" (it holds another key's), "none" (no key, no value and no sealed mail waiting), "lost" (no key, and a
    value or sealed mail waiting) or "forgot" (the value of a lost key deleted); `waiting`: the mails waiting to be
    sent sealed under the record's key (counted when there is no key or another: it reads every queued mail's first
    bytes)."""

    state: str
    waiting: int = 0


def _waiting(c: Connection) -> int:
    from sqlalchemy import text

    q = text(
        "SELECT count(*) FROM outbox o JOIN outbox_mail b ON b.id = o.id "  # the bytes: migration 0022
        "WHERE o.status = 'queued' AND substr(b.raw, 1, :n) = :m"
    )
    return int(c.execute(q, {"n": len(MARK), "m": MARK}).scalar_one())


def _read() -> TextClause:
    from sqlalchemy import text

    return text("SELECT value FROM home_secrets WHERE name = :n")


def belongs(url: str, key: bytes | None, forget: bool = False) -> Found:
    """Whether the key file's text `key` (None: the home has none) is the record's at `url`; the check value
    written when the record has none and the home a key.  One indexed read that takes no write lock; a write the
    first time.  With no key: "none" when the record keeps no value and no sealed mail waits (a first run: the
    key is made with the first sealed mail), else "lost"; `forget` (the moderator says the key is lost for
    good) then deletes the value, so that the key the home makes next is its own."""
    from sqlalchemy import DateTime, bindparam, text

    from pbem.record.db import reading, transaction
    from pbem.record.store import now_utc

    value = check_value(key) if key is not None else None
    with reading(url) as c:
        row = c.execute(_read(), {"n": NAME}).first()
        stored = str(row[0]) if row is not None else None
        if stored is not None and value is not None:
            same = hmac.compare_digest(stored, value)
            return Found("same") if same else Found("other", _waiting(c))
        if value is None and not forget:  # (sealed mail with no value kept: a home made before the values)
            waiting = _waiting(c)
            return Found("lost", waiting) if stored is not None or waiting else Found("none")
        c.rollback()
    if stored is None and value is None:
        return Found("none")
    with transaction(url) as c:  # (read again under the write lock: another run may have written it meanwhile)
        row = c.execute(_read(), {"n": NAME}).first()
        if row is None and value is None:
            return Found("none")
        if row is None:
            insert = text("INSERT INTO home_secrets (name, value, created_at) VALUES (:n, :v, :t)")
            c.execute(insert.bindparams(bindparam("t", type_=DateTime())), {"n": NAME, "v": value, "t": now_utc()})
            return Found("kept")
        if value is not None:
            return Found("same") if hmac.compare_digest(str(row[0]), value) else Found("other", _waiting(c))
        # the key is gone and the moderator says so: whatever key the home makes next is its own (the mails
        # sealed under the lost one go out redacted, `pbem.mail.outbound.sealed.opened`)
        waiting = _waiting(c)
        c.execute(text("DELETE FROM home_secrets WHERE name = :n"), {"n": NAME})
        return Found("forgot", waiting)

"""The moderator's code (issue 28, moderating by mail): kept hashed among the home's secrets.

One row of `home_secrets` (migration 0005's table), named `moderator-code`, holds the code's
salted, keyed hash (`pbem.trust.codes.hash_code` with the home's key) and when it was made.  `pbem init` makes it once
(an existing row is kept); `pbem moderator code` replaces it.  The code itself is never stored.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, select

from pbem.record.models import HomeSecret

NAME = "moderator-code"
_C = HomeSecret.__table__.c  # type: ignore[attr-defined]
_Q = select(_C.value, _C.created_at).where(_C.name == NAME)


def stored(s: Session) -> tuple[str, datetime] | None:
    """The moderator code's hash and when it was made, or None (no code made yet)."""
    row = s.connection().execute(_Q).first()
    return (str(row[0]), row[1]) if row is not None else None


def keep(s: Session, code_hash: str, when: datetime) -> None:
    """Make `code_hash` the moderator code's (the previous one stops working)."""
    row = s.get(HomeSecret, NAME)
    if row is None:
        s.add(HomeSecret(name=NAME, value=code_hash, created_at=when))
    else:
        row.value, row.created_at = code_hash, when
        s.add(row)
    s.flush()

"""Clock sanity (issue 26): the record knows the latest time a poll ran at, and a clock behind it does nothing.

Every deadline, reminder and "sent at" is the machine's clock.  A poll whose
clock reads earlier than the latest time this record has seen (less a
`TOLERANCE` for small NTP corrections) would open steps "due" in the past, so
that the next poll applies their defaults at once: it refuses to run and says
so in one line (exit 3).  A clock far ahead of the latest time (`JUMP`) is
not refused (the machine may have been off), but reported in the log with
what the run applied, so the moderator can tell a jump from a holiday.

The latest time is kept in the `home_secrets` table under `clock.latest`
(a home value like the Message-ID key, though not a secret; no migration).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

from sqlalchemy.exc import OperationalError
from sqlmodel import Session, select

from pbem.record.db import DatabaseError, session
from pbem.record.models import HomeSecret

log = logging.getLogger("pbem.clock")
NAME = "clock.latest"
TOLERANCE = timedelta(minutes=5)
JUMP = timedelta(days=3)


def _row(s: Session) -> HomeSecret | None:
    return s.exec(select(HomeSecret).where(HomeSecret.name == NAME)).first()


@contextmanager
def _db(database_url: str) -> Iterator[Session]:
    """A session; a database that cannot be used is one line (`DatabaseError`), as in the poll."""
    try:
        with session(database_url) as s:
            yield s
    except OperationalError as exc:
        raise DatabaseError(f"the database could not be used: {str(exc.orig).splitlines()[0]}") from None


def latest(database_url: str) -> datetime | None:
    with _db(database_url) as s:
        row = _row(s)
        return datetime.fromisoformat(row.value) if row is not None else None


def behind(seen: datetime | None, now: datetime) -> str | None:
    """Why a poll at `now` must not run (one line), or None."""
    if seen is None or now >= seen - TOLERANCE:
        return None
    return (
        f"the clock reads {now:%Y-%m-%d %H:%M} UTC, {_span(seen - now)} behind the latest time this record has "
        f"seen ({seen:%Y-%m-%d %H:%M} UTC); nothing was done: fix the machine's clock"
    )


def jumped(seen: datetime | None, now: datetime) -> str | None:
    """A note when the clock is far ahead of the latest time seen, or None."""
    if seen is None or now - seen <= JUMP:
        return None
    return f"the clock is {_span(now - seen)} ahead of the last poll ({seen:%Y-%m-%d %H:%M} UTC)"


def remember(database_url: str, now: datetime) -> None:
    """Keep `now` as the latest time seen (never moving it back)."""
    with _db(database_url) as s:
        row = _row(s)
        if row is None:
            s.add(HomeSecret(name=NAME, value=now.isoformat(), created_at=now))
        elif datetime.fromisoformat(row.value) < now:
            row.value = now.isoformat()
            s.add(row)
        s.commit()


def _span(d: timedelta) -> str:
    hours = d.total_seconds() / 3600
    return f"{hours / 24:.1f} days" if hours >= 48 else f"{hours:.1f} hours" if hours >= 1 else f"{d.seconds // 60} min"


def now_utc() -> datetime:
    return datetime.now(UTC)

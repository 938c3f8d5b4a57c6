"""Small facts the home keeps between runs, in the `poll_marks` table: here, when pbem last ran.

`swap_last_run` is called by every `pbem poll`, idle ones included (one short
transaction on SQLite, no ORM), so that a gap between two runs means pbem really
did not run: the outage rule (pbem/app/outages.py) moves the deadlines that fell in it.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import DateTime, bindparam, text

from pbem.record.db import transaction

LAST_RUN = "last-run"  # the poll_marks row: the start of the newest `pbem poll` (ISO 8601, UTC)

_READ = text("SELECT value FROM poll_marks WHERE name = :n")
_DELETE = text("DELETE FROM poll_marks WHERE name = :n")
_INSERT = text("INSERT INTO poll_marks (name, value, updated_at) VALUES (:n, :v, :t)").bindparams(
    bindparam("t", type_=DateTime())
)


def swap_last_run(database_url: str, when: datetime) -> datetime | None:
    """Record `when` as the start of the newest run; return the previous run's start (None: never, or unreadable).

    A clock that went back never moves the mark back: the newest time seen is kept.
    """
    stamp = when.astimezone(UTC)
    with transaction(database_url) as c:
        row = c.execute(_READ, {"n": LAST_RUN}).first()
        previous = _parse(str(row[0])) if row else None
        newest = stamp if previous is None or stamp > previous else previous
        c.execute(_DELETE, {"n": LAST_RUN})
        c.execute(_INSERT, {"n": LAST_RUN, "v": newest.isoformat(), "t": newest.replace(tzinfo=None)})
    return previous


def _parse(value: str) -> datetime | None:
    try:
        dt = datetime.fromisoformat(value)
    except ValueError:
        return None
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=UTC)


def last_run(database_url: str) -> datetime | None:
    """The newest run start this record has seen (read only; None: never).  Raises DatabaseError in one line."""
    from sqlalchemy.exc import OperationalError

    from pbem.record.db import DatabaseError

    try:
        with transaction(database_url) as c:
            row = c.execute(_READ, {"n": LAST_RUN}).first()
    except OperationalError as exc:
        raise DatabaseError(f"the database could not be used: {str(exc.orig).splitlines()[0]}") from None
    return _parse(str(row[0])) if row else None

"""What the idle check reads and the poll remembers (`pbem.app.idle`), and when pbem last ran: Core text
statements only.

`swap_last_run` is called by every `pbem poll`, idle ones included (one short transaction), so that a
gap between two runs means pbem really did not run: the outage rule (pbem/app/outages.py) moves the
deadlines that fell in it.

No ORM models or engines of games are imported here, so that an idle cron run costs little more than
the imports it cannot avoid.  Times are naive UTC, as the columns hold them.
"""

from __future__ import annotations

from datetime import UTC, datetime

IMAP_MARK = "imap-inbox"  # the poll_marks row of the IMAP inbox
IMAP_COPIED = "imap-copied"  # the poll_marks row: messages copied to their folder, left unflagged in the inbox
LAST_RUN = "last-run"  # the poll_marks row: the start of the newest `pbem poll` (ISO 8601, UTC)
DIGEST_DUE = "digest-due"  # the poll_marks row: when the next DIGEST mail falls due ("" none; `pbem.app.digests`)
IMAP_SINCE = "imap-since"  # the poll_marks row: "UIDVALIDITY:UIDNEXT@ISO time" a run saw (`pbem.app.arrivals`)
IMAP_FILED = (
    "imap-filed"  # the poll_marks row: "processed=V:N rejected=V:N" of the folders filed into (`pbem.app.witness`)
)
HOME_ID = "home-id"  # the poll_marks row: the name of the home this database belongs to (`pbem.app.whose`)
CLOCK_AHEAD = "clock-ahead"  # the poll_marks row: how far ahead the server's arrival dates put this clock ("" none)
SEND_FAILING = "send-failing"  # the poll_marks row: since when the outbox could not send (ISO 8601; "" none)
UPKEEP_DUE = "upkeep-due"  # the poll_marks row: when the poll next looks at the home's upkeep (`pbem.app.upkeep_look`)
UPKEEP_TOLD = "upkeep-told"  # the poll_marks row: when each upkeep condition that holds was last told (JSON)
BACKUP_MADE = "backup-made"  # the poll_marks row: the newest `pbem backup` of this home, {"at": ISO, "folder": path}
# the poll_marks row: bytes of SQLite free pages `pbem upgrade` or `pbem prune` left, the least seen since
FREE_LEFT = "free-pages-left"


def digest_due(url: str, when: datetime) -> bool:
    """True when a DIGEST player's daily mail is due at `when` (the mark the last full poll left)."""
    from sqlalchemy import text

    from pbem.record.db import engine_for

    with engine_for(url).connect() as c:
        row = c.execute(text("SELECT value FROM poll_marks WHERE name = :n"), {"n": DIGEST_DUE}).first()
        c.rollback()
    at = parse_time(str(row[0])) if row and row[0] else None
    return at is not None and at <= when.astimezone(UTC)


def queued_or_due(url: str, when: datetime, mark: str | None = None) -> tuple[bool, str | None]:
    """(is any mail queued to send or anything due at `when`, a DIGEST mail included (`digest_due`), the
    remembered value of poll mark `mark`), in one connection."""
    from sqlalchemy import DateTime, bindparam, text

    from pbem.record.db import engine_for

    naive = when.astimezone(UTC).replace(tzinfo=None)  # the columns hold naive UTC
    now = bindparam("now", type_=DateTime())
    queued = text("SELECT 1 FROM outbox WHERE status = 'queued' AND next_attempt_at <= :now LIMIT 1")
    due = text("SELECT 1 FROM due WHERE done = :f AND due_at <= :now LIMIT 1")
    with engine_for(url).connect() as c:
        busy = bool(
            c.execute(queued.bindparams(now), {"now": naive}).first()
            or c.execute(due.bindparams(now), {"now": naive, "f": False}).first()
        )
        if not busy:
            row = c.execute(text("SELECT value FROM poll_marks WHERE name = :n"), {"n": DIGEST_DUE}).first()
            at = parse_time(str(row[0])) if row and row[0] else None
            busy = at is not None and at <= when.astimezone(UTC)
        seen = None
        if mark is not None:
            row = c.execute(text("SELECT value FROM poll_marks WHERE name = :n"), {"n": mark}).first()
            seen = str(row[0]) if row else None
        c.rollback()
    return busy, seen


def recall(url: str, mark: str) -> str | None:
    """The value of poll mark `mark` (None: never kept)."""
    from sqlalchemy import text

    from pbem.record.db import engine_for

    with engine_for(url).connect() as c:
        row = c.execute(text("SELECT value FROM poll_marks WHERE name = :n"), {"n": mark}).first()
        c.rollback()
    return str(row[0]) if row else None


def remember(url: str, mark: str, value: str) -> None:
    """Keep `value` as poll mark `mark` (replacing the one before).  A mark that already holds `value` is left
    as it is: most polls find the same digest and inbox marks, and a write per poll was a commit per poll."""
    from sqlalchemy import DateTime, bindparam, text

    from pbem.record.db import transaction

    stamp = datetime.now(UTC).replace(tzinfo=None)
    with transaction(url) as c:
        held = c.execute(text("SELECT value FROM poll_marks WHERE name = :n"), {"n": mark}).all()
        if len(held) == 1 and held[0][0] == value:
            return
        c.execute(text("DELETE FROM poll_marks WHERE name = :n"), {"n": mark})
        c.execute(
            text("INSERT INTO poll_marks (name, value, updated_at) VALUES (:n, :v, :t)").bindparams(
                bindparam("t", type_=DateTime())
            ),
            {"n": mark, "v": value, "t": stamp},
        )


def swap_last_run(url: str, when: datetime) -> datetime | None:
    """Record `when` as the start of the newest run; return the previous run's start (None: never, or unreadable).

    A clock that went back never moves the mark back: the newest time seen is kept.
    """
    from sqlalchemy import text

    from pbem.record.db import transaction

    stamp = when.astimezone(UTC)
    with transaction(url) as c:
        row = c.execute(text("SELECT value FROM poll_marks WHERE name = :n"), {"n": LAST_RUN}).first()
        previous = parse_time(str(row[0])) if row else None
    newest = stamp if previous is None or stamp > previous else previous
    remember(url, LAST_RUN, newest.isoformat())
    return previous


def parse_time(value: str) -> datetime | None:
    """A mark's ISO time, read as UTC when it names no zone; None when it is no time."""
    try:
        dt = datetime.fromisoformat(value)
    except ValueError:
        return None
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=UTC)


def last_run(database_url: str) -> datetime | None:
    """The newest run start this record has seen (read only; None: never).  Raises DatabaseError in one line."""
    from sqlalchemy import text
    from sqlalchemy.exc import OperationalError

    from pbem.record.db import DatabaseError, transaction, unusable

    try:
        with transaction(database_url) as c:
            row = c.execute(text("SELECT value FROM poll_marks WHERE name = :n"), {"n": LAST_RUN}).first()
    except OperationalError as exc:
        raise DatabaseError(unusable(exc)) from None
    return parse_time(str(row[0])) if row else None


def reset_last_run(url: str, when: datetime) -> None:
    """Record `when` as the newest run start even if an earlier run's (wrong) clock recorded a later one: the
    moderator says the clock is right now (`pbem poll --trust-clock`)."""
    remember(url, LAST_RUN, when.astimezone(UTC).isoformat())


def recorded(url: str, message_ids: list[str]) -> set[str]:
    """Which of `message_ids` the record holds a message of (one indexed look-up; `pbem.app.witness`)."""
    from sqlalchemy import bindparam, text

    from pbem.record.db import engine_for

    if not message_ids:
        return set()
    query = text("SELECT DISTINCT message_id FROM inbound_messages WHERE message_id IN :ids").bindparams(
        bindparam("ids", expanding=True)
    )
    with engine_for(url).connect() as c:
        rows = c.execute(query, {"ids": message_ids}).all()
        c.rollback()
    return {str(r[0]) for r in rows}


def send_failed(url: str, when: datetime) -> None:
    """The outbox could not send at `when` (the mail server unreachable, or refusing for a while): kept as the start
    of the failure unless one is kept already (`pbem.app.unsent` claims the whole time once it sends again)."""
    if failing_since(url) is None:
        remember(url, SEND_FAILING, when.astimezone(UTC).isoformat())


def failing_since(url: str) -> datetime | None:
    """Since when the outbox could not send (None: it could, or never failed)."""
    value = recall(url, SEND_FAILING)
    return parse_time(value) if value else None

"""Clock sanity (issue 26): a poll whose clock is behind the newest time the record has seen does nothing.

Every deadline, reminder and "sent at" is the machine's clock.  A poll whose
clock reads earlier than the newest run start this record has seen (the
`last-run` poll mark, which never moves back: `pbem.record.marks`), less a
`TOLERANCE` for small NTP corrections, would open steps "due" in the past, so
that the next poll applies their defaults at once: it refuses to run and says
so in one line (exit 3), before anything is written.  A clock far ahead of
it (`JUMP`) is not refused (the machine may have been off: the outage rule
moves the deadlines of the gap), but logged with what the run applied.

What is not noticed here (README "What pbem can and cannot tell about its clock"): a clock ahead of the right time
by less than `[games] outage_after`.  Every time pbem holds is this machine's clock (the record, the last-run mark, the
Maildir's files), and a mail's Date is its writer's clock, so nothing of these can show a steady offset.  Over IMAP
the server's arrival dates can, once a mail arrives: `pbem.app.arrivals` (a run it finds ahead applies no deadline);
over Maildir such a clock applies the deadlines due within the offset early, by the offset.  A jump ahead by more than `outage_after`
since the last run is read as an outage (`pbem.app.outages`: the gap's deadlines move later), one of more than
`JUMP` is also told.

When the clock that was wrong is the earlier run's (ahead, then corrected), every later poll would be refused
until real time caught up: `pbem poll --trust-clock` takes this run's clock as right and the record's newest
time back to it.  Moderator commands that time a deadline from "now" (`pbem game ...`) are refused the same
way (`refusal`), as the poll is.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import TypeVar

from pbem.record.marks import last_run

log = logging.getLogger("pbem.clock")
T = TypeVar("T")
TOLERANCE = timedelta(minutes=5)
JUMP = timedelta(days=3)


def latest(database_url: str) -> datetime | None:
    """The newest run start the record has seen (raises DatabaseError in one line)."""
    return last_run(database_url)


def behind(seen: datetime | None, now: datetime) -> str | None:
    """Why a poll at `now` must not run (one line), or None."""
    if seen is None or now >= seen - TOLERANCE:
        return None
    return (
        f"the clock reads {now:%Y-%m-%d %H:%M} UTC, {_span(seen - now)} behind the latest time this record has "
        f"seen ({seen:%Y-%m-%d %H:%M} UTC); nothing was done: fix the machine's clock (if it is right now and "
        f"an earlier run's clock was ahead, run once: pbem poll --trust-clock)"
    )


def jumped(seen: datetime | None, now: datetime) -> str | None:
    """A note when the clock is far ahead of the latest time seen, or None."""
    if seen is None or now - seen <= JUMP:
        return None
    return f"the clock is {_span(now - seen)} ahead of the last poll ({seen:%Y-%m-%d %H:%M} UTC)"


def _span(d: timedelta) -> str:
    hours = d.total_seconds() / 3600
    return f"{hours / 24:.1f} days" if hours >= 48 else f"{hours:.1f} hours" if hours >= 1 else f"{d.seconds // 60} min"


def refusal(database_url: str, now: datetime) -> str | None:
    """Why a command timing deadlines from `now` must not run (the poll's own check), or None."""
    return behind(latest(database_url), now)


HOME_MARK = ".pbem-last-run"  # in the home, outside the database: when a poll of this home last ran (at most
MARK_EVERY = timedelta(minutes=10)  # this long ago: an idle cron run writes no file)
MACHINE_MARKS = "pbem"  # the folder of this machine's marks of its homes, in the user's XDG state folder


@dataclass(frozen=True)
class Mark:
    """When a poll of a home last ran, as a mark kept outside its database says, and where that mark is kept."""

    when: datetime
    where: str


def machine_mark_file(home: Path) -> Path | None:
    """This machine's mark of `home`, outside the home: `$XDG_STATE_HOME/pbem/last-run-HASH` (by default under
        `~/.local/state`), HASH naming the home's folder.  Restoring the whole home from a backup (its database and
        `.pbem-last-run` together) brings both back to the backup's time; this file, in the user's own state folder,
        keeps the time of the newest poll this machine ran of that folder (None: no user folder to keep it in).  The same
    folder restored on another machine, or into another folder, has no mark there: not caught."""
    import hashlib
    import os
    import socket

    state = os.environ.get("XDG_STATE_HOME", "")
    if not state or not os.path.isabs(state):  # the XDG rule: a relative path is ignored
        user = os.environ.get("HOME", "")
        if not user or not os.path.isabs(user):
            return None
        state = os.path.join(user, ".local", "state")
    # the host too: a state folder shared between machines (an NFS home directory) keeps one mark per machine
    folder = f"{socket.gethostname()}:{home.expanduser().resolve()}"
    return Path(state) / MACHINE_MARKS / f"last-run-{hashlib.sha256(folder.encode()).hexdigest()[:24]}"


MARK_WAIT = 2.0  # seconds a mark another process holds a lease on is waited for (the holder is told to let go)


MARK_DEADLINE = 10.0  # seconds this machine's mark (the user's state folder) is read and written within


class MarkHeld(Exception):
    """A mark that cannot be read now: another process holds a lease on it and did not let go within `MARK_WAIT`,
    or its folder did not answer within `MARK_DEADLINE` (a network file system that hangs).  Read as none, a
    restored database would pass the check it exists for, so the run stops (exit 3), naming the mark."""


def _in_time(work: Callable[[], T], what: Path) -> T:
    """`work()` in a thread of its own, waited for `MARK_DEADLINE` seconds: this machine's mark is in the user's
    state folder, which may be on a network file system the home is not on; one that stops answering held the
    poll until its deadline and the watchdog's grace (15 minutes by default), the line not naming the mark.  The
    thread left waiting holds no lock of pbem's (`MarkHeld` ends the run, exit 3)."""
    import threading

    done: list[T] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            done.append(work())
        except BaseException as exc:  # (handed to the caller)
            failed.append(exc)

    worker = threading.Thread(target=run, name="pbem-mark", daemon=True)
    worker.start()
    worker.join(MARK_DEADLINE)
    if failed:
        raise failed[0]
    if not done:
        raise MarkHeld(
            f"the poll mark {what} did not answer within {MARK_DEADLINE:g} s (its folder on a network file system "
            "that hangs?); nothing was done, the next run reads it again"
        )
    return done[0]


def _read_mark(file: Path, wait: float | None = None) -> datetime | None:
    """The time a mark holds (None: no mark, or one that is not a mark).  A mark another process holds a lease on
    (a backup tool, a Samba oplock, an NFS delegation: the open fails with EAGAIN and the kernel tells the holder to
    let go) is tried again for `MARK_WAIT` seconds, then `MarkHeld`; it was read as no mark."""
    import errno
    import time

    from pbem.record.files import Unreadable, read_at_most

    wait = MARK_WAIT if wait is None else wait
    until = time.monotonic() + wait
    while True:
        try:
            when = datetime.fromisoformat(read_at_most(file, 4096).decode("utf-8").split("\n", 1)[0].strip())
            break
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EWOULDBLOCK):
                return None
            if time.monotonic() >= until:
                raise MarkHeld(
                    f"the poll mark {file} is held by another process (a lease) that did not let it go within "
                    f"{wait:g} s; nothing was done (the next run reads it: the kernel breaks a lease within "
                    "/proc/sys/fs/lease-break-time, 45 s by default)"
                ) from None
            time.sleep(0.05)
        except (Unreadable, UnicodeDecodeError, ValueError):
            return None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def home_mark(home: Path) -> datetime | None:
    """When the home's polls last ran as `mark_home` kept it in the home (None: no mark, or one that cannot be
    read)."""
    return _read_mark(home / HOME_MARK)


def marks(home: Path) -> list[Mark]:
    """The marks of `home`'s last poll kept outside its database: the home's own and this machine's."""
    found = []
    if (when := home_mark(home)) is not None:
        found.append(Mark(when, f"{home / HOME_MARK}"))
    file = machine_mark_file(home)
    if file is not None and (when := _in_time(lambda: _read_mark(file), file)) is not None:
        found.append(Mark(when, str(file)))
    return found


def mark_home(home: Path, now: datetime, held: list[Mark], again: bool = False) -> None:
    """Keep `now` as the home's last poll, in the home and in this machine's mark of it, when the newest mark
    held is `MARK_EVERY` old (or `again`: `--trust-clock`)."""
    from pbem.record.files import write_whole

    newest = max((m.when for m in held), default=None)
    if not (again or newest is None or now - newest >= MARK_EVERY):
        return
    stamp = now.astimezone(UTC).isoformat()
    machine = machine_mark_file(home)
    for file, text in ((home / HOME_MARK, stamp + "\n"), (machine, f"{stamp}\n{home.expanduser().resolve()}\n")):
        if file is None:
            continue
        try:
            if file is machine:  # (the user's state folder: within `MARK_DEADLINE`)
                _in_time(partial(_write_machine_mark, file, text), file)
            else:
                write_whole(file, text)
        except OSError as exc:  # a read-only home or user folder: the check is lost, the poll is not
            log.warning("%s could not be written: %s", file, exc.strerror or exc)
        except MarkHeld as exc:  # a state folder that hangs: the same
            log.warning("%s", str(exc).replace("nothing was done, the next run reads it again", "not written"))


def _write_machine_mark(file: Path, text: str) -> None:
    from pbem.record.files import write_whole

    file.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    write_whole(file, text)


def restored(seen: datetime | None, home: Path | list[Mark]) -> str | None:
    """Why a poll must not run on a database older than its home (one line), or None.

    The database's newest poll (`seen`) is earlier than a poll this home ran, as a mark kept outside the database
    says (`marks`: the home's `.pbem-last-run`, and this machine's mark of the home's folder, which survives the
    whole home being restored): the database was restored from a backup (alone, or with the whole home), or
    `[database] url` names another one.  What the games did after it (the orders read and acknowledged, the reports
    sent, whose receipts the players hold) is not in it, and a poll would play on from the older point, a history
    that forks from the one the players were sent.  A database that has seen no poll is new (`pbem init` again in
    the same folder) for this machine's mark, not for the home's own."""
    held = marks(home) if isinstance(home, Path) else home
    late = [m for m in held if (seen is not None or m.where.endswith(HOME_MARK)) and not _covers(seen, m.when)]
    if not late:
        return None
    mark = max(late, key=lambda m: m.when)
    what = f"its newest poll ran at {seen:%Y-%m-%d %H:%M} UTC" if seen is not None else "it has seen no poll"
    whole = "" if mark.where.endswith(HOME_MARK) else ", as this machine's mark of the home says (" + mark.where + ")"
    return (
        f"the database is older than this home: {what}, but a poll of this home ran at {mark.when:%Y-%m-%d %H:%M} "
        f"UTC{whole} (a backup restored, the database or the whole home, or [database] url names another "
        "database?); nothing was done: the orders read and the reports sent after its time are not in it. If this "
        "is the database to go on with, run once: pbem poll --trust-clock"
    )


def _covers(seen: datetime | None, marked: datetime) -> bool:
    return seen is not None and seen >= marked - TOLERANCE

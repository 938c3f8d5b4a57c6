"""Per-poll budgets (issue 26): a deadline for the whole run, and a lock that says when its holder is stuck.

`[mail] poll_deadline` (900 s) bounds one poll.  The watchdog
(`pbem.mail.transports.deadline`) shuts the run's sockets at the deadline, so
a trickling server cannot hold it; between messages the poll checks it
(`stop_reading`), files what it finished and leaves the rest in the inbox;
`overrun` then makes the run exit 3 with one line saying so (cron mails it).

The home's lock file holds the pid and start time of the poll holding it.  A
poll that finds the lock taken exits 0 when the holder is within its
deadline (an ordinary overlap of cron runs), and exits 3 with one line when
the holder has held it past deadline + grace: the holder's own backstop
should have ended it, so something outside pbem stopped it (a suspended
process, a hung file system) and the moderator must look.  A dead holder's
lock is free: `flock` locks end with their process.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import IO, Any

from pbem.mail.transports import deadline
from pbem.mail.transports.seam import TransportError


class Overrun(TransportError):
    """The poll passed its deadline (exit 3, one line)."""


def stop_reading(summary: Any) -> bool:
    """True once the run is past its deadline (and notes it in `summary` once)."""
    if not deadline.expired():
        return False
    note = "deadline"
    if note not in summary.notes:
        summary.notes.append(note)
    return True


def overrun(read: int | None) -> Overrun | None:
    """The error to end an expired run with (`read`: the messages it read, if known), or None."""
    dog = deadline.current()
    if dog is None or not dog.expired:
        return None
    after = f" after reading {read} message(s)" if read is not None else ""
    return Overrun(
        f"the poll passed its deadline of {dog.seconds:.0f} s{after}; what it finished is filed, the rest stays "
        "in the inbox for the next run ([mail] poll_deadline)"
    )


@dataclass(frozen=True)
class Holder:
    pid: int
    started: float  # time.time() when it took the lock


def write_holder(lock: IO[str]) -> None:
    lock.seek(0)
    lock.truncate()
    lock.write(f"{os.getpid()} {time.time():.0f}\n")
    lock.flush()


def read_holder(path: os.PathLike[str] | str) -> Holder | None:
    try:
        with open(path) as f:
            pid, started = f.read().split()[:2]
        return Holder(int(pid), float(started))
    except (OSError, ValueError):
        return None


def stuck(holder: Holder | None, poll_deadline: float, now: float | None = None) -> str | None:
    """Why the lock's holder is stuck (one line), or None while it is within its deadline and grace."""
    if holder is None:
        return None
    held = (now if now is not None else time.time()) - holder.started
    if held <= poll_deadline + deadline.GRACE:
        return None
    since = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(holder.started))
    return (
        f"another pbem poll (pid {holder.pid}) has held this home's lock since {since} ({held / 60:.0f} min, past "
        f"the poll deadline of {poll_deadline:.0f} s): it is stuck; look at that process (nothing was read)"
    )

"""Per-poll budgets (issue 26): a deadline for the whole run.

`[mail] poll_deadline` (900 s) bounds one poll.  The watchdog
(`pbem.mail.transports.deadline`) shuts the run's sockets at the deadline, so
a trickling server cannot hold it; between messages the poll checks it
(`stop_reading`), files what it finished and leaves the rest in the inbox;
`overrun` then makes the run exit 3 with one line saying so (cron mails it).

The moderator gets one mail a day about overruns (`pbem.app.alerts`).  The
home's lock names its holder and its heartbeat; a dead or stuck holder's lock
is taken over (`pbem.app.polllock`).
"""

from __future__ import annotations

from typing import Any

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

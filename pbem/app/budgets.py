"""Per-poll budgets (issue 26): a deadline for the whole run.

`[mail] poll_deadline` (900 s) bounds one poll.  The watchdog
(`pbem.mail.transports.deadline`) shuts the run's sockets at the deadline, so
a trickling server cannot hold it; between messages the poll checks it
(`stop_reading`), files what it finished and leaves the rest in the inbox;
`overrun` then makes the run exit 3 with one line saying so (cron mails it).  A game's deadline that fell
due in the last `UNREAD_HOLD` waits for the run that has read the mail left in the inbox: mail that came before
it is read before it, as in a run that read everything.

The moderator gets one mail a day about overruns (`pbem.app.alerts`).  The
home's lock names its holder and its heartbeat; a dead or stuck holder's lock
is taken over (`pbem.app.polllock`).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from pbem.mail.transports import deadline
from pbem.mail.transports.seam import TransportError


class Overrun(TransportError):
    """The poll passed its deadline (exit 3, one line)."""


#: A run that stopped reading at its deadline leaves mail in the inbox that may have come before a game's deadline
#: and answer it: that deadline waits for the run that reads it, unless it is this much overdue (a flood that
#: fills every run's budget delays a game by at most this, never stops it).
UNREAD_HOLD = timedelta(hours=6)
UNREAD_NOTE = (
    "deadlines that fell due less than 6 hours ago wait for the next run: mail still in the inbox may answer them"
)


def unread_left(inbox: object, summary: Any) -> bool:
    """True when the inbox stopped at its own budget of messages a run (IMAP: `MOST_A_RUN`, costs21) with mail
    left unread, said once in `summary`: the next runs read the rest, oldest first, and until one has read it all
    its deadlines wait as those of a run stopped at its deadline do (`UNREAD_HOLD`).  So do a run's whose server
    answered a FETCH with another message than asked (`ImapInbox.mismatched`: left in the inbox, unread)."""
    if getattr(inbox, "mismatched", None):  # left unread, as the budget leaves mail (costs25; told by `filing.tell`)
        return True
    if not getattr(inbox, "more", False):
        return False
    note = (
        f"the inbox holds more mail than one run reads ({getattr(inbox, 'most', 0):,} messages): the next runs read "
        "the rest, oldest first"
    )
    summary.notes.append(note)
    summary.told.append(note)
    return True


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
        "in the inbox for the next run, and so do the games' deadlines it may answer ([mail] poll_deadline)"
    )

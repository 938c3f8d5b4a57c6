"""When reminders are due (pure; issue 16): each configured offset before a step's deadline, none in its
first half, at most one per look.  Used by `pbem.app.deadlines` (sending them) and `pbem.app.outages`
(which reminders an outage swallowed).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta


def reminder_times(opened: datetime, due: datetime, offsets: Sequence[timedelta]) -> list[datetime]:
    """When a step's reminders are due (issue 16): each configured offset before the deadline, but none in
    the first half of the step.  The offsets that fall there make one reminder at the middle, unless a
    later reminder comes less than a quarter of the step after it (then that one suffices).

    A step is short when it is at most twice the smallest offset: every offset then falls in the first
    half, so a short step has exactly one reminder, at its middle.  Every time is after `opened`, so no
    reminder is due in the poll that opened the step.
    """
    if due <= opened:
        return []
    length = due - opened
    half = opened + length / 2
    positive = [o for o in offsets if o > timedelta(0)]
    kept = sorted({due - o for o in positive if due - o >= half})
    if any(due - o < half for o in positive) and (not kept or kept[0] - half >= length / 4):
        kept.insert(0, half)
    return kept


def short_step(opened: datetime, due: datetime, offsets: Sequence[timedelta]) -> bool:
    """Is this step short (at most one reminder, at its middle)?"""
    positive = [o for o in offsets if o > timedelta(0)]
    return bool(positive) and due - opened <= 2 * min(positive)


def reminder_at(opened: datetime, due: datetime, offsets: Sequence[timedelta], when: datetime) -> datetime | None:
    """The one reminder to send at `when`: the newest reminder time passed (an earlier one missed by a late
    poll is not sent as well), none once the deadline passed."""
    if when >= due:
        return None
    passed = [t for t in reminder_times(opened, due, offsets) if t <= when]
    return passed[-1] if passed else None


def next_look(opened: datetime, due: datetime, offsets: Sequence[timedelta], when: datetime) -> datetime | None:
    """The first reminder time after `when` (None: no more reminders before the deadline)."""
    return next((t for t in reminder_times(opened, due, offsets) if t > when), None)


def look_at_reminders(
    opened: datetime, due: datetime, offsets: Sequence[timedelta], look: datetime, when: datetime
) -> tuple[datetime | None, datetime | None]:
    """A look at a step's reminders, due at `look`, made at `when`: (the reminder time to send now, if one
    passed since the look was set; when to look again, None when no reminder is left before the deadline)."""
    at = reminder_at(opened, due, offsets, when)
    return (at if at is not None and at >= look else None), next_look(opened, due, offsets, when)

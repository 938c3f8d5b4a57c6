"""Outages: when pbem did not run for a while, the time players lost is given back.

Every `pbem poll` records when it ran (`pbem.record.marks`, idle runs included).
When the previous run is older than `[games] outage_after` (default 6 h), pbem was
down, or its cron was: the mail players sent meanwhile waited at the provider, but
deadlines and reminders that fell inside the gap would now be applied at once,
against players who were never warned.  So before anything is applied, every running
game whose deadline or one of whose reminders fell inside the gap has that deadline
moved later by the gap (its reminders follow it): a public moderator event of action
`outage` in the game's record (`verify` replays it like an extension), a notice to
every player, and one mail to the moderator listing what moved.  DPjudge stops and
alerts on a clock warp; njudge moves deadlines; pbem does the latter, and says so.
Deciding is pure (`decide_outage`); `shift_for_outage` loads and applies.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import groupby

from pbem.app.control import Command, announce
from pbem.app.decision import Decision, Effect, NewDeadline
from pbem.app.reminders import reminder_times
from pbem.app.settle import settle
from pbem.home.app import Home
from pbem.mail.outbound.outgoing import Mail
from pbem.record import due, site, store
from pbem.trust.chain import iso

log = logging.getLogger("pbem.outages")


def _stamp(at: datetime) -> str:
    return f"{at:%Y-%m-%d %H:%M} UTC"


def gap_of(previous: datetime | None, when: datetime, outage_after: timedelta) -> timedelta | None:
    """The outage to make good: the time since the previous run when it is longer than `outage_after`."""
    if previous is None or outage_after <= timedelta(0):
        return None
    gap = when - previous
    return gap if gap > outage_after else None


def fell_inside(row: due.DueRow, start: datetime, end: datetime, reminders: Sequence[timedelta]) -> bool:
    """Did the step's deadline, or one of its reminders, fall inside the outage (start, end]?"""
    times = [row.deadline_at, *reminder_times(row.opened_at, row.deadline_at, reminders)]
    return any(start < t <= end for t in times)


@dataclass(frozen=True)
class Moved:
    """One game's deadline moved by an outage."""

    game: str
    step: str
    was: datetime
    now: datetime


def decide_outage(
    loaded: store.Loaded, step: str, deadline: datetime, start: datetime, end: datetime
) -> tuple[Decision, Moved]:
    """The outage (start, end] swallowed a deadline or reminder of `step`: move its deadline later by the gap."""
    gap = end - start
    new_due = deadline + gap
    hours = round(gap.total_seconds() / 3600, 1)
    text = (
        f"pbem did not run from {_stamp(start)} to {_stamp(end)} ({hours:g} h); "
        f"the deadline moves by that much, to {_stamp(new_due)}."
    )
    facts: dict[str, object] = {"step": step, "deadline": iso(new_due), "from": iso(start), "to": iso(end)}
    effects: list[Effect] = [NewDeadline(step, new_due, f"outage of {gap}")]
    effects += announce(
        loaded,
        "outage",
        text,
        str(gap),
        facts=facts,
        due=_stamp(new_due),
        start=_stamp(start),
        end=_stamp(end),
        hours=f"{hours:g}",
    )
    return Decision(game=loaded.game.name, effects=effects), Moved(loaded.game.name, step, deadline, new_due)


def decide_moderator_mail(moved: list[Moved], start: datetime, end: datetime, moderator: str) -> Mail:
    """The one mail that tells the moderator about the outage and every deadline it moved."""
    ctx = {
        "start": _stamp(start),
        "end": _stamp(end),
        "hours": f"{round((end - start).total_seconds() / 3600, 1):g}",
        "moved": [{"game": m.game, "was": _stamp(m.was), "now": _stamp(m.now)} for m in moved],
    }
    return Mail(moderator, "outage_moderator", ctx, "alert", ("outage", iso(start), iso(end)))


def shift_for_outage(home: Home, previous: datetime | None, when: datetime) -> list[Moved]:
    """Apply the outage rule before a poll: one transaction per game moved, then the moderator's mail."""
    gap = gap_of(previous, when, home.policy.outage_after)
    if gap is None or previous is None:
        return []
    moved: list[Moved] = []
    with home.units() as s:
        rows = due.due_now(s, when)
    for gid, group in groupby(rows, key=lambda r: r.game_id):
        rows_of = [r for r in group if r.deadline_at > previous]
        if not any(fell_inside(r, previous, when, home.policy.reminders) for r in rows_of):
            continue
        with home.units() as s:
            name = site.game_name(s, gid)
            if name is None:
                continue
            c = Command(s, name)
            if c.step is None or c.due is None or c.control != "running" or c.loaded.over:
                continue
            d, m = decide_outage(c.loaded, c.step, c.due, previous, when)
            c.apply(home.policy, d, when)
        moved.append(m)
        log.warning("outage: %s's deadline moved from %s to %s", m.game, _stamp(m.was), _stamp(m.now))
    with home.units() as s:
        mail = decide_moderator_mail(moved, previous, when, home.policy.moderator_address)
        settle(s, home.policy, Decision(effects=[mail]), when)
        s.commit()
    return moved

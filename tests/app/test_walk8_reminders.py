"""walk8's L10: reminders whose step is shorter than their lead time (`[games] reminders`), decided and generated.

What happens (README, "[games] reminders"; `pbem.app.reminders.reminder_times`): each lead that falls in the first
half of a step (a lead as long as the step or longer, and any over half of it) is no reminder of its own; together
they make at most one, at the step's middle, unless a later lead's reminder comes within a quarter of the step after
it.  So a step shorter than a lead gets at most one reminder for all such leads, and a step at most twice its shortest
lead gets at most one in all; no reminder is sent before the step opened (none in the poll that opened it), none at
or after its deadline, and none twice.

The generator: 40 step lengths from 1 minute to 10 days (a geometric grid, with the leads themselves and twice them
added), 12 sets of leads (5 min to 3 days, one to three each) and 4 poll cadences (every 10 s, 1 min, 5 min, 1 h),
each poll sequence run as `run_deadlines` treats a step's `due` rows (`simulate` of
tests/app/test_time_and_control_policy.py): 2,029 cases, 2,038 reminders, 1,167 cases where a lead is longer than
half the step.  It is pure and runs whole in the suite (0.5 s): 0 cases failing on c83d8ea7 and now (the rule held; L10 asked for it decided, documented and generated).
"""

from __future__ import annotations

import itertools
from datetime import timedelta

from pbem.app.reminders import look_at_reminders, reminder_times
from pbem.record.due import middle
from tests.app.plain import WHEN

LEADS = [
    [timedelta(minutes=5)],
    [timedelta(minutes=30)],
    [timedelta(hours=1)],
    [timedelta(hours=2)],
    [timedelta(hours=24)],
    [timedelta(days=3)],
    [timedelta(hours=24), timedelta(hours=2)],  # the default
    [timedelta(hours=1), timedelta(minutes=5)],
    [timedelta(days=3), timedelta(hours=24)],
    [timedelta(days=3), timedelta(hours=1), timedelta(minutes=5)],
    [timedelta(hours=2), timedelta(hours=2)],
    [timedelta(hours=48), timedelta(minutes=30), timedelta(hours=6)],
]
CADENCES = [timedelta(seconds=10), timedelta(minutes=1), timedelta(minutes=5), timedelta(hours=1)]


def _lengths(leads: list[timedelta]) -> list[timedelta]:
    grid = [timedelta(minutes=1) * (1.25**k) for k in range(40)]  # 1 min .. about 10 days
    return sorted({*grid, *leads, *(2 * lead for lead in leads)})


def _sent(length: timedelta, leads: list[timedelta], every: timedelta) -> list[tuple[timedelta, timedelta]]:
    opened, due = WHEN, WHEN + length
    look = middle(opened, due)
    sent = []
    when = opened + every  # the poll that opened the step sends no reminder
    while when < due and look is not None:
        if look <= when:
            at, look = look_at_reminders(opened, due, leads, look, when)
            if at is not None:
                sent.append((when - opened, at - opened))
        when += every
    return sent


def _wrong(length: timedelta, leads: list[timedelta], every: timedelta) -> str:
    sent = _sent(length, leads, every)
    times = [at for _, at in sent]
    if any(not timedelta(0) < when < length for when, _ in sent):
        return "a reminder outside the step"
    if any(not timedelta(0) < at <= when for when, at in sent):
        return "a reminder for a time not yet come, or before the step opened"
    if len(set(times)) != len(times):
        return "a reminder twice"
    longer = [lead for lead in leads if length - lead < length / 2]  # in the first half: the step is short for them
    own = {length - lead for lead in leads if lead not in longer}
    if len([at for at in times if at not in own]) > (1 if longer else 0):
        return "more than one reminder for the leads longer than half the step"
    if length <= 2 * min(leads) and len(sent) > 1:
        return "more than one reminder in a step at most twice its shortest lead"
    if any(at not in reminder_times(WHEN, WHEN + length, leads) for at in [WHEN + t for t in times]):
        return "a reminder at a time the rule does not give"
    return ""


def test_reminders_of_leads_longer_than_the_step_make_at_most_one_never_outside_the_step() -> None:
    cases = [
        (length, leads, every)
        for leads, every in itertools.product(LEADS, CADENCES)
        for length in _lengths(leads)
        if length / every <= 20_000  # (a week polled every 10 s: the same rule as every minute, 60,000 polls)
    ]
    wrong = [(c, why) for c in cases if (why := _wrong(*c))]
    assert len(cases) > 1_500 and wrong == [], wrong[:5]

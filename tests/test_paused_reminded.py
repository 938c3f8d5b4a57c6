"""A game paused for weeks is told to the moderator weekly; its players are told nothing new (months4).

`pbem game pause` told the players once that nothing is needed until the game resumes, and nobody heard of the game
again: paused and forgotten, it sat paused for good.  Now each week it stays paused the moderator gets one
`paused_game` mail (since when, how long, the commands to resume or abandon it), at the first poll after each week;
resuming or abandoning it ends them; the players get nothing while it is paused but the pause notice itself.

The generator (`plan`): seeded sequences over about five weeks of polls 1 to 5 days apart (at drawn hours), between
which the moderator pauses the game, resumes it (sometimes after several weeks), pauses it again, or abandons it.
The oracle, at each poll: the moderator gets a reminder iff the game is paused and a whole week since the pause
ended between the previous poll (or the pause) and this one; no player gets any mail while the game is paused but
the pause notice; a reminder names the pause's time and the resume and abandon commands.

Of 40 sequences (`PBEM_PAUSED_CASES=40`), 31 fail on 90a53973 (a pause held over a week boundary, and no reminder,
ever) and none now; no sequence mails a player while paused, before or after.  The suite runs `CASES` (1).  Cost:
0.6 s at a load of 14 (`python3 -m pytest tests/test_paused_reminded.py --durations=5 -n 0`).
"""

from __future__ import annotations

import os
import random
from datetime import datetime, timedelta

import pytest

from tests.conftest import sent_mail
from tests.test_moderator import new_game, run_poll

CASES = int(os.environ.get("PBEM_PAUSED_CASES", "1"))
MOD = "moderator@pbem.test"
WEEK = timedelta(days=7)


def plan(seed: int) -> list[tuple[timedelta, str]]:
    """(time to advance, the moderator's action before the poll: "", pause, resume, abandon), about 35 days."""
    rng = random.Random(seed)
    out: list[tuple[timedelta, str]] = [(timedelta(hours=1), "pause")]
    total = timedelta(0)
    paused = True
    while total < timedelta(days=35):
        step = timedelta(days=rng.randint(1, 5), hours=rng.randint(0, 23))
        total += step
        action = ""
        r = rng.random()
        if paused and r < 0.12:
            action, paused = "resume", False
        elif not paused and r < 0.5:
            action, paused = "pause", True
        elif r > 0.98:
            action = "abandon"
        out.append((step, action))
        if action == "abandon":
            break
    return out


def _act(home, clock, action: str) -> str:
    from pbem.app import control
    from pbem.app.decision import GameError
    from pbem.home.app import Home

    try:
        getattr(control, action)(Home.of(home, clock=clock), "hh1", clock.now)
    except GameError:
        return ""
    return action


@pytest.mark.parametrize("seed", range(CASES))
def test_a_paused_game_is_told_to_the_moderator_weekly_and_to_nobody_else(home, clock, seed: int) -> None:
    new_game(home, clock)
    run_poll(home, clock)
    seen: set[str] = set()
    sent_mail(home, seen)
    paused_at: datetime | None = None
    ended = False
    last = clock.now
    for step, action in plan(seed):
        clock.now += step
        done = _act(home, clock, action) if action and not ended else ""
        if done == "pause":
            paused_at = clock.now
        elif done in ("resume", "abandon"):
            paused_at, ended = None, done == "abandon"
        run_poll(home, clock)
        mails = sent_mail(home, seen)
        told = [m for m in mails if m["To"].addresses[0].addr_spec == MOD and "] paused for " in str(m["Subject"])]
        want = 0
        if paused_at is not None and done != "pause":
            want = int((clock.now - paused_at) // WEEK > (max(last, paused_at) - paused_at) // WEEK)
        assert len(told) == want, (seed, clock.now, paused_at, [str(m["Subject"]) for m in mails])
        for m in told:
            text = m.get_body(("plain",)).get_content()
            assert f"since {paused_at:%Y-%m-%d %H:%M} UTC" in text and "pbem game resume hh1" in text, text
        if paused_at is not None:
            players = [m for m in mails if m["To"].addresses[0].addr_spec != MOD]
            allowed = "paused the game" if done == "pause" else "\0"
            assert all(allowed in str(m["Subject"]) for m in players), [str(m["Subject"]) for m in players]
        last = clock.now

"""A dead address is told to the moderator at once, then spaced out: after 1, 3 and 7 days and weekly (months4).

months3 told the moderator of a seat's bouncing address once a day for as long as pbem mailed it: a dead address in
a months-long game was 30 notices a month.  Now each address's run of bounces is kept (`address_bounces`): told at
the run's first bounce, then at the first bounce on or after 1, 3 and 7 days into it and every 7 days after; a
week without a bounce ends the run and the next bounce is told at once.  `pbem game waiting` and `pbem game show`
list the seat meanwhile.

The generator (`days`): seeded sequences of bounces of Alice's address over `SPAN` days (each day it bounces with a
drawn chance, one to three times at drawn hours; sometimes a quiet stretch of 8 to 12 days, ending the run).  The
oracle (`expected`, the schedule written out again independently of `pbem.app.bounced.spaced`): which bounces are
told; and, end to end, every notice to the moderator alone, saying how many bounces since when, and `pbem game
waiting` and `pbem game show` naming the address while its run goes on.

End to end, of 8 sequences of 60 days (`PBEM_SPACED_CASES=8 PBEM_SPACED_DAYS=60`), all 8 fail on 90a53973 (a
notice every day it bounced: 218 notices for 411 bounces, 13.6 a month per dead address) and none now (87: 5.4 a
month).  The pure generator checks 200 sequences of 120 days against the same oracle (`spaced` did not exist on
90a53973).  The suite runs one sequence of 12 days end to end and 200 pure ones.  Cost: 5.3 s for the file at a
load of 14 (`python3 -m pytest tests/test_bounces_spaced.py --durations=5 -n 0`).
"""

from __future__ import annotations

import bisect
import os
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.conftest import deliver
from tests.test_bounces_told import MODERATOR, _home, _returned, _sent, bounce

CASES = int(os.environ.get("PBEM_SPACED_CASES", "1"))
SPAN = int(os.environ.get("PBEM_SPACED_DAYS", "12"))
ALICE = "alice@players.test"  # the player the game waits for (`pbem game waiting` lists her)
START = datetime(2026, 1, 5, 12, 5, tzinfo=UTC)


def days(seed: int, span: int) -> list[datetime]:
    """The times Alice's address bounces, over `span` days from `START`."""
    rng = random.Random(seed)
    chance = rng.choice([0.3, 0.6, 0.9, 1.0])
    out: list[datetime] = []
    day = 0
    while day < span:
        if rng.random() < 0.06:  # a quiet stretch: the run ends
            day += rng.randint(8, 12)
            continue
        if rng.random() < chance:
            hours = sorted(rng.uniform(0.2, 23.5) for _ in range(rng.randint(1, 3)))
            out += [START + timedelta(days=day, hours=h) for h in hours]
        day += 1
    return out or [START + timedelta(hours=1)]


def expected(times: list[datetime]) -> list[bool]:
    """Which bounces are told: the schedule written out (0, 1, 3, 7, 14, 21, ... days into a run; a run ends after
    7 days without a bounce)."""
    marks = [0, 1, 3, 7] + [7 * k for k in range(2, 200)]
    out: list[bool] = []
    first = last = None
    nxt = 0
    for t in times:
        if last is None or t - last >= timedelta(days=7):
            first, nxt = t, 1
            out.append(True)
        else:
            assert first is not None
            last_due = bisect.bisect_right(marks, (t - first) / timedelta(days=1)) - 1  # the newest mark passed
            told = last_due >= nxt
            nxt = last_due + 1 if told else nxt
            out.append(told)
        last = t
    return out


def test_the_schedule_of_notices_of_a_run_of_bounces() -> None:
    from pbem.app.bounced import spaced

    wrong = []
    for seed in range(200):
        times = days(seed, 120)
        run, got = None, []
        for t in times:
            run, tell = spaced(run, ALICE, "550 no such user", t)
            got.append(tell)
        if got != expected(times):
            wrong.append((seed, [t.isoformat() for t, g in zip(times, got, strict=True) if g]))
    assert not wrong, wrong


@pytest.mark.parametrize("seed", range(CASES))
def test_a_dead_address_is_told_spaced_out_and_listed(tmp_path: Path, seed: int) -> None:
    from pbem.app import control, games, waiting
    from pbem.app.cron import run_poll
    from pbem.home.app import Home

    cfg, clock = _home(tmp_path)
    control.pause(Home.of(cfg, clock=clock), "hb1", clock.now)  # no deadline passes: the game runs all along
    returned = _returned(cfg)
    seen: set[str] = set()
    _sent(cfg, seen)
    rng = random.Random(seed)
    times = days(seed, SPAN)
    want = expected(times)
    got: list[bool] = []
    for at in times:
        clock.now = at
        deliver(cfg, bounce(rng, rng.choice(["dsn_full", "dsn_headers", "qmail"]), ALICE, returned[ALICE]))
        run_poll(cfg, clock=clock)
        told = [(to, s, text) for to, s, text in _sent(cfg, seen) if s.endswith(" bounced")]
        assert all(to == MODERATOR for to, _, _ in told), told
        got.append(bool(told))
        for _, _, text in told:
            assert "You are told of this address again at its first bounce after" in text, text
    assert got == want, [(t.isoformat(), g, w) for t, g, w in zip(times, got, want, strict=True) if g != w]
    clock.now = times[-1] + timedelta(hours=1)
    lines = waiting.listed(waiting.waiting(Home.of(cfg, clock=clock), clock.now), clock.now)
    assert any("Alice:" in ln and "MAIL BOUNCES" in ln and ALICE in ln for ln in lines), lines
    assert not [ln for ln in lines if "\x1b" in ln or "\u202e" in ln], lines  # a bounce's words, escaped
    shown = games.show_game(Home.of(cfg, clock=clock), "hb1")
    assert [ln for ln in shown.bouncing if ALICE in ln and "pbem game address hb1 Alice" in ln], shown.bouncing
    later = Home.of(cfg, clock=lambda: times[-1] + timedelta(days=8))  # a quiet week: the run is over
    assert not games.show_game(later, "hb1").bouncing


def test_the_moderators_own_address_bouncing_is_logged_spaced_out(tmp_path: Path, caplog) -> None:
    """An alert of pbem's to the moderator that bounces was told to nobody (no seat holds the moderator's address):
    now the log says it (cron.log), on the same schedule as a seat's notices, and no mail is queued for it.  The
    generator's sequence of seed 0 over 8 days (its bounces of the moderator's address): on 90a53973 none is logged."""
    import logging

    from pbem.app.cron import run_poll

    cfg, clock = _home(tmp_path)
    seen: set[str] = set()
    _sent(cfg, seen)
    deliver(cfg, bounce(random.Random(1), "dsn_full", ALICE, _returned(cfg)[ALICE]))
    run_poll(cfg, clock=clock)  # Alice's address bounced: the moderator's notice, whose bounce comes back
    notice = _returned(cfg)[MODERATOR]
    _sent(cfg, seen)
    times = [t for t in days(0, 8) if t > clock.now]
    rng = random.Random(0)
    got = []
    for at in times:
        clock.now = at
        deliver(cfg, bounce(rng, rng.choice(["dsn_full", "dsn_headers", "qmail"]), MODERATOR, notice))
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="pbem.bounced"):
            run_poll(cfg, clock=clock)
        said = [r.getMessage() for r in caplog.records if r.name == "pbem.bounced"]
        assert all(MODERATOR in m and "every alert pbem sends you is lost" in m for m in said), said
        assert not [m for m in said if "\x1b" in m or "\u202e" in m], said
        got.append(bool(said))
        assert not [s for _, s, _ in _sent(cfg, seen) if "bounced" in s]  # no mail for it
    assert got == expected(times), got

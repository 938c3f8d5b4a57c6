"""What a year's calendar does to a judge, each against an oracle written from the plan (months6, part B).

pbem keeps every deadline in UTC (the README's deadlines, reminders and notices say "YYYY-MM-DD HH:MM UTC"; pbem.toml
has no time zone), while the moderator's cron runs by the machine's local time.  The generator (`plan`): seeded
runs of a real home (Maildir, SQLite; three players who never answer, so every deadline applies the defaults and
opens the next step) whose one game's steps cross what a calendar does:

* `leap`: a step due on 29 February 2028; `year_end`: steps across 31 December 2026;
* `dst_spring`, `dst_autumn`: steps across the daylight-saving changes of the moderator's zone (Europe/Berlin,
  America/New_York or Australia/Sydney, set as the process's TZ): the polls come from a crontab of local times
  (every 30, 60 or 120 local minutes: the hour that does not exist is skipped, the hour that repeats is run twice);
* `cron_stopped`: cron stopped for 3 days, then resumed;
* `ntp_back`: the machine's clock 1 hour ahead for some hours, then stepped back by NTP.

The oracle (from the README's rules, not from pbem's code), after every poll: an accepted poll leaves no deadline
due (the open step's deadline is after the poll's time: none skipped, none left for a later run); each step's
deadline is applied once, never before its time by the machine's clock, each player told once per step; a
reminder is sent at most once a poll to a player, never at or after the deadline, and says the deadline that is
in force and how long is left, true to the hour; a gap over `[games] outage_after` (6 h) between two runs moves a
deadline or reminder inside it later by exactly the gap, each player told once in that run ("When pbem was down");
a clock behind the newest time the record has seen by over 5 minutes changes nothing (exit 3) until it catches up.

Of 60 runs (`PBEM_CALENDAR_CASES=60`, 6 simulated days each: 10 of each calendar), 0 fail on 8aa88d6c and 0 on
this branch: UTC deadlines are indifferent to the zone and its changes, and the outage and clock rules hold as the
README says (figures in the report).  The suite runs 2 runs of 2 days (`SAMPLE`, `PBEM_CALENDAR_DAYS`): 1.7 s at a load of 15 (`python3 -m pytest
tests/test_calendar_year.py --durations=5 -n 0`); the 60 runs took 469 s on 8aa88d6c and 608 s here.
"""

from __future__ import annotations

import os
import random
import re
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tests.conftest import CODES, body_of, sent_mail

CASES = int(os.environ.get("PBEM_CALENDAR_CASES", "0"))  # 0: the suite's sample, `SAMPLE`
DAYS = int(os.environ.get("PBEM_CALENDAR_DAYS", "2"))
SAMPLE = [40, 26]  # a cron stopped 3 days (5 polls), a spring DST change in Sydney (25 polls): cheap ones
MOD = "moderator@pbem.test"
KINDS = ["leap", "year_end", "dst_spring", "dst_autumn", "cron_stopped", "ntp_back"]
ZONES = ["Europe/Berlin", "America/New_York", "Australia/Sydney"]
STAMP = re.compile(r"(\d{4}-\d\d-\d\d \d\d:\d\d) UTC")
LEFT = re.compile(r"Deadline: (\d{4}-\d\d-\d\d \d\d:\d\d) UTC \(in about ([^)]*)\)")
OUTAGE = timedelta(hours=6)
STEP = timedelta(hours=48)

#: The first deadline (UTC) each calendar puts a step's due near, and the zone's change it crosses.
NEAR = {
    "leap": datetime(2028, 2, 29, 10, 0, tzinfo=UTC),
    "year_end": datetime(2027, 1, 1, 0, 30, tzinfo=UTC),
    "cron_stopped": datetime(2026, 6, 10, 12, 0, tzinfo=UTC),
    "ntp_back": datetime(2026, 6, 10, 12, 0, tzinfo=UTC),
}
DST = {  # (spring, autumn) of each zone, 2026, as UTC instants
    "Europe/Berlin": (datetime(2026, 3, 29, 1, 0, tzinfo=UTC), datetime(2026, 10, 25, 1, 0, tzinfo=UTC)),
    "America/New_York": (datetime(2026, 3, 8, 7, 0, tzinfo=UTC), datetime(2026, 11, 1, 6, 0, tzinfo=UTC)),
    "Australia/Sydney": (datetime(2026, 10, 3, 16, 0, tzinfo=UTC), datetime(2026, 4, 4, 16, 0, tzinfo=UTC)),
}


def plan(seed: int, days: int) -> dict:
    rng = random.Random(seed)
    kind, zone = KINDS[seed % len(KINDS)], rng.choice(ZONES)
    near = DST[zone][0 if kind == "dst_spring" else 1] if kind.startswith("dst") else NEAR[kind]
    start = near - STEP + timedelta(minutes=rng.randint(-600, 600))  # the game made so its first due is near
    every = 30 if kind == "ntp_back" else rng.choice([30, 60, 120])  # (NTP's hour back: refused polls need <1 h)
    local = start.astimezone(ZoneInfo(zone)).replace(tzinfo=None, second=0, microsecond=0)
    local -= timedelta(minutes=local.minute % every)
    polls: list[datetime] = []
    while not polls or polls[-1] < start + timedelta(days=days):  # the crontab: local times, as cron reads them
        for fold in (0, 1):
            at = local.replace(tzinfo=ZoneInfo(zone), fold=fold)
            if at.astimezone(UTC).astimezone(ZoneInfo(zone)).replace(tzinfo=None) == local:  # it exists
                polls.append(at.astimezone(UTC))
        local += timedelta(minutes=every)
    polls = sorted({p for p in polls if p > start})
    stop = ahead = None
    if kind == "cron_stopped":
        a = start + timedelta(hours=rng.randint(6, 60))
        stop = (a, a + timedelta(days=3))
        polls = [p for p in polls if not a < p < stop[1]]
        polls += [] if any(p >= stop[1] for p in polls) else [stop[1] + timedelta(minutes=5)]
    if kind == "ntp_back":
        a = start + timedelta(hours=rng.randint(4, 60))
        ahead = (a, a + timedelta(hours=rng.randint(2, 10)))  # readings 1 h ahead inside, then stepped back
    return {"kind": kind, "zone": zone, "start": start, "polls": polls, "stop": stop, "ahead": ahead}


def _reminder_times(opened: datetime, due: datetime) -> list[datetime]:
    """README: reminders 24 h and 2 h before the deadline; none in the step's first half (a lead of half the
    step or more gives one at the middle)."""
    half = opened + (due - opened) / 2
    return sorted({max(due - lead, half) for lead in (timedelta(hours=24), timedelta(hours=2))})


def _state(cfg) -> tuple[str | None, datetime | None, bool]:
    from pbem.home.app import Home
    from pbem.record import store

    with Home.of(cfg).units() as s:
        game = store.game_by_name(s, "cal1")
        assert game is not None and game.id is not None
        over = store.load(s, game).over
        dl = store.current_deadline(s, game.id)
        return (dl.step, store.aware(dl.due_at), bool(over)) if dl else (None, None, bool(over))


def _hours(text: str) -> float | None:
    m = re.match(r"(\d+) (minute|hour|day)s?", text.strip())
    if not m:
        return None
    return int(m.group(1)) * {"minute": 1 / 60, "hour": 1, "day": 24}[m.group(2)]


class Oracle:
    """The game as the plan and the README's rules say it must be after each poll."""

    def __init__(self, step: str | None, due: datetime | None, start: datetime) -> None:
        self.step, self.due, self.over, self.opened = step, due, False, start
        self.last = self.newest = start  # the last accepted run's reading, and the newest the record has seen
        self.applied: set[tuple[str, str]] = set()  # (player, step's due) told "Deadline passed"
        self.wrong: list[str] = []

    def outage(self, at: datetime, mails: list, now: tuple[str | None, datetime | None, bool]) -> None:
        """README "When pbem was down": a deadline or reminder inside a gap over 6 h moves later by the gap."""
        gap, due, wrong = at - self.last, self.due, self.wrong
        moved = [m for m in mails if "Your deadline moves" in str(m["Subject"])]
        inside = (
            gap > OUTAGE
            and due is not None
            and not self.over
            and any(self.last < t <= at for t in [due, *_reminder_times(self.opened, due)])
        )
        if not inside:
            if moved:
                wrong.append(f"{at}: {len(moved)} outage notice(s) after a gap of {gap} with nothing inside")
            return
        assert due is not None
        if len(moved) != 3 or any(f"{due + gap:%Y-%m-%d %H:%M} UTC" not in body_of(m) for m in moved):
            wrong.append(f"{at}: an outage of {gap} told {len(moved)} player(s), not 3 of {due + gap}")
        if now[:2] != (self.step, due + gap):
            wrong.append(f"{at}: after an outage of {gap} the deadline is {now[1]}, not {due + gap}")
        self.due = due + gap

    def reminder(self, at: datetime, text: str) -> None:
        said, due = LEFT.search(text), self.due
        if said is None or due is None or said.group(1) != f"{due:%Y-%m-%d %H:%M}":
            self.wrong.append(f"{at}: a reminder says {said and said.group(1)}, the deadline is {due}")
        elif at >= due:
            self.wrong.append(f"{at}: a reminder at or after the deadline {due}")
        else:
            hours, left = _hours(said.group(2)), (due - at) / timedelta(hours=1)
            if hours is None or abs(hours - left) > max(1.0, left * 0.1):
                self.wrong.append(f"{at}: a reminder says 'in about {said.group(2)}', {left:.1f} hours are left")

    def deadline(self, at: datetime, to: str, text: str) -> None:
        stamps = STAMP.findall(text)
        key = (to, stamps[0] if stamps else "?")
        if key in self.applied:
            self.wrong.append(f"{at}: {to} told twice of the deadline {key[1]}")
        self.applied.add(key)
        if self.due is None or stamps[:1] != [f"{self.due:%Y-%m-%d %H:%M}"] or at < self.due:
            self.wrong.append(f"{at}: a deadline {stamps[:1]} applied, the step was due {self.due}")

    def polled(self, at: datetime, mails: list, now: tuple[str | None, datetime | None, bool]) -> None:
        self.outage(at, mails, now)
        reminded: dict[str, int] = {}
        for m in mails:
            to, subject, text = str(m["To"]), str(m["Subject"]), " ".join(body_of(m).split())
            if "Reminder" in subject:
                reminded[to] = reminded.get(to, 0) + 1
                self.reminder(at, text)
            if "Deadline passed" in subject:
                self.deadline(at, to, text)
        self.wrong += [f"{at}: {n} reminders to {to} in one run" for to, n in reminded.items() if n > 1]
        step, due, over = now
        if step != self.step and not over:
            self.opened = at
        if not over and due is not None and due <= at:
            self.wrong.append(f"{at}: the deadline {due} is due and was not applied")
        self.last, self.newest = at, max(self.newest, at)
        self.step, self.due, self.over = now


def calendar(tmp_path: Path, monkeypatch, seed: int, days: int) -> tuple[dict, list[str]]:
    """One run of the plan; (its plan, what is wrong by the oracle)."""
    from pbem.app import games
    from pbem.app.cron import run_poll
    from pbem.cli.support import init_home
    from pbem.home import config as config_mod
    from pbem.home.app import Home
    from tests.test_moderator import PLAYERS

    p = plan(seed, days)
    monkeypatch.setenv("TZ", p["zone"])  # the machine's local time is the moderator's
    time.tzset()
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    cfg = config_mod.load(init_home(tmp_path / "home", address=MOD, name="Test Moderator"))
    start = p["start"]
    games.create_game(Home.of(cfg), "habsburg", "cal1", PLAYERS, seed=f"cal{seed}", clock=lambda: start, codes=CODES)
    seen: set[str] = set()
    step, due, _ = _state(cfg)
    o = Oracle(step, due, start)
    for true_at in p["polls"]:
        ahead = p["ahead"]
        at = true_at + (timedelta(hours=1) if ahead and ahead[0] <= true_at < ahead[1] else timedelta(0))
        refused = at < o.newest - timedelta(minutes=5)
        try:
            run_poll(cfg, clock=lambda at=at: at)
            if refused:
                o.wrong.append(f"{at}: a poll {o.newest - at} behind the record's newest time was not refused")
        except Exception as exc:
            if not refused:
                o.wrong.append(f"{at}: refused ({type(exc).__name__}: {exc})")
        mails, now = sent_mail(cfg, seen), _state(cfg)
        if refused:
            if mails or now[:2] != (o.step, o.due):
                o.wrong.append(f"{at}: a refused poll changed the game or sent {len(mails)} mail(s)")
            continue
        o.polled(at, mails, now)
        if o.over:
            break
    return p, o.wrong


@pytest.mark.parametrize("seed", range(CASES) if CASES else SAMPLE)
def test_a_years_calendar_neither_skips_nor_doubles_a_deadline(tmp_path: Path, monkeypatch, seed: int) -> None:
    try:
        p, wrong = calendar(tmp_path, monkeypatch, seed, DAYS)
    finally:
        monkeypatch.delenv("TZ", raising=False)
        time.tzset()
    if tally := os.environ.get("PBEM_CALENDAR_TALLY"):
        with open(tally, "a") as f:
            f.write(f"{seed} {p['kind']} {p['zone']} {len(p['polls'])} {len(wrong)} {wrong[:3]}\n")
    assert wrong == [], (p["kind"], p["zone"], wrong[:5])

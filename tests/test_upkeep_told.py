"""What a moderator should hear about the home itself is told once, then spaced out, with the command (months5).

After months of cron nobody was told that the nightly backup had stopped or never ran, that its newest folder was
gone, that a key file had changed since the newest backup, that cron.log had grown past what anything rotates, that
`pbem prune` had mail to give back, or that a game's deadline had been extended again and again; nor (pure
generator below) of a disk filling or a database or Maildir folder past its documented size.  Now `pbem poll` looks
at the home every 6 hours (`pbem.app.upkeep_look`, idle runs too) and mails the moderator one `home_upkeep` alert
of what is due: a condition at the first look that finds it, then again after a day (backups, keys, disk), a week
(sizes, a deadline extended) or 30 days (prune) while it holds; forgotten once it no longer holds.  `pbem check`
lists whatever holds now.

The generator (`plan`): seeded runs of `SPAN` days of a real home (Maildir, SQLite) under a moved clock, polled
every 1 to 5 hours: a nightly `pbem backup` that starts on a drawn night and misses a drawn stretch; the newest
backup folder deleted one day; outbox.key lost and a new one made (`pbem poll --new-outbox-key`); cron.log grown past 8 MiB and later rotated; one game's deadline
extended three times in one day; a game abandoned 31 days before the run (its sent mail left for `pbem prune`).  The
oracle (written again here from the plan, not from `pbem.app.upkeep`): at each look, which conditions hold, and which
of them are due by the schedule; the moderator's mails, in order, must tell exactly those, each with its command,
and no player gets one.

Of 12 runs of 20 days (`PBEM_UPKEEP_CASES=12 PBEM_UPKEEP_DAYS=20`; `PBEM_UPKEEP_TALLY=FILE` writes each run's
counts), all 12 fail on b1f92b21 (none of the 7 kinds is ever told: 135 conditions due to be told, 0 told) and
none now (135 of 135 told, each on its schedule, 4.8 minutes at a load of 12).  The pure generator (`test_the_schedule_...`):
200 simulated years of the facts a look reads (sizes growing, disk filling and freed, backups missed, keys changed,
prunes, extensions), every condition against an oracle and the schedule; `pbem.app.upkeep` did not exist on
b1f92b21.  The suite runs one run of 3 days end to end and 3 pure years.  Cost: 4.8 s for the file at a
load of 13 (8.8 s at 14; `python3 -m pytest tests/test_upkeep_told.py --durations=5 -n 0`).
"""

from __future__ import annotations

import os
import random
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.conftest import Clock, sent_mail

CASES = int(os.environ.get("PBEM_UPKEEP_CASES", "1"))
SPAN = int(os.environ.get("PBEM_UPKEEP_DAYS", "3"))
YEARS = int(os.environ.get("PBEM_UPKEEP_YEARS", "3"))
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
MOD = "moderator@pbem.test"
KEY = "outbox.key"
LOOK = timedelta(hours=6)
AGAIN: dict[str, int | None] = {
    "backup_missing": None,  # told once (months6: a home backed up by cp, rsync or restic was told every day)
    "backup_late": 1,
    "backup_gone": 1,
    "key_unsaved": 1,
    "disk_low": 1,
    "database_large": 7,
    "maildir_large": 7,
    "cron_log_large": 7,
    "prune_due": 30,
    "free_pages": 30,
    "extended": 7,
}
#: How the moderator's mail names each kind (words of its line).
WORDS = {
    "backup_missing": "no backup of this home was ever made",
    "backup_late": "the nightly one stopped",
    "backup_gone": "is gone",
    "key_unsaved": "no backup holds this home's key as it is now",
    "cron_log_large": "nothing rotates it",
    "prune_due": "keep the text of",
    "extended": "extended 3 times in a row",
}
ACTS = {
    "backup_missing": "pbem backup --keep 30",
    "backup_late": "pbem backup --keep 30",
    "backup_gone": "pbem backup --keep 30",
    "key_unsaved": "pbem backup --keep 30",
    "cron_log_large": "cron/pbem-poll",
    "prune_due": "pbem prune --older-than 30d",
    "extended": "pbem game process hh1",
}


def plan(seed: int, span: int) -> dict[str, object]:
    """The run's events, in hours or days from `START`."""
    rng = random.Random(seed)
    first = rng.randint(0, min(3, span - 1))  # the first nightly backup
    miss = rng.randint(first + 1, max(first + 1, span - 3))  # a stretch of nights without one
    return {
        "first_backup": first,
        "missed": set(range(miss, miss + rng.randint(2, 4))),
        "gone": rng.randint(1, span - 1),  # the newest backup deleted at noon of this day
        "key": rng.randint(1, span - 1) * 24 + 19,  # outbox.key lost at this hour (an hour after a backup)
        "log_big": rng.randint(0, span - 2) * 24 + 10,
        "log_rotated": rng.choice([None, span * 24 - 20]),
        "extend": rng.randint(0, span - 3) * 24 + 16,  # three extensions of 5 days, an hour apart
        "polls": [rng.randint(1, 5) for _ in range(span * 24)],  # hours apart (under the outage rule's 6)
    }


class Run:
    """The oracle's state of the home, from the plan alone."""

    def __init__(self) -> None:
        self.backup_at: datetime | None = None
        self.gone = False
        self.key_there = True  # outbox.key in the home
        self.key_saved = True  # the newest backup holds outbox.key as it is
        self.log_big = False
        self.extended_until: datetime | None = None
        self.told: dict[str, datetime] = {}

    def holding(self, now: datetime) -> set[str]:
        out = {"prune_due"}  # the game abandoned 31 days before, never pruned
        if self.backup_at is None:
            out |= {"backup_missing"} if now - (START - timedelta(days=3)) >= timedelta(hours=36) else set()
        else:
            if self.gone:
                out.add("backup_gone")
            elif now - self.backup_at >= timedelta(hours=36):
                out.add("backup_late")
            if self.key_there and not self.key_saved and not self.gone:
                out.add("key_unsaved")  # (a backup gone is told as such: there is no backup to hold it)
        if self.log_big:
            out.add("cron_log_large")
        if self.extended_until is not None and now < self.extended_until:
            out.add("extended")
        return out

    def due(self, now: datetime) -> set[str]:
        hold = self.holding(now)
        self.told = {k: t for k, t in self.told.items() if k in hold}
        tell = {k for k in hold if k not in self.told or _again(k, now - self.told[k])}
        self.told |= {k: now for k in tell}
        return tell


def _again(kind: str, since: timedelta) -> bool:
    days = AGAIN[kind]
    return days is not None and since >= timedelta(days=days)


def _kinds(mail) -> frozenset[str]:
    text = mail.get_body(("plain",)).get_content()
    items = [ln for ln in text.splitlines() if ln.startswith("* ")]
    kinds = frozenset(k for k, words in WORDS.items() for ln in items if words in ln)
    assert len(kinds) == len(items), items  # every line one known kind
    for k in kinds:
        assert "To act on it: " in text and ACTS[k] in text, (k, text)
    return kinds


def _home(tmp_path: Path, monkeypatch):
    from pbem.app import control, games
    from pbem.cli.support import init_home
    from pbem.home import config as config_mod
    from pbem.home.app import Home
    from tests.conftest import CODES
    from tests.test_moderator import PLAYERS

    with __import__("contextlib").suppress(ImportError):  # b1f92b21 had no pbem.app.upkeep: counted as untold
        monkeypatch.setattr("pbem.app.upkeep.PRUNE_BYTES", 1)  # the abandoned game's few mails are enough
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    cfg = config_mod.load(init_home(tmp_path / "home", address=MOD, name="Test Moderator"))
    before = START - timedelta(days=32)
    games.create_game(Home.of(cfg), "habsburg", "gone1", PLAYERS, seed="u2", clock=lambda: before, codes=CODES)
    control.abandon(Home.of(cfg, clock=lambda: before), "gone1", before + timedelta(hours=1))
    games.create_game(Home.of(cfg), "habsburg", "hh1", PLAYERS, seed="u1", clock=lambda: START, codes=CODES)
    made = (START - timedelta(days=3)).timestamp()  # the home made 3 days before the run
    for name in ("game-keys.secret", "outbox.key", ".pbem-home"):
        if (cfg.home / name).exists():
            os.utime(cfg.home / name, (made, made))
    return cfg


@pytest.mark.parametrize("seed", range(CASES))
def test_the_homes_upkeep_is_told_once_then_spaced_with_its_command(tmp_path: Path, monkeypatch, seed: int) -> None:
    from pbem.app import control
    from pbem.app.backup import dated, take
    from pbem.app.cron import run_poll
    from pbem.home.app import Home
    from pbem.mail.outbound import sealed

    cfg = _home(tmp_path, monkeypatch)
    p = plan(seed, SPAN)
    backups = tmp_path / "backups"
    run, clock = Run(), Clock(START)
    want: list[frozenset[str]] = []
    got: list[frozenset[str]] = []
    seen: set[str] = set()
    looked: datetime | None = None
    newest: Path | None = None
    new_key = False
    hour, polls = 0, iter(p["polls"])  # type: ignore[call-overload]
    while hour < SPAN * 24:
        step = next(polls)
        for h in range(hour + 1, hour + step + 1):  # the plan's events between two polls, hour by hour
            at = START + timedelta(hours=h)
            day, clock.now = h // 24, at
            if h % 24 == 18 and day >= p["first_backup"] and day not in p["missed"]:  # 03:00
                newest = take(cfg, backups, dated(at), at, 60).folder
                run.backup_at, run.gone, run.key_saved = at, False, run.key_there
            if h == p["gone"] * 24 + 3 and newest is not None and newest.exists():
                shutil.rmtree(newest)
                run.gone = True
            if h == p["key"]:  # outbox.key lost: `pbem poll --new-outbox-key` lets it go
                (cfg.home / KEY).unlink()
                new_key, run.key_there = True, False
            if h == p["log_big"]:
                with open(cfg.home / "cron.log", "wb") as f:
                    f.truncate(9 << 20)  # sparse: 9 MiB on paper
                run.log_big = True
            if h == p["log_rotated"]:
                (cfg.home / "cron.log").write_bytes(b"")
                run.log_big = False
            if p["extend"] <= h < p["extend"] + 3:
                due = control.extend(Home.of(cfg, clock=clock), "hh1", timedelta(days=5), at)
                run.extended_until = due if h == p["extend"] + 2 else None
        hour += step
        clock.now = START + timedelta(hours=hour)
        run_poll(cfg, clock=clock, new_key=new_key)
        if looked is None or clock.now - looked >= LOOK:
            looked = clock.now
            if tell := run.due(clock.now):
                want.append(frozenset(tell))
        if new_key:  # the next mail sealed makes a new key, as here (after this run's look), in a new process
            sealed._KEYS.pop(cfg.home / KEY, None)
            sealed._key(cfg.home, create=True)
            run.key_there, run.key_saved, new_key = True, False, False
        mails = sent_mail(cfg, seen)
        ups = [m for m in mails if "the home needs looking after" in str(m["Subject"])]
        assert all(m["To"].addresses[0].addr_spec == MOD for m in ups)
        got += [_kinds(m) for m in ups]
    run_poll(cfg, clock=clock)  # an idle run's mail goes out with the next run
    got += [_kinds(m) for m in sent_mail(cfg, seen) if "the home needs looking after" in str(m["Subject"])]
    if tally := os.environ.get("PBEM_UPKEEP_TALLY"):  # the counts of the docstring: due to be told, and told
        with open(tally, "a") as f:
            f.write(f"{seed} {sum(len(k) for k in want)} {sum(len(k) for k in got)} {sorted(set().union(*want))}\n")
    assert got == want, (seed, [sorted(k) for k in got], [sorted(k) for k in want])


def test_pbem_check_lists_what_holds_now_with_its_command(tmp_path: Path, monkeypatch) -> None:
    """`pbem check` (the real clock: months after the run's backup) says the backup is old and the deadline extended."""
    from typer.testing import CliRunner

    from pbem.app import control
    from pbem.app.backup import dated, take
    from pbem.cli import app
    from pbem.home.app import Home

    cfg = _home(tmp_path, monkeypatch)
    take(cfg, tmp_path / "backups", dated(START), START, 60)
    now = datetime.now(UTC)
    for i in range(3):
        control.extend(Home.of(cfg, clock=lambda: now), "hh1", timedelta(days=5), now + timedelta(seconds=i))
    out = CliRunner().invoke(app, ["--config", str(cfg.path), "check"])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert [ln for ln in lines if ln.startswith("note") and WORDS["backup_late"] in ln and ACTS["backup_late"] in ln]
    assert [ln for ln in lines if ln.startswith("note") and WORDS["extended"] in ln and ACTS["extended"] in ln]
    assert [ln for ln in lines if "game-keys.secret: last changed" in ln]


def _year(seed: int):
    """A simulated year of the facts a look reads, every 6 hours, with the oracle's answer at each."""
    from pbem.app import upkeep

    rng = random.Random(seed)
    gib, mib = 1 << 30, 1 << 20
    db, sent, sent_files, log, free = rng.randint(1, 50) * mib, 0, 0, 0, rng.randint(1, 40) * gib
    growth = rng.choice([5, 20, 40]) * mib  # the database a day
    backup_at: datetime | None = None
    there = True
    key_at = START - timedelta(days=1)
    ended: list[tuple[datetime, int]] = []  # (ended, bytes) not pruned
    stretch: tuple[datetime, datetime] | None = None  # (first due, due) of a step extended 3 times
    unused = 0  # the database's free pages (an upgrade or a prune leaves them; VACUUM gives them back)
    now = START
    while now < START + timedelta(days=365):
        now += LOOK
        if now.hour == 3 and rng.random() > 0.08:
            backup_at, there = now, True
        elif backup_at is not None and rng.random() < 0.01:  # the newest backup's folder deleted
            there = False
        if rng.random() < 0.004:
            key_at = now
        db += growth // 4
        sent, sent_files = sent + growth // 4, sent_files + rng.randint(0, 400)
        log = 0 if rng.random() < 0.01 else log + rng.randint(0, 200_000)
        free = max(0, free - growth // 4 - rng.randint(0, 50) * mib) if rng.random() > 0.002 else 30 * gib
        if rng.random() < 0.01:
            ended.append((now, rng.randint(0, 5) * mib))
        if rng.random() < 0.005:  # `pbem prune`: the text dropped, the file keeps its size
            ended = [(t, b) for t, b in ended if now - t < timedelta(days=30)]
            unused = min(db, unused + rng.randint(0, 200) * mib)
        if rng.random() < 0.003:  # `pbem upgrade` rebuilt tables: much of the file free; `--vacuum` gives it back
            unused = min(db, unused + db // 2) if rng.random() < 0.7 else 0
        if rng.random() < 0.003:  # the Maildir cleared by hand
            sent = sent_files = 0
        if stretch is None and rng.random() < 0.01:
            stretch = (now, now + timedelta(days=rng.randint(3, 20)))
        elif stretch is not None and now >= stretch[1]:
            stretch = None
        old = [(t, b) for t, b in ended if now - t >= timedelta(days=30)]
        f = upkeep.Facts(
            now=now,
            home_since=START - timedelta(days=1),
            backup_at=backup_at,
            backup_folder="/backups/pbem/x" if backup_at else "",
            backup_there=there,
            keys={"game-keys.secret": key_at},
            unsaved=("game-keys.secret",) if backup_at and key_at > backup_at and there else (),
            sizes={"database": db, "mail/sent": sent, "cron.log": log},
            files={"mail/sent": sent_files},
            free=free,
            prunable=(len(old), len(old) * 10, sum(b for _, b in old)),
            extended=(upkeep.Stretch("hh1", 3, *stretch),) if stretch else (),
            free_pages=unused,
        )
        hold = set()
        if backup_at is None:
            hold |= {"backup_missing"} if now - f.home_since >= timedelta(hours=36) else set()  # type: ignore[operator]
        else:
            late = now - backup_at >= timedelta(hours=36)
            hold |= {"backup_gone"} if not there else {"backup_late"} if late else set()
            hold |= {"key_unsaved"} if key_at > backup_at and there else set()
        hold |= {"database_large"} if db >= gib else set()
        hold |= {"maildir_large"} if sent >= gib or sent_files >= 100_000 else set()
        hold |= {"cron_log_large"} if log >= 8 * mib else set()
        hold |= {"disk_low"} if free < max(gib, 2 * db) else set()
        hold |= {"prune_due"} if old and sum(b for _, b in old) >= mib else set()
        hold |= {"extended"} if stretch else set()
        hold |= {"free_pages"} if unused >= 16 * mib and unused * 4 >= db else set()
        yield f, hold


def test_the_schedule_of_a_simulated_year_of_upkeep() -> None:
    """Every condition of 3 simulated years (`PBEM_UPKEEP_YEARS`) found when it holds, and told at once, then
    every day, week or 30 days while it holds, and at once again after a break."""
    from pbem.app import upkeep

    wrong = []
    kinds: set[str] = set()
    for seed in range(YEARS):
        told: dict[str, datetime] = {}
        mine: dict[str, datetime] = {}
        for f, hold in _year(seed):
            found = upkeep.conditions(f)
            assert {c.kind for c in found} == hold, (seed, f.now, sorted(c.kind for c in found), sorted(hold))
            assert all(c.act and c.text for c in found)
            tell, told = upkeep.due(found, told, f.now)
            mine = {k: t for k, t in mine.items() if k in hold}
            want = {k for k in hold if k not in mine or _again(k, f.now - mine[k])}
            mine |= {k: f.now for k in want}
            if {c.kind for c in tell} != want:
                wrong.append((seed, f.now, sorted(c.kind for c in tell), sorted(want)))
            kinds |= hold
    assert not wrong, wrong[:5]
    assert kinds == set(AGAIN), sorted(set(AGAIN) - kinds)  # the generator reaches every kind

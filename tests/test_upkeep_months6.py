"""months5's leftovers of the home's upkeep, each a class with its generator (months6).

1. A home backed up outside pbem (cp, rsync, restic of the home: no manifest pbem wrote) was told "no backup of this
   home was ever made" every day for ever, and nothing the moderator could do but run `pbem backup` stopped it.
   Generator (`outside`): seeded runs of `DAYS` days of a real home (Maildir, SQLite) under a moved clock, polled
   every 1 to 5 hours, its home copied by `shutil.copytree` every night (as cp -a would), never `pbem backup`:
   the oracle (from the plan) wants the notice told once, naming `[upkeep] backup_late`, and never with that key
   set to "0h".  Of 12 runs of 6 days (`PBEM_MONTHS6_CASES=12 PBEM_MONTHS6_DAYS=6`), 12 fail on 8aa88d6c (told 6 times
   in 11 runs, 5 in one; and `backup_late` is refused: an unknown section) and none now.  The suite runs one of 2.
2. The limits were constants.  Generator (`limits`): for each `[upkeep]` key, drawn values (bytes, "N GiB"/"N MiB"
   strings, durations, counts, 0) loaded from a real pbem.toml, and the facts of a look just under and at the
   limit: told exactly at it (never when 0); and wrong values of every type, each refused naming the key (exit 2
   by `pbem poll`).  On 8aa88d6c all 600 drawn values (`PBEM_MONTHS6_LIMITS=600`) fail (an unknown section);
   none now.  The suite draws 60.
3. Players were told each extension's new deadline but not that the step was extended a third time in a row.
   Generator (`stretches`): seeded sequences of `pbem game extend` and deadlines passing (a poll past the due
   time: a new step) on a real home; the oracle counts the open step's extensions in a row and wants each
   player's notice to say "N times in a row; it was first due ..." from the third on, and one notice per player
   per extension (no more mail per order).  Of 40 sequences (`PBEM_MONTHS6_STRETCHES=40`, 232 extensions), 32 fail on
   8aa88d6c (95 third-or-later extensions untold: 285 notices) and none now.  The suite runs 2.
4. After `pbem upgrade` or `pbem prune` an SQLite home kept its free pages, untold.  A real pbem.db given 20 MiB
   of free pages (a table filled, then dropped, as an upgrade's table rebuild leaves them) is told, and
   `pbem prune --vacuum` gives them back under the poll lock (refused, exit 3, while a poll holds it); on
   8aa88d6c nothing was told and `--vacuum` was no option.

Cost: 9.9 s for the file at a load of 15 (the cp run 4.0 s; `python3 -m pytest tests/test_upkeep_months6.py
--durations=5 -n 0`).
"""

from __future__ import annotations

import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.conftest import CODES, Clock, body_of, sent_mail

CASES = int(os.environ.get("PBEM_MONTHS6_CASES", "1"))
DAYS = int(os.environ.get("PBEM_MONTHS6_DAYS", "2"))
LIMITS = int(os.environ.get("PBEM_MONTHS6_LIMITS", "60"))
STRETCHES = int(os.environ.get("PBEM_MONTHS6_STRETCHES", "2"))
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
MOD = "moderator@pbem.test"
MISSING = "no backup of this home was ever made"
UPKEEP = "the home needs looking after"


def _home(tmp_path: Path, monkeypatch, extra: str = ""):
    from pbem.app import games
    from pbem.cli.support import init_home
    from pbem.home import config as config_mod
    from pbem.home.app import Home
    from tests.test_moderator import PLAYERS

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    path = init_home(tmp_path / "home", address=MOD, name="Test Moderator")
    if extra:
        with open(path, "a") as f:
            f.write(extra)
    cfg = config_mod.load(path)
    games.create_game(Home.of(cfg), "habsburg", "hh1", PLAYERS, seed="m6", clock=lambda: START, codes=CODES)
    made = (START - timedelta(days=3)).timestamp()  # the home made 3 days before the run
    for name in ("game-keys.secret", "outbox.key", ".pbem-home"):
        if (cfg.home / name).exists():
            os.utime(cfg.home / name, (made, made))
    return cfg


# --------------------------------------------------------------------------- 1. a home backed up outside pbem


def outside(tmp_path: Path, monkeypatch, seed: int, days: int, off: bool) -> list[str]:
    """The moderator's mail lines about backups over `days` days of a home copied every night by cp; what is
    wrong by the oracle (told once naming the key; never with `backup_late = "0h"`)."""
    from pbem.app.cron import run_poll
    from pbem.home.config import ConfigError

    rng = random.Random(seed)
    try:
        cfg = _home(tmp_path, monkeypatch, '\n[upkeep]\nbackup_late = "0h"\n' if off else "")
    except ConfigError as exc:
        return [f"the key is refused: {exc}"]
    clock, seen, told, hour = Clock(START), set(), [], 0
    while hour < days * 24:
        step = rng.randint(1, 5)
        for h in range(hour + 1, hour + step + 1):
            if h % 24 == 18:  # 03:00: the nightly copy of the home, by cp -a, not `pbem backup`
                shutil.copytree(cfg.home, tmp_path / "copies" / f"{h}", symlinks=True)
        hour += step
        clock.now = START + timedelta(hours=hour)
        run_poll(cfg, clock=clock)
        for m in sent_mail(cfg, seen):
            if UPKEEP in str(m["Subject"]):
                told += [ln for ln in body_of(m).splitlines() if MISSING in ln or "backup_late" in ln]
    lines = [ln for ln in told if MISSING in ln]
    if off:
        return [f"told with backup_late = 0h: {ln}" for ln in lines]
    wrong = [f"told {len(lines)} times, not once"] if len(lines) != 1 else []
    if not any('backup_late = "0h"' in ln for ln in told):
        wrong.append("the notice does not name [upkeep] backup_late")
    return wrong


@pytest.mark.parametrize("seed", range(CASES))
def test_a_home_backed_up_by_cp_is_told_once_how_to_silence_it(tmp_path: Path, monkeypatch, seed: int) -> None:
    wrong = outside(tmp_path / "told", monkeypatch, seed, DAYS, off=False)
    wrong += outside(tmp_path / "off", monkeypatch, seed, max(1, DAYS // 2), off=True)  # told at the first look, if
    if tally := os.environ.get("PBEM_MONTHS6_TALLY"):
        with open(tally, "a") as f:
            f.write(f"outside {seed} {len(wrong)} {wrong}\n")
    assert wrong == []


# --------------------------------------------------------------------------- 2. the limits are keys of pbem.toml

GIB, MIB = 1 << 30, 1 << 20
SIZES = ("database_size", "maildir_size", "cron_log_size", "disk_free")
KEYS = ("backup_late", *SIZES, "free_pages", "maildir_mails", "prune_after", "extended_times")


def _draw(rng: random.Random, key: str) -> tuple[str, int | timedelta]:
    """A value of `key` as pbem.toml says it, and what it means."""
    if key in SIZES:
        n, unit = rng.choice([(rng.randint(1, 64), "GiB"), (rng.randint(1, 4096), "MiB"), (0, "")])
        if not unit:
            return "0", 0
        if rng.random() < 0.3:
            return str(n << (30 if unit == "GiB" else 20)), n << (30 if unit == "GiB" else 20)
        return f'"{n} {unit}"', n << (30 if unit == "GiB" else 20)
    if key in ("backup_late", "prune_after"):
        hours = rng.choice([0, rng.randint(1, 24 * 60)])
        return f'"{hours}h"', timedelta(hours=hours)
    if key == "free_pages":
        n = rng.randint(0, 100)
        return str(n), n
    n = rng.choice([0, rng.randint(1, 10)]) if key == "extended_times" else rng.choice([0, rng.randint(1, 10**7)])
    return str(n), n


def _facts(key: str, value: int | timedelta, at: bool):
    """The facts of a look at (`at`) or just under `key`'s limit `value`, and the kind that should be told."""
    from pbem.app import upkeep

    now = START + timedelta(days=400)
    if key == "backup_late":
        assert isinstance(value, timedelta)
        back = now - value + (timedelta(0) if at else timedelta(minutes=1))
        return dict(now=now, backup_at=back, backup_folder="/b/x"), "backup_late"
    if key == "prune_after":
        assert isinstance(value, timedelta)  # the look asks the record for games ended before now - value
        return dict(now=now, prunable=(1, 5, MIB) if at else (0, 0, 0)), "prune_due"
    assert isinstance(value, int)
    edge = value if at else value - 1
    if key == "database_size":
        return dict(now=now, sizes={"database": edge}), "database_large"
    if key == "maildir_size":
        return dict(now=now, sizes={"mail/sent": edge}), "maildir_large"
    if key == "maildir_mails":
        return dict(now=now, files={"mail/sent": edge}), "maildir_large"
    if key == "cron_log_size":
        return dict(now=now, sizes={"cron.log": edge}), "cron_log_large"
    if key == "disk_free":  # told under the limit: `at` is one byte under it
        return dict(now=now, free=value - 1 if at else value), "disk_low"
    if key == "free_pages":
        db = 100 * GIB
        return dict(now=now, sizes={"database": db}, free_pages=db * value // 100 - (0 if at else 1)), "free_pages"
    times = max(edge, 0)
    stretch = (upkeep.Stretch("hh1", times, now, now + timedelta(days=3)),) if times else ()
    return dict(now=now, extended=stretch), "extended"


def limits(tmp_path: Path, n: int) -> list[str]:
    """`n` drawn values of the [upkeep] keys, each loaded from a real pbem.toml and looked at under and at its
    limit; what is wrong."""
    from pbem.home import config as config_mod

    keys = list(KEYS)
    rng, wrong = random.Random(6), []
    file = tmp_path / "pbem.toml"
    for i in range(n):
        key = keys[i % len(keys)]
        text, value = _draw(rng, key)
        file.write_text(f'[moderator]\naddress = "{MOD}"\n[upkeep]\n{key} = {text}\n')
        try:
            lim = config_mod.load(file).upkeep
            from pbem.app import upkeep
        except (config_mod.ConfigError, ImportError) as exc:
            wrong.append(f"{key} = {text}: {exc}")
            continue
        for at in (False, True):
            facts, kind = _facts(key, value, at)
            held = {c.kind for c in upkeep.conditions(upkeep.Facts(**facts, limits=lim))}  # type: ignore[arg-type]
            want = at and (bool(value) or key == "prune_after")  # (the look asks the record for games that old)
            if (kind in held) != want:
                wrong.append(f"{key} = {text}, {'at' if at else 'under'} the limit: told {sorted(held)}")
            said = " ".join(c.text for c in upkeep.conditions(upkeep.Facts(**facts, limits=lim)))  # type: ignore[arg-type]
            if key == "prune_after" and at and f"ended {upkeep.span(value)} ago" not in said:  # type: ignore[arg-type]
                wrong.append(f"{key} = {text}: the notice does not say how long ago: {said}")
    return wrong


def test_each_limit_is_a_key_of_pbem_toml_told_exactly_past_it(tmp_path: Path) -> None:
    from pbem.home import config as config_mod

    assert set(KEYS) == set(config_mod.SCHEMA.get("upkeep", KEYS))
    wrong = limits(tmp_path, LIMITS)
    if tally := os.environ.get("PBEM_MONTHS6_TALLY"):
        with open(tally, "a") as f:
            f.write(f"limits {LIMITS} {len(wrong)}\n")
    assert wrong == [], f"{len(wrong)} of {LIMITS}: {wrong[:5]}"


BAD = [[1], True, -1, "lots", 1.5, {"a": 1}]


def test_a_wrong_value_of_an_upkeep_key_is_refused_naming_it(tmp_path: Path) -> None:
    """Every [upkeep] key with values of every wrong type: a ConfigError naming the key; `pbem poll` exits 2 with
    one line (as tests/test_walk10_config_faults.py, whose full run takes every key of SCHEMA)."""
    from typer.testing import CliRunner

    from pbem.cli import app
    from pbem.home import config as config_mod

    file = tmp_path / "pbem.toml"
    wrong = []
    for key in config_mod.SCHEMA["upkeep"]:
        for bad in [*BAD, 101 if key == "free_pages" else "9 EiB"]:
            shown = repr(bad).replace("True", "true").replace("'", '"').replace('{"a": 1}', "{a = 1}")
            file.write_text(f'[moderator]\naddress = "{MOD}"\n[upkeep]\n{key} = {shown}\n')
            try:
                config_mod.load(file)
                wrong.append(f"{key} = {shown} taken")
            except config_mod.ConfigError as exc:
                if f"[upkeep] {key}" not in str(exc):
                    wrong.append(f"{key} = {shown}: {exc}")
    assert wrong == []
    got = CliRunner().invoke(app, ["--config", str(file), "poll"])
    assert got.exit_code == 2 and got.output.strip().startswith("pbem: ") and len(got.output.splitlines()) == 1


# --------------------------------------------------------------------------- 3. a deadline extended again and again

AGAIN = re.compile(r"extended (\d+) times in a row; it was first due (\d{4}-\d\d-\d\d \d\d:\d\d) UTC")


def stretches(tmp_path: Path, monkeypatch, seed: int) -> tuple[int, list[str]]:
    """A seeded sequence of extensions and deadlines passing; (extensions, what is wrong by the oracle)."""
    from pbem.app import control
    from pbem.app.cron import run_poll
    from pbem.home.app import Home
    from pbem.record.store import current_deadline, game_by_name

    rng = random.Random(seed)
    cfg = _home(tmp_path, monkeypatch)
    clock, seen, wrong = Clock(START), set(), []
    run_poll(cfg, clock=clock)
    sent_mail(cfg, seen)

    def due() -> tuple[str, datetime]:
        with Home.of(cfg).units() as s:
            game = game_by_name(s, "hh1")
            dl = current_deadline(s, game.id)  # type: ignore[union-attr, arg-type]
            assert dl is not None
            return dl.step, dl.due_at.replace(tzinfo=UTC)

    def poll() -> list:
        run_poll(cfg, clock=clock)  # sends what was queued (the notices of an extension)
        return sent_mail(cfg, seen)

    step, first = due()
    times = extensions = 0
    for _ in range(rng.randint(4, 12)):
        if rng.random() < 0.7:  # the moderator extends, between two polls
            clock.now += timedelta(minutes=rng.randint(1, 120))
            control.extend(Home.of(cfg, clock=clock), "hh1", timedelta(hours=rng.randint(1, 24)), clock.now)
            times, extensions = times + 1, extensions + 1
            notices = [m for m in poll() if "extended the deadline" in str(m["Subject"])]
            if len(notices) != 3:  # one to each of the three players: no more mail than before
                wrong.append(f"{len(notices)} notices for one extension")
            for m in notices:
                said = AGAIN.search(" ".join(body_of(m).split()))
                want = (times, f"{first:%Y-%m-%d %H:%M}") if times >= 3 else None
                got = (int(said.group(1)), said.group(2)) if said else None
                if got != want:
                    wrong.append(f"extension {times} in a row: the notice says {got}, not {want}")
        else:  # the deadline passes : the defaults applied, a new step with its own deadline
            while due()[0] == step:  # polls under the outage rule's 6 hours apart, the last just past the deadline
                clock.now = min(clock.now + timedelta(hours=5), max(clock.now, due()[1]) + timedelta(minutes=5))
                poll()
            step, first = due()
            times = 0
    return extensions, wrong


@pytest.mark.parametrize("seed", range(1, 1 + STRETCHES))
def test_players_hear_a_steps_third_extension_in_a_row(tmp_path: Path, monkeypatch, seed: int) -> None:
    n, wrong = stretches(tmp_path, monkeypatch, seed)
    if tally := os.environ.get("PBEM_MONTHS6_TALLY"):
        with open(tally, "a") as f:
            f.write(f"stretches {seed} {n} {len(wrong)}\n")
    assert wrong == []


# --------------------------------------------------------------------------- 4. free pages, and --vacuum


HOLD = """import sys; from pbem.app.polllock import Lock
lock = Lock(sys.argv[1], 900); assert lock.take() is None; print("held", flush=True); sys.stdin.read(); lock.close()"""


def test_free_pages_are_told_and_prune_vacuum_gives_them_back_under_the_lock(tmp_path: Path, monkeypatch) -> None:
    from typer.testing import CliRunner

    from pbem.app import upkeep
    from pbem.app.upkeep_look import facts
    from pbem.cli import app
    from pbem.home.app import Home
    from pbem.record import private
    from pbem.record.upkeep import keep_free_left

    cfg = _home(tmp_path, monkeypatch)
    db = private.database_path(cfg.database_url)
    assert db is not None
    with sqlite3.connect(db) as c:  # 20 MiB of rows, then dropped: free pages, as an upgrade's rebuild leaves
        c.execute("CREATE TABLE scratch (b BLOB)")
        c.executemany("INSERT INTO scratch VALUES (?)", [(b"\0" * (1 << 20),)] * 20)
        c.commit()
        c.execute("DROP TABLE scratch")
        c.commit()
    assert facts(Home.of(cfg), datetime.now(UTC)).free_pages == 0  # no upgrade or prune left them: not told
    keep_free_left(cfg.database_url)  # as `pbem upgrade` does after it rebuilt a table, and `pbem prune`
    found = facts(Home.of(cfg), datetime.now(UTC))
    assert found.free_pages >= 20 * MIB
    told = [c for c in upkeep.conditions(found) if c.kind == "free_pages"]
    assert told and "pbem prune --vacuum" in told[0].act
    holder = subprocess.Popen(  # a poll running (a pbem process holding the lock): the vacuum changes nothing
        [sys.executable, "-c", HOLD, str(cfg.home)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        busy = CliRunner().invoke(app, ["--config", str(cfg.path), "prune", "--vacuum"])
    finally:
        holder.communicate("", timeout=60)
    assert busy.exit_code == 3 and "poll is running" in busy.output, busy.output
    assert db.stat().st_size > 20 * MIB
    done = CliRunner().invoke(app, ["--config", str(cfg.path), "prune", "--vacuum"])
    assert done.exit_code == 0 and "VACUUM" in done.output, done.output
    assert db.stat().st_size < 10 * MIB
    after = facts(Home.of(cfg), datetime.now(UTC))
    assert after.free_pages < MIB and not [c for c in upkeep.conditions(after) if c.kind == "free_pages"]


def test_the_free_pages_a_polls_sent_mail_leaves_are_never_told(tmp_path: Path, monkeypatch) -> None:
    """The pages a poll's sent mail frees (its sealed bytes replaced by the redacted copy) are the home's working
    set, taken again by the next poll's mail: told, they were a false alarm on a home's first day (300 games'
    first poll: "45.8 MB of the database's 87.8 MB are free pages ... (after an upgrade or a prune)", which the
    throughput benchmark met as a moderator mail in its inbox).  With the limits at their lowest (1 %, 1 byte)
    only what `pbem prune` left is told, lowered as polls take its pages again (8aa88d6c-3cad6d8d told the
    poll's)."""
    from pbem.app import upkeep
    from pbem.app.upkeep_look import facts
    from pbem.home.app import Home
    from pbem.record import private
    from pbem.record.upkeep import keep_free_left
    from tests.test_moderator import run_poll

    monkeypatch.setattr(upkeep, "FREE_PAGES_LEAST", 1)
    cfg = _home(tmp_path, monkeypatch, "\n[upkeep]\nfree_pages = 1\n")
    db = private.database_path(cfg.database_url)
    assert db is not None
    run_poll(cfg, Clock(START))  # the invitations sealed, sent, their sealed bytes dropped
    with sqlite3.connect(db) as c:
        freed = c.execute("PRAGMA freelist_count").fetchone()[0]
    assert freed > 0, "the poll's sent mail freed no page: the test would prove nothing"
    found = facts(Home.of(cfg), START)
    assert found.free_pages == 0 and not [c for c in upkeep.conditions(found) if c.kind == "free_pages"]
    keep_free_left(cfg.database_url)  # what `pbem prune` and `pbem upgrade` do once they changed the record
    told = facts(Home.of(cfg), START)
    assert told.free_pages > 0 and [c for c in upkeep.conditions(told) if c.kind == "free_pages"]
    with sqlite3.connect(db) as c:  # the pages taken again by new rows: the mark lowered, nothing left to tell
        c.execute("CREATE TABLE refill (b BLOB)")
        c.executemany("INSERT INTO refill VALUES (?)", [(b"\0" * 4096,)] * (freed + 8))
        c.commit()
    assert facts(Home.of(cfg), START).free_pages == 0


def test_vacuum_past_its_deadline_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    from pbem.record.prune import vacuum

    db = tmp_path / "x.db"
    with sqlite3.connect(db) as c:
        c.execute("CREATE TABLE t (b BLOB)")
        c.executemany("INSERT INTO t VALUES (?)", [(os.urandom(100),) for _ in range(20_000)])
        c.commit()
        c.execute("DELETE FROM t WHERE rowid % 2 = 0")
        c.commit()
    before = db.read_bytes()
    with pytest.raises(TimeoutError):
        vacuum(db, 0.0)
    assert db.read_bytes() == before

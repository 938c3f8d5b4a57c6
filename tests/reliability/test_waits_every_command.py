"""Every `pbem` command ends at its deadline, whatever it waits on: one line naming it and what it waited on, exit 3.

Only `pbem poll` (and `pbem check`, per server) had a watchdog: any other command whose SQLite file sat on a file
system that stopped answering (a hung NFS home) waited without end, one more at every cron run (found by this
file).  Here the home's `pbem.db` is held by a write lease this test takes (the kernel holds every other open of
the file until the lease is given up, or 45 s on Linux, then breaks it: a file system that does not answer, made
without root).  Every command of typer's list runs against that home, all at once (forked), with
`[limits] command_deadline = 1` and `[mail] poll_deadline = 1`, and `PBEM_COMMAND_DEADLINE=1` for the commands
that read no home: each must end within its deadline, with exit 3 and one line naming it (`pbem.cli.deadline`),
or, for a command that never opens the home's database, end in time as it always does.
"""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.commands import cli_commands
from tests.growth import Stopwatch
from tests.reliability import forkserver

DEADLINE = 1
WAIT = 20.0  # seconds: a command still running then waits past its deadline (45 s: the lease is broken)
SLACK = 8.0  # seconds past the deadline for all the commands at once to start and end on a loaded machine

PLAYER = "Ann <ann@example.test>"
#: Each command's arguments, enough to get past its own checks to the home.  A new command fails the test until
#: it is listed here (its name from typer's list).
ARGS: dict[str, list[str]] = {
    "export": ["iw1", "--format", "json"],
    "publish": ["{tmp}/site"],
    "upgrade": [],
    "check": [],
    "poll": [],
    "game new": ["italian-wars", "--name", "iw2", "--no-join", "--player", PLAYER, "--player", "Ben <b@example.test>"],
    "game list": [],
    "game show": ["iw1"],
    "game waiting": [],
    "game extend": ["iw1", "2h"],
    "game pause": ["iw1"],
    "game resume": ["iw1"],
    "game abandon": ["iw1"],
    "game replace": ["iw1", PLAYER, "Cy <cy@example.test>"],
    "game address": ["iw1", PLAYER, "ann2@example.test"],
    "game start": ["iw1"],
    "game code": ["iw1", PLAYER],
    "game away": ["iw1", PLAYER, "3d"],
    "game resend": ["iw1", PLAYER],
    "game undo": ["iw1", "--to", "1", "--why", "misread"],
    "game inputs": ["iw1"],
    "game mail": ["iw1", "verbose"],
    "game say": ["iw1", "Play on."],
    "game process": ["iw1"],
    "game keep": ["iw1"],
    "prune": [],
    "moderator code": [],
    "outbox list": [],
    "outbox retry": ["1"],
    "outbox held": [],
    "outbox release": ["--all"],
    "outbox drop": ["--all"],
    "backup": ["{tmp}/backups"],
    "move-record": ["postgresql+psycopg://pbem@127.0.0.1:9/none"],  # (the home's database is read first)
    # no home: under PBEM_COMMAND_DEADLINE.  The longest demo (676 mails, several CPU seconds): Italian Wars' 44
    # mails were sometimes all played within the 1 s, and the demo ended 0
    "demo": ["sixteen-thirty", "--dir", "{tmp}/demo"],
}
#: Commands that open no home's database: they end as they always do, within the deadline.
NO_DATABASE: dict[str, list[str]] = {
    "init": ["{tmp}/fresh", "--address", "games@example.test"],
    "rules": ["italian-wars"],
    "verify": ["{tmp}/none.json"],
}


def commands() -> list[str]:
    """Every command of the CLI, as typed (`game new`), from typer's own list."""
    return cli_commands()


@contextmanager
def held(path: Path) -> Iterator[None]:
    """Every other open of `path` waits while this runs (a write lease; skipped where there are none)."""
    before = signal.signal(signal.SIGIO, signal.SIG_IGN)  # the kernel tells the lease holder with SIGIO
    fd = os.open(path, os.O_RDWR)
    try:
        try:
            fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_WRLCK)
        except OSError as exc:
            pytest.skip(f"no file leases here: {exc}")
        yield
    finally:
        os.close(fd)
        signal.signal(signal.SIGIO, before)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with one game, whose commands get a deadline of `DEADLINE` s."""
    tmp = tmp_path_factory.mktemp("waits-every-command")
    assert forkserver.pbem(["init", str(tmp / "home"), "--address", "games@example.test"]).returncode == 0
    cfg = tmp / "home" / "pbem.toml"
    players = ["--player", PLAYER, "--player", "Ben <ben@example.test>"]
    made = forkserver.pbem(["--config", cfg, "game", "new", "italian-wars", "--name", "iw1", "--no-join", *players])
    assert made.returncode == 0, made.stderr
    text = cfg.read_text().replace("[mail]", f"[mail]\npoll_deadline = {DEADLINE}", 1)
    cfg.write_text(text + f"\n[limits]\ncommand_deadline = {DEADLINE}\n")
    return cfg


def test_every_command_is_listed() -> None:
    assert sorted([*ARGS, *NO_DATABASE]) == commands()


def test_every_command_ends_at_its_deadline_when_the_database_does_not_answer(home: Path) -> None:
    tmp = home.parent.parent
    env = {**os.environ, "PBEM_COMMAND_DEADLINE": str(DEADLINE)}
    runs = {
        name: [*name.split(), "--config", str(home), *(a.format(tmp=tmp) for a in args)] for name, args in ARGS.items()
    }
    free = {name: [*name.split(), *(a.format(tmp=tmp) for a in args)] for name, args in NO_DATABASE.items()}
    with held(home.parent / "pbem.db"):
        forkserver.ready()  # (the fixture's commands started it: the clock times the commands, not its start)
        watch = Stopwatch()
        got = forkserver.pbem_many([*runs.values(), *free.values()], env=env, cwd=tmp, timeout=WAIT)
        spent = watch.stop()
    ended = dict(zip([*runs, *free], got, strict=True))
    late = [name for name, r in ended.items() if isinstance(r, subprocess.TimeoutExpired)]
    assert not late, f"still waiting after {WAIT:.0f} s: {late}"
    for name in runs:
        r = ended[name]
        setting = {"poll": "[mail] poll_deadline", "demo": "PBEM_COMMAND_DEADLINE"}.get(
            name, "[limits] command_deadline"
        )
        said = f"pbem: `pbem {name}` passed its deadline of {DEADLINE} s ({setting}) while "
        assert r.returncode == 3 and r.stderr.startswith(said), (name, r.returncode, r.stderr[-1500:])
        assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, (name, r.stderr[-1500:])
    for name in free:  # as they always end, or at their deadline (a loaded machine may make `init` that slow)
        r = ended[name]
        stopped = r.stderr.startswith(
            f"pbem: `pbem {name}` passed its deadline of {DEADLINE} s (PBEM_COMMAND_DEADLINE)"
        )
        assert r.returncode in (0, 2) or (r.returncode == 3 and stopped), (name, r.returncode, r.stderr[-1500:])
        assert "Traceback" not in r.stderr, (name, r.stderr[-1500:])
    assert spent < DEADLINE + SLACK, spent  # wall clock: deadline


def test_the_deadline_counts_from_the_start_and_a_stopped_one_never_fires(tmp_path: Path) -> None:
    """The configuration's budget replaces the default from the command's start (the default's timer, replaced,
    never fires); a command that ended (its deadline stopped) is never ended later."""
    import sys

    code = (
        "import sys, time; from pbem.cli import deadline; deadline.arm('pbem game'); deadline.named('pbem game x'); "
        "deadline.configured(0.8, 100); time.sleep(0.4); print('alive', flush=True); "
        "sys.argv[1] == 'stop' and deadline.stop(); time.sleep(0.8); print('ended by itself', flush=True)"
    )
    env = {**os.environ, "PBEM_COMMAND_DEADLINE": "0.2", "PYTHONPATH": os.getcwd()}
    watch = Stopwatch()
    both = [
        subprocess.Popen(
            [sys.executable, "-c", code, how], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for how in ("stop", "run")
    ]
    (out, err), (run_out, run_err) = (p.communicate(timeout=WAIT) for p in both)
    spent = watch.stop()
    assert (both[0].returncode, out, err) == (0, "alive\nended by itself\n", "")
    assert (both[1].returncode, run_out) == (3, "alive\n"), (both[1].returncode, run_out, run_err)
    said = "pbem: `pbem game x` passed its deadline of 0.8 s ([limits] command_deadline) while running; stopped"
    assert run_err.startswith(said) and run_err.count("\n") == 1, run_err
    assert spent < 0.8 + 5, spent  # wall clock: deadline

"""Every command run while `pbem move-record` holds the home (walk12).

The move holds the home's poll lock and SQLite's write lock for its whole copy.  Before walk12 a command that
writes waited SQLite's busy timeout (30 s) and ended "the database could not be used: database is locked" (exit 3),
a cron poll skipped saying "another pbem poll is running", and `pbem prune --vacuum` said the same; and a poll that
found a move running past the poll deadline and grace judged it stuck and killed it (the lock was judged by the
poll's deadline).  Now the move marks the record (`pbem.db.moving`, `pbem.record.moving`) and writes `move
DEADLINE` in its lock line: a command that only reads goes on, one that writes is refused at once in one line naming
the move (pid, since when, what to do), and the poll and prune name it.

The generator: every command of the CLI (`tests/reliability/test_waits_every_command.py`'s `ARGS`, typer's own
list) run against a home held as a move holds it, by a process that takes the poll lock, the mark and SQLite's write
lock with pbem's own code (`Lock(kind="move")`, `moving.put`, `db.transaction`).  Required: no "database is locked"
line, no traceback; a read-only command (`READS`) ends exit 0; any other ends as it would or, if it
writes, names the move.  On 4da2cbd6 (`PBEM_FULL_SIZE=1`, all at once): 30 of 30 failed (28 "the database could not be
used: database is locked" after 30 s, the read-only ones too, as every command's unit of work began BEGIN IMMEDIATE;
`check` said the same of its upkeep; the poll "another pbem poll is running"); on walk12 0 of 30.  The suite
runs `SAMPLE`'s four; the walk with a real `pbem move-record` stopped mid-copy (SIGSTOP) gave the same lines.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pbem.app.polllock import Holder, judge, line, parse
from tests.reliability import forkserver
from tests.reliability.test_waits_every_command import ARGS, PLAYER
from tests.sizes import FULL

#: Commands that only read the record: they must go on during a move.
READS = {"export", "game list", "game show", "game waiting", "game inputs", "outbox list", "check", "publish"}
SAMPLE = ("game pause", "game list", "poll", "outbox retry")  # a write, a read, the cron poll, the mail queue
HOLDER = """
import sys, time
from pathlib import Path
from pbem.app.polllock import Lock
from pbem.record import db, moving
home = Path(sys.argv[1])
lock = Lock(home, 900, "move", 3600)
assert lock.take() is None
mark = moving.put(home / "pbem.db")
with db.transaction(f"sqlite:///{home / 'pbem.db'}"):
    print("held", flush=True)
    sys.stdin.readline()
moving.remove(mark)
lock.close()
"""


def test_a_move_is_judged_by_its_own_deadline_and_named() -> None:
    """A move holding the lock past the poll's deadline and grace is running, not stuck (a cron poll killed it);
    past its own deadline it is stuck; its line names it; a line of an older pbem still reads."""
    now = 1_800_000_000.0
    move = Holder(4321, now - 2000, "h", now - 1, "move", 3600)
    assert parse(line(move)) == move and parse("4321 1799998000 h 1799999999") == Holder(4321, now - 2000, "h", now - 1)
    got = judge(move, now, 60, "h", True, True)
    assert got.state == "running" and got.why.startswith("a pbem move-record (pid 4321 on h, since "), got
    assert judge(Holder(4321, now - 2000, "h", now - 1), now, 60, "h", True, True).state == "stuck"  # a poll's
    assert judge(Holder(4321, now - 4000, "h", now - 1, "move", 3600), now, 60, "h", True, True).state == "stuck"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("walk12-move-lock")
    assert forkserver.pbem(["init", str(tmp / "home"), "--address", "games@example.test"]).returncode == 0
    cfg = tmp / "home" / "pbem.toml"
    players = ["--player", PLAYER, "--player", "Ben <ben@example.test>"]
    made = forkserver.pbem(["--config", cfg, "game", "new", "italian-wars", "--name", "iw1", "--no-join", *players])
    assert made.returncode == 0, made.stderr
    cfg.write_text(cfg.read_text() + "\n[limits]\ncommand_deadline = 60\n")  # (a wait on 4da2cbd6: 30 s, then said)
    return cfg


@pytest.fixture
def moving_home(home: Path) -> Iterator[Path]:
    root = Path(__file__).resolve().parent.parent
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(home.parent)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=root,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        assert proc.stdout.readline().strip() == "held"
        yield home
    finally:
        proc.stdin.write("\n")
        proc.stdin.close()
        proc.wait(60)


def failures(home: Path, names: list[str]) -> list[str]:
    tmp = home.parent.parent
    runs = [[*n.split(), "--config", str(home), *(a.format(tmp=tmp) for a in ARGS[n])] for n in names]
    wrong = []
    for name, r in zip(names, forkserver.pbem_many(runs, cwd=tmp, timeout=120), strict=True):
        if isinstance(r, subprocess.TimeoutExpired):
            wrong.append(f"{name}: still running after 120 s")
            continue
        said = r.stdout + r.stderr
        named = "a pbem move-record (pid " in said
        if "database is locked" in said or "could not be used" in said or "Traceback" in said:
            wrong.append(f"{name}: exit {r.returncode}: {said.strip()[-300:]}")
        elif name in READS and r.returncode != 0:
            wrong.append(f"{name} (reads only): exit {r.returncode}: {said.strip()[-300:]}")
        elif name in ("poll", "prune") and not named:
            wrong.append(f"{name}: the move is not named: {said.strip()[-300:]}")
    return wrong


def test_every_command_during_a_move_reads_or_names_the_move_at_once(moving_home: Path) -> None:
    names = sorted(ARGS) if FULL else list(SAMPLE)
    names = [n for n in names if n not in ("move-record", "demo")]  # (a second move: refused by the lock; no home)
    wrong = failures(moving_home, names)
    assert wrong == [], f"{len(wrong)} of {len(names)}:\n" + "\n".join(wrong)


def test_a_target_that_cannot_be_reached_or_a_huge_url_is_refused_in_one_line(home: Path) -> None:
    """`pbem move-record` to a server that does not answer said "the database could not be used" (exit 3) and a url
    of 100,000 characters went to libpq whole (on 4da2cbd6 2 of 2); now each is refused in one line, exit 2, the url
    shown clipped and without its password (0 of 2)."""
    down = "postgresql+psycopg://pbem:secret@127.0.0.1:9/none?connect_timeout=5"
    got = forkserver.pbem(["--config", home, "move-record", down])
    assert got.returncode == 2 and got.stderr.startswith("pbem: the target database postgresql+psycopg://pbem:***@"), (
        got
    )
    assert "cannot be used: " in got.stderr and "~/.pgpass" in got.stderr and "secret" not in got.stderr, got.stderr
    huge = forkserver.pbem(["--config", home, "move-record", "postgresql+psycopg://pbem@h/" + "d" * 100_000])
    assert huge.returncode == 2 and "longer than 4,096 characters" in huge.stderr and len(huge.stderr) < 400, huge


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    from tests import pg

    yield from pg.own_database()


def _write_locked(db: Path) -> bool:
    import sqlite3

    conn = sqlite3.connect(db, timeout=0)
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError:
        return True
    finally:
        conn.close()
    return False


@pytest.mark.postgres
@pytest.mark.xdist_group("postgres")
def test_a_real_move_stopped_mid_copy_names_itself_to_a_write_and_lets_a_read_go_on(
    home: Path, tmp_path: Path, pg_url: str
) -> None:
    """`pbem move-record` itself (its own process), stopped (SIGSTOP) while it holds SQLite's write lock: `pbem game
    pause` is refused at once naming it, `pbem game list` works, a cron poll skips naming it; let go, the move ends
    exit 0 and removes its mark."""
    import os
    import shutil
    import signal

    from tests.test_postgres_move import emptied

    url = emptied(pg_url)
    moved = tmp_path / "home"
    shutil.copytree(home.parent, moved)
    cfg = moved / "pbem.toml"
    mover = subprocess.Popen(
        [sys.executable, "-m", "pbem", "--config", str(cfg), "move-record", url],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    try:
        while True:  # stopped where it holds the write lock (a small home: the copy takes a moment only)
            if mover.poll() is not None:
                pytest.fail(f"the move ended before it could be stopped: {mover.communicate()[0]}")
            os.kill(mover.pid, signal.SIGSTOP)
            if (moved / "pbem.db.moving").exists() and _write_locked(moved / "pbem.db"):
                break
            os.kill(mover.pid, signal.SIGCONT)
        pause, listed, poll = forkserver.pbem_many(
            [["--config", str(cfg), *a] for a in (["game", "pause", "iw1"], ["game", "list"], ["poll"])], timeout=120
        )
        assert pause.returncode == 3 and pause.stderr.startswith("pbem: a pbem move-record (pid "), pause
        assert f"(pid {mover.pid} on " in pause.stderr and "nothing was changed" in pause.stderr, pause.stderr
        assert listed.returncode == 0 and "iw1" in listed.stdout, listed
        assert poll.returncode == 0 and poll.stdout.startswith("a pbem move-record (pid "), poll
    finally:
        os.kill(mover.pid, signal.SIGCONT)
    out = mover.communicate(timeout=300)[0]
    assert mover.returncode == 0 and "every game's chain checks" in out, out
    assert not (moved / "pbem.db.moving").exists()

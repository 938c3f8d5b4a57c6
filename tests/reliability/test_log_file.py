"""`[log] file` that cannot be written for a while, or whose open waits: what each command does.

A log file another process holds a lease on (a Samba oplock, an NFS delegation, a backup tool: the kernel refuses
the poll's open, EAGAIN, and tells the holder to let go) stopped `pbem poll` with exit 2, "bad configuration",
although the next run, with nothing changed, worked (found by this file).  Now the open is tried again for
`logs.LEASE_WAIT` seconds (a holder told to let go does so within it, and the poll goes on), then the poll exits 3
("nothing was done, the next run tries again"); the command's deadline bounds that wait like any other, naming the
log file.  Exit 2 stays for a setting that names no file pbem can write (a folder, a FIFO no process reads).

Every command of typer's list runs with its home's log file leased: none may end with exit 2 over the log file,
and the poll, which opens it, ends with exit 3 at its deadline, naming the log file.
"""

from __future__ import annotations

import errno
import fcntl
import os
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.cli import app
from pbem.home import logs
from pbem.home.config import load
from tests.growth import Stopwatch
from tests.reliability import forkserver
from tests.reliability.test_waits_every_command import ARGS, NO_DATABASE, commands

DEADLINE = 1
WAIT = 20.0  # seconds: a command still running then waits without end
SLACK = 8.0  # seconds past the deadline for all the commands at once on a loaded machine


@contextmanager
def leased(path: Path, let_go: bool = False) -> Iterator[list[int]]:
    """A write lease on `path` while this runs: every other open of it is refused (EAGAIN, as pbem opens it) or
    waits; with `let_go`, the holder gives it up when the kernel tells it another process wants the file."""
    path.touch()
    fd = os.open(path, os.O_RDWR)
    calls: list[int] = []

    def told(signum: int, _frame: object) -> None:
        calls.append(signum)
        if let_go:
            fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_UNLCK)

    before = signal.signal(signal.SIGIO, told)
    try:
        try:
            fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_WRLCK)
        except OSError as exc:
            pytest.skip(f"no file leases here: {exc}")
        yield calls
    finally:
        os.close(fd)
        signal.signal(signal.SIGIO, before)


@pytest.fixture()
def home(tmp_path: Path) -> Path:
    """A new home whose `[log] file` is `pbem.log` in it."""
    from pbem.cli.support import init_home

    cfg = init_home(tmp_path / "home", address="moderator@pbem.test", name="Test Moderator")
    text = cfg.read_text()
    assert '#[log]\n#file = "pbem.log"' in text
    cfg.write_text(text.replace('#[log]\n#file = "pbem.log"', '[log]\nfile = "pbem.log"'))
    return cfg


def test_a_leased_log_file_is_waited_for_then_the_poll_exits_3(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(logs, "LEASE_WAIT", 0.3)
    log = home.parent / "pbem.log"
    with leased(log):
        watch = Stopwatch()
        got = CliRunner().invoke(app, ["--config", str(home), "poll"])
        spent = watch.stop()
    assert got.exit_code == 3, got.output
    assert got.output == (
        f"pbem: [log] file {log} cannot be written: another process holds a lease on it and did not let it go "
        f"within 0.3 s; nothing was done, the next run tries again (in {home})\n"
    )
    assert watch.wall >= 0.3 and spent < 0.3 + 5, spent  # wall clock: the wait is bounded
    got = CliRunner().invoke(app, ["--config", str(home), "poll"])  # the lease is gone: the next run carries on
    assert got.exit_code == 0, got.output


def test_a_holder_that_lets_go_when_told_costs_the_poll_nothing(home: Path) -> None:
    log = home.parent / "pbem.log"
    with leased(log, let_go=True) as told:
        watch = Stopwatch()
        got = CliRunner().invoke(app, ["--config", str(home), "poll"])
        spent = watch.stop()
    assert got.exit_code == 0 and got.output.startswith("nothing to do"), got.output
    assert told and spent < logs.LEASE_WAIT, (told, spent)  # wall clock: deadline


@pytest.mark.parametrize(
    ("code", "passes"),
    [
        *[(code, True) for code in (errno.EAGAIN, errno.ENOSPC, errno.EROFS, errno.ESTALE, errno.EIO)],
        *[(code, False) for code in (errno.EISDIR, errno.ENXIO, errno.EACCES, errno.ENOTDIR)],
    ],
)
def test_which_failures_pass_by_themselves(code: int, passes: bool) -> None:
    """Exit 3 (the next run carries on) for what passes with nothing changed; exit 2 (change the setting or the
    file) for the rest."""
    assert logs.passing(OSError(code, os.strerror(code))) is passes


def test_a_log_file_that_is_a_folder_is_still_a_setting_to_change(home: Path) -> None:
    (home.parent / "pbem.log").mkdir()
    got = CliRunner().invoke(app, ["--config", str(home), "poll"])
    assert got.exit_code == 2 and got.output.startswith(f"pbem: [log] file {home.parent / 'pbem.log'} "), got.output


def test_every_command_with_its_log_file_leased(tmp_path: Path) -> None:
    """Every command of typer's list with the home's log file leased (its holder never lets go) and a deadline of
    `DEADLINE` s: each ends in time, none with exit 2 over the log file, none with a traceback; `pbem poll`, which
    opens it, waits for it until its deadline (longer than that is the deadline's), exit 3 naming the log file."""
    assert sorted([*ARGS, *NO_DATABASE]) == commands()
    assert forkserver.pbem(["init", str(tmp_path / "home"), "--address", "games@example.test"]).returncode == 0
    cfg = tmp_path / "home" / "pbem.toml"  # no game: each command meets what it opens first, and ends soon
    text = cfg.read_text().replace("[mail]", f"[mail]\npoll_deadline = {DEADLINE}", 1)
    text = text.replace('#[log]\n#file = "pbem.log"', '[log]\nfile = "pbem.log"')
    cfg.write_text(text + f"\n[limits]\ncommand_deadline = {DEADLINE}\n")
    env = {**os.environ, "PBEM_COMMAND_DEADLINE": str(DEADLINE)}
    runs = {n: [*n.split(), "--config", str(cfg), *(a.format(tmp=tmp_path) for a in args)] for n, args in ARGS.items()}
    del runs["demo"]  # like the NO_DATABASE commands, it reads no home: no [log] file to meet
    with leased(tmp_path / "home" / "pbem.log"):
        watch = Stopwatch()
        got = forkserver.pbem_many(list(runs.values()), env=env, cwd=tmp_path, timeout=WAIT)
        spent = watch.stop()
    ended = dict(zip(runs, got, strict=True))
    late = [name for name, r in ended.items() if isinstance(r, subprocess.TimeoutExpired)]
    assert not late, f"still waiting after {WAIT:.0f} s: {late}"
    for name, r in ended.items():
        assert "Traceback" not in r.stderr, (name, r.stderr[-1500:])
        assert not (r.returncode == 2 and "[log] file" in r.stderr), (name, r.stderr[-1500:])
    poll = ended["poll"]
    said = f"pbem: `pbem poll` passed its deadline of {DEADLINE} s ([mail] poll_deadline) while opening or writing"
    assert poll.returncode == 3 and poll.stderr.startswith(said), poll.stderr[-1500:]
    assert poll.stderr.count("\n") == 1, poll.stderr
    assert spent < DEADLINE + SLACK, spent  # wall clock: deadline


@contextmanager
def unread_fifo(path: Path) -> Iterator[int]:
    """`path` a FIFO that a process holds open to read and never reads, its buffer full: every write to it blocks."""
    os.mkfifo(path)
    reader = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    writer = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    try:
        while True:
            os.write(writer, b"x" * 4096)
    except BlockingIOError:
        pass
    os.close(writer)
    try:
        yield reader
    finally:
        os.close(reader)  # a write still blocked in a writer thread fails now, and the thread ends


def test_a_log_write_that_blocks_has_its_own_deadline_and_the_moderator_is_told(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `[log] file` FIFO whose reader stopped reading: the open works (a reader is there), then the first write
    blocked the poll, and every command that logs, until the run's own deadline (15 minutes for the poll).  Now a
    line waits `WRITE_WAIT` s at most, the run goes on without its log, and stderr says so once."""
    monkeypatch.setattr(logs, "WRITE_WAIT", 0.05)
    log = home.parent / "pbem.log"
    runner = CliRunner()
    players = [a for p in ("A <a@x.test>", "B <b@x.test>", "C <c@x.test>") for a in ("--player", p)]
    runs = {
        "created habsburg game hh1": ["game", "new", "habsburg", "--name", "hh1", "--no-join", *players],
        "deadline of hh1 is now": ["game", "extend", "HH1", "2h"],
        "read 1 message": ["poll", "--verbose"],
    }
    with unread_fifo(log):
        for printed, args in runs.items():
            if args[0] == "poll":  # a mail to handle, which the poll logs
                from tests.conftest import deliver, order_mail

                deliver(load(home), order_mail("Stranger <s@x.test>", "hh1", "HELP"))
            watch = Stopwatch()
            got = runner.invoke(app, ["--config", str(home), *args])
            spent = watch.stop()
            assert got.exit_code == 0 and printed in got.output, (args, got.output)
            said = [line for line in got.output.splitlines() if line.startswith("pbem: note: [log] file")]
            assert said == [
                f"pbem: note: [log] file {log} took no line for 0.05 s (a FIFO no process reads, a disk that stopped "
                "answering?): the run goes on, without the lines it could not log"
            ], (args, got.output)
            assert spent < 0.05 * 3 + 3, (args, spent)  # wall clock: deadline

"""A dead or stuck poll's lock is taken over; the moderator is told of overruns and clock jumps (issue 26).

* `judge` with an injected clock: a fresh holder runs; a dead pid, a heartbeat older than the poll deadline,
  a holder past deadline + grace, a holder on another host, an older pbem's line.
* A killed poll whose open lock file outlives it (a child holds it): the next `pbem poll` replaces the lock
  file, logs one line and polls.
* A real `pbem poll` stopped (SIGSTOP) while a trickling IMAP server holds it: once its heartbeat is older
  than the poll deadline, the next `pbem poll` ends it, logs one line and polls; the stopped one is dead.
* A poll that passes its deadline exits 3 and queues ONE overrun mail to the moderator a day, sent by the next run.
* A clock five days ahead (an injected clock through `run_poll`): the moderator gets a mail saying what it applied.
"""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import os
import signal
import socket
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from email import policy
from email.parser import BytesParser
from pathlib import Path

from pbem.app.polllock import Holder, judge, line, read_holder
from pbem.home.app import Home
from pbem.mail.transports import deadline
from tests.mail.test_deadlines import REPO, _imap_home, _pbem, server, trickling_imap
from tests.reliability import forkserver

HOST = socket.gethostname()


def test_the_holder_is_judged_by_its_pid_heartbeat_and_age() -> None:
    now = 1_800_000_000.0
    fresh = Holder(10, now - 30, HOST, now - 2)
    assert judge(fresh, now, 900, HOST, alive=True, pbem=True).state == "running"
    assert judge(fresh, now, 900, HOST, alive=False, pbem=False).state == "dead"
    assert judge(fresh, now, 900, HOST, alive=True, pbem=False).state == "dead", "a reused pid is no poll"
    quiet = Holder(10, now - 1000, HOST, now - 901)
    v = judge(quiet, now, 900, HOST, alive=True, pbem=True)
    assert v.state == "stuck" and "no heartbeat" in v.why and "901 s" in v.why
    old = Holder(10, now - 900 - deadline.GRACE - 1, HOST, now - 1)  # beating, but its watchdog did not end it
    assert judge(old, now, 900, HOST, alive=True, pbem=True).state == "stuck"
    assert judge(Holder(10, now - 30, "other", now - 2), now, 900, HOST, True, True).state == "running"
    far = judge(Holder(10, now - 30, "other", now - 901), now, 900, HOST, True, True)
    assert far.state == "elsewhere" and "another host" in far.why
    legacy = Holder(10, now - 30)  # "PID STARTED": this host, judged by its age
    assert judge(legacy, now, 900, HOST, alive=True, pbem=True).state == "running"
    assert judge(legacy, now + 2000, 900, HOST, alive=True, pbem=True).state == "stuck"
    assert read_holder.__name__ and line(fresh).endswith("\n") and len(line(fresh)) == 160


def _maildir_home(tmp_path: Path):
    from tests.reliability import killpoints as kp

    return kp.make_home(tmp_path / "home")


def _dead_pid() -> int:
    p = subprocess.Popen(["true"])  # a process that ended (a Python doing nothing cost 0.1 CPU s)
    p.wait()
    return p.pid


HOLD = """
import fcntl, sys, time
f = open(sys.argv[1], "a+")
fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
f.seek(0); f.truncate(); f.write(sys.argv[2]); f.flush()
print("held", flush=True)
time.sleep(120)
"""


def test_a_killed_polls_lock_is_taken_over(tmp_path: Path) -> None:
    cfg = _maildir_home(tmp_path)
    path = cfg.home / ".pbem-poll.lock"
    now = time.time()
    holder = line(Holder(_dead_pid(), now - 20, HOST, now - 1))  # the poll is gone; its child keeps the file
    child = subprocess.Popen([sys.executable, "-c", HOLD, str(path), holder], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "held"
        before = path.stat().st_ino
        r = _pbem(cfg.path, "poll")
        assert r.returncode == 0, r.stderr[-2000:]
        took = [x for x in r.stderr.splitlines() if "took over this home's poll lock" in x]
        assert len(took) == 1 and "is gone" in took[0] and "replaced the lock file" in took[0], r.stderr
        assert "another pbem poll is running" not in r.stdout + r.stderr
        assert path.stat().st_ino != before
        again = _pbem(cfg.path, "poll")  # the lock is free again: an ordinary run, nothing taken over
        assert again.returncode == 0 and "took over" not in again.stderr, again.stderr[-2000:]
    finally:
        child.kill()
        child.wait()


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO), "PBEM_DEADLINE_PW": "secret-pw"}


def _heartbeat_ages_past(path: Path, poll_deadline: int, pid: int) -> None:
    """The suspended holder's line as it stands once its last heartbeat is older than `poll_deadline`: the same
    pid, start and host, the beat moved back past the deadline.  The holder is stopped (SIGSTOP), so nothing
    rewrites the line: this is the file as the deadline's wait would leave it, without waiting the seconds."""
    h = read_holder(path)
    assert h is not None and h.pid == pid and h.beat is not None, h
    older = Holder(h.pid, h.started, h.host, min(h.beat, time.time()) - poll_deadline - 2)
    with open(path, "r+") as f:  # in place, as the holder's heartbeat writes it
        f.write(line(older))


def test_a_stuck_poll_is_ended_and_its_lock_taken_over(tmp_path: Path) -> None:
    with server(trickling_imap) as (port, _):
        toml = _imap_home(tmp_path, port, poll_deadline=8)
        path = toml.parent / ".pbem-poll.lock"
        stuck = subprocess.Popen(
            [sys.executable, "-m", "pbem", "--config", str(toml), "poll"],
            env=_env(),
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            for _ in range(200):  # until it holds the lock
                h = read_holder(path)
                if h is not None and h.pid == stuck.pid:
                    break
                time.sleep(0.05)
            else:
                raise AssertionError("the first poll never took the lock")
            stuck.send_signal(signal.SIGSTOP)  # suspended: no heartbeat, its watchdog never fires
            r = _pbem(toml, "poll")  # within the poll deadline (8 s) of its last heartbeat
            assert r.returncode == 0 and "another pbem poll is running" in r.stdout, (r.stdout, r.stderr[-1500:])
            _heartbeat_ages_past(path, 8, stuck.pid)
            toml.write_text(toml.read_text().replace('transport = "imap"', 'transport = "maildir"'))
            r = _pbem(toml, "poll")
            assert r.returncode == 0, (r.stdout, r.stderr[-2000:])
            took = [x for x in r.stderr.splitlines() if "took over this home's poll lock" in x]
            assert len(took) == 1 and "no heartbeat from pid" in took[0] and "ended it" in took[0], r.stderr
            assert stuck.wait(10) == -signal.SIGKILL
        finally:
            if stuck.poll() is None:
                stuck.kill()
                stuck.wait()
    with open(path) as lock:  # free again
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)


def _alerts(toml: Path, kind_text: str) -> list[tuple[str, bytes]]:
    import sqlite3

    from pbem.home import config as config_mod

    cfg = config_mod.load(toml)
    con = sqlite3.connect(cfg.database_url.removeprefix("sqlite:///"))
    try:
        rows = con.execute(
            "SELECT status, raw FROM outbox JOIN outbox_mail USING (id) WHERE purpose = 'alert'"
        ).fetchall()
    finally:
        con.close()
    return [(st, bytes(raw)) for st, raw in rows if kind_text.encode() in bytes(raw)]


def test_an_overrun_tells_the_moderator_once_a_day(tmp_path: Path) -> None:
    with server(trickling_imap) as (port, _):
        toml = _imap_home(tmp_path, port, poll_deadline=2)
        for _ in range(2):
            r = _pbem(toml, "poll")
            assert r.returncode == 3 and "deadline of 2 s" in r.stderr, (r.returncode, r.stderr[-1500:])
    alerts = _alerts(toml, "a poll passed its deadline")
    assert len(alerts) == 1 and alerts[0][0] == "queued", "one mail a day, however many runs overran"
    toml.write_text(toml.read_text().replace('transport = "imap"', 'transport = "maildir"'))
    assert _pbem(toml, "poll").returncode == 0
    sent = [p.read_bytes() for p in (toml.parent / "mail" / "sent").glob("*/*")]
    told = [m for m in sent if b"a poll passed its deadline" in m]
    assert len(told) == 1 and b"To: " in told[0] and b"moderator@pbem.test" in told[0]
    text = BytesParser(policy=policy.default).parsebytes(told[0]).get_body(("plain",))
    assert text is not None and "deadline of 2 s" in text.get_content() and "secret-pw" not in text.get_content()


def test_a_forward_clock_jump_is_mailed_with_what_it_applied(tmp_path: Path) -> None:
    from pbem.app import games
    from pbem.app.cron import run_poll
    from tests.conftest import CODES
    from tests.mail.test_outbox_semantics import PLAYERS

    cfg = _maildir_home(tmp_path)
    cfg.outage_after = timedelta(0)  # the machine was not off: the clock itself jumped
    start = datetime.now(UTC).replace(microsecond=0)
    games.create_game(Home.of(cfg), "habsburg", "g1", PLAYERS, seed="jump", codes=CODES, clock=lambda: start)
    first = run_poll(cfg, clock=lambda: start + timedelta(minutes=1))  # sends the first reports
    assert first.summary is not None
    later = start + timedelta(days=5)
    run = run_poll(cfg, clock=lambda: later)
    assert run.summary is not None and run.summary.deadlines == 1
    assert any("ahead of the last poll" in n for n in run.summary.notes)
    sent = [p.read_bytes() for p in (Path(cfg.maildir_path) / "sent").glob("*/*")]
    told = [m for m in sent if b"clock jumped ahead" in m]
    assert len(told) == 1, "sent by the run that saw the jump"
    body = BytesParser(policy=policy.default).parsebytes(told[0]).get_body(("plain",))
    assert body is not None
    text = body.get_content()
    assert "5.0 days ahead" in text and "applied 1 deadline(s)" in text, text
    stamp = f"this one at {later:%Y-%m-%d %H:%M} UTC."  # the same form as the previous poll's time
    assert stamp in text and "pbem poll --trust-clock" in text, text
    run_poll(cfg, clock=lambda: later + timedelta(minutes=5))
    assert len([p for p in (Path(cfg.maildir_path) / "sent").glob("*/*") if b"clock jumped" in p.read_bytes()]) == 1


CONTEND = """
import os, sys, time
from pathlib import Path
from pbem.app.polllock import Lock
home, gate, runs = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
(gate / str(os.getpid())).touch()
while len(os.listdir(gate)) < runs:  # every run ready: they take the lock at the same instant
    time.sleep(0.001)
lock = Lock(home, 60)
if lock.take() is None:
    began = time.time()
    time.sleep(0.3)
    ended = time.time()
    lock.close()
    print(f"held {began} {ended}", flush=True)
else:
    print("busy", flush=True)
"""


def test_runs_started_together_never_hold_the_lock_at_once(tmp_path: Path) -> None:
    """Found by trying the product: four polls started at once, after a poll that had finished (and one that had
    crashed, whose line stays), and two of them ran together: one read the line of the poll before, whose pid
    was gone, while the run that had just taken the lock had not written its own, and "took over" from it. Each
    round starts six runs at the same instant, on a home whose lock file holds a gone poll's line."""
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for round_ in range(4):
        now = time.time()
        (home / ".pbem-poll.lock").write_text(line(Holder(_dead_pid(), now - 30, HOST, now - 20)))
        # six `python -c CONTEND` forked together from the fork server (pbem's modules imported there once, not in
        # 24 fresh Pythons of 0.13 CPU s each); each waits at the gate until all six are there (it waited for a line
        # on its stdin, sent once every one had said it was ready)
        gate = tmp_path / f"gate{round_}"
        gate.mkdir()
        done = forkserver.python_many(CONTEND, [[str(home), str(gate), "6"]] * 6, env=env, timeout=60)
        held = []
        for run in done:
            assert not isinstance(run, BaseException), run
            assert run.returncode == 0, run.stderr[-2000:]
            words = run.stdout.split()
            if words[:1] == ["held"]:
                held.append((float(words[1]), float(words[2])))
            else:
                assert words == ["busy"], run.stdout
        assert held, round_
        held.sort()
        for (_, end), (begin, _) in itertools.pairwise(held):
            assert begin >= end, (round_, held)  # one run after the other, never two at once


def _wrapper_env(tmp_path: Path) -> dict[str, str]:
    shim = tmp_path / "bin"
    shim.mkdir(exist_ok=True)
    (shim / "pbem").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m pbem "$@"\n')
    (shim / "pbem").chmod(0o755)
    return {**_env(), "PATH": f"{shim}:{os.environ['PATH']}"}


def test_the_cron_wrapper_leaves_a_stuck_poll_to_pbems_lock_which_ends_it(tmp_path: Path) -> None:
    """`cron/pbem-poll` while a poll it started is going: exits 0 saying so; once that poll is stuck past its
    deadline, the next wrapper run ends it and takes its lock.  The wrapper once held a `flock` of its own
    around pbem (so that cron was not mailed an exit 1): a stuck poll kept that lock, every later run exited 0
    without starting pbem, and pbem's own takeover of a stuck poll never ran (found by the transport testers)."""
    wrapper = REPO / "cron" / "pbem-poll"
    env = _wrapper_env(tmp_path)
    with server(trickling_imap) as (port, _):
        toml = _imap_home(tmp_path, port, poll_deadline=8)
        log, path = toml.parent / "cron.log", toml.parent / ".pbem-poll.lock"
        stuck = subprocess.Popen(["sh", str(wrapper), str(toml)], env=env, cwd=REPO)
        try:
            for _ in range(200):  # until its pbem holds the lock
                h = read_holder(path)
                if h is not None:
                    break
                time.sleep(0.05)
            else:
                raise AssertionError("the wrapper's poll never took the lock")
            os.kill(h.pid, signal.SIGSTOP)  # the wrapper's pbem, suspended: no heartbeat
            busy = subprocess.run(["sh", str(wrapper), str(toml)], env=env, timeout=60)
            assert busy.returncode == 0 and "another pbem poll is running" in log.read_text(), log.read_text()
            _heartbeat_ages_past(path, 8, h.pid)
            toml.write_text(toml.read_text().replace('transport = "imap"', 'transport = "maildir"'))
            taken = subprocess.run(["sh", str(wrapper), str(toml)], env=env, timeout=120)
            text = log.read_text()
            assert taken.returncode == 0 and "took over this home's poll lock" in text, text[-2000:]
            stuck.wait(10)  # its pbem was ended (SIGKILL), so the wrapper is done too
        finally:
            if stuck.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(h.pid, signal.SIGKILL)
                stuck.kill()
                stuck.wait()

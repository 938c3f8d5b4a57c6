"""The home's poll lock: who holds it, a heartbeat, and taking over a dead or stuck holder's lock (issue 26).

One `pbem poll` runs per home at a time: it holds an exclusive `flock` on
`.pbem-poll.lock` in the home, and writes in it one line
`PID STARTED HOST BEAT` (Unix times), rewriting BEAT every `beat_every`
seconds from a thread while it runs.  A poll that finds the lock taken
judges the holder (`judge`, pure):

* **running**: its heartbeat is fresh and it started within the poll deadline
  and the watchdog's grace: an ordinary overlap of cron runs; exit 0.
* **dead**: it ran on this host and its pid is gone (or is no pbem process any
  more), yet the lock is held (a child that inherited the open file, a
  file system that kept it), and its line is still the same `RECHECK` seconds
  later (a run that has just taken the lock writes its own line at once; a
  poll empties its line when it lets the lock go): the lock file is replaced
  by a fresh one, which this run locks; one log line.
* **stuck**: its heartbeat is older than the poll deadline, or it has held the
  lock past the deadline and grace (its own watchdog should have ended it: the
  process is suspended or hung).  On this host it is ended (SIGKILL: every
  stage of a poll is crash-safe, `tests/reliability/test_crash_safety.py`) and
  its lock taken; one log line.  On another host (a shared home) it cannot be
  looked at: the run exits 3 with one line naming it.

A lock line from an older pbem (`PID STARTED`) has no host or beat: judged on
this host by its start time alone.

`pbem move-record` holds the same lock for its copy, its line ending `move DEADLINE` (`KIND`, its own
`[limits] command_deadline`, walk12): a poll that finds it skips saying so, and judges it stuck only past
that deadline (a move of a large home takes longer than a poll may: judged by the poll's, a cron poll would
have ended it past `poll_deadline` and grace).
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import signal
import socket
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO

from pbem.mail.transports import deadline

log = logging.getLogger("pbem.lock")
LOCK_FILE = ".pbem-poll.lock"
RECHECK = 0.5  # seconds a dead holder's line must stay unchanged before its lock is taken over
WIDTH = 160  # the holder line is rewritten in place at this width, so a reader never sees a torn mix


@dataclass(frozen=True)
class Holder:
    pid: int
    started: float  # time.time() when it took the lock
    host: str = ""  # "" : an older pbem's line (this host assumed)
    beat: float | None = None  # its newest heartbeat
    kind: str = "poll"  # or "move": `pbem move-record`, whose line ends `move DEADLINE`
    deadline: float | None = None  # a move's own deadline (seconds); a poll's is the poll deadline


@dataclass(frozen=True)
class Verdict:
    state: str  # running, dead, stuck, elsewhere (stuck on another host)
    why: str = ""


def line(holder: Holder) -> str:
    beat = holder.beat if holder.beat is not None else holder.started
    text = f"{holder.pid} {holder.started:.0f} {holder.host} {beat:.0f}"
    if holder.kind != "poll":
        text += f" {holder.kind} {holder.deadline or 0:.0f}"
    return text[: WIDTH - 1].ljust(WIDTH - 1) + "\n"


def parse(text: str) -> Holder | None:
    parts = text.split()
    try:
        if len(parts) >= 6:
            return Holder(int(parts[0]), float(parts[1]), parts[2], float(parts[3]), parts[4][:16], float(parts[5]))
        if len(parts) >= 4:
            return Holder(int(parts[0]), float(parts[1]), parts[2], float(parts[3]))
        if len(parts) >= 2:
            return Holder(int(parts[0]), float(parts[1]))
    except ValueError:
        return None
    return None


def read_holder(path: os.PathLike[str] | str) -> Holder | None:
    try:
        with open(path) as f:
            return parse(f.read(4096))
    except OSError:
        return None


def _when(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(t))


def holding(holder: Holder, host: str) -> str:
    """Who holds the lock, in the words a run that finds it taken says (a move: what it is and what to do)."""
    name = f"pid {holder.pid} on {holder.host or host}"
    if holder.kind == "move":
        return f"a pbem move-record ({name}, since {_when(holder.started)}) is copying this home's record to PostgreSQL"
    return f"another pbem poll is running on this home ({name}, since {_when(holder.started)})"


def judge(holder: Holder, now: float, poll_deadline: float, host: str, alive: bool, pbem: bool) -> Verdict:
    """What to do about the lock's holder at `now` (`alive`, `pbem`: its pid runs, and runs pbem, on this host).  A
    move's holder is judged by its own deadline: a move may take longer than a poll (walk12)."""
    here = holder.host in ("", host)
    held = now - holder.started
    quiet = now - holder.beat if holder.beat is not None else None
    name = f"pid {holder.pid} on {holder.host or host}"
    most = holder.deadline if holder.kind == "move" and holder.deadline else poll_deadline
    if here and not (alive and pbem):
        return Verdict("dead", f"the {holder.kind} holding the lock ({name}, since {_when(holder.started)}) is gone")
    if quiet is not None and quiet > poll_deadline:
        why = f"no heartbeat from {name} since {_when(now - quiet)} ({quiet:.0f} s, past the poll deadline)"
    elif held > most + deadline.GRACE:
        why = f"{name} has held the lock since {_when(holder.started)} ({held / 60:.0f} min, past the deadline)"
    else:
        return Verdict("running", holding(holder, host))
    if here:
        return Verdict("stuck", why)
    return Verdict(
        "elsewhere", f"another pbem poll is stuck: {why}; it runs on another host: look at it (nothing was read)"
    )


def _alive(pid: int) -> tuple[bool, bool]:
    """(the pid runs, it runs pbem) on this host."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False, False
    except PermissionError:
        return True, True  # not ours to look at: assume it is a poll
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return True, True  # no /proc (not Linux): cannot tell, assume it is
    return True, b"pbem" in cmdline


class Lock:
    """The poll lock of one home, held by this run: `take` it, then `close` (the heartbeat stops with it)."""

    def __init__(self, home: Path, poll_deadline: float, kind: str = "poll", most: float | None = None) -> None:
        self.path = Path(home) / LOCK_FILE
        self.kind, self.most = kind, most  # (`move`, with its own deadline: `pbem move-record`)
        self.poll_deadline = float(poll_deadline)
        self.beat_every = max(0.2, min(10.0, self.poll_deadline / 5))
        self.file: IO[str] | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.took_over = ""  # the one line logged when this run took the lock over

    def take(self) -> Verdict | None:
        """Lock the home for this run; None when taken, else why not (running: another poll; elsewhere)."""
        f = open(self.path, "a+")  # noqa: SIM115  (held for the run; not "w": that would empty the line)
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            f.close()
            return self._busy()
        self._hold(f)
        return None

    def _busy(self) -> Verdict | None:
        """The lock is taken: judge its holder, and take it over from a dead or stuck one (one run at a time)."""
        with open(self.path.with_name(LOCK_FILE + ".takeover"), "a+") as guard:
            try:
                fcntl.flock(guard, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return Verdict("running")  # another run is taking it over
            try:
                f = self._wait_for_lock(0)  # freed meanwhile (or replaced by the run before us)
                if f is not None:
                    self._hold(f)
                    return None
                return self._judged()
            finally:
                fcntl.flock(guard, fcntl.LOCK_UN)

    def _judged(self) -> Verdict | None:
        holder = read_holder(self.path)
        if holder is None:
            return Verdict("running")  # its line is not written yet: it has just started
        host = socket.gethostname()
        alive, pbem = _alive(holder.pid) if holder.host in ("", host) else (True, True)
        v = judge(holder, time.time(), self.poll_deadline, host, alive, pbem)
        if v.state == "dead":
            # A run that has just taken the lock has not written its line yet: the line read may be the one an
            # earlier poll left. Only a line that stays the same for a moment is a dead holder's.
            time.sleep(RECHECK)
            again = read_holder(self.path)
            if again != holder:
                return Verdict("running")
        if v.state in ("running", "elsewhere"):
            return v
        if v.state == "stuck":
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(holder.pid, signal.SIGKILL)
            f = self._wait_for_lock(5.0)
            verb = "ended it"
        else:
            f = None
            verb = "replaced the lock file"
        if f is None:  # the dead (or killed) holder's open file outlives it: a fresh lock file, locked by us
            f = self._replace()
            if f is None:
                return Verdict("running")  # another run took the fresh one first
        self.took_over = f"took over this home's poll lock: {v.why}; {verb}"
        log.warning("%s", self.took_over)
        self._hold(f)
        return None

    def _wait_for_lock(self, seconds: float) -> IO[str] | None:
        end = time.monotonic() + seconds
        while True:
            f = open(self.path, "a+")  # noqa: SIM115  (returned locked, closed by Lock.close)
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return f
            except BlockingIOError:
                f.close()
            if time.monotonic() >= end:
                return None
            time.sleep(0.05)

    def _replace(self) -> IO[str] | None:
        fresh = self.path.with_name(f"{LOCK_FILE}.{os.getpid()}")
        f = open(fresh, "w+")  # noqa: SIM115  (returned locked, closed by Lock.close)
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)  # nobody else knows this file yet
        self._write(f, self._holder(time.time()))
        os.replace(fresh, self.path)  # from now on every run opens this one
        return f

    def _holder(self, now: float) -> Holder:
        return Holder(os.getpid(), now, socket.gethostname(), now, self.kind, self.most)

    def _write(self, f: IO[str], holder: Holder) -> None:
        os.pwrite(f.fileno(), line(holder).encode(), 0)
        os.ftruncate(f.fileno(), WIDTH)

    def _hold(self, f: IO[str]) -> None:
        self.file = f
        holder = self._holder(time.time())
        self._write(f, holder)
        self._thread = threading.Thread(target=self._beat, args=(holder,), name="pbem-lock-beat", daemon=True)
        self._thread.start()

    def _beat(self, holder: Holder) -> None:
        while not self._stop.wait(self.beat_every):
            if self.file is None:
                return
            with contextlib.suppress(OSError, ValueError):
                self._write(self.file, replace(holder, beat=time.time()))

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        if self.file is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(self.file.fileno(), 0)  # no line left for the next run to judge as a dead holder's
                fcntl.flock(self.file, fcntl.LOCK_UN)
            self.file.close()
            self.file = None

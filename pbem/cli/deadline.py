"""Every command's deadline: one process watchdog, armed when the command line is parsed, for every command.

A wait no timeout reaches (the SQLite file, its -wal or the home on a file system that stopped answering, a
log file, a host name whose resolution hangs) held any command but `pbem poll` without end; the poll alone had
a watchdog (`pbem.mail.transports.deadline`).  Now the root callback arms this one before anything is read
(`arm`): `PBEM_COMMAND_DEADLINE` seconds, else `COMMAND_DEADLINE` (3600 s, docs/performance.md), which also
bounds `pbem verify` on a player's machine, which has no home.  Once a command has read its configuration
(`configured`), the budget is the home's `[limits] command_deadline`, counted from the start; `pbem poll` gets
`[mail] poll_deadline` until its own watchdog takes over (`handed_over`), which shuts its sockets at that
deadline and files what it finished.

When the deadline passes, the process ends with ONE line on stderr naming the command and what it was waiting
on (read from the main thread's stack), and exit status 3.  Nothing is half-written: every change to the record
is one transaction (SQLite and PostgreSQL roll back what was not committed), and exports, key files and the
public site are written to a temporary file and renamed (`pbem.record.files.write_whole`).  The watchdog is
cancelled when the command ends (the click context's close), so in-process runs (tests) leave no timer behind.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from types import FrameType

from pbem.home.config import COMMAND_DEADLINE, MOST_COMMAND_SECONDS

ENV = "PBEM_COMMAND_DEADLINE"
STDERR_GRACE = 5.0  # seconds the one line may take to be written (a stderr no one reads) before the exit anyway

#: What the main thread waits on, by the module of its innermost frame that matches (innermost first).
_WAITS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("pbem.mail.transports.resolve",), "resolving a mail server's host name"),
    (
        ("sqlite3", "sqlalchemy", "alembic", "psycopg", "pbem.record.db", "pbem.record.schema"),
        "waiting for the database",
    ),
    (("smtplib", "imaplib", "imapclient", "ssl", "socket", "pbem.mail.transports"), "waiting for a mail server"),
    (("pbem.home.logs", "logging"), "opening or writing the log file"),
    (("pbem.home.config", "tomllib"), "reading the configuration"),
    (("pbem.record.files", "pbem.record.private", "pbem.record.sealing"), "reading or writing a file of the home"),
)


class _Dog:
    def __init__(self, command: str, seconds: float, setting: str) -> None:
        self.command, self.seconds, self.setting = command, seconds, setting
        self.started = time.monotonic()
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._armed = 0  # which timer is the live one: one replaced as it fired must not end the command
        self._start()

    def _start(self) -> None:
        left = max(0.0, self.started + self.seconds - time.monotonic())
        self._armed += 1
        self._timer = threading.Timer(left, self._fire, (self._armed,))
        self._timer.daemon = True
        self._timer.start()

    def reset(self, seconds: float, setting: str) -> None:
        """The budget becomes `seconds` (from the command's start): the configuration's, once it is read."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            self.seconds, self.setting = seconds, setting
            self._start()

    def cancel(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = None

    def _fire(self, armed: int) -> None:
        with self._lock:
            if self._timer is None or armed != self._armed:  # cancelled or replaced meanwhile
                return
        last = threading.Timer(STDERR_GRACE, os._exit, (3,))  # a stderr that blocks cannot keep the process
        last.daemon = True
        last.start()
        try:
            sys.stderr.write(line(self.command, self.seconds, self.setting, doing()) + "\n")
            sys.stderr.flush()
        finally:
            os._exit(3)


def line(command: str, seconds: float, setting: str, doing: str) -> str:
    """The one line a command that passed its deadline ends with."""
    return (
        f"pbem: `{command}` passed its deadline of {seconds:g} s ({setting}) while {doing}; stopped "
        "(nothing is half-written: each change to the record is one transaction, files are written whole or not at all)"
    )


def doing(frame: FrameType | None = None) -> str:
    """What the main thread waits on, from its stack: the first of `_WAITS` its innermost frames match, with the
    innermost pbem function it is in."""
    if frame is None:
        frame = sys._current_frames().get(threading.main_thread().ident or 0)
    modules: list[str] = []
    where = ""
    f = frame
    while f is not None:
        name = str(f.f_globals.get("__name__", ""))
        modules.append(name)
        if not where and name.startswith("pbem.") and name != __name__:
            where = f"{name}.{f.f_code.co_name}, line {f.f_lineno}"
        f = f.f_back
    what = "running"
    for name in modules:  # innermost first
        found = next((said for prefixes, said in _WAITS if _matches(name, prefixes)), None)
        if found is not None:
            what = found
            break
    return f"{what} (in {where})" if where else what


def _matches(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


_dog: _Dog | None = None


def default() -> tuple[float, str]:
    """The budget before a configuration is read, and of a command that reads none: `PBEM_COMMAND_DEADLINE`
    seconds if set to a positive number (at most `MOST_COMMAND_SECONDS`, a week: a timer past the platform's time_t
    dies at once, and the command would have no deadline), else `COMMAND_DEADLINE`."""
    raw = os.environ.get(ENV, "").strip()
    try:
        seconds = float(raw)
    except ValueError:
        seconds = 0.0
    if seconds > 0 and seconds == seconds and seconds != float("inf"):
        return min(seconds, float(MOST_COMMAND_SECONDS)), ENV
    return float(COMMAND_DEADLINE), "the default; [limits] command_deadline once a home's configuration is read"


def arm(command: str) -> None:
    """Start the command's deadline (replacing any earlier one's): the default budget."""
    global _dog
    stop()
    seconds, setting = default()
    _dog = _Dog(command, seconds, setting)


def named(command: str) -> None:
    """The command's whole name (`pbem game new`), known once click has found the subcommand."""
    if _dog is not None:
        _dog.command = command


def configured(command_deadline: float, poll_deadline: float) -> None:
    """The home's configuration is read: the budget is its `[limits] command_deadline`, or `[mail] poll_deadline`
    for `pbem poll`, from the command's start."""
    if _dog is None:
        return
    if _dog.command == "pbem poll":
        _dog.reset(poll_deadline, "[mail] poll_deadline")
    else:
        _dog.reset(command_deadline, "[limits] command_deadline")


def handed_over() -> None:
    """`pbem poll`'s own watchdog takes over (its sockets shut at the deadline, a backstop GRACE later)."""
    stop()


def stop() -> None:
    global _dog
    if _dog is not None:
        _dog.cancel()
    _dog = None


def left() -> float | None:
    """The seconds left before the armed command deadline (None: none armed): a step that can stop and say how far it
    got (`pbem check`'s chains) stops before it, told, rather than be ended by it (costs27)."""
    if _dog is None:
        return None
    return max(0.0, _dog.started + _dog.seconds - time.monotonic())


def current() -> tuple[str, float, str] | None:
    """(command, seconds, setting) of the armed deadline, or None (tests)."""
    return None if _dog is None else (_dog.command, _dog.seconds, _dog.setting)

"""The mark a SQLite record carries while `pbem move-record` copies it (walk12): `pbem.db.moving` beside the file.

The move holds SQLite's write lock for the whole copy, so a moderator command that writes meanwhile waited the busy
timeout (30 s) and ended with the generic "the database could not be used: database is locked".  While the mark
names a live process other than this one, a transaction that may write begins without waiting for the lock
(`db._begin_during_move`: BEGIN DEFERRED, busy timeout 0): a command that only reads goes on (WAL readers see
the last commit), and one that writes is refused at once with `refusal`'s one line (`db.unusable`).

The mark is one line, `PID STARTED HOST` (Unix time), written before the copy and removed after it.  A mark a
killed move left is ignored: its pid is gone, or is a process started after the mark (the pid used again).
"""

from __future__ import annotations

import contextlib
import os
import socket
import time
from pathlib import Path

SUFFIX = ".moving"
_MOST = 256  # bytes of the mark read


def mark_of(database: Path) -> Path:
    return database.with_name(database.name + SUFFIX)


def put(database: Path) -> Path | None:
    """Mark `database` as being moved by this process; the mark's path, None when it could not be written (then
    the commands meanwhile wait as before: the move goes on)."""
    mark = mark_of(database)
    try:
        mark.write_text(f"{os.getpid()} {time.time():.0f} {socket.gethostname()}\n")
    except OSError:
        return None
    return mark


def remove(mark: Path | None) -> None:
    if mark is not None:
        with contextlib.suppress(OSError):
            mark.unlink()


def _started(pid: int) -> float | None:
    """When process `pid` started (Unix time), from /proc; None where that cannot be read."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        boot = next(
            int(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines() if line[:6] == "btime "
        )
        ticks = int(stat.rsplit(")", 1)[1].split()[19])
    except (OSError, ValueError, IndexError, StopIteration):
        return None
    return boot + ticks / os.sysconf("SC_CLK_TCK")


def holder(mark: str) -> str | None:
    """Who is moving the record, in words (`refusal`'s), when the mark at `mark` names a live process of this host
    other than this one; else None (no mark, this process's own, another host's or a dead move's)."""
    try:
        with open(mark, "rb") as f:
            parts = f.read(_MOST).decode("utf-8", "replace").split()
        pid, started, host = int(parts[0]), float(parts[1]), parts[2]
    except (OSError, ValueError, IndexError):
        return None
    if pid == os.getpid() or host != socket.gethostname():  # (another host's: it cannot be looked at; not told)
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass  # not ours to signal: it runs
    began = _started(pid)
    if began is not None and began > started + 2:  # the pid was used again after a killed move
        return None
    since = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(started))
    return f"a pbem move-record (pid {pid} on {host}, since {since}) is copying this record to PostgreSQL"


def refusal(who: str) -> str:
    """The one line a command that writes ends with while a move runs."""
    return (
        f"{who} and holds its write lock: nothing was changed; run this command again once the move has ended "
        "(its last line says what to run next; after it, on the PostgreSQL record if pbem.toml names it)"
    )

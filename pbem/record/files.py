"""Reading a file whose size pbem does not choose (a configuration, an export, a mail of a player's folder).

`read_at_most` reads a regular file of at most `limit` bytes, and refuses in one sentence anything else: a
larger file (its size said; a file that grows while it is read is read only to `limit` + 1 bytes), and a path
that is no regular file.  `Path.read_bytes` read `/dev/zero` until memory ran out (a MemoryError traceback)
and waited without end for a writer on a FIFO, whose stated size is 0 (found by
tests/reliability/test_costs4_files.py).  The file is opened without blocking, so a FIFO is refused before
anything waits for it.

`write_whole` writes a file whole or not at all: into a temporary file beside it, renamed over it once written
(an export, a public page), or linked in place only if none exists yet (a key file): a command stopped at its
deadline (`pbem.cli.deadline`) or killed leaves the file as it was, never half of it.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

CHUNK = 1 << 20


class Unreadable(ValueError):
    """The file is larger than its cap, or no regular file; one sentence."""


def read_at_most(path: Path, limit: int, what: str = "the file") -> bytes:
    """The bytes of the regular file `path`, at most `limit` of them (OSError where it cannot be opened)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Unreadable(f"{what} is not a regular file (a device, a pipe or a socket): pbem does not read it")
        if info.st_size > limit:
            raise Unreadable(f"{what} is {info.st_size:,} bytes, more than the {limit:,} pbem reads")
        os.set_blocking(fd, True)
        chunks: list[bytes] = []
        size = 0
        want = min(info.st_size + 1, CHUNK)  # a 1 MiB buffer for a mail of 300 bytes was its peak (costs28)
        while size <= limit:
            chunk = os.read(fd, min(want, limit + 1 - size))
            want = CHUNK
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise Unreadable(f"{what} is more than the {limit:,} bytes pbem reads (it grew while it was read)")
        return b"".join(chunks)
    finally:
        os.close(fd)


def write_whole(path: Path, data: str | bytes, mode: int | None = None, *, replace: bool = True) -> bool:
    """`data` (text as UTF-8) into `path` whole or not at all, mode `mode` (None: as the umask gives a new file).

    Written to a temporary file in the same folder, then renamed over `path` (`replace`), or linked to `path` only
    if no file is there (not `replace`: False when there was one, left as it is; a key file is never overwritten).
    A path that is no regular file (`-o /dev/stdout`, a FIFO) is written directly: it has no whole to keep; a link
    is followed, so the file it names is replaced.  OSError where the folder cannot be written."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    target = Path(os.path.realpath(path))
    with contextlib.suppress(OSError):
        if not stat.S_ISREG(target.stat().st_mode):
            if not replace:
                return False
            with open(target, "wb") as out:
                out.write(raw)
            return True
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    fd = os.open(
        tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0), 0o666 if mode is None else mode
    )
    try:
        try:
            if mode is not None and os.name == "posix":
                os.fchmod(fd, mode)  # a temporary file left by an earlier run keeps its mode otherwise
            view = memoryview(raw)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        if not replace:
            try:
                os.link(tmp, target)
            except FileExistsError:
                return False
            return True
        os.replace(tmp, target)
        return True
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def running(pid: int) -> bool:
    """Process `pid` runs on this host (one this process may not signal too): the writer of a journal, a temporary
    folder or a scratch database named by its pid is still at work.  pid 0 and below name no one process: taken as
    running, never cleared away."""
    if pid <= 0:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True

"""Reading a file whose size pbem does not choose (a configuration, an export, a mail of a player's folder).

`read_at_most` reads a regular file of at most `limit` bytes, and refuses in one sentence anything else: a
larger file (its size said; a file that grows while it is read is read only to `limit` + 1 bytes), and a path
that is no regular file.  `Path.read_bytes` read `/dev/zero` until memory ran out (a MemoryError traceback)
and waited without end for a writer on a FIFO, whose stated size is 0 (found by
tests/reliability/test_costs4_files.py).  The file is opened without blocking, so a FIFO is refused before
anything waits for it.
"""

from __future__ import annotations

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
        while size <= limit:
            chunk = os.read(fd, min(CHUNK, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise Unreadable(f"{what} is more than the {limit:,} bytes pbem reads (it grew while it was read)")
        return b"".join(chunks)
    finally:
        os.close(fd)

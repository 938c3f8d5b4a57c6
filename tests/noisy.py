"""A noisy neighbour: what an earlier test's servers and pools do in the same xdist worker while a later test counts.

A test that counts a process-wide quantity (`time.process_time`, `/proc/self/io`, `tracemalloc`, the live threads)
counts every thread of its worker, and the threads of earlier tests keep running: on CI a thread that ended inside
the window of `test_costs15_mail_bytes` added 2,067 read calls to a count of 84.  `neighbour()` runs, for as long as
its `with` lasts, a thread that does all of it at once: reads a file (read calls), computes (CPU), allocates and frees
a few MiB (`tracemalloc`), holds memory over a window's end, starts threads that read and end (the live threads,
a thread ending inside a window), and leaves garbage in a reference cycle whose finalizer reads (as an SQLAlchemy
engine `db.engine_for` dropped did until suite7: its SQLite connections closed by the collector, in whichever thread
allocated then, each last one copying its home's write-ahead log).  `tests/test_noisy_neighbour.py` holds each measurement the cost tests use to its
quiet answer under it; `PBEM_NOISY_NEIGHBOUR=1 python3 -m pytest ...` (tests/conftest.py) runs any test beside one.
"""

from __future__ import annotations

import contextlib
import gc
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path


class Litter:
    """An object in a reference cycle (only a collection frees it) whose finalizer reads a file, as an SQLite
    connection closing copies its write-ahead log."""

    def __init__(self, neighbour: Neighbour, reads: int = 30) -> None:
        self.me, self.neighbour, self.reads = self, neighbour, reads

    def __del__(self) -> None:
        with contextlib.suppress(OSError):  # (collected after its neighbour's file is gone)
            self.neighbour._reads(self.reads)


class Neighbour:
    """The thread and what it has done so far."""

    def __init__(self) -> None:
        self.stop = threading.Event()
        self.rounds = 0
        self.kept: list[bytes] = []  # memory held across rounds, let go a round later
        self.folder = Path(tempfile.mkdtemp(prefix="pbem-neighbour-"))
        self.file = self.folder / "f"
        self.file.write_bytes(b"x" * 4096)
        self.child: threading.Thread | None = None
        self.thread = threading.Thread(target=self._loop, name="noisy-neighbour", daemon=True)

    def _reads(self, times: int) -> None:
        for _ in range(times):
            with self.file.open("rb", buffering=0) as f:
                f.read(64)

    def _round(self) -> None:
        self._reads(20)
        junk = [bytes(2048) for _ in range(512)]  # 1 MiB, freed at once: a peak
        self.kept = [bytes(256 * 1024)]  # held until the next round: a window may end while it is held
        spin = time.thread_time() + 0.02
        while time.thread_time() < spin:  # CPU, as a busy server: longer than the interpreter's switch interval
            junk.append(b"")
        Litter(self)  # garbage: read when a collection comes, in whichever thread
        if self.child is not None:
            self.child.join()
        # a thread that starts, reads and ends a round later: one is alive at any time, and one ends inside a window
        self.child = threading.Thread(target=self._child, name="noisy-child", daemon=True)
        self.child.start()
        time.sleep(0.0005)

    def _child(self) -> None:
        self._reads(50)
        time.sleep(0.01)

    def _loop(self) -> None:
        while not self.stop.is_set():
            self._round()
            self.rounds += 1


@contextlib.contextmanager
def neighbour(rounds: int = 3) -> Iterator[Neighbour]:
    """A neighbour thread running for the `with` block, which starts once it has done `rounds` rounds (its
    first allocations and threads behind it); stopped and joined at the end."""
    n = Neighbour()
    n.thread.start()
    deadline = time.monotonic() + 30  # wall clock: deadline
    while n.rounds < rounds and time.monotonic() < deadline:
        time.sleep(0.001)
    try:
        yield n
    finally:
        n.stop.set()
        n.thread.join(30)
        if n.child is not None:
            n.child.join(30)
        gc.collect()  # its litter read while its file is there
        n.file.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            n.folder.rmdir()

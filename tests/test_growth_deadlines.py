"""What a deadline subtracts for the load counts each second the load took once (suite8).

`tests.growth.Window`'s `delay` is the seconds its threads waited for a core while they could run (`schedstat`'s run
delay); a deadline subtracts it from the wall clock (`tests.growth.Stopwatch`), so a loaded machine cannot fail a
wait that is in time.  On b1f92b21 the delay was the sum of the threads' waits: threads that wait for a core at the
same time lose the wall clock's seconds once, and were subtracted as often as there were threads, so a deadline
could read less than nothing and a wait far past it could pass.  Now it is the longest of the threads' waits, which
the wall clock held at least.

The generator: seeded cases of 2 to 6 threads hashing 1 MB buffers (`hashlib` lets the other threads run meanwhile,
so they all want a core at once) beside 0 to 3 processes that spin, on this machine's cores; the load the window
reads must not exceed the wall clock it was open.  `PBEM_DEADLINE_CASES=20 python3 -m pytest
tests/test_growth_deadlines.py`: 20 of 20 cases read more load than wall clock on b1f92b21 (1.8 to 5.2 times it,
load 12 to 14), 0 now.  The suite runs 2.
"""

from __future__ import annotations

import hashlib
import os
import random
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from tests.growth import Stopwatch, Window

CASES = int(os.environ.get("PBEM_DEADLINE_CASES", "2"))
SPIN = 0.25  # seconds each thread hashes


@contextmanager
def spinning(n: int) -> Iterator[None]:
    """`n` processes that want a core all the time, the machine's load beside the window."""
    procs = [subprocess.Popen([sys.executable, "-S", "-c", "while True: pass"]) for _ in range(n)]
    try:
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()


def _hash(until: float) -> None:
    buf, h = b"x" * (1 << 20), hashlib.sha256()
    while time.monotonic() < until:  # wall clock: the case's length, not a measurement
        h.update(buf)


def _case(seed: int) -> str | None:
    rng = random.Random(seed)
    threads, spinners = rng.randint(2, 6), rng.randint(0, 3)
    with spinning(spinners):
        time.sleep(0.05)  # the spinners are running
        w, started = Window(), time.monotonic()
        until = started + SPIN
        workers = [threading.Thread(target=_hash, args=(until,)) for _ in range(threads)]
        for t in workers:
            t.start()
        for t in workers:
            t.join()
        load = w.close().delay
        wall = time.monotonic() - started
    if load > wall:
        return f"seed {seed} ({threads} threads, {spinners} spinning): load {load:.2f} s of {wall:.2f} s wall clock"
    return None


def test_the_load_a_window_reads_is_at_most_its_wall_clock() -> None:
    failed = [why for seed in range(CASES) if (why := _case(seed))]
    assert not failed, f"{len(failed)} of {CASES}: {failed}"  # wall clock: the window's load against it


def test_a_deadline_still_times_a_wait() -> None:
    """The subtraction takes only run delay: a sleep (as a silent server's wait) is timed whole, load or not."""
    with spinning(2):
        watch = Stopwatch()
        time.sleep(0.2)
        running = watch.spent()
        spent = watch.stop()
    assert 0.2 <= running <= spent, (running, spent)  # wall clock: the stopwatch's own check
    assert watch.stop() == spent and watch.spent() == spent  # wall clock: the stopwatch's own check (it stopped)


def test_a_window_a_failed_test_left_open_is_closed_after_it() -> None:
    """`close_left` (called after each test's call by tests/conftest.py): the collector back on, `Thread.start` as
    it was."""
    import gc

    from tests import growth

    start, before = threading.Thread.start, len(growth.OPEN)
    Window()
    Stopwatch()
    assert not gc.isenabled() and threading.Thread.start is not start
    assert growth.close_left(before) == 2
    assert gc.isenabled() and threading.Thread.start is start and len(growth.OPEN) == before

"""CPU time of the poll's thread by stage of handling a message (`pbem poll --timings`: "cpu reading" ...).

`stage("name")` adds the thread's CPU time (`time.thread_time`, a few microseconds a call) spent inside it to
`spent["name"]`; the poll reports the sums next to its wall-clock steps, so that a benchmark can give the
cost per message of each stage (`benchmarks/poll_throughput.py`).  A stage inside another counts for itself
only: its time is taken off the outer stage's, so the sums add up to the time inside the outer stages.
Each thread keeps its own stack of open stages; the sums are shared (a poll reads them on its own thread).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

spent: dict[str, float] = {}
_open = threading.local()  # .inner: per open stage of this thread, the CPU time of the stages inside it so far


@contextmanager
def stage(name: str) -> Iterator[None]:
    inner: list[float] = _open.__dict__.setdefault("inner", [])
    t0 = time.thread_time()
    inner.append(0.0)
    try:
        yield
    finally:
        took = time.thread_time() - t0
        spent[name] = spent.get(name, 0.0) + took - inner.pop()
        if inner:
            inner[-1] += took


def taken() -> dict[str, float]:
    """The sums so far, and a fresh start."""
    out = dict(spent)
    spent.clear()
    return out


def runqueue_wait() -> float:
    """Seconds this thread has been runnable but waiting for a core (Linux's /proc/thread-self/schedstat; 0.0
    where there is none): with the poll's thread CPU, it tells a poll slowed by other processes on the machine
    (the mail servers) from one waiting for a lock or the disk."""
    try:
        return int(Path("/proc/thread-self/schedstat").read_text().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0

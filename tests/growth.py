"""How a stage's CPU time grows with its input, read so that a shared machine's noise cannot fail a linear stage.

The cost tests (tests/reliability/test_costs*.py and their kin) run a stage on an input of size n and of size
`factor` n and compare the CPU times: linear is `factor`, square `factor` squared, and the bound lies between.
Each time is the least of its readings, because a busy machine only ever adds time.  Two or three readings each
were not enough: on CI (2 cores, the suite's two workers and the mail servers at once) a linear layout stage of 4 ms read
8.1 at 4x against its bound of 8 (the CI run of ed6741a).  So `growth` alternates the two sizes and, while the
ratio is over the bound, reads both again, up to `most` readings of the large size: a linear stage's least times
settle on its true ratio, while a square one stays over the bound on every reading.  `tests/test_growth.py` checks both
with a scripted clock.  The work to time is built outside the timing (`work(k)` makes it, and is called again
for every reading, so a stage that consumes its input gets a fresh one).

Where the quadratic version did its repeated work in Python (a scan of a list for each item, a list built again for
each), `steps` counts that work instead of timing it: the lines of Python the stage executes, every function it calls
included.  The same input gives the same count on any machine, however loaded, so `step_growth` reads each size
once and needs no reading again; and because the count is exact, small sizes tell linear (4 at 4x) from square (16)
as well as large ones.  What a C function does inside (a list copied, `in` over a list) is not counted: a test
that uses `steps` shows that the quadratic version it guards against fails it.  Where the quadratic version kept
what it copied (a rest of a line for each of its hints, as a key), `held` counts the bytes it holds at its peak
(`tracemalloc`), as exact for the same input.
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import select
import signal
import sys
import threading
import time
import traceback
import tracemalloc
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any, TypeVar

Tracer = Callable[[FrameType, str, Any], Any]
T = TypeVar("T")


@dataclass
class Spent:
    """What a window's threads spent: CPU seconds, read calls (`/proc/.../io`'s syscr; 0 where there is none), and
    the seconds the load held them back: the longest any one of them waited for a core while it could run
    (`schedstat`'s run delay).  Not the sum: threads that wait for a core at the same time lose the wall clock's
    seconds once, and the sum of 2 to 6 threads' waits read 1.8 to 5.2 times the wall clock the window was open (load 12 to 14;
    suite8, `tests/test_growth_deadlines.py`).  The longest is at most what the load took from the wall clock."""

    cpu: float = 0.0
    reads: int = 0
    delay: float = 0.0

    def __add__(self, other: Spent) -> Spent:
        return Spent(self.cpu + other.cpu, self.reads + other.reads, max(self.delay, other.delay))


def _reads_of(io: str) -> int:
    try:
        return int(next(line.split()[1] for line in Path(io).read_text().splitlines() if line.startswith("syscr")))
    except (OSError, StopIteration, ValueError, IndexError):
        return 0


def _cpu_of(tid: int) -> float:
    """The CPU seconds of a thread of this process that is still running (`schedstat`'s time on a core, in ns)."""
    return _schedstat(f"/proc/self/task/{tid}/schedstat", 0)


def _delay_of(schedstat: str) -> float:
    """The seconds a thread waited on a run queue, able to run but given no core (`schedstat`'s second field)."""
    return _schedstat(schedstat, 1)


def _schedstat(path: str, field: int) -> float:
    try:
        return int(Path(path).read_text().split()[field]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


#: the windows open now, the last opened last (`close_left`)
OPEN: list[Window] = []


def close_left(before: int) -> int:
    """Close the windows opened after the first `before` still open, the last first (a test that failed inside a
    window or a `Stopwatch` would leave `Thread.start` wrapped and the collector off for the rest of its worker):
    how many there were.  `tests/conftest.py` calls it after each test's call."""
    left = OPEN[before:]
    for w in reversed(left):
        w.close()
    return len(left)


class Window:
    """What the thread that opens the window and the threads it starts inside it (and those they start) spend until
    `close`: no other thread's.  No garbage is collected while the window is open (the collector is off until
    `close`; `quiet_gc=False` leaves it as it is, for the test that shows what a collection does): a collection runs the finalizers of whatever earlier tests left, in whichever thread allocates
    when it comes (suite7: SQLAlchemy engines `db.engine_for` had dropped, their SQLite connections closed by a
    collection inside costs15's window, each last one copying its home's write-ahead log: a read call a page, the
    1,714 and 2,151 calls two CI runs counted for one export of 86).  What the window's own run leaves is collected
    after it.  A process-wide count (`time.process_time`, `/proc/self/io`) takes in every thread of
    the worker: a server or pool thread of an earlier test that reads, computes or ends inside the window (the CI run
    that read 84 then 2,151 read calls for one export, costs15).  A thread is the window's when one of the window's
    threads calls its `start` (`Thread.start` and `Thread.run` wrapped while the window is open); it reads its own
    count as it ends, or the window reads it at `close` if it still runs.  A `Thread` subclass with its own `run`
    (`threading.Timer`) is not counted.  `tests/test_noisy_neighbour.py` checks that a neighbour thread reading,
    computing, allocating and starting threads inside the window leaves the count as it was."""

    def __init__(self, *, quiet_gc: bool = True) -> None:
        OPEN.append(self)  # closed by `close`, or after the test by `close_left` (a test that failed inside it)
        self.collecting = gc.isenabled() if quiet_gc else None  # the collector's state to restore at `close`
        if quiet_gc:
            gc.disable()
        self.me = threading.get_native_id()
        self.family: set[int] = {self.me}  # native ids of the window's threads
        self.adopted: weakref.WeakSet[threading.Thread] = weakref.WeakSet()  # the threads a window's thread started
        self.ended: dict[int, Spent | None] = {}  # native id -> what it spent, None while it runs
        self._start, self._run = threading.Thread.start, threading.Thread.run
        window, start, run = self, self._start, self._run

        def started(thread: threading.Thread) -> None:
            if threading.get_native_id() in window.family:
                window.adopted.add(thread)
            start(thread)

        def counted(thread: threading.Thread) -> None:
            if thread not in window.adopted:
                run(thread)
                return
            tid = threading.get_native_id()
            window.family.add(tid)
            window.ended[tid] = None
            try:
                run(thread)
            finally:
                window.ended[tid] = Spent(
                    time.thread_time(), _reads_of("/proc/thread-self/io"), _delay_of("/proc/thread-self/schedstat")
                )

        threading.Thread.start = started  # type: ignore[method-assign]
        threading.Thread.run = counted  # type: ignore[method-assign]
        task = f"/proc/self/task/{self.me}"
        self.first = Spent(time.thread_time(), _reads_of(f"{task}/io"), _delay_of(f"{task}/schedstat"))

    def close(self) -> Spent:
        if self in OPEN:
            OPEN.remove(self)
        task = f"/proc/self/task/{self.me}"
        mine = Spent(
            time.thread_time() - self.first.cpu,
            _reads_of(f"{task}/io") - self.first.reads,
            _delay_of(f"{task}/schedstat") - self.first.delay,
        )
        threading.Thread.start, threading.Thread.run = self._start, self._run  # type: ignore[method-assign]
        for tid, ended in list(self.ended.items()):
            task = f"/proc/self/task/{tid}"
            mine += ended or Spent(_cpu_of(tid), _reads_of(f"{task}/io"), _delay_of(f"{task}/schedstat"))
        if self.collecting:
            gc.enable()
        self.collecting = None
        return mine

    def load(self) -> float:
        """The seconds the load has held the window back so far (`Spent.delay`: the longest run delay of its threads),
        the window left open."""
        task = f"/proc/self/task/{self.me}"
        delays = [_delay_of(f"{task}/schedstat") - self.first.delay]
        for tid, ended in list(self.ended.items()):
            delays.append(ended.delay if ended else _delay_of(f"/proc/self/task/{tid}/schedstat"))
        return max(delays)

    def alive(self) -> list[threading.Thread]:
        """The window's threads still running: those it started, not those other threads started meanwhile."""
        return [t for t in self.adopted if t.is_alive()]


class Stopwatch:
    """A deadline's clock: the wall-clock seconds since it started less what the machine's load took (`Window`'s
    `delay`), the work timed in this thread or the threads it starts.  Waiting for a server, a lock or a sleep is
    no run delay, so a wait that overruns its deadline still fails; a process started and waited for is timed whole
    (its run delay is not seen here).  `tests/test_no_wall_clock_costs.py` asks every deadline of a test to read
    its clock here (suite8: 25 read `time.monotonic` as it was on b1f92b21, where a load of 12 can add seconds)."""

    def __init__(self) -> None:
        self.window = Window(quiet_gc=False)  # the collector as it is: a deadline times the work, garbage and all
        self.started = time.monotonic()
        self.stopped: float | None = None
        self.wall = 0.0  # the wall clock's seconds at `stop`, the load left in (a wait's lower bound reads it)

    def spent(self) -> float:
        """The seconds so far, less the load's share; the clock runs on."""
        if self.stopped is not None:
            return self.stopped
        return time.monotonic() - self.started - self.window.load()

    def stop(self) -> float:
        """The seconds until now, less the load's share; the clock stops (and later calls give the same)."""
        if self.stopped is None:
            self.wall = time.monotonic() - self.started
            self.stopped = self.wall - self.window.close().delay
        return self.stopped


@contextlib.contextmanager
def window() -> Iterator[list[Spent]]:
    """`with window() as spent:` ... then `spent[0]` is the window's `Spent`."""
    out: list[Spent] = []
    w = Window()
    try:
        yield out
    finally:
        out.append(w.close())


def thread_cpu(run: Callable[[], object]) -> float:
    """The CPU seconds of `run()` in its thread and the threads it starts (a `Window`, the collector off)."""
    w = Window()
    run()
    return w.close().cpu


def own_cpu(run: Callable[[], object]) -> float:
    """The CPU seconds of `run()` in this thread alone (`time.thread_time`), the collector as it is: for a stage that
    starts no thread, read very often (the pattern scans' screenings, one regex search each: 113,000 in
    `test_pattern_costs` alone).  A `Window` opened and closed reads six files of /proc, about 0.1 ms, longer than
    most searches it timed (suite8)."""
    t = time.thread_time()
    run()
    return time.thread_time() - t


@dataclass
class Growth:
    """The least CPU seconds at n and at `factor` n, every reading of each, and the ratio checked (the small time
    raised to `floor`)."""

    small: float
    large: float
    floor: float
    factor: int
    smalls: list[float] = field(default_factory=list)
    larges: list[float] = field(default_factory=list)

    @property
    def ratio(self) -> float:
        return self.large / max(self.small, self.floor)

    @property
    def paired(self) -> float:
        """The least ratio of a large reading over the small one read just before it (`growth` alternates them): the
        machine's or the worker's state shared by the two readings of a pair, where `ratio`'s least of each may come
        from two states (a first small reading before the worker's later readings all cost 0.48 s more, both sizes
        alike: costs3's "trusted results, comments" in one clean-clone rehearsal, 0.0121 s then 0.4891-0.5747 s
        small against 0.4925-0.5508 s large)."""
        pairs = zip(self.smalls[1:], self.larges, strict=False)
        return min((big / max(small, self.floor) for small, big in pairs), default=self.ratio)

    def __str__(self) -> str:
        def seconds(readings: list[float]) -> str:
            return " ".join(f"{t:.4f}" for t in readings)

        return (
            f"{self.small:.4f} s -> {self.large:.4f} s at {self.factor}x ({self.ratio:.1f}; readings"
            f" {seconds(self.smalls)} -> {seconds(self.larges)})"
        )


def cpu(run: Callable[[], object], clock: Callable[[], float] | None = None) -> float:
    """The CPU seconds of one run, the collector off: a collection's cost is that of every object the test
    process holds, not of the stage.  Without `clock`, those of `run`'s thread and the threads it starts (`Window`):
    the process's CPU time counted every other thread of the worker too."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        if clock is None:
            return thread_cpu(run)
        t = clock()
        run()
        return clock() - t
    finally:
        if enabled:
            gc.enable()


def growth(
    work: Callable[[int], Callable[[], object]],
    n: int,
    *,
    bound: float,
    factor: int = 4,
    floor: float = 2e-3,
    most: int = 6,
    clock: Callable[[], float] | None = None,
) -> Growth:
    """The growth of `work(k)()`'s CPU time from k = n to k = `factor` n.  The small size is read twice, then the
    sizes alternate: reading stops as soon as the least times are within `bound`, else after `most` readings of
    the large size.  On a quiet machine a linear stage costs two small readings and one large (the large is
    most of the cost); its first large reading within the bound is the least's bound too."""
    small = [cpu(work(n), clock)]
    large: list[float] = []
    g = Growth(0.0, 0.0, floor, factor)
    for _ in range(most):
        small.append(cpu(work(n), clock))
        large.append(cpu(work(factor * n), clock))
        g = Growth(min(small), min(large), floor, factor, small, large)
        if g.ratio <= bound:
            break
    return g


def least(
    work: Callable[[], Callable[[], object]],
    *,
    within: float | None = None,
    most: int = 3,
    clock: Callable[[], float] | None = None,
) -> float:
    """The least CPU seconds of up to `most` runs of `work()`; with `within` (the bound the time is checked
    against), the first reading within it, which the least would be too."""
    spent: list[float] = []
    for _ in range(most):
        spent.append(cpu(work(), clock))
        if within is not None and spent[-1] <= within:
            break
    return min(spent)


def steps(run: Callable[[], object]) -> int:
    """The lines of Python `run()` executes, in every frame it calls (`sys.settrace`'s line events): a count of its
    work that no other process on the machine can change.  Any tracer already set (coverage's) is set back after."""
    count = 0

    def local(frame: FrameType, event: str, arg: object) -> Tracer:
        nonlocal count
        if event == "line":
            count += 1
        return local

    def calls(frame: FrameType, event: str, arg: object) -> Tracer:
        return local

    before, collecting = sys.gettrace(), gc.isenabled()
    gc.collect()  # a collection inside `run` would count the finalizers of garbage earlier tests left (weakref
    gc.disable()  # callbacks, `__del__`): lines that depend on what ran before in the worker, not on `run`
    sys.settrace(calls)
    try:
        run()
    finally:
        sys.settrace(before)
        if collecting:
            gc.enable()
    return count


#: The interpreter's switch interval while `traced` counts: `tracemalloc` counts every thread's allocations, and a
#: neighbour thread of the worker (a server of an earlier test) would take its turn every 5 ms of `run` otherwise.
QUIET_SWITCH = 5.0


@contextlib.contextmanager
def traced() -> Iterator[None]:
    """`tracemalloc` on, with no other thread of the worker running unless the calling thread waits (I/O, a lock,
    a sleep): `tracemalloc` has no count per thread, so the other threads are kept from allocating instead.  A
    thread waiting for a core it is not given costs nothing; the calling thread gives the interpreter up at
    each wait as before."""
    tracing, interval = tracemalloc.is_tracing(), sys.getswitchinterval()
    if not tracing:
        tracemalloc.start()
    sys.setswitchinterval(QUIET_SWITCH)
    time.sleep(0.001)  # a thread already waiting for the interpreter takes its turn now, and is then held off
    try:
        yield
    finally:
        sys.setswitchinterval(interval)
        if not tracing:
            tracemalloc.stop()


#: How long `alone` waits for its child's answer before it kills it and forks again, and how many children it tries.
ALONE_WAIT = 60.0
ALONE_TRIES = 3


def alone(run: Callable[[], T], *, wait: float = ALONE_WAIT, tries: int = ALONE_TRIES) -> T:
    """What `run()` returns, run in a child forked from this process, in which the calling thread is the only thread:
    a count of the whole process (`tracemalloc`'s bytes) is then `run`'s own, however many threads earlier tests left
    in the worker and whatever `run` waits for.  `traced` keeps the other threads from taking the interpreter while
    the counting thread computes, but not while it waits: an SQLite statement or a read lets them run, and costs8's
    outbox peaks read 1.51 to 1.69 MB against their bound of 1 MB beside `tests.noisy`'s neighbour (its 1 MiB).

    The answer comes back pickled; an exception in `run` is raised here as an AssertionError with the child's
    traceback.  Nothing of `run` is left in this process (a list it appended to, a row it wrote and committed is, as
    in any other process).  The child collects no garbage (a finalizer of an earlier test's object, an SQLite
    connection, would act on files this process still uses), closes nothing and ends with `os._exit`.  A child forked
    while another thread held a lock it then needs (SQLite's own, say) would wait for ever: after `wait` seconds
    (wall clock: a deadline) it is killed and another forked, `tries` times in all."""
    for _ in range(tries):
        got = _in_child(run, wait)
        if got is not None:
            ok, value = got
            if not ok:
                raise AssertionError(f"in the forked child (`tests.growth.alone`):\n{value}")
            return value  # type: ignore[no-any-return]
    raise AssertionError(f"`tests.growth.alone`: {tries} forked children each gave no answer within {wait:.0f} s")


def _in_child(run: Callable[[], object], wait: float) -> tuple[bool, object] | None:
    """(True, what `run()` returned) or (False, its traceback) from a forked child; None if it did not answer."""
    readable, writable = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no other thread, no collector, nothing closed or flushed at the end
        try:
            gc.disable()
            os.close(readable)
            try:
                answer = pickle.dumps((True, run()))
            except BaseException:
                answer = pickle.dumps((False, traceback.format_exc()))
            with os.fdopen(writable, "wb") as out:
                out.write(answer)
        finally:
            os._exit(0)
    os.close(writable)
    chunks: list[bytes] = []
    ends = time.monotonic() + wait  # wall clock: deadline
    try:
        while True:
            left = ends - time.monotonic()
            if left <= 0 or not select.select([readable], [], [], left)[0]:
                os.kill(pid, signal.SIGKILL)
                return None
            chunk = os.read(readable, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(readable)
        os.waitpid(pid, 0)
    if not chunks:
        return None  # the child died before it answered (killed by a signal)
    got: tuple[bool, object] = pickle.loads(b"".join(chunks))
    return got


def held(run: Callable[[], object]) -> int:
    """The most bytes of Python objects allocated during `run()` and held at once (`tracemalloc`'s peak over what
    was held before): like `steps`, the same for the same input whatever else the machine runs, as `run` runs in a
    child of its own (`alone`): anything `run` changes stays there."""

    def peak() -> int:
        with traced():
            tracemalloc.reset_peak()
            before = tracemalloc.get_traced_memory()[0]
            run()
            return tracemalloc.get_traced_memory()[1] - before

    return alone(peak)


@dataclass
class Steps:
    """The lines executed (`steps`), or the bytes held (`held`), at n and at `factor` n."""

    small: int
    large: int
    factor: int
    unit: str = "lines"

    @property
    def ratio(self) -> float:
        return self.large / max(self.small, 1)

    def __str__(self) -> str:
        return f"{self.small:,} {self.unit} -> {self.large:,} at {self.factor}x ({self.ratio:.2f})"


def step_growth(work: Callable[[int], Callable[[], object]], n: int, *, factor: int = 4) -> Steps:
    """How the lines `work(k)()` executes grow from k = n to k = `factor` n: one reading each, exact."""
    return Steps(steps(work(n)), steps(work(factor * n)), factor)


def held_growth(work: Callable[[int], Callable[[], object]], n: int, *, factor: int = 4) -> Steps:
    """How the bytes `work(k)()` holds at its peak grow from k = n to k = `factor` n (`held`)."""
    return Steps(held(work(n)), held(work(factor * n)), factor, "bytes")

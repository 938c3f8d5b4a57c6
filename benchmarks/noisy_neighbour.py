"""The measurements of tests/test_noisy_neighbour.py as a checkout makes them, quiet and beside a noisy neighbour.

    python benchmarks/noisy_neighbour.py [--tree /path/to/a/checkout]

The neighbour is this checkout's `tests/noisy.py`; the measurements (`tests.growth`'s cpu, held and steps, costs15's
read-call window, the threads a test leaves) are those of `--tree` (default: this checkout), so that a checkout of
c83d8ea7 (`git worktree add /tmp/base c83d8ea7 --detach`) shows how many gave another answer before: 3 of 5 there,
0 on suite6.  Seven since suite7 (a peak of a run that waits, costs15's window while collections come): 2 of 7 on
90a53973, 0 on suite7.  Prints one line a measurement and "wrong: k of 7"; exits 1 if any is wrong.
"""

import argparse
import importlib.util
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("noisy_here", HERE / "tests" / "noisy.py")
assert _spec is not None and _spec.loader is not None
_noisy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_noisy)
neighbour = _noisy.neighbour
_args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
_args.add_argument("--tree", type=Path, default=HERE)
sys.path.insert(0, str(_args.parse_args().tree.resolve()))
from tests.growth import cpu, held, steps  # noqa: E402
from tests.reliability import test_costs15_mail_bytes as c15  # noqa: E402


def compute() -> None:
    total = 0
    for i in range(200_000):
        total += i * i % 7


def allocate() -> None:
    kept = [str(i) * 3 for i in range(20_000)]
    del kept


SMALL = Path(tempfile.mkdtemp()) / "f"
SMALL.write_bytes(b"x" * 64)


def read(times: int) -> None:
    for _ in range(times):
        with SMALL.open("rb", buffering=0) as f:
            f.read(1)


def reads() -> int:
    w = c15._syscr()
    read(100)
    t = threading.Thread(target=read, args=(300,))
    t.start()
    t.join()
    time.sleep(0.02)
    return int(c15._since(w))


def reads_collecting() -> int:
    """costs15's window while collections come (the neighbour's litter: garbage whose finalizer reads)."""
    w = c15._syscr()
    read(100)
    for _ in range(5):
        kept = [[] for _ in range(2_000)]  # allocations enough to start a collection
        del kept
        time.sleep(0.01)  # a round of the neighbour, which leaves litter
    return int(c15._since(w))


def allocate_and_wait() -> None:
    """As costs8's outbox commands: allocate, then wait (SQLite), the interpreter free meanwhile."""
    kept = [str(i) * 3 for i in range(20_000)]
    time.sleep(0.03)
    del kept


def threads_left() -> int:
    """The threads started meanwhile that a test would take as its own (`test_waits_servers`'s check)."""
    import tests.growth as g

    stop = threading.Event()
    mine = threading.Thread(target=stop.wait, args=(10,))
    if hasattr(g, "Window"):  # suite6: the threads the window's thread started
        w = g.Window()
        mine.start()
        time.sleep(0.05)  # a round of the neighbour: it starts a thread meanwhile
        w.close()
        left = w.alive()
    else:  # c83d8ea7: every thread not alive before
        before = set(threading.enumerate())
        mine.start()
        time.sleep(0.05)
        left = [t for t in threading.enumerate() if t not in before and t.is_alive()]
    stop.set()
    mine.join()
    return len(left)


MEASURES = {
    "cpu": lambda: min(cpu(compute) for _ in range(3)),
    "held": lambda: held(allocate),
    "held, waiting": lambda: held(allocate_and_wait),
    "steps": lambda: steps(allocate),
    "reads": reads,
    "reads, gc": reads_collecting,
    "threads left": threads_left,
}


def wrong(name: str, quiet: float, noisy: list[float]) -> bool:
    if name == "cpu":
        return any(n > 1.5 * quiet + 0.003 for n in noisy)
    if name.startswith("held"):
        return any(abs(n - quiet) > 0.02 * quiet for n in noisy)
    return any(n != quiet for n in noisy)


def main() -> int:
    quiet = {k: f() for k, f in MEASURES.items()}
    with neighbour():
        noisy = {k: [f() for _ in range(3)] for k, f in MEASURES.items()}
    bad = 0
    for k in MEASURES:
        w = wrong(k, quiet[k], noisy[k])
        bad += w
        print(f"{k:13} quiet {quiet[k]!r:>24}  beside the neighbour {noisy[k]!r}  {'WRONG' if w else 'ok'}")
    print(f"wrong: {bad} of {len(MEASURES)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

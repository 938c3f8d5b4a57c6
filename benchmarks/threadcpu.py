"""Every thread's CPU time in a `pbem` process, by thread name: where a poll's CPU goes off the poll's thread.

    python benchmarks/threadcpu.py OUT.json -m pbem poll --timings

Runs the rest of the command line as `python ...` would, in this process, with `threading.Thread`'s start wrapped
so that each thread, when its target returns, adds its own CPU time (`time.thread_time`), its time in the kernel
and its context switches (`/proc/thread-self`) to its name's totals (the digits at a name's end dropped:
`pbem-sender-0`, `pbem-codes_1` and `pbem-imap_0` count as `pbem-sender`, `pbem-codes` and `pbem-imap`); the main
thread's, and those of threads still running, are taken at exit.  OUT.json gets `{"threads": {name: seconds},
"threads_system": {name: seconds in the kernel}, "threads_switches": {name: switches}, "process": seconds}` (the
process's user + system time, all threads, at exit).  The main thread's figure includes the imports and the start
of the interpreter.  The wrapper costs a few system calls a thread.  `poll_throughput.py` runs its timed polls
through it (`thread_cpu_ms_per_message`).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import re
import runpy
import sys
import threading
import time
from collections import defaultdict

_TOTALS: dict[str, float] = defaultdict(float)
_SYSTEM: dict[str, float] = defaultdict(float)  # of it in the kernel (/proc/thread-self/stat), where Linux says
_SWITCHES: dict[str, int] = defaultdict(int)  # voluntary and forced context switches (/proc/thread-self/status)
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_LOCK = threading.Lock()


def _family(name: str) -> str:
    return re.sub(r"[-_ ]?\d+$", "", name) or name


def _wrap() -> None:
    bootstrap = threading.Thread._bootstrap_inner  # type: ignore[attr-defined]

    def counted(self: threading.Thread) -> None:
        try:
            bootstrap(self)
        finally:
            spent, kernel, switches = time.thread_time(), _kernel("thread-self"), _switches("thread-self")
            with _LOCK:
                _TOTALS[_family(self.name)] += spent
                _SYSTEM[_family(self.name)] += kernel
                _SWITCHES[_family(self.name)] += switches

    threading.Thread._bootstrap_inner = counted  # type: ignore[attr-defined]


def _kernel(task: str) -> float:
    """The thread's system time in seconds (0 where /proc has none): field 15 of its stat line."""
    try:
        with open(f"/proc/{task}/stat") as fh:
            return int(fh.read().rpartition(")")[2].split()[12]) / _TICK
    except (OSError, ValueError, IndexError):
        return 0.0


def _switches(task: str) -> int:
    """The thread's context switches, voluntary (a wait: a lock, the interpreter's, a socket) and forced."""
    try:
        with open(f"/proc/{task}/status") as fh:
            return sum(int(ln.split()[1]) for ln in fh if "ctxt_switches:" in ln)
    except (OSError, ValueError, IndexError):
        return 0


def _write(out: str) -> None:
    _TOTALS["main"] += time.thread_time()
    _SYSTEM["main"] += _kernel("thread-self")
    _SWITCHES["main"] += _switches("thread-self")
    for t in threading.enumerate():  # daemon threads still running at exit (the log's writer, a lock's beat)
        if t is not threading.main_thread() and t.ident is not None:
            with contextlib.suppress(OSError, ValueError):
                _TOTALS[_family(t.name) + " (running at exit)"] += time.clock_gettime(
                    time.pthread_getcpuclockid(t.ident)
                )
    t = os.times()
    doc = {
        "threads": {k: round(v, 4) for k, v in sorted(_TOTALS.items())},
        "threads_system": {k: round(v, 4) for k, v in sorted(_SYSTEM.items())},
        "threads_switches": dict(sorted(_SWITCHES.items())),
        "process": round(t.user + t.system, 4),
    }
    with open(out, "w") as fh:
        json.dump(doc, fh)


def main() -> None:
    out, rest = sys.argv[1], sys.argv[2:]
    _wrap()
    atexit.register(_write, out)
    if rest[:1] == ["-m"]:
        sys.argv = [rest[1], *rest[2:]]
        runpy.run_module(rest[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = rest
        runpy.run_path(rest[0], run_name="__main__")


if __name__ == "__main__":
    main()

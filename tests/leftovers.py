"""What a test file leaves set in its worker process for the files after it (costs27).

docs/development.md: at 671a4d79 one xdist worker read `tests/reliability/test_costs3_mail.py`'s "trusted results,
comments" 0.48 s a mail after other tests, 12 ms alone, and what cost it was never found.  A test that leaves a
tracer (`sys.settrace`, a line counter: `tests.growth.steps`), a profiler, `tracemalloc` tracing, the collector off
or its thresholds changed, the interpreter's switch interval changed (`pbem.mail.outbound.sender` sets 1 ms while
it sends), `Thread.start` wrapped (`tests.growth.Window`), or a deadline of pbem armed (a command's, the poll's
watchdog: a timer that ends the worker when it fires) changes what every later test of its worker measures
and how fast it runs.  `GLOBALS` reads each; `tests/conftest.py` compares them after each test file's fixtures are
torn down with what they were when the worker's first test started, and fails that file's last test, naming what
it left, and sets it back (so the next files are measured as alone).

With `PBEM_WORKER_STATE=FILE` it also appends a line to FILE (one per worker: FILE.gwN) after each test file: the
threads alive (name, daemon, what they run), the open file descriptors, the globals, and a canary: the CPU time of a
fixed piece of pure Python (a mail parsed 20 times), against the worker's first, so that a slowdown shows in the file
after which it began.
"""

from __future__ import annotations

import gc
import json
import logging
import os
import signal
import socket
import sys
import threading
import time
import tracemalloc
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _cli_deadline() -> Any:
    from pbem.cli import deadline

    return deadline


def _poll_deadline() -> Any:
    from pbem.mail.transports import deadline

    return deadline


#: Each global a test may leave set: (its name, how to read it, how to set it back to a value read before).
GLOBALS: list[tuple[str, Callable[[], Any], Callable[[Any], None]]] = [
    ("sys.settrace", sys.gettrace, sys.settrace),
    ("sys.setprofile", sys.getprofile, sys.setprofile),
    ("threading.settrace", threading.gettrace, threading.settrace),
    ("threading.setprofile", threading.getprofile, threading.setprofile),
    ("tracemalloc", tracemalloc.is_tracing, lambda on: tracemalloc.start() if on else tracemalloc.stop()),
    ("the cyclic collector", gc.isenabled, lambda on: gc.enable() if on else gc.disable()),
    ("gc.set_threshold", gc.get_threshold, lambda t: gc.set_threshold(*t)),
    ("sys.setswitchinterval", sys.getswitchinterval, sys.setswitchinterval),
    ("threading.Thread.start", lambda: threading.Thread.start, lambda f: setattr(threading.Thread, "start", f)),
    ("threading.Thread.run", lambda: threading.Thread.run, lambda f: setattr(threading.Thread, "run", f)),
    ("sys.setrecursionlimit", sys.getrecursionlimit, sys.setrecursionlimit),
    ("socket.setdefaulttimeout", socket.getdefaulttimeout, socket.setdefaulttimeout),
    (
        "pbem's command deadline (pbem.cli.deadline.arm)",
        lambda: _cli_deadline().current(),
        lambda _: _cli_deadline().stop(),
    ),
    (
        "the poll's watchdog (pbem.mail.transports.deadline.start)",
        lambda: _poll_deadline().current(),
        lambda _: _poll_deadline().stop(),
    ),
    ("signal.SIGALRM", lambda: signal.getsignal(signal.SIGALRM), lambda h: signal.signal(signal.SIGALRM, h)),
    ("signal.setitimer", lambda: signal.getitimer(signal.ITIMER_REAL)[0] > 0, lambda _: None),
]


def read() -> dict[str, Any]:
    return {name: get() for name, get, _ in GLOBALS}


def left(before: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """What differs from `before`, one phrase each."""
    return [f"{name} ({before[name]!r} -> {now[name]!r})" for name, _, _ in GLOBALS if now[name] != before[name]]


def restore(before: dict[str, Any], now: dict[str, Any]) -> None:
    for name, _, put in GLOBALS:
        if now[name] != before[name]:
            if name == "signal.setitimer":
                signal.setitimer(signal.ITIMER_REAL, 0)
            else:
                put(before[name])


_RAW = (
    b"From: Alice <alice@players.test>\r\nTo: moderator@pbem.test\r\nSubject: [pbem hh1] orders\r\n"
    b"Message-ID: <canary@players.test>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"
    + b"CODE AAAA-2222\r\nPRESS TO ALL: spain is weak this turn\r\n"
    * 40
)


def canary() -> float:
    """The CPU seconds of this thread parsing a fixed mail 20 times (`pbem.mail.inbound.message.parse_bytes`)."""
    from pbem.mail.inbound.message import parse_bytes

    parse_bytes(_RAW)
    t = time.thread_time()
    for _ in range(20):
        parse_bytes(_RAW)
    return time.thread_time() - t


#: The threads a test file may leave alive, by what they run (`_target`) or their name's start, each with why: the
#: session fixtures' servers (alive until the run ends) and pbem's own that outlive a command by design.  Any other
#: thread a file leaves fails its last test (costs28), after `THREAD_GRACE` seconds for those ending to end.
KNOWN_THREADS: dict[str, str] = {
    "aiosmtpd.controller.BaseThreadedController._run": "the session's SMTP server (tests/mail/conftest.py _pip_session)",
    "socketserver.BaseServer.serve_forever": "the session's OAuth2 introspection server (tests/servers/secure.py)",
    "pbem.record.db._Answers._watch": "pbem's watcher of the database's answers: one a process, for its life",
    "pbem-resolve ": "a name look-up given up at its deadline: it ends when the resolver answers (by design)",
    "pbem-log": "the log's writer: it ends once its handler is closed (tests/conftest.py closes it after each test)",
}
THREAD_GRACE = 5.0


def threads() -> dict[int, threading.Thread]:
    return {t.ident: t for t in threading.enumerate() if t.ident is not None}


def _known(t: threading.Thread) -> bool:
    return any(_target(t) == k or t.name.startswith(k) for k in KNOWN_THREADS)


def threads_left(before: dict[int, threading.Thread], grace: float = THREAD_GRACE) -> list[str]:
    """The threads alive now that were not in `before` and are not `KNOWN_THREADS`, each given up to `grace` seconds
    (all together) to end: one phrase each (its name and what it runs)."""
    end = time.monotonic() + grace
    out = []
    mine = {threading.current_thread().ident, threading.main_thread().ident}
    for ident, t in threads().items():
        if ident in before or ident in mine or _known(t):
            continue
        t.join(max(0.0, end - time.monotonic()))
        if t.is_alive():
            out.append(f"thread {t.name!r} running {_target(t)}")
    return out


def _target(t: threading.Thread) -> str:
    run = getattr(t, "_target", None) or type(t).run
    return f"{getattr(run, '__module__', '?')}.{getattr(run, '__qualname__', repr(run))}"


class Report:
    """`PBEM_WORKER_STATE`'s lines, one per test file, for this worker."""

    def __init__(self, path: str, worker: str) -> None:
        self.path = Path(f"{path}.{worker}")
        self.first: float | None = None

    def write(self, module: str, leftover: list[str]) -> None:
        spent = min(canary() for _ in range(3))
        self.first = self.first if self.first is not None else spent
        line = {
            "file": module,
            "canary_s": round(spent, 5),
            "canary_x": round(spent / max(self.first, 1e-9), 2),
            "threads": [f"{t.name} daemon={t.daemon} {_target(t)}" for t in threading.enumerate()],
            "fds": len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else -1,
            "left": leftover,
            "gc_counts": gc.get_count(),
            "root_handlers": [repr(h) for h in logging.getLogger().handlers],
            "warnings_filters": len(warnings.filters),
            "modules": len(sys.modules),
            "gc_objects": len(gc.get_objects()),
        }
        with self.path.open("a") as out:
            out.write(json.dumps(line) + "\n")

"""`tests.leftovers`: what a test file leaves set in its worker is named, and set back (costs27).

Each global `tests/conftest.py` compares after a test file is set as a test might leave it (a tracer, a profiler,
`tracemalloc`, the collector off, its thresholds, a switch interval, `Thread.start` wrapped, a pbem deadline
armed): `left` names every one, and `restore` sets each back, so that the next files run as they would alone.
"""

from __future__ import annotations

import gc
import sys
import threading
import tracemalloc
from collections.abc import Callable

import pytest

from tests import leftovers


def _tracer(frame, event, arg):  # type: ignore[no-untyped-def]
    return None


def _wrapped_start(self: threading.Thread) -> None:
    raise AssertionError("never called")


def _deadline() -> None:
    from pbem.cli import deadline

    deadline.arm("pbem leftover")


LEAKS: dict[str, Callable[[], object]] = {
    "sys.settrace": lambda: sys.settrace(_tracer),
    "sys.setprofile": lambda: sys.setprofile(_tracer),
    "threading.settrace": lambda: threading.settrace(_tracer),
    "tracemalloc": tracemalloc.start,
    "the cyclic collector": gc.disable,
    "gc.set_threshold": lambda: gc.set_threshold(1, 1, 1),
    "sys.setswitchinterval": lambda: sys.setswitchinterval(0.001),
    "threading.Thread.start": lambda: setattr(threading.Thread, "start", _wrapped_start),
    "pbem's command deadline (pbem.cli.deadline.arm)": _deadline,
}


@pytest.mark.parametrize("name", list(LEAKS))
def test_each_global_a_test_leaves_set_is_named_and_set_back(name: str) -> None:
    before = leftovers.read()
    try:
        LEAKS[name]()
        now = leftovers.read()
        found = leftovers.left(before, now)
    finally:
        leftovers.restore(before, leftovers.read())
    assert len(found) == 1 and found[0].startswith(f"{name} ("), found
    assert leftovers.left(before, leftovers.read()) == []


def test_a_test_servers_connections_end_with_it() -> None:
    """`tests.mail.test_deadlines.server`'s handler threads (a server that stays silent reads on for 60 s, one that
    drips for as long) ended with the test that made them: on ab18255d a silent one was alive in the worker through
    the next two test files (`PBEM_WORKER_STATE`'s report after test_costs19_waits.py and test_costs19_warnings.py)."""
    import socket

    from tests.mail.test_deadlines import _run, server
    from tests.reliability.test_waits_servers import silent

    with socket.socket() as client:  # a client that outlives the server (pbem's connection given up, not closed)
        with server(silent) as (port, _):
            client.connect(("127.0.0.1", port))
            client.sendall(b"hello\r\n")
            while not any(getattr(t, "_target", None) is _run for t in threading.enumerate()):
                threading.Event().wait(0.01)  # the server accepted it
        assert not [t for t in threading.enumerate() if getattr(t, "_target", None) is _run]


def test_a_thread_a_test_file_leaves_is_named_unless_known() -> None:
    """costs28: a thread started by a test file and alive after it (beyond `THREAD_GRACE`) fails the file, named;
    one that ends within the grace, or a session fixture's or pbem's known one (`KNOWN_THREADS`), does not."""
    before = leftovers.threads()
    stop = threading.Event()
    left = threading.Thread(target=stop.wait, name="left-behind", daemon=True)
    known = threading.Thread(target=stop.wait, name="pbem-resolve mail.example.test", daemon=True)
    left.start()
    known.start()
    try:
        found = leftovers.threads_left(before, grace=0.05)
        assert len(found) == 1 and "'left-behind'" in found[0] and "Event.wait" in found[0], found
        ending = threading.Thread(target=stop.wait, args=(0.2,), name="ending", daemon=True)
        stop.set()
        ending.start()
        assert leftovers.threads_left(before, grace=5.0) == []
    finally:
        stop.set()

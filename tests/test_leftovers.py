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

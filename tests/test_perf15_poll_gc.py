"""The poll's `gc.freeze` (perf15, `pbem.app.cron._frozen`): what lives before a poll is left out of the collector's
full passes during it, and the process's own freeze is left as it was.

The first version unfroze at the end whatever was frozen: in a test worker, which freezes its 240,000 objects once
the tests are collected (tests/conftest.py), the first poll gave them back to every later full pass."""

from __future__ import annotations

import gc
from typing import Any

from pbem.app.cron import _frozen


def _count(home: Any, dry_run: bool) -> Any:
    """A poll that tells how many objects are frozen while it runs."""
    return gc.get_freeze_count()


def test_a_poll_freezes_what_lives_before_it_and_unfreezes_it_after() -> None:
    before = gc.get_freeze_count()
    gc.unfreeze()  # a process that froze nothing (`pbem poll`)
    try:
        inside: Any = _frozen(_count, None, False)  # type: ignore[arg-type]
        assert inside > 1000  # the imports, at least
        assert gc.get_freeze_count() == 0
    finally:
        if before:
            gc.freeze()  # the test worker's own, as conftest left it


def test_a_process_that_froze_its_own_objects_keeps_its_freeze() -> None:
    gc.freeze()  # as the test runner does after collecting
    before = gc.get_freeze_count()
    inside: Any = _frozen(_count, None, False)  # type: ignore[arg-type]
    assert inside == before
    assert gc.get_freeze_count() == before

"""Work done once per test run, not once per xdist worker.

A test helper that builds something expensive and read-only (a finished seeded
game, say) caches it per process with `functools.cache`; under pytest-xdist
each worker is a process, so each worker that needs it builds it again.
`once(name, make)` builds it once per run: the first worker to ask runs
`make(path)` under an exclusive lock in a folder every worker of the run
shares, the others wait for it (or find it done) and use the same folder.
Callers copy what they may change.  Without xdist (`-n 0`) there is no shared
folder and `once` returns None: the caller builds its own as before.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

#: The folder shared by the workers of this run (set by the session fixture in tests/conftest.py), or None.
ROOT: list[Path] = []


def set_root(tmp_base: Path) -> None:
    """Called once per worker with its basetemp; the workers of one run share its parent."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = tmp_base.parent / "shared-once"
        root.mkdir(exist_ok=True)
        ROOT[:] = [root]


def once(name: str, make: Callable[[Path], None]) -> Path | None:
    """The folder `name` as `make(folder)` left it, made by whichever worker asked first; None without xdist.

    A `make` that raises leaves nothing marked done: the next worker to ask tries again (and fails the same way).
    """
    if not ROOT:
        return None
    root = ROOT[0]
    folder, done = root / name, root / f"{name}.done"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            make(folder)
            closed(folder)
            done.touch()
    return folder


def closed(folder: Path) -> None:
    """Close every database `make` left open in `folder` before another worker reads it.

    `pbem.record.db.engine_for` keeps the engines of the last 8 records used, their connections open; the last one
    to close copies the write-ahead log into the file and deletes `-wal` and `-shm`.  A seeded game's home was
    closed so only when its worker's engine later fell out of the 8, while another worker copied the folder: the
    copy met `pbem.db-wal` listed and gone (`shutil.Error`, test_fairness8 on a fresh machine, 2026-12-07).  Each
    engine is disposed here, and a `-wal` file still there afterwards (a connection held elsewhere) fails `make`'s
    caller at once rather than whichever test copies the folder next."""
    import sys

    db = sys.modules.get("pbem.record.db")
    if db is not None:
        db.engine_for.cache_clear()  # type: ignore[attr-defined]
    left = sorted(str(p.relative_to(folder)) for p in folder.rglob("*-wal"))
    assert not left, f"{folder.name}: a database is still open after it was made (its {left} remain)"

"""perf28 (issue 27): work a reply paid for and threw away.

* A board picture left a reference cycle (the palette canvas held its `draw`, which held the canvas), so each
  picture's images, palette, drawing steps and owed marks (some 90 objects) waited for Python's collector: most of
  the garbage that set off a poll's collections.  Generated: every kind's reader pictures at moments of seeded bot
  games, each drawn with the collector off and then collected: efd12b07 leaves a cycle in every one of them (64 to
  309 objects a picture; the full run, `PBEM_PERF28_FULL=1`: 208 of 208 pictures; the suite's sample: 16 of 16),
  this branch in none.
* SQLite empties a connection's page cache when it begins after another connection wrote: the poll's units took
  the pool's connections in turn (first in, first out) whenever a reader (the sender's thread, the code checks
  ahead) had held one, and read every page again.  Generated: schedules of units, reads and readers holding a
  connection on another thread; the units of a schedule must all write on one connection.  efd12b07 fails 180 of
  200 schedules (the suite's 12: 11), this branch none.
* `engine.get` finds each kind's engine once, whatever the case it is asked in, and still names the kinds for a
  name it does not know.
"""

from __future__ import annotations

import gc
import os
import random
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from pbem import engine as registry
from pbem.engine.bots import play
from pbem.record import db
from pbem.render.pictures import MODULES, _module
from tests.engine.test_contract import moments

FULL = os.environ.get("PBEM_PERF28_FULL") == "1"


def _views(kind: str, seed: str, count: int) -> list[Any]:
    eng = registry.get(kind)
    seats = [f"P{i}" for i in range(eng.min_players)]
    pt = play(eng, seats, seed, bot_seed=f"{seed}-bot", timeout_every=9)
    return [eng.view(s, p) for s in moments(eng, pt, count) for p in pt.players[:2]]


def _left_garbage(view: dict[str, Any]) -> int:
    """How many objects drawing `view`'s reader picture (and its PNG) left for the collector."""
    mod = _module(view["kind"])
    gc.disable()  # what the drawing leaves stays in the youngest generation until collected here
    try:
        gc.collect(0)
        drawn = mod.draw(view)
        if drawn is not None:
            drawn[0].png()
        del drawn
        return gc.collect(0)
    finally:
        gc.enable()


@pytest.mark.parametrize("kind", sorted(MODULES))
def test_a_drawn_picture_is_freed_when_dropped_not_left_to_the_collector(kind: str) -> None:
    seeds = [f"perf28-{i}" for i in range(13 if FULL else 1)]
    views = [v for seed in seeds for v in _views(kind, seed, 2)]
    _left_garbage(views[0])  # the first picture of a kind fills the caches of its tiles and fonts
    left = [n for v in views if (n := _left_garbage(v))]
    assert not left, f"{len(left)} of {len(views)} {kind} pictures left a cycle ({left[:3]} objects)"


def _schedule(rng: random.Random, steps: int) -> list[str]:
    """W: a unit of work on this thread; R: a read on this thread; H: another thread takes a read connection and
    holds it; U: it lets it go."""
    out, held = [], False
    for _ in range(steps):
        step = rng.choice("WWRH" if not held else "WWRU")
        held = step == "H" or (held and step != "U")
        out.append(step)
    return out


def _writers_connections(url: str, schedule: list[str]) -> set[int]:
    """The driver connections the units of `schedule` wrote on."""
    used: set[int] = set()
    holding = threading.Event()
    release = threading.Event()
    holder: threading.Thread | None = None

    def hold() -> None:
        with db.reading(url) as conn:
            conn.exec_driver_sql("SELECT count(*) FROM t").all()
            holding.set()
            release.wait(30)

    for step in schedule:
        if step == "W":
            with db.session(url) as s:
                conn = s.connection()
                conn.exec_driver_sql("INSERT INTO t (x) VALUES (1)")
                used.add(id(conn.connection.driver_connection))
                s.commit()
        elif step == "R":
            with db.reading(url) as conn:
                conn.exec_driver_sql("SELECT count(*) FROM t").all()
        elif step == "H":
            holding.clear()
            release.clear()
            holder = threading.Thread(target=hold, daemon=True)
            holder.start()
            assert holding.wait(30)
        elif step == "U" and holder is not None:
            release.set()
            holder.join(30)
            holder = None
    if holder is not None:
        release.set()
        holder.join(30)
    return used


def test_the_units_of_work_keep_one_connection_whatever_readers_do(tmp_path: Path) -> None:
    rng = random.Random(28)
    failed = []
    for i in range(200 if FULL else 12):
        path = tmp_path / f"r{i}.db"
        sqlite3.connect(path).execute("CREATE TABLE t (x INTEGER)").connection.close()
        url = f"sqlite:///{path}"
        schedule = _schedule(rng, 16)
        try:
            used = _writers_connections(url, schedule)
        finally:
            db.engine_for(url).dispose()
        if len(used) > 1:
            failed.append("".join(schedule))
    assert not failed, f"{len(failed)} schedules wrote on more than one connection: {failed[:3]}"


def test_disposing_the_engine_closes_the_readers_too(tmp_path: Path) -> None:
    """A moderator copies a backup's database back once cron stopped (`engine_for(url).dispose()`, as
    tests/test_backup.py does): a read after it sees the file that is there now, not the one a pooled reader had
    open."""
    path = tmp_path / "r.db"
    sqlite3.connect(path).execute("CREATE TABLE t (x INTEGER)").connection.close()
    url = f"sqlite:///{path}"
    with db.reading(url) as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM t").scalar() == 0
    other = tmp_path / "other.db"
    c = sqlite3.connect(other)
    c.execute("CREATE TABLE t (x INTEGER)")
    c.execute("INSERT INTO t VALUES (7)")
    c.commit()
    c.close()
    db.engine_for(url).dispose()
    other.replace(path)
    try:
        with db.reading(url) as conn:
            assert conn.exec_driver_sql("SELECT count(*) FROM t").scalar() == 1
    finally:
        db.engine_for(url).dispose()


def test_an_engine_is_found_once_for_any_spelling_and_an_unknown_kind_still_named() -> None:
    eng = registry.get("habsburg")
    rng = random.Random(5)
    for _ in range(300):
        spelled = "".join(c.upper() if rng.random() < 0.5 else c for c in "habsburg")
        assert registry.get(spelled) is eng
    assert len(registry._FOUND) <= 64
    assert registry.get("Italian Wars") is registry.get("italian-wars")
    with pytest.raises(registry.UnknownKind, match="did you mean habsburg"):
        registry.get("habsbrug")
    with pytest.raises(registry.UnknownKind):
        registry.get("habsbrug")  # a name not known is never remembered


@pytest.mark.parametrize("url", ["sqlite://", "sqlite:///:memory:"])
def test_a_database_in_memory_is_read_on_the_writers_connection(url: str) -> None:
    """One database a connection there: its readers cannot have a pool of their own (nor a pool of several)."""
    writers = db.engine_for(url)
    try:
        with db.transaction(url) as conn:
            conn.exec_driver_sql("CREATE TABLE IF NOT EXISTS t (x INTEGER)")
            conn.exec_driver_sql("INSERT INTO t VALUES (3)")
        with db.reading(url) as conn:
            assert conn.exec_driver_sql("SELECT sum(x) FROM t").scalar() == 3
    finally:
        writers.dispose()

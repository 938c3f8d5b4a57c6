"""`pbem backup --check` stops at its budget (`--within`), says where, and exits 3 (costs23).

The check hashes every file the manifest names and runs SQLite's `quick_check` over every page of the database:
linear, but on 90a53973 not capped, so a backup of many GB held the command for as long as its disk took.  Now
the hashes look at the deadline before each MiB and the quick_check every `LOOK` steps of SQLite's machine.

The generator: a clock that passes the deadline at its k-th look, for every k from the first look to past the last
(each file's hash, each of the quick_check's looks with `LOOK` 1): the check ends either complete or with one
`late:` line naming what it was reading and what to do, `pbem backup --check` exits 3 saying so, never a
traceback.  On 90a53973 `check` looked at no clock: every place ran to the end (25 of 25 failed); now 0 of 25, and
the places cover hashing, the quick_check and reading the games (a deadline passing there was first told as "does
not open as a SQLite database (interrupted)"), and a whole check.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pbem.app import games
from pbem.app.backup import take
from pbem.app.backup_check import check
from pbem.cli import app
from pbem.home.app import Home
from pbem.record import backup as record_backup
from pbem.record.store import now_utc
from tests.conftest import CODES

PLAYERS = [("Alice", "alice@players.test"), ("Bob", "bob@players.test"), ("Carol", "carol@players.test")]
PLACES = 26


@pytest.fixture
def taken(home: Any, clock: Any, tmp_path: Path) -> Path:
    games.create_game(Home.of(home), "habsburg", "hh1", PLAYERS, seed="hh1", clock=clock, codes=CODES)
    return take(home, tmp_path / "backups", "nightly", now_utc(), 30).folder


def _late_after(looks: int, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The clock of both layers: 0 for the first `looks` looks, then past any deadline; the looks counted."""
    seen = [0]

    def clock() -> float:
        seen[0] += 1
        return 0.0 if seen[0] <= looks else 1e12

    monkeypatch.setattr(record_backup, "monotonic", clock)  # (the hashes' and the check's start read it too)
    monkeypatch.setattr(record_backup, "LOOK", 1)
    return seen


def test_the_check_stops_at_each_place_its_budget_passes(taken: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as m:
        looks = _late_after(10**9, m)
        assert check(taken, None, 60).ok
    total = looks[0]  # the looks of a whole check: the places are its first, its last, and some between
    between = range(9, total - 8, max(1, (total - 17) // 6))
    places = sorted({*range(1, 9), *between, *range(total - 8, total + 2)})
    failed = []
    ends = set()
    assert len(places) <= PLACES
    for k in places:
        with monkeypatch.context() as m:
            _late_after(k, m)
            got = check(taken, None, 60)
            _late_after(k, m)  # (the command from the same place)
            res = CliRunner().invoke(app, ["backup", "--check", str(taken), "--within", "60"])
        if got.ok:
            ends.add("complete")
            if res.exit_code != 0:
                failed.append((k, "complete but exit", res.exit_code))
            continue
        late = got.unchecked or ""
        if not late.startswith("late: ") or got.wrong or "give --within more" not in late:
            failed.append((k, got.unchecked, got.wrong))
        elif res.exit_code != 3 or "give --within more" not in res.output or "Traceback" in res.output:
            failed.append((k, res.exit_code, res.output[-300:]))
        ends.add("quick_check" if "quick_check" in late else "hashed")
    assert not failed, failed
    assert ends == {"hashed", "quick_check", "complete"}, f"the places generated do not cover the check: {ends}"

"""Whether a game is over is read without its state, and `pbem game list` costs a fixed number of statements a
game (costs16).

* `store.is_over` (`pbem game list`, `pbem publish`, each digest) read the game's newest snapshot whole, its state
  JSON and receipt counts included, to look at its `over` flag stored before them: a finished 6-player Sixteen
  Thirty's state is 11 KB (three pages), so a `game list` of 2,000 such games read 22 MB of states it never parsed.
  The generator: homes of `GAMES` games whose newest state is of `SMALL` and 4 `SMALL` bytes; counted, not timed (the
  read calls of a fresh connection, `/proc/self/io`, as costs15 counted them): 30 and 102 on a0540ce; now the flag
  alone, 6 and 6, the same answers as the whole snapshot's on random homes.
* `pbem game list` over 12 and 48 games: 4 statements a running game, 2 a finished one, and one (2,000 games: 8,001 statements, 0.25 s of CPU;
  `game waiting` 10 a game, 1.5 s; `game show` 6 and with `--as` 15 whatever the number of games: sound).
"""

from __future__ import annotations

import random
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine

from pbem.record import store
from pbem.record.db import session
from tests.reliability.test_costs15_homes import AT, _home
from tests.reliability.test_costs15_homes import _write as _games
from tests.reliability.test_costs15_mail_bytes import IO, _reads

GAMES = 12
SMALL = 8 * 1024  # a game's newest state at n (a finished 3-player Sixteen Thirty's; 6 players: 11 KB)


def _write(path: str, snapshots: dict[int, list[tuple[bool, int]]]) -> None:
    """Games 1.. each with the snapshots `snapshots[g]` ((over, bytes of state) in order)."""
    tables = ("orders", "events", "control_actions", "deadlines")
    _games(path, {g: dict.fromkeys(tables, 0) for g in snapshots}, {g: () for g in snapshots})
    with closing(sqlite3.connect(path)) as con, con:
        for g, snaps in snapshots.items():
            con.executemany(
                "INSERT INTO snapshots (game_id, seq, step, over, state_json, readers_json, created_at) "
                "VALUES (?, ?, '', ?, ?, '{}', ?)",
                [(g, q, over, '{"pad": "' + "x" * size + '"}', AT) for q, (over, size) in enumerate(snaps, 1)],
            )


def _over_then(s: Any, gid: int) -> bool:
    """`store.is_over` as a0540ce made it: the newest snapshot whole."""
    snap = s.connection().execute(store.Q_SNAPSHOT, {"gid": gid}).first()
    return bool(snap and snap.over)


@pytest.mark.skipif(not IO.exists(), reason="counts the read calls of /proc/self/io (Linux)")
def test_whether_a_game_is_over_is_read_without_its_state(tmp_path_factory: pytest.TempPathFactory) -> None:
    reads: dict[str, list[int]] = {}
    for size in (SMALL, 4 * SMALL):
        url = _home(tmp_path_factory, f"states{size}")
        _write(url.removeprefix("sqlite:///"), {g: [(g % 2 == 0, size)] for g in range(1, GAMES + 1)})
        for name, over in (("now", store.is_over), ("then", _over_then)):
            n, answer = _reads(url, lambda s, over=over: [over(s, g) for g in range(1, GAMES + 1)])  # type: ignore[misc]
            assert answer == [g % 2 == 0 for g in range(1, GAMES + 1)], name
            reads.setdefault(name, []).append(n)
    (n, four), (then_n, then_four) = reads["now"], reads["then"]
    assert four <= n * 1.25 + 2, f"{n} and {four} read calls for {GAMES} games' states of {SMALL} and 4x bytes"
    assert then_four > then_n * 2, f"the generator no longer tells: a0540ce's read {then_n} and {then_four}"


def test_the_flag_is_the_newest_snapshots(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Random homes (no snapshot, an older one over, the newest over): the answers of the whole snapshot."""
    rng = random.Random(16)
    url = _home(tmp_path_factory, "flags")
    games = range(1, 41)
    snaps = {g: [(rng.random() < 0.4, rng.choice((10, 5000))) for _ in range(rng.choice((0, 1, 3)))] for g in games}
    _write(url.removeprefix("sqlite:///"), snaps)
    with session(url) as s:
        assert [store.is_over(s, g) for g in games] == [_over_then(s, g) for g in games]
        assert [store.is_over(s, g) for g in games] == [bool(snaps[g]) and snaps[g][-1][0] for g in games]


def test_the_game_list_is_a_fixed_number_of_statements_a_game(tmp_path_factory: pytest.TempPathFactory) -> None:
    from pbem.app.games import list_games
    from pbem.home import config as config_mod
    from pbem.home.app import Home

    counts = []
    for games in (GAMES, 4 * GAMES):
        url = _home(tmp_path_factory, f"list{games}")
        _write(url.removeprefix("sqlite:///"), {g: [(g % 3 == 0, 10)] for g in range(1, games + 1)})
        home = Home.of(config_mod.load(Path(url.removeprefix("sqlite:///")).parent / "pbem.toml"))
        seen: list[object] = []

        def count(*args: object, seen: list[object] = seen) -> None:
            seen.append(args[2])  # the statement

        event.listen(Engine, "before_cursor_execute", count)
        try:
            rows = list_games(home)
        finally:
            event.remove(Engine, "before_cursor_execute", count)
        assert [r.status == "over" for r in rows] == [g % 3 == 0 for g in range(1, games + 1)]
        counts.append(len(seen))
    # a running game 4 (over: 2), and one for the list
    assert counts[1] - 1 == 4 * (counts[0] - 1) <= 16 * GAMES, f"statements for {GAMES} and 4x games: {counts}"

"""What the moderator's commands and the site ask of every game costs a probe per game, not every game's record
(costs15).

Two reads over every game grouped whole tables by game, so each read every row the home ever wrote, a game of a
thousand inputs a thousand times a game of one:

* `pbem.record.site.positions` (which pages `pbem publish` rewrites, and every poll that changed a game when
  `[publish] dir` is set) took the newest input, event, control row and deadline of each game by grouping
  `orders`, `events`, `control_actions` and `deadlines`: a home of 1,000 finished games of 950 inputs, 375 ms a
  poll; now 25 ms.
* `pbem.record.store.open_game_ids` (`pbem game waiting`, WAITING, and the open codes every SAY and UNDO checks, by
  mail or not) grouped `snapshots`, one row an input: 105 to 217 ms each on that home; now 9 to 16 ms.

Now each game's newest of each is one probe of the table's index on (game, seq or id).  The generator: homes of
`GAMES` games of k and 4k rows of each table, written straight into a migrated record; counted, not timed (SQLite's
VM steps, `set_progress_handler`): f76a375's statements, kept here, grow 3.9x at 4x for both; now 1.0x.  Their
answers are f76a375's on random homes (games without rows, an older snapshot over, a newest one over).
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable
from contextlib import closing
from functools import partial
from typing import Any

import pytest
from sqlalchemy import func, select

from pbem.record import site, store
from pbem.record.db import session
from pbem.record.models import ControlAction, Deadline, Game, GameEvent, OrderInput, Snapshot
from tests.reliability.test_costs11_history import _steps

GAMES = 12
ROWS = 40  # rows of each table a game at n; 4n at 4n
AT = "2026-12-06 12:00:00.000000"


def _grouped_positions(s: Any) -> dict[int, tuple[int, int, int, int]]:
    """`site.positions` as f76a375 made it: each table grouped by game."""
    found = {int(g): [0, 0, 0, 0] for (g,) in s.connection().execute(select(Game.__table__.c.id))}  # type: ignore[attr-defined]
    tables = ((OrderInput, "seq"), (GameEvent, "seq"), (ControlAction, "id"), (Deadline, "id"))
    for i, (table, name) in enumerate(tables):
        c = table.__table__.c  # type: ignore[attr-defined]
        for gid, newest in s.connection().execute(select(c.game_id, func.max(c[name])).group_by(c.game_id)):
            if gid in found and newest is not None:
                found[gid][i] = int(newest)
    return {g: (p[0], p[1], p[2], p[3]) for g, p in found.items()}


def _grouped_open(s: Any) -> list[int]:
    """`store.open_game_ids` as f76a375 made it: the snapshots grouped by game."""
    c = Snapshot.__table__.c  # type: ignore[attr-defined]
    newest = select(c.game_id, func.max(c.seq).label("seq")).group_by(c.game_id).subquery()
    q = (
        select(c.game_id)
        .join(newest, (c.game_id == newest.c.game_id) & (c.seq == newest.c.seq))
        .where(c.over.is_(False))
        .order_by(c.game_id)
    )
    return [int(g) for (g,) in s.connection().execute(q)]


def _write(path: str, rows: dict[int, dict[str, int]], over: dict[int, tuple[bool, ...]]) -> None:
    """Games 1.. with `rows[g]` rows of each table (snapshots: one per input, over as `over[g]` says)."""
    with closing(sqlite3.connect(path)) as con, con:
        for g, counts in rows.items():
            con.execute(
                "INSERT INTO games (id, name, kind, seed, seed_commitment, players_json, options_json, "
                "deadline_seconds, resolve, created_at, insecure_seed, legacy_events) "
                "VALUES (?, ?, 'habsburg', 's', 'c', '[]', '{}', 3600, 'asap', ?, 0, 0)",
                (g, f"g{g}", AT),
            )
            con.executemany(
                "INSERT INTO orders (game_id, seq, kind, player, lines_json, created_at, hash) "
                "VALUES (?, ?, 'orders', 'Alice', '[]', ?, '')",
                [(g, q, AT) for q in range(1, counts["orders"] + 1)],
            )
            con.executemany(
                "INSERT INTO events (game_id, seq, input_seq, kind, text, visibility_json, data_json, created_at, "
                "hash) VALUES (?, ?, 0, 'note', '', '\"public\"', '{}', ?, '')",
                [(g, q, AT) for q in range(1, counts["events"] + 1)],
            )
            con.executemany(
                "INSERT INTO snapshots (game_id, seq, step, over, state_json, created_at) VALUES (?, ?, '', ?, '{}', ?)",
                [(g, q, flag, AT) for q, flag in enumerate(over[g])],
            )
            for table, kind in (("control_actions", "action, detail"), ("deadlines", "step, due_at, reason")):
                values = "'pause', ''" if table == "control_actions" else f"'t1', '{AT}', ''"
                con.executemany(
                    f"INSERT INTO {table} (game_id, {kind}, created_at) VALUES (?, {values}, ?)",
                    [(g, AT)] * counts[table],
                )


def _home(tmp_path_factory: pytest.TempPathFactory, name: str) -> str:
    from pbem.cli.support import init_home
    from pbem.home import config as config_mod

    return config_mod.load(
        init_home(tmp_path_factory.mktemp(name) / "home", address="m@pbem.test", name="M")
    ).database_url


ANSWERS: dict[str, tuple[Callable[[Any], object], Callable[[Any], object]]] = {
    "positions": (site.positions, _grouped_positions),
    "open games": (store.open_game_ids, _grouped_open),
}


@pytest.fixture(scope="module")
def steps(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[int]]:
    """Each answer's VM steps (now's, then f76a375's) on homes of `GAMES` games of `ROWS` and 4 `ROWS` rows each."""
    out: dict[str, list[int]] = {}
    for k in (ROWS, 4 * ROWS):
        url = _home(tmp_path_factory, f"rows{k}")
        tables = ("orders", "events", "control_actions", "deadlines")
        games = range(1, GAMES + 1)
        _write(
            url.removeprefix("sqlite:///"),
            {g: dict.fromkeys(tables, k) for g in games},
            {g: (False,) * k for g in games},
        )
        with session(url) as s:
            for name, answers in ANSWERS.items():
                for when, answer in zip(("now", "then"), answers, strict=True):
                    out.setdefault(f"{name} {when}", []).append(_steps(s, partial(answer, s)))
    return out


@pytest.mark.parametrize("name", list(ANSWERS))
def test_every_games_newest_rows_cost_a_probe_however_long_the_game(steps: dict[str, list[int]], name: str) -> None:
    n, four = steps[f"{name} now"]
    assert four <= n * 1.25 + 2, f"{name}: {n} and {four} steps at {ROWS} and 4x rows a game"
    then_n, then_four = steps[f"{name} then"]
    assert then_four > then_n * 3, f"the generator no longer tells: f76a375's {name} took {then_n} and {then_four}"


def test_the_answers_are_those_of_the_grouped_statements(tmp_path_factory: pytest.TempPathFactory) -> None:
    rng = random.Random(15)
    url = _home(tmp_path_factory, "answers")
    tables = ("orders", "events", "control_actions", "deadlines")
    games = range(1, 41)
    rows = {g: {t: rng.choice((0, 0, 1, rng.randint(2, 9))) for t in tables} for g in games}
    over = {g: tuple(rng.random() < 0.3 for _ in range(rng.choice((0, 1, rng.randint(2, 6))))) for g in games}
    _write(url.removeprefix("sqlite:///"), rows, over)
    with session(url) as s:
        for name, (now, then) in ANSWERS.items():
            assert now(s) == then(s), name
        opened = store.open_game_ids(s)
    assert opened == [g for g in games if over[g] and not over[g][-1]]  # a game with no snapshot is not open

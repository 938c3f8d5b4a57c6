"""`pbem game list` of a home run for months: the games over or abandoned counted in one line (months1).

A home polled from cron for months holds more ended games than running ones (`benchmarks/months.py`: 8 running
and 40-odd ended after six months; a moderator's home of a few years, hundreds).  `pbem game list` printed every
game ever made, one line each in the order they were made: with 495 abandoned and 5 running, 500 lines, the
running ones wherever their names fell.  Now it lists the running and paused games and counts the others in one
line, "and 495 games over or abandoned (pbem game list --all lists them)"; `--all` lists every game as before.

The generator: seeded homes of 1 to 5 games, each left running, paused or abandoned.  Of `CASES` (3) homes, all 3
fail on 8080c21 (`--all` is no option there; 2 of them list an abandoned game) and none now;
`PBEM_LIST_CASES=20` runs 20: 20 fail on 8080c21 (14 list an abandoned game), none now.  Cost: about 1 s a case
on a loaded machine (`python3 -m pytest tests/test_game_list_ended.py --durations=5 -n 0`).
"""

from __future__ import annotations

import os
import random
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.app import control
from pbem.app.games import create_game
from pbem.cli import app
from pbem.home.app import Home

CASES = int(os.environ.get("PBEM_LIST_CASES", "3"))
WHEN = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize("seed", range(CASES))
def test_game_list_shows_the_games_that_run_and_counts_the_others(seed: int, home, tmp_path: Path) -> None:
    rng = random.Random(seed)
    states = [rng.choice(["running", "paused", "abandoned"]) for _ in range(rng.randint(1, 5))]
    if seed == 0:
        states[-1] = "abandoned"
    made = Home.of(home, clock=lambda: WHEN)
    for i, state in enumerate(states):
        name = f"hh{i}"
        create_game(made, "habsburg", name, [("Ann", "ann@x.test"), ("Ben", "ben@x.test"), ("Cy", "cy@x.test")])
        if state == "paused":
            control.pause(made, name, WHEN)
        elif state == "abandoned":
            control.abandon(made, name, WHEN)
    config = str(home.path)
    short = CliRunner().invoke(app, ["game", "list", "--config", config])
    full = CliRunner().invoke(app, ["game", "list", "--all", "--config", config])
    assert short.exit_code == 0 and full.exit_code == 0, (short.output, full.output)
    live = [f"hh{i}" for i, s in enumerate(states) if s != "abandoned"]
    ended = len(states) - len(live)
    lines = short.output.splitlines()
    assert [ln.split()[0] for ln in lines[: len(live)]] == live, short.output
    tail = [f"and {ended} game{'s' if ended > 1 else ''} over or abandoned (pbem game list --all lists them)"]
    assert lines[len(live) :] == (tail if ended else []), short.output
    assert [ln.split()[0] for ln in full.output.splitlines()] == [f"hh{i}" for i in range(len(states))], full.output

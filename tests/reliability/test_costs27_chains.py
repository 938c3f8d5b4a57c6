"""`pbem check` reads every game's hash chain within its command's deadline, and says how far it got (costs27).

`pbem check` read the chains (walk12) with no deadline of its own: a home whose chains take longer than what is
left of `[limits] command_deadline` was ended by the command's watchdog mid-read (one line of the deadline, exit 3),
the chains' line unsaid, however many it had read.  Now the chains stop `CHAINS_MARGIN` (or a tenth of what is left)
before the command's deadline, and the line says how many of how many games were read, none broken so far, exit 1.
Their cost is linear, about 1.1 ms a game of a set-up game (`python benchmarks/chain_check.py --games 1000 4000`:
`pbem check` 2.34 and 5.4 CPU s; a played game's chain costs more, some 0.03 s at a game's end), so the default
deadline of an hour reads some 100,000 games.  The generator: homes of 1, 2 and 4 games, the command's deadline
already near (0 s left) or far (an hour): on ab18255d 3 of 6 cases fail (each near one read on, "ok", exit 0),
here 0.  The suite runs `SAMPLE`; `.ci/run`'s whole-size step (PBEM_FULL_SIZE=1) all.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.cli import app
from tests import test_moderator as tm
from tests.conftest import CODES
from tests.sizes import FULL


def _home(tmp_path: Path, games: int):
    from pbem.cli.support import init_home
    from pbem.home import config as config_mod

    cfg = config_mod.load(init_home(tmp_path / "home", address="moderator@pbem.test", name="Test Moderator"))
    for i in range(games):
        tm.games.create_game(tm.Home.of(cfg), "habsburg", f"hh{i}", tm.PLAYERS, seed=f"chains-{i}", codes=CODES)
    return cfg


CASES = [(left, games) for left in (0.0, 3600.0) for games in (1, 2, 4)]
SAMPLE = [(0.0, 2)]


@pytest.mark.parametrize(("left", "games"), CASES if FULL else SAMPLE)
def test_the_chains_line_is_said_before_the_commands_deadline(tmp_path, monkeypatch, games, left) -> None:
    from pbem.cli import deadline

    cfg = _home(tmp_path, games)
    real = getattr(deadline, "left", lambda: 0.0)  # (none before costs27)
    monkeypatch.setattr(deadline, "left", lambda: left if real() is not None else None, raising=False)
    got = CliRunner().invoke(app, ["--config", str(cfg.path), "check"])
    line = next((ln for ln in got.output.splitlines() if " the record" in ln), "")
    if left:
        assert line == f"ok    the record: {games} game{'s' * (games > 1)}, each one's hash chain checks", got.output
        return
    assert got.exit_code == 1, got.output
    assert line.startswith(f"FAIL  the record: late: the chains of 0 of {games} games had been read at the deadline"), (
        got.output
    )

"""Every command on a game that was abandoned, or is paused: what each says.

Found by this file: `pbem game resume` of an abandoned game said "game hh1 is not paused" (every other command says
"game hh1 is abandoned"), and `pbem game show` of an abandoned game listed the players of its last step as
"waiting for", as if their orders were still awaited.  Every command of typer's list that names a game runs on an
abandoned one: each that would act on it is refused with that one line and changes nothing; those that only read
it (show, inputs, export), set how much mail it sends (mail) or mail a player's report again (resend) still work.
"""

from __future__ import annotations

import re
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.cli import app
from tests.test_names_every_command import NAMED, PLAYERS, naming_a_game

READS = {"export", "game show", "game inputs", "game mail", "game resend"}  # resend: a lost final report


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with Habsburg hh1, dealt, with one input."""
    from pbem.cli.support import init_home

    cfg = init_home(tmp_path_factory.mktemp("states") / "home", address="games@example.test")
    players = [a for p in PLAYERS for a in ("--player", p)]
    for args in (
        ["game", "new", "habsburg", "--name", "hh1", "--no-join", *players],
        ["game", "away", "hh1", "Bob", "2"],
    ):
        got = CliRunner().invoke(app, ["--config", str(cfg), *args])
        assert got.exit_code == 0, got.output
    return cfg.parent


def _run(home: Path, *args: str) -> tuple[int, str]:
    got = CliRunner().invoke(app, [args[0], *args[1:], "--config", str(home / "pbem.toml")])
    return got.exit_code, got.output


def test_every_command_on_an_abandoned_game(made: Path, tmp_path: Path) -> None:
    assert sorted(NAMED) == naming_a_game()
    home = Path(shutil.copytree(made, tmp_path / "home"))
    assert _run(home, "game", "abandon", "hh1") == (0, "hh1 abandoned; the players are told (run pbem poll to send)\n")
    inputs = _run(home, "game", "inputs", "hh1")
    for name, args in NAMED.items():
        code, said = _run(home, *name.split(), *(a.format(game="hh1", player="Alice") for a in args))
        if name in READS:
            assert code == 0, (name, said)
        elif name == "game abandon":  # nothing to do: said so (players25)
            assert (code, said) == (2, "pbem: game hh1 is abandoned already: nothing was changed\n")
        else:
            assert (code, said) == (2, "pbem: game hh1 is abandoned\n"), name
    assert _run(home, "game", "show", "hh1")[1].endswith("\nthe game is abandoned: it waits for nobody\n")
    assert _run(home, "game", "inputs", "hh1") == inputs  # nothing was recorded


def test_show_says_whom_a_running_or_paused_game_waits_for_and_until_when(made: Path, tmp_path: Path) -> None:
    home = Path(shutil.copytree(made, tmp_path / "home"))
    last = _run(home, "game", "show", "hh1")[1].splitlines()[-1]
    assert re.fullmatch(r"waiting for: (Alice|Bob|Carol) \(deadline 20\d\d-\d\d-\d\d \d\d:\d\d UTC\)", last), last
    assert _run(home, "game", "pause", "hh1")[0] == 0
    paused = _run(home, "game", "show", "hh1")[1].splitlines()[-1]
    assert paused == last + "; the game is paused: no deadline passes until pbem game resume", paused


# A command that finds nothing to do says so (walk6: a second `pbem game pause` said "game hh1 is paused", as if the
# moderator had asked something of a paused game).  The corpus: each command that changes a game's control, run where
# it has nothing to do; a case fails unless it is refused in one line saying "already" or "nothing was changed".  On
# 18279215: 4 of the 5 fail (away back of a player not away, resume, pause, abandon); on players25: 0.  walk7 added
# the mail mode said again (exit 0 on efd12b07: 1 of the 4 new cases failed), an address the seat has already, the
# absence to the day it is already, the seat given to the player who has it: 0 of 9 fail now.
SOON = f"{datetime.now(UTC) + timedelta(days=3):%Y-%m-%d}"  # within [games] max_away
IDLE = [  # in turn, on one game (Bob is away, Alice is not)
    ((), ("game", "away", "hh1", "Alice", "back")),
    ((), ("game", "resume", "hh1")),
    (("game", "pause", "hh1"), ("game", "pause", "hh1")),
    ((), ("game", "start", "hh1")),
    (("game", "mail", "hh1", "digest"), ("game", "mail", "hh1", "DIGEST")),
    ((), ("game", "address", "hh1", "Alice", "alice@example.test")),
    (("game", "away", "hh1", "Carol", SOON), ("game", "away", "hh1", "Carol", SOON)),
    ((), ("game", "replace", "hh1", "Carol", "Carol <carol@example.test>")),
    (("game", "abandon", "hh1"), ("game", "abandon", "hh1")),
]


def test_a_command_with_nothing_to_do_says_so(made: Path, tmp_path: Path) -> None:
    home = Path(shutil.copytree(made, tmp_path / "home"))
    quiet = []
    for first, second in IDLE:
        if first:
            assert _run(home, *first)[0] == 0, first
        code, said = _run(home, *second)
        if code != 2 or not ("already" in said or "nothing was changed" in said) or said.count("\n") != 1:
            quiet.append((second, code, said))
    assert quiet == [], quiet

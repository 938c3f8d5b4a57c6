"""A game or player name as a moderator types it, in every command that takes one and in their mail form.

Each command found its game and players its own way (found by this file): `game code` took a player's name in
any case but no prefix, `game replace` ignored accents too, `game away` and `export --as` wanted it exactly as
registered (`export hh1 --as alice` was refused), `game show --as` took a unique prefix; a mistyped game or player
was refused without the name meant (`Alce is not a player of hh1`, no list of players in `game code`).  Now one
reading (`pbem.app.game_names.player_named`: the whole name, a unique prefix or first name, case and accents
ignored, as mail reads names) serves every command and every moderator mail command, and a name that matches
nothing is refused naming the nearest ones (`did you mean Alice?`) and, for a player, every player.

Every command of typer's list that takes a game NAME runs with a mistyped game, a mistyped player, and the names
in another case or shortened; each must do with the second what it does with the names as registered.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.app import moderating
from pbem.cli import app
from pbem.home import config as config_mod
from pbem.home.app import Home
from pbem.orders.moderator import SYNTAX
from tests.commands import cli_commands, has_argument, has_param
from tests.conftest import body_of, sent_mail
from tests.test_moderate_by_mail import acks, command, run

PLAYERS = ("Alice <alice@example.test>", "Bob <bob@example.test>", "Carol <carol@example.test>")
#: Each command that names a game, with its arguments: {game} and {player} stand for the names typed.  A new
#: command that takes a game NAME fails `test_every_command_naming_a_game_is_listed` until it is listed here.
NAMED: dict[str, list[str]] = {
    "export": ["{game}", "--format", "json", "--as", "{player}"],
    "game show": ["{game}", "--as", "{player}"],
    "game extend": ["{game}", "2h"],
    "game pause": ["{game}"],
    "game resume": ["{game}"],
    "game abandon": ["{game}"],
    "game replace": ["{game}", "{player}", "Dora <dora@example.test>"],
    "game address": ["{game}", "{player}", "new@example.test"],
    "game start": ["{game}"],
    "game code": ["{game}", "{player}"],
    "game away": ["{game}", "{player}", "3"],
    "game resend": ["{game}", "{player}"],
    "game undo": ["{game}", "--to", "1", "--why", "misread"],
    "game inputs": ["{game}"],
    "game mail": ["{game}", "watch"],
    "game say": ["{game}", "Play on."],
    "game process": ["{game}"],
    "game keep": ["{game}"],
}
TYPO_GAME = 'pbem: no game named "hh2" (did you mean hh1?); see pbem game list\n'
TYPO_PLAYER = "pbem: Alce is not a player of hh1 (did you mean Alice?); players: Alice, Bob, Carol\n"


def naming_a_game() -> list[str]:
    """Every command of the CLI with an argument NAME (a game), as typed (`game show`), from typer's own list."""
    return cli_commands(has_argument("name"))


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with Habsburg hh1 (Alice, Bob, Carol; dealt, one order in) and Dynasties dy1; copied by each run
    that may change it."""
    from pbem.cli.support import init_home

    cfg = init_home(tmp_path_factory.mktemp("names") / "home", address="games@example.test")
    runner = CliRunner()
    for kind, name in (("habsburg", "hh1"), ("dynasties", "dy1")):
        players = [a for p in PLAYERS for a in ("--player", p)]
        got = runner.invoke(app, ["--config", str(cfg), "game", "new", kind, "--name", name, "--no-join", *players])
        assert got.exit_code == 0, got.output
    got = runner.invoke(app, ["--config", str(cfg), "game", "away", "hh1", "Bob", "2"])  # an input to undo to
    assert got.exit_code == 0, got.output
    return cfg.parent


def _run(home: Path, name: str, game: str, player: str) -> tuple[int, str]:
    args = [a.format(game=game, player=player) for a in NAMED[name]]
    got = CliRunner().invoke(app, [*name.split(), "--config", str(home / "pbem.toml"), *args])
    return got.exit_code, got.output


def _copy(made: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(made, tmp_path / "home"))


def test_every_command_naming_a_game_is_listed() -> None:
    assert sorted(NAMED) == naming_a_game()


@pytest.mark.parametrize("name", sorted(NAMED))
def test_a_mistyped_name_is_refused_with_the_name_meant(made: Path, name: str) -> None:
    assert _run(made, name, "hh2", "Alice") == (2, TYPO_GAME)
    if "{player}" in NAMED[name]:
        assert _run(made, name, "hh1", "Alce") == (2, TYPO_PLAYER)
        assert _run(made, name, "hh1", " ") == (2, "pbem: name a player of hh1; players: Alice, Bob, Carol\n")


@pytest.mark.parametrize("name", sorted(NAMED))
def test_names_in_another_case_or_shortened_do_what_the_names_do(made: Path, tmp_path: Path, name: str) -> None:
    code, said = _run(_copy(made, tmp_path / "as-registered"), name, "hh1", "Alice")
    code2, said2 = _run(_copy(made, tmp_path / "as-typed"), name, "HH1", "ali")
    assert code2 == code, (said, said2)
    assert "no game named" not in said2 and "not a player" not in said2, said2
    if code == 0 and "{player}" in NAMED[name]:  # what it says names the player as registered
        assert "Alice" in said2 and "ali " not in said2, said2


@pytest.fixture
def by_mail(home, clock):
    """A home with hh1 and a moderator code, for the mail form of the commands."""
    from pbem.app import games
    from tests.conftest import CODES

    players = [("Alice", "alice@players.test"), ("Bob", "bob@players.test"), ("Carol", "carol@players.test")]
    games.create_game(Home.of(home), "habsburg", "hh1", players, seed="names", clock=clock, codes=CODES)
    run(home, clock)
    return home, moderating.make_code(Home.of(home), clock.now)


def test_the_mail_commands_read_names_as_the_cli_does(by_mail, clock) -> None:
    cfg, code = by_mail
    assert isinstance(cfg, config_mod.Config)
    seen: set[str] = set()
    sent_mail(cfg, seen)
    lines = ["NEW CODE {p}", "REPLACE {p} WITH Dora <dora@players.test>", "AWAY {p} 3", "BACK {p}", "RESEND {p}"]
    lines.append("ADDRESS {p} new@players.test")
    taking_a_player = sorted(word for word, syntax in SYNTAX.items() if "<player>" in syntax)
    assert sorted({line.split(" {p}")[0] for line in lines}) == taking_a_player  # a new one is listed here
    for line in lines:
        command(cfg, code, line.format(p="Alce"))
        run(cfg, clock)
        (ack,) = acks(sent_mail(cfg, seen))
        assert "Alce is not a player of hh1 (did you mean Alice?); players: Alice, Bob, Carol" in body_of(ack), line
    command(cfg, code, "PAUSE", game="hh2")
    run(cfg, clock)
    (ack,) = acks(sent_mail(cfg, seen))
    assert 'no game named "hh2" (did you mean hh1?)' in body_of(ack)
    for line, said in (("AWAY ali 3", "Alice is away until"), ("NEW CODE ALICE", "a new code for Alice is queued")):
        command(cfg, code, line)
        run(cfg, clock)
        (ack,) = acks(sent_mail(cfg, seen))
        assert f"done: {line}" in body_of(ack) and said in body_of(ack), body_of(ack)
    command(cfg, code, "REPLACE car WITH Dora <dora@players.test>")
    run(cfg, clock)
    (ack,) = acks(sent_mail(cfg, seen))
    assert "Dora <dora@players.test> now plays the seat of Carol" in body_of(ack), body_of(ack)


#: Each command that takes a game KIND, with its arguments ({kind}: the kind typed).
KINDED: dict[str, list[str]] = {
    "rules": ["{kind}"],
    "demo": ["{kind}", "--dir", "{tmp}/demo"],
    "game new": ["{kind}", "--name", "hh7", "--no-join", *(a for p in PLAYERS for a in ("--player", p))],
}


def test_every_command_taking_a_kind_names_the_kind_meant(made: Path, tmp_path: Path) -> None:
    """`habsbrg` was refused with the list of kinds only, and `italian wars` (a space for the dash) not read."""
    found = cli_commands(has_param("kind"))
    assert sorted(KINDED) == sorted(found)
    said = "pbem: unknown game kind 'habsbrg' (did you mean habsburg?); known kinds: "
    for name, args in KINDED.items():
        typed = [a.format(kind="habsbrg", tmp=tmp_path) for a in args]
        got = CliRunner().invoke(app, [*name.split(), "--config", str(made / "pbem.toml"), *typed])
        assert got.exit_code == 2 and got.output.startswith(said), (name, got.output)
    got = CliRunner().invoke(app, ["rules", "Italian_Wars"])
    assert got.exit_code == 0 and got.output.startswith("ITALIAN WARS"), got.output[:200]
    home = _copy(made, tmp_path)
    typed = [a.format(kind=" HABSBURG ", tmp=tmp_path) for a in KINDED["game new"]]
    got = CliRunner().invoke(app, ["game", "new", "--config", str(home / "pbem.toml"), *typed])
    assert got.exit_code == 0 and got.output.startswith("created habsburg game hh7"), got.output


def test_an_export_format_in_capitals_is_the_format(made: Path) -> None:
    """`export hh1 --format HTML` was refused; kinds, mail modes and names are read in any case."""
    got = CliRunner().invoke(app, ["export", "hh1", "--format", "TEXT", "--config", str(made / "pbem.toml")])
    assert got.exit_code == 0 and "House of Habsburg" in got.output, got.output[:300]

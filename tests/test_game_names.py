"""Game names are safe (issue 12): what `game new` accepts, and `export --all` never writes outside its folder."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.app.decision import GameError
from pbem.app.game_names import export_stem, game_name_problem, inside
from pbem.app.games import create_game
from pbem.cli import app
from pbem.home.app import Home

PLAYERS = [("Alice", "alice@x.test"), ("Bob", "bob@x.test"), ("Carol", "carol@x.test")]


@pytest.mark.parametrize("name", ["a", "hh1", "thirty-7", "italian-wars-demo", "a" * 40, "x-"])
def test_allowed_names(name: str) -> None:
    assert game_name_problem(name) is None


@pytest.mark.parametrize(
    "name", ["", "1hh", "-a", "a_b", "a.b", "a/b", "../../x", "a b", "Hh", "a" * 41, "caf\u00e9", "a\x00b", ".", "-"]
)
def test_refused_names_say_what_is_allowed(name: str) -> None:
    why = game_name_problem(name)
    assert why and "lower-case letters, digits and '-'" in why and "at most 40" in why


def test_game_new_refuses_a_bad_name_with_what_is_allowed(home) -> None:
    with pytest.raises(GameError, match="starts with a letter"):
        create_game(Home.of(home), "habsburg", "../../x", PLAYERS)
    res = CliRunner().invoke(
        app,
        ["--config", str(home.path), "game", "new", "habsburg", "--name", "a/b"]
        + [arg for p, a in PLAYERS for arg in ("--player", f"{p} <{a}>")],
    )
    assert res.exit_code != 0 and "cannot be a game name" in res.output and "lower-case letters" in res.output


@pytest.mark.parametrize("name", ["../../x", "a/b", "/tmp/abs", "..", "", "a\\b", "x" * 300])
def test_export_stems_are_plain_file_names(name: str) -> None:
    stem = export_stem(name, 7)
    assert stem.startswith("game-7") and "/" not in stem and ".." not in stem
    assert inside(Path("/srv/out"), stem, "json").parent == Path("/srv/out").resolve()


def test_inside_refuses_a_path_that_leaves_the_folder(tmp_path: Path) -> None:
    for stem in ("../x", "a/b", ".."):
        with pytest.raises(ValueError):
            inside(tmp_path, stem, "json")


def test_export_all_never_writes_outside_its_folder_for_old_rows(home, tmp_path: Path) -> None:
    for name in ("hh", "ok2", "ok3"):
        create_game(Home.of(home), "habsburg", name, PLAYERS, seed=name)
    con = sqlite3.connect(home.database_url.removeprefix("sqlite:///"))
    # rows written before names were checked, so before games had signing keys (a key is sealed to its game's name)
    con.execute("UPDATE games SET name = '../../x', signing_key = NULL WHERE name = 'ok2'")
    con.execute("UPDATE games SET name = 'a/b', signing_key = NULL WHERE name = 'ok3'")
    con.commit()
    con.close()
    out = tmp_path / "deep" / "er" / "out"
    before = {p for p in tmp_path.rglob("*")}
    res = CliRunner().invoke(app, ["--config", str(home.path), "export", "--all", str(out)])
    assert res.exit_code == 0, res.output
    new = {p for p in tmp_path.rglob("*")} - before
    files = [p for p in new if p.is_file()]
    assert files and all(p.parent == out for p in files), sorted(map(str, new))
    assert len(files) == 9 and (out / "hh.json").is_file()
    assert not (tmp_path / "deep" / "x.json").exists() and not (out / "a").exists()

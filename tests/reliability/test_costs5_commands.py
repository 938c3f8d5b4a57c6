"""Every command's every value, given as 100,000 characters, is refused (or done) in one line of bounded length,
never a traceback (costs5).

costs4 found `pbem game new --player` quoting a giant name whole in its one line; this generator gives every
parameter of every command of typer's list (`tests.commands`) such a value, the others a good one, and found the
class wider: `rules`/`game new`/`demo` KIND, `game mail` MODE, `game away` UNTIL, `export --format` and `--output`,
`verify` FILE, `--mail`, `--sent` and `--earlier` quoted the value whole (200,000 characters a line for a 200,000
character value, 400,000 for a path quoted twice), and `init`, `publish`, `export --all` and `demo --dir` ended in an
OSError traceback ("File name too long", a folder name of 256 characters or more).  Now every refusal's line is
`pbem.cli.common.clipped` and a folder the file system cannot look at is refused in one line
(`pbem.cli.common.exists`).
"""

from __future__ import annotations

import functools
import itertools
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pbem.cli import app
from tests.commands import cli_commands

GIANT = "Z" * 100_000
MAX_OUTPUT = 3_000  # characters a refused command prints at most (its one line, and any lines before it)
PLAYERS = ("Alice <a@x.test>", "Bob <b@x.test>", "Carol <c@x.test>")
_fresh = itertools.count()


@functools.cache
def _app_command() -> Any:
    """pbem's click command, built from the typer app once (each build inspects every command's signature: 14 ms,
    and the parametrization asked for it 114 times while collecting, 1.6 s in each test process)."""
    import typer.main

    return typer.main.get_command(app)


def _command(path: str) -> Any:
    cmd: Any = _app_command()
    for part in path.split():
        cmd = cmd.commands[part]
    return cmd


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from pbem.cli.support import init_home

    root = tmp_path_factory.mktemp("costs5-commands")
    cfg = init_home(root / "home", address="moderator@pbem.test", name="Test Moderator")
    new = ["-c", str(cfg), "game", "new", "habsburg", "--name", "hh1", "--seed", "s", "--insecure-seed"]
    res = CliRunner().invoke(app, [*new, *(x for p in PLAYERS for x in ("--player", p))])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(app, ["-c", str(cfg), "export", "hh1", "--output", str(root / "hh1.json")])
    assert res.exit_code == 0, res.output
    return cfg


def _good(name: str, home: Path) -> str | None:
    """A value the parameter `name` takes (a fresh folder where a command makes one), or None: left out."""
    root = home.parent.parent
    return {
        "name": "hh1",
        "kind": "habsburg",
        "player": "Alice",
        "as_player": "Alice",
        "until": "2026-12-24",
        "by": "2d",
        "mode": "digest",
        "old": "Carol",
        "new": "Dora <d@x.test>",
        "text": "hello",
        "ids": "1",
        "file": str(root / "hh1.json"),
        "why": "a test",
        "last": "3",
        "players": "3",
        "format": "json",
        "directory": str(root / f"new-{next(_fresh)}"),
        "dest": str(root / f"backups-{next(_fresh)}"),
        "within": "60",
    }.get(name)


def _cases() -> list[tuple[str, str]]:
    out = [("game list", "config")]  # the root's --config, as every command reads it first
    for path in cli_commands():
        for p in _command(path).params:
            if p.name != "config" and not getattr(p, "is_flag", False):
                out.append((path, p.name))
    return out


def _args(path: str, giant: str, home: Path) -> list[str]:
    cmd = _command(path)
    args = ["-c", GIANT if giant == "config" else str(home), *path.split()]
    if path == "game new":
        args.append("--insecure-seed")  # a seed of one letter: the refusal under test comes first
    if path == "demo" and giant != "directory":
        args += ["--dir", str(home.parent)]  # a folder holding a home: refused before a game is played
    for p in cmd.params:
        if p.name == "config" or getattr(p, "is_flag", False):
            continue
        value = GIANT if p.name == giant else _good(p.name, home)
        if value is None or (path == "demo" and p.name == "directory" and giant != "directory"):
            continue
        if path == "export" and giant == "all_dir" and p.name in ("name", "output", "as_player"):
            continue  # --all takes none of them
        if path == "game new" and p.name == "player" and giant != "player":
            args += [x for q in PLAYERS for x in ("--player", q)]
            continue
        args += [value] if p.param_type_name == "argument" else [p.opts[-1], value]
    return args


@pytest.mark.parametrize(("path", "param"), _cases())
def test_a_giant_value_is_refused_in_a_bounded_line_never_a_traceback(home: Path, path: str, param: str) -> None:
    res = CliRunner().invoke(app, _args(path, param, home))
    raised = res.exception if not isinstance(res.exception, SystemExit) else None
    assert raised is None, f"{path} {param}: {raised!r}"
    out = res.output
    assert len(out) <= MAX_OUTPUT, f"{path} {param}: {len(out):,} characters printed: {out[:300]!r}"
    assert "Z" * 100 not in out, f"{path} {param}: the value quoted whole: {out[:300]!r}"


def test_init_writes_a_name_with_quotes_and_breaks_as_toml_reads_it_back(tmp_path: Path) -> None:
    """`pbem init --name 'Bob "the mod"'` wrote the name into pbem.toml unescaped: a file its own reading refused, in
    a traceback (and a backslash or a line break the same); an address pbem.toml refuses was written first too."""
    from pbem.home import config as config_mod

    name = 'Bob "the mod" \\ C:\\x\nsecond line\x7f'
    res = CliRunner().invoke(app, ["init", str(tmp_path / "h"), "--address", "m@x.test", "--name", name])
    assert res.exit_code == 0 and res.exception is None, (res.output, res.exception)
    assert config_mod.load(tmp_path / "h" / "pbem.toml").moderator_name == name
    res = CliRunner().invoke(app, ["init", str(tmp_path / "a"), "--address", "not an address"])
    assert res.exit_code == 2 and not isinstance(res.exception, Exception), (res.output, res.exception)
    assert "--address 'not an address': must be a bare email address" in res.output, res.output
    assert not (tmp_path / "a").exists()

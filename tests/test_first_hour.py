"""A moderator's first hour: a home set up by hand, --config anywhere, --version, kinds in any case,
help texts as written, exit codes, counts in words, and exports that are safe to hand out.

The hand-written home is driven end to end through `python -m pbem` subprocesses, as a
moderator would type it; the rest use Typer's runner on a home made by `pbem init`.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from pbem.cli import app
from pbem.engine.words import count, plural
from tests.reliability import forkserver

ROOT = Path(__file__).resolve().parents[1]
PLAYERS = ["--player", "Alice <a@x.test>", "--player", "Bob <b@x.test>", "--player", "Carol <c@x.test>"]


def pbem(*args: str, cwd: Path | None = None, fresh: bool = False) -> subprocess.CompletedProcess:
    """`python -m pbem ARGS`: started from scratch when `fresh` (each test's first command, so that every test still
    starts the real interpreter and its imports), otherwise forked from a process that imported pbem once
    (`tests.reliability.forkserver`, which ends a command as `pbem.cli.main` does: about 0.7 CPU s saved a run)."""
    if fresh:
        return subprocess.run(
            [sys.executable, "-m", "pbem", *args], capture_output=True, text=True, cwd=cwd, timeout=120
        )
    return forkserver.pbem(list(args), cwd=cwd)


def one_line(res: subprocess.CompletedProcess) -> str:
    assert "Traceback" not in res.stderr + res.stdout, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    return lines[0]


def test_a_home_written_by_hand_from_the_example_says_what_to_run_then_works(tmp_path: Path) -> None:
    home = tmp_path / "games"
    home.mkdir()
    shutil.copy(ROOT / "examples" / "pbem.toml", home / "pbem.toml")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    cfg = str(home / "pbem.toml")
    for command in (
        ["game", "list"],
        ["game", "new", "habsburg", "--name", "hh1", *PLAYERS],
        ["poll"],
        ["export", "x"],
    ):
        res = pbem("--config", cfg, *command, cwd=elsewhere, fresh=command == ["game", "list"])
        assert res.returncode == 2, (command, res.stderr)
        line = one_line(res)
        assert f"create it with: pbem --config {home / 'pbem.toml'} upgrade" in line, line
    fix = one_line(pbem("--config", cfg, "poll", cwd=elsewhere)).split("create it with: ", 1)[1]
    args = shlex.split(fix)
    assert args[0] == "pbem"
    upgraded = pbem(*args[1:], cwd=elsewhere)  # exactly what the line said to run
    assert upgraded.returncode == 0 and "created the pbem schema" in upgraded.stdout, upgraded.stderr
    created = pbem("game", "new", "habsburg", "--name", "hh1", *PLAYERS, "--config", cfg, cwd=elsewhere)
    assert created.returncode == 0, created.stderr
    assert not (home / "mail").exists(), "the example's Maildir is not made by hand in this scenario"
    polled = pbem("poll", "--config", cfg, cwd=elsewhere)
    assert polled.returncode == 0, polled.stderr
    assert "Traceback" not in polled.stderr and "sent 3 mails" in polled.stdout
    for folder in ("inbox", "sent", "processed", "rejected"):
        assert (home / "mail" / folder / "new").is_dir(), folder
    assert len(list((home / "mail" / "sent" / "new").iterdir())) == 3
    listing = pbem("game", "list", "-c", cfg, cwd=elsewhere)
    assert listing.returncode == 0 and "hh1" in listing.stdout and "Alice, Bob, Carol" in listing.stdout


def test_a_database_with_an_older_schema_names_pbem_upgrade(tmp_path: Path) -> None:
    from pbem.record.db import migrate

    (tmp_path / "pbem.toml").write_text('[moderator]\naddress = "games@example.test"\n')
    migrate(f"sqlite:///{tmp_path / 'pbem.db'}", "0002")
    res = pbem("--config", str(tmp_path / "pbem.toml"), "game", "list", fresh=True)
    assert res.returncode == 2
    line = one_line(res)
    assert "has schema 0002, this pbem needs" in line and f"run: pbem --config {tmp_path / 'pbem.toml'} upgrade" in line
    assert pbem("--config", str(tmp_path / "pbem.toml"), "upgrade").returncode == 0
    assert pbem("--config", str(tmp_path / "pbem.toml"), "game", "list").returncode == 0


def test_the_schema_check_knows_the_same_newest_revision_as_alembic() -> None:
    from alembic.script import ScriptDirectory

    from pbem.record.db import alembic_config
    from pbem.record.schema import head_revisions

    assert head_revisions() == set(ScriptDirectory.from_config(alembic_config("sqlite://")).get_heads())


def test_a_config_without_the_moderator_address_is_refused_naming_file_and_key(tmp_path: Path) -> None:
    text = (ROOT / "examples" / "pbem.toml").read_text()
    (tmp_path / "pbem.toml").write_text(re.sub(r"(?m)^address = .*$", "", text))
    res = pbem("--config", str(tmp_path / "pbem.toml"), "game", "list", fresh=True)
    assert res.returncode == 2
    line = one_line(res)
    assert str(tmp_path / "pbem.toml") in line and "[moderator] address is missing" in line


def commands(group=None, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], object]]:
    """Every command and group of the CLI, as (words after pbem, click command)."""
    group = group or get_command(app)
    for name, cmd in group.commands.items():
        yield (*path, name), cmd
        if hasattr(cmd, "commands"):
            yield from commands(cmd, (*path, name))


ALL = list(commands())


def _flat(text: str) -> str:
    return " ".join(text.split())


def _squeezed(text: str) -> str:
    """Without any whitespace: help is re-wrapped to the terminal, also after a hyphen."""
    return "".join(text.split())


@pytest.mark.parametrize("words, cmd", ALL, ids=[" ".join(w) for w, _ in ALL])
def test_every_help_text_is_printed_as_written_and_offers_config(words: tuple[str, ...], cmd) -> None:
    res = CliRunner().invoke(app, [*words, "--help"])
    assert res.exit_code == 0, res.output
    shown = _squeezed(res.output)
    assert "--config" in shown, f"pbem {' '.join(words)} does not take --config after its name"
    expected = [_squeezed(p.help) for p in cmd.params if getattr(p, "help", None)]
    expected += [_squeezed(par.replace("\b", "")) for par in (cmd.help or "").split("\n\n") if par.strip()]
    for text in expected:
        assert text in shown, f"pbem {' '.join(words)} --help lost text: {text!r}"


def test_brackets_survive_in_help() -> None:
    res = CliRunner().invoke(app, ["game", "new", "--help"])
    assert "Short game name used in subjects: [pbem NAME]." in _flat(res.output)


def test_config_is_taken_before_and_after_every_command(tmp_path: Path) -> None:
    init = CliRunner().invoke(app, ["init", str(tmp_path / "h"), "--address", "games@example.test"])
    assert init.exit_code == 0, init.output
    cfg = str(tmp_path / "h" / "pbem.toml")
    missing = str(tmp_path / "nope.toml")
    new = ["game", "new", "italian-wars", "--name", "iw1", "--player", "Ann <a@x.test>", "--player", "Ben <b@x.test>"]
    assert CliRunner().invoke(app, [*new, "--config", cfg]).exit_code == 0
    for words in (["game", "list"], ["game", "show", "iw1"], ["export", "iw1"], ["poll", "--dry-run"]):
        before = CliRunner().invoke(app, ["--config", cfg, *words])
        after = CliRunner().invoke(app, [*words, "--config", cfg])
        assert before.exit_code == after.exit_code == 0, (words, before.output, after.output)
        # the one after the command wins
        wrong = CliRunner().invoke(app, ["--config", missing, *words, "-c", cfg])
        assert wrong.exit_code == 0, (words, wrong.output)
        assert "no such configuration file" in CliRunner().invoke(app, [*words, "--config", missing]).output


def test_version() -> None:
    from pbem import __version__

    res = pbem("--version", fresh=True)
    assert res.returncode == 0 and res.stdout.strip() == f"pbem {__version__}"


def test_the_package_and_the_mails_name_one_version() -> None:
    """The version pip installs is the one every mail names (X-Mailer), which `pbem verify --mail` reads to say
    which pbem wrote a mail it finds another than this one would write: the two must move together."""
    import tomllib

    from pbem import __version__

    project = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["version"] == __version__


def test_kinds_are_typed_in_any_case(tmp_path: Path) -> None:
    from pbem import engine as registry

    assert registry.get("Italian-Wars") is registry.get("italian-wars")
    assert CliRunner().invoke(app, ["rules", "Habsburg"]).exit_code == 0
    assert CliRunner().invoke(app, ["init", str(tmp_path / "h")]).exit_code == 0
    cfg = str(tmp_path / "h" / "pbem.toml")
    res = CliRunner().invoke(app, ["-c", cfg, "game", "new", "HABSBURG", "--name", "hh1", *PLAYERS])
    assert res.exit_code == 0 and "created habsburg game hh1" in res.output, res.output
    assert "hh1              habsburg" in CliRunner().invoke(app, ["-c", cfg, "game", "list"]).output


def test_poll_help_and_the_readme_list_every_exit_code() -> None:
    shown = CliRunner().invoke(app, ["poll", "--help"]).output
    readme = _flat((ROOT / "README.md").read_text())
    for code in "0123":
        assert re.search(rf"(?m)^\s+{code}  \S", shown), f"poll --help does not explain exit code {code}"
    said = re.search(r"Exit codes: (.*?)\.", readme[readme.index("pbem poll --timings") :]).group(1)
    assert [int(c) for c in re.findall(r"\b(\d) ", said)] == [0, 1, 2, 3], said


def test_counts_are_in_words() -> None:
    assert [count(n, "game") for n in (0, 1, 2)] == ["0 games", "1 game", "2 games"]
    assert count(1, "bot player") == "1 bot player" and plural(3, "match", "matches") == "matches"


# f-strings and templates that print a number then a plural noun: each must go through count().
# ("3 to {n} players" is a range, always plural.)
COUNTED = re.compile(
    r"(?<!to )\{\{?\s*[^{}]*\}\}? (games|cards|files|mails|messages|polls|emails|events|orders|players|"
    r"reminders|deadlines|minutes|seconds|turns|hands|votes|codes)\b"
)
SOURCES = ["pbem/*.py", "pbem/record/*.py", "pbem/engine/*/view.py", "templates/export/*.j2", "templates/mail/*.j2"]


def test_no_count_is_printed_with_a_fixed_plural() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{i}: {line.strip()}"
        for pattern in SOURCES
        for path in sorted(ROOT.glob(pattern))
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if COUNTED.search(line)
    ]
    assert found == [], "print counts with pbem.engine.words.count:\n" + "\n".join(found)


NO_JOIN = ["--no-join", *PLAYERS]  # dealt at once: the test looks at a dealt game's export


def test_export_of_a_running_game_is_public_unless_moderator_is_asked(tmp_path: Path, monkeypatch) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["init", str(tmp_path / "h")]).exit_code == 0
    cfg = str(tmp_path / "h" / "pbem.toml")
    assert (
        runner.invoke(
            app, ["-c", cfg, "game", "new", "habsburg", "--name", "hh1", "--seed", "s", "--insecure-seed", *NO_JOIN]
        ).exit_code
        == 0
    )
    public = json.loads(runner.invoke(app, ["-c", cfg, "export", "hh1"]).stdout)
    assert public["audience"] == "public"
    assert all("address" not in p for p in public["players"]) and public["orders"] == []
    assert all(e["visibility"] == "public" for e in public["events"])
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, ["-c", cfg, "export", "hh1", "--moderator"])
    assert res.exit_code == 0 and "wrote hh1-moderator.json" in res.output and "not for players" in res.output
    full = json.loads((tmp_path / "hh1-moderator.json").read_text())
    assert full["audience"] == "moderator" and list(full)[:3] == ["format", "version", "audience"]
    assert any(e["visibility"] == "moderator" for e in full["events"])
    text = runner.invoke(app, ["-c", cfg, "export", "hh1", "--moderator", "-f", "text", "-o", "-"]).stdout
    assert "Moderator's record" in text.splitlines()[3] and "Not for players" in text.splitlines()[4]
    runner.invoke(app, ["-c", cfg, "export", "hh1", "--moderator", "-f", "html"])
    page = (tmp_path / "hh1-moderator.html").read_text()
    assert page.index("Not for players") < page.index('id="main"')
    assert runner.invoke(app, ["-c", cfg, "export", "hh1", "--moderator", "--as", "Alice"]).exit_code == 2
    assert runner.invoke(app, ["-c", cfg, "export", "--all", str(tmp_path / "all"), "--moderator"]).exit_code == 0
    assert sorted(p.name for p in (tmp_path / "all").iterdir()) == [
        "hh1-moderator.html",
        "hh1-moderator.json",
        "hh1-moderator.txt",
    ]


def test_the_schema_line_never_shows_a_database_password() -> None:
    from pbem.record.schema import describe

    said = describe("postgresql+psycopg://pbem:s3cret@db.example/pbem")
    assert "s3cret" not in said and "db.example/pbem" in said

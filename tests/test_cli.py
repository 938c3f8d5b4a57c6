"""The command line: every command has help with an example; errors are one sentence, never a traceback."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.cli import app
from tests.reliability import forkserver

COMMANDS = [
    ["init"],
    ["upgrade"],
    ["poll"],
    ["export"],
    ["verify"],
    ["rules"],
    ["demo"],
    ["game", "new"],
    ["game", "list"],
    ["game", "show"],
]


@pytest.mark.parametrize("cmd", COMMANDS, ids=[" ".join(c) for c in COMMANDS])
def test_every_command_has_help_with_an_example(cmd: list[str]) -> None:
    res = CliRunner().invoke(app, [*cmd, "--help"])
    assert res.exit_code == 0
    assert "Example: pbem" in res.output


def pbem(
    *args: str, cwd: Path | None = None, env: dict | None = None, fresh: bool = False
) -> subprocess.CompletedProcess:
    """`python -m pbem ARGS`: started from scratch when `fresh` (each test's first command, so that every test still
    starts the real interpreter and its imports), otherwise forked from a process that imported pbem once
    (`tests.reliability.forkserver`, which ends a command as `pbem.cli.main` does: about 0.7 CPU s saved a run)."""
    if fresh:
        return subprocess.run(
            [sys.executable, "-m", "pbem", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=120
        )
    return forkserver.pbem(list(args), env=env, cwd=cwd)


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--config", "/nonexistent/pbem.toml", "poll"], "no such configuration file"),
        (["rules", "chess"], "unknown game kind 'chess'"),
        (["verify", "/nonexistent.json"], "cannot read"),
        (["demo", "chess"], "unknown game kind"),
    ],
)
def test_errors_are_one_clear_sentence_and_a_non_zero_exit(args: list[str], fragment: str) -> None:
    res = pbem(*args, fresh=True)
    assert res.returncode != 0
    assert "Traceback" not in res.stderr + res.stdout
    assert fragment in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_init_new_game_list_show_poll_export_from_another_directory(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert pbem("init", str(home), "--address", "games@example.test", fresh=True).returncode == 0
    cfg = str(home / "pbem.toml")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    res = pbem(
        "--config",
        cfg,
        "game",
        "new",
        "italian-wars",
        "--name",
        "iw1",
        "--seed",
        "abc",
        "--insecure-seed",
        "--no-join",
        "--player",
        "Ann <ann@example.test>",
        "--player",
        "Ben <ben@example.test>",
        cwd=elsewhere,
    )
    assert res.returncode == 0, res.stderr
    assert "seed commitment" in res.stdout
    bad = pbem(
        "--config", cfg, "game", "new", "habsburg", "--name", "x", "--player", "Ann <ann@example.test>", cwd=elsewhere
    )
    assert bad.returncode == 2 and "3 to 6 players" in bad.stderr and "Traceback" not in bad.stderr
    listing = pbem("--config", cfg, "game", "list", cwd=elsewhere)
    assert "iw1" in listing.stdout and "Ann, Ben" in listing.stdout
    assert re.search(r"\(step \S+, due \d{4}-\d\d-\d\d \d\d:\d\d UTC\)$", listing.stdout, re.M), listing.stdout  # walk6
    show = pbem("--config", cfg, "game", "show", "iw1", "--as", "Ann", cwd=elsewhere)
    assert "Private report for Ann" in show.stdout and "Your hand" in show.stdout
    public = pbem("--config", cfg, "game", "show", "iw1", cwd=elsewhere)
    assert "Your hand" not in public.stdout
    polled = pbem("--config", cfg, "poll", "--timings", cwd=elsewhere)
    assert polled.returncode == 0 and "sent 2 mails" in polled.stdout
    timing = polled.stdout.splitlines()[-1]
    assert timing.startswith("timings: total ") and "handling" in timing and "sender sending" in timing, timing
    assert "poll thread cpu" in timing and "poll thread waiting for a core" in timing, timing
    assert "deriving codes 0.00 s" in timing, timing  # no order mail: no key derivation
    assert len(list((home / "mail" / "sent" / "new").iterdir())) == 2
    exported = pbem("--config", cfg, "export", "iw1", "--format", "text", cwd=elsewhere)
    assert exported.returncode == 0 and "Italian Wars: game iw1" in exported.stdout
    missing = pbem("--config", cfg, "game", "show", "nope", cwd=elsewhere)
    assert missing.returncode == 2 and 'no game named "nope"' in missing.stderr


def test_rules_prints_each_handbook() -> None:
    from pbem import engine as registry

    for kind in registry.available():
        res = CliRunner().invoke(app, ["rules", kind])
        assert res.exit_code == 0 and len(res.output.splitlines()) > 40, kind


def test_a_home_without_its_key_file_says_which_file_to_restore_and_exits_3(tmp_path: Path) -> None:
    """`game-keys.secret` seals the games' signing keys: without it the export and the poll of a game's mail
    cannot sign.  Each says so in one line naming the file (exit 3, as for a missing database), never with a
    traceback, and the poll leaves the order in the inbox for the run after the file is restored."""
    from tests.conftest import order_mail

    home = tmp_path / "home"
    assert pbem("init", str(home), "--address", "games@example.test", fresh=True).returncode == 0
    cfg = str(home / "pbem.toml")
    players = ["--player", "Ann <ann@example.test>", "--player", "Ben <ben@example.test>"]
    made = pbem("--config", cfg, "game", "new", "italian-wars", "--name", "iw1", "--no-join", *players)
    assert made.returncode == 0, made.stderr
    assert pbem("--config", cfg, "poll").returncode == 0
    keys = home / "game-keys.secret"
    kept = keys.read_bytes()
    keys.unlink()
    exported = pbem("--config", cfg, "export", "iw1", "--format", "json")
    assert exported.returncode == 3 and "Traceback" not in exported.stderr, exported.stderr
    assert str(keys) in exported.stderr and len(exported.stderr.strip().splitlines()) == 1
    inbox = home / "mail" / "inbox" / "new"
    inbox.mkdir(parents=True, exist_ok=True)
    (inbox / "1.order").write_bytes(order_mail("Ann <ann@example.test>", "iw1", "STATUS"))
    polled = pbem("--config", cfg, "poll")
    assert polled.returncode == 3 and "Traceback" not in polled.stderr and str(keys) in polled.stderr, polled.stderr
    assert [p.name for p in inbox.iterdir()] == ["1.order"], "the mail stays in the inbox"
    keys.write_bytes(kept)
    again = pbem("--config", cfg, "poll")
    assert again.returncode == 0 and "read 1 message" in again.stdout, again.stdout + again.stderr

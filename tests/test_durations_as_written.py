"""Durations as a moderator writes them: `2 days`, `48 hours`, `1 week`, `30 min`, as well as `2d`.

Found by this file: `EXTEND 2 days` by mail was refused as a line that cannot be read (the whole mail with it), and
`pbem game extend hh1 "48 hours"`, `--deadline "3 days"` and `default_deadline = "2 days"` as no duration, although
AWAY took `AWAY Alice 5 days`; a run of 5,000 digits ended in Python's own "Exceeds the limit" message.  Every
written-out unit is read where `48h` is: the configuration, the command line, the moderator's mail.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from pbem.home import config as config_mod
from pbem.home.config import parse_duration
from pbem.orders.moderator import read

FORMS = {
    "m": ("m", "min", "mins", "minute", "minutes", "Min"),
    "h": ("h", "hr", "hrs", "hour", "hours", "Hours", "H"),
    "d": ("d", "day", "days", "Days", "D"),
    "w": ("w", "wk", "wks", "week", "weeks", "Week"),
}
AMOUNT = {"m": 30, "h": 48, "d": 2, "w": 1}


def written(unit: str) -> list[str]:
    n = AMOUNT[unit]
    return [f"{n}{form}" for form in FORMS[unit]] + [f"{n} {form}" for form in FORMS[unit]]


def test_every_unit_written_out_is_the_unit() -> None:
    for unit, n in AMOUNT.items():
        want = parse_duration(f"{n}{unit}")
        for text in written(unit):
            assert parse_duration(text) == want, text
    for bad in ("2 months", "2dd", "2 d d", "two days", "1" * 5000 + "d"):
        with pytest.raises(ValueError, match=r"is not a duration|too long"):
            parse_duration(bad)
    with pytest.raises(ValueError, match="could be minutes or months"):
        parse_duration("2M")  # "EXTEND 2M" meant as months moved the deadline by 2 minutes
    with pytest.raises(ValueError, match=r"^'9{13}d' is too long"):
        parse_duration("9" * 13 + "d")


def test_extend_by_mail_takes_a_duration_written_out() -> None:
    for unit in AMOUNT:
        for text in written(unit):
            r = read(f"EXTEND {text}")
            assert [c.args for c in r.commands] == [(text,)] and not r.problems, text


def test_the_configuration_takes_them(tmp_path: Path) -> None:
    from pbem.cli.support import init_home

    cfg = init_home(tmp_path / "home", address="games@example.test")
    text = cfg.read_text()
    assert text.count('default_deadline = "48h"') == 1
    cfg.write_text(text.replace('default_deadline = "48h"', 'default_deadline = "3 days"'))
    assert config_mod.load(cfg).default_deadline == timedelta(days=3)


def test_the_command_line_takes_them(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from pbem.cli import app
    from pbem.cli.support import init_home

    toml = str(init_home(tmp_path / "home", address="games@example.test"))
    players = ["--player", "Ann <ann@example.test>", "--player", "Ben <ben@example.test>"]
    run = CliRunner().invoke
    got = run(
        app, ["game", "new", "italian-wars", "--name", "iw1", "--no-join", "--deadline", "2 days", *players, "-c", toml]
    )
    assert got.exit_code == 0, got.output
    before = run(app, ["game", "list", "-c", toml]).output
    got = run(app, ["game", "extend", "iw1", "48 hours", "-c", toml])
    assert got.exit_code == 0 and got.output.startswith("deadline of iw1 is now"), got.output
    assert run(app, ["game", "list", "-c", toml]).output != before


def test_a_negative_extension_is_refused_saying_why() -> None:
    """`pbem game extend hh1 -3h` was click's "No such option: -3"; EXTEND -3h "not a duration"."""
    from pbem.app.moderator_commands import arguments_problem

    (c,) = read("EXTEND -3h").commands
    assert (
        arguments_problem(c)
        == "'-3h': a deadline is never moved earlier (the players plan on it); extend by 1m or more"
    )


def test_every_command_taking_an_amount_reads_a_negative_one_itself(tmp_path: Path) -> None:
    """Each command argument that is an amount of time (typer's list: `by`, `until`) given `-3h`/`-3`: pbem's own
    line saying why, never click's "No such option: -3" (the value was read as an option)."""
    from typer.testing import CliRunner

    from pbem.cli import app
    from pbem.cli.support import init_home
    from tests.commands import cli_commands, has_argument

    found = cli_commands(has_argument("by", "until"))
    given = {"game extend": ["iw1", "-3h"], "game away": ["iw1", "Ann", "-3"]}
    assert sorted(given) == sorted(found)
    toml = str(init_home(tmp_path / "home", address="games@example.test"))
    players = ["--player", "Ann <ann@example.test>", "--player", "Ben <ben@example.test>"]
    assert (
        CliRunner()
        .invoke(app, ["game", "new", "italian-wars", "--name", "iw1", "--no-join", *players, "-c", toml])
        .exit_code
        == 0
    )
    for name, args in given.items():
        got = CliRunner().invoke(app, [*name.split(), *args, "-c", toml])
        assert got.exit_code == 2 and got.output.startswith(f"pbem: '{args[-1]}'"), (name, got.output)

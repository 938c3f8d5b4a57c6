"""A giant value on the command line is refused in a line of bounded length, and an address no mail could carry
is refused before it becomes a seat.

`pbem game new --player` took a 20,000-character address (a seat whose player could never be read: pbem refuses a
From header of more than 2,000 characters), and quoted a 100,000-character player name whole in its one line
(found by this file's hunt, costs4).  Reading either stays linear (Python's parseaddr over 25,000 and 100,000
characters: the same 24 ms).
"""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from pbem.cli import app
from tests.growth import Stopwatch, Window


def _new(cfg: Path, *players: str) -> tuple[int, str]:
    args = ["--config", str(cfg), "game", "new", "habsburg", "--name", "h1", "--seed", "abc", "--insecure-seed"]
    res = CliRunner().invoke(app, [*args, *(x for p in players for x in ("--player", p))])
    return res.exit_code, res.output


def test_a_giant_player_is_refused_in_a_short_line(tmp_path: Path) -> None:
    from pbem.cli.support import init_home

    cfg = init_home(tmp_path / "home", address="moderator@pbem.test", name="Test Moderator")
    others = ("B <b@x.test>", "C <c@x.test>")
    code, out = _new(cfg, "Z <" + "a" * 20_000 + "@x.test>", *others)
    assert code == 2 and "the address is 20,007 characters long; at most 254" in out and len(out) < 400, out[:500]
    code, out = _new(cfg, "Z" * 100_000 + " <a@x.test>", *others)
    assert code == 2 and "cannot be a player name: it is 100000 characters long" in out and len(out) < 400, out[:500]
    from pbem.cli.support import parse_player

    assert parse_player("Z <" + "a" * 246 + "@x.test>")[1] == "a" * 246 + "@x.test"  # 254: an address may be so long


def test_a_nested_or_giant_option_is_refused_in_a_short_line(tmp_path: Path) -> None:
    """`--option x=[[[...]]]` ended in a RecursionError traceback (the value is read as JSON first), and a
    refused option's value was quoted whole."""
    from pbem.cli.support import init_home

    cfg = init_home(tmp_path / "home", address="moderator@pbem.test", name="Test Moderator")
    players = ("A <a@x.test>", "B <b@x.test>", "C <c@x.test>")
    for value in ("[" * 30_000 + "]" * 30_000, "y" * 60_000):
        args = ["--config", str(cfg), "game", "new", "habsburg", "--name", "h1", "--option", f"x={value}"]
        res = CliRunner().invoke(app, [*args, *(x for p in players for x in ("--player", p))])
        assert res.exit_code == 2 and "(60,000 characters): House of Habsburg has no option 'x'" in res.output, (
            res.exit_code,
            res.output[:500],
            repr(res.exception)[:300],
        )
        assert len(res.output) < 400, res.output[:500]


def test_a_password_command_that_prints_without_end_is_cut_at_its_cap() -> None:
    """A `password_command` whose output never ends (`yes`) or runs to megabytes: pbem kept all of it until the
    command ended (gigabytes in the 30 s timeout; reading 32 MB cost 4 times reading 8 MB).  Now it reads 64 KiB
    at most and says so in one line, at once, with the command and all it started killed."""

    import pytest

    from pbem.mail.transports.credentials import CredentialError, run_command

    watch = Stopwatch()
    with pytest.raises(CredentialError, match=r"'yes' printed more than 65,536 bytes"):
        run_command(["yes", "s3cret"], "[imap] password_command", timeout=20)
    assert watch.stop() < 10  # wall clock: deadline (not the 20 s timeout)

    def cost(megabytes: int) -> float:
        script = f"echo s3cret; head -c {megabytes * 1024 * 1024} /dev/zero"
        t = Window()
        with pytest.raises(CredentialError, match="printed more than"):
            run_command(["sh", "-c", script], "[imap] password_command", timeout=20)
        return t.close().cpu

    t1 = min(cost(8) for _ in range(2))
    t4 = min(cost(32) for _ in range(2))
    assert t4 < 0.01 or t4 / t1 < 2.5, (t1, t4)  # the output past the cap is never read (under 10 ms: noise)
    assert run_command(["sh", "-c", "echo ' s3cret '; head -c 60000 /dev/zero"], "k", timeout=5) == " s3cret "

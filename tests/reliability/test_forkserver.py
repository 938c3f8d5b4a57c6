"""A command forked by `tests.reliability.forkserver.pbem` ends as `python -m pbem` ends it (`pbem.cli.main`).

The tests of tests/mail, tests/test_seeds.py and tests/test_verify_whose_mail.py run `pbem` through the fork
server instead of starting Python for each run; what they check must be what a moderator's run does.  The
server's child ran the app alone, as the kill points' wrapper does: a command the home cannot serve (its key file
gone) ended in a traceback and status 1 where `pbem` says one line and exits 3.  Each command here (one that
works, one refused for its argument, and the export of a home without its key file) must give the same status,
stdout and stderr forked as run by `pbem.cli.main` in this process (commands that change nothing: each runs twice).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pbem.cli import main
from tests.reliability import forkserver


def _main(args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> tuple:
    """`args` run by `pbem.cli.main` here, as in a process of its own: no home's key is known yet."""
    from pbem.record import sealing

    monkeypatch.setattr(sys, "argv", ["pbem", *args])
    monkeypatch.setattr(sealing, "_KEYS", {})
    monkeypatch.setattr(sealing, "_FILES", {})
    capsys.readouterr()
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def test_a_forked_command_ends_as_pbem_ends_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    if forkserver.os.environ.get("PBEM_TEST_FORKSERVER", "1") == "0":
        pytest.skip("PBEM_TEST_FORKSERVER=0: every run starts from scratch")
    cfg = str(tmp_path / "home" / "pbem.toml")
    players = ["--player", "Ann <ann@example.test>", "--player", "Ben <ben@example.test>"]
    assert forkserver.pbem(["init", str(tmp_path / "home"), "--address", "games@example.test"]).returncode == 0
    made = forkserver.pbem(["--config", cfg, "game", "new", "italian-wars", "--name", "iw1", "--no-join", *players])
    assert made.returncode == 0, made.stderr
    commands = {
        "works": ["--config", cfg, "game", "list"],
        "refused": ["--config", cfg, "game", "show", "nope"],
        "no key file: export": ["--config", cfg, "export", "iw1", "--format", "json"],
    }
    codes = {}
    for what, args in commands.items():
        if what.startswith("no key file"):
            (tmp_path / "home" / "game-keys.secret").unlink(missing_ok=True)
        forked = forkserver.pbem(args, cwd=tmp_path)
        want = _main(args, capsys, monkeypatch)
        assert (forked.returncode, forked.stdout, forked.stderr) == want, what
        codes[what] = forked.returncode
    assert codes == {"works": 0, "refused": 2, "no key file: export": 3}, codes

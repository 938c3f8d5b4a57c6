"""A home's Maildir that moved (walk9, the moderator's mistakes): the poll made an empty one and went on.

A home that has sent mail through its `[maildir] path` (its ledger of mails sent, `outbox-sent/sent-ids.ledger`,
is there) finds the folder gone: renamed, moved with `[maildir] path` left as it was, `[maildir] path` edited to
a folder that does not exist (a typo), or a disk not mounted.  On 90a53973 each poll made empty Maildirs there, read
nothing, sent the queued mail into the new `sent` and ended exit 0 with no word: a player's mail in the old inbox was
never read, and `pbem check` said ok (3 of 3 cases; 0 now).  Now the poll refuses (and `check` says FAIL) in one line naming the path and what to do, exit 3, and
makes nothing; `mkdir PATH` starts afresh on purpose.  A home that never sent mail still gets its Maildirs made.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.app import games
from pbem.cli import app
from pbem.cli.support import init_home
from pbem.home import config as config_mod
from pbem.home.app import Home
from tests.conftest import CODES, deliver, order_mail

PLAYERS = [("Alice", "alice@players.test"), ("Bob", "bob@players.test"), ("Carol", "carol@players.test")]


def _poll(toml: Path) -> tuple[int, str]:
    got = CliRunner().invoke(app, ["--config", str(toml), "poll"])
    return got.exit_code, got.output


def _home(root: Path) -> Path:
    """A home whose game's first reports went out through its Maildir, and a player's mail waiting in its inbox."""
    cfg = config_mod.load(init_home(root / "home", address="moderator@pbem.test"))
    games.create_game(Home.of(cfg), "habsburg", "hh1", PLAYERS, seed="walk9", codes=CODES)
    assert _poll(cfg.path)[0] == 0
    deliver(cfg, order_mail("alice@players.test", "hh1", f"CODE {CODES['Alice']}\nPASS\n"))
    return cfg.path.parent


def _renamed(home: Path) -> Path:
    (home / "mail").rename(home / "mail-old")
    return home / "mail"


def _path_edited(home: Path) -> Path:
    toml = home / "pbem.toml"
    toml.write_text(toml.read_text().replace('path = "mail"', 'path = "mial"'))
    return home / "mial"


def _unmounted(home: Path) -> Path:  # what an unmounted disk leaves: the folder and all in it gone from view
    shutil.move(str(home / "mail"), str(home.parent / "elsewhere"))
    return home / "mail"


@pytest.mark.parametrize("how", [_renamed, _path_edited, _unmounted])
def test_a_maildir_that_moved_stops_the_poll_in_one_line_and_is_not_made_afresh(tmp_path: Path, how) -> None:
    home = _home(tmp_path)
    gone = how(home)
    code, said = _poll(home / "pbem.toml")
    assert code == 3, said
    assert f"pbem: [maildir] path {gone} is missing, but this home has sent mail through it before" in said, said
    assert "set [maildir] path to where it is now" in said and f"mkdir {gone}" in said, said
    assert not gone.exists()  # nothing made: the next poll refuses too, until it is put back
    checked = CliRunner().invoke(app, ["--config", str(home / "pbem.toml"), "check"])  # it said "ok" on 90a53973
    assert checked.exit_code == 1 and f"FAIL  [maildir] path {gone} is missing" in checked.output, checked.output
    gone.mkdir()  # starting afresh on purpose
    code, said = _poll(home / "pbem.toml")
    assert code == 0 and said.startswith(("nothing to do", "read 0 messages")), said


def test_a_home_that_never_sent_mail_gets_its_maildirs_made(tmp_path: Path) -> None:
    cfg = config_mod.load(init_home(tmp_path / "home", address="moderator@pbem.test"))
    shutil.rmtree(cfg.maildir_path)
    code, said = _poll(cfg.path)
    assert code == 0 and (cfg.maildir_path / "inbox" / "new").is_dir(), said

"""A whole home restored where nothing can tell (months9): `pbem poll --restored`, the README's command.

A backup of the user's whole home directory (the home folder, its `mail/`, and this machine's marks of its polls in
`$XDG_STATE_HOME`) made while mail waited, then the old home sending that mail and reading none, then the backup
copied back: every mark pbem keeps came back with it, and the mail server's pbem/sent-ids folder, if its pbem kept
none before the backup, looks as it does at a first run after an upgrade (nothing written, mail waiting).  No signal
tells the two apart (docs/architecture.md: a hold at every first run after an upgrade would hold the invitations
`pbem game new` queued), so the moderator says it: README "Backups" gives `pbem poll --restored`, then
`pbem outbox held` and `pbem outbox drop --all` (or `release`).

The generator (`walk`, seeded): games made and polled, the whole home copied at a seeded point with mail waiting
(a new game's invitations, a paused game's notices), the old home polled after it with no mail read, the copy put
back.  Counted: the Message-IDs the old home sent after the backup that the restored home sends again.  The plain poll (the base's only way) sends the waiting
mail again: 12 of 12 walks, `PBEM_UNSEEN_WALKS=12`; the README's commands: 0 of 12, each held mail listed.  The suite
walks one.
"""

from __future__ import annotations

import collections
import mailbox
import os
import random
import re
import shutil
from pathlib import Path
from unittest import mock

import pytest
from typer.testing import CliRunner

from pbem.app import control, games
from pbem.app.cron import run_poll
from pbem.cli import app
from pbem.home import config as config_mod
from pbem.home.app import Home
from pbem.home.config import Config
from pbem.record.db import engine_for
from tests.conftest import CODES, Clock
from tests.test_backup import PLAYERS

WALKS = int(os.environ.get("PBEM_UNSEEN_WALKS", 1))
README = Path(__file__).resolve().parent.parent / "README.md"


def _sent(home: Path) -> collections.Counter[str]:
    md = mailbox.Maildir(str(home / "mail" / "sent"), factory=None, create=False)
    found = (re.search(rb"^Message-ID: *(\S+)", md.get_bytes(k), re.M | re.I) for k in md.iterkeys())
    return collections.Counter(m.group(1).decode() for m in found if m)


def _cli(cfg: Config, *args: str) -> str:
    got = CliRunner().invoke(app, ["--config", str(cfg.path), *args])
    assert got.exit_code == 0, got.output
    return got.output


def walk(cfg: Config, tmp_path: Path, seed: int, said: bool, dump=None) -> tuple[int, int]:
    """One walk: the Message-IDs sent twice after the restore, and the mails the restored home held.  `dump`
    (PostgreSQL, tests/test_postgres_restore_epochs.py): saves the database into a folder and returns what puts it
    back; SQLite's comes back with the home folder."""
    rng = random.Random(seed)
    state = Path(os.environ["XDG_STATE_HOME"])
    clock = Clock()
    h = Home.of(cfg)
    games.create_game(h, "habsburg", "hh1", PLAYERS, seed=f"u{seed}", clock=clock, codes=CODES)
    for _ in range(rng.randint(1, 3)):
        clock.advance(hours=rng.choice((1, 5, 30)))
        run_poll(cfg, clock=clock)
    clock.advance(minutes=10)
    if rng.random() < 0.5:
        games.create_game(h, "habsburg", "hh2", PLAYERS, seed=f"v{seed}", clock=clock, codes=CODES)
    else:
        control.pause(h, "hh1", clock.now)
    engine_for(cfg.database_url).dispose()
    saved = tmp_path / "saved"
    shutil.copytree(cfg.home, saved / "home")  # the user's whole home directory, saved (the state folder too)
    shutil.copytree(state, saved / "state")
    put_back = dump(saved) if dump is not None else None
    for _ in range(rng.randint(1, 3)):  # the old home sends what waited; no mail arrives
        clock.advance(minutes=rng.choice((5, 30, 120)))
        run_poll(cfg, clock=clock)
    engine_for(cfg.database_url).dispose()
    before = set(_sent(saved / "home"))
    gone = set(_sent(cfg.home)) - before  # the mail the old home sent after the backup (the Maildir is the server)
    shutil.rmtree(cfg.home)
    shutil.rmtree(state)
    shutil.copytree(saved / "home", cfg.home)  # the whole home directory restored
    shutil.copytree(saved / "state", state)
    if put_back is not None:
        put_back()
    restored = config_mod.load(cfg.path)
    clock.advance(minutes=10)
    held = 0
    if said:  # the README's command, as the moderator types it (on the walk's clock)
        with mock.patch("pbem.app.cron._system_clock", clock):
            _cli(restored, "poll", "--restored")
        listed = _cli(restored, "outbox", "held")
        held = len(re.findall(r"(?m)^#\d+ ", listed))
        assert held and "pbem outbox drop --all" in listed, listed
        assert "marked sent, not sent again" in _cli(restored, "outbox", "drop", "--all")
        assert _cli(restored, "outbox", "held").startswith("no mail is held")
    else:
        run_poll(restored, clock=clock)
    clock.advance(minutes=10)
    run_poll(restored, clock=clock)
    return len(gone & (set(_sent(restored.home)) - before)), held


@pytest.mark.parametrize("seed", range(WALKS))
def test_the_readmes_command_after_an_unseen_restore_sends_nothing_twice(home, tmp_path, monkeypatch, seed) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    sent_twice, held = walk(home, tmp_path, seed, said=True)
    assert sent_twice == 0 and held > 0, (sent_twice, held)
    flat = re.sub(r"\s+", " ", README.read_text(encoding="utf-8"))
    assert (
        "pbem --config ~/pbem/pbem.toml poll --restored" in flat
        and "pbem outbox held" in flat
        and "pbem outbox drop --all" in flat
    )


@pytest.mark.skipif(WALKS == 1, reason="PBEM_UNSEEN_WALKS=N walks the plain poll too (the class, counted)")
@pytest.mark.parametrize("seed", range(WALKS))
def test_a_plain_poll_after_an_unseen_restore_sends_the_waiting_mail_again(home, tmp_path, monkeypatch, seed) -> None:
    """What the README warns of: no signal, so a plain poll sends again what waited (the check can fail)."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    sent_twice, _ = walk(home, tmp_path, seed, said=False)
    assert sent_twice > 0


def test_poll_restored_with_nothing_waiting_says_what_it_did(home, tmp_path, monkeypatch) -> None:
    """Nothing waiting, nothing to hold: the run still says it went on with a restored database (a moderator who
    typed --restored hears it was taken), and the mail it makes carries a restore epoch."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    clock = Clock()
    games.create_game(Home.of(home), "habsburg", "hh1", PLAYERS, seed="quiet", clock=clock, codes=CODES)
    run_poll(home, clock=clock)
    clock.advance(hours=1)
    with mock.patch("pbem.app.cron._system_clock", clock):
        said = _cli(home, "poll", "--restored")
    assert "--restored: gone on with as a restored database, 0 mail(s) waiting in it, none held" in said, said
    from pbem.record.db import reading
    from pbem.record.home_secrets import restored_at

    with reading(home.database_url) as c:
        assert restored_at(c) is not None

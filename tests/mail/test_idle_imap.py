"""The idle check over IMAP (issue 15): one STATUS against what the last complete poll saw, and the due index.

A real pymap server; `pbem poll` as cron runs it (`pbem.app.cron.run_poll`).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.message import EmailMessage

from pbem.app import games
from pbem.app.cron import run_poll
from pbem.app.idle import nothing_to_do
from pbem.cli.support import init_home
from pbem.home import config as config_mod
from pbem.home.app import Home
from tests.conftest import CODES
from tests.mail.conftest import MODERATOR, USERS

PASSWORD_ENV = "PBEM_TEST_MAIL_PASSWORD"
PLAYERS = [("Alice", "alice@example.test"), ("Bob", "bob@example.test"), ("Carol", "carol@example.test")]


def test_an_idle_imap_poll_is_skipped_until_new_mail_arrives_or_something_is_due(pip_servers, tmp_path, monkeypatch):
    home = tmp_path / "home"
    init_home(home, address=MODERATOR, name="Test Moderator")
    pip_servers.wire_home(home / "pbem.toml", MODERATOR, PASSWORD_ENV)
    monkeypatch.setenv(PASSWORD_ENV, USERS[MODERATOR])
    cfg = config_mod.load(home / "pbem.toml")
    started = datetime.now(UTC)
    games.create_game(Home.of(cfg), "habsburg", "g1", PLAYERS, seed="idle", codes=CODES, clock=lambda: started)

    first = run_poll(cfg)
    assert first.summary is not None and first.summary.sent == 3, "the first reports go out: nothing was seen yet"
    assert run_poll(cfg).skipped.startswith("nothing to do"), "same UIDNEXT, nothing queued, nothing due"

    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "Alice <alice@example.test>", MODERATOR, "[pbem g1] hello"
    msg["Message-ID"] = "<idle-1@example.test>"
    msg.set_content("STATUS")
    pip_servers.deliver(MODERATOR, msg.as_bytes())
    woken = run_poll(cfg)
    assert woken.summary is not None and woken.summary.read == 1, "new mail: UIDNEXT moved"
    assert run_poll(cfg).skipped.startswith("nothing to do")

    # the deadline is 48 h away: the first look at reminders is at the middle of the step
    assert nothing_to_do(Home.of(cfg), started + timedelta(hours=23))
    assert not nothing_to_do(Home.of(cfg), started + timedelta(hours=24, minutes=1))

"""A home restored from a backup, told by the mail server's filed mail (`pbem.app.witness`), over the suite's Dovecot.

The moderator's backup brings back the database and the marks kept on this machine together (the whole home with
the user's state folder), or the home is restored into another folder: `pbem.app.clock.restored` cannot tell, and
on 195235e the poll played on from the backup (the first two tests failed: the run after the restore read the new
mail and answered it from the older game).  The processed folder is on the server, which no backup of the machine
restores.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pbem.app import witness
from pbem.app.cron import Run, run_poll
from pbem.home import config as config_mod
from pbem.mail.transports.seam import TransportError
from pbem.record import db
from tests.mail.conftest import MODERATOR
from tests.mail.test_e2e import World

pytestmark = pytest.mark.dovecot
REFUSED = r"the mail server's processed folder holds 2 mails (and its rejected folder holds 1 mail )?read after this database's last run"
GONE_ON = "gone on with a database older than the mail server's folders: "
TOLD = re.escape(GONE_ON) + REFUSED.replace("this database's", "its")


@pytest.fixture
def world(debian_servers, tmp_path, monkeypatch) -> Iterator[World]:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # this machine's marks, restored with the home
    w = World(debian_servers, tmp_path, monkeypatch)
    with w.readers:
        _, bots = w.new_game("italian-wars", 2)
        w.bots = bots  # type: ignore[attr-defined]
        yield w


def _orders(w: World) -> None:
    """Each player asks for the game's status (accepted: filed in processed), straight into the inbox."""
    for bot in w.bots:  # type: ignore[attr-defined]
        w.servers.deliver(MODERATOR, bot.order_mail(["STATUS"], "g1", MODERATOR, None))


def _poll(w: World, cfg: config_mod.Config | None = None, trust: bool = False) -> Run:
    return run_poll(cfg or w.cfg, clock=lambda: datetime.now(UTC), trust_clock=trust)


def _played_on_from_a_backup(w: World, tmp: Path) -> Path:
    """Orders polled, the home and the state folder copied aside, more orders polled; the backup's folder."""
    _orders(w)
    assert _poll(w).summary is not None
    backup = tmp / "backup"
    shutil.copytree(w.cfg.home, backup / "home")
    shutil.copytree(os.environ["XDG_STATE_HOME"], backup / "state")
    _orders(w)
    assert _poll(w).summary.accepted == 2  # type: ignore[union-attr]
    return backup


def test_the_whole_home_restored_with_the_state_folder_is_refused(world: World, tmp_path: Path) -> None:
    backup = _played_on_from_a_backup(world, tmp_path)
    db.engine_for(world.cfg.database_url).dispose()  # the restore is read as a new process would read it
    db.engine_for.cache_clear()
    for there, kept in ((world.cfg.home, backup / "home"), (Path(os.environ["XDG_STATE_HOME"]), backup / "state")):
        shutil.rmtree(there)
        shutil.copytree(kept, there)
    with pytest.raises(TransportError, match=REFUSED):
        _poll(world)
    with pytest.raises(TransportError, match=REFUSED):  # nothing was written: the same again
        _poll(world)
    trusted = _poll(world, trust=True).summary  # the moderator goes on with it (its mark of the folders kept anew)
    assert trusted is not None and [bool(re.match(TOLD, n)) for n in trusted.told if n.startswith(GONE_ON)] == [True], (
        trusted.told
    )
    _orders(world)
    assert _poll(world).summary.accepted == 2  # type: ignore[union-attr]


def test_the_home_restored_into_another_folder_is_refused(
    world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backup = _played_on_from_a_backup(world, tmp_path)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "another-machine"))
    cfg = config_mod.load(backup / "home" / "pbem.toml")
    assert cfg.database_url != world.cfg.database_url
    with pytest.raises(TransportError, match=REFUSED):
        _poll(world, cfg)
    # walk7: the --trust-clock run that goes on with it said nothing of the mail read after the backup (the two
    # orders the home read since were lost without a word); it tells them now, once
    trusted = _poll(world, cfg, trust=True).summary
    assert trusted is not None and [bool(re.match(TOLD, n)) for n in trusted.told if n.startswith(GONE_ON)] == [True], (
        trusted.told
    )
    again = _poll(world, cfg).summary  # None: a run with nothing to do
    assert again is None or not [n for n in again.told if n.startswith(GONE_ON)], again.told


def test_a_run_that_died_after_filing_is_not_refused(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    _orders(world)
    assert _poll(world).summary is not None
    _orders(world)
    with monkeypatch.context() as m:  # the run's mail committed and filed, its mark of the folders never kept
        m.setattr(witness, "keep", lambda cfg, inbox: None)
        assert _poll(world).summary.accepted == 2  # type: ignore[union-attr]
    _orders(world)
    summary = _poll(world).summary
    assert summary is not None and summary.accepted == 2 and not summary.told


def test_an_old_mail_moved_into_processed_by_hand_is_told_once(world: World) -> None:
    _orders(world)
    assert _poll(world).summary is not None
    old = datetime.now(UTC) - timedelta(days=30)
    raw = (
        b"From: friend@example.test\r\nTo: "
        + MODERATOR.encode()
        + b"\r\nSubject: hi\r\nMessage-ID: <old@x>\r\n\r\nhi\r\n"
    )
    with world.servers.imap(MODERATOR) as client:
        folder = next(f[2] for f in client.list_folders() if f[2].endswith("processed"))
        client.append(folder, raw, msg_time=old)
    _orders(world)
    summary = _poll(world).summary
    assert summary is not None and summary.accepted == 2
    assert summary.told == [
        "the mail server's processed folder holds 1 mail this record never read, which arrived "
        "before its last run (moved there by hand?); nothing else changes"
    ]
    _orders(world)
    summary = _poll(world).summary
    assert summary is not None and not summary.told, "told once"

    with world.servers.imap(MODERATOR) as client:  # a new mail filed there by hand (a mail client's rule): refused
        client.append(folder, raw.replace(b"<old@x>", b"<new@x>"))
    with pytest.raises(TransportError, match="processed folder holds 1 mail read after"):
        _poll(world)
    _poll(world, trust=True)  # told with the way to go on
    assert _poll(world).skipped

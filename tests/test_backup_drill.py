"""README's disaster drill, walked as a moderator: the machine lost, the newest backup restored on a new machine.

The home plays a game by mail; `pbem backup` runs; the game goes on (reports sent, orders read); the machine is
lost, all but the mail server (here the Maildir `mail/`, which over IMAP is another machine) and the backup.  As
README "Restoring into another folder or onto another machine" says: the backup's files copied into a new folder,
its `sent-ids.ledger` added to the new home's ledger, `pbem poll` refused ("the database is not this home's"), the
mail read since the backup put back into the inbox, `pbem poll --trust-clock`, and the players go on replying to
the reports the lost machine sent them.

On 8080c21 the first poll ran (nothing told the moderator the database came from elsewhere).  Now: refused; the
mails read again give the same record (every player's `pbem verify --mail --partial` passes: each report's head,
the lost machine's and the new one's, is on the new record's chain); nothing queued is left unsent; and the
reports the lost machine had sent in answer to the mails read again go out again with the same record head and a
new Date (2 here, one a mail read again): only the lost machine's ledger knew they were sent, README says so.
Until months8 they went under the same Message-ID; now under the restored home's (its restore epoch): no id names
two mails, whatever the new history's mail says (`tests/test_restore_epochs.py`).
"""

from __future__ import annotations

import collections
import mailbox
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.app import games
from pbem.app.cron import run_poll
from pbem.cli import app
from pbem.home import config as config_mod
from pbem.home.app import Home
from pbem.home.config import Config
from pbem.mail.transports.seam import TransportError
from pbem.record import sentlog
from tests.conftest import CODES, Clock, body_of, deliver, order_mail, sent_mail
from tests.test_backup import PLAYERS
from tests.test_backup_restore import KEYS, _outbox

ID = re.compile(rb"^Message-ID: *(\S+)", re.M | re.I)


def _cli(*args: str) -> tuple[int, str]:
    got = CliRunner().invoke(app, list(args))
    return got.exit_code, got.output


def _turn(cfg: Config, clock: Clock) -> list[bytes]:
    """The player asked replies to their newest report with the default orders; a poll.  The mails delivered."""
    newest = {str(m["To"]): m for m in sent_mail(cfg) if "[pbem hh1]" in str(m["Subject"])}
    mails = [
        order_mail(to, "hh1", "NO EVENT\nDISCARD-IF-NEEDED LOWEST", In_Reply_To=str(m["Message-ID"]))
        for to, m in newest.items()
        if "Legal orders now" in body_of(m)
    ]
    for raw in mails:
        deliver(cfg, raw)
    clock.advance(minutes=6)
    run_poll(cfg, clock=clock)
    return mails


def test_the_machine_lost_and_the_newest_backup_restored_on_another(home, tmp_path: Path) -> None:
    clock = Clock()
    games.create_game(Home.of(home), "habsburg", "hh1", PLAYERS, seed="drill", clock=clock, codes=CODES)
    run_poll(home, clock=clock)
    _turn(home, clock)
    assert _cli("backup", str(tmp_path / "backups"), "--name", "nightly", "--config", str(home.path))[0] == 0
    backup = tmp_path / "backups" / "nightly"
    since = _turn(home, clock)  # read after the backup: the lost machine answered it
    assert since

    new = tmp_path / "new-machine" / "pbem"  # README: make the folder, copy the backup's files into it
    new.mkdir(parents=True)
    shutil.copytree(home.home / "mail", new / "mail")  # the mail server, which the machine's loss spares
    for f in (*KEYS, "pbem.db"):
        shutil.copy2(backup / f, new / f)
    (new / sentlog.DIRECTORY).mkdir()
    shutil.copy2(backup / sentlog.LEDGER, new / sentlog.DIRECTORY / sentlog.LEDGER)
    shutil.rmtree(home.home)  # the machine lost
    cfg = config_mod.load(new / "pbem.toml")
    clock.advance(hours=1)
    with pytest.raises(TransportError, match=r"^the database is not this home's: ") as refused:
        run_poll(cfg, clock=clock)
    # walk7: the refusal named the ledgers only, and the order read since the backup was lost without a word
    assert "put the mail read since (in the processed folder" in str(refused.value), refused.value
    processed = mailbox.Maildir(str(new / "mail" / "processed"), factory=None, create=False)
    inbox = mailbox.Maildir(str(new / "mail" / "inbox"), factory=None, create=False)
    wanted = {ID.search(raw).group(1) for raw in since}  # type: ignore[union-attr]
    for key in list(processed.iterkeys()):  # the mail read since the backup, back into the inbox
        if ID.search(processed.get_bytes(key)).group(1) in wanted:  # type: ignore[union-attr]
            inbox.add(processed.get_bytes(key))
            processed.remove(key)
    run_poll(cfg, clock=clock, trust_clock=True)
    _turn(cfg, clock)  # the players go on, replying to the reports the lost machine sent

    sent = mailbox.Maildir(str(new / "mail" / "sent"), factory=None, create=False)
    ids = collections.Counter(ID.search(sent.get_bytes(k)).group(1) for k in sent.iterkeys())  # type: ignore[union-attr]
    assert [m for m, n in ids.items() if n > 1] == [], ids  # months8: no Message-ID the lost machine sent, again
    stems = collections.Counter(re.sub(rb"\.[0-9a-f]{8}@", b"@", m) for m in ids.elements())
    assert sum(1 for n in stems.values() if n > 1) == 2 * len(since), ids  # the answers to the mails read again
    assert [m for m, status in _outbox(cfg.database_url) if status != "sent"] == []
    assert _cli("export", "hh1", "--config", str(cfg.path), "-o", str(tmp_path / "hh1.json"))[0] == 0
    for _, address in PLAYERS:
        box = mailbox.Maildir(str(tmp_path / address), factory=None, create=True)
        for key in sent.iterkeys():
            if re.search(rb"^To: .*<" + re.escape(address.encode()) + rb">", sent.get_bytes(key), re.M):
                box.add(sent.get_bytes(key))
        code, said = _cli("verify", str(tmp_path / "hh1.json"), "--mail", str(tmp_path / address), "--partial")
        assert code == 0 and "record heads on the export's chain" in said, said

"""A backup restored as README "Backups" says, from any point of a game, then polled: nothing sent twice, nothing lost.

The probe: a home mid-game (reports sent, invitations waiting to be sent, a seat resigned, a game paused, a mail in
the inbox not yet read), a backup taken after each step (`POINTS`); for each, the final home restored from it as a
moderator would (cron stopped, `pbem.db-wal` and `-shm` removed, the backup's files copied back), the poll refused
("the database is older than this home"), then `pbem poll --trust-clock` and another poll.  On e5c877a the mails
that were waiting when a backup was taken, and sent since, went out again: 12 Message-IDs sent twice over the 4
restore points (6, 3, 0, 3); the home's ledger of mails sent (`pbem.record.sentlog.LEDGER`, kept outside the
database, in `outbox-sent/`) now marks them sent at the `--trust-clock` run: 0.  Every mail the restored database
holds went out exactly once (nothing lost); the orders read after the backup are not in it, as README says.
"""

from __future__ import annotations

import collections
import mailbox
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from pbem.app import control, games
from pbem.app.cron import run_poll
from pbem.home import config as config_mod
from pbem.home.app import Home
from pbem.home.config import Config
from pbem.mail.transports.seam import TransportError
from pbem.record import sentlog
from pbem.record.db import engine_for, reading
from tests.conftest import CODES, Clock, body_of, deliver, order_mail, sent_mail, signed
from tests.test_backup import PLAYERS, _cli, _count

KEYS = ("game-keys.secret", "outbox.key", "pbem.toml")  # README: copy the files back (and the database)


def _sent_ids(home: Path) -> list[str]:
    md = mailbox.Maildir(str(home / "mail" / "sent"), factory=None, create=False)
    return [re.search(rb"^Message-ID: *(\S+)", md.get_bytes(k), re.M | re.I).group(1).decode() for k in md.iterkeys()]  # type: ignore[union-attr]


def _outbox(url: str) -> list[tuple[str, str]]:
    from sqlalchemy import text

    with reading(url) as c:
        return [(str(m), str(s)) for m, s in c.execute(text("SELECT message_id, status FROM outbox ORDER BY id"))]


def game_day(home: Config, tmp_path: Path) -> tuple[Clock, list[Path]]:
    """The home's day (SQLite or PostgreSQL), a `pbem backup` after each step: the clock, the backups' folders."""
    clock = Clock()
    h = Home.of(home)
    taken = []

    def point(name: str) -> None:
        code, said = _cli("backup", str(tmp_path / "backups"), "--name", name, "--config", str(home.path))
        assert code == 0, said
        taken.append(tmp_path / "backups" / name)

    def poll() -> None:
        clock.advance(minutes=6)
        run_poll(home, clock=clock)

    for name in ("hh1", "hh2"):
        games.create_game(h, "habsburg", name, PLAYERS, seed=name, clock=clock, codes=CODES)
    point("invitations-waiting")
    poll()
    deliver(home, order_mail("Alice <alice@players.test>", "hh1", signed("Alice", "RESIGN")))
    poll()
    (ask,) = [m for m in sent_mail(home) if "RESIGN" in str(m["Subject"])]
    word = re.search(r"RESIGN (\d{6})", body_of(ask)).group(1)  # type: ignore[union-attr]
    deliver(home, order_mail("Alice <alice@players.test>", "hh1", f"RESIGN {word}", In_Reply_To=ask["Message-ID"]))
    poll()
    control.pause(h, "hh2", clock.now)  # its notices waiting
    point("paused-notices-waiting")
    poll()
    deliver(home, order_mail("Bob <bob@players.test>", "hh1", signed("Bob", "STATUS")))
    point("a-mail-unread")
    games.create_game(h, "habsburg", "hh3", PLAYERS, seed="hh3", clock=clock, codes=CODES)
    point("hh3-invitations-waiting")
    poll()
    clock.advance(minutes=6)
    return clock, taken


def fresh_home(home: Config, backup: Path, at: Path, old_ledger: bool) -> Path:
    """The backup restored as README says into a new folder (another folder, another machine): its files copied,
    the ledgers of mails sent added to the new home's as the refusal says (the backup's `sent-ids.ledger`, and with
    `old_ledger` the old home's, which a lost machine takes with it); the mail server's side (the Maildir, which
    over IMAP lives on another machine) as it stands at the day's end."""
    at.mkdir()
    shutil.copytree(home.home / "mail", at / "mail")
    for f in KEYS:
        shutil.copy2(backup / f, at / f)
    ledger = at / sentlog.DIRECTORY / sentlog.LEDGER
    ledger.parent.mkdir()
    with open(ledger, "ab") as out:
        for part in [backup / sentlog.LEDGER, *([home.home / sentlog.DIRECTORY / sentlog.LEDGER] * old_ledger)]:
            if part.is_file():
                out.write(part.read_bytes())
    return at


def restored_from_each(
    home: Config,
    clock: Clock,
    taken: list[Path],
    tmp_path: Path,
    database: Callable[[Path, Path], None],
    elsewhere: bool = False,
    old_ledger: bool = True,
) -> tuple[dict[str, int], dict[str, int]]:
    """For each backup: the home at the day's end copied (or with `elsewhere` a new folder, `fresh_home`), the
    backup restored into it as README says (`database` puts the backup's database back), the poll, refused, then
    `--trust-clock` (a poll not refused is the moderator's cron going on: no `--trust-clock`), one more poll; the
    Message-IDs sent twice and the mails the restored database holds that never went out, by backup, and each
    backup not refused counted under "not refused"."""
    engine_for(home.database_url).dispose()  # cron stopped
    twice: dict[str, int] = {}  # Message-IDs sent twice
    lost: dict[str, int] = {"not refused": 0}  # mails the restored database holds that never went out
    refusal = r"^the database is not this home's: " if elsewhere else r"^the database is older than this home"
    for backup in taken:
        if elsewhere:
            copy = fresh_home(home, backup, tmp_path / f"fresh-{backup.name}", old_ledger)
        else:
            copy = Path(shutil.copytree(home.home, tmp_path / f"home-{backup.name}"))  # the home at the day's end
            for f in ("pbem.db-wal", "pbem.db-shm"):
                (copy / f).unlink(missing_ok=True)
            for f in KEYS:
                shutil.copy2(backup / f, copy / f)
        database(backup, copy)
        cfg = config_mod.load(copy / "pbem.toml")
        assert cfg.home == copy and cfg.maildir_path == copy / "mail", cfg.home
        try:
            run_poll(cfg, clock=clock)
            lost["not refused"] += 1
        except TransportError as exc:
            assert re.match(refusal, str(exc)), exc
            run_poll(cfg, clock=clock, trust_clock=True)
        clock.advance(minutes=6)
        run_poll(cfg, clock=clock)
        sent = collections.Counter(_sent_ids(copy))
        twice[backup.name] = sum(1 for n in sent.values() if n > 1)
        lost[backup.name] = sum(1 for m, status in _outbox(cfg.database_url) if status != "sent" or not sent[m])
        engine_for(cfg.database_url).dispose()
    return twice, lost


def test_a_backup_restored_from_any_point_sends_nothing_twice_and_loses_nothing(home, tmp_path: Path) -> None:
    clock, taken = game_day(home, tmp_path)

    def sqlite(backup: Path, copy: Path) -> None:
        shutil.copy2(backup / "pbem.db", copy / "pbem.db")

    twice, lost = restored_from_each(home, clock, taken, tmp_path, sqlite)
    assert (twice, lost) == (dict.fromkeys(twice, 0), dict.fromkeys(lost, 0)), (twice, lost)
    assert _count(home.home / "pbem.db") == 3  # (the home itself read all three mails)


def test_a_backup_restored_into_a_new_folder_sends_nothing_twice(home, tmp_path: Path) -> None:
    """The same 4 backups, each restored into a new folder (`fresh_home`: another folder or another machine) with
    the old home's ledger added as the refusal says.  On 8080c21 no poll was refused (a new folder has no mark of
    its polls), so no `--trust-clock` ran and nothing read a ledger: 12 Message-IDs went out twice over the 4
    points (6, 3, 0, 3).  Now the database keeps that a poll marked its home (`marks.HOME_MARKED`): refused at 4
    of 4, and 0 sent twice, none lost.  (Without the old home's ledger, a machine lost with it: the next test.)"""
    clock, taken = game_day(home, tmp_path)

    def sqlite(backup: Path, copy: Path) -> None:
        shutil.copy2(backup / "pbem.db", copy / "pbem.db")

    twice, lost = restored_from_each(home, clock, taken, tmp_path, sqlite, elsewhere=True)
    assert (twice, lost) == (dict.fromkeys(twice, 0), dict.fromkeys(lost, 0)), (twice, lost)


def test_a_backup_carries_the_mails_a_sender_had_sent_and_no_poll_had_folded(home, tmp_path: Path) -> None:
    """A backup made while a sender ran: the mails it had sent are in its journal (`outbox-sent/*.sent`), not yet
    folded, and the copy holds them as waiting.  The backup's `sent-ids.ledger` (read after the copy) names them,
    so a restore into a new folder with that ledger alone, the old machine lost, marks them sent at `--trust-clock`:
    on 8080c21 the backup kept no ledger and all 3 went out again; now 0."""
    clock = Clock()
    games.create_game(Home.of(home), "habsburg", "hh1", PLAYERS, seed="journal", clock=clock, codes=CODES)
    waiting = [i for i, _ in enumerate(_outbox(home.database_url), start=1)]
    journal = home.home / sentlog.DIRECTORY / "another-host-4242-1.sent"  # a sender whose lines no poll folded
    journal.parent.mkdir(exist_ok=True)
    journal.write_text("".join(f"{i}\n" for i in waiting))
    code, said = _cli("backup", str(tmp_path / "b"), "--name", "mid-send", "--config", str(home.path))
    assert code == 0 and "sent-ids.ledger" in said, said
    backup = tmp_path / "b" / "mid-send"
    assert sorted(int(n) for n in (backup / sentlog.LEDGER).read_text().split()) == waiting
    journal.unlink()
    copy = fresh_home(home, backup, tmp_path / "fresh", old_ledger=False)
    shutil.copy2(backup / "pbem.db", copy / "pbem.db")
    cfg = config_mod.load(copy / "pbem.toml")
    with pytest.raises(TransportError, match=r"^the database is not this home's: "):
        run_poll(cfg, clock=clock)
    run_poll(cfg, clock=clock, trust_clock=True)
    assert _sent_ids(copy) == [] and {s for _, s in _outbox(cfg.database_url)} == {"sent"}


def test_a_backup_restored_on_another_machine_without_the_old_ledger_sends_nothing_twice(home, tmp_path: Path) -> None:
    """The machine lost with its ledger (months7): the same 4 backups restored into a new folder with the backup's
    `sent-ids.ledger` alone (the old home's went with the machine) and the Maildir, which stands for the mail
    server.  On 4da2cbd6 the mails waiting when each backup was made, and sent since, went out again: 12
    Message-IDs sent twice over the 4 points (6, 3, 0, 3).  Now the `--trust-clock` run looks each waiting mail up
    in the mail server's witness of what was sent (`pbem.app.sent_witness`: here the Maildir's `sent` folder):
    0 sent twice, none lost (each found there is marked sent; the rest were proved unsent and went out)."""
    clock, taken = game_day(home, tmp_path)

    def sqlite(backup: Path, copy: Path) -> None:
        shutil.copy2(backup / "pbem.db", copy / "pbem.db")

    twice, lost = restored_from_each(home, clock, taken, tmp_path, sqlite, elsewhere=True, old_ledger=False)
    assert (twice, lost) == (dict.fromkeys(twice, 0), dict.fromkeys(lost, 0)), (twice, lost)


def test_a_backup_restored_without_the_old_maildir_holds_what_it_cannot_prove_unsent(home, tmp_path: Path) -> None:
    """The machine lost with its Maildir too (the witness over Maildir): the backup made while the paused game's
    notices waited, restored into a new folder with its own files alone.  On 4da2cbd6 the `--trust-clock` run
    sent the 3 notices again (the old home had sent them); now nothing can prove them unsent: they are held, the
    run's note says so with the commands, and `pbem outbox drop --all` (the old home sent them) sends nothing."""
    clock, taken = game_day(home, tmp_path)
    backup = next(b for b in taken if b.name == "paused-notices-waiting")
    engine_for(home.database_url).dispose()
    at = tmp_path / "bare"
    at.mkdir()
    for f in (*KEYS, "pbem.db"):
        shutil.copy2(backup / f, at / f)
    (at / sentlog.DIRECTORY).mkdir()
    shutil.copy2(backup / sentlog.LEDGER, at / sentlog.DIRECTORY / sentlog.LEDGER)
    cfg = config_mod.load(at / "pbem.toml")
    with pytest.raises(TransportError, match=r"^the database is not this home's: "):
        run_poll(cfg, clock=clock)
    run = run_poll(cfg, clock=clock, trust_clock=True)
    assert run.summary is not None
    (note,) = [n for n in run.summary.told if "are held" in n]
    assert note.startswith("3 mail(s) waiting in this database when it was saved may have gone out since (")
    assert "pbem outbox release --all" in note and "pbem outbox drop --all" in note, note
    assert _sent_ids(at) == [] and collections.Counter(s for _, s in _outbox(cfg.database_url))["held"] == 3
    code, said = _cli("outbox", "drop", "--all", "--config", str(cfg.path))
    assert code == 0 and "marked sent, not sent again" in said, said
    clock.advance(minutes=6)
    run_poll(cfg, clock=clock)
    assert _sent_ids(at) == [] and {s for _, s in _outbox(cfg.database_url)} == {"sent"}

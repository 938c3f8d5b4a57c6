"""A database older than its home (a backup restored while games run, or `[database] url` naming another): found.

Before, the poll played on from the older point without a word (found by this file): the orders it had read and
acknowledged since, and the reports whose receipts the players hold, were gone from the record, and the next
moves forked the history the players were sent; a backup older than `outage_after` was even taken for an outage.
Now every poll keeps its start in the home too (`.pbem-last-run`, written at most every 10 minutes), and a
database whose newest poll is older than that is refused in one line (exit 3) until `pbem poll --trust-clock`.
Restoring the whole home (its folder: the database and `.pbem-last-run` together) was not caught (judges3): this
machine's mark of the folder, in the user's state folder (`$XDG_STATE_HOME/pbem`), is now read as well.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from pbem.app import games
from pbem.app.clock import HOME_MARK, MARK_EVERY, machine_mark_file
from pbem.app.cron import run_poll
from pbem.home.app import Home
from pbem.mail.transports.seam import TransportError
from tests.conftest import CODES, deliver, order_mail

PLAYERS = [("Alice", "alice@players.test"), ("Bob", "bob@players.test"), ("Carol", "carol@players.test")]


def _copy(source: str, target: str) -> None:
    """SQLite's own backup (`sqlite3 pbem.db ".backup FILE"`, and `.restore` back)."""
    import sqlite3

    with sqlite3.connect(source) as a, sqlite3.connect(target) as b:
        a.backup(b)
    a.close()
    b.close()


def _read(cfg) -> int:
    """How many inbound messages the record holds."""
    import sqlite3

    with sqlite3.connect(cfg.database_url.removeprefix("sqlite:///")) as c:
        n = int(c.execute("SELECT count(*) FROM inbound_messages").fetchone()[0])
    c.close()
    return n


def test_a_database_restored_from_an_older_backup_is_refused_until_the_moderator_says_so(home, clock) -> None:
    games.create_game(Home.of(home), "habsburg", "hh1", PLAYERS, seed="restored", clock=clock, codes=CODES)
    run_poll(home, clock=clock)
    db = home.database_url.removeprefix("sqlite:///")
    _copy(db, db + ".backup")  # the nightly backup, as README "Backups" takes it
    for _ in range(4):  # cron goes on: idle runs, and one with an order (a player's acknowledged AWAY)
        clock.advance(minutes=5)
        run_poll(home, clock=clock)
    deliver(home, order_mail("Alice <alice@players.test>", "hh1", "CODE AAAA-2222\nAWAY 3"))
    clock.advance(minutes=5)
    run_poll(home, clock=clock)
    assert _read(home) == 1 and (home.home / HOME_MARK).is_file()

    _copy(db + ".backup", db)  # restored while the games run
    clock.advance(minutes=5)
    with pytest.raises(TransportError, match=r"^the database is older than this home: its newest poll ran at"):
        run_poll(home, clock=clock)
    clock.advance(hours=7)  # longer than outage_after: still no outage, and nothing was done
    with pytest.raises(TransportError, match="run once: pbem poll --trust-clock"):
        run_poll(home, clock=clock)
    assert _read(home) == 0
    run_poll(home, clock=clock, trust_clock=True)  # the moderator goes on with it
    clock.advance(minutes=5)
    run_poll(home, clock=clock)


def test_cron_runs_write_the_mark_seldom_and_never_refuse_themselves(home, clock) -> None:
    games.create_game(Home.of(home), "habsburg", "hh1", PLAYERS, seed="restored", clock=clock, codes=CODES)
    machine = machine_mark_file(home.home)
    assert machine is not None
    marks = (home.home / HOME_MARK, machine)
    writes: list[tuple[int, ...]] = []
    for _ in range(30):
        run_poll(home, clock=clock)
        writes.append(tuple(m.stat().st_mtime_ns for m in marks))
        clock.advance(minutes=2)
    for i in range(len(marks)):  # every 10 minutes at most, each
        assert len({w[i] for w in writes}) <= 30 * 2 // (MARK_EVERY // timedelta(minutes=1)) + 1


def test_the_cli_says_it_in_one_line(home, clock) -> None:
    from typer.testing import CliRunner

    from pbem.cli import app

    runner = CliRunner()
    toml = str(home.path)
    assert runner.invoke(app, ["poll", "-c", toml]).exit_code == 0
    (home.home / HOME_MARK).write_text("2999-01-01T00:00:00+00:00\n")  # a home whose database went back
    got = runner.invoke(app, ["poll", "-c", toml])
    said = got.output.splitlines()[-1]  # (the log's own line on stderr before it)
    assert got.exit_code == 3 and said.startswith("pbem: the database is older than this home"), got.output
    assert runner.invoke(app, ["poll", "--trust-clock", "-c", toml]).exit_code == 0
    assert runner.invoke(app, ["poll", "-c", toml]).exit_code == 0


def test_the_whole_home_restored_is_refused_too_by_this_machines_mark(home, clock) -> None:
    """The home's folder backed up whole (the database, `.pbem-last-run`, the key files, the Maildir) and put back
    while games run: both marks in it went back with it, and the poll played on from the backup's time without a
    word (judges3).  This machine's mark of the folder, in the user's state folder, did not go back: refused."""
    import shutil

    from pbem.record.db import engine_for

    games.create_game(Home.of(home), "habsburg", "hh1", PLAYERS, seed="restored", clock=clock, codes=CODES)
    run_poll(home, clock=clock)
    backup = home.home.with_name("backup")
    shutil.copytree(home.home, backup)  # the nightly backup of the whole folder
    for _ in range(3):
        clock.advance(minutes=6)
        run_poll(home, clock=clock)
    deliver(home, order_mail("Alice <alice@players.test>", "hh1", "CODE AAAA-2222\nAWAY 3"))
    clock.advance(minutes=6)
    run_poll(home, clock=clock)
    assert _read(home) == 1
    machine = machine_mark_file(home.home)
    assert machine is not None and machine.is_file() and str(home.home.resolve()) in machine.read_text()

    shutil.rmtree(home.home)
    shutil.copytree(backup, home.home)  # restored whole
    engine_for(home.database_url).dispose()  # this process's connections held the files the restore replaced
    clock.advance(minutes=5)
    with pytest.raises(TransportError, match=r"^the database is older than this home: .* this machine's mark"):
        run_poll(home, clock=clock)
    assert _read(home) == 0
    run_poll(home, clock=clock, trust_clock=True)  # the moderator goes on with it
    clock.advance(minutes=5)
    run_poll(home, clock=clock)


def test_a_new_home_made_again_in_the_same_folder_is_not_taken_for_a_restore(tmp_path, clock) -> None:
    """This machine's mark names a folder, not a database: a home made anew there (`pbem init` after the folder
    was deleted) has seen no poll, and is not refused for the old home's polls."""
    import shutil

    from pbem.cli.support import init_home
    from pbem.home import config as config_mod
    from pbem.record.db import engine_for

    cfg = config_mod.load(init_home(tmp_path / "home", address="moderator@pbem.test"))
    run_poll(cfg, clock=clock)
    clock.advance(hours=1)
    run_poll(cfg, clock=clock)
    shutil.rmtree(cfg.home)
    engine_for(cfg.database_url).dispose()
    cfg = config_mod.load(init_home(tmp_path / "home", address="moderator@pbem.test"))
    clock.advance(minutes=5)
    run_poll(cfg, clock=clock)
    clock.advance(minutes=5)
    run_poll(cfg, clock=clock)

"""`pbem backup DEST` and `pbem backup --check DIR` (pbem.app.backup, pbem.app.backup_check, pbem.record.backup).

Before, README "Backups" told the moderator to run `sqlite3 pbem.db ".backup ..."` (the sqlite3 program may not be
installed) and to keep `game-keys.secret` and `outbox.key` with it: a database copied alone could sign none of its
games nor check a player's code, and a `cp pbem.db` during a poll missed what the poll wrote in `pbem.db-wal`.
Here: the copy is one commit of the record while another connection, or a real poll, writes; a restored backup
reads every game, and the poll refuses it as README "Restoring a backup while games run" says; a damaged backup
(a byte changed, a file missing, another home's key file) is named by `--check`, exit 1; the folder is 0700 and
its files 0600 under umask 022; DEST is refused as given, exit 2, and a copy past its deadline leaves nothing.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import sqlite3
import stat
import subprocess
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.app import backup_check, games
from pbem.app.backup import MANIFEST, dated, digest, take
from pbem.app.backup_check import check
from pbem.app.cron import run_poll
from pbem.cli import app
from pbem.home import config as config_mod
from pbem.home.app import Home
from pbem.home.config import Config
from pbem.mail.transports.seam import TransportError
from pbem.record import backup as record_backup
from pbem.record import sealing
from pbem.record.db import engine_for
from pbem.record.store import now_utc
from tests.conftest import CODES, deliver, order_mail

PLAYERS = [("Alice", "alice@players.test"), ("Bob", "bob@players.test"), ("Carol", "carol@players.test")]


def _count(db: Path, table: str = "inbound_messages") -> int:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
        n = int(c.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
    c.close()
    return n


def _cli(*args: str) -> tuple[int, str]:
    got = CliRunner().invoke(app, list(args))
    return got.exit_code, got.output


def test_the_copy_is_one_commit_while_another_connection_commits_between_its_steps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each look at the deadline (after every step of 4 pages) commits a row from another connection: the copy
    holds exactly the rows of its start, those still in the WAL included, and the source all of them."""
    source, target = tmp_path / "a.db", tmp_path / "b.db"
    writer = sqlite3.connect(source, isolation_level=None)
    writer.execute("PRAGMA journal_mode = WAL")
    writer.execute("PRAGMA synchronous = OFF")
    writer.execute("PRAGMA wal_autocheckpoint = 0")  # every row stays in a.db-wal: a copy of a.db alone has none
    writer.execute("CREATE TABLE t (x BLOB)")
    writer.executemany("INSERT INTO t VALUES (?)", [(os.urandom(2000),) for _ in range(200)])
    wrote = []

    def clock() -> float:
        writer.execute("INSERT INTO t VALUES (?)", (os.urandom(2000),))
        wrote.append(1)
        return 0.0

    monkeypatch.setattr(record_backup, "monotonic", clock)
    record_backup.copy_sqlite(source, target, deadline=1.0, step=4)
    assert len(wrote) > 20, wrote  # the copy took that many steps, a commit between each two
    assert _count(target, "t") == 200 and _count(source, "t") == 200 + len(wrote)
    assert record_backup.opened(target).problems == []
    writer.close()


def test_a_copy_past_its_deadline_stops_and_the_command_leaves_nothing(home, monkeypatch: pytest.MonkeyPatch) -> None:
    games.create_game(Home.of(home), "habsburg", "hh1", PLAYERS, seed="late", codes=CODES)
    monkeypatch.setattr(record_backup, "STEP", 1)
    code, said = _cli("backup", str(home.home.parent / "backups"), "--within", "0", "--config", str(home.path))
    assert code == 3 and said.startswith("pbem: the copy of the database had 1 of "), said
    assert "no backup was made (nothing is left of it); give --within more seconds" in said, said
    assert list((home.home.parent / "backups").iterdir()) == []


def test_a_backup_taken_while_a_poll_writes_is_whole_and_consistent(
    home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real poll of 15 mails on its own thread; backups taken one after another until it ends (a step a page)."""
    games.create_game(Home.of(home), "habsburg", "hh1", PLAYERS, seed="during", codes=CODES)
    for i in range(5):
        for who, address in PLAYERS:
            deliver(home, order_mail(f"{who} <{address}>", "hh1", f"CODE {CODES[who]}\nSTATUS\nnote {i}"))
    monkeypatch.setattr(record_backup, "STEP", 1)
    db = tmp_path / "home" / "pbem.db"
    poll = threading.Thread(target=run_poll, args=(home,))
    poll.start()
    taken = []
    while poll.is_alive() or not taken:
        before = _count(db)
        got = take(home, tmp_path / "backups", f"b{len(taken)}", now_utc(), 30)
        taken.append((before, got.folder, _count(db)))
    poll.join()
    assert _count(db) == 15
    for before, folder, after in taken:
        assert before <= _count(folder / "pbem.db") <= after, (before, folder, after)
        assert check(folder).ok, check(folder).lines
    # Whether a copy caught the poll between two commits is up to the scheduler (on an idle machine several do; at a
    # load of 9 all eight copies of one run were made before its first commit): the copy's consistency while
    # another connection commits between its steps is shown without timing by the test above.


def test_a_restored_backup_reads_every_game_and_the_poll_refuses_it_until_told(home, clock, tmp_path: Path) -> None:
    made = Home.of(home)
    for name in ("hh1", "hh2"):
        games.create_game(made, "habsburg", name, PLAYERS, seed=name, clock=clock, codes=CODES)
    run_poll(home, clock=clock)
    taken = take(home, tmp_path / "backups", "nightly", clock.now, 30)
    deliver(home, order_mail("Alice <alice@players.test>", "hh1", "CODE AAAA-2222\nAWAY 3"))
    for _ in range(3):  # cron goes on after the backup and reads Alice's AWAY
        clock.advance(minutes=6)
        run_poll(home, clock=clock)
    assert _count(home.home / "pbem.db") == 1
    _every_file_of_the_home_is_saved_or_the_readme_says_why_not(home.home, taken.folder)
    code, said = _cli("backup", "--check", str(taken.folder))
    assert code == 0 and said.rstrip().endswith("is complete and intact"), said
    assert "game-keys.secret: opens the sealed signing key of every game (2 games)" in said, said

    engine_for(home.database_url).dispose()  # cron stopped; the moderator copies the backup's files back
    for f in ("pbem.db-wal", "pbem.db-shm"):
        (home.home / f).unlink(missing_ok=True)
    for f in ("pbem.db", "game-keys.secret", "outbox.key", "pbem.toml"):
        shutil.copy2(taken.folder / f, home.home / f)
    assert _count(home.home / "pbem.db") == 0
    assert [g.name for g in games.list_games(made)] == ["hh1", "hh2"]
    assert all(games.show_game(made, g).name == g for g in ("hh1", "hh2"))
    clock.advance(minutes=6)
    with pytest.raises(TransportError, match=r"^the database is older than this home: its newest poll ran at"):
        run_poll(home, clock=clock)
    run_poll(home, clock=clock, trust_clock=True)  # the moderator goes on with it: Alice's AWAY is read again
    clock.advance(minutes=6)
    run_poll(home, clock=clock)


#: What a used home holds that `pbem backup` leaves out, each named in README "Backups" with the reason.
LEFT_OUT = (
    "mail/",
    ".pbem-last-run",
    ".pbem-home",
    ".pbem-poll.lock",
    "outbox-sent/",
    "pbem.db-wal",
    "pbem.db-shm",
    "cron.log",
)


def _every_file_of_the_home_is_saved_or_the_readme_says_why_not(home: Path, folder: Path) -> None:
    """README: "saves the whole home". A home after polls holds only what the backup holds and what README
    "Backups" names as left out; on 7f9524d it named `mail/` only (`outbox-sent/`, `.pbem-poll.lock` unnamed), so a
    new file in the home fails here until it is saved (pbem/app/backup.py) or the README says why it is not."""
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    backups = re.sub(r"\s+", " ", readme[readme.index("* **Backups.**") : readme.index("* **Upgrades.**")])
    saved = {p.name for p in folder.iterdir()}
    held = {p.name + "/" if p.is_dir() else p.name for p in home.iterdir()}
    assert held - saved - set(LEFT_OUT) == set(), "files of the home neither saved nor named as left out"
    assert [name for name in LEFT_OUT if f"`{name}`" not in backups] == [], "left out, and README Backups is silent"


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Config, Path]:
    """A home with one game, and its backup taken under umask 022 (the tests that damage one copy it)."""
    from pbem.cli.support import init_home

    root = tmp_path_factory.mktemp("backup")
    home = config_mod.load(init_home(root / "home", address="moderator@pbem.test"))
    games.create_game(Home.of(home), "habsburg", "hh1", PLAYERS, seed="one", codes=CODES)
    old = os.umask(0o022)
    try:
        code, said = _cli("backup", str(root / "backups"), "--name", "one", "--config", str(home.path))
    finally:
        os.umask(old)
    assert code == 0 and said.startswith(f"backup made: {root / 'backups' / 'one'} ("), said
    return home, root / "backups" / "one"


@pytest.fixture
def one(made: tuple[Config, Path]) -> Path:
    return made[1]


def test_the_backup_is_private_under_umask_022_and_holds_the_whole_home(one: Path) -> None:
    assert stat.S_IMODE(one.stat().st_mode) == 0o700
    names = sorted(p.name for p in one.iterdir())
    assert names == ["game-keys.secret", MANIFEST, "outbox.key", "pbem.db", "pbem.toml"]
    assert all(stat.S_IMODE((one / n).stat().st_mode) == 0o600 for n in names)
    manifest = json.loads((one / MANIFEST).read_text())
    assert manifest["schema"] == record_backup.opened(one / "pbem.db").revision is not None
    assert manifest["files"]["pbem.db"] == digest(one / "pbem.db")


def _damaged(one: Path, tmp_path: Path, how: str) -> Path:
    bad = Path(shutil.copytree(one, tmp_path / how))
    if how == "byte":
        with open(bad / "pbem.db", "r+b") as f:
            f.seek(5000)
            b = f.read(1)
            f.seek(5000)
            f.write(bytes([b[0] ^ 1]))
    elif how == "missing":
        (bad / "game-keys.secret").unlink()
    elif how == "other-key":  # another home's key file, its manifest line made to match: the keys name it
        (bad / "game-keys.secret").write_text(os.urandom(32).hex() + "\n")
        manifest = json.loads((bad / MANIFEST).read_text())
        manifest["files"]["game-keys.secret"] = digest(bad / "game-keys.secret")
        (bad / MANIFEST).write_text(json.dumps(manifest))
    elif how == "no-manifest":
        (bad / MANIFEST).unlink()
    return bad


@pytest.mark.parametrize(
    ("how", "named"),
    [
        ("byte", "pbem.db: changed since the backup (its size or SHA-256 is not the manifest's)"),
        ("missing", "game-keys.secret: missing (the manifest names it)"),
        ("other-key", "game-keys.secret: does not open the signing keys of 1 of 1 game (hh1): it is another home's"),
        ("no-manifest", "manifest.json does not exist: no pbem backup, or one that did not finish"),
    ],
)
def test_a_damaged_backup_is_named_by_check(one: Path, tmp_path: Path, how: str, named: str) -> None:
    code, said = _cli("backup", "--check", str(_damaged(one, tmp_path, how)))
    assert code == 1 and named in said, said
    assert said.rstrip().endswith(("is incomplete or damaged: 1 problem above", "2 problems above")), said


def test_dest_is_refused_as_given_and_nothing_is_overwritten(made: tuple[Config, Path], tmp_path: Path) -> None:
    home, one = made
    before = digest(one / "pbem.db")
    (tmp_path / "a-file").write_text("x")
    config = ("--config", str(home.path))
    for args, why in [
        ((str(one.parent), "--name", "one", *config), "exists: pbem never overwrites a backup"),
        ((str(tmp_path / "a-file"), *config), "is a file, not a folder"),
        ((str(one.parent), "--name", "../up", *config), "is no plain name"),
        ((), "give either DEST (the folder to make a backup in) or --check DIR"),
        ((str(one.parent), "--check", str(one)), "give either DEST"),
    ]:
        code, said = _cli("backup", *args)
        assert code == 2 and why in said and said.count("\n") == 1, (args, said)
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    if os.geteuid() != 0:  # root writes anywhere
        code, said = _cli("backup", str(locked), *config)
        assert code == 2 and f"{locked}: cannot make a backup there: Permission denied" in said, said
    stopped = tmp_path / "b"
    (stopped / ".pbem-x.999.tmp").mkdir(parents=True)  # a run killed half-way left its folder, just now
    code, said = _cli("backup", str(stopped), *config)
    assert code == 0 and said.startswith(f"note: {stopped} holds unfinished backups of runs going or stopped less "), (
        said
    )
    code, said = _cli("backup", "--check", str(tmp_path / "a-file"))
    assert code == 2 and "is no folder" in said, said
    assert digest(one / "pbem.db") == before and sorted(p.name for p in one.parent.iterdir()) == ["one"]
    code, said = _cli("backup", str(tmp_path / "a-file" / "under"), *config)  # a file on the way
    assert code == 2 and "cannot make a backup there: Not a directory" in said, said
    assert sealing.FILE in {p.name for p in one.iterdir()}


def test_any_byte_changed_in_any_file_is_named_by_check(one: Path) -> None:
    """A generator: one bit flipped at 12 places spread over each file the manifest names (the database, both
    key files, pbem.toml), each time checked and put back: every one is named, the file by its name."""
    files = sorted(json.loads((one / MANIFEST).read_text())["files"])
    assert files == ["game-keys.secret", "outbox.key", "pbem.db", "pbem.toml"]
    missed = []
    for name in files:
        path = one / name
        whole = path.read_bytes()
        for k in range(12):
            at = k * (len(whole) - 1) // 11
            path.write_bytes(whole[:at] + bytes([whole[at] ^ 0x10]) + whole[at + 1 :])
            got = check(one)
            if got.ok or not any(line.startswith(f"{name}: changed since the backup") for line in got.wrong):
                missed.append((name, at))
        path.write_bytes(whole)
    assert missed == [] and check(one).ok, missed


def test_a_backups_schema_is_told_as_this_pbems_older_or_unknown() -> None:
    """`pbem backup` and `--check` say how this pbem stands to the schema saved: an older one is brought up by
    `pbem upgrade` after restoring; one it does not know was written by a newer pbem (upgrading cannot help)."""
    from pbem.record.schema import _revisions, head_revisions, standing

    revisions, _ = _revisions()
    (head,) = head_revisions()
    assert standing(head) == "this pbem's"
    assert all(standing(r).startswith("older than this pbem's: run pbem upgrade") for r in revisions - {head})
    assert standing("9999_newer").startswith("not one this pbem knows (written by a newer pbem?)")
    assert standing(None).startswith("not one this pbem knows")


def _unreadable(one: Path, tmp_path: Path, how: str) -> Path:
    """A copy of the backup whose database's games cannot be read, its manifest made to match (so that only that
    is wrong): the file cut short, bytes that are no database, an empty file, a SQLite file with no pbem tables,
    a pg_dump in its place, or no database at all."""
    bad = Path(shutil.copytree(one, tmp_path / how))
    manifest = json.loads((bad / MANIFEST).read_text())
    db = bad / "pbem.db"
    if how == "cut-short":
        db.write_bytes(db.read_bytes()[: 3 * 4096 + 100])
    elif how == "not-sqlite":
        db.write_bytes(b"not a database\n" * 400)
    elif how == "empty":
        db.write_bytes(b"")
    elif how == "other-sqlite":
        db.unlink()
        with sqlite3.connect(db) as c:
            c.execute("CREATE TABLE notes (x TEXT)")
        c.close()
    elif how == "pg-dump":
        db.rename(bad / "pbem.pgdump")
        del manifest["files"]["pbem.db"]
        manifest |= {"database": "postgresql", "database_file": "pbem.pgdump"}
    elif how == "none":
        db.unlink()
        del manifest["files"]["pbem.db"]
        manifest |= {"database": "postgresql", "database_file": None}
    for name in manifest["files"]:
        manifest["files"][name] = digest(bad / name)
    if how == "pg-dump":
        manifest["files"]["pbem.pgdump"] = digest(bad / "pbem.pgdump")
    (bad / MANIFEST).write_text(json.dumps(manifest))
    return bad


def test_a_key_file_is_never_said_to_open_the_keys_of_games_no_database_was_read_for(one: Path, tmp_path: Path) -> None:
    """A generator of six databases `--check` cannot read its games from: on 7f9524d each said "game-keys.secret:
    opens the sealed signing key of every game (0 games)", an all-clear for keys nobody compared (6 of 6).  Now
    the key file is said to hold a key, and that it was not compared; the intact backup still opens its game's."""
    wrong = []
    for how in ("cut-short", "not-sqlite", "empty", "other-sqlite", "pg-dump", "none"):
        got = check(_unreadable(one, tmp_path, how))
        said = "\n".join(got.lines)
        if "opens the sealed signing key" in said or (
            "game-keys.secret: holds a key; not checked against the games' signing keys" not in said
        ):
            wrong.append((how, said))
    assert wrong == [], wrong
    assert "game-keys.secret: opens the sealed signing key of every game (1 game)" in check(one).lines


def _matched(bad: Path) -> None:
    """The manifest of the backup `bad` made to name its files as they are now (only what was damaged is wrong)."""
    manifest = json.loads((bad / MANIFEST).read_text())
    manifest["files"] = {p.name: digest(p) for p in sorted(bad.iterdir()) if p.name != MANIFEST}
    (bad / MANIFEST).write_text(json.dumps(manifest))


def test_an_outbox_key_that_opens_no_sealed_mail_is_named_by_check(one: Path, tmp_path: Path) -> None:
    """A generator of eight outbox.key files that cannot open the three invitations waiting to be sent (sealed: they
    carry the players' codes), each with its manifest made to match: another home's key, a character changed at six
    places (still a key), the file left out.  On 9fb0ae7 all eight read as intact ("outbox.key: holds a key"), and a
    restored home would have sent the players' codes redacted."""
    from cryptography.fernet import Fernet

    key = (one / "outbox.key").read_bytes().strip()
    alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    swapped = [
        key[:at] + bytes([alphabet[(alphabet.index(key[at]) + 1) % 64]]) + key[at + 1 :] for at in range(0, 42, 7)
    ]
    cases = {"other": Fernet.generate_key(), **{f"char{k}": b for k, b in enumerate(swapped)}, "left-out": None}
    missed = []
    for how, new in cases.items():
        bad = Path(shutil.copytree(one, tmp_path / how))
        if new is None:
            (bad / "outbox.key").unlink()
        else:
            (bad / "outbox.key").write_bytes(new + b"\n")
        _matched(bad)
        got = check(bad)
        if got.ok or [line for line in got.wrong if not line.startswith("outbox.key: ")]:
            missed.append((how, got.lines))
    assert missed == [], missed
    code, said = _cli("backup", "--check", str(tmp_path / "other"))
    assert code == 1 and "outbox.key: does not open 3 of the 3 sealed mails tried (3 mails waiting to be sent)" in said
    assert "outbox.key: opens the 3 mails waiting to be sent sealed with it" in check(one).lines


@pytest.mark.skipif(shutil.which("pg_restore") is None, reason="pg_restore is not on PATH (postgresql-client)")
def test_a_pg_dump_file_pg_restore_cannot_read_is_named_by_check(
    one: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file in a pg_dump's place that is no dump (this backup's SQLite file), its hash in the manifest: on 9fb0ae7
    "a pg_dump file (restore it with pg_restore)", intact.  Now `pg_restore --list` reads it, by a deadline; without
    pg_restore on PATH the check says the file was not read.  (A real dump: tests/test_postgres.py.)"""
    bad = _unreadable(one, tmp_path, "pg-dump")
    got = check(bad)
    assert not got.ok and got.wrong[0].startswith("pbem.pgdump: pg_restore cannot read it as a pg_dump file: "), (
        got.lines
    )
    monkeypatch.setattr(backup_check, "LISTING", 0.0)
    assert check(bad).wrong[0] == (
        "pbem.pgdump: pg_restore --list did not finish by its deadline (0 s): whether pg_restore can read it is not known"
    )
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    got = check(bad)
    assert got.ok and "pbem.pgdump: a pg_dump file, not read: pg_restore is not on PATH" in "\n".join(got.lines)


def test_keep_removes_only_the_oldest_of_pbems_own_dated_backups(
    made: tuple[Config, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--keep 2` after four nightly backups: the two oldest removed and said; a folder with a dated name whose
    manifest is not pbem's, one with a file added, one `--name` chose, a link to a backup and a file are not."""
    home, one = made
    dest = tmp_path / "backups"
    night = datetime(2026, 11, 1, 3, 15)
    nightly = [
        take(home, dest, dated(night + timedelta(days=d)), night + timedelta(days=d), 30).folder for d in range(4)
    ]
    added = take(home, dest, dated(night - timedelta(days=9)), night - timedelta(days=9), 30).folder
    (added / "notes.txt").write_text("mine")
    foreign = dest / dated(night - timedelta(days=8))
    foreign.mkdir()
    (foreign / MANIFEST).write_text('{"format": 1, "files": {}}')
    shutil.copytree(one, dest / "pbem-2026-10-01T000000Z")  # a pbem backup renamed: its manifest is another time's
    (dest / dated(night - timedelta(days=7))).symlink_to(one, target_is_directory=True)
    (dest / dated(night - timedelta(days=6))).write_text("a file")
    mine = take(home, dest, "mine", night - timedelta(days=30), 30).folder
    before = sorted(p.name for p in dest.iterdir())
    code, said = _cli("backup", str(dest), "--keep", "2", "--config", str(home.path))
    assert code == 0, said
    made_now = Path(said.splitlines()[-1].split()[2])
    after = sorted(p.name for p in dest.iterdir())
    assert sorted(set(before) - set(after)) == [p.name for p in nightly[:3]] and set(after) - set(before) == {
        made_now.name
    }
    gone = ", ".join(p.name for p in nightly[:3])
    assert f"note: removed 3 older backups of {dest} (--keep 2): {gone}\n" in said, said
    assert said.count("named like a pbem backup, but its manifest or its files are not those pbem wrote") == 1, said
    assert mine.is_dir() and added.is_dir() and (one / "pbem.db").is_file() and check(made_now).ok
    later = night + timedelta(days=3650)  # a backup dated after this one (a clock set back since)
    take(home, dest, dated(later), later, 30)
    monkeypatch.setattr("pbem.record.store.now_utc", lambda: datetime(2027, 1, 1, tzinfo=UTC))  # another second
    code, said = _cli("backup", str(dest), "--keep", "1", "--config", str(home.path))  # a later one is on file
    assert code == 0 and f"removed 2 older backups of {dest} (--keep 1): {nightly[3].name}, {made_now.name}\n" in said
    assert Path(said.splitlines()[-1].split()[2]).is_dir(), "the backup just made is never removed"
    code, said = _cli("backup", "--check", str(one), "--keep", "1")
    assert code == 2 and "--keep goes with DEST" in said, said


def test_a_stopped_runs_folder_is_removed_once_its_process_is_gone_and_its_deadline_passed(
    made: tuple[Config, Path], tmp_path: Path
) -> None:
    """The folders a killed `pbem backup` left (`.NAME.PID.tmp`): on 9fb0ae7 only named, so a nightly run killed
    each night (a full disk) filled DEST with them.  Now one whose process is gone and which has not changed for
    `[limits] command_deadline` is removed and said; one whose process runs, one changed since, one holding a folder
    are named and kept; hidden folders of other names are not touched."""
    home, _ = make = made
    dest = tmp_path / "b"
    gone = subprocess.Popen(["true"])
    gone.wait()
    old = time.time() - home.command_deadline - 60
    folders = {
        "stale": f".pbem-2026-12-01T031500Z.{gone.pid}.tmp",
        "running": f".pbem-2026-12-02T031500Z.{os.getppid()}.tmp",
        "fresh": f".night.{gone.pid}.tmp",
        "holds-a-folder": f".night2.{gone.pid}.tmp",
        "other": ".cache.tmp",
    }
    for how, name in folders.items():
        (dest / name).mkdir(parents=True)
        (dest / name / "pbem.db").write_bytes(b"half")
        if how == "holds-a-folder":
            (dest / name / "sub").mkdir()
        if how != "fresh":
            for p in [*(dest / name).iterdir(), dest / name]:
                os.utime(p, (old, old))
    code, said = _cli("backup", str(dest), "--config", str(make[0].path))
    assert code == 0 and said.startswith(
        f"note: removed 1 unfinished backup of runs that were stopped: {folders['stale']}\n"
    )
    kept = ", ".join(sorted(folders[k] for k in ("running", "fresh", "holds-a-folder")))
    assert f"stopped less than [limits] command_deadline ago: {kept}; a later backup" in said, said
    assert sorted(p.name for p in dest.iterdir() if p.name.startswith(".")) == sorted(
        n for k, n in folders.items() if k != "stale"
    )


def test_restore_into_is_refused_where_it_cannot_apply_and_said_needless_for_sqlite(one: Path, tmp_path: Path) -> None:
    """`--restore-into` goes with --check only, takes a PostgreSQL URL (its password never printed), and on a SQLite
    backup is said to be needless (the database is read as it is). (The restore itself: tests/test_postgres.py.)"""
    code, said = _cli("backup", str(tmp_path / "b"), "--restore-into", "postgresql://u:hunter2pw@h/db")
    assert code == 2 and "--restore-into goes with --check DIR" in said and "hunter2pw" not in said, said
    code, said = _cli("backup", "--check", str(one), "--restore-into", "sqlite:///x.db")
    assert code == 2 and "--restore-into takes a PostgreSQL server's URL" in said, said
    code, said = _cli("backup", "--check", str(one), "--restore-into", "postgresql://u:hunter2pw@h/db")
    assert code == 0 and "--restore-into is for a pg_dump file: this backup's SQLite database" in said, said
    assert "hunter2pw" not in said


def test_a_damaged_database_is_saved_as_it_is_exit_4_and_keep_removes_nothing(
    made: tuple[Config, Path], tmp_path: Path
) -> None:
    """A database with a page overwritten past its header: the cron poll may go on ("nothing to do", exit 0: it reads
    only the pages it needs), and the nightly backup said it in a `note:` line of cron.log, exit 0, and let `--keep`
    remove the older backups, which may be the only intact ones.  Now the copy is still made (it is the database as
    it is: SQLite's backup copies pages, it reads no table), the command ends exit 4 naming SQLite's words and what
    to do, and `--keep` removes nothing.  Every page of the home damaged alike, one at a time (a page no table uses
    is no damage, exit 0).  On d010d76e the 3 of the first 12 that `quick_check` found ended exit 0, the older
    backup removed.  On 7ce19fb8 (the schema grown by 0023, so the first 12 pages moved) 2 of the 50 damaged
    pages (of 53; 3 are free) were told so, and 48 ended "no backup was made (nothing is left of it)": pages of the
    schema, which `quick_check` and the copy's first statement could not read past, and the home's mark read before
    the copy, which stopped at the damage; the copy of a damaged database, perhaps the only one left, was thrown
    away.  0 of 50 now."""
    home, _ = made
    file = Path(home.database_url.removeprefix("sqlite:///"))
    good = file.read_bytes()
    pages = len(good) // 4096
    assert pages > 12
    damaged = 0
    for page in range(1, pages):
        copy = tmp_path / f"h{page}"
        shutil.copytree(home.path.parent, copy)
        cfg = config_mod.load(copy / "pbem.toml")
        dest = tmp_path / f"b{page}"
        older = take(cfg, dest, dated(datetime(2026, 11, 1)), datetime(2026, 11, 1), 30).folder
        data = bytearray(good)
        data[page * 4096 : (page + 1) * 4096] = bytes(range(256)) * 16
        (copy / file.name).write_bytes(bytes(data))
        code, said = _cli("backup", str(dest), "--keep", "1", "--config", str(copy / "pbem.toml"))
        if _intact(copy / file.name):  # a free page, say: nothing of the record damaged
            assert code == 0, (page, said)
            continue
        damaged += 1
        assert code == 4, (page, said)  # exit 3 on 90a53973: the same status as a locked database (walk9)
        assert "pbem: the database fails SQLite's quick_check (" in said, (page, said)
        assert "--keep removed no older one" in said and len(list(dest.iterdir())) == 2, (page, said)
        assert check(older).ok, (page, said)
        made_now = [p for p in dest.iterdir() if p != older]
        assert not _intact(made_now[0] / "pbem.db"), page  # the database as it is, its damage with it
    assert damaged >= 12, damaged


def _intact(file: Path) -> bool:
    """SQLite's own `quick_check` of `file` passes."""
    try:
        with contextlib.closing(sqlite3.connect(file)) as conn:
            return [r[0] for r in conn.execute("PRAGMA quick_check")] == ["ok"]
    except sqlite3.DatabaseError:
        return False

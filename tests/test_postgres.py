"""The record on PostgreSQL: migrations, the moderator tests, every command, and concurrent polls.

Skips with the reason when no server answers (see tests/pg.py: PBEM_TEST_PG_URL or
the cluster started by `bash .ci/postgres`).  The moderator tests of
tests/test_moderator.py run here unchanged on a PostgreSQL home.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
from sqlmodel import select

from pbem.app import games
from pbem.app import poll as polling
from pbem.home import config as config_mod
from pbem.home.app import Home
from pbem.record.db import session
from tests import pg
from tests import test_moderator as tm
from tests.conftest import CODES, Clock, order_mail, signed
from tests.reliability import forkserver
from tests.reliability import killpoints as kp

# one worker runs this module: its tests share one PostgreSQL database
pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("postgres")]


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """This test process's own database (tests/pg.py): runs that overlap on one machine never meet."""
    yield from pg.own_database()


@pytest.fixture
def home(tmp_path: Path, pg_url: str):
    """The moderator home of tests/test_moderator.py, on an emptied PostgreSQL record."""
    pg.truncate(pg_url)
    return pg.pg_home(tmp_path / "home", pg_url)


# ----------------------------------------------------------------------------- migrations


def test_migrations_upgrade_an_empty_postgres_database_to_head_with_no_drift(pg_url: str) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext
    from sqlalchemy import create_engine, inspect
    from sqlmodel import SQLModel

    from pbem.record import models  # noqa: F401
    from pbem.record.db import migrate

    pg.reset_schema(pg_url)
    migrate(pg_url)
    migrate(pg_url)  # idempotent
    eng = create_engine(pg_url)
    try:
        with eng.connect() as conn:
            assert {
                "games",
                "seats",
                "inbound_messages",
                "orders",
                "events",
                "snapshots",
                "outbox",
                "deadlines",
                "control_actions",
                "alembic_version",
            } <= set(inspect(conn).get_table_names())
            diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), SQLModel.metadata)
    finally:
        eng.dispose()
    assert diff == [], f"models and migrations differ on PostgreSQL: {diff}"


def test_0018_gives_every_older_event_its_readers_on_postgres(pg_url: str) -> None:
    from tests.test_migrations import readers_filled_by_0018

    pg.reset_schema(pg_url)
    readers_filled_by_0018(pg_url)


@pytest.mark.parametrize("seed", [0, 1])
def test_a_downgrade_below_0021_refuses_while_a_mail_is_pruned_on_postgres(pg_url: str, seed: int) -> None:
    """tests/test_migrations.py's round trip (seed 0 refused, seed 1 taken back and upgraded again) on PostgreSQL."""
    from tests.test_migrations import downgrade_round_trip

    pg.reset_schema(pg_url)
    downgrade_round_trip(pg_url, seed)


def test_postgres_sessions_run_in_utc_and_take_the_record_lock(pg_url: str) -> None:
    from sqlalchemy import text

    from pbem.record.db import RECORD_LOCK

    with session(pg_url) as s:
        assert s.exec(text("SHOW timezone")).scalar() == "UTC"
        held = s.exec(
            text("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = :k AND pid = pg_backend_pid()"),
            params={"k": RECORD_LOCK},
        ).scalar()
        assert held == 1
    with session(pg_url) as s:  # released at the end of the transaction, taken again by the next
        s.exec(text("SELECT 1"))
        s.commit()
        assert (
            s.exec(
                text(  # in this database: another test run's record (its own database) holds its own lock
                    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = :k"
                    " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
                ),
                params={"k": RECORD_LOCK},
            ).scalar()
            == 1
        )


# ----------------------------------------------------------------------------- the moderator tests, on PostgreSQL

# (test_reports_never_show_another_players_hand plays a demo on its own SQLite home: nothing to run again here;
# test_a_whole_demo_game_on_postgres_exports_and_verifies below is its PostgreSQL counterpart.)
_MODERATOR_TESTS = [n for n in dir(tm) if n.startswith("test_") and n != "test_reports_never_show_another_players_hand"]
for _name in _MODERATOR_TESTS:
    globals()[f"{_name}_on_postgres"] = getattr(tm, _name)
del _name


# ----------------------------------------------------------------------------- every command


def _pbem(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """`python -m pbem ARGS`, forked from a process that imported pbem once (`tests.reliability.forkserver`)."""
    from tests.reliability import forkserver

    return forkserver.pbem(list(args), cwd=cwd)


def test_every_command_works_on_a_postgres_record(tmp_path: Path, pg_url: str) -> None:
    pg.reset_schema(pg_url)
    home = tmp_path / "home"
    assert _pbem("init", str(home), "--address", "games@example.test").returncode == 0
    cfg = str(home / "pbem.toml")
    pg.use_postgres(home / "pbem.toml", pg_url)
    res = _pbem("--config", cfg, "upgrade")  # Alembic on PostgreSQL
    assert res.returncode == 0, res.stderr
    res = _pbem(
        "--config",
        cfg,
        "game",
        "new",
        "italian-wars",
        "--name",
        "iw1",
        "--seed",
        "abc",
        "--insecure-seed",
        "--player",
        "Ann <ann@example.test>",
        "--player",
        "Ben <ben@example.test>",
    )
    assert res.returncode == 0, res.stderr
    assert "iw1" in _pbem("--config", cfg, "game", "list").stdout
    assert "Private report for Ann" in _pbem("--config", cfg, "game", "show", "iw1", "--as", "Ann").stdout
    polled = _pbem("--config", cfg, "poll")
    assert polled.returncode == 0 and "sent 2 mails" in polled.stdout, polled.stderr
    exported = _pbem("--config", cfg, "export", "iw1", "-o", str(tmp_path / "iw1.json"))
    assert exported.returncode == 0, exported.stderr
    assert json.loads((tmp_path / "iw1.json").read_text())["game"]
    with session(pg_url) as s:  # the record is in PostgreSQL
        from pbem.record.models import Game, OutboxMessage

        assert [g.name for g in s.exec(select(Game)).all()] == ["iw1"]
        assert {m.status for m in s.exec(select(OutboxMessage)).all()} == {"sent"}


def test_a_whole_demo_game_on_postgres_exports_and_verifies(tmp_path: Path, pg_url: str, monkeypatch) -> None:
    """The demo's bots play a game by mail on a PostgreSQL record; export and `pbem verify` pass."""
    from pbem.cli import demo
    from pbem.cli import support as cli_support

    pg.truncate(pg_url)
    original = cli_support.init_home

    def init_on_pg(directory, **kw):
        path = original(directory, **kw)
        pg.use_postgres(path, pg_url)
        return path

    monkeypatch.setattr(cli_support, "init_home", init_on_pg)
    r = demo.run("italian-wars", 2, "pg-demo", tmp_path / "home", clock=Clock())
    assert r.verified, r.checked
    assert "postgresql" in config_mod.load(tmp_path / "home" / "pbem.toml").database_url
    res = _pbem("verify", str(r.export))
    assert res.returncode == 0 and "verification passed" in res.stdout, res.stderr


# ----------------------------------------------------------------------------- concurrent polls

GAMES = 6
ORDERS_PER_GAME = 4
FIXED = "2026-01-05T12:00:00+00:00"


def _players(g: int) -> list[tuple[str, str]]:
    return [(p, f"{p.lower()}.{g}@players.test") for p in ("Alice", "Bob", "Carol")]


def _setup_games(cfg) -> None:
    """Games with fixed seeds and codes, and an inbox of orders, duplicates and refusals for them."""
    from pbem import engine as registry
    from pbem.engine.bots import choose
    from pbem.engine.rng import Rng, init_state

    clock = Clock(datetime.fromisoformat(FIXED))
    eng = registry.get("habsburg")
    mails: list[bytes] = []
    for g in range(GAMES):
        name = f"cc{g}"
        players = _players(g)
        games.create_game(Home.of(cfg), "habsburg", name, players, seed=f"concurrent-{g}", clock=clock, codes=CODES)
        state, _ = eng.setup([p for p, _ in players], f"concurrent-{g}", {})
        rng = Rng(init_state(f"bots-{g}"))
        for k in range(ORDERS_PER_GAME):
            req = next(r for r in eng.requests(state) if not r.answered)
            lines = choose(req, rng)
            state = eng.apply(state, req.player, lines).state
            raw = order_mail(
                f"{req.player} <{dict(players)[req.player]}>",
                name,
                signed(req.player, lines[0]),
                message_id=f"<cc{g}.{k}@players.test>",
            )
            mails.append(raw)
            if k == 1:
                mails.append(raw)  # the same message delivered twice
        mails.append(
            order_mail(
                f"Bob <{dict(players)['Bob']}>", name, "CODE WRONG-0000\nPASS", message_id=f"<cc{g}.bad@players.test>"
            )
        )
    base = time.time_ns() - 10**9 * len(mails)
    import mailbox

    md = mailbox.Maildir(str(cfg.maildir_path / "inbox"), factory=None, create=True)
    for i, raw in enumerate(mails):  # a strict fetch order, the same for every run
        key = md.add(raw)
        path = cfg.maildir_path / "inbox" / "new" / key
        os.utime(path, ns=(base + i * 1000, base + i * 1000))


def _record(url: str) -> dict:
    from pbem.record.models import Game, GameEvent, InboundMessage, OrderInput, OutboxMessage

    with session(url) as s:
        names = {g.id: g.name for g in s.exec(select(Game)).all()}
        return {
            "orders": sorted(
                (names[o.game_id], o.seq, o.kind, o.player, o.lines_json, o.inbound_id is not None)
                for o in s.exec(select(OrderInput)).all()
            ),
            "events": sorted(
                (names[e.game_id], e.seq, e.input_seq, e.kind, e.text, e.data_json)
                for e in s.exec(select(GameEvent)).all()
            ),
            "inbound": sorted((m.message_id, m.outcome, m.reason) for m in s.exec(select(InboundMessage)).all()),
            "outbox": sorted(
                (m.message_id, m.to_addr, m.purpose, m.upto_seq) for m in s.exec(select(OutboxMessage)).all()
            ),
        }


def _sent_ids(cfg) -> list[str]:
    import mailbox
    from email.parser import BytesHeaderParser

    md = mailbox.Maildir(str(cfg.maildir_path / "sent"), factory=None, create=True)
    return [BytesHeaderParser().parsebytes(md.get_bytes(k))["Message-ID"] for k in md.iterkeys()]


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict:
    """The same games and inbox polled once, by one run, on SQLite."""
    from pbem.cli.support import init_home

    cfg = config_mod.load(
        init_home(tmp_path_factory.mktemp("ref") / "home", address="moderator@pbem.test", name="Test Moderator")
    )
    kp.share_message_id_secret(cfg)  # Message-IDs are keyed per home: both homes use one key to compare records
    _setup_games(cfg)
    from pbem.mail.transports.maildir import MaildirInbox, MaildirSender

    when = datetime.fromisoformat(FIXED)
    polling.poll(
        Home.of(cfg, inbox=MaildirInbox(cfg.maildir_path), sender=MaildirSender(cfg.maildir_path), clock=lambda: when)
    )
    rec = _record(cfg.database_url)
    assert sum(1 for m in rec["inbound"] if m[1] == "accepted") == GAMES * ORDERS_PER_GAME
    return rec


@pytest.mark.parametrize("runs", [3])
def test_concurrent_polls_without_the_file_lock_end_with_the_record_of_one_run(
    tmp_path: Path, pg_url: str, reference: dict, runs: int
) -> None:
    """Several processes call pbem.app.poll.poll at once on one home (no file lock): same record as one run."""
    pg.truncate(pg_url)
    cfg = pg.pg_home(tmp_path / "home", pg_url)
    kp.share_message_id_secret(cfg)
    _setup_games(cfg)
    # forked together from the fork server as `python -m tests.reliability.killpoints --config HOME poll`: the file
    # lock switched off (PBEM_TEST_NO_FLOCK) and the reference's fixed clock (PBEM_TEST_CLOCK_AT), three processes of
    # their own without three Pythons importing pbem (they were `python -c` scripts calling `poll` the same way)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_TEST_")}
    env.update(PBEM_TEST_NO_FLOCK="1", PBEM_TEST_CLOCK_AT=FIXED)
    env["PYTHONPATH"] = kp.REPO + os.pathsep + env.get("PYTHONPATH", "")
    done = forkserver.server().run_many(
        [["--config", str(cfg.path), "poll"]] * runs, env, kp.REPO, timeout=240, wrapper=True
    )
    for r in done:
        if isinstance(r, BaseException):
            raise r
    assert all(r.returncode == 0 for r in done), "\n".join(r.stderr[-6000:] for r in done)
    outs = [(r.stdout, r.stderr) for r in done]
    rec = _record(pg_url)
    assert rec == reference
    # No run tripped over another (a clash would surface as an internal error, counted as a rejection).
    totals = [
        sum(int(re.search(rf"(\d+) {what}", out).group(1)) for out, _ in outs) for what in ("accepted", "rejected")
    ]
    assert totals == [sum(1 for m in reference["inbound"] if m[1] == w) for w in ("accepted", "rejected")], outs
    sent = _sent_ids(cfg)
    queued = {m[0] for m in rec["outbox"]}
    assert queued <= set(sent), "every queued message is delivered at least once"
    assert len(sent) - len(queued) <= (runs - 1) * len(queued)


def test_concurrent_pbem_poll_commands_on_separate_hosts_end_with_the_record_of_one_run(
    tmp_path: Path, pg_url: str, reference: dict
) -> None:
    """Three `pbem poll` commands, each with its own home (so its own file lock), one record and one inbox."""
    pg.truncate(pg_url)
    cfg = pg.pg_home(tmp_path / "home", pg_url)
    kp.share_message_id_secret(cfg)
    _setup_games(cfg)
    homes = []
    for i in range(3):
        h = tmp_path / f"host{i}"
        h.mkdir()
        text = cfg.path.read_text().replace('path = "mail"', f'path = "{cfg.maildir_path}"')
        assert str(cfg.maildir_path) in text
        (h / "pbem.toml").write_text(text)
        # every host of one record holds the home's keys, and its name (`pbem.app.whose`: else the record is
        # another home's, refused as one restored elsewhere)
        for secret in ("game-keys.secret", "outbox.key", ".pbem-home"):
            if (cfg.home / secret).exists():
                shutil.copy2(cfg.home / secret, h / secret)
        homes.append(h / "pbem.toml")
    # forked together from the fork server (`tests.reliability.forkserver.pbem_many`): three processes of their own,
    # without three Pythons importing pbem (about 0.95 CPU s each), which is not what this test is about
    done = forkserver.pbem_many([["--config", str(h), "poll"] for h in homes], timeout=240)
    for r in done:
        if isinstance(r, BaseException):
            raise r
    assert all(r.returncode == 0 for r in done), "\n".join(r.stderr[-6000:] for r in done)
    outs = [(r.stdout, r.stderr) for r in done]
    rec = _record(pg_url)
    strip = reference  # times differ (real clock): compare what does not depend on them
    assert rec["orders"] == strip["orders"] and rec["inbound"] == strip["inbound"]
    assert [e[:4] for e in rec["events"]] == [e[:4] for e in strip["events"]]
    assert sorted(m[0] for m in rec["outbox"]) == sorted(m[0] for m in strip["outbox"])
    assert {m[0] for m in rec["outbox"]} <= set(_sent_ids(cfg))
    totals = [
        sum(int(re.search(rf"(\d+) {what}", out).group(1)) for out, _ in outs) for what in ("accepted", "rejected")
    ]
    assert totals == [sum(1 for m in reference["inbound"] if m[1] == w) for w in ("accepted", "rejected")], outs


# ----------------------------------------------------------------------------- one database per test run


def test_each_test_process_gets_its_own_database_and_leftovers_of_ended_runs_are_dropped(pg_url: str) -> None:
    """Two runs on one machine never share rows; a killed run's database is dropped by the next one."""
    import psycopg

    base, _ = pg.server()
    assert base is not None and pg_url != base  # this run is in a database of its own
    with pg.run_database(base) as one, pg.run_database(base) as two:
        assert len({one, two, pg_url}) == 3
        for url in (one, two):
            with psycopg.connect(pg.plain_url(url), autocommit=True) as conn:
                conn.execute("CREATE TABLE mine (v text)")
        with psycopg.connect(pg.plain_url(one), autocommit=True) as conn:
            conn.execute("INSERT INTO mine VALUES ('one')")
        with psycopg.connect(pg.plain_url(two), autocommit=True) as conn:
            assert conn.execute("SELECT count(*) FROM mine").fetchone() == (0,)
    # a database left by a process that has ended (pid 2**22 + 1 is above Linux's pid_max default)
    dead = f"{pg.RUN_PREFIX}{pg._host_tag()}_{2**22 + 1}_deadbeef"
    with psycopg.connect(pg.plain_url(base), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{dead}"')
    assert dead in pg.leftover_databases(base)
    with pg.run_database(base):
        pass
    with psycopg.connect(pg.plain_url(base), autocommit=True) as conn:
        names = {n for (n,) in conn.execute("SELECT datname FROM pg_database").fetchall()}
    assert dead not in names and not {one, two} & {pg.with_database(base, n) for n in names}
    assert pg.with_database(base, "x").rsplit("/", 1)[1] == "x"


def test_history_by_mail_reads_only_its_rows_and_answers_as_the_whole_record_on_postgres(home, monkeypatch) -> None:
    """HISTORY's bounded reads (`pbem.record.history_rows`: a LIKE with its own escape, the k-th scoring event by
    OFFSET, counts) give on PostgreSQL the answer every event gives, as on SQLite (costs8)."""
    from pbem.app import histories
    from pbem.record import store
    from tests.reliability.test_costs8_history import TURN, lengthen, reference, said, seen_by
    from tests.test_moderator import new_game

    new_game(home, Clock())
    lengthen(home.database_url, 3 * TURN + 5, over=False)
    monkeypatch.setattr(histories, "MAX_EVENTS", 25)
    with session(home.database_url) as s:
        game = store.game_by_name(s, "hh1")
        loaded = store.load(s, game)
        for seat in loaded.seats:
            seen = seen_by(s, game, seat.player)
            for asked in ["", "1", "3", "4", "9"]:
                want = reference(seen, "habsburg", asked, seat.player, False, 25)
                assert said(histories.load(s, loaded, seat, asked)) == want, f"{seat.player} {asked!r}"


def test_pbem_backup_saves_a_postgres_record_by_pg_dump_or_says_to(home, tmp_path: Path, monkeypatch) -> None:
    """`pbem backup` on PostgreSQL: the database by `pg_dump` (custom format) beside the key files and pbem.toml,
    checked intact; without pg_dump on PATH, the rest saved, a line saying to run it, and `--check` naming the
    database as missing (exit 1)."""
    from typer.testing import CliRunner

    from pbem.app.backup import PG_FILE, digest
    from pbem.cli import app

    tm.games.create_game(tm.Home.of(home), "habsburg", "hh1", tm.PLAYERS, seed="pgbackup", codes=CODES)

    def backup(name: str) -> tuple[int, str]:
        got = CliRunner().invoke(app, ["backup", str(tmp_path / "b"), "--name", name, "--config", str(home.path)])
        return got.exit_code, got.output

    code, said = backup("dumped")
    assert code == 0 and f"{PG_FILE}, pbem.toml)" in said, said
    checked = CliRunner().invoke(app, ["backup", "--check", str(tmp_path / "b" / "dumped")])
    assert checked.exit_code == 0 and f"{PG_FILE}: a pg_dump file pg_restore reads (" in checked.output, checked.output
    dump = tmp_path / "b" / "dumped" / PG_FILE
    assert dump.read_bytes().startswith(b"PGDMP")
    # cut short, its hash made to match (pg_dump killed by a full disk): on 9fb0ae7 intact; now pg_restore cannot read it
    dump.write_bytes(dump.read_bytes()[:2000])
    manifest = json.loads((dump.parent / "manifest.json").read_text())
    manifest["files"][PG_FILE] = digest(dump)
    (dump.parent / "manifest.json").write_text(json.dumps(manifest))
    checked = CliRunner().invoke(app, ["backup", "--check", str(dump.parent)])
    assert checked.exit_code == 1 and f"{PG_FILE}: pg_restore cannot read it as a pg_dump file: " in checked.output

    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    code, said = backup("undumped")
    assert code == 0 and said.startswith("note: the PostgreSQL database is not in this backup: pg_dump is not on"), said
    checked = CliRunner().invoke(app, ["backup", "--check", str(tmp_path / "b" / "undumped")])
    assert checked.exit_code == 1 and "the database is not in this backup (postgresql)" in checked.output


def _dump_damaged(one: Path, at: Path, how: str) -> Path:
    """A copy of the backup `one` whose pg_dump file is cut short (how "cut0.3": at 3/10 of its bytes) or has a
    byte changed ("flip0.6": at 6/10), its manifest made to match (a disk that lost the end, bits that rotted)."""
    from pbem.app.backup import MANIFEST, PG_FILE, digest

    bad = Path(shutil.copytree(one, at / how))
    data = bytearray((bad / PG_FILE).read_bytes())
    where = int(len(data) * float(how[4:]))
    if how.startswith("cut"):
        data = data[:where]
    else:
        data[where] ^= 0xFF
    (bad / PG_FILE).write_bytes(bytes(data))
    manifest = json.loads((bad / MANIFEST).read_text())
    manifest["files"][PG_FILE] = digest(bad / PG_FILE)
    (bad / MANIFEST).write_text(json.dumps(manifest))
    return bad


#: The generator's damaged dumps; the suite runs the first two, BACKUP3_ALL=1 all twelve.
DAMAGED = ["cut0.5", "flip0.8", "cut0.95", "cut0.3", "cut0.7", "cut0.9", "cut0.99", "flip0.5", "flip0.6", "flip0.7"]
DAMAGED += ["flip0.9", "flip0.95"]


def test_check_restore_into_proves_a_dump_restores_and_names_one_that_does_not(home, pg_url: str, tmp_path: Path):
    """`pbem backup --check DIR --restore-into URL`: the dump restored into a scratch database made on that server
    (and dropped), then checked as a SQLite backup is: its schema, every game's key, outbox.key (here another home's,
    with no sealed mail waiting: named by the check value the record keeps).  The generator `DAMAGED` (dumps cut
    short or with a byte changed, hash matched): `pg_restore --list` reads 11 of 12, so on e5c877a `--check` said
    11 of 12 intact; with --restore-into 0 of 12 (each "does not restore"): `BACKUP3_ALL=1 python3 -m pytest
    tests/test_postgres.py -k restore_into -s -n 0` prints both figures (the suite runs two)."""
    from typer.testing import CliRunner

    from pbem.app.backup import MANIFEST, digest
    from pbem.app.backup_check import Restore, check
    from pbem.app.cron import run_poll
    from pbem.cli import app
    from pbem.mail.outbound.sealed import KEY_FILE
    from pbem.record.restore_probe import PREFIX

    clock = Clock()
    tm.games.create_game(tm.Home.of(home), "habsburg", "hh1", tm.PLAYERS, seed="pgrestore", clock=clock, codes=CODES)
    run_poll(home, clock=clock)  # the invitations sent: no sealed mail waits, the key's check value is kept
    got = CliRunner().invoke(app, ["backup", str(tmp_path / "b"), "--name", "one", "--config", str(home.path)])
    assert got.exit_code == 0, got.output
    one = tmp_path / "b" / "one"
    got = CliRunner().invoke(app, ["backup", "--check", str(one), "--restore-into", pg_url])
    said = got.output
    assert got.exit_code == 0 and "pbem.pgdump: restores into PostgreSQL at postgresql+psycopg://" in said, said
    assert "game-keys.secret: opens the sealed signing key of every game (1 game)" in said, said
    assert "outbox.key: is this database's" in said and ":***@" in said and pg_url.split("@")[0][-4:] + "@" not in said

    other = Path(shutil.copytree(one, tmp_path / "other-key"))
    from cryptography.fernet import Fernet

    (other / KEY_FILE).write_bytes(Fernet.generate_key() + b"\n")
    manifest = json.loads((other / MANIFEST).read_text())
    manifest["files"][KEY_FILE] = digest(other / KEY_FILE)
    (other / MANIFEST).write_text(json.dumps(manifest))
    assert check(other).ok  # without a restore the dump's database is not read: whose key it is is not known
    assert [w for w in check(other, Restore(pg_url)).wrong if w.startswith("outbox.key: is not this database's")]

    cases = DAMAGED if os.environ.get("BACKUP3_ALL") else DAMAGED[:2]
    listed = proved = 0
    for how in cases:
        bad = _dump_damaged(one, tmp_path, how)
        listed += check(bad).ok  # what e5c877a's --check said
        restored = check(bad, Restore(pg_url))
        proved += restored.ok
        if check(bad).ok:  # what the listing let through is what the restore names
            assert any(": does not restore into PostgreSQL at " in w for w in restored.wrong), restored.lines
    print(
        f"damaged dumps: {len(cases)}; --check without a restore said intact: {listed}; with --restore-into: {proved}"
    )
    assert listed >= 1 and proved == 0, (listed, proved)

    refused = check(one, Restore(pg.with_database(pg_url, "no_such_database")))  # the server refuses to connect
    assert refused.wrong == [] and not refused.ok, refused.lines
    assert (refused.unchecked or "").startswith("pbem.pgdump: could not make a scratch database on the server at ")
    assert (refused.unchecked or "").endswith("; the backup was not checked"), refused.unchecked
    _refusing_server(one, pg_url)
    import psycopg

    with psycopg.connect(pg.plain_url(pg_url), autocommit=True) as conn:
        left = conn.execute("SELECT datname FROM pg_database WHERE datname LIKE %s", (PREFIX + "%",)).fetchall()
    assert left == []  # every scratch database dropped


def _refusing_server(one: Path, pg_url: str) -> None:
    """A role without CREATEDB (made as the `.ci/postgres` cluster's superuser, where the server lets us): the
    check exits 3 with the server's reason, not 1 as for a damaged backup (backup4: exit 1, "not restored", on
    8080c21)."""
    import psycopg
    from sqlalchemy.engine import make_url
    from typer.testing import CliRunner

    from pbem.cli import app

    u = make_url(pg_url)
    try:
        admin = psycopg.connect(host=u.host, port=u.port, user="postgres", dbname="postgres", autocommit=True)
    except psycopg.Error:
        pytest.skip("no superuser on this server to make a role without CREATEDB")
    role = f"pbem_nocreatedb_{os.getpid()}"
    with admin:
        admin.execute(f"DROP ROLE IF EXISTS {role}")
        admin.execute(f"CREATE ROLE {role} LOGIN PASSWORD 'x' NOCREATEDB")
        try:
            url = u.set(username=role, password="x", database="postgres").render_as_string(hide_password=False)
            got = CliRunner().invoke(app, ["backup", "--check", str(one), "--restore-into", url])
            assert got.exit_code == 3, got.output
            last = got.output.strip().splitlines()[-1]
            assert last.startswith("pbem: could not make a scratch database on the server at "), last
            assert "permission denied to create database" in last and ":x@" not in got.output, last
            assert last.endswith("; the backup was not checked"), last
        finally:
            admin.execute(f"DROP ROLE IF EXISTS {role}")


def test_a_pg_dump_restored_as_the_readme_says_from_any_point_sends_nothing_twice(home, pg_url: str, tmp_path: Path):
    """tests/test_backup_restore.py on PostgreSQL: each backup's dump put back by the README's command
    (`pg_restore --clean --if-exists --no-owner --single-transaction --dbname=URL pbem.pgdump`) over the record of
    the day's end; on e5c877a 12 Message-IDs were sent twice over the 4 restore points (6, 3, 0, 3), now 0, and
    none lost (`BACKUP3_ALL=1` restores from all 4; the suite from the first and the last)."""
    from tests.test_backup_restore import game_day, restored_from_each

    if shutil.which("pg_restore") is None:
        pytest.skip("pg_restore is not on PATH (postgresql-client)")
    clock, taken = game_day(home, tmp_path)
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    command = "pg_restore --clean --if-exists --no-owner --single-transaction --dbname="
    assert command in re.sub(r"\s+", " ", readme), "README Backups gives the command that restores a dump"

    def dumped(backup: Path, copy: Path) -> None:
        from pbem.record.db import engine_for

        engine_for(pg_url).dispose()
        done = subprocess.run(
            [*command.split()[:-1], f"--dbname={pg.plain_url(pg_url)}", str(backup / "pbem.pgdump")],
            capture_output=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr.decode()

    points = taken if os.environ.get("BACKUP3_ALL") else [taken[0], taken[-1]]  # the suite: the first and last
    twice, lost = restored_from_each(home, clock, points, tmp_path, dumped)
    assert (twice, lost) == (dict.fromkeys(twice, 0), dict.fromkeys(lost, 0)), (twice, lost)
    # the same dumps restored into a new folder (another machine), the old home's ledger added as the refusal
    # says: on 8080c21 not refused at 4 of 4 points and 12 Message-IDs sent twice (6, 3, 0, 3); now refused at 4
    # of 4 and 0 (the suite: the first point, whose database had seen no poll, and the last)
    twice, lost = restored_from_each(home, clock, points, tmp_path, dumped, elsewhere=True)
    assert (twice, lost) == (dict.fromkeys(twice, 0), dict.fromkeys(lost, 0)), (twice, lost)

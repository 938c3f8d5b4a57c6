"""`pbem move-record URL`: a home's SQLite record moved to an empty PostgreSQL database (walk11).

* A generator of records of random shapes (games, events, queued, failed and sent mail, bounces, absences, pauses,
  every column's type with its edge values: bytes of every value, text in several scripts, times to the
  microsecond, NULLs; ids with gaps) written straight into a SQLite record at the schema's head, moved, and compared
  table by table, row by row (read independently of the move's own digests), with every sequence continuing past
  the ids copied.  On 8aa88d6c pbem had no way to move a record: every case fails (48 of 48); on walk11 0 of 48.  While it was built, the first form refused every move into a database
  `pbem upgrade` had just made (migration 0005 writes the home's Message-ID secret there: "not empty", 1 of 1).
  The suite runs `SAMPLE` cases, `.ci/run` 12 (`PBEM_FULL_SIZE=1`, tests/sizes.py; 24 took 54 s at a load of 12),
  `PBEM_MOVE_CASES=48` 48.
* A move killed at a random row (its own process, SIGKILL) leaves the target empty, and the next try moves it; a
  try after a completed move is refused in one line.
* Six games mid-play (tests/test_postgres.py's inbox of orders, duplicates and a wrong code): half the inbox polled
  on SQLite, the record moved, the other half polled on PostgreSQL: the record is the one a home that stayed on
  SQLite ends with, no mail is sent twice, and every game's export verifies.

Skips with the reason when no PostgreSQL server answers (tests/pg.py).
"""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Boolean, DateTime, Integer, LargeBinary, TypeDecorator, select, text

from pbem.record import db
from pbem.record import move as moving
from tests import pg
from tests.sizes import size

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("postgres")]

SAMPLE = 3
CASES = int(os.environ.get("PBEM_MOVE_CASES", size(12, SAMPLE)))  # `.ci/run`'s whole-size step: 12 (tests/sizes.py)


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    yield from pg.own_database()


def emptied(url: str) -> str:
    """`url`'s record with no row, its ids starting again, as `pbem upgrade` leaves a new database."""
    names = ", ".join(t.name for t in moving.tables())
    with db.transaction(url) as conn:
        conn.execute(text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))
    db.migrate(url)
    return url


def chains_of(s: db.Unit, game_id: int) -> str:
    from pbem.app.move import verdict

    return verdict(s, game_id)


# ----------------------------------------------------------------------------- records of random shapes

_WORDS = ["Alice", "Ünïcödé", "東京", "مرحبا", "🃏♠", "a'b\"c", "back\\slash", "line\nbreak", "tab\there", "", " "]


def _value(rng: random.Random, column: Any, serial: int, blob: int | None = None) -> Any:
    kind = column.type.impl_instance if isinstance(column.type, TypeDecorator) else column.type
    if column.nullable and not column.primary_key and rng.random() < 0.15:
        return None
    if isinstance(kind, Boolean):
        return rng.random() < 0.5
    if isinstance(kind, Integer):
        return rng.choice([0, 1, rng.randrange(2**31 - 1), 2**31 - 1])
    if isinstance(kind, DateTime):
        return datetime(2026, 1, 1, tzinfo=UTC) + timedelta(
            seconds=rng.randrange(10**8), microseconds=rng.randrange(10**6)
        )
    if isinstance(kind, LargeBinary):
        size = blob if blob is not None else rng.choice([0, 1, 32, 300, 70_000])
        return bytes(rng.randrange(256) for _ in range(size)) if size < 1000 else rng.randbytes(size)
    most = getattr(kind, "length", None) or 400
    words = " ".join(rng.choice(_WORDS) for _ in range(rng.randrange(4)))
    return (f"{serial}:" + words)[:most]  # the serial first: unique columns stay unique


def random_record(url: str, seed: int, games: int | None = None) -> dict[str, int]:
    """A record at the schema's head with rows of random shape in every table (parents first); its row counts.  With
    `games`: that many games and 8 rows a game in every other table, each bytes value of 20 KB (`test_memory`)."""
    rng = random.Random(seed)
    db.migrate(url)
    keys: dict[str, list[Any]] = {}  # "table.column" -> values written (foreign keys pick among them)
    counts: dict[str, int] = {}
    with db.transaction(url) as conn:
        conn.execute(text("DELETE FROM home_secrets"))
        for table in moving.tables():
            rows, seen = [], set()
            next_id = rng.randrange(1, 50)
            many = rng.choice([0, 1, 3, 12, 40]) if games is None else games * (1 if table.name == "games" else 8)
            for serial in range(many):
                row = {}
                for column in table.columns:
                    fks = list(column.foreign_keys)
                    if fks:
                        pool = keys.get(f"{fks[0].column.table.name}.{fks[0].column.name}", [])
                        row[column.key] = rng.choice(pool) if pool else None
                    elif column.primary_key and isinstance(column.type, Integer):
                        row[column.key] = next_id
                        next_id += rng.choice([1, 1, 2, 17])  # gaps, as rows deleted leave
                    else:
                        row[column.key] = _value(rng, column, serial, None if games is None else 20_000)
                pk = tuple(row[c.key] for c in table.primary_key.columns)
                if None in pk or pk in seen or any(row[c.key] is None and not c.nullable for c in table.columns):
                    continue
                seen.add(pk)
                rows.append(row)
            if rows:
                conn.execute(table.insert(), rows)
            for column in table.columns:
                keys[f"{table.name}.{column.name}"] = [r[column.key] for r in rows]
            counts[table.name] = len(rows)
    return counts


def _rows(url: str, table: Any) -> list[tuple[Any, ...]]:
    with db.reading(url) as conn:
        return sorted((tuple(r) for r in conn.execute(select(table))), key=repr)


def _next_ids_collide(url: str) -> list[str]:
    """Tables whose next id on PostgreSQL would be one already taken."""
    bad = []
    with db.transaction(url) as conn:
        for table in moving.tables():
            pk = list(table.primary_key.columns)
            if len(pk) != 1 or not isinstance(pk[0].type, Integer):
                continue
            seq = conn.execute(text("SELECT pg_get_serial_sequence(:t, :c)"), {"t": table.name, "c": pk[0].name})
            if (name := seq.scalar()) is None:
                continue
            top = conn.execute(text(f"SELECT max({pk[0].name}) FROM {table.name}")).scalar() or 0
            if conn.execute(text("SELECT nextval(:s)"), {"s": name}).scalar() <= top:
                bad.append(table.name)
        conn.rollback()
    return bad


def moved_alike(tmp_path: Path, pg_url: str, seed: int) -> str | None:
    """Move one random record; None when the copy is the source table by table and ids continue, else what differs."""
    src = f"sqlite:///{tmp_path / f'r{seed}.db'}"
    counts = random_record(src, seed)
    dst = emptied(pg_url)
    try:
        moving.move(src, dst, chains_of, most_rows=7, most_bytes=100_000)  # small batches: many of them
    except (moving.Refused, moving.Mismatch) as exc:
        return f"seed {seed}: {exc}"
    for table in moving.tables():
        if (a := _rows(src, table)) != (b := _rows(dst, table)):
            return f"seed {seed}: table {table.name}: {len(a)} rows in SQLite, {len(b)} on PostgreSQL, or they differ"
    if sum(counts.values()) == 0:
        return None
    if bad := _next_ids_collide(dst):
        return f"seed {seed}: the next id of {', '.join(bad)} is one already copied"
    return None


def test_records_of_random_shapes_move_table_by_table_and_ids_continue(tmp_path: Path, pg_url: str) -> None:
    failed = [why for seed in range(CASES) if (why := moved_alike(tmp_path, pg_url, seed))]
    assert not failed, f"{len(failed)} of {CASES} moves differ: {failed[:3]}"


def test_a_value_postgresql_cannot_hold_refuses_the_move_in_one_line_and_keeps_nothing(
    tmp_path: Path, pg_url: str
) -> None:
    """A NUL character in text (SQLite keeps it; PostgreSQL's text cannot): refused naming the table, nothing kept."""
    src = f"sqlite:///{tmp_path / 'nul.db'}"
    random_record(src, 1)
    with db.transaction(src) as conn:
        conn.execute(
            text(
                "INSERT INTO poll_marks (name, value, updated_at)"
                " VALUES ('nul', 'a' || char(0) || 'b', '2026-01-01 00:00:00.000000')"
            )
        )
    dst = emptied(pg_url)
    with pytest.raises(moving.Mismatch, match=r"table poll_marks: PostgreSQL refused a row .*nothing was kept"):
        moving.move(src, dst, chains_of)
    assert moving.emptiness(dst) is None


# ----------------------------------------------------------------------------- a move killed on the way


def _killed_at(src: str, dst: str, at: int) -> None:
    def each(_table: str, _rows: int) -> None:
        each.n += 1  # type: ignore[attr-defined]
        if each.n >= at:  # type: ignore[attr-defined]
            os.kill(os.getpid(), signal.SIGKILL)

    each.n = 0  # type: ignore[attr-defined]
    db.engine_for.cache_clear()  # (the parent's pooled connections are not this process's)
    moving.move(src, dst, chains_of, each=each, most_rows=3)


def test_a_move_killed_at_a_random_row_leaves_the_target_empty_and_the_next_try_moves_it(
    tmp_path: Path, pg_url: str
) -> None:
    src = f"sqlite:///{tmp_path / 'k.db'}"
    random_record(src, 7)
    dst = emptied(pg_url)
    db.engine_for.cache_clear()
    at = random.Random(7).randrange(1, 20)
    child = multiprocessing.get_context("fork").Process(target=_killed_at, args=(src, dst, at))
    child.start()
    child.join(120)
    assert child.exitcode == -signal.SIGKILL, child.exitcode
    assert moving.emptiness(dst) is None  # nothing committed
    moved = moving.move(src, dst, chains_of)  # the killed session's lock went with it
    assert moved.rows == sum(moving.row_counts(src).values())
    with pytest.raises(moving.Refused, match=r"the target database is not empty: its table \w+ holds"):
        moving.move(src, dst, chains_of)


# ----------------------------------------------------------------------------- games mid-play, then polled on PostgreSQL


def _home(directory: Path) -> Any:
    from pbem.cli.support import init_home
    from pbem.home import config as config_mod
    from tests.reliability import killpoints as kp
    from tests.test_postgres import _setup_games

    cfg = config_mod.load(init_home(directory, address="moderator@pbem.test", name="Test Moderator"))
    kp.share_message_id_secret(cfg)  # both homes key Message-IDs alike: their records compare row for row
    _setup_games(cfg)
    return cfg


def _held_back(cfg: Any, keep: Path) -> list[Path]:
    """The later half of the inbox (by arrival) moved out to `keep`."""
    new = cfg.maildir_path / "inbox" / "new"
    later = sorted(new.iterdir(), key=lambda p: p.stat().st_mtime_ns)[len(list(new.iterdir())) // 2 :]
    keep.mkdir()
    return [p.rename(keep / p.name) for p in later]


def _poll(cfg: Any, when: datetime) -> Any:
    from pbem.app import poll as polling
    from pbem.home.app import Home
    from pbem.mail.transports.maildir import MaildirInbox, MaildirSender

    return polling.poll(
        Home.of(cfg, inbox=MaildirInbox(cfg.maildir_path), sender=MaildirSender(cfg.maildir_path), clock=lambda: when)
    )


def _played_in_two_halves(cfg: Any, tmp: Path, between: Any) -> Any:
    from tests.test_postgres import FIXED

    later = _held_back(cfg, tmp / "later")
    first = datetime.fromisoformat(FIXED)
    _poll(cfg, first)
    cfg = between(cfg)
    for p in later:
        p.rename(cfg.maildir_path / "inbox" / "new" / p.name)
    _poll(cfg, first + timedelta(minutes=10))
    return cfg


def test_games_mid_play_moved_then_polled_on_postgres_end_as_on_sqlite(tmp_path: Path, pg_url: str) -> None:
    from pbem.app import move as app_move
    from pbem.app.exports import export_game
    from pbem.history.export import verify
    from pbem.home import config as config_mod
    from pbem.home.app import Home
    from tests.test_postgres import GAMES, _record, _sent_ids

    stayed = _played_in_two_halves(_home(tmp_path / "a"), tmp_path / "a", lambda cfg: cfg)
    dst = emptied(pg_url)
    seen: dict[str, Any] = {}

    def moved(cfg: Any) -> Any:
        sqlite_file = cfg.path.parent / "pbem.db"
        before = sqlite_file.read_bytes()
        seen["done"] = app_move.move(cfg, cfg.path, dst, edit=True)
        assert sqlite_file.read_bytes() == before  # the SQLite file untouched
        return config_mod.load(cfg.path)

    went = _played_in_two_halves(_home(tmp_path / "b"), tmp_path / "b", moved)
    assert went.database_url == dst and (went.path.parent / "pbem.toml.before-move").exists()
    assert len(seen["done"].moved.chains) == GAMES and all(
        v.startswith("ok ") for v in seen["done"].moved.chains.values()
    )
    assert _record(dst) == _record(stayed.database_url)
    sent = _sent_ids(went)
    assert len(sent) == len(set(sent)) and sorted(sent) == sorted(_sent_ids(stayed))  # none twice, none missing
    import json

    for g in range(GAMES):
        doc = json.loads(export_game(Home.of(went), f"cc{g}", "json", moderator=True))
        assert verify(doc, partial=True).ok, f"cc{g}"


# ----------------------------------------------------------------------------- memory: a batch at a time


def moves(tmp_path: Path, pg_url: str) -> Any:
    """`work(games)` for `tests.growth.held_growth`: the move of a record of that many games (`random_record`)."""
    import pbem.app.move
    import pbem.history.export  # noqa: F401  (imported before the fork: the child counts the move, not imports)

    def work(games: int) -> Any:
        src = f"sqlite:///{tmp_path / f'm{games}.db'}"
        random_record(src, 3, games=games)
        dst = emptied(pg_url)

        def run() -> None:
            db.engine_for = db._Engines(8)  # this forked child's own connections, never the parent's (`alone`)
            moving.move(src, dst, chains_of, most_rows=100, most_bytes=128 * 1024)

        return run

    return work


def test_the_move_holds_a_batch_at_a_time_whatever_the_number_of_games(tmp_path: Path, pg_url: str) -> None:
    """Peak bytes (`tests.growth.held_growth`) at 1 and 4 games' worth of rows, 1 and 16 in `.ci/run`'s whole-size
    step (and with PBEM_MOVE_CASES past the sample): flat past one batch.  walk11: 1,148,923 and 1,799,275 bytes at 1x and 4x, 1,149,505 and 1,826,781 at 1x
    and 16x (the 1x record fills no batch of 128 KiB in some tables).  Read 50 rows at a time from SQLite (its
    first form, each game's chain then read by the whole export) it held 2,262,247, 2,299,593 and 5,342,336 at 1x,
    4x and 16x: the 16x record's tables were the first to fill 50 rows of 20 KB values."""
    from tests.growth import held_growth

    steps = held_growth(moves(tmp_path, pg_url), 1, factor=16 if CASES > SAMPLE else 4)
    print(f"move-record peak: {steps}")
    assert steps.large < 1.5 * steps.small + 256 * 1024, str(steps)


# ----------------------------------------------------------------------------- refusals, each in one line


def test_a_move_is_refused_in_one_line_while_a_poll_runs_or_the_sqlite_record_is_older_or_the_url_is_not_postgres(
    tmp_path: Path, pg_url: str
) -> None:
    from typer.testing import CliRunner

    from pbem.app import move as app_move
    from pbem.cli import app
    from pbem.cli.support import init_home
    from pbem.home import config as config_mod

    cfg = config_mod.load(init_home(tmp_path / "home", address="moderator@pbem.test"))
    dst = emptied(pg_url)

    def cli(url: str) -> Any:
        return CliRunner().invoke(app, ["--config", str(cfg.path), "move-record", url])

    got = cli("sqlite:///elsewhere.db")
    assert got.exit_code == 2 and ": it must be a PostgreSQL url (postgresql+psycopg://" in got.output, got.output
    import subprocess
    import sys

    holder = (  # a poll's lock, held by another process that is pbem's (a lock of no pbem process is taken over)
        "import sys, time; from pbem.app.polllock import Lock; lock = Lock(sys.argv[1], 900); "
        "assert lock.take() is None; print('held', flush=True); time.sleep(60)"
    )
    poll = subprocess.Popen(
        [sys.executable, "-c", holder, str(cfg.home), "pbem-poll"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert poll.stdout is not None and poll.stdout.readline().strip() == "held"
        got = cli(dst)
        assert got.exit_code == 2 and "pbem: a pbem poll is running on this home: run this again" in got.output
    finally:
        poll.kill()
        poll.wait()
    assert moving.emptiness(dst) is None
    older = tmp_path / "older.db"
    db.migrate(f"sqlite:///{older}", "0023_address_bounces")
    cfg.database_url = f"sqlite:///{older}"
    with pytest.raises(app_move.Refused, match=r"at schema 0023_address_bounces, .*: run `pbem --config .* upgrade`"):
        app_move.move(cfg, cfg.path, dst)
    assert moving.emptiness(dst) is None


def test_without_edit_config_the_move_prints_the_line_to_put_in_pbem_toml_and_changes_no_file(
    tmp_path: Path, pg_url: str
) -> None:
    from typer.testing import CliRunner

    from pbem.cli import app
    from pbem.cli.support import init_home

    path = init_home(tmp_path / "home", address="moderator@pbem.test")
    before = path.read_bytes()
    dst = emptied(pg_url)
    got = CliRunner().invoke(app, ["--config", str(path), "move-record", dst])
    assert got.exit_code == 0, got.output
    lines = got.output.strip().splitlines()
    assert lines[-2].startswith(f'now edit {path}: under [database], url = "postgresql+psycopg://pbem:***@'), lines
    assert lines[-1] == f"then run: pbem --config {path} check, and pbem --config {path} poll", lines
    assert path.read_bytes() == before and not path.with_name("pbem.toml.before-move").exists()
    assert moving.emptiness(dst) is not None  # the record is there

"""`pbem backup --check --restore-into` reads every game's hash chain in the restored dump (costs27).

A SQLite backup's check reads each game's chain (`pbem.app.chains`, walk12): an event or order changed in the
database, which no other check reads, breaks it at that entry.  A pg_dump restored into a scratch database was read
for its schema, keys and queued mails' checksums only: an event or order changed in the database before the dump
passed as intact.  The generator `CHANGES` alters one chained row of the game in a way each (an event's text, its
data, a secret one's reader, its kind, its time): on ab18255d 5 of 5 dumps checked as intact, here 0 of 5 (each
named, exit 1).  The suite runs `SAMPLE`; `.ci/run`'s whole-size step (PBEM_FULL_SIZE=1) all.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.cli import app
from tests import pg
from tests import test_moderator as tm
from tests.conftest import CODES
from tests.sizes import FULL

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("postgres")]

#: (the game's set-up holds events only: its players' orders come later)
_EVENT = "UPDATE events SET {} WHERE seq = (SELECT min(seq) FROM events WHERE kind = '{}')"
CHANGES = {
    "an event's text": _EVENT.format("text = text || ' (changed)'", "seating"),
    "an event's data": _EVENT.format("data_json = '{\"changed\": 1}'", "deal"),
    "a secret event's reader": _EVENT.format("visibility_json = '[\"Alice\"]'", "dealt"),
    "an event's kind": _EVENT.format("kind = 'shuffled'", "shuffle"),
    "an event's time": _EVENT.format("created_at = created_at + interval '1 hour'", "turn"),
}
SAMPLE = ["an event's text"]
CASES = list(CHANGES) if FULL else SAMPLE


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    yield from pg.own_database()


@pytest.fixture
def home(tmp_path: Path, pg_url: str):
    pg.truncate(pg_url)
    cfg = pg.pg_home(tmp_path / "home", pg_url)
    tm.games.create_game(tm.Home.of(cfg), "habsburg", "hh1", tm.PLAYERS, seed="chains", codes=CODES)
    return cfg


def _backup(cfg, at: Path, name: str) -> Path:
    got = CliRunner().invoke(app, ["backup", str(at), "--name", name, "--config", str(cfg.path)])
    assert got.exit_code == 0, got.output
    return at / name


def _check(folder: Path, url: str):
    return CliRunner().invoke(app, ["backup", "--check", str(folder), "--restore-into", url])


def test_an_intact_dump_restored_says_each_games_chain_checks(home, pg_url: str, tmp_path: Path) -> None:
    got = _check(_backup(home, tmp_path / "b", "one"), pg_url)
    assert got.exit_code == 0, got.output
    assert "1 game, each one's hash chain checking" in got.output, got.output


@pytest.mark.parametrize("how", CASES)
def test_a_chained_row_changed_before_the_dump_is_named_by_the_restored_check(home, pg_url, tmp_path, how) -> None:
    import psycopg

    with psycopg.connect(pg.plain_url(pg_url), autocommit=True) as conn:
        changed = conn.execute(CHANGES[how]).rowcount
    assert changed == 1, f"{how}: {changed} rows changed"
    got = _check(_backup(home, tmp_path / "b", "changed"), pg_url)
    assert got.exit_code == 1, got.output
    assert "restored, 1 game(s)' hash chain does not check: hh1 (" in got.output, got.output

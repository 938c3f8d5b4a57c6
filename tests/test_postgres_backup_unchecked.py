"""`pbem backup --check` of a pg_dump file says what it did not check, and with `--restore-into` checks the
checksums of the mail still to send (walk11).

Without `--restore-into` the database in a dump is not read: its games' keys and the queued mail's checksums are
not checked.  On 8aa88d6c the dump's line named only the keys; the checksums went unmentioned.  With
`--restore-into`, the probe read every queued mail's checksum (`pbem.record.backup.held`) but the check never said
what it found: a queued mail whose bytes were changed in the database before the dump passed as intact.  The
generator `CHANGES` alters one queued mail's bytes in a way each (a byte appended, one flipped, the end cut): on
8aa88d6c 3 of 3 dumps checked as intact (and 1 of 1 intact dump said nothing of the checksums), on walk11 0 of 3
(each named, exit 1).  The suite runs `SAMPLE` of them; `.ci/run`'s whole-size step (PBEM_FULL_SIZE=1) all.
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

CHANGES = {
    "appended": "raw || '\\x00'::bytea",
    "flipped": "overlay(raw placing '\\xff'::bytea from 10 for 1)",
    "cut": "substring(raw from 1 for length(raw) - 5)",
}
SAMPLE = ["flipped"]
CASES = list(CHANGES) if FULL else SAMPLE


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    yield from pg.own_database()


@pytest.fixture
def home(tmp_path: Path, pg_url: str):
    pg.truncate(pg_url)
    cfg = pg.pg_home(tmp_path / "home", pg_url)
    tm.games.create_game(tm.Home.of(cfg), "habsburg", "hh1", tm.PLAYERS, seed="unchecked", codes=CODES)  # mail queued
    return cfg


def _backup(cfg, at: Path, name: str) -> Path:
    got = CliRunner().invoke(app, ["backup", str(at), "--name", name, "--config", str(cfg.path)])
    assert got.exit_code == 0, got.output
    return at / name


def _check(folder: Path, *more: str):
    return CliRunner().invoke(app, ["backup", "--check", str(folder), *more])


def test_a_dump_checked_alone_says_the_queued_mails_checksums_were_not_checked_and_how(home, tmp_path: Path) -> None:
    got = _check(_backup(home, tmp_path / "b", "one"))
    assert got.exit_code == 0, got.output
    line = next(ln for ln in got.output.splitlines() if ln.startswith("pbem.pgdump: a pg_dump file"))
    assert "not checked here" in line and "the checksums of the mail still to send" in line, line
    assert "--restore-into URL restores it into a scratch database to check them" in line, line


def test_an_intact_dump_restored_says_every_queued_mail_matches_its_checksum(home, pg_url: str, tmp_path: Path):
    got = _check(_backup(home, tmp_path / "b", "one"), "--restore-into", pg_url)
    assert got.exit_code == 0 and ", every mail still to send matching its checksum (" in got.output, got.output


@pytest.mark.parametrize("how", CASES)
def test_a_queued_mail_changed_before_the_dump_is_named_by_the_restored_check(home, pg_url, tmp_path, how) -> None:
    import psycopg

    with psycopg.connect(pg.plain_url(pg_url), autocommit=True) as conn:
        conn.execute(
            f"UPDATE outbox_mail SET raw = {CHANGES[how]} WHERE id = (SELECT min(o.id) FROM outbox o "
            "JOIN outbox_mail m ON m.id = o.id WHERE o.status = 'queued' AND m.checksum IS NOT NULL)"
        )
    got = _check(_backup(home, tmp_path / "b", how), "--restore-into", pg_url)
    assert got.exit_code == 1, got.output
    assert "pbem.pgdump: restored, 1 queued mail(s) (" in got.output, got.output
    assert "hold bytes that are not those queued" in got.output, got.output

"""`pbem backup --check --restore-into`'s waits for its PostgreSQL server end by `--within` (costs27).

The sweep of every wait (costs27): the scratch database's connections (`pbem.record.restore_probe`) were made by
`psycopg.connect` alone, with none of the engines' bounds: no answer deadline (libpq's reads have none), no
keepalives, and the server's name resolved by a plain `getaddrinfo` before the connect timeout starts.  A server
that stopped answering mid-statement (`test_waits_statements.StallingProxy`, stalled at each statement the check
sends) held the check past its `--within` until the command's deadline ended the process (in-process: for ever);
here each wait ends by `--within` and the check says it is late, in one line.  Before (ee1d4d0c, whose check reads
the chains) 3 of 3 stalls (the scratch database's creation, the schema's read, the chains' read) held it past
`--within` + 10 s, here 0.  The
suite runs `SAMPLE`; `.ci/run`'s whole-size step (PBEM_FULL_SIZE=1) all.
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
from tests.reliability.test_waits_statements import _within, proxied
from tests.sizes import FULL

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("postgres")]

WITHIN = 3.0  # the check's --within, seconds
#: a statement the check sends, at which the proxy stops answering
STALLS = {
    "creating the scratch database": b"CREATE DATABASE",
    "reading the schema": b"pg_tables",
    "reading the chains": b"FROM events",
}
SAMPLE = ["reading the schema"]
CASES = list(STALLS) if FULL else SAMPLE


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    yield from pg.own_database()


@pytest.fixture
def dumped(tmp_path: Path, pg_url: str) -> Path:
    pg.truncate(pg_url)
    cfg = pg.pg_home(tmp_path / "home", pg_url)
    tm.games.create_game(tm.Home.of(cfg), "habsburg", "hh1", tm.PLAYERS, seed="waits", codes=CODES)
    got = CliRunner().invoke(app, ["backup", str(tmp_path / "b"), "--name", "one", "--config", str(cfg.path)])
    assert got.exit_code == 0, got.output
    return tmp_path / "b" / "one"


@pytest.mark.parametrize("stall", CASES)
def test_a_server_silent_mid_statement_ends_the_restored_check_by_its_within(dumped, pg_url, stall) -> None:
    from pbem.app.backup_check import Restore, check

    with proxied(pg_url) as (proxy, url):
        proxy.stall_on = STALLS[stall]
        raised: list[BaseException | None] = []
        got: list[object] = []
        spent = _within(WITHIN + 10, lambda: got.append(check(dumped, Restore(url, WITHIN))), proxy.close, raised)
    assert raised[0] is None, repr(raised[0])
    assert proxy.stalled >= 1, f"{stall}: the proxy never saw {STALLS[stall]!r}"
    assert spent < WITHIN + 5, spent  # wall clock: deadline
    said = "\n".join(getattr(got[0], "wrong", [])) + str(getattr(got[0], "unchecked", ""))
    assert "did not answer by the deadline" in said, said

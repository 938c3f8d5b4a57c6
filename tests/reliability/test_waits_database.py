"""A PostgreSQL server that never answers, or a record lock another run never releases, cannot hold pbem.

* A real TCP server on 127.0.0.1 that accepts and stays silent, as the record's `database_url`: libpq waited
  for ever by default (found by this test: any pbem command hung); the connection now ends at
  `PG_CONNECT_TIMEOUT` and the command says in one line that the database could not be used (exit 3).
* The record's advisory lock held by another connection (a run stuck inside its transaction): the next writer
  waits `BUSY_TIMEOUT_MS` at most, as SQLite's busy timeout (tests/reliability/test_faults.py), and says so.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from pbem.cli import _unusable
from pbem.record import db
from tests import pg
from tests.mail.test_deadlines import server
from tests.reliability.test_waits_servers import silent


@pytest.fixture()
def fresh_engines(monkeypatch) -> Iterator[None]:
    """Engines made anew with the timeouts the test sets (they are read when an engine is made)."""
    db.engine_for.cache_clear()
    yield
    db.engine_for.cache_clear()


def test_a_silent_postgresql_server_ends_at_the_connect_timeout(monkeypatch, fresh_engines) -> None:
    monkeypatch.setattr(db, "PG_CONNECT_TIMEOUT", 1, raising=False)
    with server(silent) as (port, _):
        url = f"postgresql+psycopg://pbem:secret-pw@127.0.0.1:{port}/pbem"
        started = time.monotonic()
        with pytest.raises(OperationalError) as err, db.transaction(url):
            pass
        spent = time.monotonic() - started
    assert spent < 1 + 5, spent  # wall clock: deadline
    line = _unusable(err.value)
    assert line is not None and line.startswith("the database could not be used: "), line
    assert "\n" not in line and "secret-pw" not in line, line


@pytest.mark.postgres
def test_a_record_lock_held_by_another_run_ends_at_the_busy_timeout(monkeypatch, fresh_engines) -> None:
    base, why = pg.server()
    if base is None:
        pytest.skip(why)
    monkeypatch.setattr(db, "BUSY_TIMEOUT_MS", 500)
    with pg.run_database(base) as url:
        with db.engine_for(url).connect() as holder:
            holder.execute(text(f"SELECT pg_advisory_xact_lock({db.RECORD_LOCK})"))  # held until its rollback
            started = time.monotonic()
            with pytest.raises(OperationalError) as err, db.transaction(url):
                pass
            spent = time.monotonic() - started
            holder.rollback()
        with db.transaction(url) as conn:  # released: the next writer goes on
            assert conn.execute(text("SELECT 1")).scalar() == 1
        db.engine_for(url).dispose()
    assert spent < 0.5 + 5, spent  # wall clock: deadline
    line = _unusable(err.value)
    assert line is not None and "lock timeout" in line, line

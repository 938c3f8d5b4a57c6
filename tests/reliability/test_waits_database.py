"""A PostgreSQL server that never answers, or a record lock another run never releases, cannot hold pbem.

* A real TCP server on 127.0.0.1 that accepts and stays silent, as the record's `database_url`: libpq waited
  for ever by default (found by this test: any pbem command hung); the connection now ends at
  `PG_CONNECT_TIMEOUT` and the command says in one line that the database could not be used (exit 3).
* A DNS resolver that never answers for the server's name: psycopg resolved it with a plain `getaddrinfo` before
  libpq's connect timeout started, so the command waited on the resolver (found reading psycopg's connect; the
  test's resolver answers after 20 s, and the command took those 20 s).  The name is now resolved within the
  connect timeout, as the mail servers' names are, and the command says so in one line.
* The same for a list of hosts and for hosts named by the environment (`PGHOST`): psycopg resolved each name of
  them itself (the last session's note); each name now has the connect timeout, and a name not found is skipped
  while another host of the list is left, as psycopg does.
* The record's advisory lock held by another connection (a run stuck inside its transaction): the next writer
  waits `BUSY_TIMEOUT_MS` at most, as SQLite's busy timeout (tests/reliability/test_faults.py), and says so.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from pbem.cli import _unusable
from pbem.record import db
from tests import pg
from tests.growth import Stopwatch
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
        _ends_in_one_line(f"postgresql+psycopg://pbem:secret-pw@127.0.0.1:{port}/pbem", within=1)


def _ends_in_one_line(url: str, within: float) -> str:
    """The line a command says when the record at `url` cannot be used, checked to come within `within` s."""
    watch = Stopwatch()
    with pytest.raises(OperationalError) as err, db.transaction(url):
        pass
    spent = watch.stop()
    assert spent < within + 5, spent  # wall clock: deadline
    line = _unusable(err.value)
    assert line is not None and line.startswith("the database could not be used: "), line
    assert "\n" not in line and "secret-pw" not in line, line
    return line


def _a_resolver_that_does_not_answer(monkeypatch) -> None:
    real = socket.getaddrinfo

    def slow(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        numeric = (len(args) > 3 and args[3] & socket.AI_NUMERICHOST) or kwargs.get("flags", 0) & socket.AI_NUMERICHOST
        if host == "db.pbem.test" and not numeric:  # a numeric look-up asks no resolver
            time.sleep(20)  # a resolver that answers too late: "no such name"
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", slow)


def test_a_server_name_the_resolver_never_answers_ends_at_the_connect_timeout(monkeypatch, fresh_engines) -> None:
    monkeypatch.setattr(db, "PG_CONNECT_TIMEOUT", 1, raising=False)
    _a_resolver_that_does_not_answer(monkeypatch)
    line = _ends_in_one_line("postgresql+psycopg://pbem:secret-pw@db.pbem.test:5432/pbem", within=1)
    assert "'db.pbem.test'" in line and "not resolved within 1 s" in line, line


def test_a_name_and_a_numeric_address_are_given_to_libpq_as_resolved(monkeypatch) -> None:
    for var in ("PGHOST", "PGPORT", "PGHOSTADDR"):
        monkeypatch.delenv(var, raising=False)
    assert db._resolved({"host": "127.0.0.1", "port": 5432})["hostaddr"] == "127.0.0.1"
    named = db._resolved({"host": "localhost", "port": 5432, "connect_timeout": 5})
    hosts, addresses = named["host"].split(","), named["hostaddr"].split(",")
    assert set(hosts) == {"localhost"} and len(hosts) == len(addresses) and "127.0.0.1" in addresses, named
    for own in (
        {"host": "/var/run/postgresql"},
        {"host": "a,b", "port": "1,2,3"},
        {"host": "x", "hostaddr": "1.2.3.4"},
        {},
    ):
        assert db._resolved(own) == own  # a socket directory, lists that do not match, a URL's own address: psycopg's


def test_a_list_of_hosts_and_the_environments_host_are_resolved_as_libpq_reads_them(monkeypatch) -> None:
    """A list of hosts (one port, or one a host; a socket directory kept in its place) and `PGHOST`/`PGPORT`
    were resolved by psycopg's own `getaddrinfo`, outside the deadline (the last session's note)."""
    for var in ("PGHOST", "PGPORT", "PGHOSTADDR"):
        monkeypatch.delenv(var, raising=False)
    listed = db._resolved({"host": "/run/pg,localhost,10.0.0.7", "port": "5432,5433,5434", "connect_timeout": 5})
    rows = list(zip(*(listed[key].split(",") for key in ("host", "hostaddr", "port")), strict=True))
    assert rows[0] == ("/run/pg", "", "5432") and rows[-1] == ("10.0.0.7", "10.0.0.7", "5434"), rows
    assert {r for r in rows[1:-1]} == {("localhost", "127.0.0.1", "5433")}, rows
    monkeypatch.setenv("PGHOST", "localhost")
    monkeypatch.setenv("PGPORT", "6543")
    assert db._resolved({"dbname": "x"}) == {
        "dbname": "x",
        "host": "localhost",
        "hostaddr": "127.0.0.1",
        "port": "6543",
    }
    monkeypatch.setenv("PGHOSTADDR", "10.0.0.8")  # addresses given by the environment: libpq's own
    assert db._resolved({"dbname": "x"}) == {"dbname": "x"}


def test_every_name_of_a_list_the_resolver_never_answers_ends_at_the_connect_timeout(
    monkeypatch, fresh_engines
) -> None:
    monkeypatch.setattr(db, "PG_CONNECT_TIMEOUT", 1, raising=False)
    _a_resolver_that_does_not_answer(monkeypatch)
    monkeypatch.setenv("PGHOST", "db.pbem.test,db.pbem.test")  # from the environment, twice: one timeout each
    monkeypatch.delenv("PGHOSTADDR", raising=False)
    line = _ends_in_one_line("postgresql+psycopg://pbem:secret-pw@/pbem", within=2)
    assert "'db.pbem.test'" in line and "not resolved within 1 s" in line, line


@pytest.mark.postgres
def test_a_server_named_by_a_host_name_is_reached_through_the_resolved_address(fresh_engines) -> None:
    base, why = pg.server()
    if base is None:
        pytest.skip(why)
    with pg.run_database(base) as url:
        named = url.replace("@127.0.0.1:", "@localhost:", 1)
        assert named != url, url
        _reaches_the_local_server(named)


def _reaches_the_local_server(url: str) -> None:
    """A transaction on the record at `url` runs on this machine's server (reached by its address)."""
    with db.transaction(url) as conn:
        assert conn.execute(text("SELECT inet_server_addr()::text")).scalar() in ("127.0.0.1/32", "::1/128")
    db.engine_for(url).dispose()


@pytest.mark.postgres
def test_a_list_whose_first_name_is_never_resolved_reaches_the_next_host(monkeypatch, fresh_engines) -> None:
    base, why = pg.server()
    if base is None:
        pytest.skip(why)
    monkeypatch.setattr(db, "PG_CONNECT_TIMEOUT", 1, raising=False)
    _a_resolver_that_does_not_answer(monkeypatch)
    with pg.run_database(base) as url:
        port = url.split("@127.0.0.1:", 1)[1].split("/", 1)[0]
        listed = url.replace(f"@127.0.0.1:{port}/", "@/", 1) + f"?host=db.pbem.test:{port}&host=localhost:{port}"
        watch = Stopwatch()
        _reaches_the_local_server(listed)
        spent = watch.stop()
        assert spent < 1 + 5, spent  # wall clock: deadline (the first name given up at 1 s, not the resolver's 20 s)


@pytest.mark.postgres
def test_a_record_lock_held_by_another_run_ends_at_the_busy_timeout(monkeypatch, fresh_engines) -> None:
    base, why = pg.server()
    if base is None:
        pytest.skip(why)
    monkeypatch.setattr(db, "BUSY_TIMEOUT_MS", 500)
    with pg.run_database(base) as url:
        with db.engine_for(url).connect() as holder:
            holder.execute(text(f"SELECT pg_advisory_xact_lock({db.RECORD_LOCK})"))  # held until its rollback
            watch = Stopwatch()
            with pytest.raises(OperationalError) as err, db.transaction(url):
                pass
            spent = watch.stop()
            holder.rollback()
        with db.transaction(url) as conn:  # released: the next writer goes on
            assert conn.execute(text("SELECT 1")).scalar() == 1
        db.engine_for(url).dispose()
    assert spent < 0.5 + 5, spent  # wall clock: deadline
    line = _unusable(err.value)
    assert line is not None and "lock timeout" in line, line

"""A PostgreSQL server that stops answering in the middle of a statement cannot hold any pbem command.

A real TCP proxy on 127.0.0.1 in front of the test cluster forwards both ways until the client sends a chosen
statement; it forwards that statement and one byte of the answer, then nothing more, while keeping both sockets
open and reading (the peer's kernel acknowledges everything, as a frozen server, a stuck NAT or a dead proxy's
would: TCP keepalives are answered, the statement timeout never reaches the client).  libpq's reads have no
timeout: every command but `pbem poll` (whose watchdog ended it) waited without limit (found by this test).
Every wait of a connection for the server now ends at `PG_ANSWER_DEADLINE`, with one line and exit 3.

The live server's own bounds are checked beside it: the statement timeout (a statement the server runs too long
is cancelled and said in one line), a URL's own `options` kept with pbem's (they were replaced), and a
migration free of the statement timeout.
"""

from __future__ import annotations

import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from pbem.cli import _unusable
from pbem.record import db
from tests import pg

pytestmark = pytest.mark.postgres

DEADLINE = 1.0  # seconds: set only for the stalled statement's command (a loaded machine's round trip fits)


class StallingProxy:
    """A TCP proxy to `target` that stops forwarding, mid-answer, once a client sends `stall_on`."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.stall_on: bytes | None = None
        self.stalled = 0  # connections stalled so far
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.2)
        self._stop = threading.Event()
        self._socks: list[socket.socket] = []
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        return int(self._listener.getsockname()[1])

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                client, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            upstream = socket.create_connection(self.target, timeout=5)
            self._socks += [client, upstream]
            stalled = threading.Event()
            threading.Thread(target=self._pump, args=(client, upstream, stalled, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, stalled, False), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, stalled: threading.Event, from_client: bool) -> None:
        src.settimeout(0.2)
        opened = time.monotonic()
        sent_after_stall = 0
        while not self._stop.is_set() and time.monotonic() - opened < 120:  # the test's own bound
            try:
                data = src.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                return
            if not data:
                return
            if from_client and not stalled.is_set() and self.stall_on is not None and self.stall_on in data:
                stalled.set()
                self.stalled += 1
                dst.sendall(data)  # the statement reaches the server ...
                continue
            if stalled.is_set():
                if not from_client and sent_after_stall == 0:
                    dst.sendall(data[:1])  # ... and one byte of its answer the client
                    sent_after_stall = 1
                continue  # read and dropped: the connection stays open, silent
            try:
                dst.sendall(data)
            except OSError:
                return

    def close(self) -> None:
        self._stop.set()
        self._listener.close()
        for s in self._socks:
            s.close()
        self._thread.join(5)


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    yield from pg.own_database()


@contextmanager
def proxied(url: str) -> Iterator[tuple[StallingProxy, str]]:
    from sqlalchemy.engine import make_url

    u = make_url(url)
    proxy = StallingProxy((u.host or "127.0.0.1", u.port or 5432))
    try:
        yield proxy, u.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
    finally:
        proxy.close()


@pytest.fixture()
def short() -> Iterator[None]:
    """Engines made anew, with the settings the test sets (read when an engine is made); `hurry` then ends every
    wait for the server at DEADLINE."""
    db.engine_for.cache_clear()
    yield
    db.engine_for.cache_clear()


def hurry(monkeypatch, seconds: float = DEADLINE) -> None:
    """Every wait for the server from now on ends at `seconds` (read at each wait)."""
    monkeypatch.setattr(db, "PG_ANSWER_DEADLINE", seconds, raising=False)


def _within(
    seconds: float, work: Callable[[], Any], unblock: Callable[[], None], out: list[BaseException | None]
) -> float:
    """Run `work` in a thread; its time, with what it raised in `out[0]` (apart from the time: only the time is a
    wall-clock reading, tests/test_no_wall_clock_costs.py).  Still running after `seconds`: unblock it, fail."""
    out[:] = [None]

    def run() -> None:
        try:
            work()
        except BaseException as exc:
            out[0] = exc

    started = time.monotonic()
    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    spent = time.monotonic() - started
    if worker.is_alive():
        unblock()
        worker.join(10)
        pytest.fail(f"still waiting for the database after {spent:.0f} s")
    return spent


def test_a_server_that_stops_answering_mid_statement_ends_at_the_deadline(
    pg_url: str, short: None, monkeypatch
) -> None:
    monkeypatch.setattr(db, "PG_IDLE_IN_TRANSACTION_MS", 300, raising=False)  # (its engine is made below)
    with proxied(pg_url) as (proxy, url):
        with db.transaction(url) as conn:  # forwarded: it works
            assert conn.execute(text("SELECT 41 + 1")).scalar() == 42
        proxy.stall_on = b"stop answering here"
        hurry(monkeypatch)

        def stalled_statement() -> None:
            with db.transaction(url) as conn:
                conn.execute(text("SELECT 'stop answering here', pg_sleep(0)"))

        raised: list[BaseException | None] = []
        spent = _within(DEADLINE + 10, stalled_statement, proxy.close, raised)
        exc = raised[0]
        assert proxy.stalled == 1
        assert isinstance(exc, OperationalError), repr(exc)
        assert spent < DEADLINE + 5, spent  # wall clock: deadline
        line = _unusable(exc)
        assert line == f"the database could not be used: the server did not answer within {DEADLINE:g} s", line
        # The server's end of it is still open (the proxy keeps it), idle inside the transaction that holds the
        # record's lock: the server ends that session at its idle timeout, and the next run gets the lock.
        proxy.stall_on = None
        hurry(monkeypatch, 30.0)
        with db.transaction(url) as conn:  # the broken connection was dropped: the next one works
            assert conn.execute(text("SELECT 1")).scalar() == 1
        db.engine_for(url).dispose()


@pytest.fixture(scope="module")
def game_home(pg_url: str, tmp_path_factory) -> Path:
    """A home whose record holds game iw1, made once (its pbem.toml is pointed at each test's proxy)."""
    from typer.testing import CliRunner

    from pbem.cli import app
    from pbem.cli.support import init_home

    pg.truncate(pg_url)
    cfg = init_home(tmp_path_factory.mktemp("waits") / "home", address="moderator@pbem.test", name="Test Moderator")
    pg.use_postgres(cfg, pg_url)
    players = ["--player", "Ann <ann@example.test>", "--player", "Ben <ben@example.test>"]
    res = CliRunner().invoke(
        app,
        [
            "--config",
            str(cfg),
            "game",
            "new",
            "italian-wars",
            "--name",
            "iw1",
            "--seed",
            "abc",
            "--insecure-seed",
            *players,
        ],
    )
    assert res.exit_code == 0, res.output
    return cfg


@pytest.mark.parametrize(
    ("command", "statement"),
    [
        (["game", "list"], b"games"),
        (["game", "show", "iw1"], b"games"),
        (["export", "iw1", "--output", "{tmp}/iw1.json"], b"events"),
        (["publish", "{tmp}/site"], b"games"),
        (["outbox", "list"], b"outbox"),
        (["poll"], b"alembic_version"),  # the schema check, the first statement of every command
    ],
)
def test_every_command_ends_at_the_deadline_with_one_line(
    tmp_path: Path,
    pg_url: str,
    game_home: Path,
    short: None,
    monkeypatch,
    capsys,
    command: list[str],
    statement: bytes,
) -> None:
    """The whole command in this process (its constants shortened): `pbem.cli.main`, its one line, exit 3."""
    from pbem.cli import main

    with proxied(pg_url) as (proxy, url):
        cfg = tmp_path / "pbem.toml"  # the home's settings, its record reached through the proxy
        cfg.write_text(game_home.read_text().replace(f'url = "{pg_url}"', f'url = "{url}"'))
        assert f'url = "{url}"' in cfg.read_text()
        proxy.stall_on = statement  # the first statement that names this table, whichever the command sends
        hurry(monkeypatch)
        args = ["--config", str(cfg), *(a.format(tmp=tmp_path) for a in command)]
        raised: list[BaseException | None] = []
        spent = _within(DEADLINE + 20, lambda: _run_cli(monkeypatch, main, args), proxy.close, raised)
        exc = raised[0]
    err = capsys.readouterr().err
    assert proxy.stalled >= 1, err
    assert isinstance(exc, SystemExit) and exc.code == 3, (repr(exc), err)
    told = [line for line in err.splitlines() if line.startswith("pbem: ")]
    assert told == [f"pbem: the database could not be used: the server did not answer within {DEADLINE:g} s"], err
    assert "Traceback" not in err and "pbem@" not in err, err
    assert spent < DEADLINE + 15, spent  # wall clock: deadline (a retried connection may wait once more)


def _run_cli(monkeypatch, main: Callable[[], None], args: list[str]) -> None:
    monkeypatch.setattr(sys, "argv", ["pbem", *args])
    try:
        main()
    except SystemExit as exc:
        if exc.code not in (0, None):
            raise


def test_a_statement_the_server_runs_too_long_is_cancelled_by_the_server(pg_url: str, short, monkeypatch) -> None:
    monkeypatch.setattr(db, "PG_STATEMENT_TIMEOUT_MS", 200)
    monkeypatch.setattr(db, "PG_ANSWER_DEADLINE", 30.0)  # the server's own error comes first

    def slow() -> None:
        with db.transaction(pg_url) as conn:
            conn.execute(text("SELECT pg_sleep(20)"))

    raised: list[BaseException | None] = []
    spent = _within(15, slow, lambda: None, raised)
    exc = raised[0]
    assert isinstance(exc, OperationalError), repr(exc)
    assert spent < 0.2 + 5, spent  # wall clock: deadline
    line = _unusable(exc)
    assert line is not None and "statement timeout" in line and "\n" not in line, line
    db.engine_for(pg_url).dispose()


def test_a_urls_own_options_are_kept_and_its_own_settings_win(pg_url: str, short: None) -> None:
    own = quote("-c work_mem=7MB -c statement_timeout=123s", safe="")
    url = f"{pg_url}{'&' if '?' in pg_url else '?'}options={own}"
    with db.transaction(url) as conn:
        assert conn.execute(text("SHOW work_mem")).scalar() == "7MB"
        assert conn.execute(text("SHOW statement_timeout")).scalar() == "123s"
        assert _setting(conn, "lock_timeout") == str(db.BUSY_TIMEOUT_MS)
        assert conn.execute(text("SHOW TimeZone")).scalar() == "UTC"
    with db.transaction(pg_url) as conn:  # pbem's own, without the URL's
        assert _setting(conn, "statement_timeout") == str(db.PG_STATEMENT_TIMEOUT_MS)
        assert _setting(conn, "tcp_keepalives_idle") == str(db.PG_KEEPALIVES["keepalives_idle"])
        assert _setting(conn, "idle_in_transaction_session_timeout") == str(db.PG_IDLE_IN_TRANSACTION_MS)
    db.engine_for(url).dispose()
    db.engine_for(pg_url).dispose()


def _setting(conn: Any, name: str) -> str:
    """A setting as the server keeps it (milliseconds, seconds), not as SHOW words it ("1min")."""
    return str(conn.execute(text("SELECT setting FROM pg_settings WHERE name = :n"), {"n": name}).scalar())


def test_a_migration_runs_free_of_the_statement_timeout(pg_url: str, short: None) -> None:
    """A table rewritten on a large record may take longer than a statement may, and a data step may compute
    between its statements: the real migrations (Alembic, migrations/env.py) run with no statement or idle timeout
    and the longer deadline (with this test's idle timeout of 300 ms, a loaded machine's migration was ended
    between two of its statements)."""
    from sqlalchemy import event

    base, _ = pg.server()
    assert base is not None
    seen: set[tuple[str, float | None]] = set()
    with pg.run_database(base) as fresh:
        engine = db.engine_for(fresh)

        @event.listens_for(engine, "after_cursor_execute")
        def _look(_conn: Any, cursor: Any, statement: str, *_: Any) -> None:
            if statement.lstrip().upper().startswith("CREATE TABLE"):
                got = cursor.connection.execute("SHOW statement_timeout").fetchone()[0]
                idle = cursor.connection.execute("SHOW idle_in_transaction_session_timeout").fetchone()[0]
                seen.add((got, idle, getattr(db._PATIENCE, "seconds", None)))

        db.migrate(fresh)
        with db.transaction(fresh) as conn:  # and a command's statements have it again
            assert _setting(conn, "statement_timeout") == str(db.PG_STATEMENT_TIMEOUT_MS)
        engine.dispose()
    assert seen == {("0", "0", db.PG_MIGRATION_DEADLINE)}, seen

"""Database engines, sessions and migrations.

SQLite runs in WAL mode with a busy timeout so that a cron run and a
moderator command can overlap; every transaction takes the write lock at
BEGIN.  PostgreSQL gets the same guarantee from a transaction-scoped advisory
lock taken at BEGIN (`RECORD_LOCK`), so that concurrent `pbem poll` runs, even
on different hosts or without the CLI's file lock, see each other's committed
messages and never apply one twice; its sessions run in UTC because the
columns hold naive UTC times.  The schema is created and upgraded only
through Alembic (`migrate`).
"""

from __future__ import annotations

import os
import re
import socket
import sqlite3
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard

from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlmodel import Session, create_engine

from pbem.record import moving, private
from pbem.render.resources import shipped

if TYPE_CHECKING:
    from alembic.config import Config as AlembicConfig

BUSY_TIMEOUT_MS = 30_000
# Key of the PostgreSQL advisory lock that serialises writers to one record (b"pbem" as an integer).
RECORD_LOCK = 0x7062656D
READ_ONLY = "pbem_read_only"  # execution option of `reading` connections: no write lock at BEGIN


class DatabaseError(Exception):
    """The database could not be reached or is not usable; one sentence."""


class DatabaseDamaged(DatabaseError):
    """The database file is damaged on disk (SQLite read a page that is not what it wrote): the run stops at once,
    whatever it was doing, and the command exits `DAMAGED_EXIT` with `damaged_line`."""


DAMAGED_EXIT = 4  # the exit status of any command that met a damaged database (README: Backups)
# SQLite's primary result codes that say the file itself is damaged: SQLITE_CORRUPT and SQLITE_NOTADB.
_DAMAGE_CODES = frozenset({11, 26})
#: The driver's words for a text column whose bytes are no UTF-8: pbem writes only UTF-8, so the page holding them was
#: overwritten (an overflow page, which SQLite's checks do not read: walk12; an export ended in a traceback, or
#: "the database could not be used", exit 3).
_NOT_UTF8 = "Could not decode to UTF-8 column"


def damage_of(exc: BaseException) -> str | None:
    """SQLite's own words when `exc` (the driver's error, or SQLAlchemy's around it) says the database file is
    damaged; None for any other error (locked, read-only, gone: those are `unusable`)."""
    orig = getattr(exc, "orig", exc)
    if isinstance(orig, sqlite3.DatabaseError) and getattr(orig, "sqlite_errorcode", 0) & 0xFF in _DAMAGE_CODES:
        return (str(orig).splitlines() or ["damaged"])[0]
    if isinstance(orig, sqlite3.OperationalError) and str(orig).startswith(_NOT_UTF8):
        return str(orig)[: len(_NOT_UTF8) + 64].splitlines()[0]  # (the column's name; its text a few bytes only)
    return None


def damaged_line(words: str) -> str:
    """The one line a command ends with when the database is damaged: what SQLite said, what was done, what to do."""
    return (
        f"the database is damaged (SQLite says: {words}): the run stopped there, and nothing it had not recorded "
        "was applied or sent; stop the cron poll, and restore the newest backup that `pbem backup --check` finds "
        "intact (README: Backups)"
    )


def _driver_error(sql: str, params: Any, exc: sqlite3.Error) -> Exception:
    """The error to raise for the driver's `exc` met outside SQLAlchemy's statement machinery (`fetch`, `run`):
    `DatabaseDamaged` for a damaged file, as `_raise_damage` does inside it; SQLAlchemy's own error otherwise."""
    words = damage_of(exc)
    return (
        DatabaseDamaged(damaged_line(words))
        if words is not None
        else DBAPIError.instance(sql, params, exc, sqlite3.Error)
    )


def _raise_damage(ctx: Any) -> None:
    """`handle_error` of every SQLite engine: damage is raised as `DatabaseDamaged`, which no handler of one
    message or one mail keeps to itself (they keep SQLAlchemy's errors and Exception; this one stops the run)."""
    if (words := damage_of(ctx.original_exception)) is not None:
        raise DatabaseDamaged(damaged_line(words)) from None


# SQLite copies its write-ahead log into the database file every WAL_PAGES pages.  A poll writes each mail's
# outbox row twice (queued, then marked sent) and the same table and index pages in every message's
# transaction; a window of 16,384 pages (64 MiB) instead of SQLite's 1,000 copies each such page once for
# many transactions: an in-process poll of 600 replies wrote 426 MiB to disk with the default and 238 MiB
# with this, and its commits took a fifth less CPU (`python benchmarks/wal_window.py`).  After each copy
# the log is cut back to WAL_LIMIT bytes, and SQLite removes it when the last connection closes.
WAL_PAGES = 16_384
WAL_LIMIT = 64 * 1024 * 1024


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    cur.execute("PRAGMA journal_mode = WAL")
    cur.execute("PRAGMA synchronous = NORMAL")
    cur.execute("PRAGMA foreign_keys = ON")
    cur.execute(f"PRAGMA wal_autocheckpoint = {WAL_PAGES}")
    cur.execute(f"PRAGMA journal_size_limit = {WAL_LIMIT}")
    cur.close()


class _Engines:
    """`engine_for`: one engine a URL, those of the last `most` URLs used kept.  One that drops out (or all of them,
    `cache_clear`) is disposed: its pooled connections closed there and then.  `functools.lru_cache` dropped it as
    it was, and an engine is held in reference cycles (its events' listeners), so its SQLite connections stayed open
    until the collector came round, in whatever thread allocated then: the last connection to a database file
    copies its write-ahead log into it as it closes, a read call a page, where nothing asked for it (suite7: two CI
    runs' counts of 1,714 and 2,151 read calls for an export of 86, in a test process that had used hundreds of
    homes; `tests/test_engines_dropped.py`)."""

    def __init__(self, most: int) -> None:
        self.most = most
        self._engines: OrderedDict[str, Engine] = OrderedDict()
        self._lock = threading.Lock()  # the poll's threads ask too: one engine a URL, never two
        os.register_at_fork(after_in_child=self._unlocked)  # a fork taken while another thread held it

    def _unlocked(self) -> None:
        self._lock = threading.Lock()

    def __call__(self, url: str) -> Engine:
        with self._lock:
            eng = self._engines.get(url)
            if eng is not None:
                self._engines.move_to_end(url)
                return eng
            eng = self._engines[url] = _new_engine(url)
            dropped = [self._engines.popitem(last=False)[1] for _ in range(len(self._engines) - self.most)]
        for old in dropped:
            _retire(old)
        return eng

    def cache_clear(self) -> None:
        """Forget every engine (the next call makes a new one), each disposed."""
        with self._lock:
            dropped = list(self._engines.values())
            self._engines.clear()
        for old in dropped:
            _retire(old)


def _retire(eng: Engine) -> None:
    """Dispose of `eng`, and close a connection still checked out of it (a session or a `reading` that outlives the
    engine here) as it is put back.  `Engine.dispose` closes the pooled connections and gives the engine a new pool;
    one checked out went back to the old pool, which kept it open until the collector came round (suite8: of 60
    seeded sequences holding a connection across the drop, 60 kept the dropped home open on b1f92b21;
    `tests/test_engines_dropped.py`).  The listener is put on the old pool after the dispose (the new one copies
    the old one's listeners as it is made), and a second dispose closes one put back in between."""
    old = eng.pool
    eng.dispose()
    event.listen(old, "checkin", _close_on_checkin)
    old.dispose()


def _close_on_checkin(dbapi_connection: object, record: Any) -> None:
    record.invalidate()  # closes the connection; the pool keeps an empty record


def _new_engine(url: str) -> Engine:
    """The engine of the record at `url`: for SQLite, the pool of the connections that write (every unit of work,
    `transaction`) and of the few reads made on the poll's own thread; `reading` has a pool of its own
    (`_readers_of`).

    SQLite empties a connection's page cache when it starts a transaction after another connection wrote, so a
    poll's unit of work taking another connection than the last one's read again every page it touched (issue 27:
    119 page reads a reply, the connections taken in turn, first in first out, with the sender's and the code
    checks' reads).  Writers are one at a time (`WRITER`): with the readers elsewhere and the last connection put
    back taken first (`pool_use_lifo`), the poll's units keep one connection, whose cache stays good."""
    if url.startswith("sqlite"):
        private.sqlite_file(url)  # mode 0600: the database holds every game's seed, so every hand
        eng = _sqlite_engine(url)
        if private.database_path(url) is not None:
            readers = _READERS[eng] = _sqlite_engine(url)  # opens nothing until read
            event.listen(eng, "engine_disposed", lambda _: _retire(readers))  # the file may be replaced next

        path = private.database_path(url)
        mark = None if path is None else str(moving.mark_of(path))

        @event.listens_for(eng, "begin")
        def _begin(conn: Connection) -> None:  # take the write lock at BEGIN: no upgrade deadlocks between runs
            if conn.get_execution_options().get(READ_ONLY):
                return
            if mark is not None and os.path.exists(mark) and moving.holder(mark):
                _begin_during_move(conn, mark)  # (a stat a transaction; the file is there only during a move)
            else:
                _begin_immediate(conn)

        return eng
    if url.startswith("postgresql"):
        return _postgres_engine(url)
    return create_engine(url, pool_pre_ping=True)


#: The engine of the record at a URL (`_new_engine`), made once and kept while it is among the last 8 used.
engine_for = _Engines(8)


def _sqlite_engine(url: str) -> Engine:
    """A SQLite engine; a database file's pool gives the last connection put back first (`engine_for`)."""
    lifo = {"pool_use_lifo": True} if private.database_path(url) is not None else {}  # :memory: has one a thread
    eng = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000, "isolation_level": None}, **lifo)
    event.listen(eng, "connect", _sqlite_pragmas)
    event.listen(eng, "handle_error", _raise_damage)
    return eng


#: the engine `reading` takes SQLite connections from, by the writers' engine of the same database file (`engine_for`)
_READERS: weakref.WeakKeyDictionary[Engine, Engine] = weakref.WeakKeyDictionary()


def _readers_of(writers: Engine) -> Engine:
    """The pool `reading` takes connections from: for a SQLite file, one of its own (the sender's and the code
    checks' threads read while the poll writes, and a connection of theirs in the writers' pool would be the one
    the poll's next unit takes); the writers' own for any other database and for :memory:."""
    return _READERS.get(writers, writers)


#: The mark of the move this process met (`pbem.record.moving`): a write refused meanwhile says who holds the lock.
_MOVE_MET: list[str] = []


def _begin_during_move(conn: Connection, mark: str) -> None:
    """BEGIN DEFERRED with no busy wait, while `pbem move-record` holds the write lock (`pbem.record.moving`): the
    reads go on, and the first write fails at once (SQLITE_BUSY), which `unusable` words as the move's line."""
    driver = conn.connection.driver_connection
    assert driver is not None
    _MOVE_MET[:] = [mark]
    try:
        driver.execute("PRAGMA busy_timeout = 0")
        driver.execute("BEGIN")
    except sqlite3.Error as exc:
        raise _driver_error("BEGIN", None, exc) from exc


def _begin_immediate(conn: Connection) -> None:
    """BEGIN IMMEDIATE on the driver's own connection: it returns no rows and binds nothing, so the statement
    machinery around it (an execution context, cursor events) was most of a short transaction's CPU.  A
    failure (locked past the busy timeout) is raised as SQLAlchemy's own error, as `exec_driver_sql` would."""
    driver = conn.connection.driver_connection
    assert driver is not None
    try:
        if _MOVE_MET:  # (a connection `_begin_during_move` left without a busy wait: given its wait back)
            driver.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        driver.execute("BEGIN IMMEDIATE")
    except sqlite3.Error as exc:
        raise _driver_error("BEGIN IMMEDIATE", None, exc) from exc


_Compiled = tuple[Any, str, tuple[str, ...], dict[str, Any], tuple[Any, ...], tuple[Any, ...] | None]
_COMPILED: dict[tuple[int, str], _Compiled] = {}


def _compiled(conn: Connection, stmt: Any) -> _Compiled:
    """`stmt` compiled for SQLite once, with each bind's and each column's type conversion (datetimes,
    booleans; None where the value passes as it is)."""
    key = (id(stmt), conn.dialect.name)
    got = _COMPILED.get(key)
    if got is None:
        dialect = conn.dialect
        compiled = stmt.compile(dialect=dialect)
        names = tuple(compiled.positiontup or ())
        if any(compiled.binds[n].expanding for n in names):  # its SQL is only known per call
            raise ValueError("db.fetch takes no IN list of bound values: use numbered binds, or execute it")
        binds = tuple(compiled.binds[n].type._cached_bind_processor(dialect) for n in names)
        columns = tuple(rc[3]._cached_result_processor(dialect, None) for rc in compiled._result_columns)
        got = (stmt, compiled.string, names, dict(compiled.params), binds, columns if any(columns) else None)
        _COMPILED[key] = got  # the statement is kept with it: its id stays its own
    return got


def fetch(conn: Connection, stmt: Any, params: dict[str, Any]) -> list[tuple[Any, ...]]:
    """The rows of `stmt`, a SELECT built once at import (no IN list of bound values): the poll runs a dozen
    of them for every message.

    On SQLite it is compiled once and run on the transaction's own driver connection, without the execution
    context SQLAlchemy builds around every statement (most of a one-row look-up's CPU), the binds and the
    columns converted as SQLAlchemy converts them (its types' own processors); elsewhere it runs through
    SQLAlchemy as any statement."""
    if conn.dialect.name != "sqlite":
        return [tuple(r) for r in conn.execute(stmt, params)]
    sql, args, columns = _bound(conn, stmt, params)
    try:
        rows: list[tuple[Any, ...]] = _run(conn, sql, args).fetchall()
    except sqlite3.Error as exc:
        raise _driver_error(sql, params, exc) from exc
    if columns is None:
        return rows
    try:
        return [tuple(v if p is None else p(v) for p, v in zip(columns, row, strict=True)) for row in rows]
    except ValueError as exc:  # a stored time that is no time: pbem wrote it as one, so its page was overwritten
        raise DatabaseDamaged(damaged_line(f"a stored value is not of its column's type: {exc}"[:160])) from None


def _bound(conn: Connection, stmt: Any, params: dict[str, Any]) -> tuple[str, list[Any], tuple[Any, ...] | None]:
    """`stmt`'s SQL, `params` as its positional binds (converted by their types), and its columns' converters."""
    _, sql, names, defaults, binds, columns = _compiled(conn, stmt)
    args = [params[n] if n in params else defaults[n] for n in names]
    for i, proc in enumerate(binds):
        if proc is not None:
            args[i] = proc(args[i])
    return sql, args, columns


def execute(conn: Connection, stmt: Any, params: dict[str, Any]) -> None:
    """An UPDATE or DELETE built once at import, run as `fetch` runs a SELECT: compiled once on SQLite and sent
    on the driver connection (SQLAlchemy's execution context was most of a one-row update's cost); elsewhere
    through SQLAlchemy."""
    if conn.dialect.name != "sqlite":
        conn.execute(stmt, params)
        return
    sql, args, _ = _bound(conn, stmt, params)
    try:
        _run(conn, sql, args)
    except sqlite3.Error as exc:
        raise _driver_error(sql, params, exc) from exc


def _run(conn: Connection, sql: str, args: Any, many: bool = False) -> sqlite3.Cursor:
    """`sql` on the transaction's own driver connection.  Listeners of the engine's `before_cursor_execute`
    (the tests that count statements) see it as they see every statement SQLAlchemy sends."""
    driver = conn.connection.driver_connection
    assert driver is not None
    cursor: sqlite3.Cursor = driver.cursor()
    if conn._has_events or conn.engine._has_events:
        conn.dispatch.before_cursor_execute(conn, cursor, sql, args, None, many)
    return cursor.executemany(sql, args) if many else cursor.execute(sql, args)


_Insert = tuple[str, tuple[str, ...], tuple[Any, ...], dict[str, Any]]
_INSERTS: dict[tuple[int, tuple[str, ...]], _Insert | None] = {}


def _insert_plan(conn: Connection, table: Any, keys: tuple[str, ...]) -> _Insert | None:
    """The INSERT of these columns of `table`, its binds' conversions and the scalar defaults of the columns
    not given; None if a missing column's default is computed (SQLAlchemy must run it)."""
    key = (id(table), keys)
    if key in _INSERTS:
        return _INSERTS[key]
    missing = [c for c in table.columns if c.key not in keys and c.default is not None]
    plan: _Insert | None = None
    if all(c.default.is_scalar for c in missing):
        defaults = {c.key: c.default.arg for c in missing}
        names = (*keys, *defaults)
        compiled = table.insert().compile(dialect=conn.dialect, column_keys=list(names))
        order = tuple(compiled.positiontup or ())
        binds = tuple(compiled.binds[n].type._cached_bind_processor(conn.dialect) for n in order)
        plan = (compiled.string, order, binds, defaults)
    _INSERTS[key] = plan
    return plan


def insert(conn: Connection, table: Any, rows: dict[str, Any] | list[dict[str, Any]]) -> int | None:
    """INSERT `rows` (one dict, or a list of dicts with the same keys) into `table` in the caller's transaction;
    the new row's id for one row.  On SQLite the statement is compiled once per set of columns and run on the
    driver connection (SQLAlchemy's execution context costs more than a small insert); elsewhere, and for
    columns whose default SQLAlchemy computes, it runs through SQLAlchemy."""
    many = isinstance(rows, list)
    if many and not rows:
        return None
    first = rows[0] if isinstance(rows, list) else rows
    keys = tuple(first)
    plan = _insert_plan(conn, table, keys) if conn.dialect.name == "sqlite" else None
    if plan is None or (isinstance(rows, list) and any(tuple(r) != keys for r in rows)):
        res = conn.execute(table.insert(), rows)
        key = None if many else res.inserted_primary_key
        return None if key is None else int(key[0])
    sql, order, binds, defaults = plan

    def args(row: dict[str, Any]) -> list[Any]:
        values = [row[n] if n in row else defaults[n] for n in order]
        return [v if p is None else p(v) for p, v in zip(binds, values, strict=True)]

    try:
        if isinstance(rows, list):
            _run(conn, sql, [args(r) for r in rows], many=True)
            return None
        return _run(conn, sql, args(rows)).lastrowid
    except sqlite3.Error as exc:
        raise _driver_error(sql, rows, exc) from exc


_NAMES: dict[int, tuple[Any, tuple[str, ...]]] = {}


def names(stmt: Any) -> tuple[str, ...]:
    """The keys of a SELECT's columns, in order (for rows of `fetch` as mappings), found once per statement:
    every row of a look-up asks."""
    got = _NAMES.get(id(stmt))
    if got is None:
        got = _NAMES[id(stmt)] = (stmt, tuple(c.key for c in stmt.selected_columns))  # kept: its id stays its own
    return got[1]


#: PostgreSQL waits: for a connection (libpq waits for ever by default: a server that accepts and never answers
#: held any pbem command, found by tests/reliability/test_waits_database.py), and for a lock (the record's
#: advisory lock held by another run, as SQLite's busy timeout).  A URL's own `connect_timeout` wins.
PG_CONNECT_TIMEOUT = 10
#: The longest a URL's own `connect_timeout` is taken as: libpq reads 0 or a negative value as "wait for ever", so a
#: server that accepts and never answers held any command given such a URL (costs19: 0 and -5 past 40 s), and an
#: unreadable one ("abc") raised ValueError out of the name look-up.  The configuration refuses such a URL in one
#: line (`pbem.home.config`); any other (a test's, a backup's) is read by `connect_seconds`.
PG_CONNECT_MOST = 300
_SECONDS = re.compile(r"\A[+-]?[0-9]{1,12}")


def connect_seconds(given: object) -> int:
    """The connect timeout used for a URL whose `connect_timeout` is `given` (None when absent): a whole number of
    seconds from 1 to `PG_CONNECT_MOST`; 0 or less (libpq's "for ever") and more are the longest, anything
    unreadable the default."""
    text = str(given).strip() if given is not None else ""
    if not _SECONDS.fullmatch(text):
        return PG_CONNECT_MOST if _SECONDS.fullmatch(text[:12]) else PG_CONNECT_TIMEOUT  # (a huge number: the most)
    seconds = int(text)
    return PG_CONNECT_MOST if seconds <= 0 or seconds > PG_CONNECT_MOST else seconds


#: A statement the server runs longer than this is cancelled by the server (its error comes back at once).
PG_STATEMENT_TIMEOUT_MS = 60_000
#: An answer the server never sends: a server (or a proxy, a NAT, a frozen host) that stops answering in the
#: middle of a statement left every command but `pbem poll` (whose watchdog ended it) waiting without limit,
#: since libpq's reads have no timeout and TCP keepalives are answered by a peer's kernel whatever its
#: process does (found by tests/reliability/test_waits_statements.py's proxy).  Every wait of a connection for
#: the server (a statement, its rows, COMMIT, ROLLBACK, the pool's ping) ends here: the connection's socket is
#: shut and the command says in one line that the database did not answer (exit 3).  Longer than the
#: statement and lock timeouts, so that a live server's own error comes first.
PG_ANSWER_DEADLINE = 90.0
#: The same for the statements of a migration (`pbem upgrade`, `pbem init`): a table rewritten on a large
#: record may take minutes, so they get no statement or idle timeout (migrations/env.py) and this deadline.
PG_MIGRATION_DEADLINE = 3600.0
#: The server's side of the same: a session left inside its transaction (its client gone silent, or cut off by
#: the deadline above while a proxy keeps the server's end open) holds the record's lock, so every later run
#: would wait the lock timeout and fail, until the server's keepalives noticed (2 hours by default); the server
#: ends such a session after this long idle inside a transaction.  pbem's own transactions compute between
#: statements for seconds at most (an export of a long game, a step's reports).
PG_IDLE_IN_TRANSACTION_MS = 300_000
#: Keepalives for a host that vanishes while a connection is idle in the pool (no ACK comes back at all), and
#: libpq's tcp_user_timeout (ms) for data sent and never acknowledged.  A URL's own setting of each wins.  The
#: server's own socket gets the same keepalives (`_server_options`).
PG_KEEPALIVES = {
    "keepalives": 1,
    "keepalives_idle": 30,
    "keepalives_interval": 10,
    "keepalives_count": 3,
    "tcp_user_timeout": 60_000,
}

_PATIENCE = threading.local()  # `patience`: a longer deadline for this thread's waits


@contextmanager
def patience(seconds: float) -> Iterator[None]:
    """This thread's PostgreSQL waits end at `seconds` instead of `PG_ANSWER_DEADLINE` (migrations)."""
    before = getattr(_PATIENCE, "seconds", None)
    _PATIENCE.seconds = seconds
    try:
        yield
    finally:
        _PATIENCE.seconds = before


@contextmanager
def answered_by(deadline: float) -> Iterator[None]:
    """This thread's PostgreSQL waits end by `deadline` (`time.monotonic()`) at the latest, each at most `patience`'s
    or `PG_ANSWER_DEADLINE` (`pbem backup --check --restore-into`'s `--within`, costs27)."""
    before = getattr(_PATIENCE, "until", None)
    _PATIENCE.until = deadline
    try:
        yield
    finally:
        _PATIENCE.until = before


def _answer_seconds() -> float:
    seconds = getattr(_PATIENCE, "seconds", None) or PG_ANSWER_DEADLINE
    until = getattr(_PATIENCE, "until", None)
    return seconds if until is None else max(0.1, min(seconds, until - time.monotonic()))


def pg_connect(params: dict[str, Any]) -> Any:
    """A psycopg connection made outside the engines (`pbem.record.restore_probe`) with the engines' bounds on every
    wait: its host names resolved within its connect timeout (`_resolved`), pbem's keepalives (a URL's own win),
    and each wait for the server ended at its deadline (`_Answers`, `answered_by`).  Before costs27 the scratch
    database's connection had none of them: a server silent mid-statement, or a resolver that never answered, held
    `pbem backup --check --restore-into` past its `--within` until the command's deadline ended it."""
    return _pg_connection_class().connect(**_resolved({**PG_KEEPALIVES, **params}))


class _Answers:
    """The one thread that ends a wait for the server at its deadline, by shutting the connection's socket:
    the driver's read then ends at once with an error.  Arming and disarming cost a lock and a dict entry
    (a wait costs a round trip); the thread sleeps until the earliest deadline."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._due: dict[int, tuple[float, int]] = {}  # token -> (monotonic deadline, socket fd)
        self._fired: set[int] = set()
        self._next = 0
        self._thread: threading.Thread | None = None

    def arm(self, fd: int, seconds: float) -> int:
        with self._cond:
            self._next += 1
            token = self._next
            self._due[token] = (time.monotonic() + seconds, fd)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._watch, name="pbem-pg-deadline", daemon=True)
                self._thread.start()
            self._cond.notify()
            return token

    def disarm(self, token: int) -> bool:
        """Done waiting; True if the deadline passed and the socket was shut."""
        with self._cond:
            self._due.pop(token, None)
            if token in self._fired:
                self._fired.discard(token)
                return True
            return False

    def _watch(self) -> None:
        with self._cond:
            while True:
                now = time.monotonic()
                for token, (due, fd) in list(self._due.items()):
                    if due <= now:  # still waiting (disarm takes this lock): the fd is still that connection's
                        del self._due[token]
                        self._fired.add(token)
                        _shut(fd)
                soonest = min((due for due, _ in self._due.values()), default=None)
                self._cond.wait(None if soonest is None else max(soonest - now, 0.01))


def _shut(fd: int) -> None:
    """Shut the socket `fd` both ways without closing it (the driver still owns the descriptor)."""
    sock = socket.socket(fileno=fd)
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    finally:
        sock.detach()


_ANSWERS = _Answers()


@lru_cache(maxsize=1)
def _pg_connection_class() -> type[Any]:
    """psycopg's Connection whose every wait for the server ends at its deadline (`_Answers`)."""
    import psycopg

    class DeadlineConnection(psycopg.Connection[Any]):
        def wait(self, *args: Any, **kwargs: Any) -> Any:
            seconds = _answer_seconds()
            token = _ANSWERS.arm(self.pgconn.socket, seconds)
            try:
                got = super().wait(*args, **kwargs)
            except psycopg.Error as exc:
                if _ANSWERS.disarm(token):
                    self.pgconn.finish()  # its state is unknown: never used again
                    raise psycopg.OperationalError(f"the server did not answer within {seconds:g} s") from exc
                raise
            except BaseException:
                _ANSWERS.disarm(token)
                raise
            _ANSWERS.disarm(token)
            return got

    return DeadlineConnection


def _server_options() -> str:
    """The settings of each of pbem's sessions on the server, as `-c` options."""
    settings = {
        "timezone": "UTC",
        "lock_timeout": BUSY_TIMEOUT_MS,
        "statement_timeout": PG_STATEMENT_TIMEOUT_MS,
        "idle_in_transaction_session_timeout": PG_IDLE_IN_TRANSACTION_MS,
        "tcp_keepalives_idle": PG_KEEPALIVES["keepalives_idle"],
        "tcp_keepalives_interval": PG_KEEPALIVES["keepalives_interval"],
        "tcp_keepalives_count": PG_KEEPALIVES["keepalives_count"],
    }
    return " ".join(f"-c {k}={v}" for k, v in settings.items())


def _resolved(cparams: dict[str, Any]) -> dict[str, Any]:
    """libpq's parameters with the servers' names resolved within the connection's timeout.

    psycopg resolves each `host` with a plain `getaddrinfo` before libpq's `connect_timeout` starts, so a DNS
    resolver that never answered held any command until its own deadline (`pbem poll`'s watchdog) or for ever.
    Each name is resolved here as the mail servers' are (`resolve.addresses`: within the connect timeout and what
    is left of the poll's deadline) and every address found is given as `hostaddr`, the name staying in `host` (TLS
    and `.pgpass` go by it).  That holds for a list of hosts (`host=a,b` with one port or one a host) and for hosts
    named by the environment (`PGHOST`, `PGPORT`), as libpq reads them.  A socket directory or a numeric address
    needs no resolver and keeps its place; parameters that already give addresses (`hostaddr`, `PGHOSTADDR`), or
    whose lists do not match, are left to psycopg, which says what is wrong.
    """
    hosts = _given(cparams, "host", "PGHOST")
    if not hosts or _given(cparams, "hostaddr", "PGHOSTADDR"):
        return cparams
    names = hosts.split(",")
    ports = (_given(cparams, "port", "PGPORT") or "5432").split(",")
    ports = ports * len(names) if len(ports) == 1 else ports
    if len(ports) != len(names) or not all(p.strip().isdigit() for p in ports):
        return cparams
    seconds = float(connect_seconds(cparams.get("connect_timeout")))
    attempts: list[tuple[str, str, str]] = []
    failed: list[str] = []
    for name, port in zip(names, ports, strict=True):
        try:
            attempts += [(name, address, port) for address in _addresses(name, int(port), seconds)]
        except (OSError, UnicodeError) as exc:  # TimeoutError is an OSError
            failed.append(f"failed to resolve host {name!r}: {exc}")
    if not attempts:  # as psycopg: a name not found is skipped while another host is left
        import psycopg

        raise psycopg.OperationalError(failed[0] if failed else "no host to connect to")
    if not any(address for _, address, _ in attempts):
        return cparams  # socket directories only: nothing was resolved
    return {**cparams, **{key: ",".join(a[i] for a in attempts) for i, key in enumerate(("host", "hostaddr", "port"))}}


def _given(cparams: dict[str, Any], key: str, env: str) -> str:
    """A libpq parameter as the connection will read it: given, or else from its environment variable."""
    value = cparams.get(key)
    return str(value) if value not in (None, "") else os.environ.get(env, "")


def _addresses(name: str, port: int, seconds: float) -> list[str]:
    """The addresses libpq is to try for one host of the list ("" for a socket directory: libpq's own)."""
    if not name or name.startswith(("/", "@")) or name[1:2] == ":":
        return [""]
    from pbem.mail.transports import resolve

    found = resolve.addresses(name, port, seconds)
    return list(dict.fromkeys(str(where[0]) for *_, where in found))


def _postgres_engine(url: str) -> Engine:
    from sqlalchemy.engine import make_url

    query = make_url(url).query
    own = query.get("options", "")
    own = " ".join(own) if isinstance(own, tuple) else own
    # the URL's own options last: a `-c` setting given twice takes the later one
    args: dict[str, Any] = {"options": f"{_server_options()} {own}".strip()}
    # the URL's own within bounds: 0 (libpq's "for ever"), a negative or a huge one waited without end (costs19)
    args["connect_timeout"] = connect_seconds(query.get("connect_timeout"))
    args.update({k: v for k, v in PG_KEEPALIVES.items() if k not in query})
    eng = create_engine(url, pool_pre_ping=True, connect_args=args)

    @event.listens_for(eng, "do_connect")
    def _connect(_dialect: Any, _record: Any, cargs: Any, cparams: Any) -> Any:
        return _pg_connection_class().connect(*cargs, **_resolved(cparams))

    @event.listens_for(eng, "begin")
    def _begin(conn: Connection) -> None:  # one writer at a time, as BEGIN IMMEDIATE does on SQLite; released at COMMIT
        if not conn.get_execution_options().get(READ_ONLY):
            conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({RECORD_LOCK})")

    return eng


# Threads of one process (the poll and its mail sender) take turns here rather than in
# SQLite's busy handler, which sleeps in steps of milliseconds.  Every transaction takes
# the database's write lock at BEGIN anyway, so this costs no concurrency.
WRITER = threading.RLock()


class Unit(Session):
    """A unit of work: one transaction on the record, opened by `session` (the caller commits or rolls back).

    The use cases (`pbem.app`) hold it and pass it to the record's functions; they never build a query:
    every statement is in `pbem.record`, and what it returns is plain data.
    """


@contextmanager
def session(url: str) -> Iterator[Unit]:
    with WRITER, Unit(engine_for(url), expire_on_commit=False) as s:
        yield s


@contextmanager
def database_errors() -> Iterator[None]:
    """A database that cannot be used (locked past the busy timeout, gone, read-only) as a DatabaseError."""
    try:
        yield
    except OperationalError as exc:
        raise DatabaseError(unusable(exc)) from None


def why_not(exc: Exception) -> str:
    """`unusable`'s line for a database that could not be used (a move's lock, a full disk), else the error's name."""
    return unusable(exc) if isinstance(exc, OperationalError) else type(exc).__name__


def unusable(exc: DBAPIError) -> str:
    """The one line for a database that cannot be used, with the driver's first line of why (and, for a write the
    system refused, what to do)."""
    busy = _MOVE_MET and getattr(exc.orig, "sqlite_errorcode", 0) & 0xFF == _BUSY
    if busy and (who := moving.holder(_MOVE_MET[0])):  # a write while a move runs (still: else the plain line)
        return moving.refusal(who)
    return f"the database could not be used: {str(exc.orig).splitlines()[0]}{_write_refused(exc.orig)}"


def broken_server(exc: BaseException) -> TypeGuard[DBAPIError]:
    """A PostgreSQL server (or what answers in its place) whose answer broke the protocol: psycopg's InternalError or
    InterfaceError ("received 2 results from command 'BEGIN'", from an answer of garbage or an endless message),
    which every command met as a traceback (costs25, `tests.mail.hostile25_pg_dns`); SQLite's own are pbem's bugs."""
    from sqlalchemy.exc import InterfaceError, InternalError

    orig = getattr(exc, "orig", None)
    return isinstance(exc, InternalError | InterfaceError) and type(orig).__module__.split(".")[0] == "psycopg"


_IOERR, _FULL = 10, 13  # SQLite's primary result codes of a write the system refused
_BUSY = 5  # SQLITE_BUSY: the write lock is another connection's


def _write_refused(orig: BaseException | None) -> str:
    """What to do when SQLite could not write: a file size limit (`ulimit -f`: the system's EFBIG, "File too
    large", which SQLite reports as "disk I/O error", walk10) or a full disk; "" for any other error."""
    import resource

    code = getattr(orig, "sqlite_errorcode", 0) & 0xFF
    if code not in (_IOERR, _FULL):
        return ""
    soft = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    again = "and run again: nothing is lost, the mail stays in the inbox"
    if soft != resource.RLIM_INFINITY:
        return (
            f": this process may write no file past {soft:,} bytes (its file size limit, `ulimit -f`), and a write "
            "past it is refused so; if the database or its -wal file is that large, raise or remove the limit where "
            f"pbem is started (`ulimit -f unlimited` in the cron job's shell, LimitFSIZE=infinity in a systemd unit) "
            f"{again}"
        )
    return f": free space on the database's disk (or raise its quota) {again}" if code == _FULL else ""


@contextmanager
def reading(url: str) -> Iterator[Connection]:
    """A read that never waits for a writer: no write lock (WAL readers see the last commit).

    Only for reads whose answer is checked again under the lock, or which may be
    a moment stale without harm.
    """
    with _readers_of(engine_for(url)).connect() as conn:
        yield conn.execution_options(**{READ_ONLY: True})


@contextmanager
def transaction(url: str) -> Iterator[Connection]:
    """One short Core transaction (no ORM objects), committed on exit."""
    with WRITER, engine_for(url).begin() as conn:
        yield conn


def migrate(url: str, revision: str = "head") -> None:
    """Run the Alembic migrations up to `revision` on `url`."""
    from alembic import command

    with patience(PG_MIGRATION_DEADLINE):  # on PostgreSQL (migrations/env.py lifts the statement timeout)
        command.upgrade(alembic_config(url), revision)


def alembic_config(url: str) -> AlembicConfig:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir()))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def migrations_dir() -> Path:
    """The Alembic environment and versions shipped with pbem."""
    return shipped("_migrations", "migrations")

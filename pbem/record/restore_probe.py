"""A pg_dump file proved to restore: `pbem backup --check DIR --restore-into URL` (`pbem.app.backup_check`).

`pg_restore --list` reads a dump's table of contents only: a dump whose data pg_restore cannot load (a table's
rows cut short, a dump of a newer server) passed.  `restored` makes a new, empty database on the server `URL`
names (`pbem_restore_check_HOST_PID_RANDOM`: never the URL's own database, nor any other, is written to),
restores the dump into it with `pg_restore --exit-on-error --single-transaction`, reads what a SQLite backup's
check reads (`pbem.record.backup.Opened`: the schema revision, every game's sealed signing key, the queued mails
sealed under `outbox.key`, the key's check value), and, given `chains`, each game's hash chain as the SQLite copy's
is read (`pbem.app.chains`, costs27: on a restored dump none was read, so an event changed in the database before
its dump passed), and drops it, all by one deadline.  The URL's role needs the
right to create databases (CREATEDB); a check killed before it could drop its database leaves it, and the next
check on this machine drops it once its process is gone.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import socket
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from time import monotonic
from typing import Any

from pbem.record.backup import Late, Opened, held, listed_games, pg_restore
from pbem.record.db import Unit
from pbem.record.files import running

#: What reads each game's chain on a unit of the restored database, given its games' (id, name): the lines that
#: say which do not check (`pbem.app.chains.read`; the record layer knows no chain).
Chains = Callable[[Unit, list[tuple[int, str]]], list[str]]

PREFIX = "pbem_restore_check_"
CONNECT = 10.0  # seconds a connection to the server may take (at most)


def _tag() -> str:
    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:6]


def _plain(url: str, database: str | None = None) -> tuple[str, dict[str, str]]:
    """libpq's URL for `url` (on `database` if given), without its password, and the environment that gives it."""
    from sqlalchemy.engine import make_url

    made = make_url(url)
    if not made.drivername.startswith("postgresql"):
        raise ValueError(f"--restore-into takes a PostgreSQL URL (postgresql://...), not {made.drivername}")
    env = dict(os.environ)
    if made.password:
        env["PGPASSWORD"] = str(made.password)  # never on a command line
    made = made.set(drivername="postgresql", password=None)
    if database is not None:
        made = made.set(database=database)
    return made.render_as_string(hide_password=False), env


def shown(url: str) -> str:
    """`url` as it may be printed: its password hidden."""
    from sqlalchemy.engine import make_url

    with contextlib.suppress(Exception):
        return make_url(url).render_as_string(hide_password=True)
    return "the URL given"


def _connect(url: str, database: str | None, deadline: float) -> Any:
    """A psycopg connection (autocommit) to `url`'s server, on `database`, whose statements end by `deadline`."""
    from psycopg.conninfo import conninfo_to_dict

    from pbem.record.db import pg_connect

    plain, env = _plain(url, database)
    left = max(1.0, deadline - monotonic())
    params = conninfo_to_dict(plain)
    params |= {"autocommit": True, "connect_timeout": max(1, int(min(CONNECT, left)))}
    params["options"] = f"-c statement_timeout={int(left * 1000)}"
    if env.get("PGPASSWORD"):
        params["password"] = env["PGPASSWORD"]
    return pg_connect(params)  # names resolved, keepalives, each wait ended by the deadline (`restored`)


@contextlib.contextmanager
def scratch(url: str, deadline: float) -> Iterator[str]:
    """A new database on `url`'s server for the time of the block, dropped after (and this machine's leftovers of
    checks that were killed, their process gone)."""
    from psycopg import sql

    name = f"{PREFIX}{_tag()}_{os.getpid()}_{secrets.token_hex(4)}"
    mine = f"{PREFIX}{_tag()}_"
    with _connect(url, None, deadline) as admin:
        for (old,) in admin.execute("SELECT datname FROM pg_database WHERE datname LIKE %s", (mine + "%",)).fetchall():
            pid = str(old)[len(mine) :].split("_")[0]
            if pid.isascii() and pid.isdigit() and len(pid) <= 9 and not running(int(pid)):
                admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(old)))
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        try:
            yield name
        finally:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def _load(dump: Path, url: str, name: str, deadline: float) -> None:
    """`pg_restore` of `dump` into the database `name` on `url`'s server, whole or not at all, by `deadline`."""
    program = pg_restore()
    if program is None:
        raise OSError("pg_restore is not on PATH")
    plain, env = _plain(url, name)
    try:
        done = subprocess.run(
            [
                program,
                "--exit-on-error",
                "--single-transaction",
                "--no-owner",
                "--no-privileges",
                "--no-password",
                f"--dbname={plain}",
                str(dump),
            ],
            capture_output=True,
            env=env,
            timeout=max(0.0, deadline - monotonic()),
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise Late("pg_restore did not finish by its deadline") from None
    if done.returncode != 0:
        why = [line for line in done.stderr.decode("utf-8", "replace").splitlines() if line.strip()]
        raise OSError(f"pg_restore failed (exit {done.returncode}): {why[0] if why else 'no message'}")


def _read(conn: Any, mark: bytes) -> Opened:
    """What the restored database holds, as `pbem.record.backup.opened` reads a SQLite copy."""
    tables = {str(r[0]) for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
    return held(conn, tables, mark, param="%s")


def restored(dump: Path, url: str, deadline: float, mark: bytes, chains: Chains | None = None) -> Opened:
    """Restore `dump` into a scratch database on `url`'s server, read it (with `chains`, each game's chain too:
    `Opened.broken`), drop it, by `deadline`: Late past it, OSError when pg_restore cannot restore it (its first
    line), ValueError for a URL that is no PostgreSQL one, psycopg.Error when the server refuses (no right to create
    a database, a wrong password)."""
    from pbem.record.db import answered_by

    try:
        with answered_by(deadline), scratch(url, deadline) as name:  # (every wait for the server: costs27)
            _load(dump, url, name, deadline)
            with _connect(url, name, deadline) as conn:
                got = _read(conn, mark)
            if chains is None or got.revision is None:
                return got
            return replace(got, broken=_chains(url, name, deadline, chains))
    except Exception as exc:
        if monotonic() < deadline or "did not answer within" not in str(exc):
            raise
        raise Late("the PostgreSQL server did not answer by the deadline") from None


def _chains(url: str, name: str, deadline: float, chains: Chains) -> list[str]:
    """`chains` on a unit of the scratch database `name`, each statement by `deadline`."""
    from sqlalchemy import create_engine

    engine = create_engine("postgresql+psycopg://", creator=lambda: _connect(url, name, deadline))
    try:
        with Unit(bind=engine) as s:
            return chains(s, listed_games(s))
    finally:
        engine.dispose()

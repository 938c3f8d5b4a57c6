"""The database's part of `pbem backup`: a consistent copy of it, and what a copy holds (`pbem.app.backup`).

SQLite: `copy_sqlite` copies the database by SQLite's online backup API (`sqlite3.Connection.backup`) inside
one read transaction of its own, so the copy is the record as of one commit whatever a poll writes meanwhile
(a WAL reader never waits for the writer, nor holds it up), `STEP` pages at a time with the deadline looked
at after each step: past it the copy is given up (`Late`) and its file removed by the caller.  Copying
`pbem.db` as a file while a poll runs misses its recent writes, which are in `pbem.db-wal`.
PostgreSQL: `dump_postgres` runs `pg_dump` (custom format) when it is on PATH, bounded by the same deadline.

`opened` reads a copy without writing to it (SQLite's `immutable`: no -wal or -shm beside it, no lock): its
`quick_check`, its schema revision, every game's stored signing key and the first `SEALED` queued mails sealed
under `outbox.key`, what `pbem backup --check` needs; `pg_listed` reads a pg_dump file's table of contents by
`pg_restore --list`, by a deadline.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import stat
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from time import monotonic
from typing import Any
from urllib.parse import quote

from pbem.record import outbox, outbox_key, private
from pbem.record.db import Unit, damage_of

STEP = 1024  # pages copied between two looks at the deadline (4 MiB of SQLite's default pages)
PROBLEMS = 5  # lines of `quick_check` kept when the copy is damaged
LOOK = 100_000  # SQLite's virtual machine steps between two looks at a deadline (some milliseconds)
SEALED = 50  # sealed queued mails read to try the backup's outbox.key on (each a few kB)


def now() -> float:
    """The clock every deadline of a backup and its check is read on (`monotonic`)."""
    return monotonic()


class Late(Exception):
    """The copy did not finish by its deadline; one sentence."""


def copy_sqlite(source: Path, target: Path, deadline: float, step: int | None = None) -> None:
    """The database `source`, as of one commit, into the new file `target` (mode 0600) by `deadline`
    (`monotonic()`), `step` pages at a time (default `STEP`), else `Late`; sqlite3.Error when `source` cannot be read (no such database)."""
    src = sqlite3.connect(f"file:{quote(str(source))}?mode=rw", uri=True, isolation_level=None, timeout=10)
    try:
        src.execute("BEGIN")
        try:
            src.execute("SELECT count(*) FROM sqlite_master").fetchone()  # the snapshot the copy is of, held to its end
        except sqlite3.DatabaseError as exc:  # its schema's pages damaged: copied all the same, page by page (the
            if damage_of(exc) is None:  # backup reads no table; it starts again should another connection write
                raise  # between its steps), so that the damage is kept
            if src.in_transaction:
                src.execute("ROLLBACK")
        os.close(private.create(target))
        dst = sqlite3.connect(target)
        try:

            def progress(_status: int, remaining: int, total: int) -> None:
                if remaining and monotonic() > deadline:
                    raise Late(f"the copy of the database had {total - remaining:,} of {total:,} pages at its deadline")

            src.backup(dst, pages=step or STEP, progress=progress)
        finally:
            dst.close()
        if src.in_transaction:
            src.execute("COMMIT")
    finally:
        src.close()


@dataclass(frozen=True)
class Opened:
    """What a copy of the database holds: `problems` from SQLite's `quick_check` (none: intact), its schema
    revision (None: no pbem tables), each game's name with its stored signing key (None: no key), and the outbox's
    mails stored sealed (those starting with the `mark` asked for): how many, and the first `SEALED` of them."""

    problems: list[str]
    revision: str | None
    keys: list[tuple[str, str | None]]
    sealed: int = 0
    some_sealed: list[bytes] = field(default_factory=list)
    key_check: str | None = None  # the check value of its outbox.key (`pbem.record.outbox_key`), None: none kept
    # the mails still to send whose bytes are not those queued (`outbox.intact`, migration 0024): an overflow page
    # overwritten, which SQLite's quick_check does not see (walk10)
    unlike: list[int] = field(default_factory=list)
    # each game whose hash chain does not check, as `pbem.app.chains.told` names it: read on a restored pg_dump
    # (`restore_probe.restored`, costs27); a SQLite copy's are read apart (`chains.copy_told`)
    broken: list[str] = field(default_factory=list)


def held(conn: Any, tables: set[str], mark: bytes, problems: list[str] | None = None, param: str = "?") -> Opened:
    """What a copy of the database holds, read on the DB-API connection `conn` whose tables are `tables` (a SQLite
    copy, `opened`; a dump restored into PostgreSQL, `pbem.record.restore_probe`, whose placeholder `param` is
    "%s"); with `mark`, the outbox's mails that start with it."""

    def one(sql: str, *args: object) -> Any:
        return conn.execute(sql.replace("?", param), args).fetchone()

    revision = None
    if "alembic_version" in tables:
        row = one("SELECT version_num FROM alembic_version")
        revision = str(row[0]) if row else None
    keys: list[tuple[str, str | None]] = []
    if "games" in tables:
        keys = [(str(n), k) for n, k in conn.execute("SELECT name, signing_key FROM games ORDER BY id")]
    check = None
    if "home_secrets" in tables:
        row = one("SELECT value FROM home_secrets WHERE name = ?", outbox_key.NAME)
        check = str(row[0]) if row else None
    unlike = _unlike(conn) if revision is not None and revision[:4] >= "0024" else []
    if not mark or "outbox" not in tables:
        return Opened(problems or [], revision, keys, key_check=check, unlike=unlike)
    bytes_in = "outbox_mail" if "outbox_mail" in tables else "outbox"  # the mails' bytes (0022), before in the outbox
    where = f"FROM {bytes_in} WHERE substr(raw, 1, ?) = ?".replace("?", param)  # a blob's (a bytea's) first bytes
    sealed = int(conn.execute(f"SELECT count(*) {where}", (len(mark), mark)).fetchone()[0])
    limit = f"LIMIT {param}"
    some = [bytes(r[0]) for r in conn.execute(f"SELECT raw {where} ORDER BY id {limit}", (len(mark), mark, SEALED))]
    return Opened(problems or [], revision, keys, sealed, some, check, unlike)


def unlike(got: Opened) -> list[str]:
    """What `pbem backup` and its `--check` say of the mails whose bytes are not those queued (none: [])."""
    if not got.unlike:
        return []
    ids = ", ".join(map(str, got.unlike[:10])) + (", ..." if len(got.unlike) > 10 else "")
    return [
        f"{len(got.unlike)} queued mail(s) ({ids}) hold bytes that are not those queued (their checksum differs: a "
        "page SQLite's quick_check does not read was overwritten); the poll would stop at the first (exit 4)"
    ]


#: What `pbem backup --check` of a pg_dump file without `--restore-into` leaves unchecked, and how to check it: said
#: since walk11 (before, the checksums of the mail still to send went unmentioned).
UNREAD_DUMP = (
    "not checked here, as the database is not read: its games' signing keys, the checksums of the mail still to send, "
    "outbox.key on the mail sealed with it (--restore-into URL restores it into a scratch database to check them)"
)


def agreed(got: Opened) -> str:
    """What a check says of the mails still to send when their checksums were read and each agrees ("" when not)."""
    kept = (got.revision or "")[:4] >= "0024"  # (migration 0024 gave them their checksums)
    return ", every mail still to send matching its checksum" if kept and not got.unlike else ""


def _unlike(conn: Any) -> list[int]:
    """The ids of the mails still to send (queued or failed) whose bytes do not match their checksum."""
    rows = conn.execute(
        "SELECT m.id, m.raw, m.keep_raw, m.checksum FROM outbox_mail m JOIN outbox o ON o.id = m.id "
        "WHERE o.status IN ('queued', 'failed') AND m.checksum IS NOT NULL ORDER BY m.id"
    )
    return [int(oid) for oid, raw, keep, checksum in rows if not outbox.intact(raw, keep, checksum)]


def opened(path: Path, mark: bytes = b"", deadline: float | None = None) -> Opened:
    """Read the SQLite copy `path` without changing it (with `mark`, the outbox's mails that start with it);
    sqlite3.DatabaseError when it is no database, or no regular file: SQLite opens a FIFO blocking, so
    `pbem backup --check` of a backup whose database was a named pipe waited for a writer without end (costs18).
    With `deadline` (`monotonic()`), `Late` once it passes: SQLite's `quick_check` reads every page, linear but
    not capped (a database of many GB: minutes), and is stopped by its progress handler (costs23)."""
    with contextlib.suppress(OSError):  # (a path that cannot be looked at: SQLite says it cannot open it)
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise sqlite3.DatabaseError("not a regular file (a pipe, a device or a socket): not opened")
    conn = sqlite3.connect(f"file:{quote(str(path))}?mode=ro&immutable=1", uri=True)
    stopped: list[bool] = []  # the deadline passed: the statement running was interrupted

    def late() -> bool:
        if deadline is not None and monotonic() > deadline:
            stopped.append(True)
        return bool(stopped)

    if deadline is not None:
        conn.set_progress_handler(late, LOOK)
    try:
        problems = [str(r[0]) for r in conn.execute(f"PRAGMA quick_check({PROBLEMS})")]
        if problems == ["ok"]:
            problems = []
        tables = {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        return held(conn, tables, mark, problems)
    except sqlite3.OperationalError:
        if not stopped:
            raise
        raise Late(
            f"{path.name} had not been read whole (SQLite's quick_check, then its games) at its deadline"
        ) from None
    finally:
        conn.close()


def pg_dump() -> str | None:
    """The `pg_dump` program on PATH, if there is one."""
    return shutil.which("pg_dump")


def dump_postgres(url: str, target: Path, deadline: float) -> None:
    """`pg_dump` of the database at `url` (custom format, for `pg_restore`) into the new file `target`, mode 0600,
    by `deadline` (`monotonic()`), else `Late`; OSError naming why pg_dump failed (its first line)."""
    from sqlalchemy.engine import make_url

    program = pg_dump()
    if program is None:
        raise OSError("pg_dump is not on PATH")
    made = make_url(url)
    env = dict(os.environ)
    if made.password:
        env["PGPASSWORD"] = str(made.password)  # never on the command line
    plain = made.set(drivername="postgresql", password=None).render_as_string(hide_password=False)
    fd = private.create(target)
    try:
        done = subprocess.run(
            [program, "--format=custom", "--no-password", f"--dbname={plain}"],
            stdout=fd,
            stderr=subprocess.PIPE,
            env=env,
            timeout=max(0.0, deadline - monotonic()),
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise Late("pg_dump did not finish by its deadline") from None
    finally:
        os.close(fd)
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise OSError(f"pg_dump failed (exit {done.returncode}): {why[0] if why else 'no message'}")


def pg_restore() -> str | None:
    """The `pg_restore` program on PATH, if there is one."""
    return shutil.which("pg_restore")


def pg_listed(path: Path, deadline: float) -> int:
    """How many entries `pg_restore --list` reads in the pg_dump file `path` by `deadline` (`monotonic()`), else
    `Late`; OSError naming why it could not (no pg_restore on PATH, or its first line: a file it cannot read)."""
    program = pg_restore()
    if program is None:
        raise OSError("pg_restore is not on PATH")
    try:
        done = subprocess.run(
            [program, "--list", str(path)],
            capture_output=True,
            timeout=max(0.0, deadline - monotonic()),
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise Late("pg_restore --list did not finish by its deadline") from None
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise OSError(f"pg_restore --list failed (exit {done.returncode}): {why[0] if why else 'no message'}")
    rows = done.stdout.decode("utf-8", "replace").splitlines()
    return sum(1 for row in rows if row.strip() and not row.startswith(";"))


@contextlib.contextmanager
def copy_unit(path: Path) -> Iterator[tuple[Unit, list[tuple[int, str]]]]:
    """A unit of work on the SQLite copy at `path`, read as immutable (nothing written beside it: no -wal, no
    -shm), with its games' ids and names in order (`pbem.app.chains` reads each one's chain there)."""
    from sqlalchemy import create_engine

    def connect() -> sqlite3.Connection:
        return sqlite3.connect(f"file:{quote(str(path))}?mode=ro&immutable=1", uri=True, check_same_thread=False)

    engine = create_engine("sqlite://", creator=connect)
    try:
        with Unit(bind=engine) as s:
            yield s, listed_games(s)
    finally:
        engine.dispose()


@contextlib.contextmanager
def live_unit(url: str) -> Iterator[tuple[Unit, list[tuple[int, str]]]]:
    """`copy_unit` of the home's own record at `url`, read without its write lock (`db.reading`: `pbem check`)."""
    from pbem.record.db import reading

    with reading(url) as conn, Unit(bind=conn) as s:
        yield s, listed_games(s)


def listed_games(s: Unit) -> list[tuple[int, str]]:
    from sqlalchemy import select

    from pbem.record import models

    c = models.Game.__table__.c  # type: ignore[attr-defined]
    return [(int(i), str(n)) for i, n in s.execute(select(c.id, c.name).order_by(c.id))]

"""A SQLite record copied into an empty PostgreSQL database (`pbem move-record`, walk11).

The copy is one transaction on each side: on SQLite a write transaction (BEGIN IMMEDIATE, `db.transaction`), so no
poll or command writes while it reads, and on PostgreSQL the one that takes the record's advisory lock
(`db.RECORD_LOCK`) and commits only once every table's row count and digest read back from the copy agree with
the source's, and each game's chain checks alike on both (`verdict`, the caller's).  Anything short of that rolls
the PostgreSQL side back: the target stays as it was (empty), and the SQLite file is never written.

Rows go over in batches (`BATCH_ROWS` rows or `BATCH_BYTES` bytes of values, whichever comes first): memory holds
one batch, whatever the home's size.  The digest of a table is the sum, modulo 2**256, of each row's SHA-256 over
its values in a typed form (`_row_digest`): bytes as they are, times as ISO text, booleans, numbers, text; it needs
no order, so the two databases' collations (SQLite's binary, PostgreSQL's locale) cannot make equal tables differ.
Each integer primary key's sequence is set past the largest id copied (`_continue_ids`), so the next insert on
PostgreSQL gets a new id.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Integer, MetaData, Table, func, inspect, select, text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError
from sqlmodel import SQLModel

from pbem.record import db, models  # (models: registers the tables)

BATCH_ROWS = 500
BATCH_BYTES = 4 * 1024 * 1024
FETCH = 16  # rows a server-side cursor on PostgreSQL hands over at a time (the read back)
_MOD = 1 << 256
MOST_URL = 4096  # characters of a target url (`refused_url`)
KEEP = {"alembic_version"}  # the schema's own table: made by the migrations on the target, never copied
#: Rows the migrations themselves write into an empty database (0005: the home's Message-ID secret): not what makes
#: a target "not empty", and replaced by the source's own rows.
SCHEMA_ROWS = {"home_secrets": ("name", ("message-id",))}


class Refused(Exception):
    """The move was refused before anything was written (one line: what and what to do)."""


class Mismatch(Exception):
    """The copy did not read back as the source: rolled back (one line naming the table or the game)."""


@dataclass
class Tally:
    """A table's rows: how many, and their digest (order-free)."""

    rows: int = 0
    digest: int = 0

    def add(self, values: Iterable[Any]) -> None:
        self.rows += 1
        self.digest = (self.digest + _row_digest(values)) % _MOD

    def hex(self) -> str:
        return f"{self.digest:064x}"


@dataclass
class Moved:
    """What was copied: each table's tally, and each game's chain verdict (the same on both sides)."""

    tables: dict[str, Tally] = field(default_factory=dict)
    chains: dict[str, str] = field(default_factory=dict)

    @property
    def rows(self) -> int:
        return sum(t.rows for t in self.tables.values())


def tables() -> list[Table]:
    """The record's tables, parents before children (foreign keys)."""
    return list(SQLModel.metadata.sorted_tables)


def _typed(value: Any) -> bytes:
    if value is None:
        return b"N"
    if isinstance(value, bool):
        return b"B1" if value else b"B0"
    if isinstance(value, int):
        return b"I" + str(value).encode()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return b"X" + bytes(value)
    if isinstance(value, datetime):
        return b"T" + value.isoformat().encode()  # an aware time keeps its offset here: it would differ
    if isinstance(value, float):
        return b"F" + repr(value).encode()
    return b"S" + str(value).encode("utf-8", "surrogatepass")


def _row_digest(values: Iterable[Any]) -> int:
    h = hashlib.sha256()
    for v in values:
        piece = _typed(v)
        h.update(len(piece).to_bytes(8, "big"))
        h.update(piece)
    return int.from_bytes(h.digest(), "big")


def _size(values: Iterable[Any]) -> int:
    return sum(len(v) if isinstance(v, (str, bytes)) else 8 for v in values)


def unknown_tables(conn: Connection) -> list[str]:
    """Tables of the SQLite record that pbem's schema does not name (they would not be copied)."""
    known = {t.name for t in tables()} | KEEP
    return sorted(n for n in inspect(conn).get_table_names() if n not in known and not n.startswith("sqlite_"))


def occupied(conn: Connection) -> str | None:
    """Why the target is not empty (a table of pbem's with rows, or a table that is not pbem's), else None."""
    names = set(inspect(conn).get_table_names())
    foreign = sorted(names - {t.name for t in tables()} - KEEP)
    if foreign:
        return f"it holds tables that are not pbem's ({', '.join(foreign[:5])})"
    for table in tables():
        if table.name not in names:
            continue
        q = select(func.count()).select_from(table)
        if table.name in SCHEMA_ROWS:
            column, values = SCHEMA_ROWS[table.name]
            q = q.where(table.c[column].not_in(values))
        if n := conn.execute(q).scalar_one():
            return f"its table {table.name} holds {n:,} row{'s' if n != 1 else ''}"
    return None


def _rows(conn: Connection, table: Table) -> Iterator[tuple[Any, ...]]:
    """Every row of `table`, one at a time (SQLite's cursor steps through the table; nothing is held)."""
    for row in conn.execute(select(table)):
        yield tuple(row)


def _batches(rows: Iterable[tuple[Any, ...]], most_rows: int, most_bytes: int) -> Iterator[list[tuple[Any, ...]]]:
    batch: list[tuple[Any, ...]] = []
    size = 0
    for row in rows:
        batch.append(row)
        size += _size(row)
        if len(batch) >= most_rows or size >= most_bytes:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def copy_table(
    src: Connection,
    dst: Connection,
    table: Table,
    *,
    most_rows: int = BATCH_ROWS,
    most_bytes: int = BATCH_BYTES,
    each: Callable[[str, int], None] | None = None,
) -> Tally:
    """Copy every row of `table` from `src` to `dst` in batches; the source's tally.  `each(table, rows so far)`
    is called after every batch (the tests' kill points)."""
    keys = [c.key for c in table.columns]
    tally = Tally()
    insert = table.insert()
    for batch in _batches(_rows(src, table), most_rows, most_bytes):
        for row in batch:
            tally.add(row)
        try:
            dst.execute(insert, [dict(zip(keys, row, strict=True)) for row in batch])
        except (DBAPIError, ValueError) as exc:  # (psycopg refuses a NUL in text before sending it: a ValueError)
            why = str(getattr(exc, "orig", None) or exc).splitlines()[0]
            raise Mismatch(f"table {table.name}: PostgreSQL refused a row ({why}): nothing was kept") from None
        if each is not None:
            each(table.name, tally.rows)
    return tally


def tally(conn: Connection, table: Table) -> Tally:
    """`table`'s tally as `conn` reads it (a server-side cursor on PostgreSQL: a batch at a time)."""
    got = Tally()
    result = conn.execution_options(stream_results=True, yield_per=FETCH).execute(select(table))
    for row in result:
        got.add(tuple(row))
    return got


def _continue_ids(conn: Connection) -> None:
    """Each serial or identity column's sequence set past the largest id copied (an empty table's to start at 1)."""
    for table in tables():
        pk = list(table.primary_key.columns)
        if len(pk) != 1 or not isinstance(pk[0].type, Integer):
            continue
        seq = conn.execute(text("SELECT pg_get_serial_sequence(:t, :c)"), {"t": table.name, "c": pk[0].name})
        name = seq.scalar()
        if name is None:  # (outbox_mail: its id is its outbox row's)
            continue
        top = conn.execute(select(func.max(pk[0]))).scalar()
        conn.execute(text("SELECT setval(:s, :v, :called)"), {"s": name, "v": top or 1, "called": top is not None})


def move(
    source: str,
    target: str,
    verdict: Callable[[db.Unit, int], str],
    *,
    each: Callable[[str, int], None] | None = None,
    most_rows: int = BATCH_ROWS,
    most_bytes: int = BATCH_BYTES,
) -> Moved:
    """Copy the record at `source` (SQLite, at the schema's head) into the empty database at `target` (already at
    the head), as the module says; `verdict(unit, game id)` gives a game's chain as a unit on either side reads it, the
    two sides in turn, game by game (a PostgreSQL transaction idle for `db.PG_IDLE_IN_TRANSACTION_MS` is ended)."""
    moved = Moved()
    with db.transaction(source) as src:  # BEGIN IMMEDIATE: no poll or command writes the record meanwhile
        if extra := unknown_tables(src):
            raise Refused(f"the SQLite record holds tables pbem does not know ({', '.join(extra[:5])}): not moved")
        # the record's advisory lock, at BEGIN; no statement kept in the compiled cache (a batch's rows vary in number)
        with db.engine_for(target).connect().execution_options(compiled_cache=None) as dst, dst.begin():
            if why := occupied(dst):
                raise Refused(f"the target database is not empty: {why}")
            for name, (column, values) in SCHEMA_ROWS.items():  # the source's own take their place
                table = SQLModel.metadata.tables[name]
                dst.execute(table.delete().where(table.c[column].in_(values)))
            for table in tables():
                moved.tables[table.name] = copy_table(
                    src, dst, table, most_rows=most_rows, most_bytes=most_bytes, each=each
                )
            _continue_ids(dst)
            for table in tables():
                got = tally(dst, table)
                want = moved.tables[table.name]
                if (got.rows, got.digest) != (want.rows, want.digest):
                    raise Mismatch(
                        f"table {table.name}: {got.rows:,} rows read back from the copy (digest {got.hex()[:12]}), "
                        f"{want.rows:,} in the SQLite record (digest {want.hex()[:12]}): nothing was kept"
                    )
            with db.Unit(bind=src) as mine, db.Unit(bind=dst) as copied:  # a game at a time: PostgreSQL never idle
                c = models.Game.__table__.c  # type: ignore[attr-defined]
                games = src.execute(select(c.id, c.name).order_by(c.id)).all()
                for game_id, name in games:
                    ours, theirs = verdict(mine, game_id), verdict(copied, game_id)
                    if theirs != ours:
                        raise Mismatch(
                            f"game {name}: its chain reads {theirs!r} from the copy, {ours!r} from the SQLite record: "
                            "nothing was kept"
                        )
                    moved.chains[name] = ours
    return moved  # (the PostgreSQL side committed as its block ended; the SQLite side wrote nothing)


def emptiness(url: str) -> str | None:
    """Why the database at `url` is not empty (`occupied`), else None; `Refused` when it cannot be reached (a server
    that is not there, a password refused: the driver's first line, walk12; before, the CLI's generic line, exit 3)."""
    try:
        with db.reading(url) as conn:
            return occupied(conn)
    except DBAPIError as exc:
        why = str(getattr(exc, "orig", None) or exc).strip().splitlines()[:1] or ["no answer"]
        raise Refused(
            f"the target database {redacted(url)} cannot be used: {why[0][:300]}; nothing was changed (check the "
            "url, the server and ~/.pgpass, then run this again)"
        ) from None


def refused_url(url: str) -> str | None:
    """Why `url` is no PostgreSQL database URL pbem can use (`init --database-url`, `move-record`), else None."""
    from sqlalchemy.engine import make_url

    if len(url) > MOST_URL:  # (a url past it was parsed and sent to libpq whole: walk12's sweep case)
        return f"it is longer than {MOST_URL:,} characters"
    if not url.startswith("postgresql"):
        return "it must be a PostgreSQL url (postgresql+psycopg://USER:PASSWORD@HOST/DATABASE)"
    try:
        parsed = make_url(url)
    except Exception:  # (SQLAlchemy's ArgumentError, a ValueError of a port)
        return "it cannot be read as a database url (postgresql+psycopg://USER:PASSWORD@HOST/DATABASE)"
    return None if parsed.database else "it names no database (postgresql+psycopg://USER:PASSWORD@HOST/DATABASE)"


def redacted(url: str) -> str:
    """`url` without its password (never printed)."""
    from sqlalchemy.engine import make_url

    if len(url) > MOST_URL:  # (never parsed: its start only)
        return url.split("://", 1)[0][:24] + "://..."
    try:
        shown = make_url(url).render_as_string(hide_password=True)
    except Exception:  # an unreadable URL: its scheme only
        return url.split("://", 1)[0][:24] + "://..."
    return shown if len(shown) <= 200 else shown[:200] + "..."


def row_counts(url: str) -> dict[str, int]:
    """Each table's rows in the record at `url` (what the tests and the report compare)."""
    with db.reading(url) as conn:
        return {t.name: conn.execute(select(func.count()).select_from(t)).scalar_one() for t in tables()}


def table_tallies(url: str) -> dict[str, Tally]:
    """Each table's tally in the record at `url` (the tests compare a source and its copy with it)."""
    with db.reading(url) as conn:
        return {t.name: tally(conn, t) for t in tables()}


def reflected(url: str) -> MetaData:
    """The schema the database at `url` holds (the tests compare column types)."""
    meta = MetaData()
    with db.reading(url) as conn:
        meta.reflect(conn)
    return meta

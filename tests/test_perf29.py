"""perf29 (issue 27): marking a mail sent no longer writes its bytes again.

SQLite rewrites a row whole, its overflow pages with it, when an UPDATE changes the row's size; marking an outbox
mail sent does (a NULL `sent_at` becomes a time), and the mail's bytes (`raw`, about 20 KB a report) sat in that
row: a reply's reports were written to the log twice, 11.5 of a reply's 67 log pages.  Migration 0022 keeps the
bytes in `outbox_mail`, written once.

Generated: batches of 1 to 12 mails of sizes from 1 KB to 64 KB (log-uniform), a fifth carrying a player's code
(their redacted copy replaces their bytes when sent: those pages are written, and allowed for), queued, then folded
(`sentlog.fold`); the log pages the fold writes are counted (the write-ahead log truncated before it).  The fold may
write a fixed few pages and one a mail (the rows, their status indexes), and the pages of the code mails' copies,
never a plain mail's bytes.  c83d8ea7 fails 18 of the suite's 24 batches (the full run, `PBEM_PERF29_FULL=1`: 195
of 300; the rest hold only mails small enough to sit in their row's page), this branch none (0 of 300).  Counted
with any checkout's pbem: `PYTHONPATH=CHECKOUT python3 tests/test_perf29.py 300`.
"""

from __future__ import annotations

import os
import random
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import text

from pbem.record import db, outbox, sentlog
from pbem.record.db import migrate, transaction

FULL = os.environ.get("PBEM_PERF29_FULL") == "1"
WHEN = datetime(2026, 12, 7, 5, 0, tzinfo=UTC)
PAGE = 4096
# pages a fold may write whatever the mails' sizes, with one a mail: the rows' leaves and their status indexes' (a
# split writes its siblings and parent, two at once 10 pages), the header
FIXED = 10


def _pages(size: int) -> int:
    """The pages a value of `size` bytes may take in a row's overflow chain, and one more."""
    return size // (PAGE - 100) + 2


def _batch(rng: random.Random, n: int, start: int) -> tuple[list[dict[str, object]], int]:
    """`n` outbox rows of generated sizes, about a third carrying a code; and the pages their redacted copies fill."""
    rows, coded = [], 0
    for i in range(start, start + n):
        size = int(1024 * 64 ** rng.random())  # 1 KB to 64 KB, log-uniform
        raw = bytes(rng.getrandbits(8) for _ in range(size))
        keep = None
        if rng.random() < 0.2:
            keep = raw[: max(1, size - 20)] + b"[redacted once sent]"
            # its redacted copy replaces its bytes: the new chain of overflow pages, and the old one's (the sealed
            # mail and the copy) zeroed on the free list (SQLite's secure delete, on in Debian's build)
            coded += _pages(size) + 2 * _pages(len(keep))
        rows.append(
            dict(
                message_id=f"<m{i}@perf29.test>",
                purpose="report",
                player="P",
                to_addr=f"p{i % 7}@example.test",
                raw=raw,
                keep_raw=keep,
                next_attempt_at=WHEN,
                created_at=WHEN + timedelta(seconds=i),
            )
        )
    return rows, coded


def _wal_pages(url: str) -> int:
    path = Path(url.removeprefix("sqlite:///") + "-wal")
    return (path.stat().st_size - 32) // (PAGE + 24) if path.exists() and path.stat().st_size else 0


def _fold_pages(url: str, ids: list[int]) -> int:
    """The log pages the fold of `ids` writes."""
    con = sqlite3.connect(url.removeprefix("sqlite:///"))
    try:
        assert con.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0] == 0  # not busy: the log emptied
    finally:
        con.close()
    assert _wal_pages(url) == 0
    with transaction(url) as conn:
        assert sentlog.fold(conn, ids, WHEN) == len(ids)
    return _wal_pages(url)


def over_budget(tmp_path: Path, cases: int) -> list[tuple[int, int, int, int, int]]:
    """The generated folds that wrote more log pages than allowed: (case, mails, their bytes, allowed, pages)."""
    url = f"sqlite:///{tmp_path / 'fold.db'}"
    migrate(url)
    rng = random.Random(29)
    over = []
    start = 0
    for case in range(cases):
        rows, coded = _batch(rng, rng.randint(1, 12), start)
        start += len(rows)
        with transaction(url) as conn:
            before = conn.execute(text("SELECT coalesce(max(id), 0) FROM outbox")).scalar_one()
        with db.session(url) as s:
            outbox.queue(s, rows)
            s.commit()
        ids = list(range(before + 1, before + 1 + len(rows)))
        pages = _fold_pages(url, ids)
        allowed = FIXED + len(rows) + coded
        if pages > allowed:
            over.append((case, len(rows), sum(len(r["raw"]) for r in rows), allowed, pages))  # type: ignore[arg-type]
    return over


def test_marking_mail_sent_writes_no_plain_mails_bytes_again(tmp_path: Path) -> None:
    over = over_budget(tmp_path, 300 if FULL else 24)
    assert not over, f"{len(over)} folds wrote a mail's bytes again (case, mails, bytes, allowed, pages): {over[:5]}"


def _sqlite_schema(path: Path, table: str) -> tuple[list[tuple[object, ...]], ...]:
    """`table`'s columns in order (name, type, not null, default, key), indexes with their columns, foreign keys."""
    con = sqlite3.connect(path)
    try:
        columns = con.execute(f"PRAGMA table_info({table})").fetchall()
        indexes = sorted(
            (name, unique, tuple(c[2] for c in con.execute(f"PRAGMA index_info({name})")))
            for _, name, unique, *_ in con.execute(f"PRAGMA index_list({table})")
        )
        keys = con.execute(f"PRAGMA foreign_key_list({table})").fetchall()
        return columns, indexes, keys
    finally:
        con.close()


def test_0022_moves_every_mails_bytes_and_its_downgrade_puts_them_back(tmp_path: Path) -> None:
    from alembic import command

    fresh, moved = tmp_path / "fresh.db", tmp_path / "moved.db"
    migrate(f"sqlite:///{fresh}", "0021_sent_mail_pruned")
    migrate(f"sqlite:///{moved}", "0021_sent_mail_pruned")
    con = sqlite3.connect(moved)
    mails = [(f"<m{i}@perf29.test>", bytes([i]) * (i * 997), b"kept" * i if i % 3 == 0 else None) for i in range(1, 9)]
    with con:
        con.executemany(
            "INSERT INTO outbox (message_id, player, purpose, upto_seq, to_addr, raw, keep_raw, status, attempts,"
            " last_error, next_attempt_at, created_at) VALUES (?, '', 'report', 0, 'p@example.test', ?, ?, 'queued',"
            " 0, '', '2026-12-07 05:00:00', '2026-12-07 05:00:00')",
            mails,
        )
    con.close()
    migrate(f"sqlite:///{moved}")
    con = sqlite3.connect(moved)
    got = con.execute("SELECT o.message_id, m.raw, m.keep_raw FROM outbox o JOIN outbox_mail m USING (id) ORDER BY id")
    assert got.fetchall() == mails
    assert "raw" not in [r[1] for r in con.execute("PRAGMA table_info(outbox)")]
    con.close()
    command.downgrade(db.alembic_config(f"sqlite:///{moved}"), "0021_sent_mail_pruned")
    con = sqlite3.connect(moved)
    assert con.execute("SELECT message_id, raw, keep_raw FROM outbox ORDER BY id").fetchall() == mails
    assert not con.execute("SELECT name FROM sqlite_master WHERE name = 'outbox_mail'").fetchall()
    con.close()
    assert _sqlite_schema(moved, "outbox") == _sqlite_schema(fresh, "outbox")


if __name__ == "__main__":  # the generator's count with any checkout's pbem first on the path (c83d8ea7 included)
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
        print(f"{len(over_budget(Path(tmp), n))} of {n} folds over budget")

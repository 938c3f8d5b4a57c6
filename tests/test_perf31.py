"""perf31 (issue 27): what the sender's thread repeated for every mail that no mail needed.

Two classes, both on the sender's thread (what pbem's threads beside the poll's cost a reply: `python
benchmarks/threadcpu.py`, and `poll_throughput.py`'s `thread_cpu_ms_per_message`):

* **Reading the due mail.**  Each nudge read the due ids on one pooled connection and the mails on a second, and
  the mails' statement (`ORDER BY id` over rows SQLite finds by the status index) sorted the rows, each mail's bytes
  with them, through a temporary B-tree.  Now the ids and the first `READ_AHEAD` mails are read on one connection,
  the rows sorted in Python.  Generated: batches of 0 to 40 outbox rows (due or later, queued or already sent, some
  sent in this run and not yet folded, one or two connections' shares), `_due_mail` read once; the pooled
  connections it took and the query plan of every statement that read the mails' bytes counted: at most one
  connection a chunk of `READ_AHEAD`, no temporary B-tree.  b1f92b21 fails 11 of the suite's 12 batches (the full
  run, `PBEM_PERF31_FULL=1`: 282 of 300; the others have no due mail for their share), this branch 0 of 12 and
  0 of 300.  With any checkout: `PYTHONPATH=CHECKOUT python3 tests/test_perf31.py 300 100`.
* **The envelope's addresses parsed for every mail.**  `smtplib.quoteaddr` parses its address with
  `email.utils.parseaddr`, twice a mail (the moderator's as sender, the player's): about a third of the SMTP
  client's instructions a mail.  Now remembered per address (`smtp.quoted`).  Generated: sequences of 1 to 30 mails
  to addresses drawn from small pools of address forms, sent to a pipelining SMTP server on 127.0.0.1; the
  parses counted, at most one per distinct address; and the commands sent are the bytes `quoteaddr` makes.
  b1f92b21 parses twice a mail: 11 of the suite's 12 sequences fail (full: 94 of 100; a sequence of one mail
  parses its two addresses once each), this branch 0 and 0.
"""

from __future__ import annotations

import email.utils
import os
import random
import smtplib
import socket
import sqlite3
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from sqlalchemy import event, text

from pbem.mail.outbound import sender as sending
from pbem.record import db, outbox, sentlog
from pbem.record.db import transaction

FULL = os.environ.get("PBEM_PERF31_FULL") == "1"
WHEN = datetime(2026, 12, 7, 11, 0, tzinfo=UTC)
READ_AHEAD = getattr(sending, "READ_AHEAD", 16)


def _rows(rng: random.Random, n: int, start: int) -> list[dict[str, object]]:
    return [
        dict(
            message_id=f"<m{i}@perf31.test>",
            purpose="report",
            player="P",
            to_addr=f"p{i % 5}@example.test",
            raw=f"Subject: {i}\n\n".encode() + bytes([65 + i % 26]) * rng.choice((200, 5_000, 20_000)),
            keep_raw=None,
            next_attempt_at=WHEN - timedelta(minutes=1) if rng.random() < 0.85 else WHEN + timedelta(hours=1),
            created_at=WHEN,
        )
        for i in range(start, start + n)
    ]


def reading_waste(tmp_path: Path, cases: int) -> list[tuple[int, int, int, int, bool]]:
    """The generated batches whose reading took more pooled connections than one a chunk, or sorted the mails
    (case, due mails of the share, connections allowed, taken, a temporary B-tree); and the mails read are checked."""
    url = f"sqlite:///{tmp_path / 'out.db'}"
    db.migrate(url)  # the template of the tests' conftest: one migration a test process
    readers = db._readers_of(db.engine_for(url))
    taken: list[int] = []
    statements: list[tuple[str, Any]] = []
    event.listen(readers, "checkout", lambda *a: taken.append(1))
    event.listen(readers, "before_cursor_execute", lambda c, cur, sql, args, *rest: statements.append((sql, args)))
    rng = random.Random(31)
    wasteful, start = [], 0
    for case in range(cases):
        with transaction(url) as conn:
            conn.execute(text("UPDATE outbox SET status = 'sent'"))  # the earlier batches' mails: not due
        rows = _rows(rng, rng.randint(0, 40), start)
        start += len(rows)
        with db.session(url) as s:
            outbox.queue(s, rows)
            s.commit()
        with transaction(url) as conn:
            ids = [int(i) for (i,) in conn.execute(text("SELECT id FROM outbox WHERE status = 'queued' ORDER BY id"))]
            gone = [i for i in ids if rng.random() < 0.15]  # sent and marked by a concurrent run
            if gone:
                conn.execute(text(f"UPDATE outbox SET status = 'sent' WHERE id IN ({','.join(map(str, gone))})"))
        journal = sentlog.SentLog(tmp_path / f"journal-{case}")
        journal.sent.update(i for i in ids if rng.random() < 0.15)  # sent in this run, not yet folded
        share = (rng.randrange(2), 2) if rng.random() < 0.3 else (0, 1)
        due = {int(r[0]) for r in _due_rows(url)}
        want = sorted(i for i in due if i % share[1] == share[0] and i not in journal.sent)
        taken.clear()
        statements.clear()
        got = list(
            sending._due_mail(SimpleNamespace(database_url=url, home=tmp_path), WHEN, journal, sending.Claims(), share)
        )
        journal.close(remove=True)
        assert [oid for oid, _, _ in got] == want, case  # the same mails, in id order, as ever
        raws = dict(_due_rows(url))
        assert all(raw == raws[oid] for oid, raw, _ in got)
        # and, since walk10, one read of each mail's status right before it is handed over (`_still_queued`)
        allowed = max(1, -(-len(want) // READ_AHEAD)) + len(want) * hasattr(sending, "_still_queued")
        sorted_blobs = any(_sorts(url, sql, args) for sql, args in statements if "outbox_mail" in sql)
        if len(taken) > allowed or sorted_blobs:
            wasteful.append((case, len(want), allowed, len(taken), sorted_blobs))
    return wasteful


def _due_rows(url: str) -> list[tuple[int, bytes]]:
    con = sqlite3.connect(url.removeprefix("sqlite:///"))
    try:
        return con.execute(
            "SELECT o.id, m.raw FROM outbox o JOIN outbox_mail m ON m.id = o.id WHERE o.status = 'queued'"
            " AND o.next_attempt_at <= ?",
            (WHEN.replace(tzinfo=None).isoformat(sep=" "),),
        ).fetchall()
    finally:
        con.close()


def _sorts(url: str, sql: str, args: Any) -> bool:
    """Whether SQLite's plan for the statement that read the mails sorts its rows in a temporary B-tree."""
    con = sqlite3.connect(url.removeprefix("sqlite:///"))
    try:
        return any("TEMP B-TREE" in row[-1] for row in con.execute("EXPLAIN QUERY PLAN " + sql, args))
    finally:
        con.close()


def test_the_due_mail_is_read_on_one_connection_a_chunk_and_never_sorted(tmp_path: Path) -> None:
    wasteful = reading_waste(tmp_path, 300 if FULL else 12)
    assert not wasteful, f"{len(wasteful)} batches (case, due, connections allowed, taken, sorted): {wasteful[:5]}"


class _Sink:
    """A pipelining SMTP server on 127.0.0.1 that accepts every mail (the commands it read kept)."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.commands: list[bytes] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        conn, _ = self.server.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # each answer at once (no delayed ACK's wait)
        with conn, conn.makefile("rb") as rd:
            conn.sendall(b"220 sink\r\n")
            while line := rd.readline():
                verb = line[:4].upper()
                if verb == b"EHLO":
                    conn.sendall(b"250-sink\r\n250-PIPELINING\r\n250 SIZE 100000000\r\n")
                elif verb == b"DATA":
                    conn.sendall(b"354 go\r\n")
                    while rd.readline() not in (b".\r\n", b""):
                        pass
                    conn.sendall(b"250 ok\r\n")
                elif verb == b"QUIT":
                    conn.sendall(b"221 bye\r\n")
                    return
                else:
                    self.commands.append(line)
                    conn.sendall(b"250 ok\r\n")

    def close(self) -> None:
        self.thread.join(10)
        self.server.close()


FORMS = ("{u}@example.test", "<{u}@example.test>", "Player {u} <{u}@example.test>", '"{u} x"@example.test')


def envelope_waste(cases: int) -> list[tuple[int, int, int, int]]:
    """The generated sequences that parsed an address more than once (case, mails, distinct addresses, parses)."""
    from pbem.mail.transports import smtp

    rng = random.Random(3131)
    real = email.utils.parseaddr
    parses: list[str] = []

    def counted(addr: str, *args: Any, **kwargs: Any) -> tuple[str, str]:
        parses.append(addr)
        return real(addr, *args, **kwargs)

    email.utils.parseaddr = counted  # type: ignore[assignment]
    wasteful = []
    try:
        for case in range(cases):
            getattr(smtp, "quoted", None) and smtp.quoted.cache_clear()  # type: ignore[func-returns-value]
            pool = [rng.choice(FORMS).format(u=f"c{case}p{i}") for i in range(rng.randint(1, 6))]
            moderator = f"moderator{case}@example.test"
            mails = [rng.choice(pool) for _ in range(rng.randint(1, 30))]
            sink = _Sink()
            parses.clear()
            out = smtp.SmtpSender("127.0.0.1", sink.port, timeout=10, local_hostname="perf31.test")
            for n, to in enumerate(mails):
                out.send(f"Subject: {n}\n\n.line\n".encode(), moderator, [to])
            out.close()
            sink.close()
            email.utils.parseaddr = real  # type: ignore[assignment]
            expected = []
            for to in mails:
                expected += [f"MAIL FROM:{smtplib.quoteaddr(moderator)} SIZE=", f"RCPT TO:{smtplib.quoteaddr(to)}\r\n"]
            email.utils.parseaddr = counted  # type: ignore[assignment]
            got = [c.decode() for c in sink.commands]
            assert all(g.startswith(e) for g, e in zip(got, expected, strict=True)), case  # the same envelope
            distinct = len({moderator, *mails})
            if len(parses) > distinct:
                wasteful.append((case, len(mails), distinct, len(parses)))
    finally:
        email.utils.parseaddr = real  # type: ignore[assignment]
    return wasteful


def test_each_envelope_address_is_parsed_once_a_poll() -> None:
    wasteful = envelope_waste(100 if FULL else 12)
    assert not wasteful, f"{len(wasteful)} sequences (case, mails, addresses, parses): {wasteful[:5]}"


if __name__ == "__main__":  # the generators' counts with any checkout's pbem first on the path (b1f92b21 included)
    import sys
    import tempfile

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    m = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    with tempfile.TemporaryDirectory() as tmp:
        print(f"reading: {len(reading_waste(Path(tmp), n))} of {n} batches wasteful")
    print(f"envelope: {len(envelope_waste(m))} of {m} sequences parsed an address again")

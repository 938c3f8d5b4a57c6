"""perf37 (issue 27): the work beside the poll's thread, counted.

* **The sender's reads.**  Each mail's status was read right before it is handed over (walk10) on a connection
  taken from the readers' pool for that one read: with the due ids' and the chunks' reads, two in three of the
  sender thread's checkouts, and about half its CPU was reading (`benchmarks/poll_throughput.py --timings`, a
  cProfile of the thread).  On SQLite a `reading` connection opens no transaction, so each of its statements sees
  the last commit: one connection now reads a nudge's ids, chunks and statuses.  Generated: batches of 0 to 40
  outbox rows (due or later, queued or sent, one or two connections' shares) and a mail withdrawn by another
  connection while the sender holds the rows read; `_due_mail` consumed; the pooled connections counted (at most
  one a nudge) and every mail withdrawn before its turn skipped (the status read stays fresh).
  36ff7173: 11 of the suite's 12 batches fail (`PBEM_FULL_SIZE=1`: 289 of 300), now 0.
* **The IMAP thread's Message-ID.**  Each fetched message's Message-ID (`imap._message_id`, compared with the one
  the sizes' FETCH gave: costs25) was read by handing its first 64 KB to the header parser, which then split the
  whole body into lines: a third of the `pbem-imap` thread's CPU.  Now only the header block is parsed (up to the
  first empty line).  Generated: messages of hostile header forms (folded, CR-only and mixed line ends, no empty
  line, headers past 64 KB, a Message-ID lookalike in the body, bytes beyond ASCII) with bodies of 0 to 80 KB; the
  Message-ID must be the one the old reading of the first 64 KB gives, and the bytes given to the parser at most
  the header block's.  36ff7173: 10 of the suite's 12 messages hand the parser more (full: 186 of 300), now 0;
  the Message-IDs agree on 3,000 generated messages.
* **The loop checks' header walks.**  `loops.auto_reason` (run by `parse`, on the parse-ahead threads) read each of
  eleven headers by walking every header of the message and lowering its name again: eleven walks a message
  (0.019 ms of a 25-header Gmail reply's checks, 0.010 now).  Now the headers are indexed by lower-case name once (`loops._heads`).  Generated: messages of
  0 to 30 headers, mostly a person's mail's, a tenth drawn from the markers the checks read (every case of their
  names, repeated, 8-bit values, encoded and long subjects, comments); the headers walked counted (at most once a
  message), and the reason the same as the old walk's.  36ff7173: 11 of the suite's 12 messages walk them more than
  once (full: 263 of 300), now 0; the reasons agree on 3,000 generated messages.
"""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime, timedelta
from email.parser import BytesHeaderParser
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from sqlalchemy import event, text

from pbem.mail.inbound import loops
from pbem.mail.outbound import sender as sending
from pbem.mail.transports import imap
from pbem.record import db, outbox, sentlog
from pbem.record.db import transaction
from tests.sizes import size

WHEN = datetime(2026, 12, 7, 11, 0, tzinfo=UTC)


def _rows(rng: random.Random, n: int, start: int) -> list[dict[str, object]]:
    return [
        dict(
            message_id=f"<m{i}@perf37.test>",
            purpose="report",
            player="P",
            to_addr=f"p{i % 5}@example.test",
            raw=f"Subject: {i}\n\n".encode() + bytes([65 + i % 26]) * rng.choice((200, 5_000)),
            keep_raw=None,
            next_attempt_at=WHEN - timedelta(minutes=1) if rng.random() < 0.85 else WHEN + timedelta(hours=1),
            created_at=WHEN,
        )
        for i in range(start, start + n)
    ]


def sender_reads(tmp_path: Path, cases: int) -> list[tuple[int, int, int, list[int]]]:
    """The generated batches whose reading took more than one pooled connection, or sent a mail withdrawn before
    its turn: (case, mails sent, connections taken, withdrawn mails yielded)."""
    url = f"sqlite:///{tmp_path / 'out.db'}"
    db.migrate(url)
    readers = db._readers_of(db.engine_for(url))
    taken: list[int] = []
    event.listen(readers, "checkout", lambda *a: taken.append(1))
    rng = random.Random(37)
    wrong, start = [], 0
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
        share = (rng.randrange(2), 2) if rng.random() < 0.3 else (0, 1)
        journal = sentlog.SentLog(tmp_path / f"journal-{case}")
        taken.clear()
        got, withdrawn = [], set()
        mails = sending._due_mail(
            SimpleNamespace(database_url=url, home=tmp_path), WHEN, journal, sending.Claims(), share
        )
        for oid, _raw, _to in mails:
            got.append(oid)
            later = [i for i in ids if i > oid and i not in withdrawn]
            if later and rng.random() < 0.2:  # `pbem game abandon` meanwhile, from another process's connection
                gone = rng.choice(later)
                withdrawn.add(gone)
                with transaction(url) as conn:
                    conn.execute(text("UPDATE outbox SET status = 'withdrawn' WHERE id = :i"), {"i": gone})
        journal.close(remove=True)
        sent_withdrawn = [i for i in got if i in withdrawn]
        if len(taken) > 1 or sent_withdrawn:
            wrong.append((case, len(got), len(taken), sent_withdrawn))
    return wrong


def test_the_sender_reads_a_nudge_on_one_connection_and_each_status_fresh(tmp_path: Path) -> None:
    wrong = sender_reads(tmp_path, size(300, 12))
    assert not wrong, f"{len(wrong)} batches (case, mails, connections taken, withdrawn yet sent): {wrong[:5]}"


def _old_message_id(raw: bytes) -> str | None:
    """36ff7173's reading: the first 64 KB handed to the header parser."""
    try:
        value = BytesHeaderParser().parsebytes(raw[:65536]).get("Message-ID")
    except Exception:
        return None
    value = " ".join(str(value).split()) if value else ""
    return value or None


_ENDS = (b"\r\n", b"\n", b"\r", b"\r\n")
_HEADS = (
    [b"Message-ID: <a@x>"],
    [b"Message-ID:", b" <folded@x>"],
    [b"From: a@x", b"X-Long: " + b"y" * 70_000, b"Message-ID: <past64k@x>"],
    [b"Subject: caf\xc3\xa9", b"Message-Id: <caf\xe9@x>"],
    [b"not a header line", b"Message-ID: <in-body@x>"],
    [b"X: 1", b"\tcontinued", b"MESSAGE-ID: <upper@x>", b"Message-ID: <second@x>"],
    [b"X: 1"],
    [],
)


def _block(raw: bytes) -> int:
    """The length of the header block by the email parser's own line splitting: up to and with the first empty line
    (the whole message if it has none)."""
    at = 0
    for line in re.split(rb"(?<=\r\n)|(?<=\r)(?!\n)|(?<=\n)", raw):
        at += len(line)
        if line in (b"\r\n", b"\r", b"\n"):
            return at
    return len(raw)


def _message(rng: random.Random) -> tuple[bytes, int]:
    """A message and the length of its header block (up to and with the first empty line)."""
    end = rng.choice(_ENDS)
    lines = list(rng.choice(_HEADS))
    if rng.random() < 0.5:
        lines.insert(rng.randrange(len(lines) + 1), b"To: p@example.test")
    head = b"".join(line + (rng.choice(_ENDS) if rng.random() < 0.2 else end) for line in lines)
    body = b"Message-ID: <body@x>\n" * rng.randint(0, 2) + bytes(rng.randrange(32, 127) for _ in range(64)) * (
        rng.randint(0, 1300)
    )
    body += rng.choice((b"", b"\n\n", b"\r\r", b"\r\n\r\nMessage-ID: <later@x>\r\n"))
    raw = head + rng.choice((end, b"\n", b"\r", b"\r\n", b"", b"")) + body
    return raw, _block(raw)


def message_id_waste(cases: int) -> list[tuple[int, str | None, str | None, int, int]]:
    """The generated messages whose Message-ID differs from the old reading's, or whose parse was given more than
    the header block: (case, old, new, bytes parsed, header block)."""
    rng = random.Random(3737)
    given: list[int] = []
    real = BytesHeaderParser.parsebytes

    def counted(self: BytesHeaderParser, text: bytes, headersonly: bool = True) -> object:
        given.append(len(text))
        return real(self, text, headersonly)

    wrong = []
    BytesHeaderParser.parsebytes = counted  # type: ignore[method-assign]
    try:
        for case in range(cases):
            raw, block = _message(rng)
            given.clear()
            new = imap._message_id(raw)
            parsed = sum(given)
            BytesHeaderParser.parsebytes = real  # type: ignore[method-assign]
            old = _old_message_id(raw)
            BytesHeaderParser.parsebytes = counted  # type: ignore[method-assign]
            if new != old or parsed > min(block, 65536):
                wrong.append((case, old, new, parsed, block))
    finally:
        BytesHeaderParser.parsebytes = real  # type: ignore[method-assign]
    return wrong


def test_the_imap_thread_parses_only_a_messages_header_for_its_message_id() -> None:
    wrong = message_id_waste(size(300, 12))
    assert not wrong, f"{len(wrong)} messages (case, old, new, bytes parsed, header block): {wrong[:5]}"


_MARKERS = (
    b"Auto-Submitted: no",
    b"auto-submitted: No (a person)",
    b"AUTO-SUBMITTED: auto-replied",
    b"Auto-Submitted:",
    b"X-Autoreply: no",
    b"X-Autoreply: yes",
    b"x-autorespond: 1",
    b"Precedence: bulk",
    b"precedence: (why) first-class",
    b"Subject: Automatic reply: away",
    b"Subject: Re: [pbem g1] orders",
    b"SUBJECT: =?utf-8?q?R=C3=A9ponse_automatique_:?= x",
    b"Subject: caf\xc3\xa9 \xff",
    b"Return-Path: <>",
    b"Return-Path: <a@x.test>",
    b"X-Failed-Recipients: b@x.test",
    b"X-Loop: moderator@x.test",
    b"x-loop: other@x.test",
    b"List-Id: <l.x.test>",
    b"LIST-UNSUBSCRIBE: <mailto:u@x.test>",
    b"Received: from x by y",
    b"X-Other: " + b"w " * 20_000,
    b"Content-Type: multipart/report; report-type=delivery-status; boundary=b",
    b"Content-Type: text/plain",
)


_PLAIN = (  # what a person's mail holds: none of them makes it automatic
    b"Received: from x by y",
    b"To: moderator@x.test",
    b"Date: Mon, 5 Jan 2026 12:00:00 +0000",
    b"Subject: Re: [pbem g1] orders",
    b"Auto-Submitted: no",
    b"Content-Type: text/plain; charset=utf-8",
    b"DKIM-Signature: v=1; a=rsa-sha256; d=x.test; s=s; b=abc",
    b"X-Other: " + b"w " * 2_000,
)


def _old_values(msg: Any, name: str) -> list[str]:
    """36ff7173's `loops._values`: every header walked for each name."""
    try:
        low, out = name.lower(), []
        for k, v in msg.raw_items():
            if k.lower() == low:
                value = msg.policy.header_fetch_parse(k, v[: loops.MOST_READ] if isinstance(v, str) else v)
                out.append(re.sub(r"\s+", " ", str(value)[: loops.MOST_READ]).strip())
        return out
    except Exception:
        return ["(unreadable)"]


def header_walks(cases: int) -> list[tuple[int, int, str | None, str | None]]:
    """The generated messages whose checks walked the headers more than once or found another reason than the old
    walk's: (case, walks, old reason, new reason)."""
    import email

    rng = random.Random(373)
    walks: list[int] = []
    real_items = email.message.Message.raw_items

    def counted(self: Any) -> Any:
        walks.append(1)
        return real_items(self)

    wrong = []
    for case in range(cases):
        lines = [rng.choice(_MARKERS if rng.random() < 0.1 else _PLAIN) for _ in range(rng.randint(0, 30))]
        raw = b"\r\n".join([b"From: a@x.test", *lines]) + b"\r\n\r\nbody\r\n"
        sender = rng.choice(("a@x.test", "MAILER-DAEMON@x.test", ""))
        msg = email.message_from_bytes(raw)
        walks.clear()
        email.message.Message.raw_items = counted  # type: ignore[method-assign]
        try:
            new = loops.auto_reason(msg, sender, "moderator@x.test")
        finally:
            email.message.Message.raw_items = real_items  # type: ignore[method-assign]
        walked = len(walks)
        if hasattr(loops, "_heads"):  # the old walk, for the reason it gave
            real_values = loops._values
            loops._values = lambda m, name, heads: _old_values(m, name)  # type: ignore[assignment]
            try:
                old = loops.auto_reason(msg, sender, "moderator@x.test")
            finally:
                loops._values = real_values  # type: ignore[assignment]
        else:
            old = new
        if walked > 1 or old != new:
            wrong.append((case, walked, old, new))
    return wrong


def test_the_loop_checks_walk_a_messages_headers_once() -> None:
    wrong = header_walks(size(300, 12))
    assert not wrong, f"{len(wrong)} messages (case, walks, old reason, new reason): {wrong[:5]}"


if __name__ == "__main__":  # the generators' counts with any checkout's pbem first on the path (36ff7173 included)
    import sys
    import tempfile

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    with tempfile.TemporaryDirectory() as tmp:
        print(f"sender reads: {len(sender_reads(Path(tmp), n))} of {n} batches wasteful or stale")
    print(f"header walks: {len(header_walks(n))} of {n} messages walked their headers again or read otherwise")
    print(f"message ids: {len(message_id_waste(n))} of {n} messages parsed past their header or read otherwise")

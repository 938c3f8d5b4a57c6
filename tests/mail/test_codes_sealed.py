"""Codes leave the record when a mail is queued, not when it is sent (issue 26, `pbem.mail.outbound.sealed`).

A game's first reports carry each player's code.  From the commit that queued them on, through an SMTP outage,
a deferral that gives one of them up, `pbem outbox retry`, and while the fault-injecting SMTP server over TCP is
receiving each mail, every column of every table is searched for every code (any case, any separator, after
MIME decoding): none holds one.  The players still get their codes; a mail given up on and queued again, or a
home whose key file is lost, sends the redacted copy.
"""

from __future__ import annotations

import socket
import sqlite3
from datetime import UTC, datetime, timedelta
from email import policy
from email.parser import BytesParser
from pathlib import Path

import pytest

from pbem.app import games
from pbem.home.app import Home
from pbem.mail.inbound.redact import code_pattern
from pbem.mail.outbound import sealed
from pbem.mail.outbound.sender import send_pending
from pbem.mail.transports.seam import TransportError
from pbem.mail.transports.smtp import SmtpSender
from tests.conftest import CODES
from tests.mail.test_deadlines import _lines, server
from tests.mail.test_outbox_semantics import PLAYERS, _pbem
from tests.reliability import killpoints as kp
from tests.reliability.test_codes_never_stored import holds_code

PATTERN = code_pattern(list(CODES.values()))


def _db(cfg) -> str:
    return cfg.database_url.removeprefix("sqlite:///")


def codes_in_record(path: str) -> list[str]:
    """Every (table.column) of the record that holds any player's code."""
    con = sqlite3.connect(path, timeout=30)
    try:
        found = []
        for (table,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
            cols = [c[1] for c in con.execute(f'PRAGMA table_info("{table}")')]
            for row in con.execute(f'SELECT * FROM "{table}"'):
                found += [f"{table}.{c}" for c, v in zip(cols, row, strict=True) if holds_code(v, PATTERN)]
        return found
    finally:
        con.close()


def recording(db: str, refuse: str = "", checks: list[list[str]] | None = None):
    """An SMTP server that keeps each mail's bytes (log) and, while it holds one, searches the record for codes
    (`checks`); RCPT of `refuse` gets a 450."""

    def handle(conn: socket.socket, log: list[bytes]) -> None:
        conn.sendall(b"220 fault.test ESMTP\r\n")
        lines = _lines(conn)
        refused = False
        for line in lines:
            verb = line[:4].upper()
            if verb in (b"EHLO", b"HELO"):
                conn.sendall(b"250-fault.test\r\n250 8BITMIME\r\n")
            elif verb == b"RCPT":
                refused = bool(refuse) and refuse.encode() in line
                conn.sendall(b"450 4.2.2 mailbox busy\r\n" if refused else b"250 ok\r\n")
            elif verb == b"DATA":
                conn.sendall(b"354 go on\r\n")
                body = []
                for data_line in lines:
                    if data_line == b".":
                        break
                    body.append(data_line[1:] if data_line.startswith(b"..") else data_line)
                if checks is not None:
                    checks.append(codes_in_record(db))  # mid-send: the mail is on the wire, not in the record
                log.append(b"\r\n".join(body))
                conn.sendall(b"250 queued\r\n")
            elif verb == b"QUIT":
                conn.sendall(b"221 bye\r\n")
                return
            else:
                conn.sendall(b"250 ok\r\n")

    return handle


def _send(cfg, port: int, when: datetime):
    sender = SmtpSender("127.0.0.1", port, timeout=5)
    try:
        return send_pending(cfg, sender, when)
    finally:
        sender.close()


def _text(raw: bytes) -> str:
    body = BytesParser(policy=policy.default).parsebytes(raw).get_body(("plain",))
    assert body is not None
    return str(body.get_content())


def _to(raw: bytes) -> str:
    return str(BytesParser(policy=policy.default).parsebytes(raw)["To"])


def test_no_table_holds_a_code_from_the_commit_that_queues_it_to_its_sending(tmp_path: Path) -> None:
    cfg = kp.make_home(tmp_path / "home")
    cfg.smtp.max_attempts = 1
    games.create_game(Home.of(cfg), "habsburg", "g1", PLAYERS, seed="sealed", codes=CODES)
    db = _db(cfg)
    assert codes_in_record(db) == [], "queued: the first reports are in the outbox, their codes are not"
    sealed_rows = sqlite3.connect(db).execute("SELECT raw, keep_raw FROM outbox JOIN outbox_mail USING (id)").fetchall()
    assert len(sealed_rows) == 3 and all(sealed.is_sealed(r) and k for r, k in sealed_rows)
    assert (Path(cfg.home) / sealed.KEY_FILE).stat().st_mode & 0o077 == 0, "the key file is the moderator's only"

    closed = socket.create_server(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()
    with pytest.raises(TransportError):  # an outage: nothing sent, nothing opened into the record
        _send(cfg, port, datetime.now(UTC) + timedelta(minutes=1))
    assert codes_in_record(db) == []

    checks: list[list[str]] = []
    with server(recording(db, refuse="bob@", checks=checks)) as (port, log):
        summary = _send(cfg, port, datetime.now(UTC) + timedelta(minutes=2))
    assert (summary.sent, summary.failed) == (2, 1)  # Bob's report is given up on (max_attempts = 1)
    assert checks == [[], []], "while each mail was on the wire no table held a code"
    assert codes_in_record(db) == []
    got = {_to(raw).split("<")[-1].rstrip(">"): _text(raw) for raw in log}
    assert CODES["Alice"] in got["alice@example.test"] and CODES["Carol"] in got["carol@example.test"]
    assert CODES["Bob"] not in "".join(got.values()), "each player gets only their own code"

    retried = _pbem(cfg, "outbox", "retry", "--all")
    assert retried.returncode == 0, retried.stderr
    with server(recording(db, checks=checks)) as (port, log):
        _send(cfg, port, datetime.now(UTC) + timedelta(minutes=3))
    to_bob = [raw for raw in log if "bob@example.test" in _to(raw)]
    assert len(to_bob) == 1 and CODES["Bob"] not in _text(to_bob[0]) and "[redacted once sent]" in _text(to_bob[0])
    assert codes_in_record(db) == []


def test_a_home_that_lost_its_key_sends_the_redacted_copy(tmp_path: Path, caplog) -> None:
    cfg = kp.make_home(tmp_path / "home")
    games.create_game(Home.of(cfg), "habsburg", "g1", PLAYERS, seed="sealed", codes=CODES)
    (Path(cfg.home) / sealed.KEY_FILE).unlink()
    sealed._KEYS.clear()  # a new process of the same home
    with server(recording(_db(cfg))) as (port, log):
        summary = _send(cfg, port, datetime.now(UTC) + timedelta(minutes=1))
    assert summary.sent == 3 and len(log) == 3
    assert all("[redacted once sent]" in _text(raw) and not PATTERN.search(_text(raw)) for raw in log)  # type: ignore[union-attr]
    assert "cannot be opened" in caplog.text

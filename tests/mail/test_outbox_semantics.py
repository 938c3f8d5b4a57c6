"""The outbox keeps a mail server's semantics (issue 26), against a fault-injecting SMTP server over TCP.

* A 450 for one recipient defers that mail only: the others go out in the same run.
* A server that cannot be reached costs no mail an attempt (an outage of hours gives up nothing).
* A mail given up on is listed by `pbem outbox list` and queued again by `pbem outbox retry`.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pbem.app import games
from pbem.home.app import Home
from pbem.mail.outbound.sender import send_pending
from pbem.mail.transports.seam import TransportError
from pbem.mail.transports.smtp import SmtpSender
from tests.conftest import CODES
from tests.mail.test_deadlines import _lines, server
from tests.reliability import killpoints as kp

PLAYERS = [("Alice", "alice@example.test"), ("Bob", "bob@example.test"), ("Carol", "carol@example.test")]
REPO = Path(__file__).resolve().parents[2]


def deferring(refuse: str):
    """An SMTP server answering 450 to RCPT of `refuse`, accepting everything else (log: recipients of DATA)."""

    def handle(conn: socket.socket, log: list[bytes]) -> None:
        conn.sendall(b"220 fault.test ESMTP\r\n")
        lines = _lines(conn)
        rcpt = b""
        for line in lines:
            verb = line[:4].upper()
            if verb in (b"EHLO", b"HELO"):
                conn.sendall(b"250-fault.test\r\n250 8BITMIME\r\n")
            elif verb == b"RCPT":
                rcpt = line
                ok = refuse.encode() not in line
                conn.sendall(b"250 ok\r\n" if ok else b"450 4.2.2 mailbox busy, try later\r\n")
            elif verb == b"DATA":
                conn.sendall(b"354 go on\r\n")
                for data_line in lines:
                    if data_line == b".":
                        break
                log.append(rcpt)
                conn.sendall(b"250 queued\r\n")
            elif verb == b"QUIT":
                conn.sendall(b"221 bye\r\n")
                return
            else:
                conn.sendall(b"250 ok\r\n")

    return handle


def _home(tmp_path: Path):
    cfg = kp.make_home(tmp_path / "home")
    games.create_game(Home.of(cfg), "habsburg", "g1", PLAYERS, seed="outbox", codes=CODES)
    return cfg


def _rows(cfg) -> dict[str, tuple[str, int]]:
    con = sqlite3.connect(cfg.database_url.removeprefix("sqlite:///"))
    try:
        return {to: (status, n) for to, status, n in con.execute("SELECT to_addr, status, attempts FROM outbox")}
    finally:
        con.close()


def test_a_450_for_one_recipient_defers_that_mail_only(tmp_path: Path) -> None:
    cfg = _home(tmp_path)
    with server(deferring("bob@")) as (port, log):
        sender = SmtpSender("127.0.0.1", port, timeout=5)
        try:
            summary = send_pending(cfg, sender, datetime.now(UTC) + timedelta(seconds=1))
        finally:
            sender.close()
    assert (summary.sent, summary.retry, summary.failed) == (2, 1, 0)
    assert sorted(r.lower() for r in log) == [b"rcpt to:<alice@example.test>", b"rcpt to:<carol@example.test>"]
    rows = _rows(cfg)
    assert rows["bob@example.test"] == ("queued", 1)
    assert rows["alice@example.test"][0] == rows["carol@example.test"][0] == "sent"


def test_an_unreachable_server_costs_no_mail_an_attempt(tmp_path: Path) -> None:
    cfg = _home(tmp_path)
    closed = socket.create_server(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()  # nothing listens there: every connect is refused
    for hour in range(6):  # an outage of six hours, one run an hour
        with pytest.raises(TransportError, match="cannot connect"):
            send_pending(cfg, SmtpSender("127.0.0.1", port, timeout=2), datetime.now(UTC) + timedelta(hours=hour))
    assert all(v == ("queued", 0) for v in _rows(cfg).values()), _rows(cfg)


def _pbem(cfg, *args: str) -> subprocess.CompletedProcess[str]:
    from tests.reliability import forkserver

    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return forkserver.pbem(["--config", str(cfg.path), *args], env=env, cwd=REPO)  # forked from one that imported pbem


def test_a_mail_given_up_on_is_listed_and_queued_again(tmp_path: Path) -> None:
    cfg = _home(tmp_path)
    cfg.smtp.max_attempts = 2
    with server(deferring("bob@")) as (port, _):
        for i in range(2):
            sender = SmtpSender("127.0.0.1", port, timeout=5)
            try:
                send_pending(cfg, sender, datetime.now(UTC) + timedelta(days=i + 1))
            finally:
                sender.close()
    assert _rows(cfg)["bob@example.test"] == ("failed", 2)
    con = sqlite3.connect(cfg.database_url.removeprefix("sqlite:///"))
    raw, keep = con.execute(
        "SELECT raw, keep_raw FROM outbox JOIN outbox_mail USING (id) WHERE to_addr = 'bob@example.test'"
    ).fetchone()
    con.close()
    assert CODES["Bob"].encode() not in raw and keep is None, "a mail given up on keeps no code"
    listed = _pbem(cfg, "outbox", "list")
    assert listed.returncode == 0, listed.stderr
    assert "bob@example.test (Bob), 2 attempt(s): SMTP" in listed.stdout and "450" in listed.stdout
    assert "alice@" not in listed.stdout
    retried = _pbem(cfg, "outbox", "retry", "--all")
    assert retried.returncode == 0 and "queued again: #" in retried.stdout, retried.stderr
    assert _rows(cfg)["bob@example.test"] == ("queued", 0)
    assert _pbem(cfg, "outbox", "retry", "9999").returncode == 2
    assert "no mail was given up on" in _pbem(cfg, "outbox", "list").stdout


def test_mail_given_up_on_tells_the_moderator_once_a_day_not_once_a_mail(tmp_path: Path) -> None:
    """A server refusing every recipient made one alert per mail given up on (16 reports, 16 alerts, found by
    the transport testers), each queued through the same server.  One a day now; `pbem outbox list` has all."""
    cfg = _home(tmp_path)
    cfg.smtp.max_attempts = 1
    with server(deferring("@example.test")) as (port, _):
        sender = SmtpSender("127.0.0.1", port, timeout=5)
        try:
            send_pending(cfg, sender, datetime.now(UTC) + timedelta(hours=1))
        finally:
            sender.close()
    rows = _rows(cfg)
    failed = [to for to, (status, _) in rows.items() if status == "failed"]
    assert len(failed) >= 3, rows  # every player's first report
    con = sqlite3.connect(cfg.database_url.removeprefix("sqlite:///"))
    try:
        alerts = con.execute("SELECT raw FROM outbox JOIN outbox_mail USING (id) WHERE purpose = 'alert'").fetchall()
    finally:
        con.close()
    assert len(alerts) == 1 and b"pbem outbox list" in bytes(alerts[0][0]), len(alerts)


def test_a_run_whose_mail_was_all_deferred_says_so() -> None:
    """Such a run exits 0 (the next one retries); `pbem poll` prints this note so that it is not silent."""
    from pbem.app.cron import _deferred
    from pbem.app.poll import PollSummary

    for sent, retry, said in ((0, 3, True), (2, 3, False), (0, 0, False)):
        summary = PollSummary(sent=sent, retry=retry)
        _deferred(summary)
        assert bool(summary.told) == said and all("took none of the 3" in t for t in summary.told), summary.told

"""Sending keeps pace with the poll: SMTP pipelining (RFC 2920) and `[smtp] connections = N`, against Postfix.

Postfix offers PIPELINING: each message's MAIL, RCPT and DATA go out in one
write and the body in a second.  A poll with `connections = 2` sends its mail
over two connections at once, each mail once.
"""

from __future__ import annotations

import pytest

from pbem.app import games
from pbem.app.poll import poll
from pbem.cli.support import init_home
from pbem.home import config as config_mod
from pbem.home.app import Home
from pbem.mail.transports.seam import PermanentSendError, open_transport
from pbem.mail.transports.smtp import SmtpSender

from .conftest import MODERATOR, USERS

pytestmark = pytest.mark.dovecot


def message(n: int, to: str, body: str) -> bytes:
    return (
        f"From: Moderator <{MODERATOR}>\r\nTo: {to}\r\nSubject: report {n}\r\n"
        f"Message-ID: <report-{n}@pbem.example.test>\r\nDate: Sun, 29 Nov 2026 12:00:00 +0000\r\n\r\n{body}\r\n"
    ).encode()


def test_each_message_is_pipelined_in_two_writes_and_arrives_intact(debian_servers) -> None:
    out = SmtpSender(debian_servers.smtp_host, debian_servers.smtp_port, False, False, timeout=10)
    conn = out.open()
    assert conn.has_extn("pipelining")
    writes: list[bytes] = []
    real_send = conn.send
    conn.send = lambda data: (writes.append(data if isinstance(data, bytes) else data.encode()), real_send(data))[1]
    bodies = ["MELD Maria Theresa Austria\r\n.\r\n.. a line of dots", "NO EVENT", "PASS"]
    for n, body in enumerate(bodies):
        out.send(message(n, "bob@example.test", body), MODERATOR, ["bob@example.test"])
    assert len(writes) == 2 * len(bodies)  # commands, then the body: smtplib alone makes four
    assert all(w.startswith(b"MAIL FROM:") and w.endswith(b"DATA\r\n") for w in writes[::2])
    with pytest.raises(PermanentSendError) as refused:  # a refusal read from the pipelined answers
        out.send(message(9, "nobody@example.test", "x"), MODERATOR, ["nobody@example.test"])
    assert "550" in str(refused.value)
    out.send(message(3, "bob@example.test", "after the refusal"), MODERATOR, ["bob@example.test"])
    out.close()
    got = debian_servers.wait_for("bob@example.test", 4)
    assert len(got) == 4 and out.connections == 1
    first = next(raw for raw in got if b"report 0" in raw)
    assert b"\n.\n.. a line of dots" in first.replace(b"\r\n", b"\n")  # dot-stuffed on the way, restored


def test_a_poll_with_two_connections_sends_each_mail_once_over_both(debian_servers, tmp_path, monkeypatch) -> None:
    path = init_home(tmp_path / "home", address=MODERATOR, name="Moderator")
    text = path.read_text()
    path.write_text(text.replace("replies_per_hour = 30", "replies_per_hour = 1000"))
    debian_servers.wire_home(path, MODERATOR, "PBEM_TEST_SMTP_PW", smtp_extra="connections = 2\n")
    monkeypatch.setenv("PBEM_TEST_SMTP_PW", USERS[MODERATOR])
    cfg = config_mod.load(path)
    assert cfg.smtp.connections == 2
    players = [(p.capitalize(), f"{p}@example.test") for p in ("alice", "bob", "carol", "dave")]
    games.create_game(Home.of(cfg), "habsburg", "hh1", players, seed="two-connections")  # four first reports queued
    inbox, sender = open_transport(cfg)
    try:
        summary = poll(Home.of(cfg, inbox=inbox, sender=sender))
    finally:
        inbox.close()
        sender.close()
    assert summary.sent == 4
    for _, address in players:
        assert len(debian_servers.wait_for(address, 1)) == 1
    assert debian_servers.smtp_connections() == 2

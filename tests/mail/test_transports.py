"""The IMAP inbox and SMTP sender against real servers over TCP.

Each test runs against pymap + aiosmtpd and, in the ``dovecot`` tier,
against Dovecot + Postfix.  Messages are built here; what the moderator does
with them is tested elsewhere.
"""

from __future__ import annotations

import contextlib
import email
import smtplib
import socket
import threading
import time

import pytest

from pbem.mail.transports.imap import ImapInbox
from pbem.mail.transports.seam import PermanentSendError, TransientSendError, TransportError
from pbem.mail.transports.smtp import SmtpSender
from tests.growth import Stopwatch

from .conftest import MODERATOR, USERS


def message(n: int, to: str = MODERATOR, sender: str = "alice@example.test", body: str = "") -> bytes:
    return (
        f"From: Player <{sender}>\r\nTo: {to}\r\nSubject: orders {n}\r\n"
        f"Message-ID: <order-{n}@players.example.test>\r\nDate: Sun, 29 Nov 2026 12:00:00 +0000\r\n"
        f"\r\n{body or f'PASS {n}'}\r\n"
    ).encode()


def subjects(raws: list[bytes]) -> list[str]:
    """The subjects of the mails delivered, sorted: SMTP promises no order of delivery, and Postfix's queue manager
    has delivered a mail sent second (with two recipients) before the first (a CI run of 2026-12-05)."""
    return sorted(email.message_from_bytes(raw)["Subject"] for raw in raws)


def inbox(servers, **options) -> ImapInbox:
    return ImapInbox(servers.imap_host, servers.imap_port, False, False, MODERATOR, USERS[MODERATOR], **options)


def sender(servers, **options) -> SmtpSender:
    return SmtpSender(servers.smtp_host, servers.smtp_port, False, False, timeout=10, **options)


# -- IMAP ---------------------------------------------------------------------


def test_fetch_streams_every_message_oldest_first_in_batches(mail_servers):
    for n in range(7):
        mail_servers.deliver(MODERATOR, message(n))
    box = inbox(mail_servers, batch=3)
    calls = []
    real_fetch = box._client.fetch

    def spy(uids, items):
        calls.append((list(uids), list(items)))
        return real_fetch(uids, items)

    box._client.fetch = spy
    try:
        got = list(box.fetch())
    finally:
        box.close()
    assert subjects([m.raw for m in got]) == [f"orders {n}" for n in range(7)]
    uids = [int(m.key.split(":")[1]) for m in got]
    assert uids == sorted(uids)
    # with its size, when each arrived by the server's clock, and its Message-ID (the body's must be it: costs25)
    sizes = ["RFC822.SIZE", "INTERNALDATE", "BODY.PEEK[HEADER.FIELDS (MESSAGE-ID)]"]
    bodies = [(uids, items) for uids, items in calls if items != sizes]
    assert [len(uids) for uids, _ in bodies] == [3, 3, 1]
    assert all(items == [f"BODY.PEEK[]<0.{box.max_message}>"] for _, items in bodies), "never more than pbem reads"
    assert [uids for uids, items in calls if items == sizes] == [uids for uids, _ in bodies], (
        "each batch's sizes are asked first (issue 26)"
    )


def _fetches(box: ImapInbox) -> list[tuple[str, list[int], list[str]]]:
    """Every FETCH `box` sends from now on: (the thread that sent it, its UIDs, its items)."""
    calls: list[tuple[str, list[int], list[str]]] = []
    real_fetch = box._client.fetch

    def spy(uids, items):
        calls.append((threading.current_thread().name, list(uids), list(items)))
        return real_fetch(uids, items)

    box._client.fetch = spy
    return calls


def _until(condition, seconds: float = 20.0) -> None:
    watch = Stopwatch()
    try:
        while not condition():
            assert watch.spent() < seconds, "the connection's thread never got there"  # wall clock: deadline
            time.sleep(0.01)
    finally:
        watch.stop()


def test_fetch_reads_one_batch_ahead_never_two(mail_servers):
    for n in range(5):
        mail_servers.deliver(MODERATOR, message(n))
    box = inbox(mail_servers, batch=2)
    calls = _fetches(box)
    stream = box.fetch()
    first = next(stream)
    assert subjects([first.raw]) == ["orders 0"]
    # while the first batch is handled, the next one is fetched (its sizes, then its bodies); the third
    # is asked for only once the first is done, so it can never be among these
    _until(lambda: len(calls) == 4)
    assert [len(uids) for _, uids, _ in calls] == [2, 2, 2, 2]
    assert calls[0][1] == calls[1][1] and calls[2][1] == calls[3][1] and calls[0][1] != calls[2][1]
    assert all(thread.startswith("pbem-imap") for thread, _, _ in calls), "only the connection's thread talks"
    second = next(stream)
    assert subjects([second.raw]) == ["orders 1"] and len(calls) == 4
    stream.close()
    box.close()


def test_a_batch_is_filed_once_every_message_of_it_is_settled_and_a_stop_leaves_the_rest(mail_servers):
    for n in range(5):
        mail_servers.deliver(MODERATOR, message(n))
    box = inbox(mail_servers, batch=2)
    moves: list[tuple[str, list[int]]] = []
    real_move = box._client.move
    box._client.move = lambda uids, folder: (
        moves.append((threading.current_thread().name, list(uids))) or real_move(uids, folder)
    )
    stream = box.fetch()
    for _ in range(3):  # the first batch, and one message of the second, each settled as the poll does
        item = next(stream)
        box.settle(item.key, accepted=True)
    _until(lambda: len(moves) == 1)
    assert [len(uids) for _, uids in moves] == [2] and moves[0][0].startswith("pbem-imap")
    stream.close()  # the poll stops mid-batch (its deadline): the settled message is filed at close
    box.close()
    assert subjects(mail_servers.mailbox(MODERATOR, "pbem/processed")) == ["orders 0", "orders 1", "orders 2"]
    assert subjects(mail_servers.mailbox(MODERATOR)) == ["orders 3", "orders 4"]


def test_a_message_settled_by_message_id_while_streaming_is_filed_by_the_connections_thread(mail_servers):
    for n in range(3):
        mail_servers.deliver(MODERATOR, message(n))
    box = inbox(mail_servers, batch=2)
    moves: list[str] = []
    real_move = box._client.move
    box._client.move = lambda uids, folder: moves.append(threading.current_thread().name) or real_move(uids, folder)
    stream = box.fetch()
    first = next(stream)
    box.uidvalidity += 1  # as if the folder had been recreated: found again by its Message-ID, filed at once
    box.settle(first.key, accepted=True)
    assert moves and moves[0].startswith("pbem-imap"), "only the connection's thread talks while fetch streams"
    box.uidvalidity -= 1
    for item in stream:
        box.settle(item.key, accepted=True)
    box.close()
    assert all(name.startswith("pbem-imap") for name in moves)
    assert subjects(mail_servers.mailbox(MODERATOR, "pbem/processed")) == ["orders 0", "orders 1", "orders 2"]
    assert subjects(mail_servers.mailbox(MODERATOR)) == []


def test_closing_while_fetch_is_suspended_stops_the_reading_ahead_before_filing(mail_servers):
    """A poll that fails mid-stream leaves `fetch` suspended (its traceback holds it); the inbox is closed
    before the generator is: the connection's thread must be done before `close` files and logs out."""
    for n in range(5):
        mail_servers.deliver(MODERATOR, message(n))
    box = inbox(mail_servers, batch=2)
    stream = box.fetch()
    item = next(stream)
    box.settle(item.key, accepted=True)
    box.close()  # the read-ahead of the second batch may be on the wire right now
    assert box._wire is None and box._client is None
    stream.close()  # later, the generator goes: nothing is left to do or to fail
    assert subjects(mail_servers.mailbox(MODERATOR, "pbem/processed")) == ["orders 0"]
    assert subjects(mail_servers.mailbox(MODERATOR)) == [f"orders {n}" for n in range(1, 5)]


def test_a_connection_lost_while_reading_ahead_is_a_transport_error_of_the_poll(mail_servers):
    for n in range(4):
        mail_servers.deliver(MODERATOR, message(n))
    box = inbox(mail_servers, batch=1, timeout=5)
    stream = box.fetch()
    next(stream)
    # the connection dies under the connection's thread, as a server gone away (or the poll's watchdog) ends it
    socket.socket.shutdown(box._client.socket(), socket.SHUT_RDWR)
    with pytest.raises(TransportError) as caught:
        for item in stream:
            box.settle(item.key, accepted=True)
    assert USERS[MODERATOR] not in str(caught.value) and "\n" not in str(caught.value)
    box.close()


def test_fetch_uses_peek_and_leaves_messages_unseen(mail_servers):
    for n in range(3):
        mail_servers.deliver(MODERATOR, message(n))
    box = inbox(mail_servers)
    assert len(list(box.fetch())) == 3
    box.close()
    assert [b"\\Seen" in flags for flags in mail_servers.flags(MODERATOR)] == [False] * 3


def test_folders_are_created_when_missing_and_reused_when_present(mail_servers):
    assert mail_servers.folders(MODERATOR) == ["INBOX"]
    inbox(mail_servers).close()
    folders = mail_servers.folders(MODERATOR)
    assert "pbem/processed" in folders and "pbem/rejected" in folders
    # a second run must not CREATE them again (pymap drops the connection if asked)
    box = inbox(mail_servers)
    assert list(box.fetch()) == []
    box.close()


def test_a_folder_made_between_the_look_and_the_create_is_the_folder(mail_servers, monkeypatch):
    """A CI run of 2026-12-06 failed with "folder setup failed (create failed: [ALREADYEXISTS] Mailbox already
    exists)" on Dovecot: the folder was there by the CREATE though the look before it said it was not (another
    client, or a list behind).  The look is made to say so here; the server's answer to the CREATE is its own."""
    if type(mail_servers).__name__ != "DebianMailServers":
        pytest.skip("pymap drops the connection on a CREATE of a folder that exists; Dovecot answers NO")
    from imapclient import IMAPClient

    inbox(mail_servers).close()  # the folders exist now
    real, looks = IMAPClient.folder_exists, []

    def behind(self, name):
        looks.append(name)
        return False if len(looks) == 1 else real(self, name)

    monkeypatch.setattr(IMAPClient, "folder_exists", behind)
    mail_servers.deliver(MODERATOR, message(1))
    box = inbox(mail_servers)
    assert len(looks) >= 2  # the first look said "missing", the CREATE was refused, the second look found it
    got = list(box.fetch())
    assert [m.raw.split(b"Subject: ")[1].split(b"\r\n")[0] for m in got] == [b"orders 1"]
    box.close()


@pytest.mark.parametrize("use_move", [None, False], ids=["MOVE", "COPY+EXPUNGE"])
def test_settle_moves_accepted_to_processed_and_refused_to_rejected(mail_servers, use_move):
    for n in range(4):
        mail_servers.deliver(MODERATOR, message(n))
    box = inbox(mail_servers, use_move=use_move)
    if use_move is None:
        assert box._client.has_capability("MOVE")
    for item in box.fetch():
        n = int(subjects([item.raw])[0].split()[1])
        box.settle(item.key, accepted=n % 2 == 0)
    box.close()
    assert mail_servers.mailbox(MODERATOR) == []
    assert subjects(mail_servers.mailbox(MODERATOR, "pbem/processed")) == ["orders 0", "orders 2"]
    assert subjects(mail_servers.mailbox(MODERATOR, "pbem/rejected")) == ["orders 1", "orders 3"]


def test_settle_falls_back_to_plain_expunge_without_uidplus(mail_servers):
    for n in range(3):
        mail_servers.deliver(MODERATOR, message(n))
    box = inbox(mail_servers)
    real = box._client.has_capability
    box._client.has_capability = lambda name: False if name.upper() in ("MOVE", "UIDPLUS") else real(name)
    for item in box.fetch():
        box.settle(item.key, accepted=True)
    box.close()
    assert mail_servers.mailbox(MODERATOR) == []
    assert subjects(mail_servers.mailbox(MODERATOR, "pbem/processed")) == ["orders 0", "orders 1", "orders 2"]


def test_settle_with_custom_folder_names(mail_servers):
    mail_servers.deliver(MODERATOR, message(1))
    box = inbox(mail_servers, processed_folder="Done", rejected_folder="Junk/refused")
    (item,) = box.fetch()
    box.settle(item.key, accepted=True)
    box.close()
    assert subjects(mail_servers.mailbox(MODERATOR, "Done")) == ["orders 1"]
    assert "Junk/refused" in mail_servers.folders(MODERATOR)


def test_message_fetched_but_not_settled_is_fetched_again_after_a_crash(mail_servers):
    mail_servers.deliver(MODERATOR, message(1))
    mail_servers.deliver(MODERATOR, message(2))
    box = inbox(mail_servers)
    first = list(box.fetch())
    box.settle(first[0].key, accepted=True)
    box._client.shutdown()  # the run dies before settling the second message
    again = inbox(mail_servers)
    second = list(again.fetch())
    again.close()
    assert [m.key for m in second] == [first[1].key]
    assert second[0].raw == first[1].raw


def test_uidvalidity_is_exposed_and_names_the_keys(mail_servers):
    mail_servers.deliver(MODERATOR, message(1))
    box = inbox(mail_servers)
    assert isinstance(box.uidvalidity, int) and box.uidvalidity > 0
    (item,) = box.fetch()
    box.close()
    assert item.key.startswith(f"{box.uidvalidity}:")
    other = inbox(mail_servers)
    assert other.uidvalidity == box.uidvalidity
    other.close()


def test_stale_uidvalidity_is_resolved_by_message_id_or_ignored(mail_servers):
    mail_servers.deliver(MODERATOR, message(1))
    mail_servers.deliver(MODERATOR, message(2, body=""))
    box = inbox(mail_servers)
    items = list(box.fetch())
    box.uidvalidity += 1  # as if the folder had been recreated since the fetch
    box.settle(items[0].key, accepted=True)  # found again by its Message-ID
    box.settle(f"{box.uidvalidity - 7}:999", accepted=True)  # unknown: ignored
    box.close()
    assert subjects(mail_servers.mailbox(MODERATOR)) == ["orders 2"]
    assert subjects(mail_servers.mailbox(MODERATOR, "pbem/processed")) == ["orders 1"]


def test_wrong_password_is_a_transport_error_that_never_shows_the_password(mail_servers):
    secret = "Wrong-Secret-4242"
    with pytest.raises(TransportError) as caught:
        ImapInbox(mail_servers.imap_host, mail_servers.imap_port, False, False, MODERATOR, secret)
    text = str(caught.value)
    assert secret not in text and "\n" not in text
    assert "login" in text


def test_imap_server_down_is_a_transport_error(mail_servers):
    with mail_servers.imap_stopped(), pytest.raises(TransportError) as caught:
        inbox(mail_servers, timeout=5)
    assert USERS[MODERATOR] not in str(caught.value)
    assert "connect" in str(caught.value)


def test_unreachable_imap_port_is_a_transport_error():
    from tests.servers.testservers import free_port

    with pytest.raises(TransportError):
        ImapInbox("127.0.0.1", free_port(), False, False, "x@example.test", "pw", timeout=2)


# -- SMTP ---------------------------------------------------------------------


def test_send_delivers_to_the_recipients_imap_inbox(mail_servers):
    out = sender(mail_servers)
    out.send(message(1, to="bob@example.test", sender=MODERATOR), MODERATOR, ["bob@example.test"])
    out.send(
        message(2, to="alice@example.test", sender=MODERATOR), MODERATOR, ["alice@example.test", "bob@example.test"]
    )
    out.close()
    assert subjects(mail_servers.wait_for("bob@example.test", 2)) == ["orders 1", "orders 2"]
    assert subjects(mail_servers.wait_for("alice@example.test", 1)) == ["orders 2"]
    got = [email.message_from_bytes(raw) for raw in mail_servers.mailbox("bob@example.test")]
    assert {m["Subject"]: m["Message-ID"] for m in got}["orders 1"] == "<order-1@players.example.test>"


def test_one_connection_is_reused_for_every_send(mail_servers):
    out = sender(mail_servers)
    for n in range(5):
        out.send(message(n, to="bob@example.test"), MODERATOR, ["bob@example.test"])
    out.close()
    assert out.connections == 1
    assert mail_servers.smtp_connections() == 1
    assert len(mail_servers.wait_for("bob@example.test", 5)) == 5


def test_smtp_down_is_transient_and_the_same_sender_works_after_restart(mail_servers):
    out = sender(mail_servers)
    out.send(message(1, to="bob@example.test"), MODERATOR, ["bob@example.test"])
    mail_servers.smtp_down()
    try:
        with pytest.raises(TransientSendError):
            out.send(message(2, to="bob@example.test"), MODERATOR, ["bob@example.test"])
    finally:
        mail_servers.smtp_up()
    out.send(message(3, to="bob@example.test"), MODERATOR, ["bob@example.test"])
    out.close()
    assert subjects(mail_servers.wait_for("bob@example.test", 2)) == ["orders 1", "orders 3"]


def test_a_connection_dropped_between_sends_is_reopened_once(mail_servers):
    out = sender(mail_servers)
    out.send(message(1, to="bob@example.test"), MODERATOR, ["bob@example.test"])
    with mail_servers.smtp_stopped():
        pass  # the server restarts: our idle connection is gone
    out.send(message(2, to="bob@example.test"), MODERATOR, ["bob@example.test"])
    out.close()
    assert out.connections == 2
    assert subjects(mail_servers.wait_for("bob@example.test", 2)) == ["orders 1", "orders 2"]


def test_unknown_recipient_is_a_permanent_failure_and_the_connection_survives(mail_servers):
    out = sender(mail_servers)
    with pytest.raises(PermanentSendError) as caught:
        out.send(message(1, to="nobody@example.test"), MODERATOR, ["nobody@example.test"])
    assert "550" in str(caught.value) and "\n" not in str(caught.value)
    out.send(message(2, to="bob@example.test"), MODERATOR, ["bob@example.test"])
    out.close()
    assert out.connections == 1
    assert subjects(mail_servers.wait_for("bob@example.test", 1)) == ["orders 2"]


def test_smtp_login_failure_is_transient_and_never_shows_the_password(mail_servers):
    # 535 from the server: the configuration is wrong, not the message, so
    # the run stops and the message stays queued for a later run.
    secret = "Smtp-Secret-9911"
    out = SmtpSender(mail_servers.smtp_host, mail_servers.smtp_port, False, False, MODERATOR, secret, timeout=10)
    with pytest.raises(TransientSendError) as caught:
        out.send(message(1, to="bob@example.test"), MODERATOR, ["bob@example.test"])
    assert secret not in str(caught.value) and "\n" not in str(caught.value)
    assert "535" in str(caught.value)
    out.close()


def test_smtp_login_with_the_right_password_sends(mail_servers):
    out = SmtpSender(
        mail_servers.smtp_host, mail_servers.smtp_port, False, False, MODERATOR, USERS[MODERATOR], timeout=10
    )
    out.send(message(1, to="bob@example.test"), MODERATOR, ["bob@example.test"])
    out.close()
    assert subjects(mail_servers.wait_for("bob@example.test", 1)) == ["orders 1"]


def test_unreachable_smtp_port_is_transient():
    from tests.servers.testservers import free_port

    out = SmtpSender("127.0.0.1", free_port(), False, False, timeout=2)
    with pytest.raises(TransientSendError):
        out.send(message(1), MODERATOR, ["bob@example.test"])
    out.close()


def test_smtplib_players_reach_the_moderator_inbox(mail_servers):
    with smtplib.SMTP(mail_servers.smtp_host, mail_servers.smtp_port, timeout=10) as client:
        client.sendmail("alice@example.test", [MODERATOR], message(7))
    assert subjects(mail_servers.wait_for(MODERATOR, 1)) == ["orders 7"]


# -- the two together -----------------------------------------------------------


def test_hundred_messages_send_fetch_and_settle(mail_servers, capsys):
    out = sender(mail_servers)
    started = time.perf_counter()
    for n in range(100):
        out.send(message(n), "alice@example.test", [MODERATOR])
    out.close()
    sent = time.perf_counter() - started
    assert len(mail_servers.wait_for(MODERATOR, 100, timeout=30)) == 100
    started = time.perf_counter()
    box = inbox(mail_servers)
    count = 0
    for item in box.fetch():
        box.settle(item.key, accepted=True)
        count += 1
    box.close()
    polled = time.perf_counter() - started
    assert count == 100 and out.connections == 1
    assert len(mail_servers.mailbox(MODERATOR, "pbem/processed")) == 100
    with capsys.disabled():
        print(f"\n  100 messages: send {sent:.2f} s, fetch+settle {polled:.2f} s")


def test_bare_lf_messages_are_sent_with_crlf_line_ends(pip_servers) -> None:
    """smtplib sends bytes untouched; a strict server refuses bare LF (aiosmtpd: 'Line too long')."""
    from pbem.mail.transports.smtp import SmtpSender
    from tests.mail.conftest import MODERATOR, USERS

    raw = b"Subject: lf\nFrom: moderator@example.test\n\n" + b"a line of text\n" * 200
    sender = SmtpSender(pip_servers.smtp_host, pip_servers.smtp_port, username=MODERATOR, password=USERS[MODERATOR])
    try:
        sender.send(raw, MODERATOR, ["alice@example.test"])
    finally:
        sender.close()
    got = pip_servers.wait_for("alice@example.test", 1)
    assert len(got) == 1 and got[0].count(b"a line of text") == 200


def test_delivered_waits_until_every_accepted_mail_is_in_its_mailbox(mail_servers):
    """The benchmarks' `delivered` (Postfix answers DATA before it delivers): after it, nothing is queued and
    every mail accepted is in the recipient's mailbox, so a timed run never pays for the run before."""
    to = "alice@example.test"
    smtp = sender(mail_servers)
    for n in range(60):
        smtp.send(message(n, to=to, body="\r\n".join(["x" * 70] * 300)), MODERATOR, [to])
    smtp.close()
    mail_servers.delivered()
    assert getattr(mail_servers, "queued", lambda: 0)() == 0
    assert len(mail_servers.mailbox(to)) == 60


def _echoing_imap(lines: list[str]) -> tuple[socket.socket, threading.Thread]:
    """An IMAP server on 127.0.0.1 that refuses LOGIN by repeating the command it got (some do, in their NO)."""
    srv = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        conn, _ = srv.accept()
        with conn, conn.makefile("rb") as f:
            conn.sendall(b"* OK ready\r\n")
            for raw in f:
                line = raw.decode("utf-8", "replace").rstrip("\r\n")
                tag, _, cmd = line.partition(" ")
                if cmd.upper().startswith("CAPABILITY"):
                    conn.sendall(f"* CAPABILITY IMAP4rev1\r\n{tag} OK done\r\n".encode())
                elif cmd.upper().startswith("LOGIN"):
                    lines.append(line)
                    conn.sendall(f"{tag} NO [AUTHENTICATIONFAILED] refused: {line}\r\n".encode())
                else:
                    conn.sendall(f"{tag} BAD\r\n".encode())

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    return srv, t


@pytest.mark.parametrize("sep", ['"', "\\", " ", "'", '\\"', "é"])
def test_a_password_the_server_echoes_is_masked_in_every_form(sep: str) -> None:
    """Found by the transport testers: a password holding `"` or `\\` was shown, quoted as IMAP's LOGIN quotes it,
    when the server's refusal repeated the LOGIN line; only the password as typed was masked."""
    secret = f"Zq{sep}Xw9{sep}Kp7Lm{sep}"
    got: list[str] = []
    srv, _ = _echoing_imap(got)
    try:
        with pytest.raises(TransportError) as caught:
            ImapInbox("127.0.0.1", srv.getsockname()[1], False, False, MODERATOR, secret)
    finally:
        srv.close()
    text = str(caught.value)
    assert "Kp7Lm" not in text and "Xw9" not in text, text
    if not secret.isascii():  # LOGIN cannot send it (imaplib raised UnicodeEncodeError) and no AUTH=PLAIN: said so
        assert not got and "other than ASCII" in text and "AUTH=PLAIN" in text, text
        return
    assert got and "Kp7Lm" in got[0], "the server did get the password"
    assert "***" in text, text


def test_a_password_that_is_not_ascii_logs_in_by_authenticate_plain(mail_servers):
    """imaplib's LOGIN raised UnicodeEncodeError on such a password (a traceback from `pbem poll`)."""
    zoe = "zoe@example.test"
    box = ImapInbox(mail_servers.imap_host, mail_servers.imap_port, False, False, zoe, USERS[zoe])  # logs in
    try:
        assert list(box.fetch()) == [], "logged in and read Zoë's empty inbox"
    finally:
        box.close()


def test_smtp_login_with_a_password_that_is_not_ascii_sends(mail_servers):
    zoe = "zoe@example.test"
    out = SmtpSender(mail_servers.smtp_host, mail_servers.smtp_port, False, False, zoe, USERS[zoe], timeout=10)
    out.send(message(1, to="bob@example.test"), zoe, ["bob@example.test"])
    out.close()
    assert subjects(mail_servers.wait_for("bob@example.test", 1)) == ["orders 1"]


class _Flood:
    """`_flooding`'s server: `close` shuts its listener and the connection it serves and waits for its thread (left
    sending into a connection pbem gave up on, it blocked for the rest of the worker's run: costs28)."""

    def __init__(self, srv: socket.socket) -> None:
        self.srv, self.conns = srv, []
        self.thread: threading.Thread | None = None

    def getsockname(self):
        return self.srv.getsockname()

    def close(self) -> None:
        for s in (self.srv, *self.conns):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
        self.srv.close()
        if self.thread is not None:
            self.thread.join(10)
            assert not self.thread.is_alive(), "the flooding server's thread outlived its test"


def _flooding(greeting: bytes, on_line, sent: list[int]) -> _Flood:
    """A server on 127.0.0.1: `greeting`, then for each line read `on_line(line)` yields chunks to send until the
    client hangs up (or `close`); `sent[0]` counts the bytes it got out."""
    flood = _Flood(socket.create_server(("127.0.0.1", 0)))

    def serve() -> None:
        try:
            conn, _ = flood.srv.accept()
        except OSError:  # closed before a client came
            return
        flood.conns.append(conn)
        with conn, conn.makefile("rb") as f:
            try:
                conn.sendall(greeting)
                for raw in f:
                    for chunk in on_line(raw.decode("utf-8", "replace").rstrip("\r\n")):
                        conn.sendall(chunk)
                        sent[0] += len(chunk)
            except OSError:
                return

    flood.thread = threading.Thread(target=serve, daemon=True)
    flood.thread.start()
    return flood


def _imap_flood(line: str):
    tag, _, cmd = line.partition(" ")
    if cmd.upper().startswith("CAPABILITY"):
        yield f"* CAPABILITY IMAP4rev1\r\n{tag} OK done\r\n".encode()
    elif cmd.upper().startswith("LOGIN"):
        while True:  # endless untagged lines, never the tagged answer
            yield b"* OK " + b"x" * 60 + b"\r\n" * 1 + b"* OK " + b"y" * 60 + b"\r\n"
    else:
        yield f"{tag} BAD\r\n".encode()


def _imap_lying_literal(line: str):
    tag, _, cmd = line.partition(" ")
    if cmd.upper().startswith("CAPABILITY"):
        yield f"* CAPABILITY IMAP4rev1\r\n{tag} OK done\r\n".encode()
    else:  # a literal far larger than anything pbem asks for
        yield b"* 1 FETCH (BODY[]<0> {999999999}\r\n"
        while True:
            yield b"z" * 65536


@pytest.mark.parametrize("answer", [_imap_flood, _imap_lying_literal], ids=["endless untagged", "huge literal"])
def test_an_imap_server_that_floods_is_cut_off_at_a_bound_not_at_the_deadline(monkeypatch, answer) -> None:
    """imaplib keeps every untagged line of a command and reads any literal a server announces: a server sending
    endless lines grew the poll 6 MB a second until its deadline, one announcing a 200 MiB message it said was
    500 bytes was read whole (found by the transport testers).  Both now end in a TransportError at a bound."""
    import pbem.mail.transports.imap as imap_mod

    monkeypatch.setattr(imap_mod, "MAX_UNTAGGED", 256 * 1024)
    sent = [0]
    srv = _flooding(b"* OK ready\r\n", answer, sent)
    try:
        with pytest.raises(TransportError) as caught:
            ImapInbox("127.0.0.1", srv.getsockname()[1], False, False, MODERATOR, "pw-1234", timeout=10)
    finally:
        srv.close()
    assert "passed" in str(caught.value) or "literal of 999999999 bytes" in str(caught.value), caught.value
    assert sent[0] < 64 * 1024 * 1024, "the client stopped reading long before the server stopped sending"


def _smtp_flood(line: str):
    if line.upper().startswith(("EHLO", "HELO")):
        while True:
            yield b"250-" + b"X" * 70 + b"\r\n"
    else:
        yield b"250 ok\r\n"


def test_an_smtp_server_answering_ehlo_with_endless_lines_is_cut_off_at_a_bound() -> None:
    """smtplib kept every continuation line: 60 MB a second of memory until the poll's deadline."""
    sent = [0]
    srv = _flooding(b"220 flood ESMTP\r\n", _smtp_flood, sent)
    try:
        out = SmtpSender("127.0.0.1", srv.getsockname()[1], False, False, timeout=10)
        with pytest.raises(TransportError) as caught:
            out.send(message(1), MODERATOR, ["bob@example.test"])
        out.close()
    finally:
        srv.close()
    assert "more than 1000 lines" in str(caught.value), caught.value

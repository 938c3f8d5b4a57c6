"""An inbox whose SEARCH answer is longer than imaplib's line is still read (costs20), over the real pymap server.

The poll asks the server for every UID of the inbox (`UID SEARCH NOT DELETED`), and the server answers in one
line.  imaplib reads no line longer than 1,000,000 bytes: an inbox of some 130,000 mails (7-digit UIDs; a spam
run while pbem was off) failed every poll with "search failed (got more than 1000000 bytes)", so nothing was read
again until the moderator emptied the inbox by hand.  pbem now reads a line of up to `MAX_LINE` (2 MiB, some
260,000 UIDs, held at its peak as 65 MB) and says past that what to do.  A relay pads the server's SEARCH answer
with blanks between its UIDs (as many bytes as 150,000 UIDs; imapclient reads any run of blanks as one), so the
test needs no 150,000 mails: on 8080c21 the inbox's `fetch` failed, 1 of 1; now it reads both mails.
"""

from __future__ import annotations

import socket
import threading
from email.message import EmailMessage

import pytest

from pbem.mail.transports.imap import MAX_LINE, ImapInbox
from pbem.mail.transports.seam import TransportError
from tests.mail.conftest import MODERATOR, USERS
from tests.mail.relay import Relay

PAD = 1_200_000  # bytes: the line of 150,000 UIDs of 7 digits


class Padding(Relay):
    """Relays one IMAP server; pads each untagged SEARCH answer with `pad` blanks."""

    def __init__(self, host: str, port: int, pad: int = PAD) -> None:
        super().__init__(host, port)
        self.padded, self.pad = 0, pad
        self.start()

    def _down(self, server: socket.socket, client: socket.socket, lock: threading.Lock) -> None:
        reader = server.makefile("rb")
        try:
            for line in reader:
                if line.startswith(b"* SEARCH ") and line.count(b" ") >= 3:  # two UIDs or more: pad between
                    head, first, rest = line.split(b" ", 3)[1:]
                    line = b"* " + head + b" " + first + b" " * self.pad + rest
                    self.padded += 1
                with lock:
                    client.sendall(line)
        except OSError:
            pass
        finally:
            client.close()

    def _up(self, client: socket.socket, server: socket.socket, lock: threading.Lock) -> None:
        try:
            while data := client.recv(65536):
                server.sendall(data)
        except OSError:
            pass
        finally:
            server.close()


def _deliver(pip_servers) -> None:
    for n in range(2):
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Subject"] = f"someone{n}@example.test", MODERATOR, "hello"
        msg["Message-ID"] = f"<search-{n}@example.test>"
        msg.set_content("hello")
        pip_servers.deliver(MODERATOR, msg.as_bytes())


def test_an_inbox_whose_search_answer_passes_imaplibs_line_is_read(pip_servers) -> None:
    _deliver(pip_servers)
    relay = Padding(pip_servers.imap_host, pip_servers.imap_port)
    try:
        with ImapInbox("127.0.0.1", relay.port, username=MODERATOR, password=USERS[MODERATOR]) as inbox:
            read = [m.raw for m in inbox.fetch()]
    finally:
        relay.close()
    assert relay.padded >= 1, "the SEARCH answer was padded"
    assert sorted(b"<search-0@" in r for r in read) == [False, True], "both mails read"


def test_a_line_past_pbems_own_bound_ends_the_run_in_one_line(pip_servers) -> None:
    _deliver(pip_servers)
    relay = Padding(pip_servers.imap_host, pip_servers.imap_port, pad=MAX_LINE)
    try:
        with (
            pytest.raises(TransportError, match=r"a line of more than 2097152 bytes \(no answer to what pbem asks"),
            ImapInbox("127.0.0.1", relay.port, username=MODERATOR, password=USERS[MODERATOR]) as inbox,
        ):
            list(inbox.fetch())
    finally:
        relay.close()

"""IMAP fetch by size, and a server that refuses to file one message (issue 26), over the real pymap server.

A byte-counting proxy sits between pbem and the server.  It shows that of a mail larger than pbem keeps
only its start crosses the wire (memory per poll does not depend on any one mail's size), and it answers
`NO [OVERQUOTA]` to every MOVE of one message: that message stays in the inbox, every other one is read
and filed, and the poll exits 0.
"""

from __future__ import annotations

import re
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from email.message import EmailMessage

from pbem.app import games
from pbem.app.cron import run_poll
from pbem.cli.support import init_home
from pbem.home import config as config_mod
from pbem.home.app import Home
from pbem.mail.transports.imap import MAX_BATCH_BYTES
from tests.conftest import CODES
from tests.mail.conftest import MODERATOR, USERS
from tests.mail.relay import Relay

PASSWORD_ENV = "PBEM_TEST_MAIL_PASSWORD"
PLAYERS = [("Alice", "alice@example.test"), ("Bob", "bob@example.test"), ("Carol", "carol@example.test")]
_MOVE = re.compile(rb"^(\S+) UID MOVE (\S+) ", re.IGNORECASE)


def _uids(uid_set: bytes) -> set[int]:
    out: set[int] = set()
    for part in uid_set.decode().split(","):
        lo, _, hi = part.partition(":")
        out |= set(range(int(lo), int(hi or lo) + 1)) if hi != "*" else {int(lo)}
    return out


class Proxy(Relay):
    """Relays one IMAP server; counts the bytes it sends; refuses every MOVE that names `poisoned`."""

    def __init__(self, host: str, port: int) -> None:
        super().__init__(host, port)
        self.down_bytes = 0
        self.poisoned: int | None = None
        self.refused = 0
        self.start()

    def _down(self, server: socket.socket, client: socket.socket, lock: threading.Lock) -> None:
        try:
            while data := server.recv(65536):
                self.down_bytes += len(data)
                with lock:
                    client.sendall(data)
        except OSError:
            pass
        finally:
            client.close()

    def _up(self, client: socket.socket, server: socket.socket, lock: threading.Lock) -> None:
        reader = client.makefile("rb")
        try:
            for line in reader:
                m = _MOVE.match(line)
                if m and self.poisoned is not None and self.poisoned in _uids(m.group(2)):
                    self.refused += 1
                    with lock:
                        client.sendall(m.group(1) + b" NO [OVERQUOTA] Quota exceeded (mailbox for user is full)\r\n")
                    continue
                server.sendall(line)
        except OSError:
            pass
        finally:
            server.close()


@contextmanager
def proxied_home(pip_servers, tmp_path, monkeypatch) -> Iterator[tuple[config_mod.Config, Proxy]]:
    proxy = Proxy(pip_servers.imap_host, pip_servers.imap_port)
    home = tmp_path / "home"
    init_home(home, address=MODERATOR, name="Test Moderator")
    pip_servers.wire_home(home / "pbem.toml", MODERATOR, PASSWORD_ENV)
    toml = home / "pbem.toml"
    text = toml.read_text()
    head, _, tail = text.partition("[imap]")
    tail = re.sub(r"(?m)^port = \d+", f"port = {proxy.port}", tail, count=1)
    toml.write_text(head + "[imap]" + tail)
    monkeypatch.setenv(PASSWORD_ENV, USERS[MODERATOR])
    try:
        yield config_mod.load(toml), proxy
    finally:
        proxy.close()


def _mail(sender: str, n: int, body: str) -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, MODERATOR, "[pbem g1] hello"
    msg["Message-ID"] = f"<budget-{n}@example.test>"
    msg.set_content(body)
    return msg.as_bytes()


def test_of_a_mail_larger_than_pbem_keeps_only_its_start_is_fetched(pip_servers, tmp_path, monkeypatch) -> None:
    with proxied_home(pip_servers, tmp_path, monkeypatch) as (cfg, proxy):
        cfg.max_stored_player = cfg.max_stored_stranger = 64 * 1024  # a small cap, so the test mails are small
        big = 1024 * 1024  # sixteen times what pbem keeps here (6 MB before: as telling, and 15 MB less to APPEND)
        for n in range(3):
            pip_servers.deliver(MODERATOR, _mail(f"stranger{n}@evil.test", n, "x" * big))
        pip_servers.deliver(MODERATOR, _mail("alice@example.test", 9, "STATUS"))
        before = proxy.down_bytes
        run = run_poll(cfg)
        fetched = proxy.down_bytes - before
    assert run.summary is not None and run.summary.read == 4
    assert fetched < 3 * (64 * 1024 + 8192) + 256 * 1024, f"{fetched} bytes fetched for 3 mails of {big} bytes"
    assert len(pip_servers.mailbox(MODERATOR)) == 0, "every message was filed"
    assert MAX_BATCH_BYTES >= 4 * 1024 * 1024


def test_a_message_the_server_refuses_to_file_does_not_stop_reading(pip_servers, tmp_path, monkeypatch) -> None:
    with proxied_home(pip_servers, tmp_path, monkeypatch) as (cfg, proxy):
        games.create_game(Home.of(cfg), "habsburg", "g1", PLAYERS, seed="quota", codes=CODES)
        for n in range(4):
            pip_servers.deliver(MODERATOR, _mail("alice@example.test", n, "STATUS"))
        with pip_servers.imap(MODERATOR) as client:
            client.select_folder("INBOX")
            proxy.poisoned = min(client.search(["ALL"]))  # the oldest: each run used to re-read it and stop
        first = run_poll(cfg)
        assert first.summary is not None and first.summary.read == 4
        assert proxy.refused >= 1
        assert len(pip_servers.mailbox(MODERATOR)) == 1, "only the refused message stays in the inbox"
        pip_servers.deliver(MODERATOR, _mail("bob@example.test", 7, "STATUS"))
        second = run_poll(cfg)
        assert second.summary is not None and second.summary.read == 2
        assert second.summary.duplicates == 1, "the refused one is recognised, not handled again"
        assert len(pip_servers.mailbox(MODERATOR)) == 1
        proxy.poisoned = None  # the quota is fixed: the next run files it
        third = run_poll(cfg)
        assert third.summary is not None and third.summary.duplicates == 1
        assert len(pip_servers.mailbox(MODERATOR)) == 0

"""A mail server that stalls at any one command cannot hold pbem past the poll's deadline, and the next run reads
what the stalled one left (costs14).

A relay (tests/mail/relay.py) in front of the suite's real servers (pymap, aiosmtpd) passes everything until pbem
sends the command it stalls at, then passes nothing more either way: the server's kernel still acknowledges, so no
read fails by itself.  Every stall point at once under one armed watchdog (`[mail] poll_deadline`, here 0.5 s;
each connection its own folder): IMAP's LOGIN, SELECT, SEARCH, the sizes' FETCH, the mails' FETCH, MOVE (and
COPY, STORE and EXPUNGE where MOVE is not used), the witness's STATUS and EXAMINE; SMTP's greeting, EHLO,
STARTTLS, MAIL, RCPT, DATA and the final ".".  Each ends at the deadline with one line naming the server and what
it waited on (`TransportError`, `TransientSendError`); then a run with no stall reads and files every mail the
stalled one left, and sends the mail.

The waits and their deadlines (all under the poll's watchdog, which shuts every socket pbem opens at
`poll_deadline`, 900 s by default): an IMAP socket read, 30 s; SMTP's connection, greeting and EHLO, 30 s, each
command 5 min and the final "." 10 min (RFC 5321); a host name's lookup, the connection's timeout; DKIM's DNS
look-up, 5 s a query and 30 s in all (tests/reliability/test_waits_dns.py).  No wait was found without one.
"""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from pbem.mail.transports import deadline
from pbem.mail.transports.imap import ImapInbox
from pbem.mail.transports.seam import TransientSendError, TransportError
from pbem.mail.transports.smtp import SmtpSender
from tests.mail.conftest import MODERATOR, USERS
from tests.mail.relay import Relay

TIMEOUT = 0.3  # seconds: the IMAP connection's timeout (30 by default)
DEADLINE = 0.6  # seconds: the poll's deadline for every SMTP stall at once (`[mail] poll_deadline`, 900 by default)
SLACK = 3.0  # seconds past either a stalled call may take to return on a busy machine


class Stall(Relay):
    """Relays one server; once pbem sends a line `at` matches, nothing more passes either way.  `offer`: a line
    put into the server's EHLO answer (an SMTP server offering STARTTLS)."""

    def __init__(self, host: str, port: int, at: bytes | None, offer: bytes = b"") -> None:
        super().__init__(host, port)
        self.at = re.compile(at, re.IGNORECASE) if at is not None else None
        self.offer = offer
        self.stalled = threading.Event()
        self.stalled_at: float | None = None
        self.start()

    def _stall(self) -> None:
        if self.stalled_at is None:
            self.stalled_at = time.monotonic()
        self.stalled.set()

    def _down(self, server: socket.socket, client: socket.socket, lock: threading.Lock) -> None:
        try:
            if self.at is not None and self.at.pattern == b"^greeting":
                self._stall()  # the server's greeting is never passed on
                while server.recv(65536):
                    pass
                return
            for line in server.makefile("rb"):
                if self.stalled.is_set():
                    continue
                if self.offer and line.startswith(b"250 "):  # the EHLO answer's last line
                    line = b"250-" + self.offer + b"\r\n" + line
                with lock:
                    client.sendall(line)
        except OSError:
            pass
        finally:
            client.close()

    def _up(self, client: socket.socket, server: socket.socket, lock: threading.Lock) -> None:
        try:
            for line in client.makefile("rb"):
                if self.at is not None and self.at.search(line):
                    self._stall()
                if not self.stalled.is_set():
                    server.sendall(line)
        except OSError:
            pass
        finally:
            server.close()


IMAP_STALLS: dict[str, tuple[bytes, bool | None]] = {  # what pbem waits on: (its command, use MOVE)
    "login": (rb"^\S+ LOGIN ", None),
    "select": (rb"^\S+ SELECT ", None),
    "search": (rb"^\S+ UID SEARCH ", None),
    "fetch sizes": (rb"^\S+ UID FETCH .*RFC822\.SIZE", None),
    "fetch": (rb"^\S+ UID FETCH .*BODY\.PEEK\[\]", None),
    "move": (rb"^\S+ UID MOVE ", None),
    "copy": (rb"^\S+ UID COPY ", False),
    "store": (rb"^\S+ UID STORE ", False),
    "expunge": (rb"^\S+ (UID )?EXPUNGE", False),
    "status": (rb"^\S+ STATUS ", None),
    "examine": (rb"^\S+ EXAMINE ", None),
}


def _inbox(port: int, case: str, use_move: bool | None = None, timeout: float = 30) -> ImapInbox:
    return ImapInbox(
        "127.0.0.1",
        port,
        username=MODERATOR,
        password=USERS[MODERATOR],
        folder=f"c-{case}",
        processed_folder=f"c-{case}-done",
        rejected_folder=f"c-{case}-rejected",
        use_move=use_move,
        timeout=timeout,
    )


def _read(port: int, case: str, use_move: bool | None, timeout: float = 30) -> list[bytes]:
    """One run: connect, read and file every mail, keep the marks the witness keeps (STATUS) and read what was
    filed since (EXAMINE); the mails read."""
    got = []
    with _inbox(port, case, use_move, timeout) as box:
        for item in box.fetch():
            got.append(item.raw)
            box.settle(item.key, True)
        marks = box.filed_marks()
        box.filed_since("processed", 1, 5)
    assert set(marks) == {"processed", "rejected"}
    return got


def _timed(run: Callable[[], Any]) -> tuple[float, BaseException | None]:
    """When `run` ended (monotonic), and the one-line error it ended with."""
    try:
        run()
    except (TransportError, TransientSendError) as exc:
        return time.monotonic(), exc
    return time.monotonic(), None


MAIL = (
    b"From: Alice <alice@example.test>\r\nTo: moderator@example.test\r\nSubject: [pbem g] orders\r\n"
    b"Message-ID: <stall-%s@example.test>\r\n\r\nPASS\r\n"
)
SMTP_STALLS: dict[str, tuple[bytes, bool]] = {  # (its command, STARTTLS offered and used)
    "greeting": (rb"^greeting", False),
    "ehlo": (rb"^EHLO ", False),
    "starttls": (rb"^STARTTLS", True),
    "mail": (rb"^MAIL FROM", False),
    "rcpt": (rb"^RCPT TO", False),
    "data": (rb"^DATA", False),
    "final dot": (rb"^\.\r\n", False),
}


@pytest.fixture
def servers(_pip_session: Any) -> Any:
    """The suite's pymap and aiosmtpd, up, not emptied (each case has a folder and a Message-ID of its own: emptying
    nine users' mailboxes took longer than every stall here)."""
    _pip_session.smtp_up()
    _pip_session.imap_up()
    return _pip_session


Make = Callable[[str], tuple[Stall, Callable[[], Any]]]


def _into(ended: dict[str, tuple[float, BaseException | None]], case: str, run: Callable[[], Any]) -> None:
    ended[case] = _timed(run)


def _stalls(make: Make, cases: list[str], bound: float, armed: float | None = None) -> list[str]:
    """Each case's relay and run (`make`), all run at once (under a watchdog of `armed` seconds); what went wrong:
    a run that did not end within `bound` seconds of its stall with one line naming the server.  A run that failed
    before it reached its stall (a busy machine: an earlier answer later than the timeout) runs again, twice at
    most."""
    failures: dict[str, str] = {}
    for _ in range(3):
        made = {case: make(case) for case in cases}
        ended: dict[str, tuple[float, BaseException | None]] = {}
        threads = [threading.Thread(target=_into, args=(ended, c, run)) for c, (_, run) in made.items()]
        if armed is not None:
            deadline.start(armed)
        try:
            for t in threads:
                t.start()
            for t in threads:
                t.join(bound + 60)  # the test's own bound: a run that outlives it fails below
        finally:
            deadline.stop()
            for relay, _ in made.values():
                relay.close()
        for case, (relay, _) in made.items():
            when, exc = ended.get(case, (float("inf"), None))
            if relay.stalled_at is None:
                failures[case] = f"{case}: never stalled ({exc!r})"
            elif when - relay.stalled_at > bound or exc is None or "127.0.0.1" not in str(exc):
                failures[case] = f"{case}: ended {when - relay.stalled_at:.1f} s after its stall with {exc!r}"
            else:
                failures.pop(case, None)
        cases = [case for case, failure in failures.items() if "never stalled" in failure]
        if not cases:
            break
    return list(failures.values())


def test_an_imap_server_stalling_at_any_command_ends_at_the_timeout_and_the_next_run_reads_it_all(servers) -> None:
    with servers.imap(MODERATOR) as client:
        for case in IMAP_STALLS:
            for name in (f"c-{case}", f"c-{case}-done", f"c-{case}-rejected"):
                if client.folder_exists(name):  # (a run before in this session)
                    client.delete_folder(name)
            client.create_folder(f"c-{case}")
            client.append(f"c-{case}", MAIL % case.encode())

    def make(case: str) -> tuple[Stall, Callable[[], Any]]:
        relay = Stall(servers.imap_host, servers.imap_port, IMAP_STALLS[case][0])
        return relay, lambda: _read(relay.port, case, IMAP_STALLS[case][1], TIMEOUT)

    failures = _stalls(make, list(IMAP_STALLS), TIMEOUT + SLACK)
    assert not failures, "\n".join(failures)
    left: dict[str, list[bytes]] = {}  # the next run, no stall: what was left is read and filed
    threads = [
        threading.Thread(target=lambda c=c, m=m: left.__setitem__(c, _read(servers.imap_port, c, m)))
        for c, (_, m) in IMAP_STALLS.items()
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    with servers.imap(MODERATOR) as client:  # each mail filed, none left to read (one flagged \\Deleted is filed)
        for case in IMAP_STALLS:
            client.select_folder(f"c-{case}", readonly=True)
            assert client.search(["NOT", "DELETED"]) == [], case
            client.select_folder(f"c-{case}-done", readonly=True)
            filed = [v[b"BODY[]"] for v in client.fetch(client.search(["ALL"]), ["BODY.PEEK[]"]).values()]
            assert filed and all(f"<stall-{case}@".encode() in raw for raw in filed + left[case]), (case, filed, left)


def test_an_smtp_server_stalling_at_any_command_ends_at_the_deadline_and_the_next_send_is_accepted(servers) -> None:
    def send(port: int, case: str, tls: bool = False) -> None:
        SmtpSender("127.0.0.1", port, starttls=tls, username=MODERATOR, password=USERS[MODERATOR]).send(
            MAIL % case.encode(), MODERATOR, ["bob@example.test"]
        )

    def make(case: str) -> tuple[Stall, Callable[[], Any]]:
        at, tls = SMTP_STALLS[case]
        relay = Stall(servers.smtp_host, servers.smtp_port, at, b"STARTTLS" if tls else b"")
        return relay, lambda: send(relay.port, case, tls)

    failures = _stalls(make, list(SMTP_STALLS), DEADLINE + SLACK, armed=DEADLINE)
    assert not failures, "\n".join(failures)
    for case in SMTP_STALLS:  # the next send, no stall
        send(servers.smtp_port, case)
    with servers.imap("bob@example.test") as client:
        client.select_folder("INBOX", readonly=True)
        got = b"".join(v[b"BODY[]"] for v in client.fetch(client.search(["ALL"]), ["BODY.PEEK[]"]).values())
    assert all(f"<stall-{case}@".encode() in got for case in SMTP_STALLS)  # (delivered before DATA is answered)

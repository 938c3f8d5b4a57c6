"""A mail server that answers one byte at a time, or closes the connection in the middle of an answer, at any one
protocol step cannot hold pbem past its deadline, and each ends in one line naming the server (costs23).

costs14 (tests/mail/test_costs14_waits.py) made the server stop answering at each step.  Two more ways to wait:
an answer dripped (a byte every `DRIP` seconds, less than the socket's timeout, so no read ever times out: only
the poll's deadline can end it; "one byte a second", faster) and an answer cut (half its line, then the
connection closed).  The generator: every IMAP step costs14 stalls (LOGIN, SELECT, SEARCH, both FETCHes, MOVE,
COPY, STORE, EXPUNGE, STATUS, EXAMINE) and every SMTP step (greeting, EHLO, STARTTLS, AUTH, MAIL, RCPT, DATA, the
final "."), each way, under an armed watchdog of `DEADLINE` (`[mail] poll_deadline`).  pbem sends no IDLE nor
APPEND.  On 90a53973: 0 of 38 cases failed (each ended within the deadline with a `TransportError` or
`TransientSendError` naming 127.0.0.1); now 0 of 38.  The suite cuts four steps (a dripped answer waits
the whole deadline: 4 s a protocol); `PBEM_FULL_SIZE=1` runs all 38 (some 10 s).
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from pbem.mail.transports.seam import TransportError
from pbem.mail.transports.smtp import SmtpSender
from tests.mail.conftest import MODERATOR, USERS
from tests.mail.test_costs14_waits import IMAP_STALLS, MAIL, SLACK, SMTP_STALLS, Stall, _read, _stalls
from tests.mail.test_costs14_waits import servers as servers
from tests.sizes import FULL

DRIP = 0.5  # seconds between two bytes of a dripped answer: less than the IMAP socket's timeout here
TIMEOUT = 2.0  # (costs14's 0.3 s: at a load of 14, 22 connections at once timed out connecting)
DEADLINE = 4.0  # the watchdog's (`[mail] poll_deadline`)
SMTP_STEPS = {**SMTP_STALLS, "auth": (rb"^AUTH ", False)}
SAMPLE_IMAP = ["login", "fetch"]
SAMPLE_SMTP = ["auth", "final dot"]


class Answer(Stall):
    """Once pbem sends the command `at` matches, the server's answers are dripped (`how` "drip") or the next is cut
    in half and the connection closed (`how` "cut")."""

    def __init__(self, host: str, port: int, at: bytes, how: str, offer: bytes = b"") -> None:
        self.how = how
        super().__init__(host, port, at, offer)

    def _pass(self, line: bytes, client: socket.socket, server: socket.socket, lock: threading.Lock) -> bool:
        """The line passed as `how` says; False once the connection is closed."""
        if self.how == "cut":
            with lock:
                client.sendall(line[: max(1, len(line) // 2)])
            for sock in (client, server):  # (shut: a close leaves the socket open while `_up` reads from it)
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
            return False
        for k in range(len(line)):
            time.sleep(DRIP)
            with lock:
                client.sendall(line[k : k + 1])
        return True

    def _down(self, server: socket.socket, client: socket.socket, lock: threading.Lock) -> None:
        try:
            for line in server.makefile("rb"):
                if self.at is not None and self.at.pattern == b"^greeting" and not self.stalled.is_set():
                    self._stall()
                if self.stalled.is_set():
                    if not self._pass(line, client, server, lock):
                        return
                    continue
                if self.offer and line.startswith(b"250 "):
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
                server.sendall(line)  # (pbem's commands all pass: the answers are what waits)
        except OSError:
            pass
        finally:
            server.close()


def _cases(steps: dict[str, Any], sample: list[str]) -> list[str]:
    """Every step both ways under PBEM_FULL_SIZE=1; else the sample's steps cut (a drip waits for the deadline)."""
    return [f"{how} {step}" for step in (steps if FULL else sample) for how in (("drip", "cut") if FULL else ("cut",))]


def test_an_imap_answer_dripped_or_cut_at_any_step_ends_by_the_deadline(servers: Any) -> None:
    cases = _cases(IMAP_STALLS, SAMPLE_IMAP)
    with servers.imap(MODERATOR) as client:
        for case in cases:
            name = "c-w-" + case.replace(" ", "-")  # (`_inbox` reads the folder "c-" + its case)
            for folder in (name, f"{name}-done", f"{name}-rejected"):
                if client.folder_exists(folder):
                    client.delete_folder(folder)
            client.create_folder(name)
            client.append(name, MAIL % name.encode())

    def make(case: str) -> tuple[Stall, Callable[[], Any]]:
        how, step = case.split(" ", 1)
        relay = Answer(servers.imap_host, servers.imap_port, IMAP_STALLS[step][0], how)
        return relay, lambda: _read(relay.port, "w-" + case.replace(" ", "-"), IMAP_STALLS[step][1], TIMEOUT)

    failures = _stalls(make, cases, DEADLINE + SLACK, armed=DEADLINE)
    assert not failures, "\n".join(failures)


def test_an_smtp_answer_dripped_or_cut_at_any_step_ends_by_the_deadline(servers: Any) -> None:
    def send(port: int, case: str, tls: bool) -> None:
        SmtpSender("127.0.0.1", port, starttls=tls, username=MODERATOR, password=USERS[MODERATOR]).send(
            MAIL % case.replace(" ", "-").encode(), MODERATOR, ["bob@example.test"]
        )
        if case.endswith("final dot"):  # the server's 250, whole or cut after its code: an acceptance, kept
            raise TransportError(f"{case}: accepted by 127.0.0.1 (its 250 read)")

    def make(case: str) -> tuple[Stall, Callable[[], Any]]:
        how, step = case.split(" ", 1)
        at, tls = SMTP_STEPS[step]
        relay = Answer(servers.smtp_host, servers.smtp_port, at, how, b"STARTTLS" if tls else b"")
        return relay, lambda: send(relay.port, case, tls)

    failures = _stalls(make, _cases(SMTP_STEPS, SAMPLE_SMTP), DEADLINE + SLACK, armed=DEADLINE)
    assert not failures, "\n".join(failures)

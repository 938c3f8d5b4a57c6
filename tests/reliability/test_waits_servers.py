"""A mail server that accepts the connection and never says a word cannot hold pbem past its deadline.

Real TCP servers on 127.0.0.1 that accept and stay silent (no greeting, no answer): the IMAP one under a whole
`pbem poll` (it ends at `[mail] poll_deadline` with exit 3 and one line, its lock free), the SMTP one under a
send with the poll's watchdog armed (it ends at the deadline) and with none (`pbem check`, tests: it ends at the
socket timeout).  The trickling servers (a byte every 0.2 s) are tests/mail/test_deadlines.py's.

The in-process deadlines subtract from the wall clock the seconds the send's threads waited for a core while they
could run (`tests.growth.Stopwatch`, the longest run delay of the window's threads in `schedstat`): what the machine's load adds, not what pbem
waits.  One of them passed its 6 s once beside the noisy neighbour at load 12 (session 29).  A silent server that
held pbem for its 30 s socket timeout, or for ever, still fails: sleeping and waiting for a server are no run delay.
(Until suite8 the threads' delays were summed, and threads waiting for a core at the same time were subtracted
twice; now the longest is.)  The poll's clock starts once the fork server is up (`forkserver.ready`).
"""

from __future__ import annotations

import fcntl
import socket
import time
from pathlib import Path

import pytest

from pbem.mail.transports import deadline
from pbem.mail.transports.imap import ImapInbox
from pbem.mail.transports.seam import TransientSendError, TransportError
from pbem.mail.transports.smtp import SmtpSender
from tests.growth import Stopwatch, Window
from tests.mail.test_deadlines import MAIL, _imap_home, _pbem, server
from tests.reliability import forkserver


def silent(conn: socket.socket, log: list[bytes]) -> None:
    """Accept, read what comes, answer nothing, until the client goes."""
    conn.settimeout(0.2)
    opened = time.monotonic()
    while time.monotonic() - opened < 60:  # the test's own bound: it stops by itself
        try:
            data = conn.recv(4096)
        except TimeoutError:
            continue
        if not data:
            return
        log.append(data)


def test_a_silent_imap_server_cannot_hold_the_poll(tmp_path: Path) -> None:
    with server(silent) as (port, _):
        toml = _imap_home(tmp_path, port, poll_deadline=1)
        forkserver.ready()  # the clock times the poll, not the fork server's start (9.1 s at load 10)
        watch = Stopwatch()
        r = _pbem(toml, "poll")
        spent = watch.stop()
    assert r.returncode == 3, (r.returncode, r.stdout, r.stderr[-2000:])
    told = [line for line in r.stderr.splitlines() if line.startswith("pbem: ")]  # the one line (and the log's)
    assert "Traceback" not in r.stderr and len(told) == 1, r.stderr[-2000:]
    assert "deadline of 1 s" in told[0] and "IMAP 127.0.0.1" in told[0], told
    assert spent < 1 + 15, f"the poll took {spent:.0f} s"  # wall clock: deadline
    with open(toml.parent / ".pbem-poll.lock") as lock:  # the lock is free again
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)


def test_a_silent_imap_server_without_a_watchdog_ends_at_the_socket_timeout() -> None:
    with server(silent) as (port, _):
        watch = Stopwatch()
        with pytest.raises(TransportError):
            ImapInbox("127.0.0.1", port, username="m", password="pw", timeout=1)
        spent = watch.stop()  # the load's share left out (above)
    assert spent < 1 + 5, spent  # wall clock: deadline


def test_a_silent_smtp_server_ends_a_send_at_the_poll_deadline() -> None:
    with server(silent) as (port, _):
        watch = Stopwatch()
        deadline.start(1.0)
        try:
            with pytest.raises(TransientSendError):
                SmtpSender("127.0.0.1", port, timeout=30).send(MAIL, "m@pbem.test", ["a@players.test"])
        finally:
            deadline.stop()
        spent = watch.stop()  # the load's share left out (above)
    assert spent < 1 + 5, f"a silent server held the send for {spent:.0f} s"  # wall clock: deadline


def test_a_silent_smtp_server_without_a_watchdog_ends_at_the_socket_timeout() -> None:
    window = Window()  # the threads this test starts, not those another thread of the worker starts meanwhile
    with server(silent) as (port, _):
        watch = Stopwatch()
        with pytest.raises(TransientSendError):
            SmtpSender("127.0.0.1", port, timeout=1).send(MAIL, "m@pbem.test", ["a@players.test"])
        spent = watch.stop()  # the load's share left out (above)
    assert spent < 1 + 5, spent  # wall clock: deadline
    # no thread per retry left behind: the send's own threads, not what earlier tests of this worker left running (an
    # absolute count, "fewer than 50", failed once the suite grew: 50 in a clean-clone rehearsal at 42f70ff5)
    window.close()
    left = window.alive()
    assert len(left) <= 1, left  # at most the silent server's own thread, still closing

"""Every wait has a deadline (issue 26): fault-injecting servers over TCP on 127.0.0.1.

* An IMAP server that trickles its answers (one byte every 0.2 s: each read is in time, the whole never ends)
  cannot hold `pbem poll`: the run stops at `[mail] poll_deadline`, exits 3 with one line, and its lock is free.
* An SMTP server whose EHLO answer is continuation lines forever cannot hold a send past the deadline.
* An SMTP server that answers the final "." late (RFC 5321 allows 10 minutes) has the message accepted once:
  the wait for that answer is not the connect timeout.
* A poll that finds the lock held past deadline + grace on another host exits 3 naming it; within it, 0.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from pbem.mail.transports import deadline
from pbem.mail.transports.seam import TransientSendError
from pbem.mail.transports.smtp import SmtpSender
from tests.growth import Stopwatch
from tests.reliability import forkserver

REPO = Path(__file__).resolve().parents[2]


@contextmanager
def server(handler: Callable[[socket.socket, list[bytes]], None]) -> Iterator[tuple[int, list[bytes]]]:
    """A TCP server on 127.0.0.1 running `handler(conn, log)` per connection; yields (port, log)."""
    listener = socket.create_server(("127.0.0.1", 0))
    log: list[bytes] = []
    stop = threading.Event()
    served: list[tuple[socket.socket, threading.Thread]] = []

    def serve() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            handling = threading.Thread(target=_run, args=(handler, conn, log), daemon=True)
            served.append((conn, handling))
            handling.start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1], log
    finally:
        stop.set()
        listener.close()
        thread.join(5)
        # each connection's handler ends with its test (costs27: a silent handler read on for 60 s in the worker,
        # through the next test files, `PBEM_WORKER_STATE`'s report): its socket shut, its thread waited for
        for conn, handling in served:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
            handling.join(5)
    alive = [t.name for _, t in served if t.is_alive()]  # (not said over a failure of the test itself)
    assert not alive, f"the server's handlers {alive} outlive their test: each must end once its socket is shut"


def _run(handler, conn: socket.socket, log: list[bytes]) -> None:
    try:
        with conn:
            handler(conn, log)
    except OSError:
        pass


def _lines(conn: socket.socket) -> Iterator[bytes]:
    buf = b""
    while True:
        data = conn.recv(65536)
        if not data:
            return
        buf += data
        while b"\r\n" in buf:
            line, buf = buf.split(b"\r\n", 1)
            yield line


def trickling_imap(conn: socket.socket, log: list[bytes]) -> None:
    conn.sendall(b"* OK IMAP4rev1 ready\r\n")
    for line in _lines(conn):
        log.append(line)
        tag = line.split(b" ", 1)[0]
        answer = b"* CAPABILITY IMAP4rev1 " + b"X" * 10_000 + b"\r\n" + tag + b" OK done\r\n"
        for byte in answer:  # one byte every 0.2 s: no single read ever times out
            conn.sendall(bytes([byte]))
            time.sleep(0.2)


def smtp_handler(*, ehlo_forever: bool = False, final_dot_delay: float = 0.0):
    def handle(conn: socket.socket, log: list[bytes]) -> None:
        conn.sendall(b"220 fault.test ESMTP\r\n")
        lines = _lines(conn)
        for line in lines:
            verb = line[:4].upper()
            if verb in (b"EHLO", b"HELO"):
                if ehlo_forever:
                    while True:
                        conn.sendall(b"250-still thinking\r\n")
                        time.sleep(0.2)
                conn.sendall(b"250-fault.test\r\n250 8BITMIME\r\n")
            elif verb == b"DATA":
                conn.sendall(b"354 go on\r\n")
                body = []
                for data_line in lines:
                    if data_line == b".":
                        break
                    body.append(data_line)
                log.append(b"\r\n".join(body))
                time.sleep(final_dot_delay)
                conn.sendall(b"250 queued\r\n")
            elif verb == b"QUIT":
                conn.sendall(b"221 bye\r\n")
                return
            else:
                conn.sendall(b"250 ok\r\n")

    return handle


MAIL = b"From: m@pbem.test\r\nTo: a@players.test\r\nSubject: report\r\nMessage-ID: <late@pbem.test>\r\n\r\nhello\r\n"


def test_a_final_dot_answered_late_is_accepted_once() -> None:
    """The answer to "." comes after 3 s, beyond the 1 s connect timeout: it is waited for (RFC 5321: 10 min)."""
    with server(smtp_handler(final_dot_delay=3.0)) as (port, log):
        sender = SmtpSender("127.0.0.1", port, timeout=1)
        try:
            sender.send(MAIL, "m@pbem.test", ["a@players.test"])
        finally:
            sender.close()
        assert len(log) == 1 and b"Message-ID: <late@pbem.test>" in log[0]


def test_smtp_continuation_lines_forever_end_at_the_poll_deadline() -> None:
    with server(smtp_handler(ehlo_forever=True)) as (port, _):
        deadline.start(2.0)
        watch = Stopwatch()
        try:
            with pytest.raises(TransientSendError):
                SmtpSender("127.0.0.1", port, timeout=30).send(MAIL, "m@pbem.test", ["a@players.test"])
        finally:
            deadline.stop()
        spent = watch.stop()
        assert spent < 15, f"a trickling server held the send for {spent:.0f} s"  # wall clock: deadline


def _imap_home(tmp_path: Path, port: int, poll_deadline: int) -> Path:
    from pbem.cli.support import init_home

    home = tmp_path / "home"
    toml = init_home(home, address="moderator@pbem.test", name="Test Moderator")
    text = toml.read_text().replace('transport = "maildir"', 'transport = "imap"')
    text = text.replace("[mail]", f"[mail]\npoll_deadline = {poll_deadline}", 1)
    for section in ("imap", "smtp"):
        text += (
            f'\n[{section}]\nhost = "127.0.0.1"\nport = {port}\nssl = false\nstarttls = false\n'
            'username = "moderator@pbem.test"\npassword_env = "PBEM_DEADLINE_PW"\n'
        )
    toml.write_text(text)
    return toml


def _pbem(toml: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "PBEM_DEADLINE_PW": "secret-pw"}
    # `python -m pbem`, forked from a process that imported pbem once: the deadlines are the poll's own
    return forkserver.pbem(["--config", str(toml), *args], env=env, cwd=REPO, timeout=timeout)


def test_a_trickling_imap_server_cannot_hold_the_poll(tmp_path: Path) -> None:
    with server(trickling_imap) as (port, log):
        toml = _imap_home(tmp_path, port, poll_deadline=3)
        forkserver.ready()  # the clock times the poll, not the fork server's start
        watch = Stopwatch()
        r = _pbem(toml, "poll")
        spent = watch.stop()
    assert r.returncode == 3, (r.returncode, r.stdout, r.stderr[-2000:])
    assert "deadline of 3 s" in r.stderr and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert "secret-pw" not in r.stdout + r.stderr
    assert spent < 30, f"the poll took {spent:.0f} s"  # wall clock: deadline
    assert log, "the server was asked something"
    with open(toml.parent / ".pbem-poll.lock") as lock:  # the lock is free again
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)


def test_a_lock_held_past_deadline_and_grace_on_another_host_is_reported_stuck(tmp_path: Path) -> None:
    """Within its deadline the holder is an ordinary overlap (exit 0); stuck on another host it cannot be looked
    at: exit 3 naming it.  (Taking over a dead or stuck holder on this host: tests/mail/test_poll_lock.py.)"""
    from pbem.app.cron import run_poll
    from pbem.app.polllock import Holder, line
    from pbem.cli.support import init_home
    from pbem.home import config as config_mod
    from pbem.mail.transports.seam import TransportError

    cfg = config_mod.load(init_home(tmp_path / "home", address="moderator@pbem.test", name="M"))
    path = cfg.home / ".pbem-poll.lock"
    with open(path, "a+") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)  # another open file: the poll below cannot take it
        now = time.time()
        held.write(line(Holder(4242, now - 60, "elsewhere.example", now - 5)))
        held.flush()
        assert run_poll(cfg).skipped.startswith("another pbem poll is running")
        held.truncate(0)
        held.write(line(Holder(4242, now - cfg.poll_deadline - deadline.GRACE - 120, "elsewhere.example", now - 5)))
        held.flush()
        with pytest.raises(TransportError, match=r"pid 4242 on elsewhere.example.*another host"):
            run_poll(cfg)
        r = _pbem(cfg.path, "poll")
        assert r.returncode == 3 and "another host" in r.stderr, (r.returncode, r.stderr[-2000:])
    assert not run_poll(cfg).skipped.startswith("another"), "the lock is free again: the next run polls"


def test_a_stopped_watchdog_never_ends_the_process_later() -> None:
    """The backstop is armed only by a watchdog still running: stopping it right as it fires disarms it
    (a backstop armed after the stop ended a later, healthy run 60 s on)."""
    dogs = []
    for _ in range(20):
        dog = deadline.Watchdog(0.01, grace=30)
        time.sleep(0.01)  # about when it fires
        dog.cancel()
        dogs.append(dog)
    time.sleep(0.2)
    assert not any(d._timer.is_alive() for d in dogs), "a stopped watchdog armed its backstop"


def test_pbem_check_of_a_trickling_server_ends_at_its_deadline(tmp_path: Path) -> None:
    """`pbem check` had no deadline: a server sending its greeting a byte at a time held it for ever (found by
    the transport testers; the socket timeout never fires while bytes keep coming).  Each server's checks now
    end within min(60 s, [mail] poll_deadline), with a FAIL line saying so."""
    with server(trickling_imap) as (port, _):
        toml = _imap_home(tmp_path, port, poll_deadline=3)
        r = _pbem(toml, "check", timeout=90)  # the trickle alone would take half an hour
    assert r.returncode == 1 and "FAIL" in r.stdout and "had not answered within 3 s" in r.stdout, r.stdout
    assert "secret-pw" not in r.stdout + r.stderr

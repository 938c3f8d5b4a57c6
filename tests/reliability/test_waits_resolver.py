"""A resolver that never answers cannot hold pbem: the mail servers' host names are resolved within a deadline.

`socket.create_connection` resolves the name before any socket exists, so no socket timeout and no watchdog's
socket shutdown reached that wait: a `pbem poll` whose IMAP server's name did not resolve waited for its backstop
(its deadline and 60 s more), and `pbem check` or a send with no watchdog for ever (found by this file).  Now the
name is resolved in a thread joined for the connection's timeout, no longer than what is left of the poll's
deadline (`pbem.mail.transports.resolve`): one line names the host.

The whole poll runs as cron runs it, forked with the kill points' `dns-hang` fault (`getaddrinfo` of a name
ending in ".hang.test" never returns, in the child only); the SMTP sender's connection is tried in this process,
its resolver made to hang the same way.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from pbem.mail.transports import deadline, resolve
from pbem.mail.transports.seam import TransportError
from pbem.mail.transports.smtp import SmtpSender
from tests.growth import Stopwatch
from tests.mail.test_deadlines import MAIL, _imap_home
from tests.reliability import forkserver

WAIT = 20.0  # seconds: a run still waiting then waits for the backstop (60 s) or for ever


def test_a_poll_whose_imap_host_name_does_not_resolve_ends_at_its_deadline(tmp_path: Path) -> None:
    toml = _imap_home(tmp_path, 143, poll_deadline=1)
    toml.write_text(toml.read_text().replace('host = "127.0.0.1"', 'host = "imap.hang.test"'))
    env = {**os.environ, "PBEM_TEST_FAULT": "dns-hang", "PBEM_DEADLINE_PW": "secret-pw"}
    forkserver.ready()  # the clock times the poll, not the fork server's start
    watch = Stopwatch()
    try:
        r = forkserver.server().run(["--config", str(toml), "poll"], env, str(tmp_path), True, WAIT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the poll still waited for the resolver after {WAIT:.0f} s")
    spent = watch.stop()
    assert r.returncode == 3, (r.returncode, r.stderr[-1500:])
    told = [line for line in r.stderr.splitlines() if line.startswith("pbem: ")]  # the one line (and the log's)
    assert "Traceback" not in r.stderr and len(told) == 1, r.stderr[-1500:]
    # the lookup's wait and the watchdog end together: the line may say the poll passed its deadline, or not
    assert re.search(r"'imap\.hang\.test' was not resolved within (1|0\.\d) s", told[0]), told
    assert "secret-pw" not in r.stderr
    assert spent < 1 + 8, spent  # wall clock: deadline


@pytest.fixture()
def hanging_resolver(monkeypatch) -> Iterator[None]:
    """`getaddrinfo` of a name ending in ".hang.test" waits until the test ends (then fails, as a dead DNS
    server's answer would)."""
    done = threading.Event()
    real = socket.getaddrinfo

    def getaddrinfo(host, *args, **kwargs):
        flags = args[4] if len(args) > 4 else kwargs.get("flags", 0)
        if isinstance(host, str) and host.endswith(".hang.test") and not flags & socket.AI_NUMERICHOST:
            done.wait(60)
            raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    yield
    done.set()


@pytest.mark.parametrize("watchdog", [False, True])
def test_a_send_whose_smtp_host_name_does_not_resolve_ends_in_time(hanging_resolver, watchdog: bool) -> None:
    """With no watchdog (`pbem check`, `outbox`), at the connection's timeout; with the poll's, at its deadline."""
    if watchdog:
        deadline.start(0.5, grace=60)
    watch = Stopwatch()
    try:
        with pytest.raises(TransportError) as err:
            SmtpSender("smtp.hang.test", 25, timeout=1 if not watchdog else 30, local_hostname="pbem.test").send(
                MAIL, "m@pbem.test", ["a@players.test"]
            )
    finally:
        deadline.stop()
    spent = watch.stop()
    said = r"0\.\d" if watchdog else "1"  # with the watchdog: what was left of its 0.5 s
    assert re.search(rf"'smtp\.hang\.test' was not resolved within {said} s", str(err.value)), str(err.value)
    assert "\n" not in str(err.value)
    assert spent < 1 + 5, spent  # wall clock: deadline


def test_a_numeric_address_needs_no_resolver(hanging_resolver) -> None:
    assert resolve.addresses("127.0.0.1", 25, 0.1)[0][4] == ("127.0.0.1", 25)

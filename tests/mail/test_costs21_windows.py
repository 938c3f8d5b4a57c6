"""No IMAP line grows with the inbox, and a run reads at most its budget of messages (costs21).

A SEARCH answer lists every UID it finds on one line.  pbem asked three such questions of the whole folder: the
poll's `UID SEARCH NOT DELETED` (every message of the inbox), its tidying's `SEARCH DELETED` (every message a
server without MOVE keeps flagged: all the mail pbem ever filed, on a server that ignores EXPUNGE) and `pbem
check`'s.  Past `MAX_LINE` (2 MiB, some 260,000 UIDs) the connection was dropped, so every poll of such an inbox
stopped until the moderator moved mail by hand (costs20 raised the bound; it did not remove it).  Each is now
asked window by window (`ImapInbox._windows`: the UIDs up to that of the message `window` sequence numbers on),
so its line is bounded whatever the folder holds, and a run fetches at most `most` messages, oldest first, the
rest left for the next runs (`MOST_A_RUN`, 10,000), which are not idle until it is read.

The generator: each question at n and 4n messages, over the real servers (pymap; Dovecot in its tier), through
a relay that pads each UID of a SEARCH answer to `MAX_LINE` / 10 bytes, as the line of a folder some 26,000
times as large would be, and counts the most UIDs one answer listed.  On efd12b07 each grew with the folder:
3 of 3 shapes 4.0 at 4x, and at 4n = 16 messages each line passed `MAX_LINE` (the poll and the tidying failed,
"a line of more than 2097152 bytes"; `pbem check` said "listing folders failed").  Now: 0 of 3, each at most
two windows' UIDs at any size.  `PBEM_COSTS21_FULL=1` runs n = 4, 16 and 64 (the suite n = 4).
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path

import pytest

from pbem.app.cron import run_poll
from pbem.cli.support import init_home
from pbem.home import config as config_mod
from pbem.mail.transports import imap
from pbem.mail.transports.imap import MAX_LINE, ImapInbox
from tests.conftest import Clock
from tests.mail.conftest import MODERATOR, USERS
from tests.mail.relay import Relay

WINDOW = 4
SIZES = [4, 16, 64, 256] if os.environ.get("PBEM_COSTS21_FULL") else [16]  # 16: four windows
PASSWORD_ENV = "PBEM_TEST_MAIL_PASSWORD"
_EXPUNGE = re.compile(rb"^(\S+) (UID )?EXPUNGE\b", re.IGNORECASE)


class Padded(Relay):
    """Relays one IMAP server: pads each UID of an untagged SEARCH answer to `per` bytes and keeps the most UIDs
    one answer listed.  `keeps`: without MOVE, and EXPUNGE answered OK and not done (the messages stay flagged)."""

    def __init__(self, host: str, port: int, per: int = 0, keeps: bool = False) -> None:
        super().__init__(host, port)
        self.per, self.keeps = per, keeps
        self.most = 0  # UIDs in one SEARCH answer
        self.searches = 0
        self.start()

    def _down(self, server: socket.socket, client: socket.socket, lock: threading.Lock) -> None:
        try:
            for line in server.makefile("rb"):
                if line.startswith(b"* SEARCH"):
                    uids = line.split()[2:]
                    self.most, self.searches = max(self.most, len(uids)), self.searches + 1
                    if self.per:
                        line = b"* SEARCH" + b"".join(b" " + u.ljust(self.per) for u in uids) + b"\r\n"
                elif self.keeps and b"CAPABILITY" in line.upper():
                    line = re.sub(rb" MOVE(?=[ \]\r])", b"", line)
                with lock:
                    client.sendall(line)
        except OSError:
            pass
        finally:
            client.close()

    def _up(self, client: socket.socket, server: socket.socket, lock: threading.Lock) -> None:
        try:
            for line in client.makefile("rb"):
                if self.keeps and (m := _EXPUNGE.match(line)):
                    with lock:
                        client.sendall(m.group(1) + b" OK Expunge completed.\r\n")
                    continue
                server.sendall(line)
        except OSError:
            pass
        finally:
            server.close()


def _mail(n: int, sender: str = "someone@example.test") -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, MODERATOR, f"hello {n}"
    msg["Message-ID"] = f"<window-{n}@example.test>"
    msg.set_content("hello")
    return msg.as_bytes()


def _fill(servers, n: int, start: int = 0) -> None:
    with servers.imap(MODERATOR) as client:
        for k in range(start, start + n):
            client.append("INBOX", _mail(k))


class _Line:
    """The record's one line of the copied messages (`Ledger`), kept here between two inboxes."""

    value = ""

    def recall(self) -> str:
        return self.value

    def keep(self, value: str) -> None:
        self.value = value


def _fetch(servers, relay: Padded, ledger: _Line | None = None) -> list[str]:
    """One run of the inbox through `relay`: every message fetched and filed as processed."""
    with ImapInbox("127.0.0.1", relay.port, username=MODERATOR, password=USERS[MODERATOR]) as box:
        if ledger is not None:
            box.remember_in(ledger)
        keys = []
        for item in box.fetch():
            keys.append(item.key)
            box.settle(item.key, True)
        box.tidy()
        return keys


def _shape_fetch(servers, n: int, cfg: config_mod.Config | None) -> int:
    relay = Padded(servers.imap_host, servers.imap_port)
    try:
        assert len(_fetch(servers, relay)) == n, "every message read"
    finally:
        relay.close()
    return relay.most


def _shape_tidy(servers, n: int, cfg: config_mod.Config | None) -> int:
    """A server without MOVE that keeps what it is told to expunge: the second run's tidying counts them all."""
    relay = Padded(servers.imap_host, servers.imap_port, keeps=True)
    try:
        ledger = _Line()
        assert len(_fetch(servers, relay, ledger)) == n
        relay.most = 0
        assert _fetch(servers, relay, ledger) == [], "the flagged are not read again"
    finally:
        relay.close()
    return relay.most


def _shape_check(servers, n: int, cfg: config_mod.Config | None) -> int:
    """`pbem check`'s count of the messages flagged \\Deleted, through a relay on the port `cfg` names."""
    from pbem.mail.check import imap_checks

    relay = Padded(servers.imap_host, servers.imap_port, keeps=True)
    try:
        _fetch(servers, relay, _Line())  # n flagged and kept
        relay.most = 0
        assert cfg is not None
        cfg.imap.port = relay.port
        lines = [c.text for c in imap_checks(cfg)]
    finally:
        relay.close()
    assert any(f"{n} message(s) flagged \\Deleted" in text for text in lines), lines
    return relay.most


SHAPES = {"fetch": _shape_fetch, "tidy": _shape_tidy, "check": _shape_check}


@contextmanager
def _home(servers, home: Path, monkeypatch, port: int) -> Iterator[config_mod.Config]:
    init_home(home, address=MODERATOR, name="Test Moderator")
    toml = home / "pbem.toml"
    servers.wire_home(toml, MODERATOR, PASSWORD_ENV)
    head, _, tail = toml.read_text().partition("[imap]")
    toml.write_text(head + "[imap]" + re.sub(r"(?m)^port = \d+", f"port = {port}", tail, count=1))
    monkeypatch.setenv(PASSWORD_ENV, USERS[MODERATOR])
    yield config_mod.load(toml)


def _most(servers, shape: str, tmp_path: Path, monkeypatch) -> dict[int, int]:
    """The most UIDs one SEARCH answer listed, for each folder size of `SIZES`."""
    monkeypatch.setattr(imap, "WINDOW", WINDOW)
    most = {}
    with contextlib.ExitStack() as stack:
        cfg = stack.enter_context(_home(servers, tmp_path / "home", monkeypatch, 0)) if shape == "check" else None
        for n in SIZES:
            servers.reset()
            _fill(servers, n)
            most[n] = SHAPES[shape](servers, n, cfg)
    return most


def test_the_polls_search_does_not_grow_with_the_folder(mail_servers, tmp_path, monkeypatch) -> None:
    most = _most(mail_servers, "fetch", tmp_path, monkeypatch)
    # a window asked holds at most `window` messages, and as many more as the run expunged below it meanwhile
    assert max(most.values()) <= 2 * WINDOW, f"the most UIDs in one answer by the folder's size: {most}"


@pytest.mark.parametrize("shape", ["tidy", "check"])
def test_the_searches_for_flagged_mail_do_not_grow_with_the_folder(pip_servers, shape, tmp_path, monkeypatch) -> None:
    most = _most(pip_servers, shape, tmp_path, monkeypatch)
    assert max(most.values()) <= 2 * WINDOW, f"{shape}: the most UIDs in one answer by the folder's size: {most}"


def test_a_run_reads_at_most_its_budget_and_the_next_runs_read_the_rest(mail_servers, tmp_path, monkeypatch) -> None:
    """Seven strangers' mails, three a run: the first two runs say so and are not followed by an idle run; the
    third reads the last, and the run after it is idle.  Oldest first, each read once."""
    monkeypatch.setattr(imap, "MOST_A_RUN", 3)
    monkeypatch.setattr(imap, "WINDOW", 2)
    _fill(mail_servers, 7)
    clock = Clock(datetime.now(UTC).replace(microsecond=0))
    with _home(mail_servers, tmp_path / "home", monkeypatch, mail_servers.imap_port) as cfg:
        cfg.server_clock_margin = type(cfg.server_clock_margin)(0)
        runs = []
        for _ in range(4):
            clock.advance(minutes=5)
            runs.append(run_poll(cfg, clock=clock))
    read = [r.summary.read if r.summary else None for r in runs]
    assert read == [3, 3, 1, None], [(r.summary and r.summary.told, r.skipped) for r in runs]
    told = [r.summary.told if r.summary else [] for r in runs]
    assert all(any("more mail than one run reads (3 messages)" in t for t in told[k]) for k in (0, 1)), told
    assert not any("more mail" in t for t in told[2]) and "nothing to do" in runs[3].skipped
    assert mail_servers.mailbox(MODERATOR) == [], "each filed"


def test_an_inbox_whose_whole_search_answer_passes_the_line_is_read(pip_servers, monkeypatch) -> None:
    """16 messages whose UIDs are padded to `MAX_LINE` / 10 bytes each: one SEARCH of the folder is a line of
    3.4 MB, as for some 400,000 mails (on efd12b07 the fetch failed: 1 of 1); windows of four are 0.8 MB at most."""
    monkeypatch.setattr(imap, "WINDOW", WINDOW)
    _fill(pip_servers, 16)
    relay = Padded(pip_servers.imap_host, pip_servers.imap_port, per=MAX_LINE // 10)
    try:
        keys = _fetch(pip_servers, relay)
    finally:
        relay.close()
    assert [int(k.split(":")[1]) for k in keys] == sorted(int(k.split(":")[1]) for k in keys), "oldest first"
    assert len(keys) == 16 and relay.most * MAX_LINE // 10 < MAX_LINE < 16 * MAX_LINE // 10

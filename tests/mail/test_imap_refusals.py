"""A server without MOVE that refuses part of the filing: pbem neither repeats its work nor copies mail again.

Found by the testers of misbehaving servers.  Without MOVE pbem files a message with COPY, STORE ``\\Deleted``
and EXPUNGE.  A server that refused the STORE kept the message in the inbox unflagged: every later run fetched it
again and COPYed it again, so `pbem/processed` gained one more copy per run (and the first run made two, trying
each message of the batch alone once the batch was refused).  A server that refused the EXPUNGE (or answered OK
and kept the messages) left them flagged ``\\Deleted``; the run copied each twice and nobody was told.

A proxy in front of the real server (pymap, and Dovecot in its tier) takes MOVE out of the capabilities and
refuses STORE, or EXPUNGE, or answers EXPUNGE with OK without doing it.  Three polls over the same inbox: each
message is handled once and copied once, later runs fetch none of them, and the moderator is told once that day.
"""

from __future__ import annotations

import re
import socket
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import pytest

from pbem.app import games
from pbem.app.cron import run_poll
from pbem.cli.support import init_home
from pbem.home import config as config_mod
from pbem.home.app import Home
from tests.conftest import CODES, Clock
from tests.mail.conftest import MODERATOR, USERS
from tests.mail.relay import Relay

PASSWORD_ENV = "PBEM_TEST_MAIL_PASSWORD"
PLAYERS = [("Alice", "alice@example.test"), ("Bob", "bob@example.test"), ("Carol", "carol@example.test")]
ALERT = "inbox_left"
_STORE = re.compile(rb"^(\S+) UID STORE ", re.IGNORECASE)
_EXPUNGE = re.compile(rb"^(\S+) (UID )?EXPUNGE\b", re.IGNORECASE)
_FETCH_BODY = re.compile(rb"^\S+ UID FETCH (\S+) \(BODY\.PEEK", re.IGNORECASE)
_COPY = re.compile(rb"^\S+ UID COPY (\S+) ", re.IGNORECASE)


def _count(uid_set: bytes) -> int:
    n = 0
    for part in uid_set.decode().split(","):
        lo, _, hi = part.partition(":")
        n += int(hi) - int(lo) + 1 if hi and hi != "*" else 1
    return n


class Refusing(Relay):
    """Relays one IMAP server without MOVE; `refuse` is "store" (STORE answered NO), "expunge" (EXPUNGE answered
    NO) or "keeps" (EXPUNGE answered OK, not done: the messages stay).  Counts the messages whose bodies pbem
    fetched and copied."""

    def __init__(self, host: str, port: int, refuse: str) -> None:
        super().__init__(host, port)
        self.refuse = refuse
        self.fetched = 0
        self.copied = 0
        self.changes = 0  # STORE and EXPUNGE commands
        self.start()

    def _down(self, server: socket.socket, client: socket.socket, lock: threading.Lock) -> None:
        try:
            for line in server.makefile("rb"):
                if b"CAPABILITY" in line[:64].upper() or b"[CAPABILITY" in line.upper():
                    line = re.sub(rb" MOVE(?=[ \]\r])", b"", line)  # a server without MOVE
                with lock:
                    client.sendall(line)
        except OSError:
            pass
        finally:
            client.close()

    def _up(self, client: socket.socket, server: socket.socket, lock: threading.Lock) -> None:
        try:
            for line in client.makefile("rb"):
                if m := _FETCH_BODY.match(line):
                    self.fetched += _count(m.group(1))
                if m := _COPY.match(line):
                    self.copied += _count(m.group(1))
                store, expunge = _STORE.match(line), _EXPUNGE.match(line)
                self.changes += bool(store or expunge)
                if store and self.refuse == "store":
                    with lock:
                        client.sendall(store.group(1) + b" NO [NOPERM] Permission denied\r\n")
                    continue
                if expunge and self.refuse == "expunge":
                    with lock:
                        client.sendall(expunge.group(1) + b" NO [NOPERM] Expunge not allowed\r\n")
                    continue
                if expunge and self.refuse == "keeps":
                    with lock:
                        client.sendall(expunge.group(1) + b" OK Expunge completed.\r\n")
                    continue
                server.sendall(line)
        except OSError:
            pass
        finally:
            server.close()


@contextmanager
def refusing_home(servers, tmp_path: Path, monkeypatch, refuse: str) -> Iterator[tuple[config_mod.Config, Refusing]]:
    proxy = Refusing(servers.imap_host, servers.imap_port, refuse)
    home = tmp_path / "home"
    init_home(home, address=MODERATOR, name="Test Moderator")
    toml = home / "pbem.toml"
    servers.wire_home(toml, MODERATOR, PASSWORD_ENV)
    head, _, tail = toml.read_text().partition("[imap]")
    toml.write_text(head + "[imap]" + re.sub(r"(?m)^port = \d+", f"port = {proxy.port}", tail, count=1))
    monkeypatch.setenv(PASSWORD_ENV, USERS[MODERATOR])
    try:
        cfg = config_mod.load(toml)
        cfg.server_clock_margin = timedelta(0)  # its clock starts at 09:00 today, ahead of the server's before then
        yield cfg, proxy
    finally:
        proxy.close()


def _mail(sender: str, n: int) -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, MODERATOR, f"[pbem g1] status {n}"
    msg["Message-ID"] = f"<refused-{n}@example.test>"
    msg.set_content("STATUS")
    return msg.as_bytes()


def _ids(raws: list[bytes]) -> list[str]:
    return sorted(m.group(1).decode() for raw in raws if (m := re.search(rb"Message-ID: (<[^>]+>)", raw)))


def _alerts(cfg: config_mod.Config) -> list[str]:
    with sqlite3.connect(cfg.database_url.removeprefix("sqlite:///")) as conn:
        rows = conn.execute(
            "SELECT raw FROM outbox JOIN outbox_mail USING (id) WHERE to_addr = ? AND purpose = 'alert'", (MODERATOR,)
        ).fetchall()
    mails = [message_from_bytes(bytes(raw), policy=policy.default) for (raw,) in rows]
    return [m.get_body(("plain",)).get_content() for m in mails if "left in the inbox" in str(m["Subject"])]


def _recorded(cfg: config_mod.Config) -> int:
    with sqlite3.connect(cfg.database_url.removeprefix("sqlite:///")) as conn:
        [(n,)] = conn.execute("SELECT count(*) FROM inbound_messages").fetchall()
    return int(n)


@pytest.mark.parametrize("refuse", ["store", "expunge", "keeps"])
def test_three_polls_copy_each_message_once_handle_it_once_and_tell_the_moderator_once(
    mail_servers, tmp_path, monkeypatch, refuse
) -> None:
    """Each later run has one new message (a run without one is idle: it does not even log in)."""
    clock = Clock(datetime.now(UTC).replace(hour=9, minute=0, second=0, microsecond=0))
    with refusing_home(mail_servers, tmp_path, monkeypatch, refuse) as (cfg, proxy):
        games.create_game(Home.of(cfg, clock=clock), "habsburg", "g1", PLAYERS, seed="refused", codes=CODES)
        # more than the poll reads ahead (`pbem.app.ahead.WARM_AHEAD`): some are filed as a batch, the rest alone
        sent = [_mail(address, n) for n, (_, address) in enumerate(PLAYERS * 4)]
        for raw in sent:
            mail_servers.deliver(MODERATOR, raw)
        runs = []
        for n in range(3):
            if n:
                sent.append(_mail("bob@example.test", 100 + n))
                mail_servers.deliver(MODERATOR, sent[-1])
            clock.advance(minutes=5)
            run = run_poll(cfg, clock=clock)
            assert run.summary is not None, run.skipped
            runs.append(run.summary)
        # the moderator's alert comes to this same inbox: read once, by the next run, and ignored
        assert [(r.read - r.ignored, r.duplicates) for r in runs] == [(12, 0), (1, 0), (1, 0)], "only new mail is read"
        read = sum(r.read for r in runs)
        assert _recorded(cfg) == read, "each message is recorded once"
        assert proxy.fetched == read, "no message's body is fetched twice"
        filed = _ids(
            mail_servers.mailbox(MODERATOR, "pbem/processed") + mail_servers.mailbox(MODERATOR, "pbem/rejected")
        )
        assert len(filed) == len(set(filed)) == read and set(_ids(sent)) <= set(filed), "one copy of each message"
        assert proxy.copied == read, "no message is copied twice"
        processed = mail_servers.mailbox(MODERATOR, "pbem/processed")
        assert _ids(processed) == _ids(sent), "exactly one copy of each player's message in pbem/processed"
        assert len(mail_servers.mailbox(MODERATOR)) == read, "the server kept them in the inbox"
        assert sum(r.ignored for r in runs) == 1, "the moderator's alert, read by the run after it was sent"
        notes = [n for r in runs for n in r.told if "left in the inbox" in n]
        assert len(notes) == 1, [r.told for r in runs]
        assert len(_alerts(cfg)) == 1, "one alert that day"
        told = notes[0] + _alerts(cfg)[0]
        assert "MOVE" in told and "by hand" in told
        assert ("12 messages the server would not flag" if refuse == "store" else "12 messages flagged") in notes[0]
        idle = run_poll(cfg, clock=clock)  # nothing new: what is left costs an idle run nothing
        assert idle.summary is None and "nothing to do" in idle.skipped
        changes = proxy.changes
        dry = run_poll(cfg, dry_run=True, clock=clock)  # reads what is new (nothing), changes nothing on the server
        assert dry.summary is not None and dry.summary.read == 0 and proxy.fetched == read
        assert proxy.changes == changes and not dry.summary.told
        clock.advance(days=1)  # the next day: told again, once
        sent.append(_mail("alice@example.test", 99))
        mail_servers.deliver(MODERATOR, sent[-1])
        run = run_poll(cfg, clock=clock)
        assert run.summary is not None and run.summary.read == 1 and run.summary.duplicates == 0
        assert proxy.copied == proxy.fetched == read + 1
        assert len(_alerts(cfg)) == 2 and sum("left in the inbox" in n for n in run.summary.told) == 1


def test_once_the_server_lets_pbem_flag_them_the_messages_left_are_taken_out(pip_servers, tmp_path, monkeypatch):
    """The refusal was passing (a permission fixed): the next run with work takes them out, copying nothing."""
    clock = Clock(datetime.now(UTC).replace(hour=9, minute=0, second=0, microsecond=0))
    with refusing_home(pip_servers, tmp_path, monkeypatch, "store") as (cfg, proxy):
        games.create_game(Home.of(cfg, clock=clock), "habsburg", "g1", PLAYERS, seed="refused", codes=CODES)
        for n in range(3):
            pip_servers.deliver(MODERATOR, _mail("alice@example.test", n))
        clock.advance(minutes=5)
        assert run_poll(cfg, clock=clock).summary is not None
        assert len(_ids(pip_servers.mailbox(MODERATOR))) == 3 + 1, "the three, and the moderator's alert (read next)"
        proxy.refuse = ""  # fixed
        pip_servers.deliver(MODERATOR, _mail("bob@example.test", 7))
        clock.advance(minutes=5)
        run = run_poll(cfg, clock=clock)
        assert run.summary is not None and (run.summary.read, run.summary.duplicates) == (2, 0), "Bob's, the alert"
        assert pip_servers.mailbox(MODERATOR) == [], "the three left before are taken out with the new one"
        assert proxy.copied == 3 + 2 and proxy.fetched == 3 + 2, "the new two fetched and copied, the three not again"


@pytest.mark.parametrize("uids", [set(), {7}, {1, 2, 3}, {1, 3, 4, 5, 9, 10, 12}, set(range(1, 5001))])
def test_the_ledger_keeps_uids_as_ranges(uids) -> None:
    from pbem.mail.transports.imapfiling import parse_uid_set, uid_set

    line = uid_set(uids)
    assert parse_uid_set(line) == uids and len(line) <= 7 * len(uids)
    assert uid_set(set(range(1, 5001))) == "1:5000"


@pytest.mark.parametrize("line", ["garbage", "3:1", "0:4", "1:99999999999", "1,,x"])
def test_a_ledger_line_it_did_not_write_holds_nothing(line) -> None:
    from pbem.mail.transports.imapfiling import parse_uid_set

    assert parse_uid_set(line) == set()


def test_pbem_check_says_how_much_flagged_mail_the_server_keeps_and_changes_nothing(
    mail_servers, tmp_path, monkeypatch
) -> None:
    """A moderator asking `pbem check` after the daily note sees the same: the server has no MOVE (and what pbem
    does then), and how many messages it keeps flagged \\Deleted in the inbox; the check itself expunges nothing."""
    from pbem.mail.check import checks

    clock = Clock(datetime.now(UTC).replace(hour=9, minute=0, second=0, microsecond=0))
    with refusing_home(mail_servers, tmp_path, monkeypatch, "keeps") as (cfg, proxy):
        games.create_game(Home.of(cfg, clock=clock), "habsburg", "g1", PLAYERS, seed="refused", codes=CODES)
        before = "\n".join(c.line() for c in checks(cfg))
        assert "MOVE: not supported" in before and "never read again" in before and "flagged" not in before
        for n, (_, address) in enumerate(PLAYERS):
            mail_servers.deliver(MODERATOR, _mail(address, n))
        assert run_poll(cfg, clock=clock).summary is not None
        changes = proxy.changes
        lines = list(checks(cfg))
        after = [c for c in lines if "flagged \\Deleted" in c.text]
        assert len(after) == 1 and f"{len(PLAYERS)} message(s)" in after[0].text, after
        assert proxy.changes == changes  # nothing stored, nothing expunged
        assert len([c for c in checks(cfg) if f"{len(PLAYERS)} message(s) flagged" in c.text]) == 1

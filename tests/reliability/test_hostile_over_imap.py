"""Issue 12 over real mail servers: each section's representative cases sent through Postfix SMTP into
Dovecot, read by `pbem poll` over IMAP, answered over SMTP (marked ``dovecot``).

The same classes run on the Maildir transport in their own modules:
* No input stops the poll: tests/reliability/test_fuzz_mail.py, tests/test_mail_robustness.py
* keyed effects: tests/app/test_intake_policy.py (press blocks to one player)
* Every reply counts: tests/app/test_intake_policy.py (the reply cap)
* exactly-once: tests/reliability/test_exactly_once.py, tests/app/test_revision_policy.py
* Identity: tests/test_mail_identity.py, tests/test_mail_authentication.py, tests/app/test_revision_policy.py
* Codes are never stored: tests/reliability/test_codes_never_stored.py, tests/test_mail_redact.py
* Storage is bounded: tests/test_stored_mail_bounds.py
* Names and identifiers: tests/test_game_names.py, tests/test_message_ids.py
* Loop safety: tests/test_mail_loops.py

One Dovecot + Postfix pair serves the module; each test has its own moderator
home and a few cases, delivered by SMTP (so every copy carries the trace
headers Postfix and Dovecot add) and handled by one `pbem poll`.
"""

from __future__ import annotations

import base64
import smtplib
import sqlite3
from datetime import UTC, datetime, timedelta
from email import message_from_bytes
from email.header import Header
from email.utils import format_datetime
from pathlib import Path

import pytest

from pbem.home.app import Home as Root
from tests.reliability import killpoints as kp

# one worker runs the module: its Dovecot + Postfix pair (module fixture) starts and stops once per run, not per worker
pytestmark = [pytest.mark.dovecot, pytest.mark.xdist_group("hostile-over-imap")]

MOD, ENV = kp.MODERATOR, kp.MAIL_PASSWORD_ENV
PASSWORD = "hostile-imap-pw-3307"
SEATS = {"hh": ["Alice", "Bob", "Carol"], "dy": ["Dave", "Erin"]}
CODES = {"Alice": "ALCE-2345", "Bob": "BOBB-3456", "Carol": "CARL-4567", "Dave": "DAVE-5678", "Erin": "ERIN-6789"}
ADDR = {p: f"{p.lower()}@players.test" for p in CODES}


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    from tests.servers.testservers import Unavailable, debian_mail_servers, debian_unavailable

    reason = debian_unavailable()
    if reason:
        pytest.skip(f"Dovecot/Postfix tier skipped: {reason}")
    users = {MOD: PASSWORD, **{a: PASSWORD for a in ADDR.values()}}
    try:
        with debian_mail_servers(tmp_path_factory.mktemp("hostile-imap"), users) as s:
            yield s
    except Unavailable as exc:
        pytest.skip(f"Dovecot/Postfix tier skipped: {exc}")


class Home:
    """A moderator home on the servers with its two games started (their first reports taken as sent)."""

    def __init__(self, servers, path: Path, cap: int = 30) -> None:
        from pbem.app import games
        from pbem.home import config as config_mod

        servers.reset()
        self.servers, self.sent = servers, 0
        cfg = kp.make_home(path, replies_per_hour=cap)
        servers.wire_home(cfg.path, MOD, ENV)
        self.cfg = config_mod.load(cfg.path)
        for name, kind in (("hh", "habsburg"), ("dy", "dynasties")):
            seats = [(p, ADDR[p]) for p in SEATS[name]]
            games.create_game(Root.of(self.cfg), kind, name, seats, seed=f"imap-{name}", codes=CODES)
        self.db = sqlite3.connect(self.cfg.database_url.removeprefix("sqlite:///"))
        with self.db:  # the first reports are not under test here: taken as sent, so each mailbox starts empty
            self.db.execute("UPDATE outbox_mail SET raw = coalesce(keep_raw, raw), keep_raw = NULL")
            self.db.execute("UPDATE outbox SET status = 'sent'")
        self.seen = dict.fromkeys(ADDR.values(), 0)

    def send(self, raw: bytes, sender: str = "") -> None:
        """Through Postfix (SMTP), into the moderator's Dovecot INBOX; waits until it is there."""
        with smtplib.SMTP(self.servers.smtp_host, self.servers.smtp_port, timeout=15) as smtp:
            smtp.sendmail(sender or "someone@players.test", [MOD], raw)
        self.sent += 1
        assert len(self.servers.wait_for(MOD, self.sent)) == self.sent, "Postfix did not deliver"

    def poll(self) -> str:
        r = kp.run_poll(self.cfg, {ENV: PASSWORD}, wrapper=False)
        assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr[-3000:]
        kp.ImapMail(self.servers, PASSWORD)._wait_for_postfix()  # every answer delivered before anyone looks
        self.sent = 0
        return r.stdout + r.stderr

    def new_mail(self, player: str, least: int = 0) -> list:
        """Mail that reached `player` since last asked, parsed."""
        box = self.servers.wait_for(ADDR[player], self.seen[ADDR[player]] + least)
        out = [message_from_bytes(raw) for raw in box[self.seen[ADDR[player]] :]]
        self.seen[ADDR[player]] = len(box)
        return out

    def rows(self, sql: str, *args: object) -> list[tuple]:
        return self.db.execute(sql, args).fetchall()


@pytest.fixture
def home(servers, tmp_path):
    h = Home(servers, tmp_path / "home")
    yield h
    h.db.close()


def mail(player: str, game: str | None, lines: list[str], n: str, date: datetime | None = None, **head: str) -> bytes:
    """A plain order mail as a client writes it (`n` makes its Message-ID)."""
    hdr = {
        "From": f"{player} <{ADDR[player]}>" if player in ADDR else player,
        "To": MOD,
        "Subject": f"[pbem {game}] orders" if game else "orders",
        "Date": format_datetime(date or datetime.now(UTC)),
        "Message-ID": f"<{n}@players.test>",
        "MIME-Version": "1.0",
        "Content-Type": 'text/plain; charset="utf-8"',
        **{k.replace("_", "-"): v for k, v in head.items()},
    }
    return ("".join(f"{k}: {v}\r\n" for k, v in hdr.items()) + "\r\n" + "\r\n".join(lines) + "\r\n").encode()


def signed(player: str, *lines: str) -> list[str]:
    return [f"CODE {CODES[player]}", *lines]


def tribute(home: Home, player: str, i: int) -> str:
    from pbem.record import store
    from pbem.record.db import session

    with session(home.cfg.database_url) as s:
        loaded = store.load(s, store.game_by_name(s, "dy"))
        return next(r for r in loaded.engine.requests(loaded.state) if r.player == player).legal[i]


def text(m) -> str:
    part = next(p for p in m.walk() if p.get_content_type() == "text/plain")
    return part.get_payload(decode=True).decode()


def kinds(mails: list) -> list[str]:
    return [str(m["Subject"]) for m in mails]


# --------------------------------------------------------------------------- No input stops the poll


def test_no_input_stops_the_poll(home: Home) -> None:
    home.send(mail("Dave", "dy", signed("Dave", tribute(home, "Dave", 0)), "before"))
    for i, charset in enumerate(("idna", "punycode", "undefined")):
        junk = mail(
            "Dave", "dy", signed("Dave", "TRIBUTE x"), f"junk{i}", Content_Type=f"text/plain; charset={charset}"
        )
        home.send(junk.replace(b"TRIBUTE x", b"TRIBUTE \xff\xfe x"))
    home.send(mail("Erin", "dy", signed("Erin", tribute(home, "Erin", 0)), "after"))
    home.poll()
    assert {p for (p,) in home.rows("SELECT player FROM orders WHERE kind = 'orders'")} == {"Dave", "Erin"}
    assert len(home.servers.mailbox(MOD)) == 0, "every message filed, none left to stop the next poll"


# --------------------------------------------------------------------------- keyed effects


def test_every_effect_of_one_message_is_sent(home: Home) -> None:
    body = signed("Alice", "PRESS TO Bob", "first", "END PRESS", "PRESS TO ALL", "second", "END PRESS")
    home.send(mail("Alice", "hh", body, "press"))
    home.poll()
    to_bob = home.new_mail("Bob", 2)
    assert len(to_bob) == 2 and len({m["Message-ID"] for m in to_bob}) == 2
    assert len(home.new_mail("Carol", 1)) == 1


# --------------------------------------------------------------------------- Every reply counts


def test_answers_stop_at_the_reply_cap(servers, tmp_path) -> None:
    home = Home(servers, tmp_path / "capped", cap=2)
    for i in range(4):
        home.send(mail("Bob", "hh", ["PASS"], f"nocode{i}"))
    home.poll()
    assert len(home.rows("SELECT id FROM inbound_messages WHERE outcome = 'rejected'")) == 4
    got = home.new_mail("Bob", 3)
    # The mail server may deliver the three in any order: count kinds, not positions.
    notices = [m for m in got if "too many" in str(m["Subject"]).lower()]
    assert len(got) == 3 and len(notices) == 1, "two answers and one 'too many messages' notice"
    assert len(home.servers.wait_for(ADDR["Bob"], 4, timeout=2.0)) == 3, "then silence"
    home.db.close()


# --------------------------------------------------------------------------- exactly-once


def test_a_redelivered_copy_and_an_older_message_never_replace_the_newer_revision(home: Home) -> None:
    now = datetime.now(UTC)
    a, b, c = (tribute(home, "Dave", i) for i in range(3))
    raw_a = mail("Dave", "dy", signed("Dave", a), "rev-a", now - timedelta(minutes=30))
    home.send(raw_a)
    home.send(mail("Dave", "dy", signed("Dave", b), "rev-b", now - timedelta(minutes=10)))
    home.send(raw_a)  # a second delivery: its own Received, Return-Path and Delivered-To
    home.send(mail("Dave", "dy", signed("Dave", c), "rev-c", now - timedelta(minutes=20)))
    home.poll()
    outcomes = [o for (o,) in home.rows("SELECT outcome FROM inbound_messages ORDER BY id")]
    assert outcomes == ["accepted", "accepted", "duplicate", "rejected"]
    lines = [x for (x,) in home.rows("SELECT lines_json FROM orders WHERE player = 'Dave' ORDER BY seq")]
    assert lines == [f'["{a}"]', f'["{b}"]']
    told = [text(m) for m in home.new_mail("Dave", 4) if "Not applied:" in text(m)]
    assert len(told) == 2 and all(b in t and "sent" in t for t in told)


# --------------------------------------------------------------------------- Identity


def test_ambiguous_senders_are_refused_and_a_code_from_another_player_is_told(home: Home) -> None:
    home.send(mail('"alice@players.test" <mallory@evil.test>', "hh", signed("Alice", "PASS"), "ambiguous"))
    home.send(mail("Carol", "hh", signed("Alice", "PASS"), "carol-has-alice-code"))
    home.poll()
    assert home.rows("SELECT count(*) FROM orders WHERE kind = 'orders'") == [(0,)]
    assert any("another player's address" in s for s in kinds(home.new_mail("Alice", 1)))
    assert kinds(home.new_mail("Carol", 1)) == ["Re: [pbem hh] your message: NOT applied (wrong player code)"], (
        "the sender is refused"
    )
    alerts = [message_from_bytes(r) for r in home.servers.wait_for(MOD, 1)]
    assert any("code came from another player" in str(m["Subject"]) for m in alerts)


def test_another_players_code_in_a_mail_that_only_asks_for_help_is_told_to_its_owner(home: Home) -> None:
    """HELP needs no code, so the poll used to check none: a code pasted into it from another seat's address
    went unreported.  The load step now checks it (within the sender's answers) and the owner is told."""
    home.send(mail("Carol", "hh", signed("Alice", "HELP"), "carol-asks-with-alice-code"))
    home.poll()
    assert any("another player's address" in s for s in kinds(home.new_mail("Alice", 1)))
    helped = home.new_mail("Carol", 1)
    assert len(helped) == 1 and "Alice" not in str(helped[0]["Subject"]), "Carol is answered as usual, in one mail"
    assert "not your current player code and was ignored" in text(helped[0]), "the code ignored is told there"
    alerts = [message_from_bytes(r) for r in home.servers.wait_for(MOD, 1)]
    assert any("code came from another player" in str(m["Subject"]) for m in alerts)
    [(reason,)] = home.rows("SELECT reason FROM inbound_messages")
    assert "the code of Alice" in reason, reason


# --------------------------------------------------------------------------- Codes are never stored


def test_no_code_is_stored_whatever_the_encoding(home: Home) -> None:
    subject = Header(f"[pbem hh] orders CODE {CODES['Bob']}", "utf-8").encode()
    home.send(mail("Bob", "hh", ["STATUS"], "rfc2047", Subject=subject))
    b64 = base64.b64encode(f"CODE {CODES['Alice']}\nSTATUS\n".encode()).decode()
    home.send(mail("Alice", "hh", [b64], "base64", Content_Transfer_Encoding="base64"))
    home.poll()
    dump = "\n".join(str(row) for t in ("inbound_messages", "outbox") for row in home.rows(f"SELECT * FROM {t}"))
    for code in CODES.values():
        assert code not in dump and code.replace("-", "") not in dump


# --------------------------------------------------------------------------- Storage is bounded


def test_a_strangers_big_mail_is_kept_bounded(home: Home) -> None:
    big = mail("Mallory <mallory@evil.test>", "hh", ["x" * 998] * 400, "big")
    home.send(big, sender="mallory@evil.test")
    home.poll()
    [(size,)] = home.rows("SELECT length(raw) FROM inbound_messages")
    assert size <= home.cfg.max_stored_stranger < len(big)


# --------------------------------------------------------------------------- Names and identifiers


def test_outgoing_message_ids_name_nothing(home: Home) -> None:
    home.send(mail("Alice", "../../x", signed("Alice", "STATUS"), "path"))
    home.send(mail("Alice", "hh", signed("Alice", "STATUS"), "status"))
    home.send(mail("Bob", "hh", ["HELP"], "help"))
    home.poll()
    ids = [str(message_from_bytes(r)["Message-ID"]) for a in ADDR.values() for r in home.servers.mailbox(a)]
    assert len(ids) == len(set(ids)) >= 3
    for mid in ids:
        local = mid.strip("<>").split("@")[0]
        assert local.startswith("pbem.") and len(local) == 37 and not any(n.lower() in local for n in CODES)


# --------------------------------------------------------------------------- Loop safety


def test_auto_replies_and_bounces_are_never_answered(home: Home) -> None:
    markers = [
        {"Auto_Submitted": "auto-replied"},
        {"Auto_Submitted": "auto-notified"},
        {"X_Autoreply": "yes"},
        {"Precedence": "auto_reply"},
        {"List_Id": "<players.lists.test>"},
        {"Content_Type": 'multipart/report; report-type=delivery-status; boundary="b"'},
    ]
    for i, head in enumerate(markers):
        home.send(mail("Alice", "hh", signed("Alice", "STATUS"), f"auto-{i}", **head))
    home.poll()
    assert {o for (o,) in home.rows("SELECT outcome FROM inbound_messages")} == {"ignored"}
    assert home.new_mail("Alice") == []

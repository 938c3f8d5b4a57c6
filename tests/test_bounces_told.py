"""A player's address that bounces is told to the moderator, at most once a day per address, and to nobody else (months2;
spaced out further over a run of bounces since months4: `tests/test_bounces_spaced.py`; these two days are its days 0 and 1).

`benchmarks/months.py` filed 313 bounces in half a year with nobody told (`pbem.app.bounced`).  The generator
(`bounce`): seeded bounces of the mail pbem sent a seat, in the shapes mail systems write them: a DSN
(`multipart/report`, RFC 3464) with the returned message or only its headers, with or without a
`Diagnostic-Code`; Exim's `X-Failed-Recipients`; qmail's plain text from MAILER-DAEMON quoting the mail; a DSN
that names only the returned Message-ID.  And mail that is no bounce of a player's address: a delay (`Action:
delayed`), a read receipt (MDN), a vacation reply, a bounce of an address that holds no seat, and one of a seat in
an abandoned game.  Reasons are drawn hostile too (long, control characters, HTML, right-to-left overrides).
The oracle: for each day, one `address_bounced` mail per address of a running game's seat that bounced that day,
its reason one line of at most `bounces.REASON_CHARS` characters with no control character left, and no player
told of anything.

Of 40 generated pairs of days (`PBEM_BOUNCE_CASES=40`), 39 fail on efd12b07 (nothing is told) and none now.  The
suite runs `CASES` (2).  Cost: 2.2 s for the file at a load of 13 (`python3 -m pytest tests/test_bounces_told.py
--durations=5 -n 0`).
"""

from __future__ import annotations

import mailbox
import os
import random
from datetime import UTC, datetime, timedelta
from email import message_from_bytes
from email.header import decode_header, make_header
from email.utils import make_msgid
from pathlib import Path

import pytest

from tests.conftest import CODES, Clock, deliver

CASES = int(os.environ.get("PBEM_BOUNCE_CASES", "2"))
MODERATOR = "moderator@pbem.test"
SEATS = [("Alice", "alice@players.test"), ("Bob", "bob@players.test"), ("Carol", "carol@players.test")]
GONE = [("Dora", "dora@players.test"), ("Bob", "bob@players.test"), ("Erin", "erin@players.test")]  # abandoned
TRUE = ["dsn_full", "dsn_headers", "dsn_bare", "exim", "qmail", "dsn_id_only"]
FALSE = ["delayed", "receipt", "vacation", "stranger", "abandoned"]
HOSTILE = [
    "550 5.1.1 <{a}>: Recipient address rejected: User unknown in virtual mailbox table",
    "550-5.1.1 The email account that you tried to reach does not exist. " + "Please try " * 60,
    "552 mailbox full\x1b[31m red \x07\u202eevil",
    "<script>alert(1)</script> 550 <b>no</b> such user {a}",
]


def _mail(sender: str, subject: str, parts: list[tuple[str, str]], report: str | None = None, **extra: str) -> bytes:
    """A mail as a mail system writes it: `parts` (content type, text) in a `multipart/report` of `report` (or a
    single text part), written out by hand so that every shape is exactly as drawn."""
    head = [f"From: {sender}", f"To: {MODERATOR}", f"Subject: {subject}", f"Message-ID: {make_msgid(domain='mx.test')}"]
    head += [f"{k.replace('_', '-')}: {v}" for k, v in extra.items()]
    if report is None:
        return ("\r\n".join([*head, "Content-Type: text/plain; charset=utf-8", "", parts[0][1]])).encode()
    head.append(f'Content-Type: multipart/report; report-type={report}; boundary="BND"')
    body = [f"--BND\r\nContent-Type: {ctype}\r\n\r\n{text}" for ctype, text in parts]
    return ("\r\n".join(head) + "\r\n\r\n" + "\r\n".join(body) + "\r\n--BND--\r\n").encode()


DAEMON = "Mail Delivery System <MAILER-DAEMON@mx.players.test>"


def _returned_part(address: str, returned: str, whole: bool) -> tuple[str, str]:
    headers = f"Message-ID: {returned}\r\nTo: {address}\r\nSubject: [pbem hb1] your turn\r\n"
    return ("message/rfc822", headers + "\r\nthe report\r\n") if whole else ("text/rfc822-headers", headers)


def bounce(rng: random.Random, kind: str, address: str, returned: str) -> bytes:
    """One mail of shape `kind` about `address` (the mail `returned` came back)."""
    reason = rng.choice(HOSTILE).format(a=address)
    if kind in ("dsn_full", "dsn_headers", "dsn_bare", "delayed", "stranger", "abandoned", "dsn_id_only"):
        action = "delayed" if kind == "delayed" else "failed"
        named = "unknown" if kind == "dsn_id_only" else address
        block = f"Final-Recipient: rfc822; {named}\r\nAction: {action}\r\nStatus: 5.1.1\r\n"
        block += "" if kind == "dsn_bare" else f"Diagnostic-Code: smtp; {reason}\r\n"
        parts = [
            ("text/plain", f"This is the mail system at host mx.players.test.\r\n\r\n<{named}>: {action}\r\n"),
            ("message/delivery-status", f"Reporting-MTA: dns; mx.players.test\r\n\r\n{block}"),
            _returned_part(address, returned, kind != "dsn_headers"),
        ]
        return _mail(
            DAEMON, "Undelivered Mail Returned to Sender", parts, "delivery-status", Auto_Submitted="auto-replied"
        )
    if kind == "exim":
        text = (  # with the copy of the message Exim returns (a bounce is tied by it, months4)
            f"This message was created automatically by mail delivery software.\r\n\r\n  {address}\r\n    {reason}\r\n"
            f"\r\n------ This is a copy of the message, including all the headers. ------\r\n\r\n"
            f"Message-ID: {returned}\r\nTo: {address}\r\n"
        )
        return _mail(DAEMON, "Mail delivery failed", [("text/plain", text)], X_Failed_Recipients=address)
    if kind == "qmail":
        text = (f"Hi. This is the qmail-send program.\r\n\r\n<{address}>:\r\n{reason}\r\n\r\n--- Below this line is"
                f" a copy of the message.\r\n\r\nMessage-ID: {returned}\r\n")  # fmt: skip
        return _mail("MAILER-DAEMON@mx.players.test", "failure notice", [("text/plain", text)])
    if kind == "receipt":
        parts = [
            ("text/plain", "Your message was read.\r\n"),
            ("message/disposition-notification", f"Final-Recipient: rfc822; {address}\r\nDisposition: "
             "manual-action/MDN-sent-manually; displayed\r\n"),
        ]  # fmt: skip
        return _mail(f"Bob <{address}>", "Read: [pbem hb1] your turn", parts, "disposition-notification")
    return _mail(f"Bob <{address}>", "Out of office: [pbem hb1] your turn", [("text/plain", "Away until Monday.\r\n")])


def _sent(cfg, seen: set[str]) -> list[tuple[str, str, str]]:
    """(To, Subject, text) of each mail pbem sent since `seen`."""
    out = []
    for key, raw in mailbox.Maildir(str(cfg.maildir_path / "sent"), factory=None).items():
        if key in seen:
            continue
        seen.add(key)
        msg = message_from_bytes(bytes(raw.get_bytes() if hasattr(raw, "get_bytes") else raw))
        body = next((p for p in msg.walk() if p.get_content_type() == "text/plain"), None)
        text = body.get_payload(decode=True).decode("utf-8", "replace") if body is not None else ""
        out.append((str(msg["To"]), str(make_header(decode_header(str(msg["Subject"])))), text))
    return out


def _home(tmp_path: Path):
    from pbem.app import games
    from pbem.app.control import abandon
    from pbem.app.cron import run_poll
    from pbem.cli.support import init_home
    from pbem.home import config as config_mod
    from pbem.home.app import Home

    cfg = config_mod.load(init_home(tmp_path / "home", address=MODERATOR, name="Test Moderator"))
    clock = Clock(datetime(2026, 1, 5, 12, 0, tzinfo=UTC))
    games.create_game(Home.of(cfg, clock=clock), "habsburg", "hb1", SEATS, seed="bounce-1", codes=CODES)
    games.create_game(Home.of(cfg, clock=clock), "habsburg", "hb2", GONE, seed="bounce-2", codes=CODES)
    run_poll(cfg, clock=clock)
    abandon(Home.of(cfg, clock=clock), "hb2", clock.now)
    clock.now += timedelta(minutes=5)
    run_poll(cfg, clock=clock)
    return cfg, clock


def _returned(cfg) -> dict[str, str]:
    """A Message-ID pbem sent to each address (from the Maildir transport's `sent`)."""
    out: dict[str, str] = {}
    for _, raw in mailbox.Maildir(str(cfg.maildir_path / "sent"), factory=None).items():
        msg = message_from_bytes(bytes(raw.get_bytes() if hasattr(raw, "get_bytes") else raw))
        out.setdefault(str(msg["To"]).split("<")[-1].strip(">").lower(), str(msg["Message-ID"]))
    return out


def day(seed: int) -> list[list[tuple[str, str]]]:
    """Two days of mail: each a list of (shape, address)."""
    rng = random.Random(seed)
    out = []
    for _ in range(2):
        mails = []
        for _ in range(rng.randint(1, 5)):
            kind = rng.choice(TRUE + FALSE)
            address = {"stranger": "zed@players.test", "abandoned": "dora@players.test"}.get(kind)
            mails.append((kind, address or rng.choice(SEATS)[1]))
        out.append(mails)
    return out


@pytest.mark.parametrize("seed", range(CASES))
def test_a_bounce_is_told_to_the_moderator_once_a_day_per_address(tmp_path: Path, seed: int) -> None:
    from pbem.app.cron import run_poll

    cfg, clock = _home(tmp_path)
    returned = _returned(cfg)
    returned["zed@players.test"] = make_msgid(domain="elsewhere.test")  # never pbem's
    seen: set[str] = set()
    _sent(cfg, seen)
    rng = random.Random(seed)
    for mails in day(seed):
        for kind, address in mails:
            deliver(cfg, bounce(rng, kind, address, returned[address]))
        run_poll(cfg, clock=clock)
        sent = _sent(cfg, seen)
        want = sorted({a for k, a in mails if k in TRUE})
        told = sorted(s.split("mail to ", 1)[1].split(" bounced")[0] for to, s, _ in sent if s.endswith(" bounced"))
        assert told == want, (mails, told)
        assert all(to == MODERATOR for to, s, _ in sent if "bounce" in s.lower()), sent
        assert not any("bounce" in text.lower() for to, _, text in sent if to != MODERATOR), sent  # nobody else
        for _, s, text in sent:
            if s.endswith(" bounced"):
                from pbem.mail.inbound import bounces

                line = text.split("The bounce says:\n", 1)[1].splitlines()[0].strip()
                assert len(line) <= bounces.REASON_CHARS and "\x1b" not in line and "\u202e" not in line, line
                player = next(p for p, a in SEATS if s == f"[pbem] mail to {a} bounced")
                assert f"pbem game address hb1 {player} new@example.org" in text, text
                assert "hb2" not in text  # the abandoned game's seat is not named
        clock.now += timedelta(days=1)


def test_a_read_receipt_a_delay_or_a_vacation_reply_is_no_bounce() -> None:
    from pbem.mail.inbound import bounces

    rng = random.Random(1)
    for kind in ("delayed", "receipt", "vacation"):
        raw = bounce(rng, kind, "bob@players.test", "<x@pbem.test>")
        b = bounces.read(raw)
        sender = "bob@players.test" if kind != "delayed" else "mailer-daemon@mx.players.test"
        assert not bounces.bounced(sender, b) or not bounces.addresses(b, ["bob@players.test"]), kind


def test_reading_any_bounce_never_raises_and_stays_bounded() -> None:
    """A bounce's bytes are anyone's: whatever they are, `read` returns at most `MOST_ADDRESSES` addresses and
    `MOST_ADDRESSES` Message-IDs, each reason one line of at most `REASON_CHARS` characters."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from pbem.mail.inbound import bounces

    rng = random.Random(7)
    shapes = [bounce(rng, k, f"p{i}@players.test", f"<m{i}@pbem.test>") for i, k in enumerate(TRUE + FALSE)]

    @settings(max_examples=30, deadline=None, derandomize=True)
    @given(st.sampled_from(shapes), st.binary(max_size=300), st.integers(0, 4000), st.booleans())
    def check(shape: bytes, noise: bytes, at: int, many: bool) -> None:
        raw = shape[:at] + noise + shape[at:]
        if many:  # a DSN naming far too many recipients, with long reasons
            block = b"".join(b"\r\nFinal-Recipient: rfc822; x%d@p.test\r\nAction: failed\r\nDiagnostic-Code: smtp; %s\r\n"
                             % (i, b"5" * 900) for i in range(60))  # fmt: skip
            raw = raw.replace(b"Reporting-MTA: dns; mx.players.test\r\n", b"Reporting-MTA: x\r\n" + block, 1)
        b = bounces.read(raw)
        assert len(b.failed) <= bounces.MOST_ADDRESSES and len(b.returned) <= bounces.MOST_ADDRESSES
        assert all(len(r) <= bounces.REASON_CHARS and "\n" not in r for r in b.failed.values())

    check()

"""Golden cases for the email layer: a raw message in, what pbem reads out.

Each ``tests/golden/mail/NAME.eml`` has ``NAME.expected`` beside it (JSON).
Run with PBEM_UPDATE_GOLDEN=1 to rewrite them after a deliberate change.
"""

from __future__ import annotations

import json
import os
from datetime import UTC
from pathlib import Path

import pytest

from pbem.mail.inbound.message import parse
from pbem.orders.extract import extract

ROOT = Path(__file__).resolve().parent / "golden" / "mail"
CASES = sorted(ROOT.glob("*.eml"))


def read_out(raw: bytes) -> dict:
    msg = parse(raw, "moderator@pbem.test")
    ex = extract(msg.text, msg.subject)
    return {
        "message_id": msg.message_id,
        "sender": msg.sender,
        "game": msg.game,
        "auto": msg.auto,
        "problem": msg.problem,
        "orders": ex.orders,
        "help": ex.help,
        "status": ex.status,
        "code": ex.code,
        "press": [{"to": p.to, "body": p.body} for p in ex.press],
        "problems": ex.problems,
        "chatter": ex.chatter,
    }


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_golden_mail(path: Path) -> None:
    got = read_out(path.read_bytes())
    expected_path = path.with_suffix(".expected")
    if os.environ.get("PBEM_UPDATE_GOLDEN"):
        expected_path.write_text(json.dumps(got, indent=1, ensure_ascii=False) + "\n")
    assert got == json.loads(expected_path.read_text())


def test_missing_message_id_gets_a_stable_one() -> None:
    raw = (ROOT / "no-message-id-unknown-charset.eml").read_bytes()
    assert parse(raw).message_id == parse(raw).message_id
    assert parse(raw).message_id != parse(raw + b"x").message_id


def test_huge_message_is_rejected_with_a_reason() -> None:
    raw = b"From: a@b.test\r\nSubject: [pbem x] big\r\n\r\n" + b"NO EVENT\r\n" * 300_000
    msg = parse(raw)
    assert msg.problem and "bytes long" in msg.problem and msg.text == ""


def test_header_injection_in_display_name_is_neutralised() -> None:
    raw = b"From: =?utf-8?q?Eve=0D=0ABcc=3A_all=40x?= <eve@x.test>\r\nSubject: [pbem g] o\r\n\r\nPASS\r\n"
    msg = parse(raw)
    assert "\n" not in msg.sender_name and "\r" not in msg.sender_name
    assert msg.sender == "eve@x.test"


def test_outgoing_mail_keeps_every_line_within_the_smtp_limit() -> None:
    from datetime import datetime

    from pbem.mail.outbound.compose import Body, Envelope, compose

    raw = compose(
        Envelope("m@x.test", "M", "a@x.test", "A", "<i@x.test>", datetime(2026, 1, 1, tzinfo=UTC)),
        Body("s", "word " * 2000 + "\nVOTE RED — é", "<p>" + "x" * 5000 + "</p>"),
    )
    assert max(len(line) for line in raw.split(b"\n")) <= 998
    from email import policy
    from email.parser import BytesParser

    back = BytesParser(policy=policy.default).parsebytes(raw)
    assert back.get_body(("plain",)).get_content().endswith("VOTE RED — é\n")


@pytest.mark.parametrize("encoding", ["utf-8", "cp1252"])
@pytest.mark.parametrize("name", ["Zoë Müller", "François", "Łukasz Żółć", "Ἀθηνᾶ", "山田"])
def test_a_raw_eight_bit_subject_is_read_as_written(encoding: str, name: str) -> None:
    """RFC 6532 clients put UTF-8 in headers unencoded; the subject was quoted back as "Zo�� M��ller"."""
    from pbem.mail.inbound.message import parse

    subject = f"Re: [pbem g1] Turn 9, {name} to play"
    try:
        head = f"From: a@x.org\r\nTo: g@x.org\r\nSubject: {subject}\r\nMessage-ID: <a@b>\r\n\r\nNO EVENT\r\n".encode(
            encoding
        )
    except UnicodeEncodeError:
        pytest.skip(f"{name} has no {encoding} form")
    msg = parse(head)
    assert msg.subject == subject and msg.game == "g1" and msg.problem is None

"""Redaction of player codes and bounded storage of inbound mail (pure; issue 12)."""

from __future__ import annotations

import base64
import hashlib
from email import policy
from email.header import Header
from email.parser import BytesParser

import pytest

from pbem.mail.inbound.message import parse
from pbem.mail.inbound.redact import _texts, code_pattern, codes_in_message, redact_message, redact_text
from pbem.mail.inbound.storage import MAX_STORED_STRANGER, bounded, scrub
from pbem.orders.extract import extract

CODE = "K7QX-2MPD"
PAT = code_pattern([CODE])
HEAD = "From: Alice <alice@players.test>\nTo: m@pbem.test\nMessage-ID: <r@x>\nMIME-Version: 1.0\n"


def readable(raw: bytes) -> list[str]:
    return list(_texts(BytesParser(policy=policy.compat32).parsebytes(raw)))


def clean(raw: bytes) -> bool:
    assert PAT is not None
    return not PAT.search(raw.decode("latin-1")) and not any(PAT.search(t) for t in readable(raw))


@pytest.mark.parametrize("written", [CODE, CODE.lower(), "K7QX2MPD", "k7qx 2mpd", "K7QX.2MPD", "K7QX - 2MPD"])
def test_a_code_is_matched_as_pbem_checks_it(written: str) -> None:
    assert redact_text(f"my code is {written}!", [CODE]) == "my code is [code]!"


def test_a_code_inside_a_longer_word_is_not_a_code() -> None:
    assert redact_text("XK7QX-2MPD7", [CODE]) == "XK7QX-2MPD7"


def test_codes_are_found_in_code_lines_quoted_lines_and_subjects() -> None:
    raw = (HEAD + "Subject: [pbem hh] code ABCD-2345\n\nCODE EFGH-3456\n> code: JKLM-4567\n").encode()
    assert {"ABCD-2345", "EFGH-3456", "JKLM-4567"} <= codes_in_message(raw)


@pytest.mark.parametrize(
    ("head", "body"),
    [
        ("Content-Type: text/plain\n", f"CODE {CODE}\nNO EVENT\n".encode()),
        ("Content-Transfer-Encoding: base64\n", base64.encodebytes(f"CODE {CODE}\nNO EVENT\n".encode())),
        ("Content-Transfer-Encoding: quoted-printable\n", b"CODE K7QX-=\n2MPD\nNO EVENT\n"),
        ("Content-Type: text/html\n", b"<p>CODE K7QX&#45;2MPD</p>"),
        ("Content-Type: text/html\n", f"<p>CODE K7QX<b>-</b>2MPD</p><p>x {CODE}</p>".encode()),
        ("Content-Type: text/plain; charset=idna\n", f"NO EVENT\n\n> CODE {CODE}\n-- \nAlice {CODE}\n".encode()),
        (
            'Content-Type: multipart/mixed; boundary="b"\n',
            f"preamble {CODE}\n--b\nContent-Type: application/octet-stream\nContent-Transfer-Encoding: base64\n\n".encode()
            + base64.encodebytes(f"CODE {CODE}".encode())
            + b"\n--b--\nepilogue K7QX2MPD\n",
        ),
    ],
)
def test_every_part_is_redacted_after_transfer_decoding_and_reserialised(head: str, body: bytes) -> None:
    raw = (HEAD + "Subject: [pbem hh] orders\n" + head + "\n").encode() + body
    out = redact_message(raw, [CODE])
    assert clean(out)
    assert any("[code]" in t for t in readable(out))
    assert parse(out).sender == "alice@players.test"


def test_an_rfc2047_subject_is_decoded_redacted_and_reencoded() -> None:
    subject = Header(f"[pbem hh] orders code {CODE} caf\u00e9", "utf-8").encode()
    out = redact_message((HEAD + f"Subject: {subject}\n\nNO EVENT\n").encode())
    assert clean(out)
    assert parse(out).subject == "[pbem hh] orders code [code] caf\u00e9"


def test_a_message_without_a_code_is_kept_as_it_came() -> None:
    raw = (HEAD + "Subject: [pbem hh] orders\n\nNO EVENT\n").encode()
    assert redact_message(raw) == raw


def test_a_message_the_generator_cannot_write_falls_back_to_its_headers() -> None:
    depth = "".join(f'Content-Type: multipart/mixed; boundary="b{i}"\n\n--b{i}\n' for i in range(400))
    raw = (HEAD + f"Subject: [pbem hh] code {CODE}\n" + depth + f"\nCODE {CODE}\n").encode()
    out = redact_message(raw)
    assert clean(out)
    assert b"From: Alice <alice@players.test>" in out


def test_scrub_redacts_subject_lines_and_press_but_keeps_the_code_for_the_check() -> None:
    raw = (
        HEAD
        + f"Subject: [pbem hh] code {CODE}\n\nCODE {CODE}\nNO EVENT {CODE}\nPRESS TO Bob\nit is {CODE}\nEND PRESS\n"
    ).encode()
    msg = parse(raw)
    msg2, stored, ex = scrub(msg, raw, extract(msg.text, msg.subject), MAX_STORED_STRANGER)
    assert ex is not None and ex.code == CODE
    assert ex.orders == ["NO EVENT [code]"] and ex.press[0].body == ["it is [code]"]
    assert msg2.subject == "[pbem hh] code [code]" and clean(stored)


def test_mail_over_the_limit_is_kept_as_headers_text_start_and_digest_and_refused() -> None:
    body = f"CODE {CODE}\nNO EVENT\n".encode() + b"x" * 300_000 + b"\n"
    raw = (HEAD + "Subject: [pbem hh] big\nContent-Type: text/plain\n\n").encode() + body
    kept = bounded(raw, MAX_STORED_STRANGER)
    assert kept.problem and "256 KiB" in kept.problem and str(len(raw)) in kept.problem
    assert len(kept.raw) < 64 * 1024
    assert hashlib.sha256(raw).hexdigest().encode() in kept.raw
    assert parse(kept.raw).subject == "[pbem hh] big" and b"NO EVENT" in kept.raw
    msg = parse(raw)
    msg2, stored, ex = scrub(msg, raw, extract(msg.text, msg.subject), MAX_STORED_STRANGER)
    assert ex is None and msg2.problem == kept.problem and clean(stored)


def test_mail_under_the_limit_is_kept_whole() -> None:
    raw = (HEAD + "Subject: x\n\n").encode() + b"y" * 1000
    assert bounded(raw, MAX_STORED_STRANGER).raw == raw and bounded(raw, MAX_STORED_STRANGER).problem is None


def test_a_50_mb_mail_costs_no_more_than_its_start() -> None:
    raw = (HEAD + "Subject: huge\nContent-Type: text/plain\n\n").encode() + b"z" * 50_000_000
    kept = bounded(raw, MAX_STORED_STRANGER)
    assert len(kept.raw) < 64 * 1024 and kept.problem

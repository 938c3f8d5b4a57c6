"""`parse` never raises: each class of undecodable mail becomes a `problem` (issue 12)."""

from __future__ import annotations

import pytest

from pbem.mail.inbound.message import MAX_MULTIPARTS, parse
from tests.reliability.fuzz_mail import codec_names

HEAD = "From: Alice <alice@players.test>\nTo: moderator@pbem.test\nSubject: [pbem hh] orders\nMessage-ID: <r@x>\n"


def mail(extra_head: str, body: bytes = b"CODE ALCE-2345\nNO EVENT\n") -> bytes:
    return (HEAD + extra_head + "\n").encode() + body


@pytest.mark.parametrize("charset", ["idna", "punycode", "undefined"])
def test_a_codec_that_raises_its_own_error_is_a_problem_not_a_crash(charset: str) -> None:
    msg = parse(mail(f"Content-Type: text/plain; charset={charset}\n", b"CODE \xff\xfe\n"))
    assert msg.problem and msg.problem.startswith("could not be read:") and charset in msg.problem
    assert msg.sender == "alice@players.test" and msg.game == "hh" and msg.text == ""


def test_every_codec_name_python_knows_parses_without_raising() -> None:
    for name in codec_names():
        for ctype in (f"text/plain; charset={name}", f"text/html; charset*={name}''x"):
            for cte in ("base64", "quoted-printable", "8bit"):
                msg = parse(mail(f"Content-Type: {ctype}\nContent-Transfer-Encoding: {cte}\n", b"CODE \xff=ZZ\x00\n"))
                assert msg.sender == "alice@players.test"
        parse((HEAD.replace("Subject: [pbem hh] orders", f"Subject: =?{name}?B?W3BiZW0gaGhd?=") + "\nx\n").encode())


def test_an_rfc2231_charset_that_cannot_decode_is_a_problem() -> None:
    msg = parse(mail("Content-Type: text/plain; charset*=idna''%FF%00\n"))
    assert msg.problem is None or msg.problem.startswith("could not be read:")


def test_unknown_charsets_still_fall_back_to_utf8() -> None:
    msg = parse(mail("Content-Type: text/plain; charset=x-no-such-codec\n"))
    assert msg.problem is None and "NO EVENT" in msg.text


@pytest.mark.parametrize(
    ("head", "body"),
    [
        ("Content-Transfer-Encoding: base64\n", b"Q09ERSBBTENFLTIzNDU=====\n!!!\n"),
        ("Content-Transfer-Encoding: quoted-printable\n", b"=ZZ=\nNO EVENT=\n"),
        ("Content-Transfer-Encoding: x-uuencode\n", b"begin 644 x\n!!!!\nend\n"),
        ('Content-Type: multipart/mixed; boundary="b"\n', b"--b\nContent-Type: text/plain\n\nNO EVENT\n--c--"),
        ('Content-Type: multipart/mixed; boundary=""\n', b"--\n\n--\n"),
        ("", b"NO EVENT\x00\x00\xff\xfe\n"),
        ("Content-Type: text/plain; charset=utf-8\n", b"\xc3\x28\xa0\xa1NO EVENT\n"),
    ],
)
def test_broken_encodings_and_bytes_give_a_message(head: str, body: bytes) -> None:
    msg = parse(mail(head, body))
    assert msg.sender == "alice@players.test"
    assert msg.problem is None or isinstance(msg.problem, str)


def test_deep_nesting_is_refused_without_parsing_every_level() -> None:
    depth = MAX_MULTIPARTS * 20
    body = "".join(f'Content-Type: multipart/mixed; boundary="b{i}"\n\n--b{i}\n' for i in range(depth))
    msg = parse(mail("", (body + "Content-Type: text/plain\n\nNO EVENT\n").encode()))
    assert msg.problem and "nests more than" in msg.problem
    assert msg.sender == "alice@players.test" and msg.game == "hh"


def test_every_truncation_of_a_real_mail_parses() -> None:
    raw = mail(
        'Content-Type: multipart/alternative; boundary="a"\n',
        b"--a\nContent-Type: text/plain; charset=iso-8859-1\nContent-Transfer-Encoding: quoted-printable\n\n"
        b"CODE ALCE-2345\nNO EVENT caf=E9\n--a\nContent-Type: text/html\nContent-Transfer-Encoding: base64\n\n"
        b"PGI+Tk8gRVZFTlQ8L2I+\n--a--\n",
    )
    whole = parse(raw)
    assert whole.problem is None and whole.sender == "alice@players.test" and whole.game == "hh"
    assert "CODE ALCE-2345" in whole.text and "NO EVENT café" in whole.text
    head_end = raw.index(b"\n\n") + 2
    for cut in range(len(raw) + 1):
        msg = parse(raw[:cut])
        assert msg.problem is None or isinstance(msg.problem, str), cut
        assert len(msg.text) <= len(whole.text) + len("NO EVENT caf"), cut  # nothing made up past the cut
        if cut >= head_end:  # the whole header is there: who sent it and for which game is never lost
            assert (msg.sender, msg.game) == ("alice@players.test", "hh"), cut
        if cut >= raw.index(b"caf=E9") + len(b"caf=E9\n"):  # the plain part is complete
            assert "NO EVENT café" in msg.text, cut

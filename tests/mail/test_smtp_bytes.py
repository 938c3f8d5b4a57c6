"""The bytes the SMTP sender puts on the wire: line ends made CRLF and leading dots doubled (RFC 5321 4.5.2).

`crlf` and `dot_stuffed` replace two regular expressions with byte replaces (the regexes were two thirds of the
sender thread's CPU on a report with its pictures).  They are checked against the regexes they replace on every
string of up to `LONGEST` bytes made of the characters that matter (CR, LF, "." and one for anything else): what
either regex does at a byte depends on the two bytes before it at most, so every case is among them.  Hypothesis
adds longer strings of those and other bytes, and pbem's own mails are checked too.
"""

from __future__ import annotations

import itertools
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.mail.transports.smtp import crlf, dot_stuffed

TEXT = st.lists(st.sampled_from([b"\r", b"\n", b"\r\n", b".", b"..", b"x", b" ", b"\x00", b"\xff"]), max_size=60).map(
    b"".join
)


def _old_crlf(raw: bytes) -> bytes:
    return re.sub(rb"\r?\n", b"\r\n", raw)


def _old_dots(raw: bytes) -> bytes:
    return re.sub(rb"(?m)^\.", b"..", raw)


LONGEST = 8  # 87,381 strings over CR, LF, "." and "x", in about 0.3 s


def test_crlf_and_dot_stuffing_are_the_regexes_they_replace_on_every_short_string() -> None:
    for length in range(LONGEST + 1):
        for chars in itertools.product(b"\r\n.x", repeat=length):
            raw = bytes(chars)
            assert crlf(raw) == _old_crlf(raw), raw
            text = _old_crlf(raw)
            assert dot_stuffed(text) == _old_dots(text), text


@settings(max_examples=200, deadline=None)
@given(TEXT)
def test_crlf_is_the_regex_it_replaces(raw: bytes) -> None:
    assert crlf(raw) == _old_crlf(raw)


@settings(max_examples=200, deadline=None)
@given(TEXT)
def test_dot_stuffing_is_the_regex_it_replaces_on_crlf_text(raw: bytes) -> None:
    text = _old_crlf(raw)
    assert dot_stuffed(text) == _old_dots(text)


def test_a_report_with_dotted_lines_and_pictures_is_sent_as_before() -> None:
    """A mail as pbem composes it (LF line ends, base64 pictures, a line that is a lone dot, a line that starts
    with dots): the same bytes as the regexes gave, and no line of the data is a lone "." but the end's."""
    from email.message import EmailMessage

    msg = EmailMessage()
    msg["Subject"] = "report"
    msg.set_content(".\n.. two\nplain\n...\n")
    msg.add_attachment(bytes(range(256)) * 40, maintype="image", subtype="png")
    raw = msg.as_bytes()
    assert crlf(raw) == _old_crlf(raw) and dot_stuffed(crlf(raw)) == _old_dots(_old_crlf(raw))
    assert b"\r\n.\r\n" not in dot_stuffed(crlf(raw))

"""The header parse pbem gives dkimpy: the same fields and body as dkimpy's own, at a cost linear in the headers.

Found by trying the product: every mail claiming a player's From goes through the DKIM capture, whose header
parse (dkimpy's `rfc822_parse`) appended each continuation line to the field's bytes so far: one header
folded over 960,000 lines (1.9 MB) took 39 s of a poll, from anyone who knows a player's address. A generator
of header blocks (folded fields, From_ lines, bad lines, CRLF and LF, a body or none) checks that the
replacement reads each exactly as dkimpy's does; a cost check over folded headers four times larger.
"""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.trust import dkim

_NAME = st.sampled_from([b"From", b"To", b"Subject", b"DKIM-Signature", b"X-a", b"Received", b"h:x"])
_VALUE = st.binary(max_size=12).map(lambda b: b.replace(b"\r", b"").replace(b"\n", b""))
_LINE = st.one_of(
    st.tuples(_NAME, _VALUE).map(lambda t: t[0] + b":" + t[1]),
    _VALUE.map(lambda v: b" " + v),
    _VALUE.map(lambda v: b"\t" + v),
    st.just(b"From someone@example Fri Dec  4 08:00:00 2026"),
    _VALUE,  # a line that is no field: dkimpy refuses the block
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_LINE, max_size=12), st.sampled_from([b"\r\n", b"\n"]), st.one_of(st.none(), _VALUE))
def test_the_parse_reads_every_header_block_as_dkimpy_does(lines: list[bytes], eol: bytes, body: bytes | None) -> None:
    raw = eol.join(lines) + (eol + eol + body if body is not None else b"")

    def outcome(parse):
        try:
            return parse(raw)
        except Exception as exc:  # both refuse the same blocks (an IndexError or dkimpy's own error)
            return "refused", type(exc).__name__ in ("IndexError", "MessageFormatError")

    assert outcome(dkim._rfc822_parse) == outcome(dkim.DKIMPY_RFC822_PARSE)


def _folded(lines: int) -> bytes:
    return (
        b"From: Carol <c@x.org>\r\nTo: mod@example.org\r\nSubject: hi\r\nX-Junk: a\r\n"
        + b" \r\n" * lines
        + b"DKIM-Signature: v=1; a=rsa-sha256; d=x.org; s=s1; h=from:to; bh=; b=\r\n\r\nNO EVENT\r\n"
    )


def _cpu(fn, raw: bytes) -> float:
    spent = []
    for _ in range(3):  # the least of three: the machine is shared
        t = time.process_time()
        fn(raw)
        spent.append(time.process_time() - t)
    return min(spent)


def test_a_folded_header_costs_linear_time_and_a_huge_header_block_is_no_evidence() -> None:
    small, large = _folded(40_000), _folded(160_000)
    own = _cpu(dkim._rfc822_parse, large) / max(_cpu(dkim._rfc822_parse, small), 1e-3)
    theirs = _cpu(dkim.DKIMPY_RFC822_PARSE, large) / max(_cpu(dkim.DKIMPY_RFC822_PARSE, small), 1e-3)
    assert own <= 9, own  # four times the lines: linear is 4, quadratic 16
    assert theirs > 9, theirs  # the check can fail: dkimpy's own parse grows as the square
    assert dkim._signed_part(_folded(10)) is not None
    assert dkim._signed_part(large) is None and dkim.capture(large, dns=lambda *a, **k: None) is None

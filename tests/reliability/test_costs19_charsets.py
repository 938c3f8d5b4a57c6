"""A text's charset cannot make its reading cost more than its size (costs19).

pbem decodes a mail's text with the charset it names, and an encoded word of a header with its own.  The standard
library's punycode decoder inserts each character into a list, the square of the text: a 240 KB body labelled
`charset=punycode` took 3.8 s of the poll, and 2 MB (the most pbem parses) would take minutes; a 96 KB Subject of
one such encoded word 1.35 s, 15 times the fourth of it.  No mail client labels text so: at the poll such a body is
refused by that reason (send it again as UTF-8) and such an encoded word kept as written
(`pbem.orders.charsets.decodable`, which the poll and verify share); the stored copy's code search reads it as UTF-8 or Latin-1 (`redact`), and
`pbem verify` as UTF-8 with errors replaced (`pbem.orders.charsets.decodable`: `told.plain`, a Sent mail, DKIM
evidence).

The generator: every text codec Python has (111 text codecs of 120 names) as a body's charset and as a Subject's
encoded word, each on four shapes of bytes (a punycode-like run "x...x-9999", random bytes, ASCII words, "a." runs),
timed at n and 4n (`growth`: the repeated work is C's list insertion, which lines of Python do not count): 888
cases.  On e5c877a 2 of 888 grew as the square (punycode's body and Subject on "x...x-9999": 10.2 and 14.8 at 4x);
now 0 (100 s and 50 s for the whole run).  The suite runs punycode and four ordinary charsets on that shape;
`PBEM_COSTS19_FULL=1` runs all.
"""

from __future__ import annotations

import codecs
import encodings
import encodings.aliases
import functools
import os
import pkgutil
import random
from collections.abc import Callable

from pbem.mail.inbound.message import parse
from pbem.trust import told
from tests.growth import growth

N = 4_000
BOUND = 9.0  # at 4x: linear 4, the square 16
FULL = bool(os.environ.get("PBEM_COSTS19_FULL"))


def _text_codecs() -> list[str]:
    names = set(encodings.aliases.aliases.values()) | {m.name for m in pkgutil.iter_modules(encodings.__path__)}
    found = []
    for name in sorted(names - {"aliases"}):
        try:
            if codecs.lookup(name)._is_text_encoding:  # type: ignore[attr-defined]
                found.append(name)
        except LookupError:
            continue
    return found


SHAPES: dict[str, Callable[[int], bytes]] = {
    "x-99": lambda n: b"x" * n + b"-" + b"99" * n,
    "random": lambda n: random.Random(n).randbytes(3 * n),
    "ascii": lambda n: b"ab. " * n,
    "dots": lambda n: b"a." * n,
}
CHARSETS = _text_codecs() if FULL else ["punycode", "utf-8", "iso8859_1", "utf_7", "cp1252"]
CASES = [(c, s) for c in CHARSETS for s in (SHAPES if FULL else ["x-99"])]


def body(charset: str, data: bytes) -> bytes:
    head = f"From: a@x.org\r\nTo: p@y.org\r\nSubject: [pbem hh1]\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset={charset}\r\n\r\n"
    return head.encode() + data


def subject(charset: str, data: bytes) -> bytes:
    word = b"=?" + charset.encode() + b"?b?" + __import__("base64").b64encode(data) + b"?="
    return b"From: a@x.org\r\nTo: p@y.org\r\nSubject: " + word + b"\r\n\r\nPASS\r\n"


def _read(raw: bytes) -> None:
    parse(raw)
    told.plain(raw)


def test_no_charset_makes_a_texts_reading_grow_faster_than_its_size() -> None:
    square = []
    for charset, shape in CASES:
        for where, make in (("body", body), ("subject", subject)):
            g = growth(
                lambda k, c=charset, s=shape, m=make: functools.partial(_read, m(c, SHAPES[s](k))), N, bound=BOUND
            )
            if g.ratio > BOUND:
                square.append((charset, shape, where, round(g.ratio, 1)))
    assert not square, f"{len(square)} of {2 * len(CASES)} grew faster than their size: {square}"


def test_a_punycode_body_is_refused_by_name_its_word_kept_as_written_and_verify_reads_it_as_utf8() -> None:
    got = parse(body("punycode", b"PASS"))
    assert got.problem is not None and '"punycode" is no mail charset' in got.problem and "UTF-8" in got.problem
    word = parse(subject("PunyCode", b"x" * 3000)).subject  # (a long header: read in one pass, `words._linear`)
    assert word.startswith("=?PunyCode?b?"), word[:40]
    assert told.plain(body("punycode", b"PASS")).strip() == "PASS"

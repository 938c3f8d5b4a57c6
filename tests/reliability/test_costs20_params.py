"""A header's parameters cannot make a mail's reading cost more than its size (costs20).

pbem reads a part's parameters (its charset, format, delsp, disposition, filename, a container's boundary) with the
standard library's `email.message._parseparam`, which copies the rest of the header for each parameter and, while a
quote is open, counts the quotes from the header's start again at each ";": the square of the header.  The poll
read no header of parameters longer than 8,000 characters (`MAX_PARAMETER_FIELD`, costs5), but a mail may hold
many: a 1.9 MB mail of 240 parts, each a Content-Type of `p="` and 7,900 ";", cost the poll 22 s to read and 10.5 s
to store on 8080c21 (a plain mail of that size, 0.11 s), and anyone may send one.  `pbem verify --mail` read every
mail of the player's folder with no bound at all (`told.plain`): one Content-Type of 128 KB, 5.1 s; 32 MiB (the
most a mail of a folder may hold), days.  Now both read parameters in one pass (`pbem.orders.params`, read by both): 0.12 and 0.10 s for that mail, 0.07 s for that header.

The generator: seven shapes of a header's parameters (a quote left open before ";", the same folded, many
parameters, RFC 2231 pieces, empty parameters, escaped quotes, quoted ";" pairs) in three places (a text part's
Content-Type, its Content-Disposition, an attachment's Content-Type) of a mail of 16 parts, read by the poll
(`parse` and the stored copy, `storage.storable`: each header of n and 4n characters, under the 8,000) and by
`pbem verify --mail` (`told`'s plain and HTML text: n and 4n, no bound), timed (`growth`: the repeated work is C's
copying and counting, which lines of Python do not count): 42 cases.  On 8080c21 8 of 42 grew more than 9 times
at 4x (10.4 to 13.6: the open quote and the escaped quotes, in each place but the poll's disposition; the others'
square is C's copying, cheap at these sizes); now 0 (`PBEM_COSTS20_FULL=1`, 106 s on 8080c21, 10 s now).  The suite runs the open quote in each place for
each reader (6 cases), and holds both one-pass readers to the standard library's answers on random headers.
"""

from __future__ import annotations

import email.message
import functools
import os
import random

from pbem.mail.inbound import storage
from pbem.mail.inbound.message import parse
from pbem.trust import told
from tests.growth import growth

FULL = bool(os.environ.get("PBEM_COSTS20_FULL"))
BOUND = 9.0  # at 4x: linear 4, the square 16
PARTS = 16

SHAPES = {
    "a quote left open before ;": lambda n: 'p="' + ";" * n,
    "the same, folded": lambda n: 'p="' + ";\r\n " * (n // 4),
    "many parameters": lambda n: "; ".join(f"p{i}=v" for i in range(n // 7)),
    "RFC 2231 pieces": lambda n: "; ".join(f"filename*{i}*=a" for i in range(n // 16)),
    "empty parameters": lambda n: ";" * n,
    "escaped quotes": lambda n: 'p="' + '\\";' * (n // 3),
    "quoted ; pairs": lambda n: "; ".join('p=";"' for _ in range(n // 7)),
}
PLACES = {
    "a text part's Content-Type": lambda f: f"Content-Type: text/plain; charset=utf-8; {f}\r\n",
    "its Content-Disposition": lambda f: (
        f"Content-Type: text/plain; charset=utf-8\r\nContent-Disposition: inline; {f}\r\n"
    ),
    "an attachment's Content-Type": lambda f: (
        f"Content-Type: application/octet-stream; {f}\r\nContent-Disposition: attachment\r\n"
    ),
}
READERS = ("the poll", "verify --mail")
#: each header's characters at the smaller size: the poll's under its 8,000 at 4x; verify's has no bound
SIZES = {"the poll": 1_900, "verify --mail": 4_000}


def mail(place: str, field: str) -> bytes:
    """A mail of `PARTS` parts, each headed by `field` in `place`, the last one's text an order."""
    head = "From: Mallory <m@evil.example>\r\nTo: gm@pbem.example\r\nSubject: [pbem hh1] orders\r\n"
    head += 'Message-ID: <p@evil.example>\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n'
    part = "--b\r\n" + PLACES[place](field) + "\r\n\r\n"
    return (head + part * (PARTS - 1) + "--b\r\nContent-Type: text/plain\r\n\r\nPASS\r\n--b--\r\n").encode()


def _read(reader: str, raw: bytes) -> None:
    if reader == "the poll":
        parse(raw)
        storage.storable(raw, 2_000_000)
    else:
        told._parse(raw, "text/plain")  # (told.plain remembers a mail's text by its digest: read it afresh)
        told._parse(raw, "text/html")


CASES = [(s, p, r) for s in (SHAPES if FULL else ["a quote left open before ;"]) for p in PLACES for r in READERS]


def test_no_header_of_parameters_makes_a_mails_reading_grow_faster_than_its_size() -> None:
    square = []
    for shape, place, reader in CASES:
        g = growth(
            lambda k, s=shape, p=place, r=reader: functools.partial(_read, r, mail(p, SHAPES[s](k))),
            SIZES[reader],
            bound=BOUND,
        )
        if g.ratio > BOUND:
            square.append((shape, place, reader, round(g.ratio, 1)))
    assert not square, f"{len(square)} of {len(CASES)} grew faster than their size: {square}"


def test_a_long_header_of_parameters_is_still_refused_at_the_poll_and_its_mail_read_by_verify() -> None:
    head = 'From: m@evil.example\r\nSubject: [pbem hh1]\r\nContent-Type: text/plain; charset=utf-8; p="'
    raw = (head + ";" * 9_000 + "\r\n\r\nPASS\r\n").encode()
    assert "its Content-Type header is 9030 characters long; at most 8000 are read" in (parse(raw).problem or "")
    assert told.plain(raw).strip() == "PASS"


ALPHABET = ('"', "\\", ";", "=", " ", "a", "*", '\\"', '";', ';"', '=";', '\\\\"', "\t", "\r\n ", "é")


def test_the_one_pass_reader_cuts_the_parameters_as_the_standard_library() -> None:
    """Random headers of the characters that matter to the cut; 10,000 in the suite (0 differ), 1,000,000 with
    `PBEM_COSTS20_FULL=1` (0 differ)."""
    from pbem.orders.params import split

    rng = random.Random(20)
    differ = []
    for _ in range(1_000_000 if FULL else 10_000):
        value = "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(40)))
        want = email.message._parseparam(value)  # type: ignore[attr-defined]
        if split(value) != want:
            differ.append(value)
    assert not differ, f"{len(differ)} differ: {differ[:3]!r}"

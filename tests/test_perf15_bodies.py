"""`bodies._headers`' plain reading (`_Head`, perf15) answers what `email.message.Message` answers.

A reply's reading parses the mail it answers back to its texts; `_Head` reads the Content-Type parameters of the
form pbem writes without `email.message`'s parameter parser.  Here, generated header blocks (the types and
parameters pbem writes, and the forms `_Head` must leave to `Message`: quotes and backslashes in values, RFC 2231
names, ";" inside quotes, "<...>" values, blanks, folded lines, other cases, no Content-Type) are read both ways,
and every question `_walk` asks gets the same answer.  On e5c877a `_headers` always made a `Message` (none of the
generated blocks fails there); a `_Head` that let "*" into a name fails 214 of the 20,000, one that let "<" and ">" into a value 39
(`PERF15_BODIES_ALL=1`: 20,000 blocks; the suite reads 1,000).
"""

from __future__ import annotations

import os
import random
from email.parser import BytesHeaderParser
from email.policy import compat32

from pbem.mail.outbound import bodies

CASES = 20_000 if os.environ.get("PERF15_BODIES_ALL") else 1_000
TYPES = [
    "text/plain",
    "text/html",
    "multipart/alternative",
    "multipart/related",
    "image/png",
    "TEXT/Plain",
    "text",
    "a/b/c",
    "message/rfc822",
    " text/plain ",
    "text/plain=x",
    '"text/plain"',
]
NAMES = ["charset", "boundary", "name", "CHARSET", "Boundary", "charset*", "boundary*0", "format", "charset "]
VALUES = [
    "utf-8",
    "=_pbem_0123abcd",
    "=_pbem_0123abcd_r",
    "ASCII",
    "x y",
    'a"b',
    "a\\b",
    "a;b",
    "<id>",
    "",
    "  ",
    "utf-8 ",
    "us-ascii''%e2%82%ac",
    "v=1",
]


def _param(rng: random.Random) -> str:
    name, value = rng.choice(NAMES), rng.choice(VALUES)
    sep = rng.choice([";", "; ", ";\t", " ; ", ";\n "])
    quoted = rng.random() < 0.7
    shown = '"' + value + '"' if quoted else value
    return f"{sep}{name}{rng.choice(['=', '=', ' = ', '= '])}{shown}{rng.choice(['', '', ' '])}"


def _block(rng: random.Random) -> bytes:
    lines = []
    if rng.random() < 0.92:
        kind = rng.choice(TYPES) + "".join(_param(rng) for _ in range(rng.randint(0, 3)))
        lines.append(f"{rng.choice(['Content-Type', 'content-type', 'CONTENT-TYPE'])}: {kind}")
    if rng.random() < 0.5:
        lines.append(
            f"Content-Transfer-Encoding: {rng.choice(['quoted-printable', 'base64', ' 7bit', 'QUOTED-PRINTABLE'])}"
        )
    if rng.random() < 0.3:
        lines.append(
            f"Content-Disposition: {rng.choice(['inline', 'attachment', 'Attachment; filename=a.png', ' inline '])}"
        )
    if rng.random() < 0.2:
        lines.append("Content-Type: text/html")  # a second one: the first counts
    rng.shuffle(lines)
    return ("\n".join(lines) + "\n\n").encode("ascii", "replace")


def _answers(head: object) -> tuple[object, ...]:
    h: object = head
    return (
        h.get_content_type(),  # type: ignore[attr-defined]
        h.get_content_maintype(),  # type: ignore[attr-defined]
        h.get_boundary(),  # type: ignore[attr-defined]
        h.get_param("charset", "ASCII"),  # type: ignore[attr-defined]
        h.get_param("name"),  # type: ignore[attr-defined]
        h.get_content_disposition(),  # type: ignore[attr-defined]
        str(h.get("content-transfer-encoding", "")),  # type: ignore[attr-defined]
    )


def failures(cases: int, seed: int = 15) -> tuple[int, int]:
    """(blocks read differently, blocks `_Head` read)."""
    rng = random.Random(seed)
    bad = plain = 0
    for _ in range(cases):
        block = _block(rng)
        head = bodies._headers(block)
        plain += isinstance(head, bodies._Head)
        bad += _answers(head) != _answers(BytesHeaderParser(policy=compat32).parsebytes(block))
    return bad, plain


def test_plain_headers_read_as_the_parser_reads_them() -> None:
    bad, plain = failures(CASES)
    assert bad == 0
    assert plain > CASES // 4  # the plain reading is taken, not only the fall-back


def test_pbems_own_parts_take_the_plain_reading() -> None:
    for block in (
        b'Content-Type: multipart/alternative; boundary="=_pbem_0123abcd"\n\n',
        b'Content-Type: text/plain; charset="utf-8"\nContent-Transfer-Encoding: quoted-printable\n\n',
        b'Content-Type: image/png; name="board.png"\nContent-Transfer-Encoding: base64\n'
        b'Content-ID: <board@pbem>\nContent-Disposition: inline; filename="board.png"\n\n',
    ):
        head = bodies._headers(block)
        assert isinstance(head, bodies._Head)
        assert _answers(head) == _answers(BytesHeaderParser(policy=compat32).parsebytes(block))

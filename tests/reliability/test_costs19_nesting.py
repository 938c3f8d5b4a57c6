"""A mail nesting forwarded mails (`message/rfc822` parts) deeper than any client: set aside and told (costs19).

The standard library's parser reads a `message/` part by calling itself, a level a part: about 1,000 of them nested
(40 KB, no boundary, so under the parts' cap) raised RecursionError.  In a `pbem verify --mail` folder that ended
the command in a traceback once the mail carried pbem's headers (a report's, its body replaced: `told.plain` read
it); at the poll it was told "the message structure is broken", and 100 to 900 of them "no text part", after
parsing at depth times lines (11 ms for 26 KB at 600).  Now a mail declaring more than 64 containers (a boundary,
or a `message/` part) is not parsed: the poll tells its sender it nests too deep, `pbem verify` sets it aside and
says so (`receipts.read_folder`), and the DKIM evidence re-checked of such a mail fails with that reason.

The generator: nestings of `message/rfc822`, `message/global`, forwarded mails inside multipart/mixed and both by
turns, in four spellings of the header (lower and upper case, folded, a space before the colon, which the parser
does not read as a Content-Type), at depths 100, 1,000 and 3,000: 48 cases.  On e5c877a 24 of 48 raised
RecursionError out of `told.plain` (each kind at 1,000 and 3,000 in the three spellings the parser reads), and 28 of
48 were told at the poll as something else than too deep (every `message/` nesting, and the nesting by turns at
100); now 0 and 0, and `read_folder` sets every one aside.  The suite runs 12 of them (depth 1,000, every kind,
three spellings); `PBEM_COSTS19_FULL=1` all 48.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest

from pbem.mail.inbound.message import parse
from pbem.trust import told
from pbem.trust.receipts import read_folder

HEAD = b"From: Mallory <m@evil.example>\r\nTo: alice@players.example\r\nSubject: [pbem hh1] hi\r\nMessage-ID: <n@x>\r\n"
SPELLINGS = (b"Content-Type: %s", b"CONTENT-TYPE: %s", b"Content-Type:\r\n\t%s", b"content-type :  %s")


def _level(kind: str, spelling: bytes, k: int, inner: bytes) -> bytes:
    """`inner` (a part: its headers and body) wrapped once."""
    if kind == "mixed" or (kind == "by turns" and k % 2):
        b = b"b%d" % k
        return (
            (spelling % b'multipart/mixed; boundary="' + b + b'"')
            + b"\r\n\r\n--"
            + b
            + b"\r\n"
            + _level("rfc822", spelling, k, inner)
            + b"\r\n--"
            + b
            + b"--\r\n"
        )
    sub = b"message/global" if kind == "global" else b"message/rfc822"
    return (spelling % sub) + b"\r\n\r\nSubject: x\r\n" + inner


def nested(kind: str, spelling: bytes, depth: int) -> bytes:
    inner = b"Content-Type: text/plain\r\n\r\nPASS\r\n"
    for k in range(depth):
        inner = _level(kind, spelling, k, inner)
    return HEAD + b"MIME-Version: 1.0\r\n" + inner


KINDS = ("rfc822", "global", "mixed", "by turns")
FULL = bool(os.environ.get("PBEM_COSTS19_FULL"))
CASES = list(itertools.product(KINDS, SPELLINGS if FULL else SPELLINGS[:3], (100, 1000, 3000) if FULL else (1000,)))


def test_every_nesting_is_set_aside_and_told_never_a_recursion_error(tmp_path: Path) -> None:
    raised, untold = [], []
    for n, (kind, spelling, depth) in enumerate(CASES):
        raw = nested(kind, spelling, depth)
        try:
            told.plain(raw)  # what `pbem verify --mail` reads of a mail that carries pbem's headers
        except RecursionError:
            raised.append((kind, spelling, depth))
        problem = parse(raw).problem or ""
        if "nests more than" not in problem:
            untold.append((kind, spelling, depth, problem))
        (tmp_path / f"{n}.eml").write_bytes(raw)
    set_aside: list[str] = []
    kept = read_folder(tmp_path, set_aside)
    assert not raised, f"{len(raised)} of {len(CASES)} raised RecursionError: {raised[:3]}"
    assert not untold, f"{len(untold)} of {len(CASES)} told otherwise at the poll: {untold[:3]}"
    assert not kept and len(set_aside) == len(CASES), (len(kept), set_aside[:2])
    assert "multipart or message parts" in set_aside[0], set_aside[0]


@pytest.mark.parametrize("depth", [1, 3])
def test_a_forward_of_a_forward_is_read(depth: int) -> None:
    """A mail client's forward as attachment, and of one: read at the poll and kept by `pbem verify`."""
    raw = b"Content-Type: multipart/mixed; boundary=o\r\n\r\n--o\r\nContent-Type: text/plain\r\n\r\nPASS\r\n--o\r\n"
    raw += nested("rfc822", SPELLINGS[0], depth)[len(HEAD) :] + b"\r\n--o--\r\n"
    got = parse(HEAD + raw)
    assert got.problem is None and got.text.startswith("PASS"), got.problem

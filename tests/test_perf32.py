"""perf32 (issue 27): the Subject of a mail pbem wrote read from its header block alone.

A reply's reading asks for the title of the report it answers (`reading.pbems_title`, `reading.answered_title`:
is a subject line of the reply only the report's title?).  `reading._subject` read that Subject with the whole
`message.parse`: the bytes hashed (SHA-256), the sender's identity and the auto-reply headers read, and for a
multipart report the standard parser compiled a pattern for its boundary, a new one for every mail (pbem's
boundaries are made from the Message-ID, so no cache of the `re` module holds one).  In a poll of replies that was
0.24 to 0.36 ms of the poll's thread a reply (2 to 3% of it) to decode one header; the header block parsed as
headers (`message.subject_of`) costs about a fifth of it.

Generated: mails as `compose.compose` writes them (plain or with an HTML part and pictures, subjects short, long
and folded, non-ASCII, holding "=?" or blanks; References short or long; line breaks LF or CRLF).  Each must read
the same Subject as the whole parse of its header block gives (the reading at 8aa88d6c), and its reading may
compile no pattern, hash no bytes and read no sender.  8aa88d6c fails every generated mail (the suite's 24 and the
full 300, `PBEM_PERF32_FULL=1`: each one hashed and its sender read, the multipart ones a boundary compiled), this
branch none.  Counted with any checkout's pbem: `PYTHONPATH=CHECKOUT python3 tests/test_perf32.py 300`.
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from pbem.app import reading
from pbem.mail.inbound import message
from pbem.mail.outbound import compose
from pbem.mail.outbound.compose import Body, Envelope

FULL = os.environ.get("PBEM_PERF32_FULL") == "1"
WHEN = datetime(2026, 12, 7, 8, 0, tzinfo=UTC)
_SUBJECTS = [
    "Turn 3, Alice to play",
    "Habsburg g1: the Diet of Worms, your move",
    "Österreich: Maria Theresa's turn",
    "第三回合 轮到你了",
    "Re: =?utf-8?q?not_an_encoded_word?= really",
    "  blanks at either end  ",
    "a\ttab, and; semicolons, commas",
    "Reminder 🕰 the deadline is near",
]


def _subject(rng: random.Random) -> str:
    """A subject as a report's: one or more pieces of the pool, long ones folded by `compose.header`."""
    return f"[pbem g{rng.randrange(100)}] " + " ".join(rng.choice(_SUBJECTS) for _ in range(rng.randrange(1, 5)))


def mail(rng: random.Random) -> bytes:
    """A mail as pbem writes a report, its line breaks LF (as queued) or CRLF (as sent)."""
    n = rng.randrange(10**6)
    refs = tuple(f"<r{k}.{n}@pbem.test>" for k in range(rng.randrange(0, 30)))
    env = Envelope(
        "moderator@perf32.test",
        rng.choice(["Moderator", "Modérateur", "The Diet"]),
        f"p{n}@perf32.test",
        rng.choice(["Alice", "Zoë", "李"]),
        f"<m{n}@perf32.test>",
        WHEN + timedelta(minutes=n),
        in_reply_to=refs[-1] if refs else None,
        references=refs,
        extra=(("X-Pbem-Record", f"g1 {n} " + "ab" * rng.randrange(1, 60)),),
    )
    kind = rng.randrange(3)
    html = None if kind == 0 else "<p>Your move.</p>"
    images = (("c1@pbem", b"\x89PNG" + bytes(rng.randrange(256) for _ in range(64))),) if kind == 2 else ()
    raw = compose.compose(env, Body(_subject(rng), "Your move.\n", html, images))
    return raw.replace(b"\n", b"\r\n") if rng.random() < 0.5 else raw


def _whole(raw: bytes) -> str:
    """The Subject as 8aa88d6c read it: the whole parse of the header block."""
    cut = min((i for i in (raw.find(b"\r\n\r\n"), raw.find(b"\n\n")) if i >= 0), default=len(raw))
    return message.parse(raw[:cut] + b"\r\n\r\n").subject


@contextmanager
def _counted() -> Iterator[Counter[str]]:
    """The work a reading of one header does not need, counted: patterns compiled, bytes hashed, senders read."""
    seen: Counter[str] = Counter()
    saved = re.compile, hashlib.sha256, message.identify

    def counting(name: str, f: Callable[..., Any]) -> Callable[..., Any]:
        def call(*a: Any, **k: Any) -> Any:
            seen[name] += 1
            return f(*a, **k)

        return call

    re.compile = counting("pattern compiled", saved[0])  # type: ignore[assignment]
    hashlib.sha256 = counting("bytes hashed", saved[1])
    message.identify = counting("sender read", saved[2])
    try:
        yield seen
    finally:
        re.compile, hashlib.sha256, message.identify = saved  # type: ignore[assignment]


def failures(cases: int, seed: int = 32) -> list[str]:
    """The generated mails whose Subject reads otherwise than the whole parse's, or whose reading did more."""
    rng = random.Random(seed)
    out = []
    for i in range(cases):
        raw = mail(rng)
        want = _whole(raw)
        with _counted() as seen:
            got = reading._subject(raw)
        if got != want or seen:
            out.append(f"mail {i}: {got!r} (want {want!r}), {dict(seen)}")
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_subject_read_from_the_header_block_alone(seed: int) -> None:
    found = failures(300 if FULL else 8, seed)
    assert not found, found[:3]


def test_subject_of_reads_as_parse_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """Header blocks `parse` reads in its own ways: raw 8-bit bytes, an encoded word, none, one over its size (the
    size made small: both read it from the module)."""
    monkeypatch.setattr(message, "MAX_RAW_BYTES", 4_000)
    for head in (
        "Subject: Zo\u00eb\r\n\r\n".encode(),
        "Subject: Zo\u00eb\r\n\r\n".encode("cp1252"),
        b"Subject: =?utf-8?b?w5ZzdGVycmVpY2g=?=\r\n\r\n",
        b"From: a@b.test\r\n\r\n",
        b"Subject: x\r\nContent-Type: multipart/mixed; boundary=" + b"a" * 9_000 + b"\r\n\r\n",
        b"Subject: " + b"w " * 3_000 + b"\r\n\r\n",
        b"Subject: " + b"w " * 40_000 + b"\r\n\r\n",
    ):
        assert message.subject_of(head) == message.parse(head).subject


if __name__ == "__main__":  # any checkout's count: PYTHONPATH=CHECKOUT python3 tests/test_perf32.py [cases]
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    found = failures(n)
    print(f"{len(found)} of {n} generated mails read otherwise or with more work than one header needs")
    print("\n".join(found[:3]))


_IMPORTS = r"""
import random, sys
import pbem.cli, pbem.cli.poll, pbem.app.cron, pbem.app.poll, pbem.app.ahead, pbem.app.vouch
import pbem.mail.transports.maildir, pbem.mail.transports.imap, pbem.mail.transports.smtp
from pbem.mail.inbound import message
from pbem.trust import dkim
sys.path.insert(0, sys.argv[1])
import test_perf32 as t
rng, unused = random.Random(int(sys.argv[2])), []
for i in range(int(sys.argv[3])):
    raw = t.mail(rng)  # a mail with no DKIM-Signature, read as a reply is, its evidence sought
    assert message.parse(raw).subject and dkim.capture(raw, dns=lambda name, timeout: None) is None
    unused += [f"mail {i}: {m}" for m in ("dkim", "dns") if m in sys.modules]
signed = b"DKIM-Signature: v=1; a=rsa-sha256; d=x.test; s=s1; h=from; bh=AA==; b=AA==\r\n" + t.mail(rng)
ev = dkim.capture(signed, dns=lambda name, timeout: None)
assert ev is not None and not ev.verified and "dkim" in sys.modules  # imported where a signature needs it
print("\n".join(unused))
"""


def unused_imports(seed: int, cases: int) -> list[str]:
    """A fresh interpreter imports what `pbem poll` imports, then reads generated mails with no DKIM-Signature as a
    poll reads a reply (parsed, its evidence sought): dkimpy and the DNS package it imports (50 to 130 ms of every
    process's start) must stay unimported until a mail carries a signature.  8aa88d6c imported both at start."""
    here = str(Path(__file__).resolve().parent)
    run = subprocess.run([sys.executable, "-c", _IMPORTS, here, str(seed), str(cases)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout.strip().splitlines()


def test_a_poll_of_unsigned_replies_imports_no_dkim() -> None:
    found = unused_imports(5, 40 if FULL else 4)
    assert not found, found[:4]

"""perf30 (issue 27): a poll's quoted-printable lines encoded once, and a redacted mail's plain headers not folded again.

1. `compose.quoted_printable`: `binascii.b2a_qp` read every byte of every report at some 80 instructions a byte
   (1.6 M of a reply's 40.5 M instructions); 92% of the lines of a poll's reports, 78% of their bytes, were encoded
   before in the same poll (the HTML part's markup, the orders' syntax, the legal orders).  Generated: batches of
   texts drawn from a pool of lines shared between the batch's texts (markup, long paragraphs that need soft line
   breaks, "=" and UTF-8, blanks at a line's end, a lone ".", control characters, a CR), each composed as a mail's
   plain and HTML parts; the bytes `b2a_qp` is given are counted, and may be at most the bytes of the batch's distinct
   lines.  90a53973 fails 22 of the suite's 24 batches (the full run, `PBEM_PERF30_FULL=1`: 375 of 400; the others
   repeat no line), this branch none (0 of 400).  Counted with any checkout's pbem:
   `PYTHONPATH=CHECKOUT python3 tests/test_perf30.py 400`.  The encodings themselves are held equal to `b2a_qp`'s of the whole text on every generated text (and with the
   remembered lines dropped halfway through a batch).

2. `redact._COMPAT32`: the generator of a redacted mail folded each of its headers again through
   `email.header.Header` (a third of a code mail's redaction: the parse and redaction of the 240 code mails of
   `instructions.py --build ... --population code`, 2.23 M -> 1.62 M instructions a mail, 1.9% of a code mail).  Generated code mails (single part or multipart, a
   code in the body, the subject, an encoded subject, long References): the `Header.encode` calls their redaction
   makes are counted; a mail whose headers are all printable ASCII fitting one line may make none.  90a53973 fails
   12 of 12 (full run: 200 of 200), this branch none.  Generated header values (spaces at either end, tabs, long
   words, non-ASCII, encoded words, semicolons) are folded alike by both policies, and every generated mail is
   redacted to the same bytes by both.
"""

from __future__ import annotations

import binascii
import os
import random
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from email.header import Header
from email.policy import compat32
from typing import Any

from pbem.mail.inbound import redact
from pbem.mail.outbound import compose
from pbem.mail.outbound.compose import Body, Envelope

FULL = os.environ.get("PBEM_PERF30_FULL") == "1"
WHEN = datetime(2026, 12, 7, 8, 0, tzinfo=UTC)
_WORDS = ["NO", "EVENT", "PASS", "Maria", "Theresa", "Österreich", "=", "x=3", "<td", 'style="a:b">', "é", "…", "."]


def _line(rng: random.Random) -> str:
    """One generated line: markup, prose, a long paragraph, blanks at its end, a lone ".", control characters."""
    kind = rng.randrange(10)
    if kind == 0:
        return ""
    if kind == 1:
        return "."
    if kind == 2:
        return " " * rng.randrange(1, 4) + rng.choice(["", "\t"])
    if kind == 3:  # a long paragraph: soft line breaks, an escape near the 76th column
        return " ".join(rng.choice(_WORDS) for _ in range(rng.randrange(12, 60)))
    if kind == 4:  # exactly around the limit
        n = rng.randrange(70, 80)
        return "".join(rng.choice("ab=é ") for _ in range(n))
    if kind == 5:
        return "".join(chr(rng.randrange(0, 32)) if rng.random() < 0.2 else "x" for _ in range(rng.randrange(1, 30)))
    words = " ".join(rng.choice(_WORDS) for _ in range(rng.randrange(1, 9)))
    return words + rng.choice(["", " ", "\t", "=", "  "])


def _texts(rng: random.Random, n: int) -> list[str]:
    """`n` texts sharing lines: each drawn from a pool of the batch's, a third of its lines its own; one in eight
    with a CR (left to `b2a_qp` whole)."""
    pool = [_line(rng) for _ in range(rng.randrange(5, 40))]
    out = []
    for _ in range(n):
        lines = [rng.choice(pool) if rng.random() < 0.66 else _line(rng) for _ in range(rng.randrange(1, 60))]
        text = "\n".join(lines) + rng.choice(["", "\n"])
        out.append(text.replace("\n", "\r\n", 1) if rng.random() < 0.125 else text)
    return out


@contextmanager
def _counted_qp() -> Iterator[list[int]]:
    """The bytes `compose` gives `binascii.b2a_qp`, counted (the module's `binascii` replaced while inside)."""
    given = [0]
    real = binascii.b2a_qp

    class Counted:
        def __getattr__(self, name: str) -> Any:
            return getattr(binascii, name)

        @staticmethod
        def b2a_qp(data: bytes, *args: Any, **kw: Any) -> bytes:
            given[0] += len(data)
            return real(data, *args, **kw)

    saved = vars(compose)["binascii"]
    setattr(compose, "binascii", Counted())  # noqa: B010 (the module's own name, replaced while inside)
    try:
        yield given
    finally:
        setattr(compose, "binascii", saved)  # noqa: B010


def _fresh() -> None:
    """No line remembered from an earlier test (as at the start of a poll)."""
    lines = getattr(compose, "_qp_lines", None)
    if lines is not None:
        lines.clear()
        compose._qp_held[0] = 0


def _mail(text: str, html: str) -> bytes:
    env = Envelope("moderator@perf30.test", "Moderator", "alice@perf30.test", "Alice", "<m@perf30.test>", WHEN)
    return compose.compose(env, Body("Turn 3", text, html))


def _bound(texts: list[str]) -> int:
    """The bytes of the batch's distinct lines, each with its line break: what encoding each line once reads."""
    seen: set[bytes] = set()
    total = 0
    for t in texts:
        data = t.encode("utf-8")
        data += b"" if data.endswith(b"\n") else b"\n"  # as `compose` ends it
        if b"\r" in data:  # left to b2a_qp whole
            total += len(data) + 1
            continue
        for line in data.split(b"\n"):
            if line not in seen:
                seen.add(line)
                total += len(line) + 1
    return total


def batch_fails(seed: int) -> bool:
    """Whether composing a generated batch gave `b2a_qp` more than the bytes of its distinct lines."""
    rng = random.Random(seed)
    texts = _texts(rng, rng.randrange(2, 12))
    _fresh()
    with _counted_qp() as given:
        for i in range(0, len(texts) - 1, 2):
            _mail(texts[i], texts[i + 1])
    pairs = texts[: len(texts) // 2 * 2]
    return given[0] > _bound(pairs)


def test_each_line_encoded_once_a_poll() -> None:
    failed = [s for s in range(400 if FULL else 24) if batch_fails(s)]
    assert not failed, f"{len(failed)} batches encoded lines again (seeds {failed[:10]})"


def test_encoding_is_b2a_qp_of_the_whole_text() -> None:
    """Every generated text encodes as `b2a_qp` encodes it whole, with the lines remembered or not (dropped
    halfway through a batch: a bound of a few hundred bytes)."""
    budget = compose.QP_LINES_BYTES
    try:
        for seed in range(300 if FULL else 40):
            rng = random.Random(10_000 + seed)
            _fresh()
            compose.QP_LINES_BYTES = rng.choice([budget, 300, 2000])
            for text in _texts(rng, 8):
                data = text.encode("utf-8")
                if not data.endswith(b"\n"):
                    data += b"\n"
                assert compose.quoted_printable(data) == binascii.b2a_qp(data, istext=True), (seed, text)
            assert compose._qp_held[0] <= compose.QP_LINES_BYTES
        odd = [b"", b"x", b"a \nb", b"tail ", b"tail\t", b".", b"\r\n.\r\n", b"a\r\nb\n"]
        for data in odd:  # not ending with a line break, or a CR: `b2a_qp` itself
            assert compose.quoted_printable(data) == binascii.b2a_qp(data, istext=True)
    finally:
        compose.QP_LINES_BYTES = budget
        _fresh()


# --- 2. a redacted mail's headers ---------------------------------------------------------------------------------


def _value(rng: random.Random) -> str:
    kind = rng.randrange(8)
    if kind == 0:
        return " ".join(f"<{rng.getrandbits(64):x}@example.test>" for _ in range(rng.randrange(1, 6)))
    if kind == 1:
        return "=?utf-8?q?Caf=C3=A9?= " + rng.choice(["orders", "code ALIC-2222"])
    if kind == 2:
        return "Ré: [pbem g1] ordres"
    alphabet = "abcXYZ019 ;,:=?<>@\"()[].-_'/" + "  \t"
    return "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 95)))


def test_plain_headers_fold_as_compat32() -> None:
    rng = random.Random(30)
    names = ["Subject", "From", "To", "References", "X-Mailer", "Message-ID", "Content-Type", "X-A-Long-Name-Here"]
    for _ in range(20_000 if FULL else 1_500):
        name, value = rng.choice(names), _value(rng)
        assert redact._COMPAT32.fold_binary(name, value) == compat32.fold_binary(name, value), (name, value)


def _code_mail(rng: random.Random, i: int) -> bytes:
    code = f"ALIC-{rng.randrange(1000, 9999)}"
    subject = rng.choice([f"Re: [pbem g{i}] orders", f"[pbem g{i}] code {code}", "=?utf-8?q?R=C3=A9?= [pbem g1]"])
    refs = " ".join(f"<pbem.{rng.getrandbits(96):x}@bench.test>" for _ in range(rng.randrange(0, 4)))
    head = (
        f"From: Alice <alice@bench.test>\nTo: moderator@bench.test\nSubject: {subject}\n"
        f"Message-ID: <bench.{i}@players.bench.test>\nDate: Mon, 07 Dec 2026 08:00:00 +0000\n"
        + (f"References: {refs}\n" if refs else "")
        + "MIME-Version: 1.0\n"
    )
    body = f"CODE {code}\nEVENT CLAIM Marry Well TARGET Bob\n\n-- \nbot\n"
    if rng.random() < 0.5:
        return (head + 'Content-Type: text/plain; charset="utf-8"\nContent-Transfer-Encoding: 7bit\n\n' + body).encode()
    html = f"<p>CODE {code}</p><p>EVENT CLAIM Marry Well TARGET Bob</p>"
    return (
        head + 'Content-Type: multipart/alternative; boundary="b1"\n\n--b1\n'
        'Content-Type: text/plain; charset="utf-8"\n\n'
        + body
        + '--b1\nContent-Type: text/html; charset="utf-8"\n\n'
        + html
        + "\n--b1--\n"
    ).encode()


def _plain_headers(raw: bytes) -> bool:
    """Whether every header of `raw` (and of its parts) is printable ASCII on one line of at most 78 characters."""
    lines = [ln for block in raw.split(b"\n\n") for ln in block.split(b"\n") if b": " in ln]
    heads = [ln for ln in lines if ln[:1].isalpha() and b":" in ln.split(b" ")[0]]
    return all(len(h) <= 78 and h.decode("latin-1").isprintable() and h.isascii() for h in heads)


def mail_fails(seed: int) -> bool:
    """Whether redacting a generated code mail whose headers are all plain folded one of them again."""
    rng = random.Random(seed)
    raw = _code_mail(rng, seed)
    while not _plain_headers(raw):
        raw = _code_mail(rng, seed)
    folded = [0]
    real = Header.encode

    def counted(self: Header, *args: Any, **kw: Any) -> str:
        folded[0] += 1
        return real(self, *args, **kw)

    Header.encode = counted  # type: ignore[method-assign]
    try:
        codes, out = redact.find_and_redact(raw)
    finally:
        Header.encode = real  # type: ignore[method-assign]
    assert codes and out != raw
    return folded[0] > 0


def test_plain_headers_not_folded_again() -> None:
    failed = [s for s in range(200 if FULL else 12) if mail_fails(s)]
    assert not failed, f"{len(failed)} redactions folded plain headers again (seeds {failed[:10]})"


def test_redacted_bytes_unchanged() -> None:
    """Each generated code mail is redacted to the bytes compat32's own folding gives."""
    rng = random.Random(31)
    saved = redact._COMPAT32
    for i in range(400 if FULL else 30):
        raw = _code_mail(rng, i)
        new = redact.find_and_redact(raw)[1]
        redact._COMPAT32 = compat32  # type: ignore[assignment]
        try:
            old = redact.find_and_redact(raw)[1]
        finally:
            redact._COMPAT32 = saved
        assert new == old, raw


if __name__ == "__main__":  # the counts on any checkout: PYTHONPATH=CHECKOUT python3 tests/test_perf30.py 400
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    qp = sum(batch_fails(s) for s in range(n))
    heads = sum(mail_fails(s) for s in range(n // 2))
    print(f"quoted-printable batches encoding lines again: {qp} of {n}")
    print(f"redactions folding plain headers again: {heads} of {n // 2}")

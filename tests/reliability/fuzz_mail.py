"""A mail fuzzer: real mails mutated the ways mail breaks or is broken on purpose.

Seeds are the hand-written hostile corpus, the golden mails of the parser
tests and a few client-shaped multipart mails.  Each mutant gets one to four
mutations, drawn from a seeded generator (so a run is reproducible):

* charsets: every codec name Python knows (`encodings.aliases` and the
  modules of the `encodings` package), unknown and empty names, RFC 2231
  `charset*=` parameters, RFC 2047 encoded words in any of those charsets;
* transfer encodings: base64, quoted-printable, x-uuencode, binary, unknown,
  with broken padding, stray `=` escapes and mislabelled bodies;
* boundaries: removed, changed, duplicated, empty, unterminated, huge;
* nesting depth: the message wrapped in up to a few hundred multiparts;
* headers: dropped, duplicated, folded oddly, without a colon, huge;
* bytes: NUL and 8-bit bytes anywhere, CR/LF mixes, truncation anywhere.

`mutants(n, seed)` is shared by the default-suite test
(`test_fuzz_mail.py`) and the script `benchmarks/fuzz_mail.py`, which runs
it at any size and prints the figures.
"""

from __future__ import annotations

import base64
import encodings
import encodings.aliases
import pkgutil
import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED_FILES = sorted((HERE / "corpus").glob("*.eml")) + sorted((HERE.parent / "golden" / "mail").glob("*.eml"))


def codec_names() -> list[str]:
    """Every codec name this Python knows: the alias table (both sides) and the encodings package's modules."""
    names = set(encodings.aliases.aliases) | set(encodings.aliases.aliases.values())
    names |= {m.name for m in pkgutil.iter_modules(encodings.__path__) if not m.name.startswith("_")}
    return sorted(names)


CHARSETS = [*codec_names(), "", "x-unknown", "utf-8'en'", '"', "utf\x00-8", "é", "a" * 300, "idna", "undefined"]
ENCODINGS = ["base64", "quoted-printable", "x-uuencode", "uuencode", "binary", "8bit", "7bit", "x-gzip", "", "b64\x00"]


def _client_mails() -> list[bytes]:
    """Multipart mails shaped like a real client's, with a code and an order."""
    text = "CODE ALCE-2345\nNO EVENT\n\n> On Monday the moderator wrote:\n> CODE ALCE-2345\n-- \nAlice\n"
    b64 = base64.encodebytes(text.encode("utf-8")).decode()
    return [
        (
            "From: Alice <alice@players.test>\nTo: moderator@pbem.test\nSubject: Re: [pbem hh] orders\n"
            "Message-ID: <client-1@players.test>\nMIME-Version: 1.0\n"
            'Content-Type: multipart/alternative; boundary="alt"\n\n--alt\n'
            "Content-Type: text/plain; charset=iso-8859-1\nContent-Transfer-Encoding: quoted-printable\n\n"
            "CODE ALCE-2345\nNO EVENT caf=E9\n--alt\nContent-Type: text/html; charset=utf-8\n"
            f"Content-Transfer-Encoding: base64\n\n{b64}\n--alt--\n"
        ).encode(),
        (
            "From: =?utf-8?q?Bob_=C3=A9?= <bob@players.test>\nTo: moderator@pbem.test\n"
            "Subject: =?utf-8?b?W3BiZW0gaGhdIG9yZGVycw==?=\nMessage-ID: <client-2@players.test>\nMIME-Version: 1.0\n"
            'Content-Type: multipart/mixed; boundary="mix"\n\n--mix\n'
            'Content-Type: multipart/alternative; boundary="alt2"\n\n--alt2\n'
            f"Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n{b64}\n--alt2--\n"
            "--mix\nContent-Type: application/pdf; name=x.pdf\nContent-Disposition: attachment; filename=x.pdf\n"
            "Content-Transfer-Encoding: base64\n\nJVBERi0xLjQK\n--mix--\n"
        ).encode(),
    ]


def seeds() -> list[bytes]:
    return [p.read_bytes() for p in SEED_FILES] + _client_mails()


Mutation = Callable[[random.Random, bytes], bytes]


def _charset(rnd: random.Random, raw: bytes) -> bytes:
    name = rnd.choice(CHARSETS).encode("utf-8", "surrogateescape")
    if rnd.random() < 0.2:
        repl = b"charset*=" + name + b"''%E9%00abc"
    else:
        repl = b"charset=" + (b'"' + name + b'"' if rnd.random() < 0.5 else name)
    out, n = re.subn(rb"charset\*?=\"?[^\";\s]*\"?", lambda _: repl, raw, count=rnd.randint(1, 3), flags=re.I)
    if n == 0:
        out = re.sub(rb"(?im)^content-type:[^\n]*", lambda m: m.group(0) + b"; " + repl, raw, count=1)
        if out == raw:
            out = _add_header(raw, b"Content-Type: text/plain; " + repl)
    return out


def _encoded_word(rnd: random.Random, raw: bytes) -> bytes:
    cs = rnd.choice(CHARSETS).encode("utf-8", "surrogateescape")
    word = (
        b"=?"
        + cs
        + rnd.choice([b"?B?", b"?Q?", b"?X?"])
        + rnd.choice([b"W3BiZW0gaGhd", b"=FF=00=", b"A_b", b""])
        + b"?="
    )
    name = rnd.choice([b"Subject", b"From", b"Message-ID", b"Content-Type", b"Auto-Submitted"])
    if rnd.random() < 0.5 and re.search(rb"(?im)^" + name + rb":", raw):
        return re.sub(rb"(?im)^(" + name + rb":)", lambda m: m.group(1) + b" " + word, raw, count=1)
    return _add_header(raw, name + b": " + word + b" <x@players.test>")


def _transfer(rnd: random.Random, raw: bytes) -> bytes:
    enc = rnd.choice(ENCODINGS).encode()
    head = b"Content-Transfer-Encoding: " + enc
    if re.search(rb"(?im)^content-transfer-encoding:", raw):
        raw = re.sub(rb"(?im)^content-transfer-encoding:[^\n]*", lambda _: head, raw, count=rnd.randint(1, 3))
    else:
        raw = _add_header(raw, head)
    junk = rnd.choice([b"====", b"=ZZ=\n", b"begin 644 x\n!!!\n", b"QUJD\n=", b"\xff\xfe", b"=\n=\n"])
    return _insert(rnd, raw, junk)


def _boundary(rnd: random.Random, raw: bytes) -> bytes:
    m = re.search(rb'boundary="?([^";\s]+)"?', raw, re.I)
    if not m:
        raw = re.sub(rb"(?im)^content-type:[^\n]*", b'Content-Type: multipart/mixed; boundary="q"', raw, count=1)
        return raw + rnd.choice([b"\n--q\n", b"\n--q--\n", b"\n--q\nContent-Type: text/plain\n\nNO EVENT\n"])
    b = m.group(1)
    how = rnd.randrange(6)
    if how == 0:
        return raw.replace(b"--" + b, b"--" + b + b"x", rnd.randint(1, 3))
    if how == 1:
        return raw.replace(m.group(0), b'boundary=""')
    if how == 2:
        return raw.replace(b"--" + b + b"--", b"")
    if how == 3:
        return raw.replace(m.group(0), b'boundary="' + b"B" * rnd.randint(70, 5000) + b'"')
    if how == 4:
        return raw.replace(m.group(0), m.group(0) + b"; boundary=other")
    return raw.replace(b"--" + b, b"--" + b + b"\n--" + b, 1)


def _nest(rnd: random.Random, raw: bytes) -> bytes:
    head, sep, body = raw.partition(b"\n\n")
    if not sep:
        return raw
    depth = rnd.choice([2, 5, 30, 90, rnd.randint(100, 400)])
    keep = b"\n".join(ln for ln in head.split(b"\n") if not re.match(rb"(?i)content-|mime-version", ln))
    inner = b"\n".join(ln for ln in head.split(b"\n") if re.match(rb"(?i)content-", ln)) or b"Content-Type: text/plain"
    out = [keep, b"MIME-Version: 1.0"]
    for i in range(depth):
        out.append(b'Content-Type: multipart/mixed; boundary="n%d"\n\n--n%d' % (i, i))
    out += [inner, b"", body]
    out += [b"--n%d--" % i for i in reversed(range(depth)) if rnd.random() < 0.9]
    return b"\n".join(out)


def _headers(rnd: random.Random, raw: bytes) -> bytes:
    head, sep, body = raw.partition(b"\n\n")
    lines = head.split(b"\n")
    how = rnd.randrange(6)
    if how == 0 and lines:
        del lines[rnd.randrange(len(lines))]
    elif how == 1 and lines:
        lines.insert(rnd.randrange(len(lines) + 1), rnd.choice(lines))
    elif how == 2:
        lines.insert(rnd.randrange(len(lines) + 1), b"no colon here \xff")
    elif how == 3:
        lines.insert(rnd.randrange(len(lines) + 1), b"X-Big: " + b"y" * rnd.randint(1000, 100_000))
    elif how == 4:
        lines.insert(rnd.randrange(len(lines) + 1), rnd.choice([b" folded", b"\t", b":", b"From:", b"From: <>"]))
    else:
        lines.insert(0, rnd.choice([b"From: a@b.c, d@e.f", b"From: g: h@i.j;", b"Sender: alice@players.test"]))
    return b"\n".join(lines) + sep + body


def _bytes(rnd: random.Random, raw: bytes) -> bytes:
    for _ in range(rnd.randint(1, 8)):
        raw = _insert(
            rnd, raw, bytes(rnd.choice([0, 0x80, 0xFF, 0xC3, 0x0D, 0x1B, rnd.randrange(256)]) for _ in range(3))
        )
    return raw


def _line_ends(rnd: random.Random, raw: bytes) -> bytes:
    return raw.replace(b"\n", rnd.choice([b"\r\n", b"\r\n", b"\r\n", b"\r", b"\n\r", b"\r\r\n"]))


def _truncate(rnd: random.Random, raw: bytes) -> bytes:
    return raw[: rnd.randint(0, len(raw))]


def _insert(rnd: random.Random, raw: bytes, junk: bytes) -> bytes:
    at = rnd.randint(0, len(raw))
    return raw[:at] + junk + raw[at:]


def _add_header(raw: bytes, line: bytes) -> bytes:
    return line + b"\n" + raw


MUTATIONS: list[Mutation] = [
    _charset,
    _charset,
    _encoded_word,
    _transfer,
    _boundary,
    _nest,
    _headers,
    _bytes,
    _line_ends,
    _truncate,
]


def mutants(n: int, seed: int = 12) -> Iterator[bytes]:
    """`n` mutated mails, each with its own Message-ID (so none is a duplicate of another)."""
    rnd = random.Random(seed)
    base = seeds()
    for i in range(n):
        raw = rnd.choice(base)
        raw = re.sub(rb"(?im)^message-id:[^\n]*\n", b"", raw)
        raw = b"Message-ID: <fuzz-%d-%d@fuzz.test>\n" % (seed, i) + raw
        for _ in range(rnd.choice([1, 1, 2, 2, 3, 4])):
            raw = rnd.choice(MUTATIONS)(rnd, raw)
        yield raw

